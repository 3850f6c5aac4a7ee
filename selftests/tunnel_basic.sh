#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel: every packet of a flow is encapsulated (ipip, ip6ip6,
# GUE) to the backend `ringctl lookup` names, which replies to the client
# directly; the load balancer keeps no conntrack state and registers no
# conntrack in its namespace; path MTU, offloads on and off, ICMP errors
# for a VIP flow, counters, and bad configuration.
#
#   tn-cli                tn-lb                            tn-b1 .. tn-b3
#  +------------+       +-------------------------------+      +----------------------+
#  | 10.1.0.2   |       | 10.0.0.100:80 tcp  ipip       |      | 10.2.N.2  fd02:N::2  |
#  | fd01::2    +-------+ 10.0.0.100:80 udp  gue        +------+ ringsteer-backend up |
#  | default    | veth  | [fd00::100]:80 tcp ip6ip6     | veth | ipip + gue 6080:     |
#  | via the LB |       | [fd00::100]:80 udp gue        |  x3  | tunl0 ip6tnl0 fou,   |
#  +------------+       | :81 tcp ipip (echo streams)   |      | VIPs on lo           |
#                       | no VIP of its own; replies    |      | :80 says "bN",       |
#                       | from the backends are routed  |      | :81 echoes           |
#                       +-------------------------------+      +----------------------+
#
# The LB does not own the VIPs: its hook takes their packets in
# PRE_ROUTING, and the backends' replies (from the VIP) pass through it as
# plain routed packets, which a local VIP would make martians.

set -e
P=tn
. "$(dirname "$0")/lib/topo.sh"
need_tools ethtool
BPORT=$VPORT
SPORT=81
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
topo_setup 3
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo

# Backends of a tunnel service have the VIP's port: "10.2.N.2:80 bN".
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:[0-9]+$/ b\1/; s/ \[fd02:([0-9]+)::2\]:[0-9]+$/ b\1/'
}

for i in 1 2 3; do
	bk "$i" "$PY" "$LIBDIR/rs_stream.py" server "$SPORT" "$W/s$i.ready" &
	SERVERS+=($!)
done
ready_files '^s.\.ready$' 3 300 || die "echo servers did not start"

# The backends, prepared by the script the project ships.
for i in 1 2 3; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIP4" "$VIP6" >"$W/up$i.log" ||
		die "ringsteer-backend up ipip on b$i"
	bk "$i" bash "$BACKEND" up --state "$W/st$i" gue port 6080 "$VIP4" "$VIP6" >>"$W/up$i.log" ||
		die "ringsteer-backend up gue on b$i"
done
bk 1 ip -o addr show dev lo | grep -q " $VIP4/32 " || die "b1: no VIP on lo"
bk 1 ip fou show | grep -q '^port 6080 gue$' || die "b1: no fou port 6080"
[ "$(bk 1 sysctl -n net.ipv4.conf.all.arp_ignore)" = 1 ] || die "b1: arp_ignore not 1"
# Its second "up" left the VIPs local: a kernel with one IPv6 routing
# table (the debug kernel's) lost the IPv6 one to "ip addr replace".
for v in "$VIP4" "$VIP6"; do
	bk 1 ip route get "$v" | grep -q '^local ' || die "b1: $v is not local after two ups: $(bk 1 ip route get "$v" 2>&1)"
done
grep -q 'tunnel MTU 1480, advertise MSS 1440' "$W/up1.log" || die "no MSS advice: $(cat "$W/up1.log")"
grep -q 'tunnel MTU 1468, advertise MSS 1428' "$W/up1.log" || die "no GUE MSS advice: $(cat "$W/up1.log")"
pass "backends prepared by ringsteer-backend (tunl0, ip6tnl0, fou, VIPs on lo)"

cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4" forward tunnel
cmd_ok rctl service add "$SVC4" proto udp forward tunnel encap gue
cmd_ok rctl service add "$SVC6" forward tunnel encap ipip
cmd_ok rctl service add "$SVC6" proto udp forward tunnel encap gue port 6080
cmd_ok rctl service add "$VIP4:$SPORT" forward tunnel
for i in 1 2 3; do
	for p in tcp udp; do
		cmd_ok rctl backend add "$SVC4" "10.2.$i.2:80" proto $p
		cmd_ok rctl backend add "$SVC6" "[fd02:$i::2]:80" proto $p
	done
