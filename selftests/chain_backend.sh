#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The owner chain's backend mode (doc/fleet.md, "Owner chain"): GUE packets
# with hops, made by hand (lib/chain_gue.py) as a load balancer would send
# them, to a backend running the mode with a real TCP server, IPv4 and
# IPv6 outer and inner. Each packet must move exactly one counter of
# `ringctl backend-mode` by one, and nothing else:
#
#  - a SYN is accepted, and reaches the stack (a SYN_RECV socket appears;
#    an ACK for it is then accepted by its socket);
#  - a packet of an established connection is accepted;
#  - a connected UDP socket's datagram is accepted;
#  - a packet no socket claims goes to the next hop: cb-b2 receives it from
#    b1's address, its bytes those sent but the next hop index one further
#    (the UDP checksum right, or cb-b2's socket would not get it);
#  - no hop left: accepted, or dropped with last-resort drop;
#  - malformed chains, a hop count above max-hops, hops that are b1 itself,
#    a broadcast, multicast or local address, TTL 1: dropped, counted, and
#    cb-b2 receives nothing;
#  - GUE without hops, an inner packet to an address b1 does not own:
#    passed on untouched.
#
#   cb-cli                  cb-b1                            cb-b2
#  +---------------+      +-------------------------------+      +-------------+
#  | eth0 10.2.1.2 +------+ b1-cli 10.2.1.1 fd02:1::1     |      | eth0        |
#  | fd02:1::2     | veth | b1-b2  10.2.2.1 fd02:2::1     +------+ 10.2.2.2    |
#  | sends GUE to  |      | VIPs on lo, fou 6080 (up gue),|      | fd02:2::2   |
#  | b1:6080; a    |      | backend-mode port 6080;       |      | UDP :6080   |
#  | real client   |      | rs_server :80, connected UDP  |      | records all |
#  +---------------+      +-------------------------------+      +-------------+

set -e
P=cb
. "$(dirname "$0")/lib/topo.sh"
need_tools jq ss
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
GUE=("$PY" "$LIBDIR/chain_gue.py")
topo_init
newns "$P-cli"
newns "$P-b1"
newns "$P-b2"
link "$P-b1" b1-cli "$P-cli" eth0 1
link "$P-b1" b1-b2 "$P-b2" eth0 2
# b1 answers clients (10.9.0.0/24, fd09::/64, the sender) through cb-cli.
bk 1 ip route add default via 10.2.1.2
bk 1 ip -6 route add default via fd02:1::2
# A directed broadcast of b1's link to b2, as a /24 with brd + has.
bk 1 ip route replace broadcast 10.2.2.255 dev b1-b2 table local proto kernel scope link src 10.2.2.1

bk 1 "$PY" "$LIBDIR/rs_server.py" b1 80 "$W/b1.ready" &
SERVERS+=($!)
ready_files '^b1\.ready$' 1 300 || die "b1's server did not start"
bk 1 bash "$BACKEND" up --state "$W/st" gue port 6080 "$VIP4" "$VIP6" >"$W/up.log" ||
	die "ringsteer-backend up gue on b1"
b1ctl() { bk 1 "$RINGCTL" "$@"; }
cmd_ok b1ctl backend-mode set port 6080
[ "$(b1ctl -j backend-mode | jq -c '[.on, .port, .last_resort, .max_hops]')" = '[true,6080,"accept",3]' ] ||
	die "backend-mode show: $(b1ctl -j backend-mode)"
pass "backend mode on: port 6080, last-resort accept, max-hops 3"

bk 2 "${GUE[@]}" listen 10.2.2.2,fd02:2::2 6080 3600 >"$W/b2.log" &
SERVERS+=($!)
for _ in $(seq 1 100); do grep -q listening "$W/b2.log" && break; sleep 0.1; done
grep -q listening "$W/b2.log" || die "b2's recorder did not start"
received() { grep -vc listening "$W/b2.log" || true; }
# Failures that let the other cases run first; the script fails at its end.
LATE=()

counters() { b1ctl -j backend-mode | jq -c .counters; }

# moved BEFORE AFTER: the counters that changed, "name+delta" each.
moved()
{
	jq -rn --argjson a "$1" --argjson b "$2" \
		'[$b | to_entries[] | select(.value != $a[.key]) | "\(.key)+\(.value - $a[.key])"] | join(" ")'
}

