#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod while packets are in the hook and another NAT user shares nf_nat's
# hooks in the namespace. nf_nat then removes the module's lookup function
# without waiting for the packets already in it, so the module must wait
# itself before its per-namespace data and its code go. A use-after-free
# there rarely crashes a production kernel: this scenario is meant for the
# debug kernel (KASAN, selftests/vm/build-debug-kernel.sh), where it shows.
# On any kernel it checks that traffic was really in the hook at each rmmod.
# RS_RMMOD_ROUNDS (default 10) sets the number of rounds; use more there.
#
#   rp-cli                   rp-lb                           rp-b1
#  +---------------+       +------------------------------+     +----------+
#  | 10.1.0.2      +-------+ nft ip+ip6 "nat": prerouting  +-----+ 10.2.1.2 |
#  | fd01::2       |       |   and output chains (NAT peer)|     | :8080    |
#  | udp_send.py:  |       | N x: insmod, 2 services,      |     |          |
#  | random sports |       |   wait for steered flows,     |     |          |
#  | to both VIPs  |       |   rmmod                       |     |          |
#  +---------------+       +------------------------------+     +----------+

set -e
P=rp
. "$(dirname "$0")/lib/topo.sh"
need_tools nft
topo_setup 1
ROUNDS=${RS_RMMOD_ROUNDS:-10}

# A NAT peer that matches nothing, in both families and both hooks.
for fam in ip ip6; do
	lb nft -f - <<-EOF2
	table $fam nat {
		chain prerouting { type nat hook prerouting priority dstnat; }
		chain output { type nat hook output priority -100; }
	}
	EOF2
done
# Unanswered UDP entries would pile up: let them go quickly.
lb sysctl -qw net.netfilter.nf_conntrack_udp_timeout=5

# Until killed: hundreds of rounds (make check-debug) outlast any fixed time.
udp_sender --seconds 0 "$VIP4" "$VPORT" "$VIP6" "$VPORT"

# steered_flows: flows of both services, once both have steered some.
steered_flows()
{
	local i f4 f6
	for i in $(seq 1 100); do
		show "$W/show"
		f4=$(field "$W/show" svc "$SVC4/udp" 9)
		f6=$(field "$W/show" svc "$SVC6/udp" 9)
		if [ "$f4" -gt 0 ] && [ "$f6" -gt 0 ]; then
			echo $((f4 + f6))
			return 0
		fi
		sleep 0.1
	done
	die "no flow steered within 10 s (ipv4 $f4, ipv6 $f6)"
}

total=0
for r in $(seq 1 "$ROUNDS"); do
	module_loaded || insmod "$RINGSTEER_KO" || die "round $r: insmod"
	cmd_ok rctl service add "$SVC4" proto udp vnodes 16
	cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
	cmd_ok rctl service add "$SVC6" proto udp vnodes 16
	cmd_ok rctl backend add "$SVC6" "$(be6 1)" proto udp
	f=$(steered_flows)
	s0=$(sent)
	rmmod ringsteer || die "round $r: rmmod"
	total=$((total + f))
	kill -0 "$SENDER" 2>/dev/null || die "round $r: the sender died"
done
sleep 1.5
s1=$(sent)
[ "$s1" -gt "$s0" ] || die "the sender stopped sending during the rounds ($s0, then $s1)"
kill "$SENDER"
pass "$ROUNDS rounds of insmod, configure, rmmod with a NAT peer; $total flows steered, $s1 datagrams sent"
