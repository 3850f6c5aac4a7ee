#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module loads, registers its generic netlink family, and unloads
# without leaving the family behind. No namespaces needed.

set -e
. "$(dirname "$0")/lib/common.sh"

unload_module
cmd_fail genl ctrl get name ringsteer

load_module
out=$(genl ctrl get name ringsteer) || die "family not registered"
echo "$out"
grep -q 'Name: ringsteer' <<<"$out" || die "family name missing"
pass "family registered"

# The family is usable from any network namespace (netnsok).
ip netns add rs-module
ip netns exec rs-module genl ctrl get name ringsteer >/dev/null ||
	die "family not visible in a new namespace"
ip netns del rs-module
pass "family visible in another namespace"

unload_module
cmd_fail genl ctrl get name ringsteer
pass "family gone after unload"

# Load/unload repeatedly: leaks or stale registrations show up here.
for _ in 1 2 3; do
	load_module
	unload_module
done
pass "repeated load/unload"

# ringctl resolves the family over libmnl the same way.
load_module
"$RINGCTL" version | tee /dev/stderr | grep -q "family ringsteer version 1" ||
	die "ringctl does not see the family"
unload_module
"$RINGCTL" version | grep -q "module not loaded" || die "ringctl sees a stale family"
pass "ringctl probe"
