#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deleting the last service with keep-flows keeps the NAT hooks, and with
# them conntrack, in the namespace while the kept flows need them; once
# those conntrack entries are gone, the hooks must go too, as they do when
# the last service goes without keep-flows. Seen two ways: whether traffic
# that has nothing to do with ringsteer gets conntrack entries in the
# load balancer (nothing else there asks for conntrack), and the "hooks"
# field of `ringctl show -j`.
#
#   kh-cli                 kh-lb                          kh-b1
#  +-------------+       +-----------------------------+     +------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 udp -> b1     +-----+ 10.2.1.2   |
#  | udp flows   |       | service del keep-flows,     |     | :8080      |
#  | to the VIP  |       | then conntrack -F           |     | says "b1"  |
#  | and to b1   |       | no nft/iptables rules       |     |            |
#  +-------------+       +-----------------------------+     +------------+

set -e
P=kh
. "$(dirname "$0")/lib/topo.sh"
need_tools jq conntrack
topo_setup 1
bad=0
port=31000

# tracked: does a new flow straight to b1 (not the VIP) get a conntrack
# entry in the load balancer? Sets TRACKED to yes or no. Not for $(...):
# each call needs a source port of its own.
tracked()
{
	port=$((port + 1))
	cli "$PY" "$LIBDIR/rs_client.py" --udp "$CLI4" 10.2.1.2 "$BPORT" $port >"$W/direct"
	[ "$(cat "$W/direct")" = "$port b1" ] || die "direct flow to b1: $(cat "$W/direct")"
	TRACKED=no
	if lb conntrack -L -p udp 2>/dev/null | grep -q "src=$CLI4 dst=10\.2\.1\.2 sport=$port "; then
		TRACKED=yes
	fi
}

# hooks WANT WHAT: the "hooks" field of show -j is WANT within 10 s; a
# missing field is a failure noted in bad, the script goes on.
hooks()
{
	local end=$((SECONDS + 10)) h
	while :; do
		h=$(rctl show -j | jq -r 'if has("hooks") then .hooks | tostring else "absent" end')
		[ "$h" != "$1" ] || return 0
		[ "$h" != absent ] && [ $SECONDS -lt $end ] || break
		sleep 0.5
	done
	echo "FAIL: $2: show -j \"hooks\" is $h, expected $1" >&2
	bad=1
}

# conntrack_off WHAT: within 10 s, new flows get no conntrack entry.
conntrack_off()
{
	local end=$((SECONDS + 10))
	while :; do
		tracked
		[ $TRACKED = yes ] || return 0
		[ $SECONDS -lt $end ] || break
		sleep 0.5
	done
	die "$1: unrelated flows are still tracked: ringsteer keeps conntrack on"
}

tracked
[ $TRACKED = no ] || die "conntrack is on before any service: the test needs a namespace without it"
hooks false "no service yet"

# Without keep-flows: hooks come with the first service, go with the last.
cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
tracked
[ $TRACKED = yes ] || die "a service exists, yet flows are not tracked"
hooks true "a service exists"
traffic -u 30000-30009 >"$W/a"
no_failures "$W/a" "udp flows to b1"
cmd_ok rctl service del "$SVC4" proto udp
conntrack_off "last service deleted without keep-flows"
hooks false "last service deleted without keep-flows"
pass "without keep-flows: conntrack on with the service, off after it"

# With keep-flows: hooks stay while the kept flows' entries exist...
cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
traffic -u 30000-30009 >"$W/b"
no_failures "$W/b" "udp flows to b1"
cmd_ok rctl service del "$SVC4" proto udp keep-flows
n=$(lb conntrack -L -p udp --orig-dst "$VIP4" 2>/dev/null | grep -c "dst=$VIP4 sport=[0-9]* dport=$VPORT " || true)
[ "$n" -ge 10 ] || die "keep-flows kept $n conntrack entries of the VIP, expected 10"
traffic -u 30000-30009 >"$W/c"
expect_same "$W/c" "$W/b" "kept flows after the service's delete"
hooks true "kept flows still in conntrack"
pass "keep-flows: $n entries kept, their flows go on"

# ...and go once the entries are gone.
lb conntrack -F 2>/dev/null
n=$(lb conntrack -L -p udp --orig-dst "$VIP4" 2>/dev/null | grep -c "dst=$VIP4 sport=[0-9]* dport=$VPORT " || true)
[ "$n" = 0 ] || die "conntrack -F left $n entries of the VIP"
hooks false "kept entries flushed, no service left"
conntrack_off "kept entries flushed, no service left"
pass "kept entries gone: conntrack off again"
[ $bad = 0 ] || die "show -j \"hooks\" checks failed (see FAIL lines above)"
