#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What backend changes do to flows: established connections stay put
# through add, weight change and drain; drain sends new flows to the ring
# successor and activate restores the exact mapping; delete re-steers the
# deleted backend's flows (conntrack entries gone) unless keep-flows; a
# service with no active backend drops new flows and counts them.
#
#   sc-cli                   sc-lb                          sc-b1 .. sc-b4
#  +---------------+       +-----------------------------+      +-----------+
#  | 10.1.0.2      |       | VIP 10.0.0.100:80 tcp + udp |      | 10.2.N.2  |
#  | new flows     +-------+ ringsteer, conntrack        +------+ :8080     |
#  |  20000-20999  |       | changes: add/weight/drain/  |  x4  | says "bN" |
#  | held flows    |       |  activate/del [keep-flows]  |      |           |
#  |  30000-...    |       +-----------------------------+      +-----------+
#  +---------------+
#
# "Held" flows stay open in one rs_client.py (TCP connections or connected
# UDP sockets) and exchange data again after each change.

set -e
P=sc
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack
topo_setup 4

FLOWS=20000-20599
HELD=30000-30199
last_keep_bad=

fresh()
{
	local proto=$1 i
	shift
	rctl flush >/dev/null 2>&1 || true
	cmd_ok rctl key set "$KEY"
	cmd_ok rctl service add "$SVC4" proto "$proto"
	for i in "$@"; do
		cmd_ok rctl backend add "$SVC4" "$(be4 "$i")" proto "$proto"
	done
}

# --- Established connections keep their backend --------------------------
fresh tcp 1 2 3
hold_start "$HELD" >"$W/h0"
no_failures "$W/h0" "held connections"
lookup "$HELD" >"$W/l0"
expect_same "$W/h0" "$W/l0" "held connections vs lookup"
grep -q ' b2$' "$W/h0" || die "no held connection on b2, the drain below would prove nothing"

step=0
change()
{
	local what=$1
	shift
	step=$((step + 1))
	cmd_ok rctl "$@"
	lookup "$HELD" >"$W/l$step"
	# The change does move some of these tuples for new flows ...
	expect_differ "$W/l$step" "$W/l$((step - 1))" "lookup after $what"
	# ... but not the established connections.
	hold_ping >"$W/h$step"
	no_failures "$W/h$step" "held connections after $what"
	expect_same "$W/h$step" "$W/h0" "held connections after $what"
	pass "established connections stay through $what ($(moves "$W/l0" "$W/l$step" | awk '{ n += $3 } END { print n + 0 }') tuples would move)"
}
change "add b4" backend add "$SVC4" "$(be4 4)" proto tcp
change "weight b1 3" backend set "$SVC4" "$(be4 1)" proto tcp weight 3
change "drain b2" backend drain "$SVC4" "$(be4 2)" proto tcp
grep -q ' b2$' "$W/l$step" && die "lookup still maps to drained b2"
change "key set" key set f0e1d2c3b4a5968778695a4b3c2d1e0f
change "service set vnodes 64" service set "$SVC4" proto tcp vnodes 64
change "service set hash source" service set "$SVC4" proto tcp vnodes 64 hash source
hold_stop

# --- Drain and activate -------------------------------------------------
fresh tcp 1 2 3 4
lookup "$FLOWS" >"$W/before"
traffic "$FLOWS" >"$W/got0"
no_failures "$W/got0" "before drain"
expect_same "$W/got0" "$W/before" "connections before drain vs lookup"
n_b2=$(grep -c ' b2$' "$W/got0" || true)
[ "$n_b2" -gt 0 ] || die "no flow on b2 before the drain"

hold_start "$HELD" >"$W/hd0"
grep -q ' b2$' "$W/hd0" || die "no held connection on b2"
cmd_ok rctl backend drain "$SVC4" "$(be4 2)" proto tcp
show "$W/showd"
[ "$(backends "$W/showd" "$SVC4/tcp" | awk '$1 == "b2" { print $3, $5 }')" = "draining 0.0" ] ||
	die "show -j: b2 not draining with share 0: $(backends "$W/showd" "$SVC4/tcp" | grep '^b2')"
