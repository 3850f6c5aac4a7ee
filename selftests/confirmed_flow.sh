#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A flow that conntrack confirmed before the service existed, without NAT
# (conntrack ran in the namespace for an nft "ct state" rule, NAT hooks did
# not), must not reach the VIP itself once the service exists, nor count
# as a new steered flow per packet. Its packets are never replied to, so
# every one arrives as IP_CT_NEW of an entry that is already confirmed.
#
#   cf-cli                 cf-lb                            cf-b1
#  +-------------+       +-------------------------------+     +------------+
#  | 10.1.0.2    +-------+ nft: ct state new accept       +-----+ 10.2.1.2   |
#  | one-way UDP |       | udp_count.py on VIP 10.0.0.100 |     | :8080      |
#  | sport 40000 |       |   :80 (counts, never answers)  |     | says "b1"  |
#  | 20 packets/s|       | then service 10.0.0.100:80 udp |     |            |
#  +-------------+       +-------------------------------+     +------------+

set -e
P=cf
. "$(dirname "$0")/lib/topo.sh"
need_tools nft conntrack
topo_setup 1

lb nft -f - <<-EOF2
table inet filter {
	chain input {
		type filter hook input priority filter;
		ct state new accept
	}
}
EOF2
lb "$PY" "$LIBDIR/udp_count.py" "$VIP4" "$VPORT" "$W/vip" &
SERVERS+=($!)
for i in $(seq 1 50); do [ -s "$W/vip" ] && break; sleep 0.1; done
[ -s "$W/vip" ] || die "udp_count.py did not start"

vip_count() { cat "$W/vip"; }

cli "$PY" "$LIBDIR/udp_send.py" --sport 40000 --rate 20 --seconds 40 "$VIP4" "$VPORT" &
SERVERS+=($!)
for i in $(seq 1 100); do [ "$(vip_count)" -ge 10 ] && break; sleep 0.1; done
[ "$(vip_count)" -ge 10 ] || die "the one-way flow did not reach the VIP before the service existed"
lb conntrack -L -p udp 2>/dev/null | grep -q "dst=$VIP4 sport=40000 dport=$VPORT " ||
	die "no conntrack entry for the one-way flow"
pass "before the service: the flow reaches the VIP ($(vip_count) packets), conntrack has its entry"

cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
sleep 0.5
before=$(vip_count)
sleep 3
after=$(vip_count)

# Positive twin: a new flow of a fresh port is steered to b1.
traffic -u 30000-30003 >"$W/new"
[ "$(counts "$W/new")" = "b1 4" ] || die "new flows after the service exists: $(cat "$W/new" | tr '\n' ' ')"

show "$W/show"
flows=$(field "$W/show" svc "$SVC4/udp" 9)
echo "VIP packets: $before at the service's start, $after 3 s later; service flows $flows"
[ "$after" = "$before" ] ||
	die "$((after - before)) packets of the confirmed flow reached the VIP itself after the service existed"
# 4 new flows, and the confirmed flow at most once (if it is re-steered).
[ "$flows" -le 5 ] || die "service counts $flows flows for 4 new flows and one old one: one per packet?"
pass "the confirmed flow no longer reaches the VIP, counted at most once ($flows flows)"
