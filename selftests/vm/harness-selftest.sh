#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-selftest.sh KVER: the VM harness must fail a run whose kernel log
# shows a WARNING, say why and where the log is, and must pass through the
# command's exit status otherwise. Prints KTAP.

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
echo "1..3"
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
rm -f "$err"
exit $failed