done
cmd_ok rctl backend add "$VIP4:$SPORT" "10.2.1.2:$SPORT"
cmd_ok rctl backend add "$VIP4:$SPORT" "10.2.2.2:$SPORT"

# ---- bad configuration: a clear message, nothing changed
# The tunnel's counters and the flows move with traffic, not with commands.
CONF='[.services[] | del(.tunnel, .flows, .no_backend)]'
snap "$CONF" >"$W/snap0"
# rejects MSG ARGS...: ringctl ARGS fails with MSG in its error, state kept.
rejects()
{
	local msg=$1
	shift
	if rctl "$@" 2>"$W/err"; then die "accepted: ringctl $*"; fi
	grep -qF "$msg" "$W/err" || die "ringctl $*: want '$msg', got: $(cat "$W/err")"
	snap "$CONF" >"$W/snap1"
	cmp -s "$W/snap0" "$W/snap1" || die "ringctl $* was refused but changed state"
	echo "ok: refused: ringctl $* -> $(cat "$W/err")"
}
rejects "forward tunnel cannot translate ports: a backend's port must be the VIP's" \
	backend add "$SVC4" 10.2.1.2:8080
rejects "forward mode is fixed once the service exists: delete and add it" \
	service set "$SVC4" forward nat vnodes 8
rejects "encap applies to forward tunnel only" service add "$VIP4:82" encap gue
rejects "encap applies to forward tunnel only" service add "$VIP4:82" forward nat encap ipip
rejects "'port' applies to encap gue only" service set "$SVC4" encap ipip port 7
rejects "forward 'dsr' is not valid (nat or tunnel)" service add "$VIP4:82" forward dsr
rejects "out of range (1..65535)" service set "$SVC4" encap gue port 0
pass "bad forward/encap configuration refused with a clear message, nothing changed"

# ---- connections are not counted: no conntrack entries to count
rejects "forward tunnel keeps no conntrack entries, so its connections are not counted" \
	backend drain "$SVC4" 10.2.1.2:80 wait 5
rctl show -j | jq -e '[.services[].backends[] | has("conns_established")] | any | not' >/dev/null ||
	die "show counts connections of tunnel backends: $(rctl show -j)"
rctl plan backend drain "$SVC4" 10.2.1.2:80 >"$W/plan" || die "plan: $(cat "$W/plan")"
grep -q "connections: not counted (forward tunnel keeps no conntrack entries); flows in the moving part stay" "$W/plan" ||
	die "plan on a tunnel service: $(cat "$W/plan")"
rctl plan -j backend del "$SVC4" 10.2.1.2:80 |
	jq -e '.services[0] | .connections_counted == false and
	       (.connections_effect | startswith("flows of the deleted backend move at once")) and
	       ([.backends[] | has("connections")] | any | not)' >/dev/null ||
	die "plan -j on a tunnel service: $(rctl plan -j backend del "$SVC4" 10.2.1.2:80)"
pass "tunnel backends: drain wait refused, show and plan say connections are not counted"
# monitor counts a draining backend's connections at once: for a tunnel
# backend the kernel refuses to count, so no "drained" line, and monitor
# goes on.
MON_KEY=$KEY rcmon_start "$P-lb" "$W/mon"
rcmon_clear "$W/mon"
cmd_ok rctl backend drain "$SVC4" 10.2.1.2:80
cmd_ok rctl backend activate "$SVC4" 10.2.1.2:80
for t in $(seq 1 100); do
	[ "$(wc -l <"$W/mon")" -lt 2 ] || break
	sleep 0.1
done
sleep 1
kill -0 "$MON" 2>/dev/null || die "monitor ended: $(cat "$W/mon" "$W/mon.err")"
rcmon_stop
grep -q "state draining" "$W/mon" && grep -q "state active" "$W/mon" ||
	die "monitor missed the drain: $(cat "$W/mon")"
! grep -q '^drained ' "$W/mon" || die "monitor says a tunnel backend drained: $(cat "$W/mon")"
pass "monitor: a tunnel backend's drain is announced, no 'drained' count"

