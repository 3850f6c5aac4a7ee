#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configuration churn at full speed under traffic. Two services share four
# backends: b1 and b2 stay, b3 and b4 are added, re-weighted, drained,
# re-activated and deleted as fast as a raw netlink client can (without
# keep-flows, so their conntrack entries are flushed each time). Meanwhile:
#  - long-lived TCP connections to 10.0.0.100:90 stream checked data, each
#    from a source port that the ring gives to b1 or b2 even with b3 and b4
#    at their largest weights: none may break or lose a byte;
#  - short TCP connections to 10.0.0.100:80 in rounds, from the same ports
#    each round. A flow that the largest ring gives to b1 or b2 goes there
#    in every ring the churn makes (b3 and b4 only ever own fewer points):
#    it must always reach that backend. Only the others may fail (their
#    backend deleted in flight) or land elsewhere;
#  - counters add up: :90 flows = b1 + b2 flows = its connections, :80
#    flows >= connections attempted and >= the sum over its backends;
#  - after the last delete of b3 and b4, no conntrack entry leads to them.
# RS_CHURN_SECONDS (default 60) sets the duration.
#
#   ct-cli                 ct-lb                             ct-b1 .. ct-b4
#  +--------------+      +----------------------------------+    +------------+
#  | 10.1.0.2     +------+ 10.0.0.100:80 -> bN:8080         +----+ 10.2.N.2   |
#  | rs_stream.py |      | 10.0.0.100:90 -> bN:9090         | x4 | :8080 name |
#  |  8 streams   |      | b1 b2 fixed; b3 b4 churned by    |    | :9090 echo |
#  | rs_client.py |      |  rs_churn.py (add/set/drain/del) |    |            |
#  |  rounds      |      |                                  |    |            |
#  +--------------+      +----------------------------------+    +------------+

set -e
P=ct
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack
topo_setup 4
SECS=${RS_CHURN_SECONDS:-60}
S80=$VIP4:80
S90=$VIP4:90
SHORT=30000-30063

for i in 1 2 3 4; do
	bk "$i" "$PY" "$LIBDIR/rs_stream.py" server 9090 "$W/s$i.ready" &
	SERVERS+=($!)
done
ready_files '^s.\.ready$' 4 300 || die "echo servers did not start"

cmd_ok rctl key set "$KEY"
for svc in $S80 $S90; do
	bport=$BPORT
	[ "$svc" = "$S80" ] || bport=9090
	cmd_ok rctl service add "$svc" vnodes 64
	for i in 1 2; do cmd_ok rctl backend add "$svc" "10.2.$i.2:$bport"; done
	# The largest ring of the churn, for the owners every ring agrees on.
	cmd_ok rctl backend add "$svc" "10.2.3.2:$bport" weight 3
	cmd_ok rctl backend add "$svc" "10.2.4.2:$bport" weight 2
done
lookup "$SHORT" | sed -E 's/ 10\.2\.([0-9])\.2:9090$/ b\1/' >"$W/owner80"
SVC4=$S90 lookup 50000-50127 | sed -E 's/ 10\.2\.([0-9])\.2:9090$/ b\1/' >"$W/owner90"
STREAMS=$(awk '$2 == "b1" || $2 == "b2" { print $1 }' "$W/owner90" | head -n 8 | paste -sd,)
[ "$(echo "$STREAMS" | tr ',' '\n' | wc -l)" = 8 ] || die "fewer than 8 ports of 50000-50127 owned by b1 or b2"
awk '$2 == "b1" || $2 == "b2"' "$W/owner80" >"$W/safe"
nsafe=$(wc -l <"$W/safe")
[ "$nsafe" -gt 0 ] && [ "$nsafe" -lt 64 ] || die "$nsafe of 64 short flows owned by b1/b2 in the largest ring: no contrast"
for svc in $S80 $S90; do
	bport=$BPORT
	[ "$svc" = "$S80" ] || bport=9090
	cmd_ok rctl backend del "$svc" "10.2.3.2:$bport"
	cmd_ok rctl backend del "$svc" "10.2.4.2:$bport"
done
pass "streams from ports $STREAMS; $nsafe of 64 short flows stay with b1/b2 in every ring"

