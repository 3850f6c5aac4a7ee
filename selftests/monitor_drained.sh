#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "drained" in ringctl monitor: printed once a draining backend's last
# connection has ended, never while one is held, whichever way conntrack
# tells of the end.
#
#   md-cli                 md-lb                       md-b1 .. md-b3
#  +--------------+      +------------------------+     +------------+
#  | held TCP     +------+ 10.0.0.100:80 tcp      +-----+ :8080      |
#  | connections  |      | ringctl monitor -j     | x3  | says "bN"  |
#  +--------------+      +------------------------+     +------------+
#
# 1. Connections opened while the monitor runs carry conntrack's event
#    extension: deleting them sends destroy events, and "drained" follows
#    at once, well before the monitor's 10 s poll could have seen it.
# 2. A backend drained with no connection is reported right after its
#    "backend set" line.
# 3. Connections without the event extension (opened while events were
#    off, or before any listener existed with nf_conntrack_events=2) send
#    no destroy event: the 10 s poll still reports them.
# 4. With nf_conntrack_events=0 the monitor says so and counts every
#    second.

set -e
P=md
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack
topo_setup 3
MON=

cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4"
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
done

# start_monitor FILE: a monitor -j in the LB, its first event seen.
start_monitor() { rcmon_start "$P-lb" "$1" -j; }

# wait_line FILE PATTERN SECS: seconds (decimal) until FILE has a line
# matching PATTERN, or fail after SECS.
wait_line()
{
	local start=$EPOCHREALTIME now
	while :; do
		grep -q "$2" "$1" && break
		now=$EPOCHREALTIME
		awk -v a="$start" -v b="$now" -v m="$3" 'BEGIN { exit !(b - a > m) }' &&
			die "no line matching '$2' after $3 s: $(cat "$1")"
		sleep 0.05
	done
	awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}

drained() { echo "\"event\": *\"drained\".*\"addr\": *\"10.2.$1.2\""; }
held_on() { awk -v b="b$1" '$2 == b' "$W/open" | wc -l; }
# ct_del N: delete backend N's conntrack entries, as a connection end would.
ct_del() { lb conntrack -D -p tcp -r "10.2.$1.2" >/dev/null 2>&1 || true; }

# 1. Held connections, opened while the monitor listens.
start_monitor "$W/mon1"
hold_start 31000-31029 >"$W/open"
no_failures "$W/open" "opening held connections"
[ "$(held_on 2)" -gt 0 ] || die "no held connection on b2"
cmd_ok rctl backend set "$SVC4" "$(be4 2)" state draining
wait_line "$W/mon1" '"event": *"backend-set"' 30 >/dev/null
sleep 2
grep -q "$(drained 2)" "$W/mon1" && die "drained printed with $(held_on 2) connections held"
ct_del 2
t=$(wait_line "$W/mon1" "$(drained 2)" 30)
awk -v t="$t" 'BEGIN { exit !(t < 7) }' ||
	die "drained came after ${t}s: from the poll, not the connections' end"
pass "drained: not while $(held_on 2) connections are held, ${t}s after their end"

# 2. No connection at all: drained right after the change.
cmd_ok rctl backend add "$SVC4" 10.2.9.2:8080
cmd_ok rctl backend set "$SVC4" 10.2.9.2:8080 state draining
wait_line "$W/mon1" "$(drained 9)" 10 >/dev/null
grep -n '"event"' "$W/mon1" | grep -A1 '"backend-set".*10.2.9.2' | tail -n 1 | grep -q "$(drained 9)" ||
	die "drained is not the line after the set: $(cat "$W/mon1")"
[ "$(grep -c "$(drained 9)" "$W/mon1")" = 1 ] || die "drained printed twice"
pass "drained: a backend without connections right after its change"

# Set active and drained again: reported again (b2 had none left).
cmd_ok rctl backend set "$SVC4" "$(be4 2)" state active
cmd_ok rctl backend set "$SVC4" "$(be4 2)" state draining
wait_line "$W/mon1" "$(drained 2).*" 10 >/dev/null
[ "$(grep -c "$(drained 2)" "$W/mon1")" = 2 ] || die "second drain of b2 not reported: $(cat "$W/mon1")"
pass "drained: reported again after active, then draining"
hold_stop
rcmon_stop
lb conntrack -F >/dev/null 2>&1 || true
cmd_ok rctl backend set "$SVC4" "$(be4 2)" state active

