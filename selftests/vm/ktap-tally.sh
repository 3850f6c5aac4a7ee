# SPDX-License-Identifier: GPL-2.0
#
# ktap_tally NAME LOG RC: turn the KTAP a command wrote to LOG, and its exit
# status RC, into results, calling record STATUS NAME (ok, skip or fail)
# once per result. Sourced by check.sh, and by harness-selftest.sh, which
# feeds it logs of the failures it must count.
#
# - every top-level case line is a result;
# - a plan whose cases did not all report is one more failure: a guest
#   that died half-way must not look like a shorter suite. Lines that came
#   through the serial console end in \r, which is dropped first, and so
#   are NUL bytes (a 9p file read while the guest extended it), which
#   would make grep take the log for a binary file and count nothing;
# - what the VM harness (run.sh) says went wrong with the guest, a panic, a
#   kernel report, a module that stayed loaded or a timeout, is a failure
#   of its own, whatever the cases said: a panic after a failed case is
#   still a panic, and the panic's report (run.sh-console: lines) is
#   printed again under it;
# - any other non-zero exit is a failure when no case failed, and a zero
#   exit with no case passed is one too.

ktap_tally()
{
	local name=$1 log=$2 rc=$3 line n_fail=0 n_ok=0 n_skip=0 plan reason clean

	clean=$(mktemp)
	tr -d '\r\000' <"$log" >"$clean"
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) record fail "$name: ${line#not ok }"; n_fail=$((n_fail + 1)) ;;
		"ok "*"# SKIP"*) record skip "$name: ${line#ok }"; n_skip=$((n_skip + 1)) ;;
		"ok "*) record ok "$name: ${line#ok }"; n_ok=$((n_ok + 1)) ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+' "$clean")
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)[[:space:]]*$/\1/p' "$clean" | head -n1)
	if [ -n "$plan" ] && [ $((n_ok + n_fail + n_skip)) -lt "$plan" ]; then
		record fail "$name ($((plan - n_ok - n_fail - n_skip)) of $plan cases never reported)"
	fi
	# run.sh's verdicts on the guest: "run.sh: KVER: what went wrong".
	# Its "command exited with status N" is the cases' own failure.
	local harness=0
	while IFS= read -r reason; do
		harness=1
		record fail "$name: $reason"
	done < <(sed -n 's/^run\.sh: [^:]*: //p' "$clean" |
		 grep -v -e '^command exited with status' -e '^full log:' | sort -u)
	# A crash report, again, next to the verdict it explains.
	grep '^run\.sh-console: ' "$clean" | sed 's/^run\.sh-console: /#   console: /'
	if [ "$rc" -ne 0 ] && [ $n_fail -eq 0 ] && [ $harness -eq 0 ]; then
		record fail "$name (exit status $rc, log $log)"
	elif [ "$rc" -eq 0 ] && [ $n_ok -eq 0 ]; then
		record fail "$name (no test ran)"
	fi
	rm -f "$clean"
}
