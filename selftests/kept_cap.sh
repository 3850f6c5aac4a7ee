#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Services deleted with keep-flows keep a record each until their last
# flow ends, polled by one conntrack walk: a namespace may keep at most
# max_kept_per_netns of them (E2BIG beyond, naming the parameter, and
# nothing changes), and the poll counts each one's flows apart, however
# many there are (past 8 it matches entries through a hash of them), and
# not those that have ended.
#
#   kc-cli                 kc-lb                               kc-b1
#  +--------------+      +----------------------------------+     +----------+
#  | 10.1.0.2     +------+ 12 udp services 10.0.0.100:81..92 +-----+ 10.2.1.2 |
#  | one flow to  |      |   -> b1, then flush keep-flows;   |     | :8080    |
#  | each port,   |      | max_kept_per_netns=12             |     | says "b1"|
#  | sport 30000  |      | udp timeout 600 s                 |     |          |
#  +--------------+      +----------------------------------+     +----------+

set -e
P=kc
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack jq
topo_setup 1
PARAM=/sys/module/ringsteer/parameters/max_kept_per_netns
old=$(cat "$PARAM") || die "no module parameter max_kept_per_netns"
trap 'echo "$old" >"$PARAM"; topo_cleanup' EXIT
echo 12 >"$PARAM"
# The kept flows must outlive the test, however slow the machine.
lb sysctl -qw net.netfilter.nf_conntrack_udp_timeout=600 \
	net.netfilter.nf_conntrack_udp_timeout_stream=600

kept() { rctl show -j | jq -r .kept; }

# one_flow PORT: a service on PORT with b1 and one flow to it.
one_flow()
{
	cmd_ok rctl service add "$VIP4:$1" proto udp
	cmd_ok rctl backend add "$VIP4:$1" "$(be4 1)" proto udp
	traffic -u -p "$1" 30000 >"$W/flow"
	[ "$(cat "$W/flow")" = "30000 b1" ] || die "flow to port $1: $(cat "$W/flow")"
}

for p in $(seq 81 92); do
	one_flow "$p"
done
cmd_ok rctl flush keep-flows
[ "$(kept)" = 12 ] || die "flush keep-flows of 12 services: show kept $(kept)"
pass "12 services deleted with keep-flows: 12 kept"

one_flow 93
if rctl service del "$VIP4:93" proto udp keep-flows 2>"$W/err"; then
	die "a 13th keep-flows delete passed with max_kept_per_netns=12"
fi
grep -q max_kept_per_netns "$W/err" || die "the refusal does not name the limit: $(cat "$W/err")"
[ "$(kept)" = 12 ] || die "the refused delete changed kept to $(kept)"
rctl show -j | jq -e '.services[] | select(.port == 93)' >/dev/null ||
	die "the refused delete removed the service"
cmd_ok rctl service del "$VIP4:93" proto udp
pass "a 13th is refused: $(head -n1 "$W/err"); without keep-flows the delete passes"

# Five of them lose their flows; the poll must count the other seven.
for p in $(seq 81 85); do
	lb conntrack -D -p udp --orig-dst "$VIP4" --orig-port-dst "$p" >/dev/null 2>&1 ||
		die "conntrack -D of port $p's entry"
done
end=$((SECONDS + 30))
while [ "$(kept)" -gt 7 ] && [ $SECONDS -lt $end ]; do
	sleep 1
done
[ "$(kept)" = 7 ] || die "5 of 12 kept services lost their flows: show kept $(kept), expected 7"
# One more poll (every 10 s) must keep the seven.
sleep 11
[ "$(kept)" = 7 ] || die "a later poll changed kept from 7 to $(kept)"
for p in $(seq 86 92); do
	traffic -u -p "$p" 30000 >"$W/flow"
	[ "$(cat "$W/flow")" = "30000 b1" ] || die "kept flow to port $p: $(cat "$W/flow")"
done
pass "the poll counts each: 7 kept, their flows still reach b1"

# An expired entry is a flow that has ended, even before conntrack's
# garbage collector (about once a minute here, the other entries living
# long) frees it: the next poll must not count it, as show's count does
# not. (No conntrack -L from here: a dump frees expired entries.)
lb conntrack -U -p udp --orig-dst "$VIP4" --orig-port-dst 92 -t 1 >/dev/null 2>&1 ||
	die "conntrack -U of port 92's entry"
sleep 2
end=$((SECONDS + 20))
while [ "$(kept)" = 7 ] && [ $SECONDS -lt $end ]; do
	sleep 1
done
[ "$(kept)" = 6 ] || die "port 92's entry expired 20 s ago: show kept $(kept), expected 6"
pass "an expired kept flow counts as ended: 6 kept"