if [ ! -e /proc/sys/net/netfilter/nf_conntrack_events ]; then
	# Parts 1 and 2 ran on the one-second count: the kernel has no events.
	grep -q "this kernel has no conntrack events" "$W/mon1.err" ||
		die "monitor did not say the kernel has no conntrack events: $(cat "$W/mon1.err")"
	pass "no CONFIG_NF_CONNTRACK_EVENTS: said so, counted every second (parts 3 and 4 need events)"
	exit 0
fi

# 3. Connections without the event extension: no destroy event, the poll.
lb sysctl -qw net.netfilter.nf_conntrack_events=0
hold_start 32000-32029 >"$W/open"
no_failures "$W/open" "opening held connections"
[ "$(held_on 1)" -gt 0 ] || die "no held connection on b1"
lb sysctl -qw net.netfilter.nf_conntrack_events=2
start_monitor "$W/mon3"
cmd_ok rctl backend set "$SVC4" "$(be4 1)" state draining
wait_line "$W/mon3" '"event": *"backend-set"' 30 >/dev/null
ct_del 1
t=$(wait_line "$W/mon3" "$(drained 1)" 40)
pass "drained: connections without destroy events, seen by the poll after ${t}s"
rcmon_stop

# 4. Events switched off: said once, counted every second.
lb sysctl -qw net.netfilter.nf_conntrack_events=0
[ "$(held_on 3)" -gt 0 ] || die "no held connection on b3"
start_monitor "$W/mon4"
grep -q "nf_conntrack_events is 0" "$W/mon4.err" || die "monitor did not say events are off: $(cat "$W/mon4.err")"
cmd_ok rctl backend set "$SVC4" "$(be4 3)" state draining
sleep 1.5
grep -q "$(drained 3)" "$W/mon4" && die "drained printed with connections held (events off)"
ct_del 3
wait_line "$W/mon4" "$(drained 3)" 20 >/dev/null
pass "drained: with nf_conntrack_events=0, by counting"
rcmon_stop
hold_stop

# 5. Connections closed by the client, FINs both ways: conntrack keeps
#    them in TIME_WAIT for two minutes, but they carry no more data. So
#    drained and drain wait come as soon as they close (they came two
#    minutes later, with the entries' destroy events), and show counts
#    them apart (conns_closed).
lb sysctl -qw net.netfilter.nf_conntrack_events=2
lb conntrack -F >/dev/null 2>&1 || true
for i in 1 2 3; do
	cmd_ok rctl backend set "$SVC4" "$(be4 "$i")" state active
done
start_monitor "$W/mon5"
hold_start 34000-34029 >"$W/open"
no_failures "$W/open" "opening held connections"
n=$(held_on 1)
[ "$n" -gt 0 ] || die "no held connection on b1"
cmd_ok rctl backend set "$SVC4" "$(be4 1)" state draining
wait_line "$W/mon5" '"event": *"backend-set"' 30 >/dev/null
sleep 1
grep -q "$(drained 1)" "$W/mon5" && die "drained printed with $n connections held"
hold_close
wait_line "$W/mon5" "$(drained 1)" 30 >/dev/null
closed=$(lb conntrack -L -p tcp -r 10.2.1.2 --state TIME_WAIT 2>/dev/null | grep -c . || true)
[ "$closed" -gt 0 ] || die "no TIME_WAIT entry left for b1: nothing shown"
cmd_ok rctl backend drain "$SVC4" "$(be4 1)" wait 10
lb "$RINGCTL" -j show >"$W/show5.json"
python3 - "$W/show5.json" <<'PY' || die "show -j does not count the closed connections apart: $(cat "$W/show5.json")"
import json, sys
svc = json.load(open(sys.argv[1]))["services"][0]
b = [b for b in svc["backends"] if b["addr"] == "10.2.1.2"][0]
assert b["conns_established"] == 0 and b["conns_other"] == 0, b
assert b["conns_closed"] >= 1, b
PY
pass "drained: $n connections closed by the client, $closed TIME_WAIT entries left and not waited for"
rcmon_stop