# ---- conntrack is not enabled in the LB's namespace
show "$W/show0"
rctl show -j >"$W/show0.json"
[ "$(jq .hooks "$W/show0.json")" = false ] || die "NAT hooks registered for tunnel services only"
[ "$(jq .tunnel_hooks "$W/show0.json")" = true ] || die "tunnel hooks not registered"
pass "tunnel services only: tunnel hooks on, NAT hooks (conntrack, nf_nat) off"

# ---- every flow reaches the backend lookup names, with replies direct
lookup 20000-20199 >"$W/want_t4"
traffic 20000-20199 >"$W/got_t4"
no_failures "$W/got_t4" "TCP over ipip"
expect_same "$W/got_t4" "$W/want_t4" "TCP over ipip vs ringctl lookup"
[ "$(cut -d' ' -f2 "$W/want_t4" | sort -u | wc -l)" = 3 ] || die "lookup used fewer than 3 backends"
pass "200 TCP connections over ipip where lookup says: $(counts "$W/got_t4" | tr '\n' ' ')"
lookup -u 20000-20199 >"$W/want_u4"
traffic -u 20000-20199 >"$W/got_u4"
no_failures "$W/got_u4" "UDP over GUE"
expect_same "$W/got_u4" "$W/want_u4" "UDP over GUE vs ringctl lookup"
pass "200 UDP flows over GUE where lookup says"
lookup -6 20000-20199 >"$W/want_t6"
traffic -6 20000-20199 >"$W/got_t6"
no_failures "$W/got_t6" "TCP over ip6ip6"
expect_same "$W/got_t6" "$W/want_t6" "TCP over ip6ip6 vs ringctl lookup"
pass "200 TCP connections over ip6ip6 where lookup says"
lookup -6 -u 20000-20199 >"$W/want_u6"
traffic -6 -u 20000-20199 >"$W/got_u6"
no_failures "$W/got_u6" "UDP over IPv6 GUE"
expect_same "$W/got_u6" "$W/want_u6" "UDP over IPv6 GUE vs ringctl lookup"
pass "200 UDP flows over IPv6 GUE where lookup says"

# routed SPORT: a TCP connection from the client to b1's own address,
# which the LB only routes.
routed()
{
	[ "$(cli "$PY" "$LIBDIR/rs_client.py" "$CLI4" 10.2.1.2 80 "$1")" = "$1 b1" ] ||
		die "no connection to b1 through the LB"
}

# No conntrack entry for any of them, nor for what the LB just routes.
# Read over netlink: a kernel without CONFIG_NF_CONNTRACK_PROCFS (the
# debug kernel) has no /proc/net/nf_conntrack.
ct_list() { lb conntrack -L 2>/dev/null; }
routed 45000
n=$(ct_list | wc -l)
[ "$n" = 0 ] || die "the LB's conntrack table has $n entries: $(ct_list | head -n 3)"
pass "no conntrack entry in the LB (800 flows, a routed connection)"

# ---- large TCP transfers, offloads on, then off on every veth
# stream SPORTS WHAT: 4 connections, 2 MiB each way, every byte checked.
stream()
{
	cli "$PY" "$LIBDIR/rs_stream.py" client --bytes 2097152 "$CLI4" "$VIP4" \
		"$SPORT" "$1" >"$W/stream.$2" 2>&1 || die "streams with offloads $2: $(cat "$W/stream.$2")"
	[ "$(grep -c ' ok ' "$W/stream.$2")" = 4 ] || die "streams with offloads $2: $(cat "$W/stream.$2")"
	awk '{ if ($3 < 2097152) exit 1 }' "$W/stream.$2" ||
		die "streams with offloads $2 stopped short: $(cat "$W/stream.$2")"
}
stream 30000-30003 on
pass "4 echoed TCP streams over ipip with offloads on: $(awk '{ s += $3 } END { print s }' "$W/stream.on") bytes checked"
cli ip route get "$VIP4" | grep -q 'mtu 1480' ||
	die "client learnt no path MTU 1480 for the VIP: $(cli ip route get "$VIP4")"
