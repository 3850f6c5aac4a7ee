#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The health checker under a real systemd, from the unit ringsteer ships
# (dist/systemd/ringsteer-health.service.in): a hung checker is killed by
# the watchdog and restarted, and the new one keeps what the kernel has.
# The VM boots no systemd; the root's systemd (252 on Debian 12, 257 on
# Debian 13) runs here as PID 1 of a PID and mount namespace of its own,
# with its own /proc (container=, as under systemd-nspawn), and the units
# in /run/systemd/system.
#
#   hs-cli              hs-lb                                hs-b1 .. hs-b3
#  +-----------+      +--------------------------------+     +----------------+
#  | (none)    +------+ VIP 10.0.0.100:80 -> b1..b3    +-----+ rs_server 8080 |
#  |           | veth |                                |veth | http /health   |
#  +-----------+      +--------------------------------+     |   8081         |
#                       ^ NetworkNamespacePath=              +----------------+
#  systemd (PID 1 of its own PID namespace)
#    ringsteer-health.service: the shipped unit, with a drop-in for the
#      namespace and a 5 s watchdog; ringsteer.service: a stand-in (the
#      test loads and configures the module itself)
#
# 1. The unit starts: READY=1 (ActiveState active) after the first round.
# 2. A killed backend is marked down by the checker systemd runs.
# 3. SIGSTOP on the checker: systemd's watchdog kills it and Restart=
#    starts a new one (NRestarts 1, another MainPID), active again.
# 4. The restarted checker starts from the kernel: b1 (still dead) stays
#    down, no other goes down, and b1 comes up from its probes once it
#    serves again.

set -e
P=hs
. "$(dirname "$0")/lib/topo.sh"
. "$(dirname "$0")/lib/health.sh"
SYSTEMD=/lib/systemd/systemd
[ -x "$SYSTEMD" ] || die "no $SYSTEMD (make deps installs systemd)"
UNITS=/run/systemd/system
UNIT=ringsteer-health.service
SD=
SDU=

# Killing systemd, PID 1 of its namespace, kills unshare with the same
# signal: reaped here, bash does not report it later as a killed job.
sd_cleanup()
{
	[ -z "$SD" ] || kill -KILL "$SD" 2>/dev/null || true
	[ -z "$SDU" ] || wait "$SDU" 2>/dev/null || true
	rm -rf "$UNITS/$UNIT" "$UNITS/$UNIT.d" "$UNITS/ringsteer.service"
}
health_setup 3
trap 'rc=$?; [ $rc = 0 ] || [ -z "$SD" ] || unit_status >&2; sd_cleanup; topo_cleanup' EXIT

# sd CMD...: systemctl in systemd's namespaces (its PIDs, its mounts).
sd() { nsenter -t "$SD" -p -m systemctl --no-pager "$@"; }
# prop NAME: one property of the checker's unit.
prop() { sd show -p "$1" --value "$UNIT" 2>/dev/null; }
prop_is() { [ "$(prop "$1")" = "$2" ]; }
# status exits 3 for a unit not active: the jobs after it say what a
# start waits for.
unit_status()
{
	echo "unit:"
	sd status "$UNIT" ringsteer.service || true
	sd list-jobs || true
}

for i in 1 2 3; do
	http_start "$i"
done
health_service 3
# ProtectHome= hides /root, where a newcomer's clone may be: the unit
# runs a copy of ringctl and reads its file from the test's directory.
mkdir -p "$W/sbin" "$W/etc/ringsteer"
cp "$RINGCTL" "$W/sbin/ringctl"
cat >"$W/etc/ringsteer/health.conf" <<EOF
service $SVC4
	check http path /health port $HPORT interval 1s timeout 900ms rise 2 fall 2 jitter 0%
EOF
mkdir -p "$UNITS/$UNIT.d"
sed -e "s|@SBINDIR@|$W/sbin|g" -e "s|@SYSCONFDIR@|$W/etc|g" \
	"$RINGSTEER_SRC/dist/systemd/ringsteer-health.service.in" >"$UNITS/$UNIT"
# The checker's namespace, a watchdog the test need not wait 10 s for,
# and no default dependencies: sysinit.target would start the host
# root's units in here.
cat >"$UNITS/$UNIT.d/test.conf" <<EOF
[Unit]
DefaultDependencies=no
[Service]
NetworkNamespacePath=/run/netns/$P-lb
WatchdogSec=5s
EOF
cat >"$UNITS/ringsteer.service" <<EOF
[Unit]
Description=stand-in: the test loaded and configured ringsteer
DefaultDependencies=no
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
EOF
# Its own /proc, as a container has: systemd 257 learns a child's PID
# from its pidfd (/proc/self/fdinfo), which gives the PID in the pid
# namespace of the /proc mounted; with the VM's it is not one of systemd's,
# no exit is ever noticed and the first oneshot's start job never ends.
# systemd logs to /dev/console as PID 1 of a container: the VM's console
# log, kept in the run's directory.
unshare --pid --fork --mount --mount-proc --propagation private env container=ringsteer-test \
	"$SYSTEMD" --unit="$UNIT" --log-target=console --log-level=info --show-status=no \
	</dev/null >/dev/null 2>&1 &
SD=$!
SDU=$SD
# unshare forks: systemd is its child, PID 1 inside.
for t in $(seq 1 100); do
	pid=$(pgrep -P "$SD" -x systemd) && break
	sleep 0.1
done
[ -n "$pid" ] || die "systemd did not start"
SD=$pid

# 1. Active once READY=1 came, after the first full round.
until_true "the unit active" prop_is ActiveState active
[ "$(ndown)" = 0 ] || die "$(ndown) backends down at start, all are up"
first=$(prop MainPID)
pass "systemd started $UNIT from the shipped unit: active (READY=1), MainPID $first"

# 2. The checker systemd runs marks a killed backend down.
kill_backend 1
until_true "b1 down" is_health 1 down
pass "a killed backend is marked down"

# 3. A hung checker: the watchdog kills it, Restart= starts another.
nsenter -t "$SD" -p -m kill -STOP "$first"
until_true "a restart after the watchdog" prop_is NRestarts 1
until_true "the new checker active" prop_is ActiveState active
[ "$(prop MainPID)" != "$first" ] || die "MainPID $first still, after a restart"
pass "the stopped checker was restarted by the watchdog (MainPID $first -> $(prop MainPID))"

# 4. Restarted, it starts from the kernel's health; probes bring b1 up.
is_health 1 down || die "the restart dropped b1's down"
[ "$(ndown)" = 1 ] || die "$(ndown) backends down after the restart, 1 was"
rs_start 1
http_start 1
until_true "b1 up" is_health 1 up
[ "$(prop NRestarts)" = 1 ] || die "restarted again: NRestarts $(prop NRestarts)"
pass "after the restart b1 stayed down, no other went down, its probes brought it up"
