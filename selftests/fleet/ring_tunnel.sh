#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ring changes in a fleet of ringsteer LBs in tunnel mode behind ECMP,
# made on every LB by restoring one file, while 100 TCP connections and
# 10 UDP flows run through all three LBs:
#   - with the flow table (the default): be4 joins and be1 drains, no
#     connection breaks and no flow changes backend; be2 is deleted, and
#     exactly its connections are reset, at their next segment;
#   - a client reconnects from the source port of a closed connection
#     after be4 joined: the LB that carried the old one still has its
#     entry, yet the new SYN follows the ring, so the connection survives
#     when that LB withdraws and ECMP moves it to another LB;
#   - without it (flow_table_entries=0): be4 joins, then be1 drains, and
#     exactly the flows "ringctl plan flows" predicts for each change break
#     (TCP: reset by the backend they reach) or change backend (UDP).
#
#  fl-cli ---- fl-rtr ==ECMP== fl-lb1..3 (ringsteer, forward tunnel)
#                      ------  fl-be1..4 (ringsteer-backend up)

set -e
P=fr
export FLEET_LB=tunnel
# No LB fails here (one withdraws its route by BGP, and returns): BFD need
# not be quick, only never time out when a busy host does not run the
# guest for a while (5 s here), as ECMP would then move flows to LBs whose
# tables never saw them.
FLEET_BFD_MULT=${FLEET_BFD_MULT:-25}
. "$(dirname "$0")/../lib/fleet.sh"
PARAM=/sys/module/ringsteer/parameters/flow_table_entries
# The longest a flow the change leaves alone may go unanswered: the
# traffic goes on through the LB it was on, so only the guest's load.
STALL_MAX=${FLEET_STALL_MAX:-3.5}
NBE=4
NBE_RING=3
fleet_setup
# The flow table is per CPU, and a NIC's RSS keeps every packet of a
# 5-tuple on one CPU. RPS over the LB's CPUs (lb_tunnel_setup) does not
# here: its hash is the one the client's socket put on the skb (veth keeps
# it across namespaces, rtr forwards it), drawn anew for every socket and
# on every retransmission timeout (net.core.txrehash). A connection that
# stalls, or a new one from a reused port, would reach the LB's other CPU,
# miss its table and, after a ring change, be reset. So here every packet
# goes to cpu0.
for n in $(seq 1 "$NLB"); do
	lbn "$n" sh -c "echo 1 >/sys/class/net/eth0/queues/rx-0/rps_cpus" || die "lb$n: rps_cpus"
done

# ring_file BE...: the fleet's configuration, each BE a backend number,
# "M:draining" for a draining one.
ring_file()
{
	echo "key $KEY"
	tunnel_services "$@"
}

# ring_restore BE...: ring_file restored on every LB, which then agree.
ring_restore()
{
	local n
	ring_file "$@" >"$W/ring.conf"
	for n in $(seq 1 "$NLB"); do
		lbn "$n" "$RINGCTL" restore "$W/ring.conf" >/dev/null || die "lb$n: restore $*"
	done
	fingerprints_agree
}

# no_table_hits WHEN: no LB's service has hit a flow table.
no_table_hits()
{
	local n
	for n in $(seq 1 "$NLB"); do
		[ "$(lbn "$n" "$RINGCTL" show -j | jq '.services[0].tunnel.table_hits')" = 0 ] ||
			die "lb$n has flow table hits $1"
	done
}

# flows PROTO: the client's PROTO flows, as plan and simulate read them.
flows()
{
	awk -v p="$1" -v d="$VIP4:$VPORT" '$1 == p { print $2, d, p }' "$FCLIENT.ready"
}

# planned PROTO BE_CMD...: the flows (SRC:SPORT) that lb1's "ringctl plan
# flows" says the backend command moves, sorted.
planned()
{
	local p=$1
	shift
	flows "$p" >"$W/flows.$p"
	lbn 1 "$RINGCTL" plan flows "$W/flows.$p" backend "$@" proto "$p" >"$W/plan.$p" ||
		die "lb1: plan flows backend $* proto $p"
	grep -q "flows given: $(wc -l <"$W/flows.$p")," "$W/plan.$p" ||
		die "plan did not take every $p flow: $(grep 'flows given' "$W/plan.$p")"
	awk '$NF == "moves" { print $1 }' "$W/plan.$p" | sort
}

