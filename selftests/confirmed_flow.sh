#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A one-way UDP flow that conntrack saw before its service existed must not
# reach the VIP itself once the service exists, nor count as a new steered
# flow per packet: once a backend exists, the backend gets it. Its packets
# are never replied to, so every one arrives as IP_CT_NEW of a confirmed
# entry. Two ways it was confirmed, one variant each, each in a fresh
# topology:
#
# - without NAT ("none": conntrack runs for an nft "ct state" rule, no NAT
#   hook exists): the entry has no NAT, later packets still reach the NAT
#   lookup hooks;
# - with a null binding: any NAT lookup hook in the namespace ("peer":
#   another ringsteer service; "ipt", "ipt-rule": an iptables-legacy nat
#   table without and with a rule; "nft", "nft-rule": an nft nat chain
#   without and with a rule; the rules match other addresses) makes nf_nat
#   bind the flow to itself (IPS_DST_NAT_DONE without IPS_DST_NAT), and
#   later packets never reach a lookup hook again.
#
#   cf-cli                 cf-lb                            cf-b1
#  +-------------+       +-------------------------------+     +------------+
#  | 10.1.0.2    +-------+ nft: ct state new accept       +-----+ 10.2.1.2   |
#  | one-way UDP |       | counter: sport 40000 -> VIP    |     | :8080      |
#  | sport 40000 |       | udp_count.py on VIP 10.0.0.100 |     | counter:   |
#  | 20 packets/s|       |   :80 (counts, never answers)  |     |  sport     |
#  |             |       | the variant's NAT user         |     |  40000     |
#  |             |       | then service 10.0.0.100:80 udp |     | says "b1"  |
#  +-------------+       +-------------------------------+     +------------+
#
# The VIP's counter is the kernel's (nft, at input): it is final once the
# packets before it were processed, which udp_count.py's file is not.

set -e
P=cf
. "$(dirname "$0")/lib/topo.sh"
need_tools nft conntrack iptables-legacy
SPORT=40000

# nft_count NS TABLE: the packets TABLE's one counter has seen in NS.
nft_count()
{
	ip netns exec "$1" nft list table "$2" | sed -n 's/.* counter packets \([0-9]*\) .*/\1/p'
}
vip_count() { nft_count "$P-lb" "inet count"; }
b1_count() { nft_count "$P-b1" "ip count"; }

counters()
{
	lb nft -f - <<-EOF2
	table inet count {
		chain input {
			type filter hook input priority filter - 10;
			ip daddr $VIP4 udp sport $SPORT udp dport $VPORT counter
		}
	}
	EOF2
	bk 1 nft -f - <<-EOF2
	table ip count {
		chain input {
			type filter hook input priority filter;
			udp sport $SPORT udp dport $BPORT counter
		}
	}
	EOF2
}

nft_nat()
{
	lb nft -f - <<-EOF2
	table ip nat {
		chain pre {
			type nat hook prerouting priority dstnat;
			$1
		}
	}
	EOF2
}

# nat_user VARIANT: set up the variant's NAT user in the LB.
nat_user()
{
	case $1 in
	none) ;;
	peer) cmd_ok rctl service add "$VIP4:81" proto udp ;;
	ipt) lb iptables-legacy -t nat -L >/dev/null ;;
	ipt-rule) lb iptables-legacy -t nat -A PREROUTING -d 10.9.9.9 -p udp \
			-j DNAT --to-destination "$(be4 1)" ;;
	nft) nft_nat "" ;;
	nft-rule) nft_nat "ip daddr 10.9.9.9 udp dport 80 dnat to $(be4 1)" ;;
	*) die "unknown variant $1" ;;
	esac
}

# variant NAME: the whole scenario with NAME's NAT user, in a fresh topology.
variant()
{
	local v=$1 i n0 before after flows got
	topo_cleanup
	SERVERS=()
	topo_setup 1
	lb nft -f - <<-EOF2
	table inet filter {
		chain input {
			type filter hook input priority filter;
			ct state new accept
		}
	}
	EOF2
	counters
	nat_user "$v"
	lb "$PY" "$LIBDIR/udp_count.py" "$VIP4" "$VPORT" "$W/vip" &
	SERVERS+=($!)
	for i in $(seq 1 50); do [ -s "$W/vip" ] && break; sleep 0.1; done
	[ -s "$W/vip" ] || die "$v: udp_count.py did not start"

	udp_sender --sport "$SPORT" --rate 20 --seconds 60 "$VIP4" "$VPORT"
	for i in $(seq 1 100); do [ "$(vip_count)" -ge 10 ] && break; sleep 0.1; done
	[ "$(vip_count)" -ge 10 ] || die "$v: the one-way flow did not reach the VIP before the service existed"
	lb conntrack -L -p udp 2>/dev/null | grep -q "dst=$VIP4 sport=$SPORT dport=$VPORT " ||
		die "$v: no conntrack entry for the one-way flow"
	pass "$v: before the service, the flow reaches the VIP ($(vip_count) packets), conntrack has its entry"

	cmd_ok rctl service add "$SVC4" proto udp
	before=$(vip_count)
	cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
	# Once the backend has some of the flow, the VIP must have had none.
	for i in $(seq 1 100); do [ "$(b1_count)" -ge 5 ] && break; sleep 0.1; done
	got=$(b1_count)
	after=$(vip_count)
	echo "$v: VIP packets $before when the service was added, $after when b1 had $got"
	[ "$after" = "$before" ] ||
		die "$v: $((after - before)) packets of the flow reached the VIP itself after its service existed"
	[ "$got" -ge 5 ] || die "$v: b1 got $got packets of the flow within 10 s of its backend add"
	lb conntrack -L -p udp 2>/dev/null |
		grep "dst=$VIP4 sport=$SPORT dport=$VPORT " | grep -q "src=10\.2\.1\.2 " ||
		die "$v: the flow's conntrack entry is not DNATed to b1"

	# Positive twin: a new flow of a fresh port is steered to b1.
	traffic -u 30000-30003 >"$W/new"
	[ "$(counts "$W/new")" = "b1 4" ] || die "$v: new flows after the service exists: $(tr '\n' ' ' <"$W/new")"
	show "$W/show"
	flows=$(field "$W/show" svc "$SVC4/udp" 9)
	# 4 new flows, and the old one once (it is re-steered).
	[ "$flows" -le 5 ] || die "$v: service counts $flows flows for 4 new flows and one old one: one per packet?"
	pass "$v: after the service, b1 gets the flow ($got packets), the VIP nothing, $flows flows counted"
}

# RS_CF_VARIANTS picks some (to see one fail on its own).
for v in ${RS_CF_VARIANTS:-none peer ipt ipt-rule nft nft-rule}; do
	variant "$v"
done
