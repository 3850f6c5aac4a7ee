#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# restore applies only the difference between the file and the live
# configuration: held TCP connections to backends the file keeps (one with
# a new weight) go on, only those of the backend the file drops are reset,
# services the file keeps are never deleted, and "ringctl save" afterwards
# prints the file back.
#
#   rd-cli                 rd-lb                              rd-b1 .. rd-b4
#  +-------------+       +---------------------------------+     +-------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp: b1 b2 b3     +-----+ 10.2.N.2    |
#  | 90 held TCP |       | 10.0.0.100:80 udp: b1           | x4  | :8080 says  |
#  | connections |       | restore: b1 weight 3, b3 gone,  |     | "bN"        |
#  +-------------+       | b4 new; udp gone; [fd00::100]   |     +-------------+
#                        | :80 new                         |
#                        +---------------------------------+

set -e
P=rd
. "$(dirname "$0")/lib/topo.sh"
topo_setup 4

HELD=30000-30089
cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4" vnodes 40
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
done
cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp

hold_start "$HELD" >"$W/open"
no_failures "$W/open" "opening held connections"
for b in b1 b2 b3; do
	grep -q " $b\$" "$W/open" || die "no held connection on $b: $(counts "$W/open" | tr '\n' ' ')"
done

# In the format and order of "ringctl save", so that save must print it
# back unchanged.
cat >"$W/conf" <<EOF
key $KEY
service $SVC4 proto tcp vnodes 40 hash flow on-down keep
	backend $(be4 1) weight 3 state active
	backend $(be4 2) weight 1 state active
	backend $(be4 4) weight 1 state active
service $SVC6 proto tcp vnodes 50 hash source on-down reset
	backend $(be6 1) weight 1 state active
	backend $(be6 2) weight 2 state draining
	backend $(be6 3) weight 1 state active
EOF

# A file that fails its check changes nothing, held connections included.
{ cat "$W/conf"; echo "backend $(be6 4) weight 0"; } >"$W/bad"
cmd_fail rctl restore "$W/bad"
rctl save | grep -v '^#' >"$W/before"
grep -q "proto udp" "$W/before" || die "a rejected restore changed the configuration"

cmd_ok rctl restore "$W/conf"
hold_ping >"$W/after"
awk '$2 == "b3" { print $1 " -"; next } { print }' "$W/open" >"$W/want"
expect_same "$W/after" "$W/want" "held connections after restore"
pass "restore: b3's $(grep -c ' b3$' "$W/open") connections reset, the other $(grep -vc ' b3$' "$W/open") (b1 re-weighted) go on"
hold_stop

rctl save | grep -v '^#' >"$W/saved"
cmp -s "$W/saved" "$W/conf" || {
	diff "$W/conf" "$W/saved" >&2
	die "save after restore differs from the file restored"
}
pass "save prints the restored file back"

# Restoring the same file again changes nothing: no notification between
# two markers, "service set" with the same vnodes, then a drain of b4.
MON_KEY=$KEY rcmon_start "$P-lb" "$W/events"
# Events print in order: once this one shows, every earlier one has.
cmd_ok rctl service set "$SVC4" vnodes 40
for t in $(seq 1 100); do
	! grep -q "^service set" "$W/events" || break
	sleep 0.1
done
n=$(wc -l <"$W/events")
cmd_ok rctl restore "$W/conf"
cmd_ok rctl backend drain "$SVC4" "$(be4 4)"
for t in $(seq 1 100); do
	! grep -q "state draining" "$W/events" || break
	sleep 0.1
done
rcmon_stop
# A drained b4 (it has no connection) is the drain's consequence, not a change.
tail -n +"$((n + 1))" "$W/events" | grep -v '^drained ' >"$W/between"
[ "$(wc -l <"$W/between")" = 1 ] && grep -q "^backend set $SVC4 $(be4 4) .*state draining" "$W/between" ||
	die "restoring the live configuration made changes: $(cat "$W/between")"
pass "restoring the live configuration sends no change"

# New flows go where the kernel's lookup says, over the restored rings.
lookup 20000-20299 >"$W/succ"
traffic 20000-20299 >"$W/new"
expect_same "$W/new" "$W/succ" "new flows vs lookup after restore"
pass "new flows land where lookup says: $(counts "$W/new" | tr '\n' ' ')"