[ "$(field "$W/showd" svc "$SVC4/tcp" 7)" = 3 ] || die "show -j: backends_active is not 3 with b2 draining"

lookup "$FLOWS" >"$W/drained"
moves "$W/before" "$W/drained" >"$W/dmoves"
awk '$1 != "b2"' "$W/dmoves" | grep . && die "drain moved flows of other backends"
[ "$(awk '{ n += $3 } END { print n + 0 }' "$W/dmoves")" = "$n_b2" ] || die "not every flow of b2 moved on drain"
# The ring successor, computed offline for the same ring.
ports "$FLOWS" | sed "s/^/$CLI4:/; s/\$/ $SVC4 tcp/" >"$W/sim.in"
"$RINGCTL" simulate key "$KEY" backend "$(be4 1)" backend "$(be4 2)" backend "$(be4 3)" backend "$(be4 4)" \
	drain "$(be4 2)" flows "$W/sim.in" | awk '{ print $1, $5 }' | names >"$W/succ"
expect_same "$W/drained" "$W/succ" "lookup after drain vs the ring successor (simulate drain)"

traffic "$FLOWS" >"$W/gotd"
no_failures "$W/gotd" "while draining"
expect_same "$W/gotd" "$W/drained" "connections while draining vs lookup"
grep -q ' b2$' "$W/gotd" && die "a new connection reached drained b2"
hold_ping >"$W/hd1"
expect_same "$W/hd1" "$W/hd0" "held connections (some on b2) while draining"
pass "drain: $n_b2 flows of b2 go to its successors, b2's open connections work"

show "$W/showd2"
[ "$(backends "$W/showd2" "$SVC4/tcp" | awk '$1 == "b2" { print $4 }')" = \
  "$(backends "$W/showd" "$SVC4/tcp" | awk '$1 == "b2" { print $4 }')" ] ||
	die "drained b2's flow counter moved"

cmd_ok rctl backend activate "$SVC4" "$(be4 2)" proto tcp
lookup "$FLOWS" >"$W/undrained"
expect_same "$W/undrained" "$W/before" "lookup after activate vs before drain"
traffic "$FLOWS" >"$W/gota"
expect_same "$W/gota" "$W/before" "connections after activate vs before drain"
hold_ping >"$W/hd2"
expect_same "$W/hd2" "$W/hd0" "held connections after activate"
hold_stop
pass "activate restores the exact mapping"

# backend set ... state is the same operation as drain/activate.
cmd_ok rctl backend set "$SVC4" "$(be4 2)" proto tcp state draining
lookup "$FLOWS" >"$W/drained2"
expect_same "$W/drained2" "$W/drained" "lookup after 'set state draining' vs drain"
cmd_ok rctl backend set "$SVC4" "$(be4 2)" proto tcp state active
lookup "$FLOWS" >"$W/undrained2"
expect_same "$W/undrained2" "$W/before" "lookup after 'set state active'"
pass "backend set state draining|active"

# --- Delete: new flows -------------------------------------------------
cmd_ok rctl backend del "$SVC4" "$(be4 3)" proto tcp
lookup "$FLOWS" >"$W/deleted"
moves "$W/before" "$W/deleted" >"$W/delmoves"
[ -s "$W/delmoves" ] || die "deleting b3 moved nothing"
awk '$1 != "b3"' "$W/delmoves" | grep . && die "delete moved flows of other backends"
grep -q ' b3$' "$W/deleted" && die "lookup maps to deleted b3"
"$RINGCTL" simulate key "$KEY" backend "$(be4 1)" backend "$(be4 2)" backend "$(be4 3)" backend "$(be4 4)" \
	remove "$(be4 3)" flows "$W/sim.in" | awk '{ print $1, $5 }' | names >"$W/succ3"
expect_same "$W/deleted" "$W/succ3" "lookup after delete vs the ring successor (simulate remove)"
traffic "$FLOWS" >"$W/gotdel"
expect_same "$W/gotdel" "$W/deleted" "connections after delete vs lookup"
pass "delete: new flows of b3 go to its ring successors, others stay"

