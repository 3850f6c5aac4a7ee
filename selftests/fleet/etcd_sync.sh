#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fleet from etcd (doc/fleet.md): a three-member etcd cluster,
# "ringctl sync run" on each LB applying PREFIX/config to its kernel, 100
# TCP connections and 10 UDP flows through the VIP all along:
#   - the configuration written once: every LB reports its revision, and
#     fleet status exits 0, within FLEET_SYNC_MAX (2 s);
#   - be4 added and be1 drained by one etcd write under load: no
#     connection broken;
#   - a revision with a syntax error: no LB changes, fleet status exits 2
#     and names the error;
#   - a revision that parses but the kernel refuses in part (a new slots
#     service whose second backend takes a slot the first holds): every
#     LB rolls back what it had applied of it, nothing changes, fleet
#     status names the kernel's refusal;
#   - etcd's leader stopped: a new revision reaches every LB, no
#     connection broken;
#   - etcd down for every LB (no quorum, then stopped) past stale-timeout:
#     every LB stale, on-stale held (no LB is cut off: withdrawing all
#     would be an outage), nothing changes; started: agreement again;
#   - lb2 cut off from etcd (silence): stale, its on-stale withdraws its VIP from
#     BIRD, the router stops sending to it, no connection broken;
#   - one LB with another local key: fleet status exits 2 and names it;
#   - fleet health: be3 killed (and started again) FLEET_HEALTH_ROUNDS
#     times under load, with a checker on each LB ("ringctl health run")
#     deciding alone, then voting in etcd with the agents applying the
#     fleet's verdict: every LB marks be3 down; the spread between the
#     first and the last, measured on each LB's "ringctl monitor", is
#     printed for both, with whether the fleet's met the 1 s target (a
#     time is reported, not asserted: a starved guest delays an agent);
#     what is asserted is the mechanism, every LB's verdict at the same
#     revision of the votes; no connection of another backend broken;
#     rings equal after.
#
#  fe-cli ---- fe-rtr ==ECMP== fe-lb1..3 (ringsteer tunnel, ringctl sync,
#                |                        health run, monitor)
#                |     ------  fe-be1..4 (ringsteer-backend up)
#                +------------ fe-etcd1..3 (etcd 10.4.0-2.2:2379)

set -e
P=fe
export FLEET_LB=tunnel
FLEET_BFD_MULT=${FLEET_BFD_MULT:-25}
. "$(dirname "$0")/../lib/fleet.sh"
SYNC_MAX=${FLEET_SYNC_MAX:-2}
NBE=4
NBE_RING=3
need_tools etcd etcdctl jq
fleet_setup
# Every packet of a flow on cpu0: see fleet/ring_tunnel.sh.
for n in $(seq 1 "$NLB"); do
	lbn "$n" sh -c "echo 1 >/sys/class/net/eth0/queues/rx-0/rps_cpus" || die "lb$n: rps_cpus"
done

# A three-member etcd cluster, each member in a namespace of its own
# behind rtr: the agents know all three, as a fleet file would.
NETCD=3
etcd_addr() { echo "10.4.$(($1 - 1)).2"; }
ETCD_EP=$(for m in $(seq 1 $NETCD); do printf 'http://%s:2379 ' "$(etcd_addr "$m")"; done)
ETCD_CLUSTER=$(for m in $(seq 1 $NETCD); do printf 'e%s=http://%s:2380,' "$m" "$(etcd_addr "$m")"; done)
etn() { ip netns exec "$P-etcd1" "$@"; }
ectl() { ETCDCTL_API=3 etn timeout 20 etcdctl --endpoints "$(echo $ETCD_EP | tr ' ' ,)" --dial-timeout=3s --command-timeout=10s "$@"; }
declare -A ETCD_PID=()

