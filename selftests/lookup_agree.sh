#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ring is a pure function of the key and the set of active backends:
# two load balancers with the same key and backends, configured in
# different orders and through different histories, map 10,000 flows
# identically; and the kernel's lookup equals `ringctl simulate` (the same
# ring code, offline) for 10,000 flows, in flow and source hash modes, IPv4
# and IPv6. No traffic: lookups only.
#
#   la-lb1                      la-lb2                     la-lb3
#  +------------------------+  +------------------------+  +-----------------+
#  | key K                  |  | key K                  |  | key K'          |
#  | b1..b6 added in order  |  | reverse order, detours |  | same backends   |
#  +------------------------+  +------------------------+  +-----------------+
#        lookup batch (10,000 flows) ==  lookup batch  !=  lookup batch
#        lookup batch == ringctl simulate key K ... flows

set -e
P=la
. "$(dirname "$0")/lib/topo.sh"
topo_init
for ns in lb1 lb2 lb3; do
	newns "$P-$ns"
done
in1() { ip netns exec "$P-lb1" "$RINGCTL" "$@"; }
in2() { ip netns exec "$P-lb2" "$RINGCTL" "$@"; }
in3() { ip netns exec "$P-lb3" "$RINGCTL" "$@"; }
KEY2=f0e1d2c3b4a5968778695a4b3c2d1e0f

# Backends: ADDR:PORT@WEIGHT. b1 and b6 share an address (other port).
BES4="10.2.1.2:8080@1 10.2.2.2:8080@2 10.2.3.2:8080@1 10.2.4.2:8080@3 10.2.5.2:8080@1 10.2.1.2:9090@1"
BES6="[fd02:1::2]:8080@1 [fd02:2::2]:8080@2 [fd02:3::2]:8080@1 [fd02:1::2]:9090@1"
rev() { tr ' ' '\n' <<<"$1" | tac | tr '\n' ' '; }
sim_backends() { local b; for b in $1; do printf 'backend %s ' "$b"; done; }

# Client flows "SRC:SPORT": 10,000 IPv4 flows from 500 addresses (20 ports
# each, so the source hash has something to group), 2,000 IPv6 ones.
awk 'BEGIN { for (i = 0; i < 10000; i++) { a = i % 500
	printf "10.1.%d.%d:%d\n", a / 250, 1 + a % 250, 1024 + (i * 37) % 64000 } }' >"$W/f4"
awk 'BEGIN { for (i = 0; i < 2000; i++)
	printf "[fd01::%x:%x]:%d\n", 1 + i % 5, 1 + (i * 7919) % 65535, 1024 + (i * 37) % 64000 }' >"$W/f6"
[ "$(sort -u "$W/f4" | wc -l)" = 10000 ] || die "flow list has duplicates"

# setup NS-FN SERVICE PROTO VNODES HASH BACKENDS
setup()
{
	local fn=$1 svc=$2 proto=$3 vn=$4 hash=$5 b
	cmd_ok "$fn" service add "$svc" proto "$proto" vnodes "$vn" hash "$hash"
	for b in $6; do
		cmd_ok "$fn" backend add "$svc" "${b%@*}" proto "$proto" weight "${b#*@}"
	done
}

# blookup NS-FN SERVICE PROTO FILE: lookup batch, the output as is.
blookup()
{
	"$1" lookup "$2" batch "$4" proto "$3" >"$W/bl.out" || die "lookup batch $2 in $1 failed"
	[ "$(wc -l <"$W/bl.out")" = "$(wc -l <"$4")" ] || die "lookup batch $2 in $1: $(wc -l <"$W/bl.out") lines for $(wc -l <"$4") flows"
	cat "$W/bl.out"
}

for fn in in1 in2 in3; do
	cmd_ok $fn key set "$KEY"
done
in1 key show | grep -qi "$KEY" || die "key show does not print the key that was set"
cmd_ok in3 key set "$KEY2"
in3 key show | grep -qi "$KEY" && die "key show still prints the old key"