# --- Per-backend new-flow counters -------------------------------------
# Each backend counts exactly the new flows it got. One re-added after its
# delete starts from 0, though it may take the per-CPU entries the deleted
# one gave back a grace period later (kmod/tally.h).
flows_of() { backends "$1" "$SVC4/tcp" | awk '{ print $1, $4 }' | sort; }
sleep 1
cmd_ok rctl backend add "$SVC4" "$(be4 3)" proto tcp
show "$W/showc0"
[ "$(flows_of "$W/showc0" | awk '$1 == "b3" { print $2 }')" = 0 ] ||
	die "re-added b3 did not start from 0 flows: $(flows_of "$W/showc0" | tr '\n' ' ')"
lookup "$FLOWS" >"$W/lc"
traffic "$FLOWS" >"$W/gotc"
expect_same "$W/gotc" "$W/lc" "connections after b3's re-add vs lookup"
show "$W/showc1"
flows_of "$W/showc0" >"$W/flows0"
flows_of "$W/showc1" >"$W/flows1"
join "$W/flows0" "$W/flows1" | awk '{ print $1, $3 - $2 }' >"$W/counted"
counts "$W/gotc" | join -a 1 -e 0 -o 0,2.2 "$W/flows1" - >"$W/got_counts"
expect_same "$W/counted" "$W/got_counts" "each backend's new-flow counter vs the connections it got"
pass "each backend counts its own new flows; re-added b3 starts from 0 ($(tr '\n' ' ' <"$W/counted"))"

# --- Delete: an open UDP flow is re-steered with its next datagram -----
# ct_to BACKEND: conntrack entries of the UDP service that go to BACKEND.
ct_to()
{
	lb conntrack -L -p udp --orig-dst "$VIP4" --orig-port-dst "$VPORT" 2>/dev/null |
		grep -c "src=10.2.$1.2 " || true
}
fresh udp 1 2 3 4
hold_start -u "$HELD" >"$W/u0"
no_failures "$W/u0" "held UDP flows"
lookup -u "$HELD" >"$W/ul0"
expect_same "$W/u0" "$W/ul0" "UDP flows vs lookup"
n_u3=$(grep -c ' b3$' "$W/u0" || true)
[ "$n_u3" -gt 0 ] || die "no UDP flow on b3"
[ "$(ct_to 3)" = "$n_u3" ] || die "conntrack shows $(ct_to 3) UDP entries to b3, $n_u3 flows"
cmd_ok rctl backend del "$SVC4" "$(be4 3)" proto udp
[ "$(ct_to 3)" = 0 ] || die "backend del left $(ct_to 3) conntrack entries to b3"
[ "$(ct_to 1)" -gt 0 ] || die "backend del b3 deleted other backends' conntrack entries"
lookup -u "$HELD" >"$W/ul1"
hold_ping >"$W/u1"
no_failures "$W/u1" "UDP flows after delete"
expect_same "$W/u1" "$W/ul1" "UDP flows after deleting b3 vs lookup"
moves "$W/u0" "$W/u1" >"$W/umoves"
awk '$1 != "b3"' "$W/umoves" | grep . && die "UDP flows of other backends moved"
[ "$(awk '{ n += $3 } END { print n + 0 }' "$W/umoves")" = "$n_u3" ] || die "not every UDP flow of b3 moved"
hold_stop
pass "delete: $n_u3 open UDP flows of b3 re-steered, others kept"

# keep-flows: the entries stay, the flows keep going to the deleted backend.
fresh udp 1 2 3 4
hold_start -u "$HELD" >"$W/k0"
n_k3=$(grep -c ' b3$' "$W/k0" || true)
[ "$n_k3" -gt 0 ] || die "no UDP flow on b3"
cmd_ok rctl backend del "$SVC4" "$(be4 3)" proto udp keep-flows
[ "$(ct_to 3)" = "$n_k3" ] || die "keep-flows: $(ct_to 3) conntrack entries to b3 left of $n_k3"
lookup -u "$HELD" >"$W/kl1"
grep -q ' b3$' "$W/kl1" && die "lookup maps to deleted b3"
hold_ping >"$W/k1"
expect_same "$W/k1" "$W/k0" "UDP flows after 'backend del keep-flows'"
hold_stop
pass "delete keep-flows: $n_k3 open UDP flows stay on b3"

