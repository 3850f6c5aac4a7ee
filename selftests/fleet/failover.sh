#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Three load balancers behind a router that spreads flows over them by ECMP
# (BIRD 2: BGP multipath, BFD), 100 long-lived TCP connections and 10 UDP
# flows through the VIP; lb1 fails four ways and comes back each time.
# With load balancers that keep no state the others need (FLEET_LB=ipvs:
# IPVS mh in tunnel mode), no connection may reset or stall past STALL_MAX
# seconds, and every flow's answers come from one backend. A negative
# control, one LB configured differently (its fingerprint differs), must
# break connections. FLEET_LB=nat (ringsteer's NAT mode, with masquerade)
# shows what NAT loses instead: at least every connection lb1 carried.
#
#  fl-cli ---- fl-rtr ==ECMP== fl-lb1, fl-lb2, fl-lb3     (lib/fleet.sh
#  100 addrs   BIRD    ------  fl-be1, fl-be2, fl-be3      has the drawing)
#                              (fl-be4: joins the rings in the last case)
#
# Last, with the flows running, be4 joins every LB's ring and be1 drains:
# none of the connections may break.
#
# Per case: the flows start (all answered), lb1 fails, rtr's route drops
# lb1 (BFD/BGP; measured from rtr's route changes), every live flow is
# answered again, lb1 returns, the route has all three again, every live
# flow is answered again, the flows stop and report. Printed per case:
# the withdrawal and return times, the worst stall, resets, moved flows.
# An attempt in which rtr also lost an LB that did not fail (BFD timed
# out: the host did not run this guest for longer than BFD's detection
# time) measures the host, not the fleet: it is printed and run again, at
# most FLEET_ATTEMPTS (3) times. FLEET_BFD_MS and FLEET_BFD_MULT (200 ms
# x 5) set BFD's timers, and the stall bound follows them.

set -e
P=fl
. "$(dirname "$0")/../lib/fleet.sh"

# The longest a connection may go unanswered. A failure that only BFD
# notices takes up to its detection time D (200 ms x 5 = 1 s) before rtr
# moves the flows; a segment lost meanwhile is retransmitted after 0.2,
# 0.6, 1.4, 3.0 s... (TCP's doubling RTO from its 200 ms floor), so the
# first retransmission after the move comes at most about 2 x D later:
# 2 x D plus 1.5 s for the route to change and the guest to be slow.
STALL_MAX=${FLEET_STALL_MAX:-$(awk -v ms="$BFD_MS" -v m="$BFD_MULT" 'BEGIN { printf "%.1f", 2 * ms * m / 1000 + 1.5 }')}
CASES="${FLEET_CASES:-withdraw linkdown killed dead}"
keeps=

# A fourth backend has a server from the start and joins the LBs' rings
# in the last case.
NBE=4
NBE_RING=3
fleet_setup
keeps=$("lb_${FLEET_LB}_keeps")

fingerprints_agree
pass "$FLEET_LB: $NLB LBs, $NBE backends, BGP established with BFD, ECMP route over $(all_lbs); fingerprints agree"