pass "the client learnt the ipip tunnel's MTU 1480 from the LB"
cli ethtool -K cli0 tso off gso off gro off tx off sg off >/dev/null
lb ethtool -K lb-cli tso off gso off gro off tx off sg off >/dev/null
lb ethtool -K lb-b1 tso off gso off gro off tx off sg off >/dev/null
lb ethtool -K lb-b2 tso off gso off gro off tx off sg off >/dev/null
cli ethtool -k cli0 | grep -q '^tcp-segmentation-offload: off' || die "TSO still on on cli0"
stream 30010-30013 off
pass "4 echoed TCP streams over ipip with offloads off: $(awk '{ s += $3 } END { print s }' "$W/stream.off") bytes checked"

# ---- path MTU for each encapsulation, learnt by the client's UDP socket
cli ip route flush cache
[ "$(cli "$PY" "$LIBDIR/pmtu_probe.py" "$VIP4" 80)" = 1468 ] || die "GUE: the client did not learn MTU 1468"
cmd_ok rctl service set "$SVC4" proto udp encap ipip
cli ip route flush cache
[ "$(cli "$PY" "$LIBDIR/pmtu_probe.py" "$VIP4" 80)" = 1480 ] || die "ipip: the client did not learn MTU 1480"
[ "$(cli "$PY" "$LIBDIR/pmtu_probe.py" "$VIP6" 80)" = 1448 ] || die "IPv6 GUE: the client did not learn MTU 1448"
cmd_ok rctl service set "$SVC6" proto udp encap ipip
cli ip -6 route flush cache
[ "$(cli "$PY" "$LIBDIR/pmtu_probe.py" "$VIP6" 80)" = 1460 ] || die "ip6ip6: the client did not learn MTU 1460"
pass "ICMP fragmentation needed / packet too big with the tunnel's MTU: gue 1468, ipip 1480, IPv6 gue 1448, ip6ip6 1460"

# ---- the outer IPv4 ID: without DF the outer packet may be fragmented on
# the way, so no two of one backend's may share an ID; with DF it is 0.
pids=()
for i in 1 2 3; do
	bk "$i" "$PY" "$LIBDIR/outer_ids.py" eth0 "$W/oid.done" "$W/oid$i.ready" >"$W/oid$i" &
	pids+=($!)
done
ready_files '^oid.\.ready$' 3 600 || die "outer_ids.py did not start listening"
cli "$PY" "$LIBDIR/frames.py" --sport 41000 --count 30 cli0 "$(mac 0 1)" "$CLI4" "$VIP4" >/dev/null
cli "$PY" "$LIBDIR/frames.py" --sport 41001 --count 30 --df cli0 "$(mac 0 1)" "$CLI4" "$VIP4" >/dev/null
touch "$W/oid.done"
wait "${pids[@]}"
cat "$W"/oid[123] >"$W/oids"
[ "$(awk '$3 == 41000 && $2 == 0 { print $1 }' "$W/oids" | sort -u | wc -l)" = 30 ] ||
	die "30 packets without DF: not 30 distinct outer IDs: $(awk '$3 == 41000' "$W/oids" | tr '\n' ,)"
[ "$(awk '$3 == 41001 && $2 == 1 && $1 == 0' "$W/oids" | wc -l)" = 30 ] ||
	die "30 packets with DF: not 30 outer headers with DF and ID 0: $(awk '$3 == 41001' "$W/oids" | tr '\n' ,)"
pass "outer IPv4 ID: 30 distinct without DF, 0 with DF"

