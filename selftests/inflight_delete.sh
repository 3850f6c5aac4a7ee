#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A backend deleted while the first packet of a flow to it is in flight
# must not leave that flow stuck to the deleted backend. The packet is held
# with NFQUEUE in PREROUTING after conntrack (-200) and before ringsteer's
# NAT hook (-101): the ring said b1 when the packet arrived; b1 is deleted
# while it waits; released, it must be steered by the ring as it is now.
#
# Two windows are not held open here. The one inside the hook, between
# reading the ring and setting up NAT, lasts one RCU read section: the
# delete's synchronize_net() before its conntrack walk closes it, and no
# test can stretch it. A packet held *after* the NAT hook (an NFQUEUE rule
# in FORWARD) has its NAT to b1 set up already and is confirmed after the
# walk: that flow survives the delete, as doc/semantics.md ("Deleting a
# service") says.
#
#   if-cli                 if-lb                             if-b1, if-b2
#  +-------------+       +---------------------------------+     +-----------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 udp -> b1 b2      +-----+ 10.2.N.2  |
#  | one UDP     |       | prerouting: flow -> queue 0     | x2  | :8080     |
#  | socket to   |       | (prerouting -150, before NAT)   |     | says "bN" |
#  | the VIP     |       | nfq_hold.py holds its 1st packet|     |           |
#  |             |       | ringctl backend del b1 meanwhile|     |           |
#  +-------------+       +---------------------------------+     +-----------+

set -e
P=if
. "$(dirname "$0")/lib/topo.sh"
need_tools nft conntrack
topo_setup 2
modprobe nfnetlink_queue 2>/dev/null || true

cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 2)" proto udp
SPORT=$(lookup -u 40000-40031 | awk '$2 == "b1" { print $1; exit }')
[ -n "$SPORT" ] || die "no source port in 40000-40031 maps to b1"

# ask.py: one UDP socket; on each stdin line sends a request and prints
# the answer ("-" after 8 s without one: a held datagram may take long).
cat >"$W/ask.py" <<EOF2
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("$CLI4", $SPORT))
s.connect(("$VIP4", $VPORT))
s.settimeout(8)
for line in sys.stdin:
    s.send(b"?\n")
    try:
        print(s.recv(100).decode().strip(), flush=True)
    except OSError:
        print("-", flush=True)
EOF2

lb nft -f - <<-EOF2
table inet hold {
	chain held {
		type filter hook prerouting priority -150;
		ip daddr $VIP4 udp sport $SPORT queue num 0
	}
}
EOF2
nfq_start

# ask.py reads its commands from a fifo and answers into a file (bash
# keeps one coprocess at a time, nfq_hold.py has it).
mkfifo "$W/ask.in"
cli "$PY" "$W/ask.py" <"$W/ask.in" >"$W/ask.out" &
SERVERS+=($!)
exec {ASKW}>"$W/ask.in"
# answer N: the Nth answer of ask.py, waiting up to 30 s.
answer()
{
	local i
	for i in $(seq 1 300); do
		[ "$(wc -l <"$W/ask.out")" -lt "$1" ] || { sed -n "$1p" "$W/ask.out"; return 0; }
		sleep 0.1
	done
	die "no answer $1 from ask.py"
}
echo go >&$ASKW
nfq_held "the first datagram"
pass "sport $SPORT: first datagram, which the ring gave to b1, held before NAT"

cmd_ok rctl backend del "$SVC4" "$(be4 1)" proto udp
nfq_release
first=$(answer 1)
lb nft delete table inet hold
echo go >&$ASKW
second=$(answer 2)
echo "after deleting b1 under the held datagram: first answer '$first', next '$second'"
lb conntrack -L -p udp --sport "$SPORT" 2>/dev/null || true
nfq_quit
exec {ASKW}>&-

n=$(lb conntrack -L -p udp 2>/dev/null | grep -c "sport=$SPORT .* src=10\.2\.1\.2 " || true)
[ "$n" = 0 ] || die "a conntrack entry DNATed to the deleted b1 outlived its flush"
[ "$first" = b2 ] || die "the held datagram, released after b1's delete, reached '$first', expected b2"
[ "$second" = b2 ] || die "after b1's delete, the flow's next datagram reached '$second', expected b2"
pass "the in-flight flow was steered by the ring after the delete: b2, then b2"