# cpu_ticks: "total busy" jiffies of all CPUs (/proc/stat), busy being
# all but idle and iowait.
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# run_case NAME HOW: the flows through one failure of lb1 (HOW) and its
# return; sets TCP_RESET, TCP_STALLED, MOVED, WORST, WITHDRAW, BACK, LB1.
# Returns 2 when the attempt does not count: rtr lost an LB that did not
# fail (its BFD timed out: on a host busy with other guests this one may
# not run for over a second, and every BFD session times out at once), or
# the flows could not start.
run_case()
{
	local name=$1 how=$2 tf t0 tw tb n per= c0 c1 tc ti others
	wait_for 120 "BGP established with every LB, ECMP route over all" fleet_converged
	client_start "$name" || return 2
	awk '$1 == "tcp" { print $2 }' "$FCLIENT.ready" | sort >"$W/mine"
	for n in $(seq 1 "$NLB"); do
		# Only this case's connections: the LBs keep entries of earlier ones.
		"lb_${FLEET_LB}_clients" "$n" | sort | comm -12 - "$W/mine" | sed "s/\$/ lb$n/" >"$W/on$n"
		per+=" lb$n $(wc -l <"$W/on$n")"
	done
	LB1=$(wc -l <"$W/on1")
	echo "# $name: $CONNS connections and $UDPFLOWS UDP flows up; TCP per LB:$per"
	monitor_start
	read -r _ c0 <<<"$(cpu_ticks)"
	# The withdrawal counts from when the failure's command starts: birdc
	# disable returns after rtr has the withdrawal, so from its end it
	# would be negative. The command's own time is printed beside it: nft's
	# netdev modules for "dead", say, take a second to load under TCG, and
	# the host only fails when they are in. The polled time and the stalls
	# count from its end.
	tf=$(now)
	lb_fail "$how" 1
	ti=$(elapsed "$tf")
	t0=$(now)
	wait_for 30 "rtr's route for the VIP leaves lb1 ($how)" routes_are "$(all_lbs | sed 's/rtr-lb1 //')"
	tw=$(now)
	poll_until 30 answered_since "$tw" || echo "# $name: some flows had no answer 30 s after the withdrawal"
	lb_return "$how" 1
	wait_for 60 "lb1 back in rtr's route ($how)" fleet_converged
	tb=$(now)
	poll_until 30 answered_since "$tb" || echo "# $name: some flows had no answer 30 s after lb1's return"
	monitor_stop
	read -r _ c1 <<<"$(cpu_ticks)"
	tc=$(elapsed "$t0")
	client_stop
	"$PY" "$LIBDIR/fleet_conns.py" routes "$W/routes.mon" "$tf" "$VIP4" rtr-lb1 >"$W/times"
	read -r WITHDRAW BACK <"$W/times"
	[ "$WITHDRAW" != - ] || sed "s/^/# $name: no withdrawal in rtr's route monitor: /" "$W/routes.mon" | head -n 30
	others=$(all_lbs | sed 's/rtr-lb1 //')
	"$PY" "$LIBDIR/fleet_conns.py" lost "$W/routes.mon" "$tf" "$VIP4" $others >"$W/lost"
	TCP_RESET=$(count tcp reset 1)
	TCP_STALLED=$(stalled tcp "$STALL_MAX")
	UDP_STALLED=$(stalled udp "$STALL_MAX")
	MOVED=$(($(count tcp moved 1) + $(count udp moved 1)))
	WORST=$(worst tcp)
	echo "# $name: failure command took ${ti}s; withdrawal ${WITHDRAW}s after it began (polled: $(awk -v a="$t0" -v b="$tw" 'BEGIN { printf "%.3f", b - a }')s after it ended)," \
		"back ${BACK}s after it began; worst TCP stall ${WORST}s, UDP $(worst udp)s;" \
		"TCP reset $TCP_RESET/$CONNS, stalled past ${STALL_MAX}s $TCP_STALLED; flows moved to another backend $MOVED;" \
		"UDP lost $(awk '$1 == "udp" { split($6, s, "="); split($7, g, "="); l += s[2] - g[2] } END { print l + 0 }' "$FCLIENT.report");" \
		"guest CPUs busy $(awk -v a="$c0" -v b="$c1" -v t="$tc" -v hz="$(getconf CLK_TCK)" -v n="$(nproc)" \
			'BEGIN { printf "%.0f%%", 100 * (b - a) / hz / t / n }')"
	awk '$3 != "reset=0" || $5 != "moved=0"' "$FCLIENT.report" | head -n 5 | sed "s/^/# $name: /"
	# The longest stalls, when each began (from the failure) and which LB
	# had the connection before.
	cat "$W"/on[0-9]* >"$W/on"
	awk -v t0="$t0" 'FNR == NR { lb[$1] = $2; next }
		{ split($4, s, "="); split($NF, a, "="); printf "%s %s %.3f from %.3f %s\n", $1, $2, s[2], a[2] - t0, ($2 in lb ? lb[$2] : "-") }' \
		"$W/on" "$FCLIENT.report" | sort -k3,3nr | head -n 8 | sed "s/^/# $name: stall: /"
	if [ "$(cat "$W/lost")" != - ]; then
		echo "# $name: rtr also lost $(cat "$W/lost"), which did not fail: BFD timed out on a starved guest; this attempt does not count"
		return 2
	fi
	# Polling saw the route leave lb1: the monitor must have it too.
	[ "$WITHDRAW" != - ] || die "$name: rtr's route monitor has no withdrawal of lb1, which polling saw"
}

# attempt NAME HOW: run_case, up to ATTEMPTS times while an attempt does
# not count; a case that never counts fails.
ATTEMPTS=${FLEET_ATTEMPTS:-3}
attempt()
{
	local i rc
	for i in $(seq 1 "$ATTEMPTS"); do
		rc=0
		run_case "$@" || rc=$?
		[ "$rc" = 2 ] || return "$rc"
		echo "# $1: attempt $i of $ATTEMPTS did not count"
	done
	die "$1: no attempt in $ATTEMPTS counted (BFD sessions of LBs that did not fail timed out, or the flows did not start): the guest is starved"
}