# --- Two LBs, same set, different histories --------------------------------
setup in1 "$SVC4" tcp 256 flow "$BES4"
# lb2: reverse order, a backend added and deleted again, one drained and
# activated again, one weight raised from 1 afterwards.
cmd_ok in2 service add "$SVC4" proto tcp
cmd_ok in2 backend add "$SVC4" 10.9.9.9:1 proto tcp weight 5
for b in $(rev "$BES4"); do
	w=${b#*@}
	[ "$b" != 10.2.4.2:8080@3 ] || w=1
	cmd_ok in2 backend add "$SVC4" "${b%@*}" proto tcp weight "$w"
done
cmd_ok in2 backend drain "$SVC4" 10.2.3.2:8080 proto tcp
cmd_ok in2 backend set "$SVC4" 10.2.4.2:8080 proto tcp weight 3
cmd_ok in2 backend del "$SVC4" 10.9.9.9:1 proto tcp
cmd_ok in2 backend activate "$SVC4" 10.2.3.2:8080 proto tcp
setup in3 "$SVC4" tcp 256 flow "$BES4"

blookup in1 "$SVC4" tcp "$W/f4" >"$W/m1"
blookup in2 "$SVC4" tcp "$W/f4" >"$W/m2"
blookup in3 "$SVC4" tcp "$W/f4" >"$W/m3"
[ "$(cut -d' ' -f2 "$W/m1" | sort -u | wc -l)" = 6 ] || die "10,000 flows do not reach all 6 backends"
expect_same "$W/m2" "$W/m1" "lb2 (other order and history) vs lb1"
pass "two LBs, same key and backends, different order: 10,000 flows agree"
expect_differ "$W/m3" "$W/m1" "lb3 (other key) vs lb1"
pass "another key maps differently ($(paste -d' ' "$W/m1" "$W/m3" | awk '$2 != $4' | wc -l) flows differ)"

# Draining one backend in lb2 changes exactly that backend's flows.
cmd_ok in2 backend drain "$SVC4" 10.2.5.2:8080 proto tcp
blookup in2 "$SVC4" tcp "$W/f4" >"$W/m2d"
paste -d' ' "$W/m1" "$W/m2d" | awk '$2 != $4 { print $2 }' | sort -u >"$W/diffown"
[ "$(cat "$W/diffown")" = 10.2.5.2:8080 ] || die "drain in lb2 changed flows of: $(tr '\n' ' ' <"$W/diffown")"
cmd_ok in2 backend activate "$SVC4" 10.2.5.2:8080 proto tcp
blookup in2 "$SVC4" tcp "$W/f4" >"$W/m2a"
expect_same "$W/m2a" "$W/m1" "lb2 after activate vs lb1"
pass "drain in one LB moves only the drained backend's flows; activate agrees again"

# --- Kernel lookup == ringctl simulate ---------------------------------
# sim_check NS-FN SERVICE PROTO VNODES HASH KEY BACKENDS FLOWFILE WHAT
sim_check()
{
	local fn=$1 svc=$2 proto=$3 vn=$4 hash=$5 key=$6 bes=$7 flows=$8 what=$9
	sed "s/\$/ $svc $proto/" "$flows" >"$W/sim.in"
	# shellcheck disable=SC2046
	"$RINGCTL" simulate key "$key" vnodes "$vn" hash "$hash" $(sim_backends "$bes") flows "$W/sim.in" |
		awk '{ print $1, $4 }' >"$W/sim.out"
	blookup "$fn" "$svc" "$proto" "$flows" >"$W/kern.out"
	expect_same "$W/kern.out" "$W/sim.out" "$what: kernel lookup vs ringctl simulate"
}

sim_check in1 "$SVC4" tcp 256 flow "$KEY" "$BES4" "$W/f4" "IPv4 TCP, flow hash"
pass "kernel lookup == simulate, 10,000 IPv4 TCP flows"
# Negative: simulate with another key does not agree.
sed "s/\$/ $SVC4 tcp/" "$W/f4" >"$W/sim.in"
# shellcheck disable=SC2046
"$RINGCTL" simulate key "$KEY2" $(sim_backends "$BES4") flows "$W/sim.in" | awk '{ print $1, $4 }' >"$W/sim2.out"
expect_differ "$W/sim2.out" "$W/m1" "simulate with another key vs kernel"
sim_check in3 "$SVC4" tcp 256 flow "$KEY2" "$BES4" "$W/f4" "IPv4 TCP, second key"
pass "kernel lookup == simulate with lb3's key too"

# service set re-places the ring with the new vnodes and hash mode.
cmd_ok in3 service set "$SVC4" proto tcp vnodes 32 hash source
sim_check in3 "$SVC4" tcp 32 source "$KEY2" "$BES4" "$W/f4" "IPv4 TCP after service set vnodes 32 hash source"
rctl_in3_show=$(in3 show -j)
grep -q '"vnodes":32' <<<"$rctl_in3_show" && grep -q '"hash":"source"' <<<"$rctl_in3_show" ||
	die "show -j after service set: $rctl_in3_show"
pass "service set: kernel lookup == simulate with the new vnodes and hash"

# UDP, source hash, non-default vnodes.
setup in1 "$SVC4" udp 64 source "$BES4"
sim_check in1 "$SVC4" udp 64 source "$KEY" "$BES4" "$W/f4" "IPv4 UDP, source hash, 64 vnodes"
# Source hash: one backend per client address, whatever the port.
awk '{ split($1, a, ":"); print a[1], $2 }' "$W/kern.out" | sort -u | awk '{ print $1 }' | uniq -d >"$W/multi"
[ ! -s "$W/multi" ] || die "source hash: $(wc -l <"$W/multi") client addresses map to several backends"
awk '{ split($1, a, ":"); print a[1], $2 }' "$W/m1" | sort -u | awk '{ print $1 }' | uniq -d | grep -q . ||
	die "flow hash: every address maps to one backend, the source-hash check proves nothing"
pass "kernel lookup == simulate, 10,000 IPv4 UDP flows, source hash"

# IPv6, both LBs and simulate.
setup in1 "$SVC6" tcp 100 flow "$BES6"
setup in2 "$SVC6" tcp 100 flow "$(rev "$BES6")"
sim_check in1 "$SVC6" tcp 100 flow "$KEY" "$BES6" "$W/f6" "IPv6 TCP, 100 vnodes"
blookup in2 "$SVC6" tcp "$W/f6" >"$W/m6b"
expect_same "$W/m6b" "$W/kern.out" "IPv6: lb2 (reverse order) vs lb1"
pass "IPv6: 2,000 flows agree between LBs and with simulate"

# Changing the key of a namespace re-places its rings.
cmd_ok in2 key set "$KEY2"
blookup in2 "$SVC4" tcp "$W/f4" >"$W/m2k"
expect_same "$W/m2k" "$W/m3" "lb2 after key set K' vs lb3 (key K')"
pass "key set re-places existing rings"