# ---- an ICMP error for a VIP flow goes to the backend owning the flow
icmp_in() { bk "$1" awk '$1 == "Icmp:" && !h { for (i = 1; i <= NF; i++) c[i] = $i; h = 1; next }
	$1 == "Icmp:" { for (i = 1; i <= NF; i++) if (c[i] == "InDestUnreachs") print $i }' /proc/net/snmp; }
owner=$(lookup 40000 | cut -d' ' -f2)
for i in 1 2 3; do before[$i]=$(icmp_in "$i"); done
cli "$PY" "$LIBDIR/icmp_quote.py" "$VIP4" 80 "$CLI4" 40000
for t in $(seq 1 50); do
	[ "$(icmp_in "${owner#b}")" = "${before[${owner#b}]}" ] || break
	sleep 0.1
done
for i in 1 2 3; do
	got=$(( $(icmp_in "$i") - before[i] ))
	if [ "b$i" = "$owner" ]; then
		[ "$got" = 1 ] || die "$owner owns the quoted flow but got $got ICMP errors"
	else
		[ "$got" = 0 ] || die "b$i got $got ICMP errors for $owner's flow"
	fi
done
pass "an ICMP error quoting a VIP flow reached its owner $owner only"

# ---- counters
show "$W/show1"
rctl show -j >"$W/show1.json"
jq -e '.services[] | select(.port == 80 and .proto == "tcp" and .family == "inet") |
	.tunnel.packets > 0 and .tunnel.encap_errors == 0 and .flows >= 200 and
	.tunnel.packets == .tunnel.table_hits + .tunnel.table_misses and
	.tunnel.table_hits > 0 and .tunnel.table_misses >= 200' "$W/show1.json" >/dev/null ||
	die "TCP service counters: $(jq -c '.services[0]' "$W/show1.json")"
jq -e '[.services[] | select(.proto == "udp") | .tunnel.too_big] | add >= 3' "$W/show1.json" >/dev/null ||
	die "too_big did not count the PMTU answers: $(jq -c '[.services[] | .tunnel]' "$W/show1.json")"
jq -e '.services[] | select(.port == 81) | .tunnel.too_big > 0 and .tunnel.table_hits > 0' \
	"$W/show1.json" >/dev/null || die "stream service counters: $(jq -c '.services[] | select(.port == 81)' "$W/show1.json")"
rctl stats --prometheus >"$W/prom"
grep -q '^ringsteer_tunnel_packets_total{vip="10.0.0.100",port="80",proto="tcp"} [1-9]' "$W/prom" ||
	die "no tunnel packets in stats --prometheus: $(grep tunnel_packets "$W/prom")"
rctl show >"$W/show1.txt"
grep -q 'forward tunnel encap ipip$' "$W/show1.txt" || die "show names no forward mode: $(cat "$W/show1.txt")"
pass "counters: packets, table hits and misses, too big, flows; show, -j, prometheus"

# ---- the route to a backend is kept once for every CPU (kmod/route.c)
# and follows routing: b1 made unreachable loses its flows at once, and
# only its own; with the route back they flow again. A kept route that
# outlived its change would still reach b1.
for v in 4 6; do
	if [ $v = 4 ]; then fam=; to=10.2.1.2/32; else fam=-6; to=fd02:1::2/128; fi
	lookup $fam -u 21000-21059 >"$W/rt_want$v"
	grep -q ' b1$' "$W/rt_want$v" || die "no flow of 21000-21059 is b1's (IPv$v)"
	awk '$2 == "b1" { $2 = "-" } 1' "$W/rt_want$v" >"$W/rt_cut_want$v"
	traffic $fam -u 21000-21059 >"$W/rt_before$v"
	expect_same "$W/rt_before$v" "$W/rt_want$v" "UDP over GUE before the route change (IPv$v)"
	lb ip $fam route add unreachable "$to"
	traffic $fam -t 2 -u 21000-21059 >"$W/rt_cut$v"
	lb ip $fam route del unreachable "$to"
	expect_same "$W/rt_cut$v" "$W/rt_cut_want$v" "UDP over GUE, b1 unreachable (IPv$v)"
	traffic $fam -u 21000-21059 >"$W/rt_after$v"
	expect_same "$W/rt_after$v" "$W/rt_want$v" "UDP over GUE, the route back (IPv$v)"
done
rctl show -j | jq -e '[.services[] | select(.proto == "udp") | .tunnel.encap_errors] | add > 0' >/dev/null ||
	die "b1's unroutable packets were not counted: $(rctl show -j | jq -c '[.services[] | .tunnel]')"
pass "the route to a backend follows routing: unreachable and back, IPv4 and IPv6"

# ---- no backend: dropped and counted
cmd_ok rctl service add "$VIP4:83" forward tunnel
traffic -t 2 -p 83 20000-20004 >"$W/nob"
[ "$(awk '$2 != "-"' "$W/nob" | wc -l)" = 0 ] || die "a service without backends answered"
rctl show -j | jq -e '.services[] | select(.port == 83) | .no_backend >= 5' >/dev/null ||
	die "no_backend did not count: $(rctl show -j | jq -c '.services[] | select(.port == 83)')"
pass "no backend: dropped and counted"

# ---- a NAT service enables conntrack: the negative control of the checks above
cmd_ok rctl service add "$VIP4:84"
[ "$(rctl show -j | jq .hooks)" = true ] || die "a NAT service did not register the NAT hooks"
routed 45001
[ "$(ct_list | wc -l)" -gt 0 ] || die "conntrack saw nothing with a NAT service: the check above proves nothing"
cmd_ok rctl service del "$VIP4:84"
[ "$(rctl show -j | jq .hooks)" = false ] || die "NAT hooks stayed after the NAT service went"
pass "negative control: a NAT service registers conntrack, and it goes with it"

# ---- save and restore keep forward, encap and on-down; a new mode is a
# new service
cmd_ok rctl service set "$VIP4:81" on-down reset
rctl save >"$W/saved"
[ "$(grep -c ' forward tunnel encap ' "$W/saved")" = 6 ] || die "save: $(cat "$W/saved")"
grep -q "^service \[fd00::100\]:80 proto udp vnodes 256 hash flow on-down keep forward tunnel encap ipip$" "$W/saved" ||
	die "save lost the IPv6 UDP service's encap: $(cat "$W/saved")"
grep -q "^service 10.0.0.100:81 proto tcp .* on-down reset forward tunnel encap " "$W/saved" ||
	die "save lost a tunnel service's on-down: $(cat "$W/saved")"
cmd_ok rctl flush
cmd_ok rctl restore "$W/saved"
rctl save >"$W/saved2"
cmp -s "$W/saved" "$W/saved2" || die "save after restore differs: $(diff "$W/saved" "$W/saved2")"
sed -i 's/^\(service 10.0.0.100:83 .*\) forward tunnel encap ipip$/\1/' "$W/saved"
cmd_ok rctl restore "$W/saved"
[ "$(rctl show -j | jq -r '.services[] | select(.port == 83) | .forward')" = nat ] ||
	die "restore did not make :83 a NAT service"
[ "$(rctl show -j | jq '[.hooks, .tunnel_hooks]' | tr -d ' \n')" = "[true,true]" ] ||
	die "a NAT and tunnel services: $(rctl show -j | jq -c '[.hooks, .tunnel_hooks]')"
[ "$(rctl show -j | jq -r '.services[] | select(.port == 81) | .on_down')" = reset ] ||
	die "restore lost :81's on-down reset"
# From gue back to ipip: the plan's service set must carry no port.
cmd_ok rctl service set "$VIP4:81" encap gue port 7000
rctl save >"$W/saved3"
grep -q "^service 10.0.0.100:81 proto tcp .* encap gue port 7000$" "$W/saved3" ||
	die "save: no gue port 7000 for :81: $(cat "$W/saved3")"
sed -i 's/^\(service 10.0.0.100:81 proto tcp .*\) encap gue port 7000$/\1 encap ipip/' "$W/saved3"
cmd_ok rctl restore "$W/saved3"
[ "$(rctl show -j | jq -r '.services[] | select(.port == 81 and .proto == "tcp") | .encap')" = ipip ] ||
	die "restore did not take :81 back to ipip"
pass "save/restore round trip of tunnel services with on-down; restore turns a tunnel service into a NAT one"

# ---- the tunnel hooks go with the last tunnel service; the backend is undone
cmd_ok rctl flush
[ "$(rctl show -j | jq .tunnel_hooks)" = false ] || die "tunnel hooks stayed after flush"
[ "$(rctl show -j | jq .hooks)" = false ] || die "NAT hooks stayed after flush"
bk 1 bash "$BACKEND" down --state "$W/st1" gue port 6080 "$VIP4" "$VIP6"
! bk 1 ip -o addr show dev lo | grep -q " $VIP4/32 " || die "b1: VIP left on lo"
! bk 1 ip fou show | grep -q 6080 || die "b1: fou port left"
[ "$(bk 1 sysctl -n net.ipv4.conf.all.arp_ignore)" = 0 ] || die "b1: arp_ignore not restored"
pass "flush removes the tunnel hooks; ringsteer-backend down undoes the backend"
