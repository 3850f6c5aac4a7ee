#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A backend's health (a checker's finding) apart from its state (the
# operator's): a backend is on the ring exactly when it is active and up.
# No traffic: lookups of 4,000 flows show what the ring does.
#
#   hs-lb
#  +---------------------------------------------------+
#  | 10.0.0.100:80 tcp: b1..b4                          |
#  | lookup batch (4,000 flows) before/after each change|
#  +---------------------------------------------------+
#
# 1. Down takes the backend out of the ring and moves only its own flows;
#    up restores the exact previous mapping.
# 2. The last backend on the ring cannot be marked down without force.
# 3. Health and state are separate: activate of a down backend leaves it
#    out, up of a draining one leaves it out; both undone, it is back.
# 4. save writes no health, restore keeps it: a reload never undoes what
#    the checker found.
# 5. show, -j, monitor and stats carry it; backend-new takes none.

set -e
P=hs
. "$(dirname "$0")/lib/topo.sh"
topo_init
newns "$P-lb"
r() { ip netns exec "$P-lb" "$RINGCTL" "$@"; }
SVC=10.0.0.100:80
be() { echo "10.2.$1.2:8080"; }

awk 'BEGIN { for (i = 0; i < 4000; i++)
	printf "10.1.%d.%d:%d\n", (i / 250) % 200, 1 + i % 250, 1024 + (i * 37) % 64000 }' >"$W/flows"

# lookups NAME: the owner of every flow, into $W/NAME.
lookups()
{
	r lookup "$SVC" batch "$W/flows" >"$W/$1" || die "lookup batch failed"
	[ "$(wc -l <"$W/$1")" = 4000 ] || die "lookup batch: $(wc -l <"$W/$1") lines"
}

# only_moved A B X: every flow that differs between A and B was X's in A
# (or is X's in B), and N > 0 of them moved; prints N.
only_moved()
{
	paste -d' ' "$W/$1" "$W/$2" | awk -v x="$3" '
		$2 != $4 { n++; if ($2 != x && $4 != x) bad++ }
		END { if (bad || !n) exit 1; print n }'
}

# field BACKEND KEY: KEY of BACKEND in show -j.
field()
{
	r -j show | python3 -c '
import json, sys
s = json.load(sys.stdin)["services"][0]
b = [b for b in s["backends"] if "%s:%d" % (b["addr"], b["port"]) == sys.argv[1]][0]
print(b[sys.argv[2]])' "$1" "$2"
}

cmd_ok r key set "$KEY"
cmd_ok r service add "$SVC"
for i in 1 2 3 4; do
	cmd_ok r backend add "$SVC" "$(be "$i")"
done
lookups base
[ "$(field "$(be 2)" health)" = up ] || die "a new backend is not up"

# 1. Down, then up.
MON_KEY=$KEY rcmon_start "$P-lb" "$W/mon"
cmd_ok r backend set "$SVC" "$(be 2)" health down
lookups down
grep -q "$(be 2)" "$W/down" && die "a down backend still owns flows"
n=$(only_moved base down "$(be 2)") || die "down moved flows of other backends"
[ "$(field "$(be 2)" share)" = 0 ] || die "a down backend has a share"
[ "$(field "$(be 2)" state)" = active ] || die "down changed the state"
pass "down: $n flows moved, all b2's, none of the others'"
cmd_ok r backend set "$SVC" "$(be 2)" health up
lookups up
cmp -s "$W/base" "$W/up" || die "up did not restore the exact mapping"
pass "up: the exact previous mapping"

# 2. The last backend on the ring.
for i in 1 3 4; do
	cmd_ok r backend drain "$SVC" "$(be "$i")"
done
if r backend set "$SVC" "$(be 2)" health down 2>"$W/err"; then
	die "the last backend on the ring was marked down without force"
fi
grep -q "last backend on the ring.*force" "$W/err" ||
	die "no clear message for the last one: $(cat "$W/err")"
[ "$(field "$(be 2)" health)" = up ] || die "a refused down changed the health"
cmd_ok r backend set "$SVC" "$(be 2)" health down force
r lookup "$SVC" 10.1.0.1:1234 >/dev/null 2>&1 && die "lookup answered with an empty ring"
cmd_ok r backend set "$SVC" "$(be 2)" health up
for i in 1 3 4; do
	cmd_ok r backend activate "$SVC" "$(be "$i")"
done
lookups again
cmp -s "$W/base" "$W/again" || die "mapping not restored after the forced down"
pass "the last backend on the ring: EBUSY with a message, then force"

# 3. Health and state apart.
cmd_ok r backend set "$SVC" "$(be 3)" health down
cmd_ok r backend activate "$SVC" "$(be 3)"
lookups act
grep -q "$(be 3)" "$W/act" && die "activate put a down backend on the ring"
cmd_ok r backend drain "$SVC" "$(be 3)"
cmd_ok r backend set "$SVC" "$(be 3)" health up
lookups upd
grep -q "$(be 3)" "$W/upd" && die "up put a draining backend on the ring"
cmd_ok r backend activate "$SVC" "$(be 3)"
lookups back
cmp -s "$W/base" "$W/back" || die "mapping not restored once active and up"
pass "activate of a down backend and up of a draining one leave it out"

# 4. save and restore.
cmd_ok r backend set "$SVC" "$(be 4)" health down
r save >"$W/saved" || die "save failed"
grep -q health "$W/saved" && die "save wrote health: $(cat "$W/saved")"
cmd_ok r restore "$W/saved"
[ "$(field "$(be 4)" health)" = down ] || die "restore changed the health"
printf 'service %s\n\tbackend %s health down\n' "$SVC" "$(be 1)" >"$W/bad.conf"
cmd_fail r restore "$W/bad.conf"
pass "save writes no health; restore keeps it and refuses it in a file"

# 5. Reported everywhere.
r show | grep -E "$(be 4)" | grep -qw down || die "show has no health column: $(r show)"
r stats | grep -q "^ringsteer_backend_up{.*backend=\"$(be 4)\"} 0" ||
	die "stats: no ringsteer_backend_up 0 for b4"
for i in $(seq 1 50); do
	grep -q "backend set $SVC $(be 4) proto tcp weight 1 state active health down" "$W/mon" && break
	sleep 0.1
done
grep -q "backend set $SVC $(be 4) proto tcp weight 1 state active health down" "$W/mon" ||
	die "monitor: no health in the set event: $(cat "$W/mon")"
pass "show, stats and monitor carry the health"
