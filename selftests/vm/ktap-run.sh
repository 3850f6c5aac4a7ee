#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM: every scenario script selftests/*.sh in turn, each
# in a fresh shell, reported as KTAP. A script exits 0 to pass, 4 to skip
# (kselftest's KSFT_SKIP) and anything else to fail. ARGS, if given, name the
# scripts to run.

cd "$(dirname "$0")/.." || exit 1
per_test_timeout=${RINGSTEER_TEST_TIMEOUT:-900}
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=(*.sh)
fi

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0
failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	name="$RSVM_KVER:${t%.sh}"
	log=$(mktemp)
	start=$SECONDS
	timeout -k 5 "$per_test_timeout" bash "./$t" >"$log" 2>&1
	rc=$?
	sed 's/^/# /' "$log"
	rm -f "$log"
	echo "# $name took $((SECONDS - start)) s"
	case $rc in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;
	*) echo "not ok $n $name # exit status $rc"; failed=$((failed + 1)) ;;
	esac
done
[ $failed -eq 0 ]
