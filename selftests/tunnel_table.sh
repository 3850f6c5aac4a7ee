#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# forward tunnel's flow table: open TCP connections stay on the backend
# they started on across ring changes (a backend added, one drained), a
# SYN never reuses a draining or down backend's entry, a deleted
# backend's connections are reset on their next segment, and so are a
# down one's in a service with on-down reset; with the table off
# (flow_table_entries=0), exactly the connections the ring moves break.
#
#   tt-cli              tt-lb                          tt-b1 .. tt-b4
#  +------------+     +---------------------------+     +---------------------+
#  | 10.1.0.2   +-----+ 10.0.0.100:80 tcp         +-----+ 10.2.N.2, tunl0 up, |
#  | 200 held   |     | forward tunnel ipip       |  x4 | VIP on lo, :80      |
#  | connections|     | b1 b2 b3, then + b4       |     | says "bN"           |
#  +------------+     +---------------------------+     +---------------------+

set -e
P=tt
. "$(dirname "$0")/lib/topo.sh"
BPORT=$VPORT
BACKEND=$RINGSTEER_SRC/dist/ringsteer-backend
PARAM=/sys/module/ringsteer/parameters/flow_table_entries
topo_setup 4
lb ip addr del "$VIP4/32" dev lo
lb ip addr del "$VIP6/128" dev lo
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:[0-9]+$/ b\1/'
}
for i in 1 2 3 4; do
	bk "$i" bash "$BACKEND" up --state "$W/st$i" ipip "$VIP4" >/dev/null ||
		die "ringsteer-backend up on b$i"
done
[ "$(cat "$PARAM")" -gt 0 ] || die "the flow table is off by default"
# As a NIC's RSS would, RPS keeps each flow's packets on one CPU of the
# LB (here all on cpu0), whichever CPU sent them (tunnel_cpus.sh has
# flows on both).
lb sh -c 'echo 1 >/sys/class/net/lb-cli/queues/rx-0/rps_cpus'

# counter NAME: one of the TCP service's tunnel counters.
counter() { rctl show -j | jq ".services[0].tunnel.$1"; }
# broken PING: the sports a hold_ping output reports broken.
broken() { awk '$2 == "-" { print $1 }' "$1" | sort -n; }

tunnel_service 3
# 16384 entries of 64 bytes fill a 1 MiB block a CPU: 4096 buckets of 4.
[ "$(rctl show -j | jq .flow_table_entries)" = 16384 ] ||
	die "flow table of $(rctl show -j | jq .flow_table_entries) entries a CPU, want 16384 (filling its 1 MiB)"
rctl show | grep -q "flow table 16384 entries a CPU" || die "show's namespace line has no flow table size"
lookup 20000-20199 >"$W/want1"
hold_start 20000-20199 >"$W/held1"
expect_same "$W/held1" "$W/want1" "held connections vs ringctl lookup"

# A backend joins: the ring gives it flows, the table keeps them.
cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
lookup 20000-20199 >"$W/want2"
moved=$(moves "$W/want1" "$W/want2" | awk '{ s += $3 } END { print s + 0 }')
[ "$moved" -gt 0 ] || die "adding b4 moved no flow on the ring: the test shows nothing"
hits=$(counter table_hits)
hold_ping >"$W/ping1"
expect_same "$W/ping1" "$W/want1" "held connections after b4 joined"
[ "$(counter table_hits)" -gt "$hits" ] || die "the answers came without table hits"
pass "b4 joined: the ring moved $moved of 200 flows, all 200 connections stayed (table hits)"

# New connections follow the ring as it is now, and are recorded.
lookup 21000-21099 >"$W/want_new"
traffic 21000-21099 >"$W/got_new"
expect_same "$W/got_new" "$W/want_new" "new connections after b4 joined"

# Drained: its connections go on; a SYN does not reuse its entries.
cmd_ok rctl backend drain "$SVC4" "10.2.1.2:80"
hold_ping >"$W/ping2"
expect_same "$W/ping2" "$W/want1" "held connections after b1 was drained"
lookup 21000-21099 >"$W/want_drain"
grep -q ' b1$' "$W/want_drain" && die "lookup maps to the drained b1"
grep -q ' b1$' "$W/got_new" || die "no new connection was on b1: the SYN rule is not tested"
traffic 21000-21099 >"$W/got_drain"
expect_same "$W/got_drain" "$W/want_drain" "new SYNs of b1's recorded tuples after the drain"
pass "b1 drained: its held connections go on, new SYNs of its tuples go by the ring"

# Deleted: its entries die at once, its connections get a reset.
cmd_ok rctl backend del "$SVC4" "10.2.2.2:80"
hold_ping >"$W/ping3"
awk '$2 == "b2" { print $1 }' "$W/want1" | sort -n >"$W/on_b2"
broken "$W/ping3" >"$W/broken3"
[ -s "$W/on_b2" ] || die "no held connection on b2"
cmp -s "$W/on_b2" "$W/broken3" ||
	die "after deleting b2, broken: $(wc -l <"$W/broken3"), on b2: $(wc -l <"$W/on_b2")"
