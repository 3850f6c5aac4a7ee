#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The owner chain end to end (doc/fleet.md, "Owner chain"): an LB whose GUE
# tunnel service keeps chain 2, backends in the backend mode
# (ringsteer-backend up gue chain 2), the flow table off so that the ring
# decides every packet, as it does for the flows that come to an LB from
# another after an ECMP change. 20 held TCP connections (IPv4, then IPv6)
# send a numbered line every 0.2 s; then a backend joins:
#
#  - chain 2: not one connection breaks, no answer comes from another
#    backend, and the new owner forwarded the moved flows' packets to their
#    old owner (its forwarded counter > 0); `ringctl lookup` names each
#    moved flow's old owner as its hop, and no hop for the others;
#  - chain 1 (off, the negative control): exactly the flows `lookup`
#    says moved are reset, the others live.
#
# Also: save writes the chain and restore reproduces it (same fingerprint,
# same hops); the path MTU the LB answers counts the hops (4 + 4 bytes over
# IPv4, 4 + 16 over IPv6 for chain 2), the MSS advice of ringsteer-backend
# too, and a chain where it cannot be is refused.
#
#   cl-cli               cl-lb                             cl-b1 .. cl-b4
#  +--------------+     +------------------------------+     +---------------------+
#  | 10.1.0.10-29 |     | [fd00::100]:81, 10.0.0.100:81|     | fleet_conns serve   |
#  | fd01::10-29  +-----+ tcp (udp :80), forward tunnel+-----+ on the VIPs :81,    |
#  | fleet_conns  | veth| encap gue chain 2 (or 1);    | veth| up gue chain 2:     |
#  | run (20 TCP) |     | flow_table_entries 0; routes |  x4 | fou 6080, backend   |
#  +--------------+     | backends' forwarded packets  |     | mode port 6080      |
#                       +------------------------------+     +---------------------+

set -e
P=cl
. "$(dirname "$0")/lib/topo.sh"
need_tools jq
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
PARAMS=/sys/module/ringsteer/parameters
# topo_setup's servers hold port 80 (the MTU probes' UDP service): the
# held connections go to port 81, where fleet_conns.py answers.
BPORT=$VPORT
CPORT=81
NCONN=20
topo_setup 4
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo

ENTRIES0=$(cat "$PARAMS/flow_table_entries")
cleanup()
{
	topo_cleanup
	echo "$ENTRIES0" >"$PARAMS/flow_table_entries"
}
trap cleanup EXIT
# No table: the ring decides every packet (taken with the first tunnel service).
echo 0 >"$PARAMS/flow_table_entries"

for i in 1 2 3 4; do
	bk "$i" env RINGCTL="$RINGCTL" bash "$BACKEND" up --state "$W/st$i" gue port 6080 chain 2 \
		"$VIP4" "$VIP6" >"$W/up$i.log" || die "ringsteer-backend up gue chain 2 on b$i"
	[ "$(bk "$i" "$RINGCTL" -j backend-mode | jq -c '[.on, .port]')" = '[true,6080]' ] ||
		die "b$i: backend mode not on port 6080: $(bk "$i" "$RINGCTL" -j backend-mode)"
done
# On the VIPs, which "up" put on lo.
for i in 1 2 3 4; do
	bk "$i" "$PY" "$LIBDIR/fleet_conns.py" serve "b$i" "$CPORT" "$W/fc$i.ready" "$VIP4" "$VIP6" &
	SERVERS+=($!)
done
ready_files '^fc.\.ready$' 4 300 || die "backend servers did not start"
# GUE's 12 bytes, and the chain's 8 (IPv4) or 20 (IPv6).
grep -q 'IPv4 over gue chain 2: tunnel MTU 1460, advertise MSS 1420' "$W/up1.log" ||
	die "MSS advice for chain 2: $(cat "$W/up1.log")"
grep -q 'IPv6 over gue chain 2: tunnel MTU 1428, advertise MSS 1368' "$W/up1.log" ||
	die "IPv6 MSS advice for chain 2: $(cat "$W/up1.log")"
