#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What open TCP connections see when a backend is deleted: with keep-flows
# they go on to the deleted backend; without, their conntrack entries go,
# the next segment is steered to a backend that has no such connection and
# the connection fails, while connections of other backends are untouched.
#
#   dt-cli                 dt-lb                      dt-b1 .. dt-b3
#  +-------------+       +-------------------------+     +-------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp       +-----+ 10.2.N.2    |
#  | 90 held TCP |       | b1 b2 b3; del b1        | x3  | :8080 says  |
#  | connections |       | keep-flows, then del b2 |     | "bN"        |
#  +-------------+       +-------------------------+     +-------------+

set -e
P=dt
. "$(dirname "$0")/lib/topo.sh"
topo_setup 3

FLOWS=30000-30089
cmd_ok rctl service add "$SVC4"
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
done

hold_start "$FLOWS" >"$W/open"
no_failures "$W/open" "opening held connections"
for b in b1 b2 b3; do
	grep -q " $b\$" "$W/open" || die "no held connection on $b: $(counts "$W/open" | tr '\n' ' ')"
done

# keep-flows: every connection, b1's included, goes on as before.
cmd_ok rctl backend del "$SVC4" "$(be4 1)" keep-flows
hold_ping >"$W/kept"
expect_same "$W/kept" "$W/open" "held connections after 'backend del b1 keep-flows'"
pass "keep-flows: $(grep -c ' b1$' "$W/open") connections to the deleted b1 go on"

# Without it, b2's connections fail and nobody else's change.
cmd_ok rctl backend del "$SVC4" "$(be4 2)"
hold_ping >"$W/after"
awk '$2 == "b2" { print $1 " -"; next } { print }' "$W/open" >"$W/want"
expect_same "$W/after" "$W/want" "held connections after 'backend del b2'"
pass "delete: b2's $(grep -c ' b2$' "$W/open") connections fail, the other $(grep -vc ' b2$' "$W/open") go on"
hold_stop

# Their clients reconnect to the ring successor, as lookup says.
lookup "$FLOWS" >"$W/succ"
grep -q ' b2$' "$W/succ" && die "lookup still maps flows to the deleted b2"
traffic "$FLOWS" >"$W/again"
expect_same "$W/again" "$W/succ" "reconnections vs lookup"
pass "reconnections land where lookup says: $(counts "$W/again" | tr '\n' ' ')"
