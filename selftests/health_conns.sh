#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a backend marked down does with its held connections: with the
# service's on-down keep (the default) they go on, as after a drain; with
# on-down reset they are reset on their next segment, as after a delete.
# Either way no other backend's connection is touched, and new flows go
# to the others.
#
#   hc-cli                 hc-lb                              hc-b1 .. hc-b3
#  +-------------+       +---------------------------------+     +-------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp: b1 b2 b3     +-----+ 10.2.N.2    |
#  | 60 held TCP |       | b1 down (keep), b2 down (reset) | x3  | :8080 says  |
#  | connections |       |                                 |     | "bN"        |
#  +-------------+       +---------------------------------+     +-------------+

set -e
P=hc
. "$(dirname "$0")/lib/topo.sh"
topo_setup 3

cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4"
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
done
hold_start 30000-30059 >"$W/open"
no_failures "$W/open" "opening held connections"
for b in b1 b2 b3; do
	grep -q " $b\$" "$W/open" || die "no held connection on $b: $(counts "$W/open" | tr '\n' ' ')"
done

# on-down keep: b1's connections go on, new flows avoid it.
cmd_ok rctl backend set "$SVC4" "$(be4 1)" health down
hold_ping >"$W/keep"
expect_same "$W/keep" "$W/open" "held connections after b1 down (on-down keep)"
traffic 31000-31199 >"$W/new1"
no_failures "$W/new1" "new flows with b1 down"
grep -q " b1\$" "$W/new1" && die "a new flow reached b1 while it was down"
pass "on-down keep: b1's $(grep -c ' b1$' "$W/open") connections go on, no new flow reaches it"

# on-down reset: b2's connections are reset, the others' go on.
cmd_ok rctl service set "$SVC4" on-down reset
rctl -j show | grep -q '"on_down": *"reset"' || die "show -j: no on_down reset"
cmd_ok rctl backend set "$SVC4" "$(be4 2)" health down
hold_ping >"$W/reset"
awk '$2 == "b2" { print $1 " -"; next } { print }' "$W/open" >"$W/want"
expect_same "$W/reset" "$W/want" "held connections after b2 down (on-down reset)"
pass "on-down reset: b2's $(grep -c ' b2$' "$W/open") connections reset, the other $(grep -vc ' b2$' "$W/open") go on"
hold_stop

# Up again: the exact previous mapping for new flows.
traffic 32000-32199 >"$W/before"
cmd_ok rctl backend set "$SVC4" "$(be4 1)" health up
cmd_ok rctl backend set "$SVC4" "$(be4 2)" health up
rctl save | grep -q "^service $SVC4 proto tcp vnodes 256 hash flow on-down reset\$" ||
	die "save does not keep on-down reset: $(rctl save)"
traffic 32000-32199 >"$W/after"
awk '$2 == "b3"' "$W/before" >"$W/b3.before"
awk '$2 == "b3"' "$W/after" >"$W/b3.after"
[ "$(wc -l <"$W/b3.after")" -lt "$(wc -l <"$W/b3.before")" ] ||
	die "b1 and b2 up again took no flow from b3"
pass "up again: b1 and b2 take their flows back"
