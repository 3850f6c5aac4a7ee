#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pass, fail and module helpers for the scenario scripts (selftests/*.sh,
# selftests/fleet/*.sh, through lib/topo.sh for most), which run as root
# inside the test VM (selftests/vm/run.sh).

KSFT_SKIP=4
RINGCTL=${RINGCTL:-$RINGSTEER_SRC/userspace/ringctl}
# The test programs of the make that started the VM (make BUILD=DIR puts
# them in DIR/selftests; run.sh passes it on).
RS_BINDIR=${RS_BINDIR:-$RINGSTEER_SRC/build/selftests}

pass()
{
	echo "ok: $*"
}

die()
{
	echo "FAIL: $*" >&2
	exit 1
}

# cmd_ok CMD...: CMD must succeed; cmd_fail CMD...: CMD must fail.
cmd_ok()
{
	"$@" || die "expected success: $*"
}

cmd_fail()
{
	if "$@" 2>/dev/null; then
		die "expected failure: $*"
	fi
	return 0
}

module_loaded()
{
	grep -q '^ringsteer ' /proc/modules
}

load_module()
{
	[ -n "$RINGSTEER_KO" ] || die "RINGSTEER_KO is not set"
	modprobe nf_nat || die "modprobe nf_nat"
	module_loaded || insmod "$RINGSTEER_KO" || die "insmod $RINGSTEER_KO"
}

unload_module()
{
	! module_loaded || rmmod ringsteer || die "rmmod ringsteer"
}
