#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Placement slots in a fleet of ringsteer LBs in tunnel mode behind ECMP:
# one file with explicit slot numbers restored on all three LBs, which
# then print one fingerprint. A backend (be2) is marked down and up again
# on every LB while 100 TCP connections and 10 UDP flows run:
#   - with the flow table (the default): no connection breaks and no flow
#     changes backend; every LB's lookups of 1,000 new flows move exactly
#     those that were be2's, to the same backends on all LBs, and after
#     "up" are again what they were;
#   - without it (flow_table_entries=0): the flows that break at "down"
#     (TCP reset by the backend they reach, UDP answered by another) are
#     exactly those on be2, none other.
#
#  fl-cli ---- fl-rtr ==ECMP== fs-lb1..3 (ringsteer, forward tunnel,
#                      ------  fs-be1..4  placement slots capacity 64)

set -e
P=fs
export FLEET_LB=tunnel
# No LB fails here: BFD need only never time out when a busy host does
# not run the guest for a while (as fleet/ring_tunnel.sh).
FLEET_BFD_MULT=${FLEET_BFD_MULT:-25}
. "$(dirname "$0")/../lib/fleet.sh"
PARAM=/sys/module/ringsteer/parameters/flow_table_entries
STALL_MAX=${FLEET_STALL_MAX:-3.5}
NBE=4
NBE_RING=4
DOWN=2
NLOOKUP=1000
# Weight 2 each, slots spread over the space (none the lowest free: the
# numbers are the file's, not picked).
declare -A SLOTS=([1]="3,40" [2]="7,21" [3]="12,50" [4]="30,61")
fleet_setup
# Every packet to cpu0, as in fleet/ring_tunnel.sh: the flow table is per
# CPU, and RPS here follows the client socket's hash, not the 5-tuple.
for n in $(seq 1 "$NLB"); do
	lbn "$n" sh -c "echo 1 >/sys/class/net/eth0/queues/rx-0/rps_cpus" || die "lb$n: rps_cpus"
done

slots_file()
{
	local p m
	echo "key $KEY"
	for p in tcp udp; do
		echo "service $VIP4:$VPORT proto $p forward tunnel encap $FLEET_ENCAP placement slots capacity 64"
		for m in $(seq 1 "$NBE"); do
			echo "	backend $(be_addr "$m"):$VPORT weight 2 slots ${SLOTS[$m]}"
		done
	done
}

# slots_restore: the file on every LB (flushed first: placement is fixed
# once a service exists), which then agree.
slots_restore()
{
	local n
	slots_file >"$W/slots.conf"
	for n in $(seq 1 "$NLB"); do
		lbn "$n" "$RINGCTL" flush || die "lb$n: flush"
		lbn "$n" "$RINGCTL" restore "$W/slots.conf" >/dev/null || die "lb$n: restore"
		lbn "$n" "$RINGCTL" save | grep -q "backend $(be_addr 4)\(:$VPORT\)\? weight 2 state active slots ${SLOTS[4]}$" ||
			die "lb$n does not hold the file's slots: $(lbn "$n" "$RINGCTL" save)"
	done
	fingerprints_agree
}

# health STATE: be$DOWN marked STATE on every LB, both protocols.
health()
{
	local n p
	for n in $(seq 1 "$NLB"); do
		for p in tcp udp; do
			lbn "$n" "$RINGCTL" backend set "$VIP4:$VPORT" "$(be_addr "$DOWN"):$VPORT" proto $p \
				health "$1" || die "lb$n: be$DOWN $p health $1"
		done
	done
	fingerprints_agree
}

# lookups NAME: every LB's backend for NLOOKUP new TCP flows, which must
# agree; into $W/NAME.
lookups()
{
	local n
	for n in $(seq 1 "$NLB"); do
		seq 1 "$NLOOKUP" | awk '{ printf "10.1.%d.%d:%d\n", 2 + $1 % 50, 1 + $1 % 200, 20000 + $1 }' |
			lbn "$n" "$RINGCTL" lookup "$VIP4:$VPORT" batch - proto tcp >"$W/$1.lb$n" ||
			die "lb$n: lookup batch"
		[ "$(wc -l <"$W/$1.lb$n")" = "$NLOOKUP" ] || die "lb$n: $(wc -l <"$W/$1.lb$n") lookups"
		cmp -s "$W/$1.lb1" "$W/$1.lb$n" || die "$1: lb$n's lookups differ from lb1's"
	done
	cp "$W/$1.lb1" "$W/$1"
}

