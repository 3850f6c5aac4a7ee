#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel's flow table under a spoofed-source SYN flood: 100 held
# TCP connections, a small table, a flood of SYNs from random sources at
# the highest rate the guest gives, and a backend added mid-flood. The
# flood must not evict the connections' entries, so none of them moves to
# the ring's new owner (which would reset it): every one still answers,
# from the backend it started on, during the flood and after it.
#   - guard off (flood_threshold=0): every SYN is steered and recorded,
#     but as a tentative entry, which never evicts a confirmed one (an
#     entry whose flow has sent a packet a second after its first);
#   - guard on (flood_threshold low, under the flood's rate): past it no
#     miss is recorded at all, counted as flood_skipped;
#   - negative control, no table (flow_table_entries=0): the same flood
#     and change break exactly the connections the ring moves, so the
#     scenario can fail.
#
#   tf-cli                 tf-lb                          tf-b1 .. tf-b4
#  +----------------+    +----------------------------+    +---------------------+
#  | 10.1.0.2       |    | 10.0.0.100:80 tcp          |    | 10.2.N.2, tunl0 up, |
#  | 100 held conns +----+ forward tunnel ipip        +----+ VIP on lo, :80      |
#  | syn_flood from |    | small flow table; RPS puts |  x4| says "bN"; drops    |
#  | 198.18.0.0/15  |    | lb-cli's packets on cpu0   |    | the flood (nft raw) |
#  +----------------+    | b1 b2 b3, + b4 mid-flood   |    +---------------------+
#                        +----------------------------+

set -e
P=tf
. "$(dirname "$0")/lib/topo.sh"
need_tools jq nft taskset
BPORT=$VPORT
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
FLOOD=$RS_BINDIR/syn_flood
PARAMS=/sys/module/ringsteer/parameters
# Spoofed sources: the benchmarking range (RFC 2544), routed back to the
# client as an attacker's sources would be.
FLOOD_NET=198.18.0.0/15
# The flood runs until the connections have answered after the change,
# never longer than this.
FLOOD_SECS=${TF_FLOOD_SECS:-90}
# Small, so that the flood goes through it many times in a slow guest;
# large enough that no bucket (4 ways, 3 of them confirmed at most) has 4
# of the 100 connections but once in a few hundred runs.
ENTRIES=${TF_ENTRIES:-4096}
# Under the flood's rate in a TCG guest on a busy host (800/s at load 10),
# over the 100 connections the client opens at once.
THRESHOLD=${TF_THRESHOLD:-200}
SPORTS=20000-20099
[ -x "$FLOOD" ] || die "no $FLOOD (make selftest-bins)"
topo_setup 4
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo
lb ip route add "$FLOOD_NET" via "$CLI4"
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:[0-9]+$/ b\1/'
}
for i in 1 2 3 4; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIP4" >/dev/null ||
		die "ringsteer-backend up on b$i"
	# A backend would answer each SYN: drop them once decapsulated, so
	# the guest's time goes to the load balancer.
	bk "$i" nft -f - <<-EOF
	table ip flood {
		chain pre {
			type filter hook prerouting priority raw; policy accept;
			ip saddr $FLOOD_NET counter drop
		}
	}
	EOF
done
# As a NIC's RSS would, RPS keeps each flow's packets on one CPU of the
# LB (cpu0), the flood's and the connections'.
lb sh -c 'echo 1 >/sys/class/net/lb-cli/queues/rx-0/rps_cpus'
ENTRIES0=$(cat "$PARAMS/flow_table_entries")
if [ -e "$PARAMS/flood_threshold" ]; then
	GUARD=1
	DEFAULT_THRESHOLD=$(cat "$PARAMS/flood_threshold")
else
	GUARD=
	echo "# no flood_threshold parameter: this module has no flood guard"
fi
# The next scenario in this guest finds the module's parameters as they were.
restore_params()
{
	echo "$ENTRIES0" >"$PARAMS/flow_table_entries"
	[ -z "$GUARD" ] || echo "$DEFAULT_THRESHOLD" >"$PARAMS/flood_threshold"
	topo_cleanup
}
trap restore_params EXIT

