#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# placement slots in the kernel: ten backends take the lowest free slots
# ringctl picks; the kernel's lookups (the table both hooks read through
# rs_steer_pick()) reach every backend; adding a backend moves flows only
# to it, draining one moves only its flows and activating it restores the
# mapping; a second load balancer given the same slots in reverse order
# agrees on every flow and prints the same fingerprint, and one slot moved
# changes it. Refusals: a slot held twice (EEXIST), beyond capacity, a
# capacity under a held slot, slots on a ring service. The kernel's
# lookups equal `ringctl simulate placement slots ... flows` before and
# after a drain, and `fingerprint file` of the saved configuration prints
# the kernel's fingerprint. No traffic: lookups only.
#
#   sb-lb1                               sb-lb2
#  +----------------------------------+  +----------------------------------+
#  | VIP placement slots capacity 64  |  | same, slots given explicitly,    |
#  | b1..b10 added, slots picked      |  | backends added in reverse order  |
#  +----------------------------------+  +----------------------------------+
#        lookup batch (4,000 flows)   ==   lookup batch; fingerprint ==

set -e
P=sb
. "$(dirname "$0")/lib/topo.sh"
topo_init
newns "$P-lb1"
newns "$P-lb2"
in1() { ip netns exec "$P-lb1" "$RINGCTL" "$@"; }
in2() { ip netns exec "$P-lb2" "$RINGCTL" "$@"; }

awk 'BEGIN { for (i = 0; i < 4000; i++)
	printf "10.1.%d.%d:%d\n", i % 200, 1 + (i * 7) % 250, 1024 + (i * 37) % 64000 }' >"$W/f4"

# blookup NS-FN FILE: lookup batch of the slots service, as is.
blookup()
{
	"$1" lookup "$SVC4" batch "$2" proto tcp >"$W/bl.out" || die "lookup batch in $1 failed"
	[ "$(wc -l <"$W/bl.out")" = "$(wc -l <"$2")" ] || die "lookup batch in $1: short output"
	cat "$W/bl.out"
}
# owners_changed A B: the backends of A's flows that B maps elsewhere, and B's.
moved_from() { paste -d' ' "$1" "$2" | awk '$2 != $4 { print $2 }' | sort -u; }
moved_to() { paste -d' ' "$1" "$2" | awk '$2 != $4 { print $4 }' | sort -u; }

for fn in in1 in2; do
	cmd_ok $fn key set "$KEY"
	cmd_ok $fn service add "$SVC4" proto tcp placement slots capacity 64
done
in1 service show | grep -q 'placement slots capacity 64' || die "show does not print the placement"

# --- lb1: ringctl picks the lowest free slots -------------------------------
for i in 1 2 3 4 5 6 7 8 9 10; do
	out=$(in1 backend add "$SVC4" "10.2.$i.2:8080" proto tcp) || die "backend add b$i failed"
	[ "$out" = "backend add: slots $((i - 1))" ] || die "b$i: picked '$out', not slot $((i - 1))"
done
in1 show | grep -q '10.2.10.2:8080.* slots 9' || die "show does not print b10's slot"
pass "ten backends added without slots hold slots 0..9, as printed"

# --- lb2: the same slots, explicit, in reverse order, with a detour ---------
cmd_ok in2 backend add "$SVC4" 10.9.9.9:1 proto tcp slots 30,31
for i in 10 9 8 7 6 5 4 3 2 1; do
	cmd_ok in2 backend add "$SVC4" "10.2.$i.2:8080" proto tcp slots $((i - 1))
done
cmd_ok in2 backend del "$SVC4" 10.9.9.9:1 proto tcp

# A weight alone: ringctl keeps the lowest slots held and adds the lowest free.
out=$(in2 backend set "$SVC4" 10.2.1.2:8080 proto tcp weight 2) || die "weight 2 failed"
[ "$out" = "backend set: slots 0,10" ] || die "weight 2: '$out', not slots 0,10"
out=$(in2 backend set "$SVC4" 10.2.1.2:8080 proto tcp weight 1) || die "weight 1 failed"
[ "$out" = "backend set: slots 0" ] || die "weight 1: '$out', not slot 0"
pass "backend set of a weight alone keeps the lowest slots and takes the lowest free"

# --- Refusals, each changing nothing ---------------------------------------
cmd_fail in2 backend add "$SVC4" 10.3.0.2:8080 proto tcp slots 4
err=$(in2 backend add "$SVC4" 10.3.0.2:8080 proto tcp slots 4 2>&1) || true
grep -q 'held by another backend' <<<"$err" || die "a held slot: '$err'"
cmd_fail in2 backend add "$SVC4" 10.3.0.2:8080 proto tcp slots 64
cmd_fail in2 backend add "$SVC4" 10.3.0.2:8080 proto tcp slots 20 weight 2
cmd_fail in2 service set "$SVC4" proto tcp placement slots capacity 8
cmd_fail in2 service set "$SVC4" proto tcp placement ring
cmd_ok in2 service add "$VIP4:81" proto tcp
cmd_fail in2 backend add "$VIP4:81" 10.3.0.2:8080 proto tcp slots 1
cmd_ok in2 service del "$VIP4:81" proto tcp
pass "held slot (EEXIST), slot beyond capacity, count != weight, capacity under a slot, placement change, slots on a ring service: refused"

blookup in1 "$W/f4" >"$W/m1"
blookup in2 "$W/f4" >"$W/m2"
[ "$(cut -d' ' -f2 "$W/m1" | sort -u | wc -l)" = 10 ] || die "4,000 flows do not reach all 10 backends"
expect_same "$W/m2" "$W/m1" "lb2 (reverse order, explicit slots) vs lb1"
[ "$(in1 fingerprint)" = "$(in2 fingerprint)" ] || die "fingerprints differ: $(in1 fingerprint) / $(in2 fingerprint)"
pass "two LBs, same slots, different order and history: 4,000 flows and the fingerprint agree"