pass "ringsteer-backend up gue chain 2: backend mode on, MSS advice 1420 (IPv4), 1368 (IPv6)"

for i in $(seq 10 $((9 + NCONN))); do
	cli ip addr add "10.1.0.$i/24" dev cli0
	cli ip addr add "fd01::$i/64" dev cli0 nodad
done

# ---- refusals: where the hops cannot travel. ringctl refuses chain
# without encap gue itself: the kernel's answers are asked raw (rsnl.py).
cmd_ok rctl key set "$KEY"
# knl ERRNO TEXT CMD ATTR...: the kernel refuses with ERRNO and TEXT.
knl()
{
	local want=$1 text=$2 out
	shift 2
	out=$(lb "$PY" "$LIBDIR/rsnl.py" "$@") && die "kernel accepted: $*"
	case $out in
	"$want "*"$text"*) ;;
	*) die "$*: '$out', expected $want '$text'" ;;
	esac
}
TUN="service.forward=u32:1 service.encap=u32:1"
knl EINVAL 'chain applies to forward tunnel with encap gue' SERVICE_NEW svc="$SVC4/tcp" service.chain=u32:2
knl EINVAL 'chain applies to forward tunnel with encap gue' SERVICE_NEW svc="$SVC4/tcp" \
	service.forward=u32:1 service.encap=u32:0 service.chain=u32:2
knl ENOTSUP 'chain applies to placement ring' SERVICE_NEW svc="$SVC4/tcp" $TUN \
	service.placement=u32:1 service.chain=u32:2
knl ERANGE '' SERVICE_NEW svc="$SVC4/tcp" $TUN service.chain=u32:5
knl ERANGE '' SERVICE_NEW svc="$SVC4/tcp" $TUN service.chain=u32:0
knl EINVAL 'service-set only' SERVICE_NEW svc="$SVC4/tcp" $TUN service.chain=u32:2 \
	service.kept-rings=u32:0 service.kept=hex:
cmd_fail rctl service add "$SVC4" forward tunnel encap ipip chain 2
cmd_fail rctl service add "$SVC4" forward tunnel encap gue chain 5
cmd_ok rctl service add "$SVC4" forward tunnel encap gue chain 2
knl EINVAL 'chain applies to forward tunnel with encap gue' SERVICE_SET svc="$SVC4/tcp" service.encap=u32:0
knl EINVAL 'kept-rings' SERVICE_SET svc="$SVC4/tcp" service.kept-rings=u32:2 service.kept=hex:
knl EINVAL 'kept needs kept-rings' SERVICE_SET svc="$SVC4/tcp" service.kept=hex:
# A record of a backend the current ring lacks, weight 0.
knl EINVAL 'weight 0' SERVICE_SET svc="$SVC4/tcp" service.kept-rings=u32:1 \
	service.kept=hex:0002005000000000$(printf '%02x%02x%02x%02x' 10 2 9 2)000000000000000000000000
cmd_ok lb "$PY" "$LIBDIR/rsnl.py" SERVICE_SET svc="$SVC4/tcp" service.kept-rings=u32:1 service.kept=hex:
[ "$(rctl -j show | jq '.services[0].chain')" = 2 ] || die "show -j: no chain 2: $(rctl -j show)"
rctl save | grep -q "^service $SVC4 .*encap gue .*chain 2" || die "save: no chain 2: $(rctl save)"
cmd_ok rctl service set "$SVC4" encap gue chain 1
[ "$(rctl -j show | jq '.services[0].chain')" = 1 ] || die "show -j after chain 1: $(rctl -j show)"
rctl save | grep -q "chain" && die "save writes chain 1: $(rctl save)"
cmd_ok rctl flush
pass "chain refused on NAT, ipip, slots (EINVAL, EOPNOTSUPP), 0 and 5 (ERANGE), kept rings on a new service or past chain - 1; shown and saved; chain 1 writes nothing"