# counter NAME: one of the service's tunnel counters ("none" if absent).
counter() { rctl show -j | jq -r ".services[0].tunnel.$1 // \"none\""; }
# delta A B: B - A, or "none".
delta() { if [ "$1" = none ] || [ "$2" = none ]; then echo none; else echo $(($2 - $1)); fi; }
# flood_dropped: the flood's SYNs the backends dropped, in all.
flood_dropped()
{
	local n
	# "ip saddr NET counter packets N bytes M drop"
	for n in 1 2 3 4; do
		bk "$n" nft list chain ip flood pre
	done | awk '$1 == "ip" && $2 == "saddr" && $5 == "packets" { s += $6 } END { print s + 0 }'
}
# broken WANT PING: the sports whose answer in PING is not the one in
# WANT, or that PING lacks (closed before it).
broken() { awk 'NR == FNR { got[$1] = $2; next } got[$1] != $2 { print $1 }' "$2" "$1"; }

# flood_case NAME ENTRIES THRESHOLD: the scenario with flow_table_entries
# ENTRIES and flood_threshold THRESHOLD ("" if the module has none);
# leaves NAME.broken (sports broken by the change, during or after the
# flood), NAME.moved (sports the ring moved) and the numbers in NAME.*.
flood_case()
{
	local name=$1 entries=$2 thr=$3 size c1 n h0 m0 s0 p0 d0 t0 want end f=$W/$1
	cmd_ok rctl flush
	echo "$entries" >"$PARAMS/flow_table_entries"
	[ -z "$thr" ] || echo "$thr" >"$PARAMS/flood_threshold"
	tunnel_service 3
	size=$(rctl show -j | jq .flow_table_entries)
	[ "$entries" = 0 ] || [ "$size" -ge "$entries" ] || die "$name: a table of $size entries, asked for $entries"
	lookup "$SPORTS" >"$f.want"
	# Long timeouts: a request the flood delays is retransmitted, not lost.
	hold_start -t 60 "$SPORTS" >"$f.held"
	expect_same "$f.held" "$f.want" "$name: held connections vs ringctl lookup"
	# A packet over a second after its first confirms a flow: before
	# that, it is as tentative as the flood's.
	sleep 1.5
	hold_ping >"$f.confirm"
	expect_same "$f.confirm" "$f.want" "$name: held connections, a second on"

	h0=$(counter table_hits)
	m0=$(counter table_misses)
	s0=$(counter flood_skipped)
	p0=$(counter packets)
	d0=$(flood_dropped)
	t0=$SECONDS
	# On the CPU RPS sends the LB's packets to: there the sender runs
	# the LB's softirq as it sends, the fastest flood the guest gives
	# (about twice that of a sender on the other CPU). ip netns exec and
	# taskset exec, so $! is the sender's pid.
	ip netns exec "$P-cli" taskset -c 0 "$FLOOD" -s "$FLOOD_SECS" -n 50000000 \
		cli0 "$(mac 0 1)" "$VIP4" "$VPORT" "$FLOOD_NET" >"$f.flood" 2>&1 &
	FLOOD_PID=$!
	# Until the flood has sent the table's size (a block a CPU) three
	# times over (12 new flows a bucket on average: LRU would keep a flow
	# with a chance of 0.2 %), 40 s at most, and once and a half at least: then, unless
	# something protects them, the held connections' entries are gone.
	want=$((3 * $(nproc) * (size > 1000 ? size : 1000)))
	end=$((SECONDS + 40))
	while [ $(($(counter table_misses) - m0)) -lt "$want" ] && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
	done
	n=$(($(counter table_misses) - m0))
	echo "# $name: $n misses before the change"
	[ "$n" -ge $((want / 2)) ] || die "$name: $n misses in 40 s of flood: too weak to test anything"
	cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
	lookup "$SPORTS" >"$f.want2"
	paste -d' ' "$f.want" "$f.want2" | awk '$2 != $4 { print $1 }' >"$f.moved"
	hold_ping >"$f.ping1"
	kill -TERM "$FLOOD_PID" 2>/dev/null ||
		die "$name: the flood ended before every connection had answered: $(cat "$f.flood")"
	wait "$FLOOD_PID" || die "$name: syn_flood failed: $(cat "$f.flood")"
	c1=$(counter packets)
	delta "$h0" "$(counter table_hits)" >"$f.hits"
	delta "$m0" "$(counter table_misses)" >"$f.misses"
	delta "$s0" "$(counter flood_skipped)" >"$f.skipped"
	echo $((SECONDS - t0 + 1)) >"$f.secs"
	hold_ping >"$f.ping2"
	hold_stop
	broken "$f.want" "$f.ping1" >"$f.broken1"
	broken "$f.want" "$f.ping2" | sort -n >"$f.broken"
	grep -q '^sent [0-9]* seconds' "$f.flood" || die "$name: syn_flood said: $(cat "$f.flood")"
	echo "# $name: table $size entries a CPU, threshold ${thr:-none}: flood $(cat "$f.flood") SYNs/s, the LB" \
		"steered $(awk -v p="$(delta "$p0" "$c1")" '{ printf "%.0f", p / $4 }' "$f.flood") packets/s;" \
		"table hits $(cat "$f.hits"), misses $(cat "$f.misses"), flood_skipped $(cat "$f.skipped");" \
		"b4 took $(wc -l <"$f.moved") of 100 on the ring; broken $(wc -l <"$f.broken")," \
		"$(wc -l <"$f.broken1") of them during the flood"
	[ -s "$f.moved" ] || die "$name: adding b4 moved no held connection on the ring: nothing is tested"
	echo "# $name: $(($(flood_dropped) - d0)) flood SYNs reached the backends"
}

