#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh KVER...: everything `make check` runs, in order: module builds for
# each kernel (W=1, no warnings), ringctl and test programs, checkpatch, the
# generated netlink code against its spec, sparse, host unit tests, then the
# VM selftests on each kernel. Every step and every test case is one KTAP
# result; the last line is the total.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
kvers=("$@")
[ ${#kvers[@]} -gt 0 ] || { echo "check.sh: no target kernel installed (make deps)" >&2; exit 1; }

logdir=build/check
rm -rf "$logdir"
mkdir -p "$logdir"
passed=0
failed=0
skipped=0
failures=()

record()
{
	local status=$1 name=$2
	case $status in
	ok) passed=$((passed + 1)); echo "ok - $name" ;;
	skip) skipped=$((skipped + 1)); echo "ok - $name # SKIP" ;;
	*) failed=$((failed + 1)); failures+=("$name"); echo "not ok - $name" ;;
	esac
}

# step NAME CMD...: one result for the whole command.
step()
{
	local name=$1 log
	shift
	log="$logdir/$(tr -c 'A-Za-z0-9.+_-' '_' <<<"$name").log"
	echo "# $name"
	if "$@" >"$log" 2>&1; then
		record ok "$name"
	else
		sed 's/^/#   /' "$log"
		echo "#   log: $log"
		record fail "$name"
	fi
}

# ktap_step NAME CMD...: CMD prints KTAP; each top-level test case counts.
# A command that fails without reporting a failed case (a crash, a
# timeout, a kernel warning) counts as one more failure.
ktap_step()
{
	local name=$1 log rc line n_fail=0 n_ok=0
	shift
	log="$logdir/$(tr -c 'A-Za-z0-9.+_-' '_' <<<"$name").log"
	echo "# $name"
	"$@" 2>&1 | tee "$log" | sed 's/^/#   /'
	rc=${PIPESTATUS[0]}
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) record fail "$name: ${line#not ok }"; n_fail=$((n_fail + 1)) ;;
		"ok "*"# SKIP"*) record skip "$name: ${line#ok }" ;;
		"ok "*) record ok "$name: ${line#ok }"; n_ok=$((n_ok + 1)) ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+' "$log")
	if [ "$rc" -ne 0 ] && [ $n_fail -eq 0 ]; then
		record fail "$name (exit status $rc, log $log)"
	elif [ "$rc" -eq 0 ] && [ $n_ok -eq 0 ]; then
		record fail "$name (no test ran)"
	fi
}

for k in "${kvers[@]}"; do
	step "build module $k" make modules-all TEST_KVERS="$k"
done
step "build ringctl and test programs" make ringctl selftest-bins
step "checkpatch --strict" make style
step "generated netlink code matches the YNL spec" make gen-check
for k in "${kvers[@]}"; do
	step "sparse $k" make sparse KVER="$k"
done

for t in selftests/unit/test_*.c; do
	[ -e "$t" ] || continue
	bin=build/unit/$(basename "$t" .c)
	if make "$bin" >"$logdir/build-$(basename "$bin").log" 2>&1; then
		ktap_step "unit $(basename "$bin")" "$bin"
	else
		cat "$logdir/build-$(basename "$bin").log"
		record fail "unit $(basename "$bin") (build)"
	fi
done

ktap_step "vm harness" bash selftests/vm/harness-selftest.sh "${kvers[0]}"

for k in "${kvers[@]}"; do
	ko=build/kernel/$k/kmod/ringsteer.ko
	if [ ! -e "$ko" ]; then
		record fail "vm $k (module did not build)"
		continue
	fi
	ktap_step "vm $k" bash selftests/vm/run.sh -k "$k" -m "$ko" -- bash selftests/vm/ktap-run.sh
done

if [ $failed -gt 0 ]; then
	echo "# failed:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
