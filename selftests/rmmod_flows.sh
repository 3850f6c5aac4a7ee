#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unloading the module ends the connections it steered, as IPVS does: their
# conntrack entries go, so nothing is left that the packets of those flows
# could follow, and clients learn promptly (a reset, or a failure within a
# bounded wait) instead of hanging until TCP gives up.
#
#   rf-cli                 rf-lb                          rf-b1, rf-b2
#  +-------------+       +-----------------------------+     +------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp -> b1 b2  +-----+ 10.2.N.2   |
#  | 40 held TCP |       | then rmmod ringsteer        | x2  | :8080      |
#  | connections |       |                             |     | says "bN"  |
#  +-------------+       +-----------------------------+     +------------+

set -e
P=rf
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack
topo_setup 2

FLOWS=30000-30039
cmd_ok rctl service add "$SVC4"
cmd_ok rctl backend add "$SVC4" "$(be4 1)"
cmd_ok rctl backend add "$SVC4" "$(be4 2)"

vip_entries() { lb conntrack -L -p tcp --orig-dst "$VIP4" 2>/dev/null | grep -c "dst=$VIP4 sport=[0-9]* dport=$VPORT " || true; }

# The client's failure summary (reset, eof or timeout) goes to hold.err.
exec 3>&2 2>"$W/hold.err"
hold_start "$FLOWS" >"$W/open"
exec 2>&3 3>&-
no_failures "$W/open" "opening held connections"
n=$(vip_entries)
[ "$n" = 40 ] || die "$n conntrack entries for the VIP with 40 connections open"
hold_ping >"$W/alive"
expect_same "$W/alive" "$W/open" "held connections before rmmod"
pass "40 connections held, 40 conntrack entries for the VIP"

cmd_ok rmmod ringsteer
n=$(vip_entries)
echo "after rmmod: $n conntrack entries for the VIP"
lb conntrack -L -p tcp --orig-dst "$VIP4" 2>/dev/null | head -n 3
# hold_ping waits at most rs_client's 5 s timeout for each answer.
hold_ping >"$W/after"
hold_stop
echo "after rmmod, connections: $(counts "$W/after" | tr '\n' ' ')"
cat "$W/hold.err"
[ "$n" = 0 ] || die "$n DNAT conntrack entries of the VIP outlived the module"
ports "$FLOWS" | sed 's/$/ -/' >"$W/want"
expect_same "$W/after" "$W/want" "held connections after rmmod"
! grep -q 'timeout=' "$W/hold.err" || die "connections hung after rmmod: $(cat "$W/hold.err")"
pass "rmmod: the VIP's entries are gone, every held connection fails promptly"