# -- Guard off: tentative entries alone keep the held ones.
[ -z "$GUARD" ] || THR0=0
flood_case tentative "$ENTRIES" "${THR0:-}"
[ ! -s "$W/tentative.broken" ] ||
	die "guard off: the flood and b4's arrival broke $(wc -l <"$W/tentative.broken") connections (the ring moved $(wc -l <"$W/tentative.moved"))"
[ "$(cat "$W/tentative.hits")" -ge 100 ] || die "guard off: the held connections' requests did not hit the table"
[ -n "$GUARD" ] || die "no flood_threshold parameter"
[ "$(cat "$W/tentative.skipped")" = 0 ] || die "guard off, yet $(cat "$W/tentative.skipped") misses were skipped"
pass "guard off: no held connection broke under the flood (tentative entries evict no confirmed one)"

# -- Guard on under the flood's rate: misses not recorded, counted.
flood_case guard "$ENTRIES" "$THRESHOLD"
[ ! -s "$W/guard.broken" ] ||
	die "guard at $THRESHOLD/s: the flood and b4's arrival broke $(wc -l <"$W/guard.broken") connections"
[ "$(cat "$W/guard.hits")" -ge 100 ] || die "guard on: the held connections' requests did not hit the table"
[ "$(cat "$W/guard.skipped")" -gt 0 ] || die "guard at $THRESHOLD/s: no miss skipped under the flood"
# Every miss is recorded or skipped: at most THRESHOLD recorded a second
# on each CPU, over the seconds the counters were read apart (one more for
# the second they started in).
n=$(($(cat "$W/guard.misses") - $(cat "$W/guard.skipped")))
[ "$n" -le $((THRESHOLD * $(nproc) * ($(cat "$W/guard.secs") + 1))) ] ||
	die "guard at $THRESHOLD/s: $n misses recorded in $(cat "$W/guard.secs") s"
pass "guard at $THRESHOLD/s: no held connection broke, $(cat "$W/guard.skipped") misses not recorded"

# -- Negative control: without a table the same flood and change break
# exactly the connections the ring moves.
flood_case notable 0 "$DEFAULT_THRESHOLD"
sort -n "$W/notable.moved" >"$W/notable.want_broken"
cmp -s "$W/notable.want_broken" "$W/notable.broken" ||
	die "without a table: $(wc -l <"$W/notable.broken") broke, the ring moved $(wc -l <"$W/notable.moved")"
[ "$(cat "$W/notable.hits")" = 0 ] || die "table hits without a table"
pass "negative control, no table: exactly the $(wc -l <"$W/notable.broken") connections the ring moved broke"