# ---- path MTU: the LB's answers count the most hops a packet carries
cmd_ok rctl service add "$SVC4" proto udp forward tunnel encap gue chain 2
cmd_ok rctl service add "$SVC6" proto udp forward tunnel encap gue chain 2
cmd_ok rctl backend add "$SVC4" 10.2.1.2:80 proto udp
cmd_ok rctl backend add "$SVC6" "[fd02:1::2]:80" proto udp
mtu_is()
{
	local vip=$1 want=$2 got
	cli ip route flush cache
	cli ip -6 route flush cache
	got=$(cli "$PY" "$LIBDIR/pmtu_probe.py" "$vip" 80)
	[ "$got" = "$want" ] || die "$vip: the client learnt MTU $got, expected $want"
}
mtu_is "$VIP4" 1460
mtu_is "$VIP6" 1428
cmd_ok rctl service set "$SVC4" proto udp encap gue chain 4
cmd_ok rctl service set "$SVC6" proto udp encap gue chain 4
mtu_is "$VIP4" 1452
mtu_is "$VIP6" 1396
cmd_ok rctl service set "$SVC4" proto udp encap gue chain 1
mtu_is "$VIP4" 1468
cmd_ok rctl flush
pass "path MTU answered: chain 2 1460 (IPv4) 1428 (IPv6), chain 4 1452 1396, chain 1 GUE's 1468"

# forwarded: the backends' forwarded counters, summed.
forwarded()
{
	local i n=0
	for i in 1 2 3 4; do
		n=$((n + $(bk "$i" "$RINGCTL" -j backend-mode | jq .counters.forwarded)))
	done
	echo "$n"
}

# bracket ADDR:PORT: as ringctl reads it, [v6]:port.
bracket()
{
	case $1 in
	*:*:*) echo "[${1%:*}]:${1##*:}" ;;
	*) echo "$1" ;;
	esac
}

# owners SVC IN OUT: "SRC:SPORT BACKEND [hops H]" for each flow of IN.
owners()
{
	rctl lookup "$1" batch "$2" >"$3" || die "lookup $1 batch"
	[ "$(wc -l <"$3")" = "$(wc -l <"$2")" ] || die "lookup: $(wc -l <"$2") in, $(wc -l <"$3") out"
}

# check_restore SVC TAG B4: save writes the chain (one kept ring, which
# lacks B4), fingerprint file agrees with the kernel, and restore into an
# empty namespace reproduces the same fingerprint and the same hops.
check_restore()
{
	local svc=$1 tag=$2 b4=$3 fp fp2
	rctl save >"$W/$tag.conf"
	grep -qx $'\tkept 1' "$W/$tag.conf" || die "save: no 'kept 1': $(cat "$W/$tag.conf")"
	grep -qxF $'\tkept 0 '"$b4"' weight 0' "$W/$tag.conf" ||
		die "save: no kept record for $b4: $(cat "$W/$tag.conf")"
	fp=$(rctl fingerprint | awk '{ print $3 }')
	[ "$(rctl fingerprint file "$W/$tag.conf" | awk '{ print $3 }')" = "$fp" ] ||
		die "fingerprint file differs from the kernel's $fp: $(rctl fingerprint file "$W/$tag.conf")"
	cmd_ok rctl flush
	cmd_ok rctl restore "$W/$tag.conf"
	fp2=$(rctl fingerprint | awk '{ print $3 }')
	[ "$fp2" = "$fp" ] || die "restored chain's fingerprint $fp2, saved $fp"
	owners "$svc" "$W/$tag.flows" "$W/$tag.restored"
	cmp -s "$W/$tag.after" "$W/$tag.restored" ||
		die "restored hops differ: $(diff "$W/$tag.after" "$W/$tag.restored")"
	rctl save | diff -q - "$W/$tag.conf" >/dev/null || die "save after restore differs"
	pass "save writes the chain (kept 1, $b4 not on it); fingerprint file agrees; restore reproduces fingerprint $fp and every hop"
}

