#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A VIP with no active backend drops new flows, so a client sees a timeout,
# as with an unreachable host (doc/semantics.md, "No active backend") -
# also a client on the load balancer itself, whose packets take the
# LOCAL_OUT hook. A drop there returned EPERM to the local connect() or
# send() at once.
#
#   nb-cli                 nb-lb                          nb-b1
#  +-------------+       +-----------------------------+     +------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp and udp   +-----+ 10.2.1.2   |
#  | remote      |       | b1 drained: nothing active  |     | :8080      |
#  | client      |       | local client 10.1.0.1       |     | says "b1"  |
#  +-------------+       +-----------------------------+     +------------+

set -e
P=nb
. "$(dirname "$0")/lib/topo.sh"
topo_setup 1

for proto in tcp udp; do
	cmd_ok rctl service add "$SVC4" proto $proto
	cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto $proto
done

# Positive twin: with b1 active, local and remote flows reach it.
for opt in "" -l; do
	for u in "" -u; do
		traffic $opt $u -t 5 31000-31003 >"$W/on"
		[ "$(counts "$W/on")" = "b1 4" ] || die "b1 active, flows ${opt:-remote} ${u:-tcp}: $(cat "$W/on" | tr '\n' ' ')"
	done
done
pass "b1 active: local and remote tcp and udp flows reach it"

for proto in tcp udp; do
	cmd_ok rctl backend drain "$SVC4" "$(be4 1)" proto $proto
done

# expect_timeout WHAT OPTS...: the flows get no answer, and the reason is
# a timeout, not an error returned at once.
expect_timeout()
{
	local what=$1
	shift
	traffic "$@" -t 2 32000-32003 >"$W/off" 2>"$W/off.err" || true
	no_answer=$(awk '$2 == "-"' "$W/off" | wc -l)
	[ "$no_answer" = 4 ] || die "$what: $no_answer of 4 flows unanswered with no active backend: $(cat "$W/off" | tr '\n' ' ')"
	grep -q 'timeout=4' "$W/off.err" ||
		die "$what: flows failed, but not by timing out: $(cat "$W/off.err")"
	pass "$what: no active backend, the client times out"
}

expect_timeout "remote tcp"
expect_timeout "remote udp" -u
expect_timeout "local tcp" -l
expect_timeout "local udp" -l -u

show "$W/show"
nb=$(field "$W/show" svc "$SVC4/tcp" 10)
[ "$nb" -ge 8 ] || die "tcp no_backend counter is $nb, expected at least 8 (4 remote, 4 local flows)"
pass "no_backend counted the dropped flows ($nb tcp)"