# The churn: one cycle of changes on both services, repeated.
for svc in $S80 $S90; do
	bport=$BPORT
	[ "$svc" = "$S80" ] || bport=9090
	s="svc=$svc/tcp"
	cat <<-EOF2
	BACKEND_NEW $s be=10.2.3.2:$bport backend.weight=u32:1
	BACKEND_NEW $s be=10.2.4.2:$bport backend.weight=u32:2
	BACKEND_SET $s be=10.2.3.2:$bport backend.weight=u32:3
	BACKEND_SET $s be=10.2.4.2:$bport backend.state=u32:1
	BACKEND_SET $s be=10.2.4.2:$bport backend.state=u32:0
	BACKEND_SET $s be=10.2.3.2:$bport backend.weight=u32:2
	BACKEND_DEL $s be=10.2.3.2:$bport
	BACKEND_DEL $s be=10.2.4.2:$bport
	EOF2
done >"$W/cycle"

cli "$PY" "$LIBDIR/rs_stream.py" client --seconds "$SECS" "$CLI4" "$VIP4" 90 "$STREAMS" >"$W/streams" 2>&1 &
STREAM=$!
: >"$W/short"
rounds=0
(
	end=$((SECONDS + SECS))
	while [ $SECONDS -lt $end ]; do
		traffic -t 3 "$SHORT"
		echo "=" >&2
	done >>"$W/short" 2>"$W/rounds"
) &
SHORTPID=$!

lb "$PY" "$LIBDIR/rs_churn.py" "$SECS" "$W/cycle" >"$W/churn.out" 2>&1 || die "churn: $(cat "$W/churn.out")"
echo "churn: $(cat "$W/churn.out")"
wait "$SHORTPID"
rc=0
wait "$STREAM" || rc=$?
cat "$W/streams"
[ $rc = 0 ] || die "a long-lived connection broke or lost data"
pass "8 long-lived connections: every byte echoed back in order"

rounds=$(grep -c '^=' "$W/rounds" || true)
[ "$rounds" -gt 0 ] || die "no round of short connections finished"
# Every round lists the 64 flows in order: check each against the owners.
awk -v r="$rounds" 'FNR == NR { safe[$1] = $2; next }
	{ n++; seen[$2]++ }
	($1 in safe) && $2 != safe[$1] { bad++; if (bad <= 5) printf "safe flow %s reached %s, owner %s\n", $1, $2, safe[$1] }
	!($1 in safe) && $2 !~ /^(b[1-4]|-)$/ { bad++; printf "flow %s: %s\n", $1, $2 }
	!($1 in safe) && $2 == "-" { lost++ }
	END { printf "%d short connections in %d rounds; %d of the others failed; answers:", n, r, lost
	      for (b in seen) printf " %s=%d", b, seen[b]; printf "\n"; exit bad > 0 }' \
	"$W/safe" "$W/short" || die "a short connection owned by b1 or b2 in every ring went elsewhere or failed"
pass "short connections: those of b1/b2 always reached them"

# The churn ended by deleting b3 and b4, each delete flushing their
# entries: any entry still DNATed to them escaped a flush (a flow whose
# first packet was between the DNAT and its confirmation at the delete).
left=$(lb conntrack -L 2>/dev/null | grep -Ec ' src=10\.2\.[34]\.2 ' || true)
[ "$left" = 0 ] || {
	lb conntrack -L 2>/dev/null | grep -E ' src=10\.2\.[34]\.2 ' | head -n 5
	die "$left conntrack entries DNATed to the deleted b3 or b4 outlived their flush"
}
pass "no conntrack entry of the deleted b3, b4 left"

show "$W/show"
f90=$(field "$W/show" svc "$S90/tcp" 9)
b90=$(awk -v s="$S90/tcp" '$1 == "be" && $2 == s && ($3 ~ /^10\.2\.[12]\.2:/) { n += $6 } END { print n + 0 }' "$W/show")
f80=$(field "$W/show" svc "$S80/tcp" 9)
nb80=$(field "$W/show" svc "$S80/tcp" 10)
sum80=$(awk -v s="$S80/tcp" '$1 == "be" && $2 == s { n += $6 } END { print n + 0 }' "$W/show")
attempts=$(wc -l <"$W/short")
echo "counters: :90 flows $f90 (b1+b2 $b90); :80 flows $f80, backends now $sum80, no_backend $nb80, attempts $attempts"
[ "$f90" = 8 ] && [ "$b90" = 8 ] || die ":90 counted $f90 flows, b1+b2 $b90, for 8 connections"
[ "$f80" -ge "$attempts" ] || die ":80 counted $f80 flows for $attempts connections"
[ "$f80" -ge "$sum80" ] || die ":80 counted $f80 flows, less than its backends' $sum80"
[ "$nb80" = 0 ] || die ":80 dropped $nb80 flows for want of a backend, with b1 and b2 always active"
pass "counters add up"
