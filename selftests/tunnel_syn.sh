#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel's flow table against SYNs that should not move a flow,
# and that should:
#   - under the flood guard (flood_threshold=1), a client that reuses the
#     tuples of a drained backend's connections: each SYN follows the ring
#     and rewrites its own entry, whatever the budget, so the connection's
#     next packets follow it too;
#   - a spoofed SYN with an established connection's tuple, after a ring
#     change that moved it: the connection stays on its backend;
#   - a flood of spoofed flows of two packets each (a SYN, then an ACK)
#     through a small table: no established connection is evicted, so
#     none moves when the ring changes after it.
#
#   ts-cli                 ts-lb                          ts-b1 .. ts-b4
#  +----------------+    +----------------------------+    +---------------------+
#  | 10.1.0.2       |    | 10.0.0.100:80 tcp          |    | 10.2.N.2, tunl0 up, |
#  | held conns,    +----+ forward tunnel ipip        +----+ VIP on lo, :80      |
#  | syn_flood: its |    | RPS puts lb-cli's packets  |  x4| says "bN"; drops    |
#  | own tuples, or |    | on cpu0                    |    | the flood (nft raw) |
#  | 198.18.0.0/15  |    | b1 b2 b3, then + b4        |    +---------------------+
#  +----------------+    +----------------------------+

set -e
P=ts
. "$(dirname "$0")/lib/topo.sh"
need_tools jq nft
BPORT=$VPORT
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
FLOOD=$RS_BINDIR/syn_flood
PARAMS=/sys/module/ringsteer/parameters
FLOOD_NET=198.18.0.0/15
# The cases to run (each stands alone, so each can be seen failing alone).
CASES=${TS_CASES:-guard spoof pairs}
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
	bk "$i" nft -f - <<-EOF
	table ip flood {
		chain pre {
			type filter hook prerouting priority raw; policy accept;
			ip saddr $FLOOD_NET counter drop
		}
	}
	EOF
done
# All of the client's packets on one CPU of the LB, as RSS would keep a
# flow's: what is tested here is not a flow seen on two CPUs.
lb sh -c 'echo 1 >/sys/class/net/lb-cli/queues/rx-0/rps_cpus'
ENTRIES0=$(cat "$PARAMS/flow_table_entries")
THRESHOLD0=$(cat "$PARAMS/flood_threshold")
restore_params()
{
	echo "$ENTRIES0" >"$PARAMS/flow_table_entries"
	echo "$THRESHOLD0" >"$PARAMS/flood_threshold"
	topo_cleanup
}
trap restore_params EXIT

counter() { rctl show -j | jq -r ".services[0].tunnel.$1"; }
# broken WANT PING: the sports whose answer in PING is not the one in WANT.
broken() { awk 'NR == FNR { got[$1] = $2; next } got[$1] != $2 { print $1 }' "$2" "$1"; }
# spoof ARGS...: syn_flood from the client's link, to the VIP.
spoof()
{
	local src=$1
	shift
	cli "$FLOOD" "$@" cli0 "$(mac 0 1)" "$VIP4" "$VPORT" "$src" >"$W/spoof.out" 2>&1 ||
		die "syn_flood: $(cat "$W/spoof.out")"
}
# want CASE: whether CASE is to run.
want() { [[ " $CASES " == *" $1 "* ]]; }
# confirm: one more request on every held flow, over a second after its
# first packet: what confirms an entry (a second packet alone does not).
confirm()
{
	sleep 1.5
	hold_ping >"$W/confirm"
}

