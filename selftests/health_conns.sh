#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a backend marked down does with its held connections: with the
# service's on-down keep (the default) they go on, as after a drain; with
# on-down reset they are reset on their next segment, as after a delete.
# Either way no other backend's connection is touched, and new flows go
# to the others. A backend's own on-down (backend set ... on-down) wins
# over its service's, both ways, and save and restore keep it.
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
# hold_on_all PORTS FILE: held connections from PORTS, in FILE, at
# least one on each backend.
hold_on_all()
{
	local b
	hold_start "$1" >"$2"
	no_failures "$2" "opening held connections"
	for b in b1 b2 b3; do
		grep -q " $b\$" "$2" || die "no held connection on $b: $(counts "$2" | tr '\n' ' ')"
	done
}

hold_on_all 30000-30059 "$W/open"

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

# A backend's own on-down over its service's, both ways: b1 keeps its
# connections in a service that resets, b3 resets its own in a service
# that keeps.
cmd_ok rctl backend set "$SVC4" "$(be4 1)" on-down keep
cmd_ok rctl backend set "$SVC4" "$(be4 3)" on-down reset
[ "$(rctl -j show | jq -r '[.services[0].backends[].on_down] | join(" ")')" = "keep service reset" ] ||
	die "show -j: backends' on-down: $(rctl -j show | jq -c '[.services[0].backends[].on_down]')"
rctl save >"$W/saved"
grep -q "^	backend $(be4 1) weight 1 state active on-down keep\$" "$W/saved" &&
	grep -q "^	backend $(be4 2) weight 1 state active\$" "$W/saved" &&
	grep -q "^	backend $(be4 3) weight 1 state active on-down reset\$" "$W/saved" ||
	die "save: backends' on-down: $(cat "$W/saved")"
hold_on_all 33000-33059 "$W/open2"
cmd_ok rctl backend set "$SVC4" "$(be4 1)" health down
hold_ping >"$W/keep2"
expect_same "$W/keep2" "$W/open2" "held connections after b1 (on-down keep) down in a resetting service"
cmd_ok rctl service set "$SVC4" on-down keep
cmd_ok rctl backend set "$SVC4" "$(be4 3)" health down
hold_ping >"$W/reset2"
awk '$2 == "b3" { print $1 " -"; next } { print }' "$W/open2" >"$W/want2"
expect_same "$W/reset2" "$W/want2" "held connections after b3 (on-down reset) down in a keeping service"
hold_stop
pass "a backend's own on-down: b1 keeps its $(grep -c ' b1$' "$W/open2") in a service that resets, b3 resets its $(grep -c ' b3$' "$W/open2") in one that keeps"

# Back to the service's: given as 'service', gone from save; restore
# brings a file's back.
cmd_ok rctl backend set "$SVC4" "$(be4 1)" on-down service
rctl save | grep -q "^	backend $(be4 1) weight 1 state active\$" ||
	die "save after on-down service: $(rctl save)"
cmd_ok rctl restore "$W/saved"
[ "$(rctl -j show | jq -r '.services[0].backends[0].on_down')" = keep ] ||
	die "restore did not bring b1's on-down keep back"
[ "$(rctl -j show | jq -r '.services[0].backends[0].health')" = down ] ||
	die "restore changed b1's health"
pass "on-down service follows the service again; restore sets a backend's own from the file and keeps its health"

# A file without a backend's own on-down means the service's: restore
# takes b1's keep away again.
sed "s/^\(	backend $(be4 1) weight 1 state active\) on-down keep\$/\1/" "$W/saved" >"$W/plain"
! grep -q "backend $(be4 1) .*on-down" "$W/plain" || die "could not strip b1's on-down: $(cat "$W/plain")"
cmd_ok rctl restore "$W/plain"
[ "$(rctl -j show | jq -r '[.services[0].backends[].on_down] | join(" ")')" = "service service reset" ] ||
	die "restore of a file without b1's on-down: $(rctl -j show | jq -c '[.services[0].backends[].on_down]')"
pass "restore of a file without a backend's own on-down sets it back to the service's"