# --- No active backend: new flows dropped and counted --------------------
fresh udp 1
cmd_ok rctl backend drain "$SVC4" "$(be4 1)" proto udp
cmd_fail rctl lookup "$SVC4" "$CLI4:40000" proto udp
traffic -u -t 2 40000-40009 >"$W/nb"
[ "$(awk '$2 != "-"' "$W/nb" | wc -l)" = 0 ] || die "a flow was answered with no active backend"
show "$W/shownb"
[ "$(field "$W/shownb" svc "$SVC4/udp" 10)" = 10 ] ||
	die "no_backend is $(field "$W/shownb" svc "$SVC4/udp" 10), 10 flows were dropped"
[ "$(field "$W/shownb" svc "$SVC4/udp" 9)" = 0 ] || die "dropped flows counted as steered"
cmd_ok rctl backend activate "$SVC4" "$(be4 1)" proto udp
traffic -u 40000-40009 >"$W/nb2"
no_failures "$W/nb2" "after activate"
show "$W/shownb2"
[ "$(field "$W/shownb2" svc "$SVC4/udp" 10)" = 10 ] || die "no_backend changed with a backend active"
pass "no active backend: 10 new flows dropped and counted, none once active"

# --- Service delete: flows go with it, unless keep-flows -----------------
# ct_svc: conntrack entries of the UDP service.
ct_svc()
{
	lb conntrack -L -p udp --orig-dst "$VIP4" --orig-port-dst "$VPORT" 2>/dev/null | grep -c udp || true
}
# With another service left in the namespace ...
fresh udp 1 2 3 4
cmd_ok rctl service add "$SVC6" proto tcp
hold_start -u "$HELD" >"$W/s0"
no_failures "$W/s0" "held UDP flows"
cmd_ok rctl service del "$SVC4" proto udp keep-flows
[ "$(ct_svc)" = 200 ] || die "service del keep-flows left $(ct_svc) of 200 conntrack entries"
hold_ping >"$W/s1"
expect_same "$W/s1" "$W/s0" "held UDP flows after 'service del keep-flows' (another service left)"
hold_stop
pass "service del keep-flows, another service left: open flows keep their backends"

# ... and when it was the last one: keeping the entries must keep the flows
# working, so the NAT of the namespace must not go with the last service.
fresh udp 1 2 3 4
hold_start -u "$HELD" >"$W/s0"
no_failures "$W/s0" "held UDP flows"
cmd_ok rctl service del "$SVC4" proto udp keep-flows
[ "$(ct_svc)" = 200 ] || die "service del keep-flows left $(ct_svc) of 200 conntrack entries"
hold_ping >"$W/s1"
hold_stop
if cmp -s "$W/s1" "$W/s0"; then
	pass "service del keep-flows, last service: open flows keep their backends"
else
	echo "FAIL: held UDP flows after 'service del keep-flows' of the last service:" \
		"$(awk '$2 == "-"' "$W/s1" | wc -l) of 200 lost (continuing, failing at the end)" >&2
	last_keep_bad=1
fi

fresh udp 1 2 3 4
hold_start -u "$HELD" >"$W/s2"
no_failures "$W/s2" "held UDP flows"
cmd_ok rctl service del "$SVC4" proto udp
[ "$(ct_svc)" = 0 ] || die "service del left $(ct_svc) conntrack entries"
hold_ping >"$W/s3" 2>/dev/null
[ "$(awk '$2 != "-"' "$W/s3" | wc -l)" = 0 ] || die "flows still reach backends after service del"
hold_stop
pass "service del: its flows are gone with it"

[ -z "$last_keep_bad" ] || die "service del keep-flows of the last service breaks the flows it keeps"
