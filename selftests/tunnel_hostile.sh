#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel under hostile traffic: what the hook, which runs before
# routing and its checks, answers, steers or passes on when a packet is
# not a plain client's. One section per item; each says which item and
# which of its checks failed, and the script goes on to the next item and
# fails at the end if any did.
#
#  1 martians: a source that is not unicast (broadcast, multicast, 0/8,
#    loopback, the LB's own address, a directed broadcast; IPv6 multicast,
#    unspecified, loopback, the LB's own) with DF over the tunnel MTU, or
#    TTL 1, gets nothing from the LB (no ICMP to a broadcast, multicast or
#    local address), counted in tunnel.martians; a flood of DF packets
#    over the MTU from a real source is answered at most icmp_rate times a
#    second on each CPU (the kernel's own limit spares "fragmentation
#    needed"), the rest counted in tunnel.icmp_limited
#  2 loops: what reaches a VIP the LB does not own and no service takes
#    (another port, ICMP echo, another protocol) is dropped and counted in
#    unserved_drops, not routed back to the router that sent it; with the
#    VIP on the LB's lo the host answers it
#  3 not host: a frame to an L2 broadcast or multicast MAC is not steered,
#    counted in tunnel.not_host; nor one to another host's MAC (the LB in
#    promiscuous mode), which the IP layer drops before the hook
#  4 fragment quotes: an ICMP error quoting the first fragment of a VIP's
#    UDP reply reaches the backend owning the flow; a later fragment's not
#  5 outer path MTU: the LB, with no tunnel device up, learns the MTU of
#    the path to a backend from the router on it, answers the client with
#    the smaller tunnel MTU, and the client's next try gets through
#
#   th-cli        th-rtr              th-lb                         th-r2             th-b1
#  +---------+   +-------------+    +--------------------------+   +-----------+     +-----------+
#  | cli0    |   | rtr-cli     |    | lb-rtr 10.2.10.1         |   | r2-lb     |     | eth0      |
#  | 10.1.0.2+---+ 10.1.0.1    |    |        fd02:10::1        |   | 10.2.11.2 | MTU | 10.2.1.2  |
#  | fd01::2 |   | rtr-lb      +----+ lb-r2  10.2.11.1         +---+ r2-b1     +-----+ fd02:1::2 |
#  | default |   | 10.2.10.2   |    | lb-b2  10.2.2.1          |   | 10.2.1.1  | 1400| backend   |
#  | via rtr |   | VIP via lb  |    | VIP 10.0.0.100 fd00::100 |   +-----------+     +-----------+
#  +---------+   | (as BIRD's  |    | NOT on lo; default via   |                     th-b2
#                | ECMP would),|    | rtr; tunl0, ip6tnl0 down,|                     +-----------+
#                | no default  |    | no fou port;             +---------------------+ eth0      |
#                +-------------+    | :80 tcp ipip, :80 udp    |                     | 10.2.2.2  |
#                                   | ipip then gue, v4 and v6 |                     | fd02:2::2 |
#                                   +--------------------------+                     | backend   |
#                                                                                    +-----------+
#
# Backends: ringsteer-backend up (ipip, gue port 6080, VIPs on lo),
# rs_server.py on :80 answering with their name. The frames of items 1
# and 3 are made by hand (frames.py, AF_PACKET) and sent by the router on
# the LB's link; the router receives what the LB answers to them.

set -e
P=th
. "$(dirname "$0")/lib/topo.sh"
need_tools jq
BPORT=$VPORT
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
RTR4=10.2.10.2
RTR6=fd02:10::2
LB4=10.2.10.1
LB6=fd02:10::1
PARAM=/sys/module/ringsteer/parameters/icmp_rate
rtr() { ip netns exec "$P-rtr" "$@"; }

# Backends of a tunnel service have the VIP's port: "10.2.N.2:80 bN".
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:[0-9]+$/ b\1/; s/ \[fd02:([0-9]+)::2\]:[0-9]+$/ b\1/'
}

