#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ringsteer and an nft "dnat to" rule for the same VIP: ringsteer's backend
# gets the flow whichever was set up first. Both are NAT lookup functions
# of nf_nat's hook; at equal priority, the one registered last runs first,
# so without a distinct priority the outcome depended on the order.
#
#   no-cli             no-lb                                 no-b1, no-b2
#  +------------+    +------------------------------------+    +-----------+
#  | 10.1.0.2   +----+ ringsteer 10.0.0.100:80 -> b1      +----+ 10.2.N.2  |
#  |            |    | nft prerouting dstnat:             | x2 | :8080     |
#  |            |    |   10.0.0.100:80,81 -> b2 10.2.2.2   |    | says "bN" |
#  +------------+    +------------------------------------+    +-----------+
#
# Port 81 is the negative twin: no ringsteer service, so nft's rule must
# take it to b2, which shows the rule is in force.

set -e
P=no
. "$(dirname "$0")/lib/topo.sh"
need_tools nft
topo_setup 2

FLOWS=30000-30039

nft_rule()
{
	lb nft -f - <<-EOF2
	table ip order {
		chain pre {
			type nat hook prerouting priority dstnat;
			ip daddr $VIP4 tcp dport { 80, 81 } dnat to 10.2.2.2:$BPORT
		}
	}
	EOF2
}

service()
{
	cmd_ok rctl service add "$SVC4"
	cmd_ok rctl backend add "$SVC4" "$(be4 1)"
}

# check ORDER: every flow to port 80 reached b1, to port 81 b2.
check()
{
	traffic "$FLOWS" >"$W/vip.$1"
	traffic -p 81 "$FLOWS" >"$W/nft.$1"
	ports "$FLOWS" | sed 's/$/ b1/' >"$W/want1"
	ports "$FLOWS" | sed 's/$/ b2/' >"$W/want2"
	expect_same "$W/nft.$1" "$W/want2" "$1: port 81 (nft rule only)"
	expect_same "$W/vip.$1" "$W/want1" "$1: port 80 (ringsteer service and nft rule)"
	pass "$1: the VIP's flows reach ringsteer's b1, port 81's nft's b2"
}

reset()
{
	cmd_ok rctl flush
	lb nft delete table ip order
	lb conntrack -F 2>/dev/null || true
}

nft_rule
service
check "nft rule first, then the service"
reset

service
nft_rule
check "service first, then the nft rule"
