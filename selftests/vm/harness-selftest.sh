#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-selftest.sh KVER: the VM harness must fail a run whose kernel log
# shows a WARNING, say why and where the log is, and must pass through the
# command's exit status otherwise; a guest panic must be a failure of its
# own, named as a panic, and the cases a dead guest never ran must count
# (ktap-tally.sh, as make check counts them). Prints KTAP.

set -uo pipefail
kver=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$repo/build/warnmod/$kver

mkdir -p "$build"
cp -p "$here/warnmod/warnmod.c" "$here/warnmod/Kbuild" "$build/"
if ! make -C "/lib/modules/$kver/build" M="$build" modules >"$build/build.log" 2>&1; then
	cat "$build/build.log"
	echo "Bail out! cannot build warnmod"
	exit 1
fi

echo "TAP version 13"
echo "1..7"
err=$(mktemp)
failed=0

bash "$here/run.sh" -k "$kver" -t 120 -- insmod "$build/warnmod.ko" >/dev/null 2>"$err"
rc=$?
cat "$err" | sed 's/^/# /'
if [ $rc -ne 0 ] && grep -q 'kernel log shows a problem' "$err" &&
   grep -q 'full log: .*vm.log' "$err" && [ -s "$(sed -n 's/.*full log: //p' "$err")" ]; then
	echo "ok 1 $kver:harness fails a run whose kernel WARNs, log path shown"
else
	echo "not ok 1 $kver:harness fails a run whose kernel WARNs, log path shown"
	failed=1
fi

bash "$here/run.sh" -k "$kver" -t 120 -- sh -c 'exit 7' >/dev/null 2>"$err"
rc=$?
if [ $rc -eq 7 ]; then
	echo "ok 2 $kver:harness returns the command's exit status"
else
	echo "not ok 2 $kver:harness returns the command's exit status # got $rc"
	failed=1
fi

bash "$here/run.sh" -k "$kver" -t 5 -- sleep 60 >/dev/null 2>"$err"
rc=$?
if [ $rc -eq 124 ] && grep -q 'did not report' "$err"; then
	echo "ok 3 $kver:harness enforces its timeout"
else
	echo "not ok 3 $kver:harness enforces its timeout # got $rc"
	failed=1
fi
# What make check would count from a log: "STATUS NAME" lines.
. "$here/ktap-tally.sh"
record() { echo "$1 $2"; }
tally_of() { ktap_tally t "$1" "$2"; }

# A guest that passes one case of two, then panics: its report is shown.
out=$(mktemp)
bash "$here/run.sh" -k "$kver" -t 300 -- \
	sh -c 'echo "1..2"; echo "ok 1 before"; sleep 1; echo c >/proc/sysrq-trigger; sleep 30' \
	>"$out" 2>&1
rc=$?
tally=$(tally_of "$out" "$rc")
sed 's/^/# /' <<<"$tally"
if [ $rc -eq 125 ] && grep -qx 'fail t: guest kernel panicked' <<<"$tally" &&
   grep -qx 'fail t (1 of 2 cases never reported)' <<<"$tally" &&
   grep -qx 'ok t: 1 before' <<<"$tally" &&
   grep -q '^#   console: .*Kernel panic - not syncing: sysrq triggered crash' <<<"$tally"; then
	echo "ok 4 $kver:a guest panic is its own failure, and the cases it cut short count"
else
	echo "not ok 4 $kver:a guest panic is its own failure, and the cases it cut short count # rc $rc"
	failed=1
fi

# The serial console ends every line in \r: "1..24\r" is still a plan.
{
	printf '1..24\r\n'
	for i in $(seq 1 20); do printf 'ok %d case%d\r\n' "$i" "$i"; done
} >"$out"
tally=$(tally_of "$out" 124)
if grep -qx 'fail t (4 of 24 cases never reported)' <<<"$tally" &&
   [ "$(grep -c '^ok ' <<<"$tally")" -eq 20 ]; then
	echo "ok 5 $kver:cases missing from a plan that came through the console count"
else
	sed 's/^/# /' <<<"$tally"
	echo "not ok 5 $kver:cases missing from a plan that came through the console count"
	failed=1
fi

# A failed case does not hide what the harness saw afterwards.
printf '1..1\nnot ok 1 broken\nrun.sh: %s: kernel log shows a problem\nrun.sh: %s: full log: x\n' \
	"$kver" "$kver" >"$out"
tally=$(tally_of "$out" 1)
if grep -qx 'fail t: kernel log shows a problem' <<<"$tally" &&
   grep -qx 'fail t: 1 broken' <<<"$tally" && [ "$(wc -l <<<"$tally")" -eq 2 ]; then
	echo "ok 6 $kver:a kernel report after a failed case is a failure of its own"
else
	sed 's/^/# /' <<<"$tally"
	echo "not ok 6 $kver:a kernel report after a failed case is a failure of its own"
	failed=1
fi
# NUL bytes in a log (a 9p file read while the guest extended it, seen
# in make check-fresh on 2026-12-08) made grep call it binary and count
# none of its cases: 16 passed cases reported as "never reported".
{
	printf '1..2\nok 1 first\n# '
	head -c 300 /dev/zero
	printf '\nok 2 second\r\n'
} >"$out"
tally=$(tally_of "$out" 0)
if [ "$(grep -c '^ok ' <<<"$tally")" -eq 2 ] && [ "$(wc -l <<<"$tally")" -eq 2 ]; then
	echo "ok 7 $kver:a log with NUL bytes in it still counts its cases"
else
	sed 's/^/# /' <<<"$tally"
	echo "not ok 7 $kver:a log with NUL bytes in it still counts its cases"
	failed=1
fi
rm -f "$err" "$out"
exit $failed