for how in $CASES; do
	attempt "$how" "$how"
	if [ "$keeps" = 1 ]; then
		[ "$TCP_RESET" = 0 ] || die "$how: $TCP_RESET of $CONNS connections reset"
		[ "$TCP_STALLED" = 0 ] || die "$how: $TCP_STALLED connections stalled past ${STALL_MAX}s (worst $WORST)"
		[ "$UDP_STALLED" = 0 ] || die "$how: $UDP_STALLED UDP flows went unanswered past ${STALL_MAX}s"
		[ "$MOVED" = 0 ] || die "$how: $MOVED flows were answered by another backend"
		pass "$how: lb1 failed and returned: 0 of $CONNS connections reset or stalled past ${STALL_MAX}s, none moved; withdrawal ${WITHDRAW}s, worst stall ${WORST}s"
	else
		[ "$LB1" -gt 0 ] || die "$how: lb1 carried no connection, nothing to lose"
		[ "$TCP_RESET" -ge "$LB1" ] ||
			die "$how: $TCP_RESET connections reset, fewer than the $LB1 lb1 carried"
		pass "$how: NAT lost $TCP_RESET of $CONNS connections (lb1 carried $LB1); withdrawal ${WITHDRAW}s"
	fi
done

# The negative control: lb2 maps flows differently. When lb1 fails, the
# flows rtr moves to lb2, and those it moves from lb2 to lb3, reach
# another backend, which resets them: so this scenario can fail.
"lb_${FLEET_LB}_skew" 2
fingerprints_agree 2
attempt skewed withdraw
"lb_${FLEET_LB}_unskew" 2
fingerprints_agree
[ $((TCP_RESET + MOVED)) -gt 0 ] || die "negative control: lb2 maps flows differently, yet nothing broke"
pass "negative control (lb2 configured differently, fingerprint differs): $TCP_RESET connections reset, $MOVED flows moved when lb1 withdrew"

# Ring changes on every LB while the connections run: be4 joins, then be1
# drains. Established connections stay where they are on the LB that
# carries them (IPVS's connection table, conntrack for NAT): none breaks.
# Undone at the end, so that an attempt that does not count can run again.
ring_case()
{
	local t
	wait_for 120 "BGP established with every LB, ECMP route over all" fleet_converged
	client_start ring || return 2
	monitor_start
	t=$(now)
	"lb_${FLEET_LB}_backend" add 4
	fingerprints_agree
	poll_until 30 answered_since "$(now)" || echo "# ring: some flows had no answer 30 s after be4 joined"
	"lb_${FLEET_LB}_backend" drain 1
	fingerprints_agree
	poll_until 30 answered_since "$(now)" || echo "# ring: some flows had no answer 30 s after be1 drained"
	monitor_stop
	client_stop
	"lb_${FLEET_LB}_backend" activate 1
	"lb_${FLEET_LB}_backend" del 4
	fingerprints_agree
	TCP_RESET=$(count tcp reset 1)
	MOVED=$(($(count tcp moved 1) + $(count udp moved 1)))
	echo "# ring: be4 added and be1 drained on every LB: TCP reset $TCP_RESET/$CONNS, moved $MOVED," \
		"worst stall $(worst tcp)s, stalled past ${STALL_MAX}s $(stalled tcp "$STALL_MAX")"
	"$PY" "$LIBDIR/fleet_conns.py" lost "$W/routes.mon" "$t" "$VIP4" $(all_lbs) >"$W/lost"
	if [ "$(cat "$W/lost")" != - ]; then
		echo "# ring: rtr lost $(cat "$W/lost") meanwhile: BFD timed out on a starved guest; this attempt does not count"
		return 2
	fi
}

attempt_ring()
{
	local i rc
	for i in $(seq 1 "$ATTEMPTS"); do
		rc=0
		ring_case || rc=$?
		[ "$rc" = 2 ] || return "$rc"
	done
	die "ring changes: no attempt in $ATTEMPTS counted: the guest is starved"
}

attempt_ring
[ "$TCP_RESET" = 0 ] || die "ring changes: $TCP_RESET connections reset"
[ "$MOVED" = 0 ] || die "ring changes: $MOVED flows moved to another backend"
[ "$(stalled tcp "$STALL_MAX")" = 0 ] || die "ring changes: connections stalled past ${STALL_MAX}s"
pass "ring changes on every LB (be4 added, be1 drained) under $CONNS connections: none reset, stalled or moved"