# run_case CHAIN 4|6: the service, 20 held connections, a backend joins.
run_case()
{
	local k=$1 f=$2 svc vip src be i ok moved resets fwd0 fwd1 tag=c$1v$2
	if [ "$f" = 4 ]; then
		svc=$VIP4:$CPORT vip=$VIP4 src=10.1.0.
		be() { echo "10.2.$1.2:$CPORT"; }
	else
		svc=[$VIP6]:$CPORT vip=$VIP6 src=fd01::
		be() { echo "[fd02:$1::2]:$CPORT"; }
	fi
	cmd_ok rctl flush
	cmd_ok rctl service add "$svc" forward tunnel encap gue chain "$k"
	for i in 1 2 3; do
		cmd_ok rctl backend add "$svc" "$(be "$i")"
	done
	# Not through cli(): $! must be the client itself (ip netns exec execs
	# it), which writes its report on SIGTERM.
	ip netns exec "$P-cli" "$PY" "$LIBDIR/fleet_conns.py" run --interval 0.2 \
		"$W/$tag.ready" "$W/$tag.report" \
		"$vip" "$CPORT" $(seq -f "$src%g" 10 $((9 + NCONN))) 2>"$W/$tag.err" &
	local runner=$!
	SERVERS+=($runner)
	ready_files "^$tag\\.ready\$" 1 600 || die "chain $k IPv$f: connections not up: $(cat "$W/$tag.err")"
	awk '{ print $2 }' "$W/$tag.ready" | while read -r a; do bracket "$a"; done >"$W/$tag.flows"
	owners "$svc" "$W/$tag.flows" "$W/$tag.before"
	fwd0=$(forwarded)

	cmd_ok rctl backend add "$svc" "$(be 4)"
	owners "$svc" "$W/$tag.flows" "$W/$tag.after"
	# Moved: another backend now; with chain 2 the hop is the old owner.
	# Before the join the chain holds the rings of b2's and b3's adds:
	# only the owners count there.
	cut -d' ' -f1,2 "$W/$tag.before" | paste -d' ' - "$W/$tag.after" | awk -v k="$k" '
		{ old = $2; sub(/:[0-9]+$/, "", old); gsub(/[][]/, "", old) }
		$2 != $4 { print $1; if (k > 1 && ($5 != "hops" || $6 != old || NF != 6)) bad = 1 }
		$2 == $4 && NF > 4 { bad = 1 }
		k == 1 && NF > 4 { bad = 1 }
		END { exit bad }' >"$W/$tag.moved" ||
		die "chain $k IPv$f: lookup's hops are not the old owners: $(paste -d' ' "$W/$tag.before" "$W/$tag.after")"
	moved=$(wc -l <"$W/$tag.moved")
	[ "$moved" -gt 0 ] || die "chain $k IPv$f: no flow moved to b4: the case tells nothing"
	sleep 4
	kill -TERM "$runner"
	wait "$runner" || true
	fwd1=$(forwarded)
	[ -s "$W/$tag.report" ] || die "chain $k IPv$f: no report"
	grep ' reset=1 ' "$W/$tag.report" | awk '{ print $2 }' |
		while read -r a; do bracket "$a"; done | sort >"$W/$tag.resets"
	resets=$(wc -l <"$W/$tag.resets")
	if [ "$k" -gt 1 ]; then
		[ "$resets" = 0 ] || die "chain $k IPv$f: $resets of $NCONN connections reset: $(cat "$W/$tag.report")"
		! grep -q ' moved=1 ' "$W/$tag.report" ||
			die "chain $k IPv$f: answers from another backend: $(grep ' moved=1 ' "$W/$tag.report")"
		[ "$fwd1" -gt "$fwd0" ] || die "chain $k IPv$f: the backends forwarded nothing ($fwd0 -> $fwd1)"
		pass "chain $k IPv$f: b4 joined, $moved of $NCONN flows moved, none broken; $((fwd1 - fwd0)) packets forwarded to their old owners"
		check_restore "$svc" "$tag" "$(be 4)"
	else
		sort "$W/$tag.moved" | cmp -s - "$W/$tag.resets" ||
			die "chain $k IPv$f: reset flows are not the moved ones: moved $(sort "$W/$tag.moved" | tr '\n' ' '), reset $(tr '\n' ' ' <"$W/$tag.resets")"
		pass "chain $k IPv$f (off): exactly the $moved moved flows of $NCONN reset"
	fi
}

run_case 2 4
run_case 1 4
run_case 2 6
run_case 1 6