# etcd_start M...: members M (again: a restarted member reads its data
# directory and rejoins). Slower heartbeats than etcd's defaults (100 ms,
# 1 s): under TCG the defaults make elections of their own.
etcd_start()
{
	local m a
	for m in "$@"; do
		a=$(etcd_addr "$m")
		ip netns exec "$P-etcd$m" etcd --name "e$m" --data-dir "$W/etcd$m" \
			--listen-client-urls "http://$a:2379,http://127.0.0.1:2379" \
			--advertise-client-urls "http://$a:2379" \
			--listen-peer-urls "http://$a:2380" --initial-advertise-peer-urls "http://$a:2380" \
			--initial-cluster "${ETCD_CLUSTER%,}" --initial-cluster-state new \
			--heartbeat-interval 250 --election-timeout 2500 >>"$W/etcd$m.log" 2>&1 &
		ETCD_PID[$m]=$!
	done
	wait_for 90 "etcd answers" ectl endpoint health --cluster
}

etcd_stop() { local m; for m in "$@"; do kill "${ETCD_PID[$m]}"; wait "${ETCD_PID[$m]}" 2>/dev/null || true; done; }

# etcd_leader: the member number of the leader (etcdctl's simple
# format: endpoint, id, version, size, is leader, ...).
etcd_leader()
{
	ectl endpoint status -w simple |
		awk -F', ' '$5 == "true" { split($1, a, "."); print a[3] + 1 }'
}

for m in $(seq 1 $NETCD); do
	newns "$P-etcd$m"
	fleet_link "$P-rtr" "rtr-etcd$m" "10.4.$((m - 1)).1" "$P-etcd$m" eth0 "$(etcd_addr "$m")" 24 $((199 + m))
	ip -n "$P-etcd$m" route add default via "10.4.$((m - 1)).1"
done
etcd_start $(seq 1 $NETCD)

(umask 077; echo "$KEY" >"$W/key"; echo 0f0e0d0c0b0a09080706050403020100 >"$W/otherkey")
# fleet_file HOST KEYFILE: the fleet file of HOST.
fleet_file()
{
	cat <<-EOF
	endpoints $ETCD_EP
	prefix /rs
	host $1
	key-file $2
	timeout 2s
	lease-ttl 4s
	stale-timeout 15s
	status-interval 500ms
	on-stale echo stale >>$W/events.$1
	on-fresh echo fresh >>$W/events.$1
	EOF
}
fleet_file admin "$W/key" >"$W/admin.conf"

declare -A AGENT=()
# HQUORUM: the agents' health-quorum ("" until the fleet health case).
HQUORUM=
agent_start()	# N [KEYFILE]
{
	fleet_file "lb$1" "${2:-$W/key}" >"$W/lb$1.conf"
	[ -z "$HQUORUM" ] || echo "health-quorum $HQUORUM" >>"$W/lb$1.conf"
	# ip netns exec, not lbn: a function in the background is a subshell,
	# and killing it would leave the agent running.
	ip netns exec "$P-lb$1" "$RINGCTL" sync run "$W/lb$1.conf" >>"$W/sync$1.out" 2>&1 &
	AGENT[$1]=$!
}
agent_stop() { kill "${AGENT[$1]}"; wait "${AGENT[$1]}" 2>/dev/null || true; }

# mon_start N: LB N's "ringctl monitor" for the whole run, each line
# stamped with the time it came (seconds since the epoch) into $W/monN:
# when each LB's kernel changed, on one clock, the guest's.
mon_start()
{
	# A pipe, not >(...): the guest has no /dev/fd. The cleanup ends the
	# monitor, and the stamper with it.
	ip netns exec "$P-lb$1" "$RINGCTL" monitor 2>"$W/mon$1.err" | "$PY" -u -c 'import sys, time
for line in iter(sys.stdin.readline, ""):
    sys.stdout.write("%.3f %s" % (time.time(), line))' >"$W/mon$1" &
}
# mon_since T0 N: LB N's events after T0, unstamped.
mon_since() { awk -v t="$1" '$1 > t { sub(/^[^ ]+ /, ""); print }' "$W/mon$2"; }
mon_all_since() { local n; for n in $(seq 1 "$NLB"); do mon_since "$1" "$n" | grep -q . || return 1; done; }