# -- With the table.
slots_restore
lbn 1 "$RINGCTL" show | grep -q 'placement slots capacity 64' || die "lb1 does not show placement slots"
wait_for 120 "BGP established with every LB, ECMP route over all" fleet_converged
lookups before
down_be="$(be_addr "$DOWN"):$VPORT"
grep -q " $down_be\$" "$W/before" || die "no lookup reached be$DOWN: nothing is tested"
client_start table || die "the flows did not start"
health down
settle "be$DOWN down"
lookups down
health up
settle "be$DOWN up"
lookups up
client_stop
[ "$(resets)" = 0 ] || die "with the table, $(resets) connections reset when be$DOWN went down and up"
awk '$5 == "moved=1"' "$FCLIENT.report" | grep -q . &&
	die "with the table, a flow changed backend: $(awk '$5 == "moved=1" { print $1, $2 }' "$FCLIENT.report" | head -n 5 | tr '\n' ' ')"
[ "$(stalled tcp "$STALL_MAX")" = 0 ] || die "with the table, connections stalled past ${STALL_MAX}s"
on_backend tcp "$DOWN" >"$W/on_down.table"
[ -s "$W/on_down.table" ] || die "no connection was on be$DOWN: the down is not tested"
# New flows: those that move are be2's, and all of be2's move.
paste -d' ' "$W/before" "$W/down" | awk '$2 != $4' >"$W/moved"
awk -v d="$down_be" '$2 != d' "$W/moved" | grep -q . &&
	die "be$DOWN down moved new flows that were not its own: $(awk -v d="$down_be" '$2 != d' "$W/moved" | head -n 3 | tr '\n' ' ')"
[ "$(wc -l <"$W/moved")" = "$(grep -c " $down_be\$" "$W/before")" ] ||
	die "be$DOWN down: $(wc -l <"$W/moved") new flows moved, $(grep -c " $down_be\$" "$W/before") were its own"
cmp -s "$W/before" "$W/up" || die "be$DOWN up: the new flows' backends are not what they were before"
pass "with the flow table: be$DOWN down and up on every LB, none of $CONNS connections or $UDPFLOWS UDP flows broke or moved ($(wc -l <"$W/on_down.table") connections on be$DOWN); of $NLOOKUP new flows exactly be$DOWN's $(wc -l <"$W/moved") moved, alike on all LBs, and came back"

# -- Without the table: exactly be2's flows break.
for n in $(seq 1 "$NLB"); do
	lbn "$n" "$RINGCTL" flush || die "lb$n: flush"
done
echo 0 >"$PARAM"
slots_restore
client_start notable || die "the flows did not start without the table"
health down
settle "be$DOWN down, no table"
health up
settle "be$DOWN up, no table"
client_stop
echo 16384 >"$PARAM"
for p in tcp udp; do
	on_backend "$p" "$DOWN" >"$W/want.$p"
	# Of 10 UDP flows none is be2's one run in 18 (0.75^10): then none may break.
	[ -s "$W/want.$p" ] || [ "$p" = udp ] || die "no $p flow was on be$DOWN: nothing is tested"
	broke "$p" >"$W/got.$p"
	cmp -s "$W/want.$p" "$W/got.$p" ||
		die "without the table, $p: $(wc -l <"$W/want.$p") on be$DOWN, $(wc -l <"$W/got.$p") broke; differing: $(comm -3 "$W/want.$p" "$W/got.$p" | tr -d '\t' | tr '\n' ' ')"
done
pass "without the flow table: be$DOWN down and up on every LB, exactly its flows broke: $(wc -l <"$W/got.tcp") of $CONNS connections reset, $(wc -l <"$W/got.udp") of $UDPFLOWS UDP flows changed backend; 0 others"
