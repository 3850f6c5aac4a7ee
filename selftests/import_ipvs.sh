#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ringctl import ipvsadm against real IPVS: IPVS is configured with
# ipvsadm in a namespace of its own (NAT and tunnel, IPv4 and IPv6,
# weights, a weight 0, persistence), its `ipvsadm-save -n` is imported and
# restored into ringsteer in the LB's namespace, and traffic through the
# LB reaches the backends IPVS has, with IPVS's weights; a direct routing
# server makes the import fail naming its line (and --lenient leave it out).
#
#   im-ipvs: ipvsadm only (no links; the rules are what is imported)
#
#   im-cli                im-lb                                im-b1 .. im-b3
#  +------------+       +-----------------------------------+      +----------------------+
#  | 10.1.0.2   |       | 10.0.0.100:80 tcp  nat  wrr 1:3:0 |      | 10.2.N.2  fd02:N::2  |
#  | fd01::2    +-------+ [fd00::100]:80 udp nat  sh -p     +------+ :8080 tcp+udp says bN|
#  | default    | veth  | 10.0.0.101:8080 tcp ipip mh 1:2:1 | veth | ringsteer-backend:   |
#  | via the LB |       | 10.0.0.101:8080 udp gue rr (b1,b3)|  x3  | ipip, ip6ip6, gue    |
#  +------------+       | [fd00::101]:8080 tcp ip6ip6 wlc   |      | 6080, .101 on lo     |
#                       | (.100 local; .101 not: the        |      +----------------------+
#                       |  backends answer clients directly)|
#                       +-----------------------------------+

set -e
P=im
. "$(dirname "$0")/lib/topo.sh"
need_tools ipvsadm ipvsadm-save jq
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
VIPT4=10.0.0.101
VIPT6=fd00::101
TPORT=8080
topo_setup 3
ipvs() { ip netns exec "$P-ipvs" "$@"; }
newns "$P-ipvs"
modprobe ip_vs || die "modprobe ip_vs"

for i in 1 2 3; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIPT4" "$VIPT6" >"$W/up$i.log" ||
		die "ringsteer-backend up ipip on b$i"
	bk "$i" bash "$BACKEND" up --state "$W/st$i" gue port 6080 "$VIPT4" >>"$W/up$i.log" ||
		die "ringsteer-backend up gue on b$i"
done

# ---- IPVS, configured as an operator would
cat >"$W/ipvs.rules" <<EOF
-A -t $VIP4:80 -s wrr
-a -t $VIP4:80 -r 10.2.1.2:8080 -m -w 1
-a -t $VIP4:80 -r 10.2.2.2:8080 -m -w 3
-a -t $VIP4:80 -r 10.2.3.2:8080 -m -w 0
-A -u [$VIP6]:80 -s sh -p 300
-a -u [$VIP6]:80 -r [fd02:1::2]:8080 -m -w 2
-a -u [$VIP6]:80 -r [fd02:2::2]:8080 -m -w 1
-A -t $VIPT4:$TPORT -s mh -b mh-port
-a -t $VIPT4:$TPORT -r 10.2.1.2 -i -w 1
-a -t $VIPT4:$TPORT -r 10.2.2.2 -i -w 2
-a -t $VIPT4:$TPORT -r 10.2.3.2 -i -w 1
-A -u $VIPT4:$TPORT -s rr
-a -u $VIPT4:$TPORT -r 10.2.1.2 -i --tun-type gue --tun-port 6080 -w 1
-a -u $VIPT4:$TPORT -r 10.2.3.2 -i --tun-type gue --tun-port 6080 -w 1
-A -t [$VIPT6]:$TPORT -s wlc
-a -t [$VIPT6]:$TPORT -r [fd02:1::2]:$TPORT -i -w 1
-a -t [$VIPT6]:$TPORT -r [fd02:2::2]:$TPORT -i -w 1
-a -t [$VIPT6]:$TPORT -r [fd02:3::2]:$TPORT -i -w 1
EOF
while read -ra rule; do
	ipvs ipvsadm "${rule[@]}" || die "ipvsadm ${rule[*]}"
done <"$W/ipvs.rules"
ipvs ipvsadm-save -n >"$W/ipvs.save" || die "ipvsadm-save -n"
echo "# ipvsadm-save -n ($(ipvsadm --version 2>&1 | head -n 1)):"
sed 's/^/#   /' "$W/ipvs.save"
[ "$(grep -c '^-a ' "$W/ipvs.save")" = 13 ] || die "IPVS has not the 13 real servers given"
pass "IPVS configured with ipvsadm: 5 services, 13 real servers"

# ---- import and restore
"$RINGCTL" import ipvsadm "$W/ipvs.save" >"$W/imported.conf" 2>"$W/import.err" ||
	die "import: $(cat "$W/import.err")"
