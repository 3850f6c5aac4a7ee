#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel and ICMP: whose errors the LB answers, and whose it
# believes. One section per item; each says which of its checks failed,
# and the script goes on to the next item and fails at the end if any did.
#
#  1 one host's TTL-1 flood leaves another client's "fragmentation
#    needed" / "packet too big" answered (the kernel's own limits govern
#    time exceeded; icmp_rate only the "too big" answers, per CPU)
#  2 outer path MTU is learnt only from an ICMP error with a good checksum
#    that quotes an outer packet to one of the namespace's tunnel backends,
#    and not at all with net.ipv4.ip_no_pmtu_disc 1, 2 or 3 (IPv4)
#  3 link-local sources (169.254/16, fe80::/10) are not tunnelled nor
#    answered, and are counted in tunnel.martians
#  4 a DF datagram that arrived in DF fragments leaves in outer fragments
#    with an outer ID of their own, not 0; an atomic one keeps ID 0
#
#   ti-rtr                 ti-lb                            ti-b1, ti-b2
#  +-------------+       +------------------------------+   +------------+
#  | rtr-lb      +-------+ lb-rtr 10.2.10.1 fd02:10::1   |   | eth0       |
#  | 10.2.10.2   |       | lb-bN  10.2.N.1  fd02:N::1    +---+ 10.2.N.2   |
#  | fd02:10::2  |       | VIP 10.0.0.100 fd00::100:80   |   | fd02:N::2  |
#  | frames from |       | tcp, udp over ipip; not on lo;|   | (captures) |
#  | any source  |       | default via rtr               |   +------------+
#  +-------------+       +------------------------------+
#
# Every frame is made by hand on the router's link (frames.py,
# icmp_cases.py), from whatever source a case needs; what the LB sends
# back to those sources is routed to the router, where they listen.

set -e
P=ti
. "$(dirname "$0")/lib/topo.sh"
need_tools jq
RTR4=10.2.10.2
RTR6=fd02:10::2
PARAM=/sys/module/ringsteer/parameters/icmp_rate
rtr() { ip netns exec "$P-rtr" "$@"; }
# cases CASE ARGS: icmp_cases.py CASE on the router's link to the LB.
cases() { local c=$1; shift; rtr "$PY" "$LIBDIR/icmp_cases.py" "$c" rtr-lb "$LBMAC" "$@"; }

