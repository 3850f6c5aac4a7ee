#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `systemd-analyze verify` accepts ringsteer.service and
# ringsteer-health.service as `make install`
# writes it: syntax, known keys and values, dependencies that exist, every
# Exec binary present and executable, the man page of Documentation= found.
# systemd need not be running. The install goes to a temporary PREFIX (not
# DESTDIR), so the paths written into the unit are real ones that verify can
# check; MANPATH points man at the installed page.

set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
. selftests/pkg/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s install-files PREFIX="$tmp/usr" SYSCONFDIR="$tmp/etc" >/dev/null
unit=$tmp/usr/lib/systemd/system/ringsteer.service
[ -f "$unit" ] || die "make install-files wrote no $unit"

# verify UNIT: systemd-analyze verify exits 0 and says nothing (unknown
# keys and bad values are only warnings to it).
verify()
{
	local out rc=0
	out=$(MANPATH=$tmp/usr/share/man systemd-analyze verify "$1" 2>&1) || rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ] && return 0
	echo "$out"
	return 1
}

verify "$unit" || die "systemd-analyze verify rejects the unit"
pass "systemd-analyze verify: clean"

# Each kind of mistake verify must catch, on a copy of the unit.
bad=$tmp/bad/ringsteer.service
mkdir -p "$tmp/bad"
while IFS='|' read -r what expr; do
	sed "$expr" "$unit" >"$bad"
	! verify "$bad" >/dev/null || die "verify accepts a unit with $what"
	pass "verify rejects $what"
done <<EOF2
a bad Type|s/^Type=oneshot$/Type=oneshott/
an unknown key|s/^RemainAfterExit=yes$/RemainAfterExits=yes/
a missing ringctl|s|^ExecStart=$tmp/usr/sbin/|ExecStart=$tmp/nowhere/|
EOF2

# The choices the README documents.
grep -qx 'Type=oneshot' "$unit" || die "not a oneshot"
grep -qx 'RemainAfterExit=yes' "$unit" || die "does not stay active after start"
grep -qx 'ExecStartPre=/sbin/modprobe ringsteer' "$unit" || die "no modprobe"
[ "$(sed -n 's/^ExecReload=//p' "$unit")" = "$(sed -n 's/^ExecStart=//p' "$unit")" ] ||
	die "reload does not re-apply the file as start does"
! grep -q '^ExecStop' "$unit" || die "stopping must leave the balancer as it is"
grep -qx 'Before=network-pre.target shutdown.target' "$unit" ||
	die "not ordered before the network"
pass "oneshot, modprobe, reload = start, no ExecStop, before network-pre"

# The health checker's unit: verify (it requires ringsteer.service, which
# must be found beside it), then the choices ringctl(8) and the unit's
# comments document.
health=$tmp/usr/lib/systemd/system/ringsteer-health.service
[ -f "$health" ] || die "make install-files wrote no $health"
verify "$health" || die "systemd-analyze verify rejects the health unit"
pass "systemd-analyze verify ringsteer-health.service: clean"
sed 's/^Type=notify$/Type=notifyy/' "$health" >"$tmp/bad/ringsteer-health.service"
cp "$unit" "$tmp/bad/ringsteer.service"
! verify "$tmp/bad/ringsteer-health.service" >/dev/null || die "verify accepts a bad Type in the health unit"
pass "verify rejects a bad Type in the health unit"
grep -qx 'Type=notify' "$health" || die "the health unit is not Type=notify"
grep -qx 'NotifyAccess=main' "$health" || die "notifications not limited to the main process"
grep -qE '^WatchdogSec=[1-9]' "$health" || die "no watchdog"
grep -qx 'Requires=ringsteer.service' "$health" || die "does not require ringsteer.service"
grep -q '^After=ringsteer.service' "$health" || die "not ordered after ringsteer.service"
grep -qx 'Restart=on-failure' "$health" || die "a watchdog kill is not restarted"
[ "$(sed -n 's/^ExecStartPre=.*ringctl health check //p' "$health")" = \
  "$(sed -n 's/^ExecStart=.*ringctl health run //p' "$health")" ] ||
	die "ExecStartPre does not check the file ExecStart runs"
! grep -q '^ExecStop' "$health" || die "stopping the checker must leave the kernel as it is"
pass "notify, watchdog, restarted, requires ringsteer.service, file checked first, no ExecStop"

# The fleet agent's unit: the same choices as the checker's.
sync=$tmp/usr/lib/systemd/system/ringsteer-sync.service
[ -f "$sync" ] || die "make install-files wrote no $sync"
verify "$sync" || die "systemd-analyze verify rejects the sync unit"
pass "systemd-analyze verify ringsteer-sync.service: clean"
grep -qx 'Type=notify' "$sync" || die "the sync unit is not Type=notify"
grep -qE '^WatchdogSec=[1-9]' "$sync" || die "the sync unit has no watchdog"
grep -qx 'Restart=on-failure' "$sync" || die "a watchdog kill of sync is not restarted"
[ "$(sed -n 's/^ExecStartPre=.*ringctl sync check //p' "$sync")" = \
  "$(sed -n 's/^ExecStart=.*ringctl sync run //p' "$sync")" ] ||
	die "ExecStartPre does not check the file ExecStart runs"
! grep -q '^ExecStop' "$sync" || die "stopping the agent must leave the kernel as it is"
pass "sync: notify, watchdog, restarted, file checked first, no ExecStop"
