#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Change notifications: "ringctl monitor" sees every successful change of
# its own namespace, in order, as the command that makes it; rejected
# requests and other namespaces' changes announce nothing. A placement
# slots service's lines carry its placement and capacity and a backend's
# slots (those ringctl picked too), and replayed they make the same
# service.
#
#   mon-a                          mon-b
#  +----------------------------+  +--------------------------+
#  | ringctl monitor  <- events |  | ringctl monitor          |
#  | ringctl service/backend... |  | sees only its own change |
#  +----------------------------+  +--------------------------+

set -e
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/observe.sh"

W=$(mktemp -d /tmp/rs-mon.XXXXXX)
SERVERS=()
cleanup()
{
	local pid
	for pid in "${SERVERS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	ip netns del mon-a 2>/dev/null || true
	ip netns del mon-b 2>/dev/null || true
	ip netns del mon-c 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT

a() { ip netns exec mon-a "$RINGCTL" "$@"; }
b() { ip netns exec mon-b "$RINGCTL" "$@"; }

# wait_lines FILE N: until FILE has N lines, at most 30 s.
wait_lines()
{
	local i
	for i in $(seq 1 300); do
		[ "$(wc -l <"$1")" -lt "$2" ] || return 0
		sleep 0.1
	done
	die "$1: $(wc -l <"$1") lines after 30 s, want $2: $(cat "$1")"
}

# start_monitor NS FILE [ARGS]: a monitor in NS, subscribed, FILE emptied
# of the key changes that showed it.
start_monitor() { rcmon_start "$@"; rcmon_clear "$2"; }

load_module
ip netns add mon-a
ip netns add mon-b
start_monitor mon-a "$W/a"
start_monitor mon-b "$W/b"

cmd_ok a service add 10.0.0.1:80
cmd_fail a service add 10.0.0.1:80
cmd_ok a backend add 10.0.0.1:80 10.1.0.1:8080 weight 2
cmd_fail a backend add 10.0.0.1:80 [2001:db8::2]:8080
cmd_fail a backend add 10.0.0.1:80 10.1.0.1:8080
cmd_ok a backend drain 10.0.0.1:80 10.1.0.1:8080
cmd_ok a backend del 10.0.0.1:80 10.1.0.1:8080
cmd_fail a backend del 10.0.0.1:80 10.1.0.1:8080
cmd_ok a service set 10.0.0.1:80 vnodes 64 hash source
cmd_ok a service add [2001:db8::1]:443 proto udp
cmd_ok a service add 10.0.0.2:80 proto udp forward tunnel encap gue port 6080
cmd_ok a service add [2001:db8::2]:80 forward tunnel
cmd_ok a service add 10.0.0.3:80 placement slots capacity 64
cmd_ok a backend add 10.0.0.3:80 10.1.0.3:8080 weight 2
cmd_ok a backend add 10.0.0.3:80 10.1.0.4:8080 slots 17
cmd_fail a backend add 10.0.0.3:80 10.1.0.5:8080 slots 17
cmd_ok a backend set 10.0.0.3:80 10.1.0.3:8080 weight 3
cmd_fail a service set 10.0.0.3:80 placement slots capacity 16
cmd_ok a service set 10.0.0.3:80 placement slots capacity 128
cmd_ok a backend add 10.0.0.3:80 10.1.0.5:8080 slots 100,5
cmd_ok a backend del 10.0.0.3:80 10.1.0.4:8080
cmd_ok a service del 10.0.0.1:80
cmd_ok a flush

cat >"$W/want" <<'EOF'
service add 10.0.0.1:80 proto tcp vnodes 256 hash flow on-down keep
backend add 10.0.0.1:80 10.1.0.1:8080 proto tcp weight 2 state active
backend set 10.0.0.1:80 10.1.0.1:8080 proto tcp weight 2 state draining health up on-down service
backend del 10.0.0.1:80 10.1.0.1:8080 proto tcp
service set 10.0.0.1:80 proto tcp vnodes 64 hash source on-down keep
service add [2001:db8::1]:443 proto udp vnodes 256 hash flow on-down keep
service add 10.0.0.2:80 proto udp vnodes 256 hash flow on-down keep forward tunnel encap gue port 6080
service add [2001:db8::2]:80 proto tcp vnodes 256 hash flow on-down keep forward tunnel encap ipip
service add 10.0.0.3:80 proto tcp hash flow on-down keep placement slots capacity 64
backend add 10.0.0.3:80 10.1.0.3:8080 proto tcp weight 2 state active slots 0,1
backend add 10.0.0.3:80 10.1.0.4:8080 proto tcp weight 1 state active slots 17
backend set 10.0.0.3:80 10.1.0.3:8080 proto tcp weight 3 state active health up on-down service slots 0,1,2
service set 10.0.0.3:80 proto tcp hash flow on-down keep placement slots capacity 128
backend add 10.0.0.3:80 10.1.0.5:8080 proto tcp weight 2 state active slots 5,100
backend del 10.0.0.3:80 10.1.0.4:8080 proto tcp
service del 10.0.0.1:80 proto tcp vnodes 64 hash source on-down keep
flush
EOF
# "drained" lines (monitor_drained.sh) follow "state draining" only if the
# monitor saw the backend before its delete: not part of this comparison.
for i in $(seq 1 300); do
	grep -v '^drained ' "$W/a" >"$W/a.changes" || true
	[ "$(wc -l <"$W/a.changes")" -lt "$(wc -l <"$W/want")" ] || break
	sleep 0.1
done
sleep 0.5
grep -v '^drained ' "$W/a" >"$W/a.changes" || true
if ! diff -u "$W/want" "$W/a.changes"; then
	die "monitor events differ from the changes made (- want, + got)"
fi
pass "every change announced once, in order; rejections announce nothing"

# The slots service's lines, replayed elsewhere, make the same service:
# the slots ringctl picked for "weight 2" and "weight 3" are in them.
ip netns add mon-c
grep ' 10\.0\.0\.3:80 ' "$W/want" | while read -r line; do
	# shellcheck disable=SC2086 # a line is the command's words
	ip netns exec mon-c "$RINGCTL" $line >/dev/null || die "replaying: $line"
done
ip netns exec mon-c "$RINGCTL" save >"$W/c.save" || die "save in mon-c"
ip netns del mon-c
grep -q '^service 10.0.0.3:80 .*placement slots capacity 128' "$W/c.save" &&
	grep -q 'backend 10.1.0.3:8080 weight 3 state active slots 0,1,2$' "$W/c.save" &&
	grep -q 'backend 10.1.0.5:8080 weight 2 state active slots 5,100$' "$W/c.save" &&
	! grep -q '10.1.0.4' "$W/c.save" ||
	die "monitor's slots lines replayed make another service: $(cat "$W/c.save")"
pass "a slots service's lines replay to the same slots"

# Namespaces are separate: mon-b saw none of the above.
[ ! -s "$W/b" ] || die "mon-b saw mon-a's changes: $(head -n 3 "$W/b")"
cmd_ok b key set random
wait_lines "$W/b" 1
[ "$(cat "$W/b")" = "key set" ] || die "mon-b: want 'key set', got: $(cat "$W/b")"
pass "events stay in their namespace; the key is never announced"

# JSON: one object per line. Subscribed before the change, as above: a
# fixed sleep before it lost the event on a loaded machine.
start_monitor mon-a "$W/j" -j
cmd_ok a service add 10.0.0.9:53 proto udp hash source
cmd_ok a service add 10.0.0.10:53 proto udp forward tunnel encap gue port 6080
cmd_ok a service add 10.0.0.11:53 proto udp placement slots capacity 32
cmd_ok a backend add 10.0.0.11:53 10.1.0.11:53 proto udp weight 2
wait_lines "$W/j" 4
python3 -c '
import json, sys
e = json.loads(open(sys.argv[1]).readline())
assert e["event"] == "service-add", e
s = e["service"]
assert (s["vip"], s["port"], s["proto"], s["hash"]) == ("10.0.0.9", 53, "udp", "source"), s
assert s["forward"] == "nat" and "encap" not in s, s
e = json.loads(open(sys.argv[1]).readlines()[1])
s = e["service"]
assert (s["vip"], s["forward"], s["encap"], s["encap_port"]) == ("10.0.0.10", "tunnel", "gue", 6080), s
e = json.loads(open(sys.argv[1]).readlines()[2])
s = e["service"]
assert (s["vip"], s["placement"], s["capacity"]) == ("10.0.0.11", "slots", 32), s
e = json.loads(open(sys.argv[1]).readlines()[3])
assert e["event"] == "backend-add", e
b = e["backend"]
assert (b["addr"], b["weight"], b["slots"]) == ("10.1.0.11", 2, [0, 1]), b
' "$W/j" || die "monitor -j: unexpected output: $(cat "$W/j")"
pass "monitor -j"

# count N: exits by itself after N events, however long they take to come.
ip netns exec mon-b "$RINGCTL" monitor count 2 >"$W/c" &
cpid=$!
SERVERS+=("$cpid")
for i in $(seq 1 300); do
	kill -0 "$cpid" 2>/dev/null || break
	ip netns exec mon-b "$RINGCTL" key set random
	sleep 0.1
done
! kill -0 "$cpid" 2>/dev/null || die "monitor count 2 still running after 300 events"
wait "$cpid" || die "monitor count 2: exit status $?"
[ "$(wc -l <"$W/c")" = 2 ] || die "monitor count 2 printed: $(cat "$W/c")"
pass "monitor count 2 exits after two events"