put_config()	# TEXT on stdin: prints its revision
{
	ectl put /rs/config >/dev/null && ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision'
}

fstatus() { lbn 1 "$RINGCTL" fleet status "$W/admin.conf" "$@"; }
# fstatus_disagrees WHAT [ARG...]: fleet status ARGS into $out, shown;
# dies unless it exits 2 (the fleet disagrees) WHAT.
fstatus_disagrees() {
	local what=$1 rc
	shift
	set +e
	out=$(fstatus "$@" 2>&1); rc=$?
	set -e
	echo "$out" | sed 's/^/# /'
	[ "$rc" = 2 ] || die "fleet status exit $rc $what: $out"
}
# refused_all REV: every LB's status names REV as the one it refused.
refused_all() { local n; for n in $(seq 1 "$NLB"); do
	[ "$(ectl get /rs/status/lb$n --print-value-only | jq -r .error.revision)" = "$1" ] || return 1; done; }
saves() { local n; for n in $(seq 1 "$NLB"); do lbn "$n" "$RINGCTL" save; lbn "$n" "$RINGCTL" fingerprint; done; }

# Each monitor listens once a key set (the fleet's key again) has reached it.
t0=$(now)
for n in $(seq 1 "$NLB"); do mon_start "$n"; done
mon_listen() { local n; for n in $(seq 1 "$NLB"); do lbn "$n" "$RINGCTL" key set "$KEY" || return 1; done; mon_all_since "$t0"; }
wait_for 60 "every LB's monitor listens" mon_listen

