#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 and UDP: flows land where lookup says and spread as the ring's
# shares say, for IPv6 TCP, IPv4 UDP and IPv6 UDP services; a service only
# steers its own family and protocol.
#
#   s6-cli                 s6-lb                            s6-b1 .. s6-b4
#  +-------------+       +-------------------------------+      +--------------+
#  | 10.1.0.2    |       | [fd00::100]:80 tcp  b1 b2 b3  |      | 10.2.N.2     |
#  | fd01::2     +-------+ 10.0.0.100:80 udp   b1 b2 b4  +------+ fd02:N::2    |
#  |             |       | [fd00::100]:80 udp  b2 b3 b4  |  x4  | :8080 tcp+udp|
#  +-------------+       +-------------------------------+      +--------------+

set -e
P=s6
. "$(dirname "$0")/lib/topo.sh"
topo_setup 4

cmd_ok rctl key set "$KEY"

# --- IPv6 TCP -----------------------------------------------------------
cmd_ok rctl service add "$SVC6" proto tcp
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC6" "$(be6 $i)" proto tcp
done
lookup -6 20000-20999 >"$W/want6"
traffic -6 20000-20999 >"$W/got6"
no_failures "$W/got6" "IPv6 TCP"
expect_same "$W/got6" "$W/want6" "IPv6 TCP connections vs lookup"
show "$W/show6"
expect_spread "$W/show6" "$SVC6/tcp" "$W/got6"
expect_flows "$W/show6" "$SVC6/tcp" "$W/got6"
[ "$(field "$W/show6" svc "$SVC6/tcp" 3)" = inet6 ] || die "IPv6 service not shown as inet6"
pass "IPv6 TCP: 1000 connections where lookup says: $(counts "$W/got6" | tr '\n' ' ')"

lookup -6 -l 25000-25099 >"$W/want6l"
traffic -6 -l 25000-25099 >"$W/got6l"
no_failures "$W/got6l" "IPv6 connections from the LB itself"
expect_same "$W/got6l" "$W/want6l" "IPv6 connections from the LB itself vs lookup"
pass "IPv6 LOCAL_OUT: 100 connections from the LB where lookup says"

# The IPv6 service does not steer IPv4 or UDP to the same port.
traffic -t 2 20000-20004 >"$W/v4none"
[ "$(awk '$2 != "-"' "$W/v4none" | wc -l)" = 0 ] || die "IPv4 TCP steered by an IPv6 service"
traffic -6 -u -t 2 20000-20004 >"$W/v6udpnone"
[ "$(awk '$2 != "-"' "$W/v6udpnone" | wc -l)" = 0 ] || die "IPv6 UDP steered by a TCP service"
pass "IPv6 TCP service steers only IPv6 TCP"

# --- IPv4 UDP -----------------------------------------------------------
cmd_ok rctl service add "$SVC4" proto udp
for i in 1 2 4; do
	cmd_ok rctl backend add "$SVC4" "$(be4 $i)" proto udp
done
lookup -u 20000-20999 >"$W/wantu"
grep -q ' b3$' "$W/wantu" && die "lookup maps to b3, not a backend of the UDP service"
traffic -u 20000-20999 >"$W/gotu"
no_failures "$W/gotu" "IPv4 UDP"
expect_same "$W/gotu" "$W/wantu" "IPv4 UDP flows vs lookup"
show "$W/showu"
expect_spread "$W/showu" "$SVC4/udp" "$W/gotu"
expect_flows "$W/showu" "$SVC4/udp" "$W/gotu"
pass "IPv4 UDP: 1000 flows where lookup says: $(counts "$W/gotu" | tr '\n' ' ')"

# There is no IPv4 TCP service to look up.
cmd_fail rctl lookup "$SVC4" "$CLI4:20000" proto tcp
# A UDP service answers only UDP.
traffic -t 2 20000-20004 >"$W/v4tcpnone"
[ "$(awk '$2 != "-"' "$W/v4tcpnone" | wc -l)" = 0 ] || die "IPv4 TCP steered by a UDP service"
pass "IPv4 UDP service steers only UDP"

# --- IPv6 UDP -----------------------------------------------------------
cmd_ok rctl service add "$SVC6" proto udp
for i in 2 3 4; do
	cmd_ok rctl backend add "$SVC6" "$(be6 $i)" proto udp
done
lookup -6 -u 21000-21499 >"$W/want6u"
traffic -6 -u 21000-21499 >"$W/got6u"
no_failures "$W/got6u" "IPv6 UDP"
expect_same "$W/got6u" "$W/want6u" "IPv6 UDP flows vs lookup"
show "$W/show6u"
expect_spread "$W/show6u" "$SVC6/udp" "$W/got6u"
expect_flows "$W/show6u" "$SVC6/udp" "$W/got6u"
# The IPv6 TCP service kept its own counters.
expect_flows "$W/show6u" "$SVC6/tcp" "$W/got6" "$W/got6l"
pass "IPv6 UDP: 500 flows where lookup says: $(counts "$W/got6u" | tr '\n' ' ')"

# The two protocols of one IPv6 VIP:port are separate rings: same tuples,
# different hash inputs, so the mappings of the shared backends differ.
lookup -6 -u 20000-20999 >"$W/want6u_all"
lookup -6 20000-20999 >"$W/want6_again"
expect_same "$W/want6_again" "$W/want6" "IPv6 TCP lookup after adding the UDP service"
expect_differ "$W/want6u_all" "$W/want6" "IPv6 UDP vs TCP mapping"
pass "IPv6 TCP and UDP services are independent"