[ ! -s "$W/import.err" ] || die "import printed: $(cat "$W/import.err")"
# The same from standard input, but for the comments that name the file.
"$RINGCTL" import ipvsadm - <"$W/ipvs.save" | grep -v '^#' >"$W/stdin.conf"
grep -v '^#' "$W/imported.conf" | cmp -s - "$W/stdin.conf" ||
	die "import from standard input differs from the file's: $(diff "$W/imported.conf" "$W/stdin.conf")"
"$RINGCTL" import ipvsadm - <"$W/ipvs.save" >"$W/stdin.full"
grep -q '^# stdin:1: scheduler wrr' "$W/stdin.full" ||
	die "notes of standard input do not name it: $(head -n 4 "$W/stdin.full")"
grep -q 'balancing becomes hashing' "$W/imported.conf" || die "no note on wrr: $(cat "$W/imported.conf")"
cmd_ok rctl key set "$KEY"
rctl restore "$W/imported.conf" || die "restore of the imported configuration"
pass "ipvsadm-save -n imported and restored into ringsteer"

# ---- the weights are IPVS's: "proto vip port addr weight", 0 for draining
ipvs ipvsadm-save -n | sed -E 's/\[([0-9a-f:]+)\]/\1/g' | awk '$1 == "-a" {
	p = ($2 == "-t") ? "tcp" : "udp"
	n = split($3, v, ":"); port = v[n]; vip = substr($3, 1, length($3) - length(port) - 1)
	n = split($5, r, ":"); addr = substr($5, 1, length($5) - length(r[n]) - 1)
	for (i = 6; i < NF; i++) if ($i == "-w") { j = i + 1; w = $j }
	print p, vip, port, addr, w }' | sort >"$W/w.ipvs"
rctl show -j | jq -r '.services[] as $s | $s.backends[] |
	"\($s.proto) \($s.vip) \($s.port) \(.addr) \(if .state == "draining" then 0 else .weight end)"' |
	sort >"$W/w.rs"
[ "$(wc -l <"$W/w.ipvs")" = 13 ] || die "read $(wc -l <"$W/w.ipvs") real servers from IPVS"
cmp -s "$W/w.ipvs" "$W/w.rs" || die "weights differ (IPVS < > ringsteer): $(diff "$W/w.ipvs" "$W/w.rs")"
pass "every backend and weight is IPVS's (weight 0 as draining): $(tr '\n' ';' <"$W/w.rs")"
rctl show -j | jq -e '[.services[] | select(.forward == "tunnel")] |
	(map(.encap) | sort) == ["gue", "ipip", "ipip"] and
	(map(select(.encap == "gue")) | .[0].encap_port == 6080)' >/dev/null ||
	die "tunnel services not as IPVS's: $(rctl show -j)"
