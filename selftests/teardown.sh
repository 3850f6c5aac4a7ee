#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifetime under load: configuration churn, module unload and namespace
# deletion, each while traffic is flowing through the hook. The harness
# fails the run on any kernel warning, RCU or refcount complaint, so this
# script's job is to drive those paths hard and check they end cleanly.
#
#   td-cli                 td-lb                          td-b1 .. td-b3
#  +-------------+       +------------------------------+     +------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp, udp       +-----+ 10.2.N.2   |
#  | fd01::2     |       | [fd00::100]:80 tcp           | x3  | :8080      |
#  | background  |       | churn: add, weight, drain,   |     | answers    |
#  | tcp/udp/v6  |       | del, vnodes, hash, key;      |     | "bN"       |
#  | flows       |       | then rmmod, then netns del   |     |            |
#  +-------------+       +------------------------------+     +------------+

set -e
P=td
. "$(dirname "$0")/lib/topo.sh"
topo_setup 3

configure()
{
	local i
	cmd_ok rctl service add "$SVC4" proto tcp
	cmd_ok rctl service add "$SVC4" proto udp hash source
	cmd_ok rctl service add "$SVC6" proto tcp
	for i in 1 2; do
		cmd_ok rctl backend add "$SVC4" "$(be4 "$i")" proto tcp
		cmd_ok rctl backend add "$SVC4" "$(be4 "$i")" proto udp
		cmd_ok rctl backend add "$SVC6" "$(be6 "$i")" proto tcp
	done
}

# Flows of all three services, over and over, until killed.
background_traffic()
{
	while :; do
		traffic -t 1 -u 30000-30099
		traffic -t 1 31000-31049
		traffic -6 -t 1 32000-32049
	done >"$W/bg" 2>&1
}

random_key()
{
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}

service_flows()
{
	show "$W/show"
	field "$W/show" svc "$SVC4/tcp" 9
}

# wait_steered: until the TCP service has steered a flow (the background
# loop may be in the middle of a slow round), at most a minute.
wait_steered()
{
	local i
	for i in $(seq 1 60); do
		flows=$(service_flows)
		[ "$flows" = 0 ] || return 0
		sleep 1
	done
	die "no flow was steered within a minute"
}

configure
background_traffic &
BG=$!

# 1. Churn every kind of change while packets hit the hook.
for i in $(seq 1 10); do
	cmd_ok rctl backend add "$SVC4" "$(be4 3)" proto tcp weight $((i % 4 + 1))
	cmd_ok rctl backend set "$SVC4" "$(be4 1)" proto tcp weight $((i % 3 + 1))
	cmd_ok rctl backend drain "$SVC4" "$(be4 2)" proto tcp
	cmd_ok rctl backend activate "$SVC4" "$(be4 2)" proto tcp
	cmd_ok rctl backend del "$SVC4" "$(be4 3)" proto tcp
	cmd_ok rctl backend drain "$SVC4" "$(be4 1)" proto udp
	cmd_ok rctl backend del "$SVC4" "$(be4 1)" proto udp
	cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto udp
	cmd_ok rctl service set "$SVC4" proto tcp vnodes $((64 << (i % 3)))
	cmd_ok rctl service set "$SVC6" proto tcp hash $([ $((i % 2)) = 0 ] && echo flow || echo source)
	cmd_ok rctl key set "$(random_key)"
	cmd_ok rctl service del "$SVC6" proto tcp
	cmd_ok rctl service add "$SVC6" proto tcp
	cmd_ok rctl backend add "$SVC6" "$(be6 1)" proto tcp
	cmd_ok rctl backend add "$SVC6" "$(be6 2)" proto tcp
done
wait_steered
pass "churn under traffic: $flows tcp flows steered meanwhile"

# 2. Unload the module with services configured and traffic flowing.
sleep 1
cmd_ok rmmod ringsteer
! module_loaded || die "module still loaded after rmmod"
cmd_fail genl ctrl get name ringsteer
pass "rmmod with services and traffic"

# Reloaded, it starts empty: nothing survived in the namespaces.
load_module
rctl show -j >"$W/empty.json"
grep -q '"services":\[\]' "$W/empty.json" ||
	die "services survived a module reload: $(head -c 300 "$W/empty.json")"
pass "reload starts with no services"

# 3. Delete the load balancer's namespace while its flows are steered.
configure
wait_steered
ip netns del "$P-lb"
sleep 2
kill "$BG" 2>/dev/null || true
wait "$BG" 2>/dev/null || true
# The namespace goes away asynchronously; unloading waits for it.
cmd_ok rmmod ringsteer
! module_loaded || die "module still loaded after rmmod"
pass "namespace deleted with services and traffic, then rmmod"
