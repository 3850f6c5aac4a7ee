#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An nft "dnat" rule and a ringsteer service on the same VIP, the module
# loaded with hook_priority=-99 so that nft's chain (-100) goes first, as
# doc/semantics.md ("Other NAT rules on the same VIP") suggests for
# letting NAT rules win. The connections nft steered are nft's, though
# they look like ringsteer's by address and IPS_DST_NAT: deleting the
# service, flushing and rmmod must leave them alone, show must not count
# them, and a keep-flows delete must not be kept alive by them.
#
#   cn-cli               cn-lb                                  cn-b1, cn-b2
#  +-------------+     +-------------------------------------+    +-----------+
#  | 10.1.0.2    +-----+ ringsteer, hook_priority=-99:       +----+ 10.2.N.2  |
#  | held TCP:   |     |   10.0.0.100:80 -> b1, b2 draining  | x2 | :8080     |
#  | 30000-30004 |     | nft prerouting dstnat, first:       |    | says "bN" |
#  |  ringsteer's|     |   10.0.0.100:80 from sports         |    +-----------+
#  | 32000-32004 |     |   32000-32004, SYN only -> b2       |
#  |  nft's      |     |                                     |
#  +-------------+     +-------------------------------------+
#
# b2 is a draining backend of the service, so that a count that took nft's
# connections for ringsteer's would show them on b2. nft's rule takes SYNs
# only: if one of its entries were deleted, the connection's next segment
# would not be NATed to b2 again, and the connection would fail.

set -e
P=cn
. "$(dirname "$0")/lib/topo.sh"
need_tools nft jq
topo_setup 2
unload_module
insmod "$RINGSTEER_KO" hook_priority=-99 || die "insmod hook_priority=-99"
# Later scenarios load the module with its defaults.
trap 'topo_cleanup; rmmod ringsteer 2>/dev/null || true' EXIT

RS=30000-30004
NFT=32000-32004
lb nft -f - <<-EOF2
table ip peer {
	chain pre {
		type nat hook prerouting priority dstnat;
		ip daddr $VIP4 tcp dport $VPORT tcp sport 32000-32004 tcp flags & (syn | ack) == syn dnat to 10.2.2.2:$BPORT
	}
}
EOF2

service()
{
	cmd_ok rctl service add "$SVC4"
	cmd_ok rctl backend add "$SVC4" "$(be4 1)"
	cmd_ok rctl backend add "$SVC4" "$(be4 2)" state draining
}

# nft_alive WHAT: nft's held connections still reach b2.
nft_alive()
{
	hold_ping >"$W/ping"
	grep '^320' "$W/ping" >"$W/nft.now" || true
	expect_same "$W/nft.now" "$W/nft.want" "nft's connections after $1"
}

# conns BACKEND: established connections show counts for BACKEND.
conns()
{
	rctl show -j | jq -r --arg a "${1%:*}" \
		'.services[].backends[] | select(.addr == $a) | .conns_established'
}

# kept_gone: show's "kept" is 0 within 30 s (kept flows are counted every
# 10 s). Sets KEPT to the last value seen.
kept_gone()
{
	local end=$((SECONDS + 30))
	while :; do
		KEPT=$(rctl show -j | jq -r .kept)
		[ "$KEPT" != 0 ] || return 0
		[ $SECONDS -lt $end ] || return 1
		sleep 1
	done
}

service
hold_start "$RS,$NFT" >"$W/open"
ports "$RS" | sed 's/$/ b1/' >"$W/want"
ports "$NFT" | sed 's/$/ b2/' >>"$W/want"
expect_same "$W/open" "$W/want" "held connections: ringsteer's to b1, nft's to b2"
grep '^320' "$W/want" >"$W/nft.want"
b1=$(conns "$(be4 1)")
b2=$(conns "$(be4 2)")
[ "$b1" = 5 ] || die "show counts $b1 established connections on b1, ringsteer steered 5"
[ "$b2" = 0 ] || die "show counts $b2 established connections on b2, nft's, not ringsteer's"
pass "show counts ringsteer's 5 connections on b1, none of nft's on b2"

cmd_ok rctl service del "$SVC4"
hold_ping >"$W/ping"
ports "$RS" | sed 's/$/ -/' >"$W/want"
cat "$W/nft.want" >>"$W/want"
expect_same "$W/ping" "$W/want" "held connections after service del"
pass "service del: ringsteer's connections reset, nft's go on to b2"

service
cmd_ok rctl service del "$SVC4" keep-flows
kept_gone || die "show \"kept\" is $KEPT 30 s after a keep-flows delete that kept none of ringsteer's flows"
nft_alive "a keep-flows delete"
pass "keep-flows: nft's connections keep no record alive, and go on"

service
cmd_ok rctl flush
nft_alive "flush"
pass "flush: nft's connections go on"

service
rmmod ringsteer || die "rmmod"
nft_alive "rmmod"
pass "rmmod: nft's connections go on"
hold_stop
