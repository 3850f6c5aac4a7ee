#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The first datagram of a UDP flow the load balancer sends itself gets its
# DNAT in LOCAL_OUT and is confirmed in POST_ROUTING: two RCU read sections
# on Debian's PREEMPT_RCU kernels, between which a delete's grace period
# can end and its conntrack walk run before the entry is in the table.
# Here an NFQUEUE rule in an output filter chain (after the NAT hooks,
# before confirmation) holds such a datagram while its backend is
# deleted, and lets it go once the delete has returned: the delete's
# second walk, 5 s later, must delete the entry, so the flow's next
# datagram is steered afresh. And a backend deleted and added again before
# that second walk keeps its new flows: the second walk leaves them alone.
#
#   sw-cli        sw-lb                                      sw-b1, sw-b2
#  +--------+   +--------------------------------------+    +-----------+
#  | (idle) +---+ 10.0.0.100:80 udp -> b1 b2            +----+ 10.2.N.2  |
#  +--------+   | ask.py: UDP from 10.1.0.1 to the VIP  | x2 | :8080     |
#               | output filter (0): its flow -> queue  |    | says "bN" |
#               | nfq_hold.py holds its first datagram  |    +-----------+
#               | ringctl backend del b1 meanwhile      |
#               +--------------------------------------+

set -e
P=sw
. "$(dirname "$0")/lib/topo.sh"
need_tools nft conntrack
topo_setup 2
modprobe nfnetlink_queue 2>/dev/null || true
# Entries must not expire while the test looks at them, however slow.
lb sysctl -qw net.netfilter.nf_conntrack_udp_timeout=600 \
	net.netfilter.nf_conntrack_udp_timeout_stream=600

cmd_ok rctl service add "$SVC4" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 2)" proto udp
SPORT=$(lookup -l -u 40000-40031 | awk '$2 == "b1" { print $1; exit }')
[ -n "$SPORT" ] || die "no source port in 40000-40031 maps to b1"
SPORT2=$((SPORT + 100))

# ask.py SPORT IN OUT: one UDP socket from the LB to the VIP; on each line
# of the fifo IN sends a request and appends the answer to OUT ("-" after
# 8 s without one).
cat >"$W/ask.py" <<EOF2
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.1.0.1", int(sys.argv[1])))
s.connect(("$VIP4", $VPORT))
s.settimeout(8)
out = open(sys.argv[3], "w")
for line in open(sys.argv[2]):
    s.send(b"?\n")
    try:
        out.write(s.recv(100).decode().strip() + "\n")
    except OSError:
        out.write("-\n")
    out.flush()
EOF2
mkfifo "$W/a.in" "$W/b.in"
lb "$PY" "$W/ask.py" "$SPORT" "$W/a.in" "$W/a.out" &
SERVERS+=($!)
lb "$PY" "$W/ask.py" "$SPORT2" "$W/b.in" "$W/b.out" &
SERVERS+=($!)
exec {AW}>"$W/a.in" {BW}>"$W/b.in"

# answer FILE N: the Nth answer in FILE, waiting up to 30 s.
answer()
{
	local i
	for i in $(seq 1 300); do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt "$2" ] || { sed -n "$2p" "$1"; return 0; }
		sleep 0.1
	done
	die "no answer $2 in $1"
}

# entries SPORT BACKEND: conntrack entries of the flow from SPORT DNATed to
# BACKEND's address.
entries()
{
	lb conntrack -L -p udp 2>/dev/null | grep -c "sport=$1 dport=$VPORT .*src=$2 " || true
}

lb nft -f - <<-EOF2
table inet hold {
	chain out {
		type filter hook output priority filter;
		udp sport $SPORT queue num 0
	}
}
EOF2
nfq_start

echo go >&$AW
nfq_held "the first datagram"
pass "sport $SPORT: first datagram, DNATed to b1, held before its confirmation"

cmd_ok rctl backend del "$SVC4" "$(be4 1)" proto udp
nfq_release
lb nft delete table inet hold
first=$(answer "$W/a.out" 1)
[ "$first" = b1 ] || die "the held datagram reached '$first', expected b1: its DNAT was set up before the delete"
nfq_quit

# The first walk ran while the entry was not in the table: only the
# second walk, 5 s after the delete, can delete it.
end=$((SECONDS + 30))
while [ "$(entries "$SPORT" 10.2.1.2)" != 0 ] && [ $SECONDS -lt $end ]; do
	sleep 0.5
done
[ "$(entries "$SPORT" 10.2.1.2)" = 0 ] ||
	die "the entry to the deleted b1, confirmed after the delete's walk, outlived the second walk"
echo go >&$AW
second=$(answer "$W/a.out" 2)
[ "$second" = b2 ] || die "after b1's delete, the flow's next datagram reached '$second', expected b2"
pass "the entry confirmed after the delete's walk went with the second walk; next datagram: $second"

# b2 deleted and added again at once: its new flow must outlive the
# second walk of b2's delete.
cmd_ok rctl backend del "$SVC4" "$(be4 2)" proto udp
cmd_ok rctl backend add "$SVC4" "$(be4 2)" proto udp
echo go >&$BW
[ "$(answer "$W/b.out" 1)" = b2 ] || die "a new flow after b2's return did not reach b2"
id=$(lb conntrack -L -p udp -o id 2>/dev/null | grep "sport=$SPORT2 " | sed -n 's/.*id=\([0-9]*\).*/\1/p')
[ -n "$id" ] || die "no conntrack entry for the new flow to b2"
sleep 7
now=$(lb conntrack -L -p udp -o id 2>/dev/null | grep "sport=$SPORT2 " | sed -n 's/.*id=\([0-9]*\).*/\1/p')
[ "$now" = "$id" ] || die "the new flow's entry (id $id) was deleted (now '$now') by the second walk of b2's delete"
pass "b2 deleted and added again: its new flow's entry (id $id) outlives the second walk"
exec {AW}>&- {BW}>&-