# -- The flood guard at 1 entry a second: a drained backend's tuples
# reused. Their SYNs find their own entries, still valid (draining), and
# follow the ring; the entries must follow them, or the rest of each
# connection goes to the drained backend, which resets it.
case_guard()
{
	tunnel_service 3
	lookup 21000-21099 >"$W/want1"
	traffic 21000-21099 >"$W/got1"
	expect_same "$W/got1" "$W/want1" "first connections vs ringctl lookup"
	grep -q ' b1$' "$W/got1" || die "no connection on b1: nothing to test"
	cmd_ok rctl backend drain "$SVC4" "10.2.1.2:80"
	echo 1 >"$PARAMS/flood_threshold"
	lookup 21000-21099 >"$W/want2"
	traffic 21000-21099 >"$W/got2"
	# The guard was on: of a burst of new flows, most were not recorded.
	s0=$(counter flood_skipped)
	spoof "$FLOOD_NET" -n 50
	echo "$THRESHOLD0" >"$PARAMS/flood_threshold"
	echo "# flood_skipped grew by $(($(counter flood_skipped) - s0)) of 50 new flows under flood_threshold=1"
	[ "$(counter flood_skipped)" -gt "$s0" ] || die "flood_threshold=1 skipped nothing: the guard was not on"
	expect_same "$W/got2" "$W/want2" "reused tuples of drained b1 under flood_threshold=1"
	pass "flood_threshold=1: the $(grep -c ' b1$' "$W/got1") reused tuples of drained b1 followed the ring, SYN and rest"
}

# -- A spoofed SYN for each established connection, after b4 joined.
case_spoof()
{
	cmd_ok rctl flush
	tunnel_service 3
	lookup 20000-20099 >"$W/want3"
	hold_start -t 20 20000-20099 >"$W/held3"
	expect_same "$W/held3" "$W/want3" "held connections vs ringctl lookup"
	confirm
	expect_same "$W/confirm" "$W/want3" "held connections, a second on"
	cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
	lookup 20000-20099 >"$W/want4"
	paste -d' ' "$W/want3" "$W/want4" | awk '$2 != $4 { print $1 }' >"$W/moved4"
	[ -s "$W/moved4" ] || die "b4 moved none of the held connections on the ring: nothing to test"
	spoof "$CLI4/32" -n 100 -p 20000-20099
	grep -q '^sent 100 ' "$W/spoof.out" || die "syn_flood: $(cat "$W/spoof.out")"
	sleep 0.5
	hold_ping >"$W/ping4"
	hold_stop
	broken "$W/want3" "$W/ping4" >"$W/broken4"
	[ ! -s "$W/broken4" ] ||
		die "a spoofed SYN broke $(wc -l <"$W/broken4") established connections (b4 took $(wc -l <"$W/moved4") on the ring)"
	pass "spoofed SYNs for 100 established connections, $(wc -l <"$W/moved4") of them moved by the ring: none moved"
}

# -- Two packets per spoofed flow through a small table.
case_pairs()
{
	cmd_ok rctl flush
	echo 1024 >"$PARAMS/flow_table_entries"
	tunnel_service 3
	lookup 22000-22039 >"$W/want5"
	hold_start -t 20 22000-22039 >"$W/held5"
	expect_same "$W/held5" "$W/want5" "held connections in a small table"
	confirm
	m0=$(counter table_misses)
	spoof "$FLOOD_NET" -2 -n 20000 -s 60
	echo "# two-packet flood: $(cat "$W/spoof.out"), $(($(counter table_misses) - m0)) misses in a table of $(rctl show -j | jq .flow_table_entries) entries a CPU"
	cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
	lookup 22000-22039 >"$W/want6"
	paste -d' ' "$W/want5" "$W/want6" | awk '$2 != $4 { print $1 }' >"$W/moved6"
	[ -s "$W/moved6" ] || die "b4 moved none of the held connections on the ring: nothing to test"
	hold_ping >"$W/ping6"
	hold_stop
	broken "$W/want5" "$W/ping6" >"$W/broken6"
	[ ! -s "$W/broken6" ] ||
		die "after a two-packet flood, b4's arrival broke $(wc -l <"$W/broken6") established connections (the ring moved $(wc -l <"$W/moved6"))"
	pass "a flood of two-packet spoofed flows evicted no established connection ($(wc -l <"$W/moved6") of 40 moved on the ring, none broke)"
}

for c in guard spoof pairs; do
	want "$c" || continue
	"case_$c"
done