resets_are() { [ "$(resets)" = "$1" ]; }

# -- With the table: add and drain keep every flow, delete resets exactly
# the deleted backend's connections.
ring_restore 1 2 3
wait_for 120 "BGP established with every LB, ECMP route over all" fleet_converged
client_start table || die "the flows did not start"
ring_restore 1 2 3 4
settle "be4 joined"
ring_restore 1:draining 2 3 4
settle "be1 drained"
# be2's connections: those that have one now (earlier changes broke none).
[ "$(resets)" = 0 ] || die "with the table, $(resets) connections reset when be4 joined and be1 drained"
ring_restore 1:draining 3 4
settle "be2 deleted"
client_stop
on_backend tcp 2 >"$W/on2"
[ -s "$W/on2" ] || die "no connection was on be2: the delete is not tested"
broke tcp >"$W/reset"
cmp -s "$W/on2" "$W/reset" ||
	die "be2 deleted: $(wc -l <"$W/reset") connections reset, $(wc -l <"$W/on2") were on be2: $(comm -3 "$W/on2" "$W/reset" | tr '\n' ' ')"
awk '$1 == "tcp" && $3 == "reset=0" && $5 == "moved=1"' "$FCLIENT.report" | grep -q . &&
	die "with the table, a connection changed backend"
awk '$3 == "reset=0" && $5 == "moved=1" { print $2 }' "$FCLIENT.report" | sort >"$W/moved"
on_backend udp 2 | comm -13 - "$W/moved" | grep -q . && die "with the table, a UDP flow not on be2 changed backend"
[ "$(stalled tcp "$STALL_MAX")" = 0 ] || die "with the table, connections stalled past ${STALL_MAX}s"
# At the next segment: the client sends every $INTERVAL s, so a reset
# comes within a fraction of a second, not at a timeout.
awk '$1 == "tcp" && $3 == "reset=1" { split($4, s, "="); if (s[2] > m) m = s[2] } END { exit m > 3 }' \
	"$FCLIENT.report" || die "be2's connections were reset only after a stall of over 3 s"
pass "with the flow table: be4 joined and be1 drained on every LB (restore), none of $CONNS broke or moved; be2 deleted: exactly its $(wc -l <"$W/on2") connections reset"

# -- A client that reuses its source port: it connects, closes (a reset,
# so that neither end keeps the tuple), the ring changes, it connects again
# from the same port, and then the router moves the new connection to
# another LB. The LB that carried the first connection still has its
# entry, and its backend is still active: the new SYN must follow the
# ring all the same, as every other LB would, or the connection is reset
# when it moves.
ring_restore 1 2 3
# answer FILE: the backend in a "SPORT NAME SEQ" line of rs_client.py ("-").
answer() { awk '{ print $2 }' "$1"; }
# A port whose flow be4's arrival moves on the ring.
seq 40000 40063 | sed "s/.*/$CLI4:& $VIP4:$VPORT tcp/" >"$W/reuse.flows"
lbn 1 "$RINGCTL" plan flows "$W/reuse.flows" backend add "$VIP4:$VPORT" "$(be_addr 4):$VPORT" proto tcp \
	>"$W/reuse.plan" || die "lb1: plan flows for the reused port"