# -- Written once: every LB holds it within SYNC_MAX.
for n in $(seq 1 "$NLB"); do agent_start "$n"; done
sleep 2
# Timed from etcd's answer to the write to fleet status's proof: not
# etcdctl's own start, seconds under TCG.
tunnel_services 1 2 3 >"$W/c1"
ectl put /rs/config <"$W/c1" >/dev/null || die "put the configuration"
t0=$(now)
out=$(fstatus wait 30s) || die "no agreement: $out"
took=$(elapsed "$t0")
rev=$(ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision')
echo "$out" | sed 's/^/# /'
for n in $(seq 1 "$NLB"); do
	echo "$out" | grep -Eq "^lb$n +ok +$rev +agree +match" || die "lb$n not ok at $rev: $out"
done
awk -v t="$took" -v m="$SYNC_MAX" 'BEGIN { exit !(t <= m) }' || die "agreement took ${took}s, over ${SYNC_MAX}s"
fingerprints_agree
pass "revision $rev written once: all $NLB LBs ok at it, rings agree and match, fleet status 0 after ${took}s"

# -- One write adds be4 and drains be1 under load.
wait_for 120 "BGP established with every LB, ECMP route over all" fleet_converged
client_start etcd || die "the flows did not start"
t0=$(now)
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put be4 + be1 draining"
fstatus wait 30s >"$W/st2" || die "no agreement on $rev: $(cat "$W/st2")"
took=$(elapsed "$t0")
lbn 2 "$RINGCTL" show -j | jq -e '.services[0].backends | length == 4' >/dev/null || die "lb2 has not 4 backends"
fingerprints_agree
settle "be4 joined, be1 drained"
[ "$(resets)" = 0 ] || die "$(resets) connections reset when be4 joined and be1 drained"
pass "be4 added and be1 drained by one write (revision $rev), every LB at it in ${took}s: 0 of $CONNS connections broken"

# -- A syntax error: refused everywhere, nothing changes, named.
saves >"$W/before"
bad=$(printf 'service %s:%s proto tcp forward tunnel\n\tbackend %s:%s weight 0x\n' \
	"$VIP4" "$VPORT" "$(be_addr 2)" "$VPORT" | put_config) || die "put the bad revision"
wait_for 20 "every LB refuses $bad" refused_all "$bad"
fstatus_disagrees "on a bad revision"
echo "$out" | grep -q "weight '0x'" || die "fleet status does not name the error: $out"
saves >"$W/after"
cmp -s "$W/before" "$W/after" || die "an LB changed on a bad revision: $(diff "$W/before" "$W/after" | head -5)"
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put the good revision again"
fstatus wait 30s >/dev/null || die "no recovery at $rev"
pass "revision $bad with a syntax error: refused on every LB, nothing changed, fleet status 2 naming it; $rev recovered"

# -- A revision that parses but the kernel refuses in part: a new slots
# service whose second backend takes a slot its first holds. The service
# and its first backend are in every kernel when the second is refused;
# each agent goes back to the configuration it read just before
# (restore's diff), so the monitors see the service come and go, and
# nothing else changes.
saves >"$W/before"
t0=$(now)
{
	tunnel_services 1:draining 2 3 4
	echo "service $VIP4:81 proto tcp forward tunnel encap $FLEET_ENCAP placement slots capacity 16"
	printf '\tbackend %s slots 1\n\tbackend %s slots 1\n' "$(be_addr 2)" "$(be_addr 3)"
} >"$W/c_part"
bad=$(put_config <"$W/c_part") || die "put the revision the kernel refuses"
wait_for 20 "every LB refuses $bad" refused_all "$bad"
fstatus_disagrees "on a revision the kernels refuse"
echo "$out" | grep -q "revision $bad: valid" || die "the configuration is not valid as a file: $out"
for n in $(seq 1 "$NLB"); do
	echo "$out" | grep -E "^lb$n +error" | grep "held by another backend" | grep -q "rolled back" ||
		die "fleet status does not name lb$n's refusal and rollback: $out"
	mon_since "$t0" "$n" >"$W/part$n"
	grep -q "^service add $VIP4:81 " "$W/part$n" && grep -q "^backend add $VIP4:81 $(be_addr 2)" "$W/part$n" &&
		grep -q "^service del $VIP4:81 " "$W/part$n" ||
		die "lb$n did not apply part of $bad and roll it back: $(tr '\n' ';' <"$W/part$n")"
done
saves >"$W/after"
cmp -s "$W/before" "$W/after" || die "an LB changed on a refused revision: $(diff "$W/before" "$W/after" | head -5)"
[ "$(resets)" = 0 ] || die "$(resets) connections reset by the refused revision"
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put the good revision again"
fstatus wait 30s >/dev/null || die "no recovery at $rev"
pass "revision $bad refused by the kernel at its third request: every LB rolled back (the monitors saw the service come and go), nothing changed, 0 connections broken, fleet status 2 naming the refusal; $rev recovered"

# -- etcd's leader stopped under load: the others elect one, and a new
# revision (the same text: no ring moves) reaches every LB through them.
leader=$(etcd_leader)
[ -n "$leader" ] || die "no etcd leader"
etcd_stop "$leader"
t0=$(now)
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put with e$leader stopped"
out=$(fstatus wait 30s) || die "no agreement on $rev with e$leader stopped: $out"
took=$(elapsed "$t0")
for n in $(seq 1 "$NLB"); do
	echo "$out" | grep -Eq "^lb$n +ok +$rev +agree +match" || die "lb$n not ok at $rev: $out"
done
etcd_start "$leader"
settle "e$leader stopped"
[ "$(resets)" = 0 ] || die "$(resets) connections reset with etcd's leader stopped"
pass "etcd's leader e$leader stopped: revision $rev on every LB ${took}s after the write, fleet status 0, 0 of $CONNS connections broken; e$leader rejoined"

# -- etcd down for every LB: two members stopped (no quorum: the third
# takes requests and cannot serve them), past stale-timeout, then the
# third too, then all started. Every LB is stale and knows it is not cut
# off (every etcd host answers): on-stale held, VIPs kept, no change.
saves >"$W/before"
survivor=$(( $(etcd_leader) % NETCD + 1 ))
etcd_stop $(seq 1 $NETCD | grep -vx "$survivor")
sleep 2
all_held() { local n; for n in $(seq 1 "$NLB"); do grep -q 'on-stale held' "$W/sync$n.out" || return 1; done; }
wait_for 40 "every LB stale, on-stale held" all_held
etcd_stop "$survivor"
sleep 4
saves >"$W/during"
cmp -s "$W/before" "$W/during" || die "an LB changed without etcd"
! cat "$W"/events.lb* 2>/dev/null | grep -q stale || die "on-stale ran with etcd down everywhere: $(grep -H . "$W"/events.lb*)"
routes_are "rtr-lb1 rtr-lb2 rtr-lb3" || die "a VIP withdrawn with etcd down everywhere"
etcd_start $(seq 1 $NETCD)
out=$(fstatus wait 60s) || die "no agreement after etcd came back: $out"
saves >"$W/after"
cmp -s "$W/before" "$W/after" || die "an LB changed when etcd came back"
settle "etcd restarted"
[ "$(resets)" = 0 ] || die "$(resets) connections reset while etcd was away"
client_stop
pass "etcd without quorum, then stopped, past stale-timeout: every LB stale, on-stale held, VIPs kept, nothing changed; started: fleet status 0, 0 of $CONNS connections broken"

# -- lb2 cut off from etcd, then a new revision (the same text: its ring
# does not move): lb2 stale, its on-stale withdraws its VIP, the router
# stops sending to it, no connection lost; back, on-fresh announces again.
# New connections: those that a flow table keeps off the ring (on be1,
# draining, or moved by be4's arrival) would break on another LB, which
# is fleet/ring_tunnel.sh's matter, not the agent's.
client_start cut || die "the flows did not start for the cut"
agent_stop 2
fleet_file lb2 "$W/key" | sed -e 's/^stale-timeout .*/stale-timeout 3s/' \
	-e "s|^on-stale .*|on-stale birdc -s $W/$P-lb2.ctl disable vip|" \
	-e "s|^on-fresh .*|on-fresh birdc -s $W/$P-lb2.ctl enable vip|" >"$W/lb2.conf"
grep -q '^on-stale birdc' "$W/lb2.conf" || die "lb2.conf: no on-stale"
ip netns exec "$P-lb2" "$RINGCTL" sync run "$W/lb2.conf" >>"$W/sync2.out" 2>&1 &
AGENT[2]=$!
fstatus wait 30s >/dev/null || die "lb2 did not come back with on-stale"
echo "table ip cut { chain out { type filter hook output priority -400; policy accept; ip daddr 10.4.0.0/16 drop; }; }" |
	lbn 2 nft -f - || die "lb2: nft cut"
t0=$(now)
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put the same configuration again"
wait_for 30 "rtr's route without lb2" routes_are "rtr-lb1 rtr-lb3"
took=$(elapsed "$t0")
fstatus_disagrees "with lb2 cut off"
echo "$out" | grep -Eq '^lb2 +(stale|missing)' || die "lb2 not stale: $out"
echo "$out" | grep -Eq "^lb1 +ok +$rev" || die "lb1 not at $rev: $out"
settle "lb2 withdrawn"
lbn 2 nft delete table ip cut
wait_for 60 "lb2 back in rtr's route" fleet_converged
fstatus wait 30s >/dev/null || die "no agreement with lb2 back"
settle "lb2 back"
[ "$(resets)" = 0 ] || die "$(resets) connections reset while lb2 was cut off"
client_stop
pass "lb2 cut off from etcd, revision $rev: lb2 stale, on-stale withdrew its VIP (rtr over lb1 and lb3 ${took}s after the write), 0 of $CONNS connections broken; back, announced again"

# -- Negative control: lb3 with another local key.
agent_stop 3
agent_start 3 "$W/otherkey"
fstatus_disagrees "with lb3 on another key" wait 10s
echo "$out" | grep -Eq '^lb3 .*(differ|another key)' || die "fleet status does not name lb3: $out"
echo "$out" | grep -Eq '^lb1 +ok' || die "lb1 not ok: $out"
agent_stop 3
agent_start 3
fstatus wait 30s >/dev/null || die "no agreement with lb3's key back"
pass "lb3 with another local key: fleet status 2 naming lb3; its key back, 0 again"

# -- Fleet health: be3 killed under load and started again, HROUNDS times,
# with a checker on each LB probing the TCP service's backends (the
# defaults: every 2 s, 10% jitter, fall 3, rise 2), first deciding alone
# (today's checkers), then voting in etcd with the agents applying the
# fleet's verdict (health-quorum 51%: two checkers of three). Measured on
# each LB's monitor: from the kill to the first LB's "health down", and
# the spread to the last one's, while the LBs' rings differ. The UDP
# service is not checked, so that its rings stay as they are.
HROUNDS=${FLEET_HEALTH_ROUNDS:-3}
SPREAD_TARGET=1
UDPFLOWS=0
declare -A CHECKER=()

# checkers_start alone|fleet: "ringctl health run" on every LB, acting
# (and with fleet, voting) before it returns; its log in $W/checkerN.MODE.
checkers_start()
{
	local n
	for n in $(seq 1 "$NLB"); do
		{
			[ "$1" != fleet ] || echo "fleet $W/lb$n.conf"
			echo "service $VIP4:$VPORT proto tcp"
			echo "	check tcp"
		} >"$W/hc$n.conf"
		ip netns exec "$P-lb$n" "$RINGCTL" health run "$W/hc$n.conf" >>"$W/checker$n.$1" 2>&1 &
		CHECKER[$n]=$!
	done
	for n in $(seq 1 "$NLB"); do
		wait_for 60 "lb$n's checker acts" grep -q "acting on results" "$W/checker$n.$1"
		[ "$1" != fleet ] || wait_for 30 "lb$n's checker votes" grep -q "fleet: voting" "$W/checker$n.$1"
	done
}

checkers_stop()
{
	local n
	for n in $(seq 1 "$NLB"); do
		kill "${CHECKER[$n]}"
		wait "${CHECKER[$n]}" 2>/dev/null || true
	done
}

# be_kill M: every process of backend M, its server's connections closed.
be_kill()
{
	local pid
	for pid in $(ip netns pids "$P-be$1"); do kill "$pid"; done
	while [ -n "$(ip netns pids "$P-be$1")" ]; do sleep 0.1; done
}

be_revive()
{
	rm -f "$W/be$1.ready"
	ip netns exec "$P-be$1" "$PY" "$LIBDIR/fleet_conns.py" serve "be$1" "$VPORT" "$W/be$1.ready" \
		"$VIP4" "$(be_addr "$1")" >>"$W/be$1.log" 2>&1 &
	wait_for 30 "server be$1 listens" test -e "$W/be$1.ready"
}

# marked T0 HEALTH N: when LB N's kernel first marked be3 of the TCP
# service HEALTH after T0 (empty if not yet).
marked()
{
	awk -v t="$1" -v re="^backend set $VIP4:$VPORT $(be_addr 3)(:$VPORT)? proto tcp .*health $2" \
		'$1 > t { l = $0; sub(/^[^ ]+ /, "", l); if (l ~ re) { print $1; exit } }' "$W/mon$3"
}

all_marked() { local n; for n in $(seq 1 "$NLB"); do [ -n "$(marked "$1" "$2" "$n")" ] || return 1; done; }

# spread T0 HEALTH: once every LB marked be3 HEALTH, "FIRST LAST SPREAD":
# seconds from T0 to the first LB's change and to the last one's, and
# between the two.
spread()
{
	local n
	wait_for 60 "every LB marks be3 $2" all_marked "$1" "$2"
	for n in $(seq 1 "$NLB"); do marked "$1" "$2" "$n"; done |
		awk -v t="$1" 'NR == 1 || $1 < a { a = $1 } NR == 1 || $1 > b { b = $1 }
			END { printf "%.3f %.3f %.3f", a - t, b - t, b - a }'
}

# health_rounds MODE: the rounds under one client; $W/spread.MODE gets
# "down FIRST LAST SPREAD" and "up ..." a line each; ON3 the TCP
# connections that were on be3, BROKEN those of other backends reset.
health_rounds()
{
	local r t0 d u
	client_start "health-$1" || die "the flows did not start ($1)"
	: >"$W/spread.$1"
	for r in $(seq 1 "$HROUNDS"); do
		t0=$(now)
		be_kill 3
		d=$(spread "$t0" down)
		fingerprints_agree
		if [ "$1" = fleet ] && [ "$r" = 1 ]; then
			fstatus wait 10s >"$W/st.h" || die "fleet status with be3 down everywhere: $(cat "$W/st.h")"
		fi
		t0=$(now)
		be_revive 3
		u=$(spread "$t0" up)
		fingerprints_agree
		echo "# $1 round $r: down first/last/spread $d s; up $u s"
		echo "down $d" >>"$W/spread.$1"
		echo "up $u" >>"$W/spread.$1"
	done
	client_stop
	read -r ON3 BROKEN <<<"$(awk '$1 == "tcp" { on = ($0 ~ /backends=([^ ]*,)?be3(,| |$)/); b += on
		if (!on && $3 == "reset=1") r++ } END { print b + 0, r + 0 }' "$FCLIENT.report")"
}

