#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ringsteer next to docker-style NAT in the same namespace: iptables-nft
# (a DOCKER chain DNATing a published port on every local address to a
# "container", MASQUERADE for the container's own connections, FORWARD
# policy drop with DOCKER-USER exceptions) and a native nft dnat rule for a
# second published port. Traffic runs through all of it while ringsteer's
# service changes and while the module is unloaded; docker's NAT keeps
# working after rmmod.
#
#   dk-cli               dk-lb                                  dk-b1, dk-b2
#  +------------+      +-----------------------------------+     +-----------+
#  | 10.1.0.2   +------+ ringsteer 10.0.0.100:80 -> b1 b2  +-----+ 10.2.N.2  |
#  | rs_server  |      | iptables-nft nat DOCKER:          |     | :8080 bN  |
#  |  "cli"     |      |   local:8081 -> 10.2.3.2:8080     |     +-----------+
#  | :8080      |      | nft: local:8082 -> 10.2.3.2:8080  |      dk-b3
#  |            |      | MASQUERADE 10.2.3.0/24 ! -o lb-b3 +-----+-----------+
#  |            |      | filter FORWARD drop + DOCKER-USER |     | container |
#  +------------+      +-----------------------------------+     | :8080 "b3"|
#                                                                +-----------+

set -e
P=dk
. "$(dirname "$0")/lib/topo.sh"
need_tools nft iptables conntrack
topo_setup 3
cli "$PY" "$LIBDIR/rs_server.py" cli "$BPORT" "$W/cli.ready" &
SERVERS+=($!)
for i in $(seq 1 100); do [ -e "$W/cli.ready" ] && break; sleep 0.1; done
# The client cannot answer the container's subnet: only masquerading (to
# the LB's 10.1.0.1) gets the container's connections an answer.
cli ip route add unreachable 10.2.3.0/24

ipt() { lb iptables "$@"; }
ipt -t nat -N DOCKER
ipt -t nat -A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
ipt -t nat -A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER
ipt -t nat -A POSTROUTING -s 10.2.3.0/24 ! -o lb-b3 -j MASQUERADE
ipt -t nat -A DOCKER -i lb-b3 -j RETURN
ipt -t nat -A DOCKER ! -i lb-b3 -p tcp --dport 8081 -j DNAT --to-destination 10.2.3.2:8080
ipt -N DOCKER
ipt -N DOCKER-USER
ipt -P FORWARD DROP
ipt -A FORWARD -j DOCKER-USER
ipt -A FORWARD -o lb-b3 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
ipt -A FORWARD -o lb-b3 -j DOCKER
ipt -A FORWARD -i lb-b3 -j ACCEPT
ipt -A DOCKER -d 10.2.3.2/32 ! -i lb-b3 -o lb-b3 -p tcp --dport 8080 -j ACCEPT
# What an admin adds so that the load balancer's own forwarding works.
ipt -A DOCKER-USER -o lb-b1 -j ACCEPT
ipt -A DOCKER-USER -o lb-b2 -j ACCEPT
ipt -A DOCKER-USER -i lb-b1 -j ACCEPT
ipt -A DOCKER-USER -i lb-b2 -j ACCEPT
ipt -A DOCKER-USER -j RETURN
# The LB's own addresses by name, not "fib daddr type local": the debug
# kernel has no nft fib expression, and what meets ringsteer is the DNAT.
lb nft -f - <<-EOF2
table ip published {
	chain pre {
		type nat hook prerouting priority dstnat;
		ip daddr { $VIP4, 10.1.0.1 } tcp dport 8082 dnat to 10.2.3.2:8080
	}
}
EOF2

cmd_ok rctl service add "$SVC4"
cmd_ok rctl backend add "$SVC4" "$(be4 1)"
cmd_ok rctl backend add "$SVC4" "$(be4 2)"

FLOWS=30000-30031
CPORT=33000
# check WHAT: VIP flows reach b1/b2 as lookup says, both published ports
# reach the container, the container's own connection out is masqueraded.
check()
{
	lookup "$FLOWS" >"$W/want"
	traffic "$FLOWS" >"$W/vip"
	expect_same "$W/vip" "$W/want" "$1: VIP flows vs lookup"
	for port in 8081 8082; do
		traffic -p $port "$FLOWS" >"$W/pub"
		[ "$(counts "$W/pub")" = "b3 32" ] || die "$1: published port $port: $(counts "$W/pub" | tr '\n' ' ')"
	done
	CPORT=$((CPORT + 10))
	bk 3 "$PY" "$LIBDIR/rs_client.py" 10.2.3.2 10.1.0.2 "$BPORT" $CPORT-$((CPORT + 3)) >"$W/out"
	[ "$(counts "$W/out")" = "cli 4" ] || die "$1: container to the client (masqueraded): $(cat "$W/out" | tr '\n' ' ')"
	pass "$1: VIP -> $(counts "$W/vip" | tr '\n' ' ')| :8081, :8082 -> container | container out masqueraded"
}
check "at rest"

# Background: VIP and published-port flows, counted per round.
background()
{
	local port=$1
	while :; do
		traffic -t 2 -p "$port" 31000-31015
	done >>"$W/bg.$port" 2>/dev/null
}
background 80 &
BG80=$!
background 8081 &
BG81=$!
background 8082 &
BG82=$!
sleep 2
for i in $(seq 1 4); do
	cmd_ok rctl backend set "$SVC4" "$(be4 1)" weight $((i % 3 + 1))
	cmd_ok rctl backend drain "$SVC4" "$(be4 2)"
	cmd_ok rctl backend activate "$SVC4" "$(be4 2)"
	cmd_ok rctl backend del "$SVC4" "$(be4 2)"
	cmd_ok rctl backend add "$SVC4" "$(be4 2)"
	cmd_ok rctl service set "$SVC4" vnodes $((64 << (i % 3)))
done
sleep 1
check "after changes under load"

sleep 1
cmd_ok rmmod ringsteer
sleep 3
kill "$BG80" "$BG81" "$BG82"
wait "$BG80" "$BG81" "$BG82" 2>/dev/null || true
for port in 8081 8082; do
	bad=$(awk '$2 != "b3"' "$W/bg.$port" | wc -l)
	echo "published :$port under load: $(counts "$W/bg.$port" | tr '\n' ' ')"
	[ "$bad" = 0 ] || die "published port $port: $bad flows under load did not reach the container"
done
grep -q ' b[12]$' "$W/bg.80" || die "no VIP flow reached a backend under load"
! grep -Eq ' (b3|cli)$' "$W/bg.80" || die "a VIP flow reached the container or the client"
pass "under load, changes and rmmod: published ports always reached the container"

# After rmmod: docker's NAT alone.
for port in 8081 8082; do
	traffic -p $port "$FLOWS" >"$W/pub"
	[ "$(counts "$W/pub")" = "b3 32" ] || die "after rmmod, published port $port: $(counts "$W/pub" | tr '\n' ' ')"
done
bk 3 "$PY" "$LIBDIR/rs_client.py" 10.2.3.2 10.1.0.2 "$BPORT" 33100-33103 >"$W/out"
[ "$(counts "$W/out")" = "cli 4" ] || die "after rmmod, container to the client (masqueraded): $(cat "$W/out" | tr '\n' ' ')"
traffic -t 2 "$FLOWS" >"$W/vip" 2>/dev/null
! grep -q ' b[12]$' "$W/vip" || die "after rmmod, VIP flows still reach backends"
pass "after rmmod: published ports and masquerade work, the VIP is steered no more"
