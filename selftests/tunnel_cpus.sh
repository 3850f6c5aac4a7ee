#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel's flow table when a flow's packets reach the hook on
# both CPUs: no RPS, and over veth the load balancer's softirq runs on the
# CPU that sent the packet, so the client's CPU picks the LB's. Two ways
# a table a CPU broke connections:
#   - connections that ran on cpu0 only, then, after a backend joined,
#     sent on cpu1: cpu1 had no entry, the ring moved some of them;
#   - a client reusing tuples: the old connections ran on cpu1, the new
#     ones start on cpu0 after the ring changed, then send on cpu1, where
#     the old connections' entries still named the old backends.
# Every connection must answer from the backend it started on.
#
#   tc-cli                  tc-lb                         tc-b1 .. tc-b4
#  +-----------------+    +---------------------------+    +---------------------+
#  | 10.1.0.2        |    | 10.0.0.100:80 tcp         |    | 10.2.N.2, tunl0 up, |
#  | rs_client.py,   +----+ forward tunnel ipip, no   +----+ VIP on lo, :80      |
#  | pinned to cpu0, |    | RPS; nft counts the held  |  x4| servers pinned to   |
#  | then to cpu1    |    | flows' packets per CPU    |    | cpu0                |
#  +-----------------+    | b1 b2 b3, then + b4       |    +---------------------+
#                         +---------------------------+

set -e
P=tc
. "$(dirname "$0")/lib/topo.sh"
need_tools jq nft taskset
BPORT=$VPORT
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
# The cases to run (each stands alone, so each can be seen failing alone).
CASES=${TC_CASES:-moved reuse}
[ "$(nproc --all)" -ge 2 ] || die "one CPU: a flow cannot reach the LB on two"
topo_setup 4
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:[0-9]+$/ b\1/'
}
for i in 1 2 3 4; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIP4" >/dev/null ||
		die "ringsteer-backend up on b$i"
done
# pin_ns NS CPU: every thread of every process in NS on CPU.
pin_ns()
{
	local pid
	for pid in $(ip netns pids "$1"); do
		taskset -a -p -c "$2" "$pid" >/dev/null
	done
}
# The backends' replies, and so the client's ACKs of them, on cpu0: only
# what the client sends itself moves.
for i in 1 2 3 4; do
	pin_ns "$P-b$i" 0
done
# Where the client's packets reach the LB, before the hook: a counter a CPU.
lb nft -f - <<-EOF
table ip cpus {
	chain pre {
		type filter hook prerouting priority raw; policy accept;
		ip saddr $CLI4 tcp dport $VPORT meta cpu 0 counter
		ip saddr $CLI4 tcp dport $VPORT meta cpu 1 counter
	}
}
EOF
# on_cpu N: the client's packets the LB has seen on cpu N.
on_cpu()
{
	lb nft list chain ip cpus pre |
		awk -v c="$1" '$0 ~ "meta cpu " c " counter" { for (i = 1; i < NF; i++) if ($i == "packets") { j = i + 1; print $j } }'
}
# broken WANT PING: the sports whose answer in PING is not the one in WANT.
broken() { awk 'NR == FNR { got[$1] = $2; next } got[$1] != $2 { print $1 }' "$2" "$1"; }
# The client's own processes start on the CPU this shell is on.
on() { taskset -p -c "$1" $$ >/dev/null; }
trap 'on 0-1; topo_cleanup' EXIT

tunnel_service 3
# -- Old connections of the tuples reused below, on cpu1.
on 1
traffic 21000-21049 >"$W/old"
on 0
# Without the first case, b4 joins here.
[[ " $CASES " == *" moved "* ]] || cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"

# -- Connections on cpu0 alone, then b4 joins, then they send on cpu1.
case_moved()
{
	lookup 20000-20049 >"$W/want1"
	hold_start -t 20 20000-20049 >"$W/held1"
	expect_same "$W/held1" "$W/want1" "held connections vs ringctl lookup"
	sleep 1.5
	hold_ping >"$W/ping1"
	expect_same "$W/ping1" "$W/want1" "held connections, on cpu0"
	cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
	lookup 20000-20049 >"$W/want2"
	paste -d' ' "$W/want1" "$W/want2" | awk '$2 != $4 { print $1 }' >"$W/moved2"
	[ -s "$W/moved2" ] || die "b4 moved none of the held connections on the ring: nothing to test"
	c1=$(on_cpu 1)
	pin_ns "$P-cli" 1
	hold_ping >"$W/ping2"
	hold_stop
	[ "$(on_cpu 1)" -ge $((c1 + 50)) ] ||
		die "the held connections sent $(($(on_cpu 1) - c1)) packets on cpu1, want 50 at least"
	broken "$W/want1" "$W/ping2" >"$W/broken2"
	[ ! -s "$W/broken2" ] ||
		die "connections that moved from cpu0 to cpu1: $(wc -l <"$W/broken2") broke (the ring moved $(wc -l <"$W/moved2"))"
	pass "50 connections moved from cpu0 to cpu1 after b4 joined ($(wc -l <"$W/moved2") moved on the ring): none broke"
}

# -- Tuples reused: the new connections start on cpu0, then send on cpu1.
case_reuse()
{
	lookup 21000-21049 >"$W/want3"
	paste -d' ' "$W/old" "$W/want3" | awk '$2 != $4 { print $1 }' >"$W/moved3"
	[ -s "$W/moved3" ] || die "b4 moved none of the reused tuples on the ring: nothing to test"
	on 0
	hold_start -t 20 21000-21049 >"$W/held3"
	no_failures "$W/held3" "new connections of reused tuples, on cpu0"
	c1=$(on_cpu 1)
	pin_ns "$P-cli" 1
	hold_ping >"$W/ping3"
	hold_stop
	[ "$(on_cpu 1)" -ge $((c1 + 50)) ] ||
		die "the new connections sent $(($(on_cpu 1) - c1)) packets on cpu1, want 50 at least"
	broken "$W/held3" "$W/ping3" >"$W/broken3"
	[ ! -s "$W/broken3" ] ||
		die "reused tuples started on cpu0, then sent on cpu1: $(wc -l <"$W/broken3") broke (the ring moved $(wc -l <"$W/moved3") since the old connections)"
	pass "50 reused tuples started on cpu0 and went on on cpu1 ($(wc -l <"$W/moved3") moved on the ring since their old connections on cpu1): none broke"
}

for c in moved reuse; do
	[[ " $CASES " == *" $c "* ]] || continue
	on 0
	"case_$c"
done