FAILED=()
NOTES=()
note() { echo "  not ok: $*" >&2; NOTES+=("$*"); }
settle() { [ ${#NOTES[@]} = 0 ] || die "${#NOTES[@]} check(s) failed"; }
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
tstat()
{
	rctl show -j | jq -r --arg f "$1" --arg p "$2" --arg n "$3" \
		'.services[] | select(.family == $f and .proto == $p and .port == 80) | .tunnel[$n] // "none"'
}
delta()
{
	if [ "$1" = none ] || [ "$2" = none ]; then echo none; else echo $(($2 - $1)); fi
}
# learnt [-6] ADDR: the path MTU the LB keeps towards ADDR, or "none".
learnt()
{
	local m
	m=$(lb ip "${@:1:$#-1}" route get "${@: -1}" 2>/dev/null | grep -o 'mtu [0-9]*' | head -n 1)
	echo "${m:-none}"
}
forget() { lb ip route flush cache; lb ip -6 route flush cache; }

topo_init
for ns in rtr lb b1 b2; do
	newns "$P-$ns"
done
lb sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
link "$P-lb" lb-rtr "$P-rtr" rtr-lb 10
link "$P-lb" lb-b1 "$P-b1" eth0 1
link "$P-lb" lb-b2 "$P-b2" eth0 2
lb ip route add default via "$RTR4"
lb ip -6 route add default via "$RTR6"
LBMAC=$(ip -n "$P-lb" -j link show dev lb-rtr | jq -r '.[0].address')

cmd_ok rctl key set "$KEY"
for svc in "$SVC4" "$SVC6"; do
	cmd_ok rctl service add "$svc" forward tunnel encap ipip
	cmd_ok rctl service add "$svc" proto udp forward tunnel encap ipip
done
for i in 1 2; do
	for p in tcp udp; do
		cmd_ok rctl backend add "$SVC4" "10.2.$i.2:80" proto $p
		cmd_ok rctl backend add "$SVC6" "[fd02:$i::2]:80" proto $p
	done
done

# ---- 1. a TTL-1 flood and another client's "too big"
flood()
{
	local fam=$1 src=$2 probe=$3 vip=$4 want=$5 l0 n
	l0=$(tstat "$fam" tcp icmp_limited)
	cases flood "$src" "$probe" "$vip" --count 300 --watch 2 >"$W/flood.$fam"
	n=$(grep -c "^icmp\(6 3\| 11\)/0 [^ ]* > $src\$" "$W/flood.$fam" || true)
	echo "# $fam: 300 with TTL 1 from $src: $n time exceeded; then $probe: $(grep -c "> $probe " "$W/flood.$fam" || true) answer(s)"
	grep -q "^$want [^ ]* > $probe mtu " "$W/flood.$fam" ||
		note "$fam: $probe got no \"too big\" after $src's TTL-1 flood: $(grep -v "> $src\$" "$W/flood.$fam" | tr '\n' ';')"
	[ "$n" -ge 1 ] || note "$fam: the TTL-1 flood got no time exceeded at all"
	[ "$n" -lt 300 ] || note "$fam: every TTL-1 packet was answered: the kernel's limits did not apply"
	l0=$(delta "$l0" "$(tstat "$fam" tcp icmp_limited)")
	[ "$l0" = 0 ] || note "$fam: tunnel.icmp_limited counted $l0 for time exceeded"
}
bucket()
{
	local orig
	orig=$(cat "$PARAM")
	# A small bucket, so that a flood would empty it at once.
	echo 10 >"$PARAM"
	flood inet 10.1.0.2 10.1.0.3 "$VIP4" "icmp 3/4"
	flood inet6 fd01::2 fd01::3 "$VIP6" "icmp6 2/0"
	echo "$orig" >"$PARAM"
	[ ${#NOTES[@]} != 0 ] ||
		pass "after a TTL-1 flood from one host another client still gets its too-big answer (v4, v6)"
}

# ---- 2. whose "too big" about an outer packet the LB believes
# quote FAM ARGS: icmp_cases.py forge ARGS from the router, to the LB.
quote() { local s=$RTR4; [ "$1" = 4 ] || s=$RTR6; shift; cases forge "$s" "$@" >/dev/null; sleep 0.3; }
pmtu_case()
{
	local what=$1 fam=$2 dst=$3 want=$4 flag=() got
	shift 4
	[ "$fam" = 4 ] || flag=(-6)
	forget
	quote "$fam" "$@"
	got=$(learnt "${flag[@]}" "$dst")
	echo "# IPv$fam $what: the path MTU to $dst: $got"
	[ "$got" = "$want" ] || note "IPv$fam $what: the path MTU to $dst is \"$got\", want \"$want\""
}
pmtu()
{
	local m
	pmtu_case "control: b2 quoted" 4 10.2.2.2 "mtu 1300" 10.2.2.1 10.2.2.1 10.2.2.2
	pmtu_case "control: b2 quoted" 6 fd02:2::2 "mtu 1300" fd02:2::1 fd02:2::1 fd02:2::2
	[ ${#NOTES[@]} = 0 ] || die "a quote of a backend's outer packet was not learnt: nothing else can be judged"
	pmtu_case "the router (not a backend) quoted" 4 "$RTR4" none 10.2.10.1 10.2.10.1 "$RTR4"
	pmtu_case "the router (not a backend) quoted" 6 "$RTR6" none fd02:10::1 fd02:10::1 "$RTR6"
	pmtu_case "a bad ICMP checksum" 4 10.2.2.2 none 10.2.2.1 10.2.2.1 10.2.2.2 --bad-csum
	pmtu_case "a bad ICMPv6 checksum" 6 fd02:2::2 none fd02:2::1 fd02:2::1 fd02:2::2 --bad-csum
	for m in 1 2 3; do
		lb sysctl -qw net.ipv4.ip_no_pmtu_disc=$m
		pmtu_case "ip_no_pmtu_disc $m" 4 10.2.2.2 none 10.2.2.1 10.2.2.1 10.2.2.2
	done
	lb sysctl -qw net.ipv4.ip_no_pmtu_disc=0
	forget
	[ ${#NOTES[@]} != 0 ] ||
		pass "outer path MTU only from a good checksum quoting a backend, never with ip_no_pmtu_disc 1-3"
}

# ---- 3. link-local sources
icmp_out()
{
	lb awk '
		$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) c[i] = $i; h = 1; next }
		$1 == "Icmp:" { for (i = 2; i <= NF; i++) if (c[i] ~ /^Out(DestUnreachs|TimeExcds)$/) v4 += $i }
		$1 ~ /^Icmp6Out(PktTooBigs|TimeExcds)$/ { v6 += $2 }
		END { print v4 + 0, v6 + 0 }' /proc/net/snmp /proc/net/snmp6
}
rx_of() { bk "$1" ip -j -s link show dev eth0 | jq '.[0].stats64.rx.packets'; }
linklocal()
{
	local fam src vip m0 o0 r0 d f
	for fam in inet inet6; do
		if [ $fam = inet ]; then src=169.254.7.7 vip=$VIP4; else src=fe80::7 vip=$VIP6; fi
		m0=$(tstat $fam tcp martians)
		o0=$(icmp_out)
		r0="$(rx_of 1) $(rx_of 2)"
		: >"$W/ll.$fam"
		for f in "" "--size 1500 --df" "--ttl 1"; do
			# shellcheck disable=SC2086
			rtr "$PY" "$LIBDIR/frames.py" --proto tcp $f --watch 0.5 rtr-lb "$LBMAC" "$src" "$vip" >>"$W/ll.$fam"
		done
		sleep 0.3
		! grep -q '^icmp' "$W/ll.$fam" || note "$fam: the LB answered $src: $(grep '^icmp' "$W/ll.$fam" | tr '\n' ';')"
		[ "$(icmp_out)" = "$o0" ] || note "$fam: the LB sent ICMP errors ($o0 before, $(icmp_out) after)"
		[ "$(rx_of 1) $(rx_of 2)" = "$r0" ] || note "$fam: a backend received something from $src"
		d=$(delta "$m0" "$(tstat $fam tcp martians)")
		[ "$d" = 3 ] || note "$fam: tunnel.martians counted $d of 3 from $src"
	done
	# The same three from a routable source are tunnelled (one) and
	# answered (two).
	r0="$(rx_of 1) $(rx_of 2)"
	o0=$(icmp_out)
	for f in "" "--size 1500 --df" "--ttl 1"; do
		# shellcheck disable=SC2086
		rtr "$PY" "$LIBDIR/frames.py" --proto tcp $f rtr-lb "$LBMAC" 10.1.0.7 "$VIP4" >/dev/null
	done
	sleep 0.3
	[ "$(rx_of 1) $(rx_of 2)" != "$r0" ] || note "control: 10.1.0.7's segment reached no backend"
	[ "$(icmp_out)" != "$o0" ] || note "control: 10.1.0.7 got no ICMP error"
	[ ${#NOTES[@]} != 0 ] ||
		pass "link-local sources (169.254.7.7, fe80::7): not tunnelled, not answered, counted"
}

# ---- 4. outer IDs of DF datagrams that leave fragmented
outer_ids()
{
	local pids=() i ids
	for i in 1 2; do
		bk "$i" "$PY" "$LIBDIR/outer_ids.py" eth0 "$W/oid.done" "$W/oid$i.ready" >"$W/oid$i" &
		pids+=($!)
	done
	ready_files '^oid.\.ready$' 2 600 || die "outer_ids.py did not start listening"
	cases frags 10.1.0.5 "$VIP4" --count 8 --sport 41002 >/dev/null
	rtr "$PY" "$LIBDIR/frames.py" --proto udp --df --sport 41003 --count 8 rtr-lb "$LBMAC" 10.1.0.5 "$VIP4" >/dev/null
	touch "$W/oid.done"
	wait "${pids[@]}"
	cat "$W"/oid[12] >"$W/oids"
	ids=$(awk '$3 == 41002 { print $1 }' "$W/oids" | sort -u | tr '\n' ' ')
	echo "# 8 DF datagrams in DF fragments, outer IDs: $ids"
	[ "$(awk '$3 == 41002' "$W/oids" | wc -l)" = 8 ] ||
		note "not 8 first outer fragments of sport 41002: $(awk '$3 == 41002' "$W/oids" | tr '\n' ,)"
	[ "$(awk '$3 == 41002 { print $1 }' "$W/oids" | sort -u | wc -l)" = 8 ] ||
		note "8 refragmented DF datagrams: not 8 distinct outer IDs: $ids"
	[ "$(awk '$3 == 41003 && $2 == 1 && $1 == 0' "$W/oids" | wc -l)" = 8 ] ||
		note "8 atomic DF datagrams: not 8 outer headers with DF and ID 0: $(awk '$3 == 41003' "$W/oids" | tr '\n' ,)"
	[ ${#NOTES[@]} != 0 ] ||
		pass "outer IDs: 8 distinct for refragmented DF datagrams, 0 for 8 atomic ones"
}

item 1 "ICMP answers after another host's TTL-1 flood" bucket
item 2 "outer path MTU from whom" pmtu
item 3 "link-local sources" linklocal
item 4 "outer IDs of refragmented DF datagrams" outer_ids

[ ${#FAILED[@]} = 0 ] || die "items failed: $(printf '%s; ' "${FAILED[@]}")"
pass "every item"