# expect NAME ARGS...: one packet (chain_gue.py send ARGS) moves counter
# NAME by one and no other; b2 receives a packet only for "forwarded".
# The packet sent is in $W/sent.
expect()
{
	local name=$1 before after got want
	shift
	before=$(counters)
	want=$(received)
	[ "$name" != forwarded ] || want=$((want + 1))
	cli "${GUE[@]}" send "$@" >"$W/sent" || die "chain_gue.py send $*"
	for _ in $(seq 1 50); do
		after=$(counters)
		[ "$after" = "$before" ] || break
		sleep 0.1
	done
	sleep 0.2
	after=$(counters)
	got=$(moved "$before" "$after")
	[ "$got" = "$name+1" ] || die "send $*: counters moved '$got', expected '$name+1'"
	for _ in $(seq 1 50); do
		[ "$(received)" -lt "$want" ] || break
		sleep 0.1
	done
	[ "$(received)" = "$want" ] || die "send $*: b2 has $(received) packets, expected $want"
	echo "ok: $name <- $*"
}

# last_forward SRC: b2's last packet came from SRC, with the bytes sent
# but for the next hop index (byte 6), one further.
last_forward()
{
	local src hex sent next
	read -r src hex <<<"$(tail -n 1 "$W/b2.log")"
	sent=$(cat "$W/sent")
	[ "$src" = "$1" ] || die "forwarded from $src, expected $1"
	next=$(printf '%02x' $((16#${sent:12:2} + 1)))
	[ "$hex" = "${sent:0:12}$next${sent:14}" ] ||
		die "forwarded bytes differ: sent $sent, got $hex"
}

# run_family 4|6: every case, with that family's addresses.
run_family()
{
	local f=$1 dst hop vip cli b1b2 mcast loop any vip2 port
	if [ "$f" = 4 ]; then
		dst=10.2.1.1 hop=10.2.2.2 vip=$VIP4 cli=10.9.0.1 b1b2=10.2.2.1
		mcast=224.0.0.1 loop=127.0.0.1 any=0.0.0.0 vip2=10.0.0.200
		ep() { echo "$1:$2"; }
	else
		dst=fd02:1::1 hop=fd02:2::2 vip=$VIP6 cli=fd09::1 b1b2=fd02:2::1
		mcast=ff02::1 loop=::1 any=:: vip2=fd00::200
		ep() { echo "[$1]:$2"; }
	fi
	local c v
	v=$(ep "$vip" 80)

	# A SYN starts here; its SYN_RECV socket then claims the ACK.
	c=$(ep "$cli" 40001)
	expect accepted-syn "$dst" 6080 "$c" "$v" --hops "$hop" --tcp syn
	# The dual-stack listener's IPv4 peers show as [::ffff:A]:P.
	bk 1 ss -Htn state syn-recv | sed -E 's/\[::ffff:([0-9.]+)\]/\1/g' |
		grep -qF " $(ep "$cli" 40001)" || {
		bk 1 ss -tan >&2
		bk 1 nstat -asz >&2
		bk 1 ip -s link show >&2
		bk 1 sysctl net.ipv4.conf.all.rp_filter net.ipv4.conf.tunl0.rp_filter >&2
		LATE+=("IPv$f: the accepted SYN made no SYN_RECV socket")
	}
	expect accepted-socket "$dst" 6080 "$c" "$v" --hops "$hop" --tcp ack
	pass "IPv$f: a SYN is accepted and reaches the stack; its SYN_RECV socket claims the ACK"

	# A real connection from cb-cli, then a segment of it through GUE.
	cli "$PY" -c '
import socket, sys, time
s = socket.create_connection((sys.argv[1], 80))
print(s.getsockname()[1], flush=True)
time.sleep(3600)' "$vip" >"$W/conn$f" &
	SERVERS+=($!)
	for _ in $(seq 1 100); do [ -s "$W/conn$f" ] && break; sleep 0.1; done
	port=$(cat "$W/conn$f")
	[ -n "$port" ] || die "IPv$f: the client did not connect"
	if [ "$f" = 4 ]; then c=$(ep 10.2.1.2 "$port"); else c=$(ep fd02:1::2 "$port"); fi
	expect accepted-socket "$dst" 6080 "$c" "$v" --hops "$hop" --tcp ack
	pass "IPv$f: a segment of an established connection is accepted"

	# A connected UDP socket claims its flow's datagrams, not others'.
	bk 1 "$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 5353))
s.connect((sys.argv[2], 40007))
open(sys.argv[3], "w").close()
time.sleep(3600)' "$vip" "$cli" "$W/udp$f.ready" &
	SERVERS+=($!)
	ready_files "^udp$f\\.ready\$" 1 100 || die "IPv$f: no connected UDP socket"
	expect accepted-socket "$dst" 6080 "$(ep "$cli" 40007)" "$(ep "$vip" 5353)" --hops "$hop" --udp
	expect forwarded "$dst" 6080 "$(ep "$cli" 40008)" "$(ep "$vip" 5353)" --hops "$hop" --udp
	last_forward "$dst"
	pass "IPv$f: a connected UDP socket's datagram is accepted, another flow's forwarded"

	# No socket: on to the next hop, from the index the packet says.
	expect forwarded "$dst" 6080 "$(ep "$cli" 40002)" "$v" --hops "$hop" --tcp ack
	last_forward "$dst"
	expect forwarded "$dst" 6080 "$(ep "$cli" 40002)" "$v" --hops "$mcast,$hop" --next 1 --tcp ack
	last_forward "$dst"
	pass "IPv$f: a packet without a socket goes to its next hop, index advanced, checksum right"

	# No hop left.
	expect last-resort-accepts "$dst" 6080 "$(ep "$cli" 40003)" "$v" --hops "$hop" --next 1
	expect last-resort-accepts "$dst" 6080 "$(ep "$cli" 40003)" "$v"
	cmd_ok b1ctl backend-mode set port 6080 last-resort drop
	expect last-resort-drops "$dst" 6080 "$(ep "$cli" 40003)" "$v" --hops "$hop" --next 1
	cmd_ok b1ctl backend-mode set port 6080 last-resort accept
	pass "IPv$f: no hop left: accepted, or dropped with last-resort drop"

	# Never forwarded on.
	c=$(ep "$cli" 40004)
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --mangle 2=0x80
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --type $((f == 4))
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --type 7
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --count 2
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --next 2
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --mangle 1=6
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --truncate 2
	expect malformed "$dst" 6080 "$c" "$v" --hops "$hop" --mangle 0=31
	expect hop-count "$dst" 6080 "$c" "$v" --hops "$hop,$hop,$hop,$hop"
	expect hop-self "$dst" 6080 "$c" "$v" --hops "$dst"
	expect hop-multicast "$dst" 6080 "$c" "$v" --hops "$mcast"
	expect hop-local "$dst" 6080 "$c" "$v" --hops "$loop"
	expect hop-local "$dst" 6080 "$c" "$v" --hops "$any"
	expect hop-local "$dst" 6080 "$c" "$v" --hops "$b1b2"
	if [ "$f" = 4 ]; then
		expect hop-broadcast "$dst" 6080 "$c" "$v" --hops 255.255.255.255
		expect hop-broadcast "$dst" 6080 "$c" "$v" --hops 10.2.2.255
		expect hop-local "$dst" 6080 "$c" "$v" --hops 169.254.1.1
	else
		expect hop-local "$dst" 6080 "$c" "$v" --hops fe80::1
		expect hop-local "$dst" 6080 "$c" "$v" --hops ::ffff:10.2.2.2
	fi
	expect ttl-exceeded "$dst" 6080 "$c" "$v" --hops "$hop" --ttl 1
	pass "IPv$f: malformed chains and bad hops dropped and counted, never forwarded"

	# Not the mode's to judge.
	expect passed "$dst" 6080 "$c" "$v" --plain
	expect passed "$dst" 6080 "$c" "$(ep "$vip2" 80)" --hops "$hop"
	pass "IPv$f: GUE without hops and an inner packet for another host passed on"
}

run_family 4
run_family 6

# max-hops: four hops pass once it allows four.
cmd_ok b1ctl backend-mode set port 6080 max-hops 4
expect forwarded 10.2.1.1 6080 10.9.0.1:40005 "$VIP4:80" --hops 10.2.2.2,10.2.2.2,10.2.2.2,10.2.2.2
last_forward 10.2.1.1
pass "max-hops 4 takes four hops"

# Off: the hooks go, packets with hops reach fou untouched.
cmd_ok b1ctl backend-mode off
[ "$(b1ctl -j backend-mode | jq .on)" = false ] || die "backend-mode still on after off"
cmd_fail b1ctl backend-mode off
n0=$(received)
cli "${GUE[@]}" send 10.2.1.1 6080 10.9.0.1:40006 "$VIP4:80" --hops 10.2.2.2 >/dev/null
sleep 0.5
[ "$(received)" = "$n0" ] || die "a packet was forwarded with the mode off"
pass "backend-mode off: nothing judged or forwarded; off again is an error"
[ ${#LATE[@]} = 0 ] || die "${LATE[*]}"