# ---- one item per section, every check of it reported
FAILED=()
# note MSG: a check of the running item failed; the item goes on, so that
# one run shows every check that fails, and fails at its end (settle).
NOTES=()
note() { echo "  not ok: $*" >&2; NOTES+=("$*"); }
settle() { [ ${#NOTES[@]} = 0 ] || die "${#NOTES[@]} check(s) failed"; }
# item N TITLE FUNC: FUNC in a subshell with set -e, so that a die there
# ends item N only.
item()
{
	local n=$1 title=$2 rc start=$SECONDS
	echo "# ---- item $n: $title"
	set +e
	(
		set -e
		"$3"
		settle
	)
	rc=$?
	set -e
	echo "# item $n took $((SECONDS - start)) s"
	[ "$rc" = 0 ] || FAILED+=("$n ($title)")
}

# tstat FAMILY PROTO NAME: a counter of the :80 service under "tunnel" in
# show -j; "none" if there is no such counter. unserved: the namespace's.
tstat()
{
	rctl show -j | jq -r --arg f "$1" --arg p "$2" --arg n "$3" \
		'.services[] | select(.family == $f and .proto == $p and .port == 80) | .tunnel[$n] // "none"'
}
unserved() { rctl show -j | jq -r '.unserved_drops // "none"'; }
# delta OLD NEW: NEW - OLD, "none" if a counter is missing.
delta()
{
	if [ "$1" = none ] || [ "$2" = none ]; then echo none; else echo $(($2 - $1)); fi
}
# icmp_out NS: the ICMP and ICMPv6 errors NS has sent (its SNMP
# counters), "IPV4 IPV6".
icmp_out()
{
	ip netns exec "$1" awk '
		$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) c[i] = $i; h = 1; next }
		$1 == "Icmp:" { for (i = 2; i <= NF; i++) if (c[i] ~ /^Out(DestUnreachs|TimeExcds|ParmProbs)$/) v4 += $i }
		$1 ~ /^Icmp6Out(DestUnreachs|PktTooBigs|TimeExcds|ParmProblems)$/ { v6 += $2 }
		END { print v4 + 0, v6 + 0 }' /proc/net/snmp /proc/net/snmp6
}
mac_of() { ip -n "$P-$1" -j link show dev "$2" | jq -r '.[0].address'; }
# frames ARGS: frames.py on the router's link to the LB, to the LB's MAC
# unless ARGS start with --mac MAC.
frames()
{
	local mac=$LBMAC
	[ "$1" != --mac ] || { mac=$2; shift 2; }
	rtr "$PY" "$LIBDIR/frames.py" "${@:1:$#-2}" rtr-lb "$mac" "${@:$#-1:1}" "${@:$#}"
}

topo_init
for ns in cli rtr lb r2 b1 b2; do
	newns "$P-$ns"
	# Replies from the VIP cross the LB and routers whose route to the
	# VIP leaves by another link.
	ip netns exec "$P-$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
done
for ns in rtr lb r2; do
	ip netns exec "$P-$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
done
link "$P-rtr" rtr-cli "$P-cli" cli0 0
link "$P-lb" lb-rtr "$P-rtr" rtr-lb 10
link "$P-lb" lb-r2 "$P-r2" r2-lb 11
link "$P-r2" r2-b1 "$P-b1" eth0 1
link "$P-lb" lb-b2 "$P-b2" eth0 2
# The router sends the LB the VIP only; the LB's default route is the
# router, so whatever the LB routes on for the VIP comes back to it.
rtr ip route del default
rtr ip -6 route del default
rtr ip route add "$VIP4/32" via "$LB4"
rtr ip -6 route add "$VIP6/128" via "$LB6"
lb ip route add default via "$RTR4"
lb ip -6 route add default via "$RTR6"
lb ip route add 10.2.1.0/24 via 10.2.11.2
lb ip -6 route add fd02:1::/64 via fd02:11::2
ip -n "$P-r2" link set r2-b1 mtu 1400
bk 1 ip link set eth0 mtu 1400
# No tunnel device up on the LB: it learns nothing about the outer path
# from the kernel's tunnel error handlers.
for dev in tunl0 ip6tnl0; do
	! lb ip link show "$dev" >/dev/null 2>&1 || lb ip link set "$dev" down
done
LBMAC=$(mac_of lb lb-rtr)
RTRMAC=$(mac_of rtr rtr-cli)

for i in 1 2; do
	bk "$i" "$PY" "$LIBDIR/rs_server.py" "b$i" "$BPORT" "$W/b$i.ready" &
	SERVERS+=($!)
done
for i in 1 2; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIP4" "$VIP6" >"$W/up$i.log" ||
		die "ringsteer-backend up ipip on b$i"
	bk "$i" bash "$BACKEND" up --state "$W/st$i" gue port 6080 "$VIP4" "$VIP6" >>"$W/up$i.log" ||
		die "ringsteer-backend up gue on b$i"
done
for t in $(seq 1 300); do
	if [ -e "$W/b1.ready" ] && [ -e "$W/b2.ready" ]; then break; fi
	sleep 0.1
done
[ -e "$W/b2.ready" ] || die "backend servers did not start"

cmd_ok rctl key set "$KEY"
for svc in "$SVC4" "$SVC6"; do
	cmd_ok rctl service add "$svc" forward tunnel
	cmd_ok rctl service add "$svc" proto udp forward tunnel encap ipip
done
for i in 1 2; do
	for p in tcp udp; do
		cmd_ok rctl backend add "$SVC4" "10.2.$i.2:80" proto $p
		cmd_ok rctl backend add "$SVC6" "[fd02:$i::2]:80" proto $p
	done
done

# Every path of the drawing works before anything hostile is sent.
lookup -u 20000-20019 >"$W/want_u4"
traffic -u 20000-20019 >"$W/got_u4"
expect_same "$W/got_u4" "$W/want_u4" "UDP over ipip vs ringctl lookup"
[ "$(cut -d' ' -f2 "$W/want_u4" | sort -u | wc -l)" = 2 ] || die "lookup used one backend only"
lookup -6 -u 20000-20019 >"$W/want_u6"
traffic -6 -u 20000-20019 >"$W/got_u6"
expect_same "$W/got_u6" "$W/want_u6" "UDP over ip6ip6 vs ringctl lookup"
lookup 20000-20019 >"$W/want_t4"
traffic 20000-20019 >"$W/got_t4"
expect_same "$W/got_t4" "$W/want_t4" "TCP over ipip vs ringctl lookup"
! lb ip -o link show up | grep -qE ' (tunl0|ip6tnl0)[@:]' || die "a tunnel device is up on the LB"
! lb ip fou show 2>/dev/null | grep -q . || die "a fou port on the LB"
pass "setup: UDP and TCP flows reach b1 (behind r2) and b2 as lookup says; no tunnel device on the LB"
echo "# setup took $SECONDS s"

# ---- 1. martian sources get no answer
# 0.1.2.3: all of 0.0.0.0/8 is a martian source here, as
# doc/semantics.md says, although since Linux 5.3 routing takes 0/8 but
# 0.0.0.0 as unicast (ipv4_is_zeronet() tests addr == 0).
MARTIANS4="255.255.255.255,224.0.0.1,239.255.255.250,0.0.0.0,0.1.2.3,127.0.0.1,$LB4,10.2.10.255,10.2.11.255"
# ff02::1 and ::1 never reach the hook: ip6_rcv_core() drops a multicast
# or loopback source, so nothing counts them; :: and the LB's own do.
MARTIANS6="ff02::1,::,::1,$LB6"
martians()
{
	local out0 out1 m4 m6 d
	frames --proto tcp --df --size 1500 --watch 1 "$RTR4" "$VIP4" >"$W/ctl4"
	grep -q "^icmp 3/4 $LB4 > $RTR4 mtu " "$W/ctl4" ||
		die "control: a real source's DF packet over the MTU got no frag-needed: $(cat "$W/ctl4")"
	out0=$(icmp_out "$P-lb")
	m4=$(tstat inet tcp martians)
	m6=$(tstat inet6 tcp martians)
	frames --proto tcp --df --size 1500 --watch 1 "$MARTIANS4" "$VIP4" >"$W/m4big"
	frames --proto tcp --ttl 1 --watch 1 "$MARTIANS4" "$VIP4" >"$W/m4ttl"
	frames --proto tcp --size 1500 --watch 1 "$MARTIANS6" "$VIP6" >"$W/m6big"
	frames --proto tcp --ttl 1 --watch 1 "$MARTIANS6" "$VIP6" >"$W/m6ttl"
	out1=$(icmp_out "$P-lb")
	if grep -h '^icmp' "$W"/m4big "$W"/m4ttl "$W"/m6big "$W"/m6ttl >"$W/m.seen"; then
		note "the LB answered martian sources on the wire: $(tr '\n' ';' <"$W/m.seen")"
	fi
	[ "$out0" = "$out1" ] ||
		note "the LB sent ICMP errors (IPv4, IPv6) $out0 before, $out1 after"
	d=$(delta "$m4" "$(tstat inet tcp martians)")
	[ "$d" = 18 ] || note "IPv4: tunnel.martians counted $d of 18"
	d=$(delta "$m6" "$(tstat inet6 tcp martians)")
	[ "$d" = 4 ] || note "IPv6: tunnel.martians counted $d of 4 (:: and the LB's own)"
	[ ${#NOTES[@]} != 0 ] ||
		pass "martian sources, DF over the MTU and TTL 1: no ICMP, counted (18 IPv4, 4 IPv6)"
}

# answered FILE: the frag-needed answers to the router in frames.py's output.
answered() { grep -c "^icmp 3/4 $LB4 > $RTR4 mtu " "$1" || true; }
icmp_rate()
{
	local orig='' l0 n t
	if [ -w "$PARAM" ]; then
		orig=$(cat "$PARAM")
		echo 10 >"$PARAM"
	else
		note "no module parameter icmp_rate ($PARAM)"
	fi
	l0=$(tstat inet tcp icmp_limited)
	frames --proto tcp --df --size 1500 --count 200 --watch 2 "$RTR4" "$VIP4" >"$W/flood"
	n=$(answered "$W/flood")
	t=$(sed -n 's/^sent 200 in \([0-9.]*\) s$/\1/p' "$W/flood")
	echo "# 200 DF packets over the MTU in $t s: $n answered"
	[ "$n" -ge 1 ] || note "the flood got no answer at all"
	# At 10 a second on each CPU the flood reached, and a bucket of at
	# most a second's worth.
	awk -v n="$n" -v t="$t" -v c="$(nproc)" 'BEGIN { exit !(n <= c * 10 * (t + 1) + 10) }' ||
		note "icmp_rate 10: $n of 200 answered in $t s on $(nproc) CPUs"
	[ "$(delta "$l0" "$(tstat inet tcp icmp_limited)")" = $((200 - n)) ] ||
		note "tunnel.icmp_limited counted $(delta "$l0" "$(tstat inet tcp icmp_limited)") of $((200 - n)) unanswered"
	if [ -n "$orig" ]; then
		echo 100000 >"$PARAM"
		l0=$(tstat inet tcp icmp_limited)
		frames --proto tcp --df --size 1500 --count 20 --watch 1 "$RTR4" "$VIP4" >"$W/flood2"
		[ "$(answered "$W/flood2")" = 20 ] ||
			note "icmp_rate 100000: $(answered "$W/flood2") of 20 answered"
		[ "$(delta "$l0" "$(tstat inet tcp icmp_limited)")" = 0 ] ||
			note "icmp_rate 100000: icmp_limited counted"
		echo "$orig" >"$PARAM"
	fi
	[ ${#NOTES[@]} != 0 ] || pass "icmp_rate: $n of 200 answered at 10/s, the rest counted; all 20 at 100000/s"
}

# ---- 2. what reaches a VIP the LB does not own, and nothing serves
txp() { lb ip -j -s link show dev lb-rtr | jq '.[0].stats64.tx.packets'; }
# probe WHAT ARGS: one frames.py packet from the client; the times it
# crossed from the LB back to the router, and unserved_drops' count.
probe()
{
	local what=$1 tx u
	shift
	tx=$(txp)
	u=$(unserved)
	cli "$PY" "$LIBDIR/frames.py" "${@:1:$#-2}" cli0 "$RTRMAC" "${@:$#-1:1}" "${@:$#}" >/dev/null
	sleep 1
	tx=$(($(txp) - tx))
	u=$(delta "$u" "$(unserved)")
	echo "# $what: crossed LB -> router $tx times, unserved_drops +$u"
	[ "$tx" = 0 ] || note "$what went back to the router $tx times"
	[ "$u" = 1 ] || note "$what: unserved_drops counted $u of 1"
}
loops()
{
	probe "UDP to $VIP4:9" --proto udp --dport 9 "$CLI4" "$VIP4"
	probe "TCP to $VIP4:22" --proto tcp --dport 22 "$CLI4" "$VIP4"
	probe "ICMP echo to $VIP4" --proto icmp "$CLI4" "$VIP4"
	probe "protocol 253 to $VIP4" --proto 253 "$CLI4" "$VIP4"
	probe "UDP to [$VIP6]:9" --proto udp --dport 9 "$CLI6" "$VIP6"
	probe "ICMPv6 echo to $VIP6" --proto icmp "$CLI6" "$VIP6"
	probe "protocol 253 to $VIP6" --proto 253 "$CLI6" "$VIP6"
	[ ${#NOTES[@]} != 0 ] || pass "unserved packets to a VIP the LB does not own: dropped at the LB, counted"

	# A VIP the host owns is the host's: it answers.
	lb ip addr add "$VIP4/32" dev lo
	lb ip addr add "$VIP6/128" dev lo nodad
	local u
	u=$(unserved)
	cli "$PY" "$LIBDIR/frames.py" --proto icmp --watch 2 cli0 "$RTRMAC" "$CLI4" "$VIP4" >"$W/own4"
	cli "$PY" "$LIBDIR/frames.py" --proto icmp --watch 2 cli0 "$RTRMAC" "$CLI6" "$VIP6" >"$W/own6"
	cli "$PY" "$LIBDIR/frames.py" --proto udp --dport 9 --watch 2 cli0 "$RTRMAC" "$CLI4" "$VIP4" >"$W/own9"
	lb ip addr del "$VIP4/32" dev lo
	lb ip addr del "$VIP6/128" dev lo
	grep -q "^icmp 0/0 $VIP4 > $CLI4$" "$W/own4" || note "VIP on lo: no echo reply: $(cat "$W/own4")"
	grep -q "^icmp6 129/0 $VIP6 > $CLI6$" "$W/own6" || note "VIP on lo: no ICMPv6 echo reply: $(cat "$W/own6")"
	grep -q "^icmp 3/3 $VIP4 > $CLI4$" "$W/own9" || note "VIP on lo: no port unreachable: $(cat "$W/own9")"
	u=$(delta "$u" "$(unserved)")
	[ "$u" = 0 ] || note "VIP on lo: unserved_drops +$u for the host's own packets, want +0"
	[ ${#NOTES[@]} != 0 ] || pass "with the VIP on lo the host answers echo (v4, v6) and port unreachable itself"
}

# ---- 3. frames not to the LB's own MAC
# hello [--mac MAC] SRC DST SPORT: one UDP datagram from the router to
# DST:80 in a frame; the backend's answer (within 1.5 s), or "-".
hello()
{
	local mac=() r
	[ "$1" != --mac ] || { mac=(--mac "$2"); shift 2; }
	r=$(frames "${mac[@]}" --sport "$3" --reply 1.5 "$1" "$2" | sed -n 's/^reply //p' | head -n 1)
	echo "${r:--}"
}
# stray FAMILY MAC WHAT: a datagram to the VIP in a frame to MAC (the
# next source port of not_host's), which must reach no backend.
stray()
{
	local src=$RTR4 dst=$VIP4 got
	[ "$1" = 4 ] || { src=$RTR6; dst=$VIP6; }
	sport=$((sport + 1))
	got=$(hello --mac "$2" "$src" "$dst" "$sport")
	[ "$got" = - ] || note "IPv$1 in a frame to $3 reached $got"
}
not_host()
{
	local n4 n6 sport=42000 got
	got=$(hello "$RTR4" "$VIP4" $sport)
	[ "$got" != - ] || die "control: a datagram to the LB's MAC got no answer"
	got=$(hello "$RTR6" "$VIP6" $sport)
	[ "$got" != - ] || die "control: an IPv6 datagram to the LB's MAC got no answer"
	n4=$(tstat inet udp not_host)
	n6=$(tstat inet6 udp not_host)
	stray 4 ff:ff:ff:ff:ff:ff "the broadcast MAC"
	stray 4 01:00:5e:00:00:01 "a multicast MAC (01:00:5e:00:00:01)"
	stray 6 ff:ff:ff:ff:ff:ff "the broadcast MAC"
	stray 6 33:33:00:00:00:01 "a multicast MAC (33:33:00:00:00:01)"
	n4=$(delta "$n4" "$(tstat inet udp not_host)")
	[ "$n4" = 2 ] || note "IPv4: tunnel.not_host counted $n4 of 2"
	n6=$(delta "$n6" "$(tstat inet6 udp not_host)")
	[ "$n6" = 2 ] || note "IPv6: tunnel.not_host counted $n6 of 2"
	# Another host's MAC: the IP layers drop PACKET_OTHERHOST before
	# PRE_ROUTING, so nothing is steered, and nothing counted either.
	lb ip link set lb-rtr promisc on
	stray 4 02:00:00:00:99:99 "another host's MAC (promiscuous LB)"
	stray 6 02:00:00:00:99:99 "another host's MAC (promiscuous LB)"
	lb ip link set lb-rtr promisc off
	[ ${#NOTES[@]} != 0 ] ||
		pass "frames to broadcast, multicast or another host's MAC: not steered, counted"
}

# ---- 4. ICMP errors quoting fragments of a VIP's reply
# icmp_in N FAMILY: "fragmentation needed" / "packet too big" received by bN.
icmp_in()
{
	if [ "$2" = 6 ]; then
		bk "$1" awk '$1 == "Icmp6InPktTooBigs" { print $2 }' /proc/net/snmp6
	else
		bk "$1" awk '$1 == "Icmp:" && !h { for (i = 1; i <= NF; i++) c[i] = $i; h = 1; next }
			$1 == "Icmp:" { for (i = 1; i <= NF; i++) if (c[i] == "InDestUnreachs") print $i }' /proc/net/snmp
	fi
}
# quote FAMILY WANT ARGS: icmp_quote.py ARGS from the client; what each
# backend received of it, "b1 N b2 N", once it is WANT or after 3 s.
quote()
{
	local fam=$1 want=$2 t b1 b2 got
	shift 2
	b1=$(icmp_in 1 "$fam")
	b2=$(icmp_in 2 "$fam")
	cli "$PY" "$LIBDIR/icmp_quote.py" "$@"
	sleep 0.5
	for t in $(seq 1 10); do
		got="b1 $(($(icmp_in 1 "$fam") - b1)) b2 $(($(icmp_in 2 "$fam") - b2))"
		[ "$got" != "$want" ] || break
		sleep 0.25
	done
	echo "$got"
}
frag_quotes()
{
	local owner want got fam vip cli flag
	for fam in 4 6; do
		if [ $fam = 4 ]; then vip=$VIP4 cli=$CLI4 flag=; else vip=$VIP6 cli=$CLI6 flag=-6; fi
		owner=$(lookup $flag -u 40100 | cut -d' ' -f2)
		if [ "$owner" = b1 ]; then want="b1 1 b2 0"; else want="b1 0 b2 1"; fi
		got=$(quote $fam "$want" --udp "$vip" 80 "$cli" 40100)
		[ "$got" = "$want" ] || die "control: IPv$fam, a whole datagram quoted: got $got, want $want"
		got=$(quote $fam "$want" --udp --frag 0 "$vip" 80 "$cli" 40100)
		[ "$got" = "$want" ] ||
			note "IPv$fam: a first fragment quoted: got $got, want $want (owner $owner)"
		got=$(quote $fam "b1 0 b2 0" --udp --frag 1448 "$vip" 80 "$cli" 40100)
		[ "$got" = "b1 0 b2 0" ] || note "IPv$fam: a later fragment quoted reached a backend: $got"
	done
	[ ${#NOTES[@]} != 0 ] ||
		pass "ICMP errors quoting a first fragment reach the flow's owner, a later one's nobody (v4, v6)"
}

# ---- 5. outer path MTU through a router, no tunnel device on the LB
forget_pmtu()
{
	local ns
	for ns in lb cli; do
		ip netns exec "$P-$ns" ip route flush cache
		ip netns exec "$P-$ns" ip -6 route flush cache
	done
}
# try FLAG SPORT: the client's UDP flow SPORT, 1440-byte DF packets and
# smaller as it learns the path MTU; "mtu M size S reply NAME".
try()
{
	local vip=$VIP4
	[ "$1" != -6 ] || vip=$VIP6
	cli "$PY" "$LIBDIR/pmtu_probe.py" --reply --size 1440 --sport "$2" "$vip" 80 8
}
outer_pmtu()
{
	local encap fam flag p1 p2 want got
	for encap in ipip gue; do
		cmd_ok rctl service set "$SVC4" proto udp encap $encap
		cmd_ok rctl service set "$SVC6" proto udp encap $encap
		for fam in 4 6; do
			flag=
			[ $fam = 4 ] || flag=-6
			lookup $flag -u 41000-41063 >"$W/pm"
			p1=$(awk '$2 == "b1" { print $1; exit }' "$W/pm")
			p2=$(awk '$2 == "b2" { print $1; exit }' "$W/pm")
			case $fam$encap in
			4ipip) want=1380 ;;
			4gue) want=1368 ;;
			6ipip) want=1360 ;;
			6gue) want=1348 ;;
			esac
			forget_pmtu
			got=$(try "$flag" "$p2")
			[ "$got" = "mtu 1500 size 1440 reply b2" ] ||
				die "control: IPv$fam $encap, 1440 bytes to b2 (no router between): $got"
			got=$(try "$flag" "$p1")
			echo "# IPv$fam $encap, 1440 bytes to b1 behind the 1400-byte link: $got"
			[ "$got" = "mtu $want size $want reply b1" ] ||
				note "IPv$fam $encap to b1: $got, want mtu $want size $want reply b1"
		done
	done
	[ ${#NOTES[@]} != 0 ] ||
		pass "outer path MTU learnt without tunnel devices: ipip 1380, gue 1368, ip6ip6 1360, IPv6 gue 1348"
}

item 3 "not_host: frames to broadcast, multicast, other MACs" not_host
item 1 "martians: no ICMP to what is not a unicast source" martians
item 1 "icmp_rate: ICMP answers limited" icmp_rate
item 4 "ICMP errors quoting fragments" frag_quotes
item 5 "outer path MTU without tunnel devices" outer_pmtu
item 2 "unserved packets to a VIP the LB does not own" loops

[ ${#FAILED[@]} = 0 ] || die "items failed: $(printf '%s; ' "${FAILED[@]}")"
pass "every item"