awk '$NF == "moves" && $5 == "->" { sub(/.*:/, "", $1); print $1, $4, $6; exit }' "$W/reuse.plan" >"$W/reuse.port"
read -r sport before after <"$W/reuse.port" || true
[ -n "$sport" ] || die "be4's arrival moves none of 64 ports: $(head -n 3 "$W/reuse.plan")"
before=be${before#10.2.}; before=${before%%.*}
after=be${after#10.2.}; after=${after%%.*}
# Which LB carries the tuple: a counter on each, before ringsteer's hook.
for n in $(seq 1 "$NLB"); do
	lbn "$n" nft add rule ip fleet pre ip saddr "$CLI4" tcp sport "$sport" counter || die "lb$n: nft counter"
done
declare -A TUPLE_PKTS=()
# carried: CARRIED is the LBs whose counter of the tuple grew since the
# last call.
carried()
{
	local n c
	CARRIED=
	for n in $(seq 1 "$NLB"); do
		c=$(lbn "$n" nft list chain ip fleet pre |
			awk -v p="tcp sport $sport counter" 'index($0, p) { for (i = 1; i < NF; i++) if ($i == "packets") print $++i }')
		[ "$c" = "${TUPLE_PKTS[$n]:-0}" ] || CARRIED+="${CARRIED:+ }$n"
		TUPLE_PKTS[$n]=$c
	done
}
traffic -t 10 "$sport" >"$W/reuse1"
[ "$(answer "$W/reuse1")" = "$before" ] ||
	die "first connection from port $sport: answered by $(answer "$W/reuse1"), the ring says $before"
carried
carrier=$CARRIED
[ "$(echo "$carrier" | wc -w)" = 1 ] || die "the first connection went through LBs '$carrier', want one"
ring_restore 1 2 3 4
hold_start -t 10 "$sport" >"$W/reuse2"
second=$(answer "$W/reuse2")
[ "$second" != - ] || die "the second connection from port $sport got no answer"
carried
[ "$CARRIED" = "$carrier" ] || die "the second connection went through LBs '$CARRIED', the first through lb$carrier"
lb_fail withdraw "$carrier"
rest=$(all_lbs | tr ' ' '\n' | grep -vx "rtr-lb$carrier" | paste -sd' ')
wait_for 30 "rtr's route without lb$carrier" routes_are "$rest"
hold_ping >"$W/reuse3"
carried
moved_to=$CARRIED
hold_stop
lb_return withdraw "$carrier"
wait_for 60 "lb$carrier back in rtr's route" fleet_converged
echo "# port $sport: first connection on $before through lb$carrier; be4 joined (the ring: $after);" \
	"second connection from the same port on $second, then moved to lb${moved_to:-?}: answered by $(answer "$W/reuse3")"
case " $moved_to " in
"  " | *" $carrier "*) die "the second connection did not move from lb$carrier to another LB alone (it went through '$moved_to')" ;;
esac
[ "$(answer "$W/reuse3")" = "$second" ] ||
	die "the second connection from port $sport, on $second through lb$carrier, broke when it moved to lb$moved_to (answer: $(answer "$W/reuse3"))"
[ "$second" = "$after" ] || die "the second connection's SYN went to $second, the ring says $after"
pass "a client reusing port $sport after be4 joined: its new SYN followed the ring to $after (not its old $before) on lb$carrier, and the connection survived its move to lb$moved_to"

# -- Without the table: exactly what plan predicts breaks.
for n in $(seq 1 "$NLB"); do
	lbn "$n" "$RINGCTL" flush || die "lb$n: flush"
done
echo 0 >"$PARAM"
ring_restore 1 2 3
no_table_hits "in a new service"
client_start notable || die "the flows did not start without the table"
for p in tcp udp; do
	planned "$p" add "$VIP4:$VPORT" "$(be_addr 4):$VPORT" >"$W/want_add.$p"
done
ring_restore 1 2 3 4
settle "be4 joined, no table"
for p in tcp udp; do
	# Reset connections are gone: plan sees only the live ones' moves.
	planned "$p" drain "$VIP4:$VPORT" "$(be_addr 1):$VPORT" >"$W/want_drain.$p"
done
ring_restore 1:draining 2 3 4
settle "be1 drained, no table"
client_stop
no_table_hits "with flow_table_entries=0"
echo 16384 >"$PARAM"
for p in tcp udp; do
	if [ "$p" = tcp ]; then
		# A connection reset at be4's arrival cannot break again.
		comm -23 "$W/want_drain.tcp" "$W/want_add.tcp" | sort -u - "$W/want_add.tcp" >"$W/want.tcp"
	else
		sort -u "$W/want_add.udp" "$W/want_drain.udp" >"$W/want.udp"
	fi
	[ -s "$W/want.$p" ] || die "no $p flow was predicted to move: nothing is tested"
	broke "$p" >"$W/got.$p"
	cmp -s "$W/want.$p" "$W/got.$p" ||
		die "without the table, $p: plan predicted $(wc -l <"$W/want.$p"), $(wc -l <"$W/got.$p") broke; differing: $(comm -3 "$W/want.$p" "$W/got.$p" | tr -d '\t' | tr '\n' ' ')"
done
pass "without the flow table: be4 joined then be1 drained on every LB, and exactly the flows plan predicted broke: $(wc -l <"$W/want.tcp") of $CONNS connections reset, $(wc -l <"$W/want.udp") of $UDPFLOWS UDP flows changed backend"