# Every backend near 400 of 4,000 (a binomial's 3 sigma is 57).
cut -d' ' -f2 "$W/m1" | sort | uniq -c | awk '$1 < 300 || $1 > 500 { bad = 1 } END { exit bad }' ||
	die "uneven: $(cut -d' ' -f2 "$W/m1" | sort | uniq -c | tr '\n' ' ')"
pass "every backend's share of 4,000 flows within 300..500"

# --- Changes move only the changed backend's flows -------------------------
cmd_ok in1 backend add "$SVC4" 10.2.11.2:8080 proto tcp
blookup in1 "$W/f4" >"$W/m1a"
[ "$(moved_to "$W/m1" "$W/m1a")" = 10.2.11.2:8080 ] || die "add moved flows to: $(moved_to "$W/m1" "$W/m1a" | tr '\n' ' ')"
n=$(paste -d' ' "$W/m1" "$W/m1a" | awk '$2 != $4' | wc -l)
[ "$n" -gt 250 ] && [ "$n" -lt 500 ] || die "add moved $n flows, not about 4,000/11"
pass "add: $n flows moved, all to the new backend"

cmd_ok in1 backend drain "$SVC4" 10.2.3.2:8080 proto tcp
blookup in1 "$W/f4" >"$W/m1d"
[ "$(moved_from "$W/m1a" "$W/m1d")" = 10.2.3.2:8080 ] || die "drain moved flows of: $(moved_from "$W/m1a" "$W/m1d" | tr '\n' ' ')"
grep -q ' 10.2.3.2:8080' "$W/m1d" && die "a flow still maps to the drained backend"
cmd_ok in1 backend activate "$SVC4" 10.2.3.2:8080 proto tcp
blookup in1 "$W/f4" >"$W/m1r"
expect_same "$W/m1r" "$W/m1a" "after activate vs before drain"
pass "drain moves only the drained backend's flows; activate restores the mapping"

fp=$(in1 fingerprint)
cmd_ok in1 backend set "$SVC4" 10.2.11.2:8080 proto tcp slots 40
[ "$(in1 fingerprint)" != "$fp" ] || die "fingerprint unchanged after a slot moved"
blookup in1 "$W/f4" >"$W/m1s"
moved=$(paste -d' ' "$W/m1a" "$W/m1s" | awk '$2 != $4 && $2 != "10.2.11.2:8080" && $4 != "10.2.11.2:8080"' | wc -l)
[ "$moved" = 0 ] || die "moving b11's slot moved $moved flows between other backends"
pass "a slot moved changes the fingerprint and no flow between other backends"

# --- The kernel's lookups == ringctl simulate; the offline fingerprint ------
# At m1a lb1's backends held slots 0..9 (b1..b10) and 10 (b11): what
# simulate picks for them in that order. Its drain of b3 is m1d.
sed "s/\$/ $SVC4 tcp/" "$W/f4" >"$W/sim.in"
# shellcheck disable=SC2046
"$RINGCTL" simulate key "$KEY" placement slots capacity 64 \
	$(for i in 1 2 3 4 5 6 7 8 9 10 11; do printf 'backend 10.2.%d.2:8080 ' "$i"; done) \
	drain 10.2.3.2:8080 flows "$W/sim.in" >"$W/sim.out" || die "simulate placement slots failed"
awk '{ print $1, $4 }' "$W/sim.out" >"$W/sim.before"
awk '{ print $1, $5 }' "$W/sim.out" >"$W/sim.after"
expect_same "$W/sim.before" "$W/m1a" "simulate placement slots vs kernel lookup"
expect_same "$W/sim.after" "$W/m1d" "simulate's drain vs kernel lookup after the drain"
pass "kernel lookup == simulate placement slots, 4,000 flows, and after a drain"
[ "$(in1 save | "$RINGCTL" fingerprint file -)" = "$(in1 fingerprint)" ] ||
	die "fingerprint file of lb1's save: $(in1 save | "$RINGCTL" fingerprint file -), the kernel's: $(in1 fingerprint)"
pass "the offline fingerprint of a slots service (fingerprint file -) is the kernel's"

# --- A draining backend's weight ---------------------------------------------
# Its slots change as an active one's would (the lowest held kept, the
# lowest free added: slot 10), none of them live, so no flow moves until it
# is activated, and then only to it.
cmd_ok in1 backend drain "$SVC4" 10.2.3.2:8080 proto tcp
blookup in1 "$W/f4" >"$W/m1w"
out=$(in1 backend set "$SVC4" 10.2.3.2:8080 proto tcp weight 2) ||
	die "backend set of a draining backend's weight failed"
[ "$out" = "backend set: slots 2,10" ] || die "a draining backend's weight 2: '$out', not slots 2,10"
blookup in1 "$W/f4" >"$W/m1w2"
expect_same "$W/m1w2" "$W/m1w" "a draining backend's weight changed vs before"
cmd_ok in1 backend activate "$SVC4" 10.2.3.2:8080 proto tcp
blookup in1 "$W/f4" >"$W/m1w3"
[ "$(moved_to "$W/m1w" "$W/m1w3")" = 10.2.3.2:8080 ] ||
	die "activating it moved flows to: $(moved_to "$W/m1w" "$W/m1w3" | tr '\n' ' ')"
pass "a draining backend's weight changes its slots, moves nothing until it is activated"
