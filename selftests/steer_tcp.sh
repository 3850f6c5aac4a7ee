#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 2,000 TCP connections through the load balancer land exactly where the
# kernel's lookup says, spread as the ring's shares say, and are counted per
# backend; adding a backend moves exactly the flows it now owns.
#
#   st-cli                st-lb                       st-b1 .. st-b4
#  +------------+       +--------------------------+      +-------------+
#  | 10.1.0.2   +-------+ VIP 10.0.0.100:80/tcp    +------+ 10.2.N.2    |
#  | sports     |       | ringsteer: b1 b2 b3(w2), |  x4  | :8080 says  |
#  | 20000-21999|       | then + b4                |      | "bN"        |
#  +------------+       +--------------------------+      +-------------+
#
# The client binds every source port itself, so phase 2 replays the very
# tuples of phase 1.

set -e
P=st
. "$(dirname "$0")/lib/topo.sh"
topo_setup 4

FLOWS=20000-21999

# Nothing steers before a service exists: the LB itself refuses (the VIP is
# one of its addresses).
traffic -t 2 20000-20009 >"$W/none"
[ "$(awk '$2 != "-"' "$W/none" | wc -l)" = 0 ] || die "flows reached a backend without a service"
pass "no service: nothing steered"

cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 2)" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 3)" proto tcp weight 2

# Only the service's own port is steered.
traffic -t 2 -p 81 20000-20009 >"$W/other"
[ "$(awk '$2 != "-"' "$W/other" | wc -l)" = 0 ] || die "port 81 was steered, only 80 is a service"
pass "other ports of the VIP not steered"

# Phase 1: every connection lands where lookup says.
lookup "$FLOWS" >"$W/want1"
[ "$(cut -d' ' -f2 "$W/want1" | sort -u | tr '\n' ' ')" = "b1 b2 b3 " ] ||
	die "lookup does not map onto exactly b1 b2 b3: $(counts "$W/want1" | tr '\n' ' ')"
grep -q ' b4$' "$W/want1" && die "lookup maps to b4, which is not a backend yet"
traffic "$FLOWS" >"$W/got1"
no_failures "$W/got1" "phase 1"
expect_same "$W/got1" "$W/want1" "connections vs ringctl lookup"
pass "2000 connections where lookup says: $(counts "$W/got1" | tr '\n' ' ')"

show "$W/show1"
expect_spread "$W/show1" "$SVC4/tcp" "$W/got1"
pass "spread matches the ring's shares"

# The shares the kernel reports are those of the same ring computed offline.
"$RINGCTL" -j simulate key "$KEY" backend "$(be4 1)" backend "$(be4 2)" backend "$(be4 3)@2" shares \
	>"$W/sim.json"
"$PY" - "$W/sim.json" "$W/show1" <<'EOF' || die "show -j shares differ from ringctl simulate"
import json, sys
sim = {s["backend"]: s["share"] for s in json.load(open(sys.argv[1]))["shares"]}
bad = 0
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == "be":
        if abs(sim.get(f[2], -1) - float(f[6])) > 1e-6:
            print("%s: kernel share %s, simulate %s" % (f[2], f[6], sim.get(f[2])))
            bad = 1
sys.exit(bad)
EOF
pass "kernel shares equal simulate's"

expect_flows "$W/show1" "$SVC4/tcp" "$W/got1"
pass "per-backend flow counters equal the observed counts"

# Phase 2: a fourth backend takes exactly the flows it now owns; no flow
# moves between the old backends.
cmd_ok rctl backend add "$SVC4" "$(be4 4)" proto tcp
lookup "$FLOWS" >"$W/want2"
moves "$W/want1" "$W/want2" >"$W/lmoves"
[ -s "$W/lmoves" ] || die "adding b4 moved no flow in lookup"
awk '$2 != "b4"' "$W/lmoves" | grep . && die "lookup moves flows between old backends"
traffic "$FLOWS" >"$W/got2"
no_failures "$W/got2" "phase 2"
expect_same "$W/got2" "$W/want2" "connections after adding b4 vs lookup"
moves "$W/got1" "$W/got2" >"$W/moves"
cat "$W/moves"
awk '$2 != "b4"' "$W/moves" | grep . && die "connections moved between old backends"
moved=$(awk '{ n += $3 } END { print n + 0 }' "$W/moves")
[ "$moved" = "$(grep -c ' b4$' "$W/got2")" ] || die "b4 got flows that did not move to it"
[ "$moved" -gt 0 ] || die "no connection moved to b4"
pass "b4 took $moved flows, all from their old owner, none between old backends"

show "$W/show2"
expect_spread "$W/show2" "$SVC4/tcp" "$W/got2"
expect_flows "$W/show2" "$SVC4/tcp" "$W/got1" "$W/got2"
pass "after add: spread and counters match"

# LOCAL_OUT: connections made on the LB itself are steered the same way.
lookup -l 25000-25199 >"$W/wantl"
traffic -l 25000-25199 >"$W/gotl"
no_failures "$W/gotl" "connections from the LB itself"
expect_same "$W/gotl" "$W/wantl" "connections from the LB itself vs lookup"
[ "$(cut -d' ' -f2 "$W/gotl" | sort -u | wc -l)" = 4 ] || die "LB-local connections do not reach all 4 backends"
pass "LOCAL_OUT: 200 connections from the LB where lookup says"