awk '$2 != "-"' "$W/ping3" >"$W/alive3"
awk 'NR == FNR { w[$1] = $2; next } w[$1] != $2 { bad++ } END { exit bad > 0 }' \
	"$W/want1" "$W/alive3" || die "a connection not on b2 changed backend"
pass "b2 deleted: exactly its $(wc -l <"$W/on_b2") connections were reset, the others stayed"

# Down (on-down keep): as drained, its connections go on and a SYN does
# not reuse its entries, though its state is still active.
grep -q ' b3$' "$W/got_drain" || die "no new connection was on b3: the SYN rule is not tested"
cmd_ok rctl backend set "$SVC4" "10.2.3.2:80" health down
hold_ping >"$W/ping6"
expect_same "$W/ping6" "$W/alive3" "held connections after b3 went down (keep)"
lookup 21000-21099 >"$W/want_down"
grep -q ' b3$' "$W/want_down" && die "lookup maps to the down b3"
traffic 21000-21099 >"$W/got_down"
expect_same "$W/got_down" "$W/want_down" "new SYNs of b3's recorded tuples after it went down"
pass "b3 down (keep): its held connections go on, new SYNs of its tuples go by the ring"

# Down with on-down reset: its entries no longer hold, its connections
# move (and get a reset from the backend they reach); the others stay.
cmd_ok rctl backend set "$SVC4" "10.2.3.2:80" health up
hold_ping >"$W/ping7"
expect_same "$W/ping7" "$W/alive3" "held connections after b3 came up again"
cmd_ok rctl service set "$SVC4" on-down reset
cmd_ok rctl backend set "$SVC4" "10.2.3.2:80" health down
hold_ping >"$W/ping8"
awk '$2 == "b3" { print $1 }' "$W/want1" | sort -n >"$W/on_b3"
[ -s "$W/on_b3" ] || die "no held connection on b3"
broken "$W/ping8" >"$W/broken8"
cmp -s "$W/on_b3" "$W/broken8" ||
	die "after b3 went down (reset), broken: $(wc -l <"$W/broken8"), on b3: $(wc -l <"$W/on_b3")"
awk '$2 != "-"' "$W/ping8" >"$W/alive8"
awk 'NR == FNR { w[$1] = $2; next } w[$1] != $2 { bad++ } END { exit bad > 0 }' \
	"$W/want1" "$W/alive8" || die "a connection not on b3 changed backend"
pass "b3 down (reset): exactly its $(wc -l <"$W/on_b3") connections moved, the others stayed"
hold_stop

# The table off: exactly the flows the ring moves break.
cmd_ok rctl flush
echo 0 >"$PARAM"
tunnel_service 3
[ "$(rctl show -j | jq .flow_table_entries)" = 0 ] || die "a flow table with flow_table_entries=0"
lookup 22000-22199 >"$W/want4"
hold_start 22000-22199 >"$W/held4"
expect_same "$W/held4" "$W/want4" "held connections without a table"
ports 22000-22199 | sed "s/.*/$CLI4:& $VIP4:$VPORT tcp/" >"$W/flows4"
rctl plan backend add "$SVC4" "10.2.4.2:80" flows "$W/flows4" >"$W/plan5" || die "plan ... flows"
awk '$NF == "moves" { sub(/.*:/, "", $1); print $1 }' "$W/plan5" | sort -n >"$W/planned5"
# Each flow line as given: SRC DST PROTO, then BEFORE -> AFTER moves|stays.
[ "$(awk '$NF == "moves" || $NF == "stays" { n++; if ($2 == "'"$VIP4:$VPORT"'" && $3 == "tcp" && $5 == "->") ok++ } END { print ok + 0 "/" n + 0 }' "$W/plan5")" = 200/200 ] ||
	die "plan ... flows lines are not 'SRC DST tcp BEFORE -> AFTER': $(grep -m1 -E 'moves|stays' "$W/plan5")"
rctl plan -j backend add "$SVC4" "10.2.4.2:80" flows "$W/flows4" |
	jq -e '.services[0].flows | length == 200 and all(.proto == "tcp" and .dst == "'"$VIP4:$VPORT"'")' >/dev/null ||
	die "plan -j ... flows: not 200 flows of tcp to the VIP"
cmd_ok rctl backend add "$SVC4" "10.2.4.2:80"
lookup 22000-22199 >"$W/want5"
paste -d' ' "$W/want4" "$W/want5" | awk '$2 != $4 { print $1 }' | sort -n >"$W/moved5"
[ -s "$W/moved5" ] || die "adding b4 moved no flow"
cmp -s "$W/planned5" "$W/moved5" ||
	die "plan ... flows said $(wc -l <"$W/planned5") would move, the ring moved $(wc -l <"$W/moved5")"
hold_ping >"$W/ping5"
broken "$W/ping5" >"$W/broken5"
cmp -s "$W/moved5" "$W/broken5" ||
	die "without a table: $(wc -l <"$W/broken5") broke, the ring moved $(wc -l <"$W/moved5")"
[ "$(counter table_hits)" = 0 ] || die "table hits without a table"
hold_stop
echo 16384 >"$PARAM"
pass "without the table exactly the $(wc -l <"$W/moved5") connections the ring moved, and plan ... flows named, broke"