# spread_list MODE DIR: the spreads of DIR (down or up), "a/b/c".
spread_list() { awk -v d="$2" '$1 == d { printf "%s%s", s, $4; s = "/" }' "$W/spread.$1"; }
spread_max() { awk -v d="$2" '$1 == d && $4 > m { m = $4 } END { printf "%.3f", m }' "$W/spread.$1"; }
first_range() { awk -v d="$2" '$1 == d { if (!n++ || $2 < a) a = $2; if ($3 > b) b = $3 } END { printf "%.1f-%.1f", a, b }' "$W/spread.$1"; }

checkers_start alone
health_rounds alone
[ "$BROKEN" = 0 ] || die "checkers alone: $BROKEN connections of other backends than be3 broken"
pass "health, checkers alone: be3 killed $HROUNDS times, every LB marked it down $(first_range alone down) s after, spread $(spread_list alone down) s (up: $(spread_list alone up) s); $ON3 connections were on be3, 0 of the others broken"

checkers_stop
HQUORUM=51%
for n in $(seq 1 "$NLB"); do agent_stop "$n"; agent_start "$n"; done
fstatus wait 30s >/dev/null || die "no agreement with health-quorum"
checkers_start fleet
health_rounds fleet
[ "$BROKEN" = 0 ] || die "fleet health: $BROKEN connections of other backends than be3 broken"
# Every agent applied each verdict at the same revision of the votes.
for n in $(seq 1 "$NLB"); do
	grep -oE "health [0-9]+: (down|up) $VIP4:$VPORT tcp $(be_addr 3)(:$VPORT)?" "$W/sync$n.out" >"$W/verdicts$n" || true
done
[ "$(grep -c down "$W/verdicts1")" = "$HROUNDS" ] || die "lb1's agent: not $HROUNDS downs: $(cat "$W/verdicts1")"
for n in $(seq 2 "$NLB"); do
	cmp -s "$W/verdicts1" "$W/verdicts$n" || die "lb$n's verdicts differ from lb1's: $(diff "$W/verdicts1" "$W/verdicts$n" | tr '\n' ' ')"
done
max=$(spread_max fleet down)
if awk -v t="$max" -v m="$SPREAD_TARGET" 'BEGIN { exit !(t <= m) }'; then
	target="at most ${max} s, the ${SPREAD_TARGET} s target met"
else
	target="at most ${max} s, over the ${SPREAD_TARGET} s target (a starved guest: see the first/last times above)"
fi
pass "health, fleet (quorum 51%): be3 killed $HROUNDS times, every LB marked it down $(first_range fleet down) s after at the same revision, spread $(spread_list fleet down) s, $target (up: $(spread_list fleet up) s; checkers alone: $(spread_list alone down) s); $ON3 connections were on be3, 0 of the others broken; fleet status 0 with be3 down"
