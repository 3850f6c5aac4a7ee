#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The health checker (ringctl health run) against real servers: an HTTP
# server (/health on 8081) and rs_server.py (the traffic, 8080) on each of
# four backends, clients through the VIP, a notification listener in place
# of systemd (the VM has none).
#
#   hb-cli              hb-lb                                 hb-b1 .. hb-b4
#  +-----------+      +--------------------------------+     +----------------+
#  | clients   +------+ VIP 10.0.0.100:80 -> b1..b4    +-----+ rs_server 8080 |
#  | 10.1.0.2  | veth | ringctl health run hc.conf     |veth | http /health   |
#  +-----------+      |   http :8081 every 2 s,        |     |   8081         |
#                     |   rise 3 fall 2                |     +----------------+
#                     | notify_listen.py (NOTIFY_SOCKET)|
#                     +--------------------------------+
#
# 1. A bad file: an error naming its line, the checker does not start, a
#    dead backend stays up.
# 2. READY=1 after the first full round; nothing marked down that is up.
# 3. A killed backend goes down after 'fall' failed probes; only its flows
#    move (lookup of 2,000 flows), and clients through the VIP never reach
#    it and get the backend lookup names.
# 4. It comes back after 'rise' good probes to the exact previous mapping.
# 5. While it is down, restore (what systemctl reload runs) and an
#    operator's drain and activate keep it down and out of the ring.
# 6. SIGTERM leaves the kernel as it is; a new checker keeps the down (no
#    drop) and adds none (no invention), then brings it up from its probes.
# 7. WATCHDOG=1 comes from the loop: none while the checker is stopped
#    (SIGSTOP), again after SIGCONT.

set -e
P=hb
. "$(dirname "$0")/lib/topo.sh"
. "$(dirname "$0")/lib/health.sh"
health_setup 4
for i in 1 2 3 4; do
	http_start "$i"
done
health_service 4
cat >"$W/hc.conf" <<EOF
# four web backends, checked on their /health
service $SVC4
	check http path /health port $HPORT interval 2s timeout 1900ms rise 3 fall 2 jitter 0%
EOF
cmd_ok "$RINGCTL" health check "$W/hc.conf" >/dev/null

# 1. A bad file.
kill_backend 4
printf 'service %s\n\tcheck http port %s\n\tguard max-down 50\n' "$SVC4" "$HPORT" >"$W/bad.conf"
cmd_fail lb "$RINGCTL" health run "$W/bad.conf"
msg=$(lb "$RINGCTL" health run "$W/bad.conf" 2>&1 || true)
grep -qF "$W/bad.conf:3: max-down '50' is not valid" <<<"$msg" ||
	die "bad file: want its line 3 named, got: $msg"
cmd_fail "$RINGCTL" health check "$W/bad.conf"
is_health 4 up || die "a bad file changed a backend"
pass "a bad file: '$msg', nothing changed"
rs_start 4
http_start 4

# 2. The first round.
checker_start "$W/hc.conf" WATCHDOG_USEC=1000000
until_true "READY=1" notified READY=1
logged "every backend probed enough times" || die "READY=1 before the first full round"
[ "$(ndown)" = 0 ] || die "$(ndown) backends marked down at start, all are up"
grep -q '^STATUS=1 services, 4 backends, 0 down$' "$W/notify.log" || die "no STATUS line: $(cat "$W/notify.log")"
lookup_with 0 20000-21999 >"$W/base"
pass "READY=1 after the first round, 4 up, STATUS sent"

# 3. Killed: down after fall probes, only its flows move, no client reaches it.
kill_backend 2
until_true "b2 down" is_health 2 down
logged "backend $(be4 2): down after 2 failed probes" || die "b2 not down after fall=2 probes: $(cat "$W/checker.log")"
lookup_with 1 20000-21999 >"$W/down"
moves "$W/base" "$W/down" >"$W/moves"
[ -s "$W/moves" ] || die "nothing moved when b2 went down"
awk '$1 != "b2" { bad = 1 } END { exit bad }' "$W/moves" ||
	die "flows of other backends moved: $(cat "$W/moves")"
! grep -q ' b2$' "$W/down" || die "flows still map to b2"
traffic 20000-20199 >"$W/traffic"
no_failures "$W/traffic" "clients while b2 is down"
! grep -q ' b2$' "$W/traffic" || die "a client reached b2"
head -n 200 "$W/down" >"$W/down200"
[ "$(ndown)" = 1 ] || die "another backend went down during the traffic: $(ndown) down"
expect_same "$W/traffic" "$W/down200" "clients against lookup while b2 is down"
pass "b2 down after 2 failed probes: $(awk '{ n += $3 } END { print n }' "$W/moves") flows moved, all b2's; clients as lookup says"

# 4. Back after rise probes, the exact mapping.
rs_start 2
http_start 2
until_true "b2 up" is_health 2 up
logged "backend $(be4 2): up after 3 good probes" || die "b2 not up after rise=3 probes"
lookup_with 0 20000-21999 >"$W/back"
expect_same "$W/back" "$W/base" "mapping after b2 came back"
pass "b2 up after 3 good probes, the exact previous mapping"

# 5. Down: restore, drain and activate keep it down.
kill_backend 2
until_true "b2 down again" is_health 2 down
rctl save >"$W/saved"
cmd_ok rctl restore "$W/saved"
is_health 2 down || die "restore brought b2 up"
cmd_ok rctl backend drain "$SVC4" "$(be4 2)"
cmd_ok rctl backend activate "$SVC4" "$(be4 2)"
is_health 2 down || die "activate brought b2 up"
lookup_with 1 20000-21999 >"$W/down2"
expect_same "$W/down2" "$W/down" "mapping after restore, drain and activate of a down b2"
pass "restore, drain and activate keep a down b2 down and out of the ring"

# 6. A restart: neither drops nor invents a down.
checker_stop
notified STOPPING=1 || die "no STOPPING=1"
is_health 2 down || die "stopping the checker changed b2"
[ "$(ndown)" = 1 ] || die "stopping the checker changed the kernel: $(ndown) down"
checker_start "$W/hc.conf" WATCHDOG_USEC=1000000
until_true "READY=1 again" notified READY=1 2
is_health 2 down || die "the new checker dropped b2's down"
[ "$(ndown)" = 1 ] || die "the new checker invented a down: $(ndown) down"
rs_start 2
http_start 2
until_true "b2 up after the restart" is_health 2 up
pass "after a restart b2 stayed down, nothing else went down, then b2 came up"

# 7. The watchdog pings come from the loop.
n=$(grep -cx WATCHDOG=1 "$W/notify.log")
until_true "watchdog pings" notified WATCHDOG=1 $((n + 2))
kill -STOP "$CHECKER"
sleep 0.5
n=$(grep -cx WATCHDOG=1 "$W/notify.log")
sleep 2
[ "$(grep -cx WATCHDOG=1 "$W/notify.log")" = "$n" ] || die "watchdog pings from a stopped checker"
kill -CONT "$CHECKER"
until_true "pings after SIGCONT" notified WATCHDOG=1 $((n + 1))
checker_stop
pass "WATCHDOG=1 every half second from the loop, none while it is stopped"
