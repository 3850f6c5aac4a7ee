#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh KVER...: everything `make check` runs, in order: module builds for
# each kernel (W=1, no warnings), ringctl and test programs, checkpatch, the
# generated netlink code against its spec, sparse, the package list and the
# kernel-less Makefile checks, packaging (install, completion, systemd unit,
# dkms), host unit tests, then the VM selftests on each kernel and on the
# debug kernel. Every step and every test case is one KTAP result; the last
# line is the total. A "==> [N/M]" line starts each phase; phase 1
# (packages) is the Makefile's.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
kvers=("$@")
[ ${#kvers[@]} -gt 0 ] || { echo "check.sh: no target kernel installed (make deps)" >&2; exit 1; }

logdir=build/check
phases=$((5 + ${#kvers[@]}))
phase()
{
	echo "==> [$1/$phases] $2"
}
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
	local name=$1 log rc line n_fail=0 n_ok=0 n_skip=0 plan
	shift
	log="$logdir/$(tr -c 'A-Za-z0-9.+_-' '_' <<<"$name").log"
	echo "# $name"
	"$@" 2>&1 | tee "$log" | sed 's/^/#   /'
	rc=${PIPESTATUS[0]}
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) record fail "$name: ${line#not ok }"; n_fail=$((n_fail + 1)) ;;
		"ok "*"# SKIP"*) record skip "$name: ${line#ok }"; n_skip=$((n_skip + 1)) ;;
		"ok "*) record ok "$name: ${line#ok }"; n_ok=$((n_ok + 1)) ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+' "$log")
	# A guest that times out after one failed case must not hide the
	# cases that never ran.
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -n1)
	if [ -n "$plan" ] && [ $((n_ok + n_fail + n_skip)) -lt "$plan" ]; then
		record fail "$name ($((plan - n_ok - n_fail - n_skip)) of $plan cases never reported)"
	fi
	if [ "$rc" -ne 0 ] && [ $n_fail -eq 0 ]; then
		record fail "$name (exit status $rc, log $log)"
	elif [ "$rc" -eq 0 ] && [ $n_ok -eq 0 ]; then
		record fail "$name (no test ran)"
	fi
}

phase 2 "building the module for ${kvers[*]}, ringctl and test programs (about 2 min)"
for k in "${kvers[@]}"; do
	step "build module $k" make modules-all TEST_KVERS="$k"
done
step "build ringctl and test programs" make ringctl selftest-bins
phase 3 "checkpatch, sparse, the package list, kernel-less make (about 3 min)"
step "checkpatch --strict" make style
step "generated netlink code matches the YNL spec" make gen-check
for k in "${kvers[@]}"; do
	step "sparse $k" make sparse KVER="$k"
done
step "every program run comes from a package make deps installs" bash selftests/vm/deps-check.sh
ktap_step "make with no kernel installed" bash selftests/vm/empty-kernel-check.sh

# Packaging, on the host, nothing installed outside temporary directories.
step "make install" make install-check KVER="${kvers[-1]}"
step "bash completion" make completion-check
step "systemd unit" make systemd-check
step "dkms build ${kvers[*]}" make dkms-check TEST_KVERS="${kvers[*]}"

phase 4 "host unit tests (under a minute)"
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

n=5
for k in "${kvers[@]}"; do
	phase $n "VM tests on $k under QEMU (TCG: 15 min or more on a busy machine)"
	n=$((n + 1))
	[ "$k" != "${kvers[0]}" ] || ktap_step "vm harness" bash selftests/vm/harness-selftest.sh "$k"
	ko=build/kernel/$k/kmod/ringsteer.ko
	if [ ! -e "$ko" ]; then
		record fail "vm $k (module did not build)"
		continue
	fi
	# Each scenario has its own 900 s limit in the guest; the run's own
	# limit only catches a guest that hangs, and must leave room for all of
	# them on a loaded 2-core machine (a boot alone took 5 min there).
	# The fuzzer sends 100,000 messages here (about 2 min each); the debug
	# kernel's run below is where make check-debug sends 1,000,000.
	ktap_step "vm $k" bash selftests/vm/run.sh -k "$k" -m "$ko" -t 3600 \
		-e RS_FUZZ_MESSAGES=100000 -- bash selftests/vm/ktap-run.sh
done

# The 6.1 debug kernel (KASAN, lockdep, PROVE_RCU, kmemleak, UBSAN,
# DEBUG_PREEMPT): any report fails the run. The kernel is built once
# (25 to 45 minutes on 2 cores) and cached outside the clone. Under KASAN
# and TCG the whole suite does not fit CI's time (a scenario takes 3 to 10
# minutes there): make check runs those that exercise lifetimes and
# locking (module load/unload, rmmod with live DNAT flows and with another
# NAT user under traffic, confirmed flows, dumps under change, the fuzzer
# at 5,000 messages, connection counts racing their ends, counts that drop
# the namespace's mutex to walk); make check-debug runs every scenario and the fuzzer
# at 1,000,000 (RS_DEBUG_TESTS=all).
debug_tests=(module.sh rmmod_flows.sh confirmed_flow.sh dump_consistent.sh
	     rmmod_nat_peer.sh fuzz.sh monitor_drained.sh limits_perms.sh)
debug_env=(-e RS_FUZZ_MESSAGES=5000 -e RS_RMMOD_ROUNDS=3)
if [ "${RS_DEBUG_TESTS:-}" = all ]; then
	debug_tests=()
	debug_env=(-e RS_FUZZ_MESSAGES=1000000)
fi
phase $n "6.1 debug kernel: build (first time 25 to 45 min, then cached), VM tests on it"
echo "# build debug kernel"
if dbg=$(bash selftests/vm/build-debug-kernel.sh 2>"$logdir/debug-kernel.log"); then
	record ok "build debug kernel"
	step "build module for the debug kernel" \
		make "build/kernel/debug/kmod/ringsteer.ko" DEBUG_KDIR="$dbg/build"
	ktap_step "vm debug" bash selftests/vm/run.sh -t 3600 -d "$dbg" \
		-m build/kernel/debug/kmod/ringsteer.ko "${debug_env[@]}" \
		-e RINGSTEER_TEST_TIMEOUT=5400 -- \
		bash selftests/vm/ktap-run.sh "${debug_tests[@]}"
else
	sed 's/^/#   /' "$logdir/debug-kernel.log"
	record fail "build debug kernel"
fi

if [ $failed -gt 0 ]; then
	echo "# failed:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
