#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netlink fuzzing: fuzz_netlink sends RS_FUZZ_MESSAGES (default 1,000,000)
# generated requests, a quarter of them malformed, and checks every answer
# and the final configuration against its model of the uapi (see the top
# of selftests/fuzz/main.c). The kernel log is checked by the VM harness.
#
#   fz-lb
#  +--------------------------------------------------------------+
#  | fuzz_netlink as root: 3 request sockets, 1 dump socket        |
#  |   child as nobody in a new user namespace: EPERM on changes   |
#  +--------------------------------------------------------------+
#  + child as nobody in a new user+net namespace that it owns
#
# RS_FUZZ_SEED reruns a given sequence (the seed is printed first).

set -e
. "$(dirname "$0")/lib/common.sh"

FUZZ=$RS_BINDIR/fuzz_netlink
NS=fz-lb
[ -x "$FUZZ" ] || die "$FUZZ not built (make selftest-bins)"
load_module
ip netns del "$NS" 2>/dev/null || true
ip netns add "$NS"
trap 'ip netns del "$NS" 2>/dev/null || true' EXIT

args=(--messages "${RS_FUZZ_MESSAGES:-1000000}")
[ -z "$RS_FUZZ_SEED" ] || args+=(--seed "$RS_FUZZ_SEED")
ip netns exec "$NS" "$FUZZ" "${args[@]}" || die "fuzz_netlink failed (rerun with the seed above)"
pass "fuzz_netlink: every answer valid, final configuration equals the model"