[ "$(rctl show -j | jq -r ".services[] | select(.vip == \"$VIP6\") | .hash")" = source ] ||
	die "the persistent service does not hash the source"
pass "forwarding (NAT, ipip, ip6ip6, gue 6080) and persistence (hash source) as IPVS's"

# ipvs_set VIP PORT PROTO: the names (bN) of IPVS's real servers of weight > 0.
ipvs_set()
{
	awk -v v="$1" -v p="$2" -v t="$3" '$1 == t && $2 == v && $3 == p && $5 > 0 { print $4 }' "$W/w.ipvs" |
		sed -E 's/^10\.2\.([0-9]+)\.2$/b\1/; s/^fd02:([0-9]+)::2$/b\1/' | sort | tr '\n' ' '
}
got_set() { awk '{ print $2 }' "$1" | sort -u | tr '\n' ' '; }

# ---- traffic: each service's flows reach IPVS's set, where lookup says
traffic 20000-20299 >"$W/t1"
no_failures "$W/t1" "NAT TCP"
lookup 20000-20299 >"$W/l1"
expect_same "$W/t1" "$W/l1" "NAT TCP vs lookup"
[ "$(got_set "$W/t1")" = "$(ipvs_set "$VIP4" 80 tcp)" ] ||
	die "NAT TCP reached '$(got_set "$W/t1")', IPVS has '$(ipvs_set "$VIP4" 80 tcp)'"
! grep -q ' b3$' "$W/t1" || die "the weight 0 (draining) backend got new flows"
# Weights 1 and 3: b2 owns three times b1's share of the ring (256 vnodes a
# unit of weight; within a quarter), and takes more of the flows.
rctl show -j | jq -e ".services[] | select(.vip == \"$VIP4\" and .port == 80) |
	(.backends | map({(.addr): .share}) | add) as \$s |
	(\$s[\"10.2.2.2\"] / \$s[\"10.2.1.2\"]) as \$r | \$r > 2.25 and \$r < 3.75" >/dev/null ||
	die "shares of weights 1 and 3: $(rctl show -j | jq -c '.services[0].backends')"
b1=$(grep -c ' b1$' "$W/t1" || true)
b2=$(grep -c ' b2$' "$W/t1" || true)
[ "$b2" -gt "$((2 * b1))" ] || die "300 flows: b1 $b1, b2 $b2 for weights 1 and 3"
pass "NAT TCP: 300 flows on IPVS's set ($(got_set "$W/t1")), b1 $b1 and b2 $b2 for weights 1 and 3, none to the weight 0"

traffic -6 -u 21000-21099 >"$W/t2"
no_failures "$W/t2" "NAT UDP IPv6"
lookup -6 -u 21000-21099 >"$W/l2"
expect_same "$W/t2" "$W/l2" "NAT UDP IPv6 vs lookup"
# Persistence: every flow of the one client on one backend, one of IPVS's.
[ "$(got_set "$W/t2" | wc -w)" = 1 ] || die "persistent service spread one client: $(got_set "$W/t2")"
case " $(ipvs_set "$VIP6" 80 udp)" in
*" $(got_set "$W/t2")"*) ;;
*) die "persistent service reached $(got_set "$W/t2"), not one of IPVS's" ;;
esac
pass "NAT UDP IPv6, persistent: 100 flows of one client all on $(got_set "$W/t2")"

VIP4=$VIPT4 traffic -p "$TPORT" 22000-22299 >"$W/t3"
no_failures "$W/t3" "tunnel ipip TCP"
SVC4=$VIPT4:$TPORT lookup 22000-22299 >"$W/l3"
expect_same "$W/t3" "$W/l3" "tunnel ipip TCP vs lookup"
[ "$(got_set "$W/t3")" = "$(ipvs_set "$VIPT4" "$TPORT" tcp)" ] ||
	die "ipip TCP reached '$(got_set "$W/t3")', IPVS has '$(ipvs_set "$VIPT4" "$TPORT" tcp)'"
pass "tunnel ipip TCP: 300 flows on IPVS's set ($(got_set "$W/t3"))"

VIP4=$VIPT4 traffic -u -p "$TPORT" 23000-23199 >"$W/t4"
no_failures "$W/t4" "tunnel gue UDP"
[ "$(got_set "$W/t4")" = "$(ipvs_set "$VIPT4" "$TPORT" udp)" ] ||
	die "gue UDP reached '$(got_set "$W/t4")', IPVS has '$(ipvs_set "$VIPT4" "$TPORT" udp)'"
pass "tunnel gue UDP: 200 flows on IPVS's set ($(got_set "$W/t4"))"

VIP6=$VIPT6 traffic -6 -p "$TPORT" 24000-24299 >"$W/t5"
no_failures "$W/t5" "tunnel ip6ip6 TCP"
[ "$(got_set "$W/t5")" = "$(ipvs_set "$VIPT6" "$TPORT" tcp)" ] ||
	die "ip6ip6 TCP reached '$(got_set "$W/t5")', IPVS has '$(ipvs_set "$VIPT6" "$TPORT" tcp)'"
pass "tunnel ip6ip6 TCP: 300 flows on IPVS's set ($(got_set "$W/t5"))"

# ---- what does not map: a direct routing server fails the import at its line
ipvs ipvsadm -A -t 10.0.0.102:80 -s rr || die "ipvsadm -A"
ipvs ipvsadm -a -t 10.0.0.102:80 -r 10.2.1.2 -g -w 1 || die "ipvsadm -a -g"
ipvs ipvsadm-save -n >"$W/ipvs2.save"
line=$(grep -n -- '-r 10.2.1.2:80 -g' "$W/ipvs2.save" | cut -d: -f1)
cmd_fail "$RINGCTL" import ipvsadm "$W/ipvs2.save"
"$RINGCTL" import ipvsadm "$W/ipvs2.save" 2>&1 >/dev/null |
	grep -q "ipvs2.save:$line: direct routing (-g)" ||
	die "no error at line $line: $("$RINGCTL" import ipvsadm "$W/ipvs2.save" 2>&1 >/dev/null)"
"$RINGCTL" import ipvsadm --lenient "$W/ipvs2.save" >"$W/lenient.conf" 2>"$W/lenient.err" ||
	die "--lenient: $(cat "$W/lenient.err")"
grep -q "warning: direct routing" "$W/lenient.err" || die "--lenient: no warning"
# The service stays, without a backend.
n=$(awk '/^service / { in102 = ($2 == "10.0.0.102:80") } in102 && /^\tbackend / { n++ } END { print n + 0 }' "$W/lenient.conf")
grep -q '^service 10.0.0.102:80 ' "$W/lenient.conf" && [ "$n" = 0 ] ||
	die "--lenient did not leave the -g server out: $(cat "$W/lenient.conf")"
pass "a -g server: import fails at line $line; --lenient leaves it out with a warning"
