#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The health checker's guards, against real servers: rs_server.py on 8080
# of four backends (tcp checks), a TCP listener on the client side as the
# checker's "gateway" (its self-check), quorum commands writing a file.
#
#   hg-cli                 hg-lb                              hg-b1 .. hg-b4
#  +----------------+    +-------------------------------+    +--------------+
#  | "gateway"      +----+ lb-cli (set down = uplink      +----+ rs_server    |
#  | 10.1.0.2:2222  |veth|   lost)                       |veth| 8080         |
#  | rs_server      |    | ringctl health run hg.conf:   |    +--------------+
#  +----------------+    |  self-check tcp 10.1.0.2:2222 |
#                        |  check tcp, rise 2 fall 2     |
#                        |  guard max-down 25%           |
#                        |  damping flaps 2 within 5m    |
#                        |    stable 6s                  |
#                        |  on-quorum-loss/gain: a file  |
#                        +-------------------------------+
#
# 1. The gateway fails (the LB's uplink down): a killed backend is held up,
#    nothing changes; the gateway back, it goes down.
# 2. Half the backends killed at once: at most 25% of them (one) down, the
#    quorum lost and on-quorum-loss run; back, on-quorum-gain run.
# 3. Flapping: a backend down for the second time in 5 minutes comes up
#    only after 6 s of good probes (the checker says it was damped), one
#    down once after rise.

set -e
P=hg
. "$(dirname "$0")/lib/topo.sh"
. "$(dirname "$0")/lib/health.sh"
health_setup 4
cli "$PY" "$LIBDIR/rs_server.py" gw 2222 "$W/gw.ready" &
disown
until_true "gateway listener" test -e "$W/gw.ready"
health_service 4
# The quorum commands are the rest of their lines, run by sh -c.
cat >"$W/hg.conf" <<EOF
self-check tcp 10.1.0.2:2222 interval 1s timeout 900ms rise 2 fall 2 jitter 0%
service $SVC4
	check tcp interval 1s timeout 900ms rise 2 fall 2 jitter 0%
	guard max-down 25%
	damping flaps 2 within 5m stable 6s
	on-quorum-loss echo "\$RINGSTEER_EVENT \$RINGSTEER_SERVICE" >>$W/quorum.log
	on-quorum-gain echo "\$RINGSTEER_EVENT \$RINGSTEER_SERVICE" >>$W/quorum.log
EOF
checker_start "$W/hg.conf"
until_true "READY=1" notified READY=1
[ "$(ndown)" = 0 ] || die "a backend down at start"

# 1. The checker's own network fails: nothing changes.
lb ip link set lb-cli down
until_true "frozen" grep -q '^STATUS=.*frozen: a self-check fails' "$W/notify.log"
kill_backend 1
until_true "b1's down held" logged "backend $(be4 1): down held: a self-check fails"
is_health 1 up || die "b1 marked down while the gateway fails"
[ "$(ndown)" = 0 ] || die "a backend marked down while the gateway fails"
lb ip link set lb-cli up
until_true "b1 down once the gateway is back" is_health 1 down
pass "gateway failing: b1's down held; gateway back: b1 down"
rs_start 1
until_true "b1 up" is_health 1 up
logged "backend $(be4 1): up after 2 good probes" || die "b1 not up after rise=2 probes"

# 2. Half the backends at once: one (25%) down, the quorum lost.
[ ! -e "$W/quorum.log" ] || die "a quorum command ran early: $(cat "$W/quorum.log")"
kill_backend 2
kill_backend 3
until_true "quorum lost" grep -qsx "quorum-loss $SVC4" "$W/quorum.log"
until_true "one of b2, b3 down" ndown_is 1
logged "kept up after 2 failed probes" || die "no refused down logged"
# More probe rounds change nothing more (an absence: 3 more rounds).
sleep 3
[ "$(ndown)" = 1 ] || die "$(ndown) down, max-down 25% of 4 is 1"
is_health 1 up && is_health 4 up || die "a live backend went down"
[ "$(grep -c quorum-loss "$W/quorum.log")" = 1 ] || die "on-quorum-loss ran more than once"
rs_start 2
rs_start 3
until_true "quorum regained" grep -qsx "quorum-gain $SVC4" "$W/quorum.log"
until_true "all up" ndown_is 0
pass "half the backends killed: 1 down (25%), on-quorum-loss, then on-quorum-gain"

# 3. Flapping: b1's second down within 5 min needs 6 s of good probes.
kill_backend 1
until_true "b1 down again" is_health 1 down
rs_start 1
until_true "b1 up again" is_health 1 up
line=$(grep -F "backend $(be4 1): up after" "$W/checker.log" | tail -n 1)
grep -q 'good probes in .* s (damped: flapping)$' <<<"$line" || die "a flapping b1 came up undamped: $line"
# The checker's own count of the good time (not a clock of the test's).
secs=$(sed -E 's/.* in ([0-9]+)\.[0-9] s .*/\1/' <<<"$line")
[ "$secs" -ge 6 ] || die "a flapping b1 came up after $secs s of good probes, stable is 6 s"
! grep -F "backend $(be4 2): up after" "$W/checker.log" | grep -q damped || die "b2 (one down) damped"
pass "flapping b1: '${line#*: up after }'; b2, down once, was up after rise"
checker_stop
