#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: runs inside the VM and shows ringsteer at work on a small
# load-balancer topology (drawn in selftests/lib/topo.sh): a client, a load
# balancer with the module, four backends that answer with their names.

set -e
P=demo
. "$(dirname "$0")/../lib/topo.sh"

say()
{
	printf '\n== %s\n' "$*"
}

run()
{
	echo "lb# ringctl $*"
	rctl "$@"
}

# spread FILE: flows per backend, from "SPORT NAME" lines.
spread()
{
	counts "$1" | awk '{ printf "   %s: %d flows\n", $1, $2 }'
}

say "ringsteer on $(uname -r): module, topology, four backends"
topo_setup 4
genl ctrl get name ringsteer | head -n 2
"$RINGCTL" version

say "a TCP service with three backends, the third of weight 2"
run key set "$KEY"
run service add "$SVC4" proto tcp
run backend add "$SVC4" "$(be4 1)"
run backend add "$SVC4" "$(be4 2)"
run backend add "$SVC4" "$(be4 3)" weight 2
run show

say "300 new connections from the client (source ports 40000-40299)"
traffic 40000-40299 >"$W/before"
spread "$W/before"
lookup 40000-40299 >"$W/want"
if cmp -s "$W/before" "$W/want"; then
	echo "   every connection landed where 'ringctl lookup' said it would"
else
	echo "   MISMATCH between the kernel's lookup and where connections landed"
fi

say "add a fourth backend: only the flows it now owns move"
run backend add "$SVC4" "$(be4 4)"
traffic 40000-40299 >"$W/after"
moves "$W/before" "$W/after" | awk '{ printf "   %s -> %s: %d flows\n", $1, $2, $3 }'
echo "   (every move goes to b4; none between b1, b2 and b3)"

say "drain b2: its flows go to their ring successors, nothing else moves"
run backend drain "$SVC4" "$(be4 2)"
traffic 40000-40299 >"$W/drained"
moves "$W/after" "$W/drained" | awk '{ printf "   %s -> %s: %d flows\n", $1, $2, $3 }'
run backend activate "$SVC4" "$(be4 2)"
traffic 40000-40299 >"$W/undrained"
if cmp -s "$W/after" "$W/undrained"; then
	echo "   activating b2 again restored the exact previous mapping"
fi

say "the same change, computed offline with the same ring code"
"$RINGCTL" simulate key "$KEY" backend "$(be4 1)" backend "$(be4 2)" \
	backend "$(be4 3)@2" add "$(be4 4)" | sed 's/^/   /'

say "final state"
run show
