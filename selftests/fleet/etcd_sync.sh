#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fleet from etcd (doc/fleet.md): an etcd in a namespace of its own,
# "ringctl sync run" on each LB applying PREFIX/config to its kernel, 100
# TCP connections and 10 UDP flows through the VIP all along:
#   - the configuration written once: every LB reports its revision, and
#     fleet status exits 0, within FLEET_SYNC_MAX (2 s);
#   - be4 added and be1 drained by one etcd write under load: no
#     connection broken;
#   - a revision with a syntax error: no LB changes, fleet status exits 2
#     and names the error;
#   - etcd stopped and started: no LB changes anything;
#   - lb2 cut off from etcd: stale, its on-stale withdraws its VIP from
#     BIRD, the router stops sending to it, no connection broken;
#   - one LB with another local key: fleet status exits 2 and names it.
#
#  fl-cli ---- fl-rtr ==ECMP== fl-lb1..3 (ringsteer tunnel, ringctl sync)
#                |     ------  fl-be1..4 (ringsteer-backend up)
#                +------------ fl-etcd   (etcd 10.4.0.2:2379)

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

ETCD_EP=http://10.4.0.2:2379
etn() { ip netns exec "$P-etcd" "$@"; }
ectl() { ETCDCTL_API=3 etn timeout 20 etcdctl --endpoints http://127.0.0.1:2379 --dial-timeout=3s --command-timeout=10s "$@"; }

etcd_start()
{
	etn etcd --name e --data-dir "$W/etcd" \
		--listen-client-urls "$ETCD_EP,http://127.0.0.1:2379" --advertise-client-urls "$ETCD_EP" \
		--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster e=http://127.0.0.1:2380 >>"$W/etcd.log" 2>&1 &
	ETCD_PID=$!
	wait_for 60 "etcd answers" ectl endpoint health
}

etcd_stop() { kill "$ETCD_PID"; wait "$ETCD_PID" 2>/dev/null || true; }

newns "$P-etcd"
fleet_link "$P-rtr" rtr-etcd 10.4.0.1 "$P-etcd" eth0 10.4.0.2 24 200
ip -n "$P-etcd" route add default via 10.4.0.1
etcd_start

(umask 077; echo "$KEY" >"$W/key"; echo 0f0e0d0c0b0a09080706050403020100 >"$W/otherkey")
# fleet_file HOST KEYFILE: the fleet file of HOST.
fleet_file()
{
	cat <<-EOF
	endpoints $ETCD_EP
	prefix /rs
	host $1
	key-file $2
	timeout 1s
	lease-ttl 4s
	stale-timeout 15s
	status-interval 500ms
	EOF
}
fleet_file admin "$W/key" >"$W/admin.conf"

declare -A AGENT=()
agent_start()	# N [KEYFILE]
{
	fleet_file "lb$1" "${2:-$W/key}" >"$W/lb$1.conf"
	# ip netns exec, not lbn: a function in the background is a subshell,
	# and killing it would leave the agent running.
	ip netns exec "$P-lb$1" "$RINGCTL" sync run "$W/lb$1.conf" >>"$W/sync$1.out" 2>&1 &
	AGENT[$1]=$!
}
agent_stop() { kill "${AGENT[$1]}"; wait "${AGENT[$1]}" 2>/dev/null || true; }


put_config()	# TEXT on stdin: prints its revision
{
	ectl put /rs/config >/dev/null && ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision'
}

fstatus() { lbn 1 "$RINGCTL" fleet status "$W/admin.conf" "$@"; }
saves() { local n; for n in $(seq 1 "$NLB"); do lbn "$n" "$RINGCTL" save; lbn "$n" "$RINGCTL" fingerprint; done; }
resets() { awk '{ print $2 }' "$FCLIENT.report.progress"; }
settle() { poll_until 30 answered_since "$(now)" || echo "# $1: some flows had no answer 30 s later"; }

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
err_all() { local n; for n in $(seq 1 "$NLB"); do
	[ "$(ectl get /rs/status/lb$n --print-value-only | jq -r .error.revision)" = "$bad" ] || return 1; done; }
wait_for 20 "every LB refuses $bad" err_all
set +e
out=$(fstatus 2>&1); rc=$?
set -e
[ "$rc" = 2 ] || die "fleet status exit $rc on a bad revision: $out"
echo "$out" | grep -q "weight '0x'" || die "fleet status does not name the error: $out"
saves >"$W/after"
cmp -s "$W/before" "$W/after" || die "an LB changed on a bad revision: $(diff "$W/before" "$W/after" | head -5)"
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put the good revision again"
fstatus wait 30s >/dev/null || die "no recovery at $rev"
pass "revision $bad with a syntax error: refused on every LB, nothing changed, fleet status 2 naming it; $rev recovered"

# -- etcd stopped, then started: no LB changes anything.
saves >"$W/before"
etcd_stop
sleep 6
saves >"$W/during"
cmp -s "$W/before" "$W/during" || die "an LB changed without etcd"
etcd_start
out=$(fstatus wait 60s) || die "no agreement after etcd came back: $out"
saves >"$W/after"
cmp -s "$W/before" "$W/after" || die "an LB changed when etcd came back"
settle "etcd restarted"
[ "$(resets)" = 0 ] || die "$(resets) connections reset while etcd was away"
client_stop
pass "etcd stopped for 6 s and started: no LB changed anything, fleet status 0 again, 0 of $CONNS connections broken"

# -- lb2 cut off from etcd, then a new revision (the same text: its ring
# does not move): lb2 stale, its on-stale withdraws its VIP, the router
# stops sending to it, no connection lost; back, on-fresh announces again.
# New connections: those that a flow table keeps off the ring (on be1,
# draining, or moved by be4's arrival) would break on another LB, which
# is fleet/ring_tunnel.sh's matter, not the agent's.
client_start cut || die "the flows did not start for the cut"
agent_stop 2
fleet_file lb2 "$W/key" | sed 's/^stale-timeout .*/stale-timeout 3s/' >"$W/lb2.conf"
echo "on-stale birdc -s $W/$P-lb2.ctl disable vip" >>"$W/lb2.conf"
echo "on-fresh birdc -s $W/$P-lb2.ctl enable vip" >>"$W/lb2.conf"
ip netns exec "$P-lb2" "$RINGCTL" sync run "$W/lb2.conf" >>"$W/sync2.out" 2>&1 &
AGENT[2]=$!
fstatus wait 30s >/dev/null || die "lb2 did not come back with on-stale"
echo "table ip cut { chain out { type filter hook output priority -400; policy accept; ip daddr 10.4.0.2 drop; }; }" |
	lbn 2 nft -f - || die "lb2: nft cut"
t0=$(now)
rev=$(tunnel_services 1:draining 2 3 4 | put_config) || die "put the same configuration again"
wait_for 30 "rtr's route without lb2" routes_are "rtr-lb1 rtr-lb3"
took=$(elapsed "$t0")
set +e
out=$(fstatus 2>&1); rc=$?
set -e
echo "$out" | sed 's/^/# /'
[ "$rc" = 2 ] || die "fleet status exit $rc with lb2 cut off"
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
set +e
out=$(fstatus wait 10s 2>&1); rc=$?
set -e
echo "$out" | sed 's/^/# /'
[ "$rc" = 2 ] || die "fleet status exit $rc with lb3 on another key"
echo "$out" | grep -Eq '^lb3 .*(differ|another key)' || die "fleet status does not name lb3: $out"
echo "$out" | grep -Eq '^lb1 +ok' || die "lb1 not ok: $out"
agent_stop 3
agent_start 3
fstatus wait 30s >/dev/null || die "no agreement with lb3's key back"
pass "lb3 with another local key: fleet status 2 naming lb3; its key back, 0 again"
