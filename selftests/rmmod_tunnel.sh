#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel torn down while packets are in its hook: the namespace's
# last tunnel service deleted (its hooks and flow table go) and rmmod
# (every namespace's, from pre_exit). Unregistering a hook does not wait
# for the packets already in it, so what they read (the flow table, the
# services) must outlive them by a grace period. A use-after-free there
# rarely crashes a production kernel: this scenario is meant for the
# debug kernel (KASAN), where it shows. On any kernel it checks that
# traffic was in the hook, through the flow table, at each teardown.
# RS_RMMOD_ROUNDS (default 10) sets the number of rounds; odd rounds
# delete the services first, even ones rmmod with them in place.
#
#   tr-cli                  tr-lb                          tr-b1
#  +---------------+      +-----------------------------+     +----------+
#  | 10.1.0.2      +------+ N x: insmod, 2 UDP tunnel   +-----+ 10.2.1.2 |
#  | fd01::2       |      |   services, wait for table  |     | (drops   |
#  | udp_send.py:  |      |   hits, [service del], rmmod|     | the ipip |
#  | both VIPs     |      | no VIP of its own           |     | packets) |
#  +---------------+      +-----------------------------+     +----------+

set -e
P=tr
. "$(dirname "$0")/lib/topo.sh"
topo_setup 1
BPORT=$VPORT
ROUNDS=${RS_RMMOD_ROUNDS:-10}
# The hook takes the VIPs' packets in PRE_ROUTING: the LB must not own them.
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo

# Random source ports (new flows: table misses) and repeated ones (hits).
udp_sender --seconds 0 "$VIP4" "$VPORT" "$VIP6" "$VPORT"

# table_packets: packets of both services, once both have read the flow
# table (hits and misses) and sent some.
table_packets()
{
	local i n
	for i in $(seq 1 100); do
		n=$(rctl show -j | jq '[.services[] | select(.proto == "udp") |
			select(.tunnel.packets > 0 and .tunnel.table_misses > 0)] |
			if length == 2 then map(.tunnel.packets) | add else 0 end')
		if [ "$n" -gt 0 ]; then
			echo "$n"
			return 0
		fi
		sleep 0.1
	done
	die "no tunnel packets on both services within 10 s: $(rctl show -j | jq -c '[.services[].tunnel]')"
}

total=0
for r in $(seq 1 "$ROUNDS"); do
	module_loaded || insmod "$RINGSTEER_KO" || die "round $r: insmod"
	cmd_ok rctl service add "$SVC4" proto udp forward tunnel vnodes 16
	cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
	cmd_ok rctl service add "$SVC6" proto udp forward tunnel vnodes 16
	cmd_ok rctl backend add "$SVC6" "$(be6 1)" proto udp
	n=$(table_packets)
	total=$((total + n))
	if [ $((r % 2)) = 1 ]; then
		cmd_ok rctl service del "$SVC4" proto udp
		cmd_ok rctl service del "$SVC6" proto udp
	fi
	rmmod ringsteer || die "round $r: rmmod"
	kill -0 "$SENDER" 2>/dev/null || die "round $r: the sender died"
done
s0=$(sent)
sleep 1.5
s1=$(sent)
[ "$s1" -gt "$s0" ] || die "the sender stopped sending during the rounds ($s0, then $s1)"
kill "$SENDER"
pass "$ROUNDS rounds of insmod, 2 tunnel services under traffic, delete or rmmod; $total packets through the hook"
