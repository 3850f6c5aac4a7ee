#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Datapath benchmark (not a test), run inside the VM by "make bench":
# ringsteer against IPVS, nftables and the limit of the path, in one boot,
# in interleaved rounds (topology: lb.sh). Prints one "BENCH ..." line per
# measurement; selftests/bench/report.py turns them into the table, JSON
# and chart.
#
# Environment: BENCH_ROUNDS (5), BENCH_SECS (2, per measurement),
# BENCH_WARMUP (0.5), BENCH_FLOWS (100000, balance and disruption),
# BENCH_PPS (flows per second while measuring those, 20000),
# BENCH_PHASES (all of: rates tcp balance order control profile memory
# walk), BENCH_WALK (conntrack sizes of the walk phase, "10000 100000
# 1000000"), BENCH_SCALE (backend counts of the scaling cases, "10 100
# 1000 4000"), BENCH_CASES (only these contenders), BENCH_BAL_KINDS and
# BENCH_BAL100_KINDS (the balance phase's, below), BENCH_ORDER_FLOWS
# (100000, the order phase's flows), BENCH_PROF_TOP (25, the symbols the
# profile phase prints per contender); lists may use commas.

set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/lb.sh"
. "$here/traffic.sh"

ROUNDS=${BENCH_ROUNDS:-5}
BENCH_SECS=${BENCH_SECS:-2}
BENCH_WARMUP=${BENCH_WARMUP:-0.5}
FLOWS=${BENCH_FLOWS:-100000}
BAL_PPS=${BENCH_PPS:-20000}
PHASES=${BENCH_PHASES:-rates tcp balance order control profile memory walk}
PHASES=${PHASES//,/ }
SCALE=${BENCH_SCALE-10 100 1000 4000}
SCALE=${SCALE//,/ }
# make bench passes the one of its BUILD.
TCP_CPS=${TCP_CPS:-$RINGSTEER_SRC/build/bench/tcp_cps}
DENSE=4096

# Contenders of the rate rounds: NAME KIND UDP_BACKENDS.
CASES=(
	"plain plain 8" "fixed fixed 8" "jhash jhash 8" "rs256 rs256 8"
	"rs$DENSE rs$DENSE 8" "mh mh 8" "mhct mhct 8" "mhport mhport 8" "sh sh 8"
	"tunipip tunipip 8" "tungue tungue 8" "tunnoft tunnoft 8" "tunct tunct 8"
	"mhipip mhipip 8" "mhgue mhgue 8" "slots slots 8" "tunslots tunslots 8"
)
for k in rs256 jhash mh tunipip slots tunslots slotsgw tunslotsgw mhgw mhipip mhipipgw \
	rs256gw tunipipgw plain plaingw; do
	for nb in $SCALE; do
		CASES+=("${k/256/}-$nb $k $nb")
	done
done
# The largest scaling case again with a quarter of the ring (64 vnodes):
# what the ring's size costs, apart from the number of backends; and as a
# slots service with its slot space half held (twice the probes).
for nb in $SCALE; do :; done
[ -z "$SCALE" ] || CASES+=("rs64-$nb rs64 $nb" "slhalf-$nb slhalf $nb")
# BENCH_CASES, if set, keeps only the contenders it names (a quick look).
if [ -n "${BENCH_CASES:-}" ]; then
	keep=()
	for c in "${CASES[@]}"; do
		[[ " ${BENCH_CASES//,/ } " != *" ${c%% *} "* ]] || keep+=("$c")
	done
	CASES=("${keep[@]}")
fi
# Contenders of the balance and disruption runs from 8 backends, and of
# the runs at 100 backends with one joining (placement slots against the
# ring and IPVS mh, NAT and tunnel); every one must be a contender of
# CASES. The order phase's: ringsteer's placements and IPVS mh.
BAL_KINDS=(${BENCH_BAL_KINDS-rs256 rs$DENSE jhash mh mhport sh})
BAL_KINDS=(${BAL_KINDS[@]//,/ })
BAL100_KINDS=(${BENCH_BAL100_KINDS-slots tunslots tunipip mhipip})
BAL100_KINDS=(${BAL100_KINDS[@]//,/ })
ORDER_KINDS=(slots rs256 mh)
ORDER_FLOWS=${BENCH_ORDER_FLOWS:-100000}

has_phase() { [[ " $PHASES " == *" $1 "* ]]; }

cleanup()
{
	pg_stop_quiet
	[ -z "${SERVER_PIDS:-}" ] || kill $SERVER_PIDS 2>/dev/null
	lb_cleanup
	rm -rf "$W"
}

pg_stop_quiet() { echo stop >"$PG/pgctrl" 2>/dev/null; }

case_field() { local c=(${CASES[$1]}); echo "${c[$2]}"; }

has_case()
{
	local i
	for i in "${!CASES[@]}"; do
		[ "$(case_field "$i" 0)" != "$1" ] || return 0
	done
	return 1
}

setup()
{
	local i n kind nb
	command -v ipvsadm >/dev/null && command -v nft >/dev/null && command -v conntrack >/dev/null ||
		die "needs ipvsadm, nft and conntrack"
	# Slab debugging (the tests' boot) costs every contender a stack trace
	# per skb: the ratios would measure it, not the datapaths.
	! grep -qE 'slub_debug|page_poison|kfence.sample_interval=[1-9]' /proc/cmdline ||
		die "booted with slab debugging ($(cat /proc/cmdline)): run.sh needs RINGSTEER_SLAB_DEBUG=0"
	modprobe pktgen || die "modprobe pktgen"
	# A connection table sized for 100k flows (the default is 4096 buckets).
	modprobe ip_vs conn_tab_bits=20 || die "modprobe ip_vs"
	modprobe ip_vs_mh && modprobe ip_vs_sh && modprobe nf_conntrack || die "modprobe"
	load_module
	echo 262144 >/sys/module/nf_conntrack/parameters/hashsize
	# Every backend address is a neighbour (of dummy0) in its LB, and the
	# ARP table's limits count every namespace's entries: at the default
	# gc_thresh3 of 1024 the scaling cases overflowed it, and every new
	# flow to 1000 or 4000 backends paid for a forced garbage collection,
	# whichever the contender (a 0.69 ratio for all three at 4000).
	sysctl -qw net.ipv4.neigh.default.gc_thresh1=16384 \
		net.ipv4.neigh.default.gc_thresh2=32768 net.ipv4.neigh.default.gc_thresh3=65536
	sysctl -qw net.netfilter.nf_conntrack_max=2000000 net.core.netdev_max_backlog=10000 \
		kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
	W=$(mktemp -d /tmp/bench.XXXXXX)
	trap cleanup EXIT
	for i in "${!CASES[@]}"; do
		n=$(case_field "$i" 0)
		kind=$(case_field "$i" 1)
		nb=$(case_field "$i" 2)
		echo "# $(date +%T) setting up $n ($kind, $nb backends)" >&2
		lb_topo "$n" "$((i + 1))"
		lb_setup "$n" "$kind" udp "$nb"
		# The TCP phase's servers listen on 8080 behind NAT.
		case $n in
		*-*) ;;
		*) tun_kind "$kind" || lb_setup "$n" "$kind" tcp 8 ;;
		esac
	done
	echo "BENCH env kernel $(uname -r)"
	echo "BENCH env cpus $(grep -c ^processor /proc/cpuinfo)"
	echo "BENCH env mem_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "BENCH env guest_load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "BENCH env date $(date -u +%Y-%m-%dT%H:%MZ)"
}

# One round: every contender, new flows then established flows; each round
# starts at the next contender, so no contender always runs first.
rates()
{
	local r i j k n kind nb out
	k=${#CASES[@]}
	for r in $(seq 1 "$ROUNDS"); do
		for j in $(seq 0 $((k - 1))); do
			i=$(((j + r - 1) % k))
			n=$(case_field "$i" 0)
			kind=$(case_field "$i" 1)
			nb=$(case_field "$i" 2)
			for mode in new est; do
				# Scaling cases are measured on new flows only.
				[ "$mode" = new ] || [ "$nb" = 8 ] || continue
				lb_reset "$n" "$kind"
				out=$(rate "$n" "$((i + 1))" "$mode")
				echo "BENCH rate $n $kind $nb $mode $r $out"
			done
			lb_reset "$n" "$kind"
		done
	done
}

# TCP: short connections per second, the client and the server on cpu0.
tcp()
{
	local r i j n kind dst out k=9
	[ "${#CASES[@]}" -ge "$k" ] || k=${#CASES[@]}
	[ -x "$TCP_CPS" ] || die "no $TCP_CPS (make build/bench/tcp_cps)"
	SERVER_PIDS=
	for i in $(seq 0 $((k - 1))); do
		n=$(case_field "$i" 0)
		ip netns exec "bx-$n-s" taskset -c 0 "$TCP_CPS" server 8080 &
		SERVER_PIDS+=" $!"
	done
	sleep 1
	for r in $(seq 1 "$ROUNDS"); do
		for j in $(seq 0 $((k - 1))); do
			i=$(((j + r - 1) % k))
			n=$(case_field "$i" 0)
			kind=$(case_field "$i" 1)
			! tun_kind "$kind" || continue
			dst=$VIP:80
			[ "$kind" != plain ] || dst=$(be 1 tcp):8080
			lb_reset "$n" "$kind" nowait
			out=$(ip netns exec "bx-$n-c" taskset -c 0 "$TCP_CPS" client "$dst" "$BENCH_SECS" 16) ||
				die "tcp_cps client ($n): $out"
			echo "BENCH tcp $n $kind 8 $r $out"
		done
	done
	kill $SERVER_PIDS 2>/dev/null
	SERVER_PIDS=
}

# speed WHEN: speed.py on each CPU at once, as the two vCPUs run in a
# round: ten windows as long as a measurement.
speed()
{
	local c out=() pids=()
	for c in 0 1; do
		taskset -c "$c" python3 "$here/speed.py" "$BENCH_SECS" 10 >"$W/speed$c" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for c in 0 1; do
		out+=("cpu$c" "$(cat "$W/speed$c")")
	done
	echo "BENCH env speed_$1 ${out[*]}"
}

. "$here/balance.sh"
. "$here/order.sh"
. "$here/control.sh"
. "$here/walk.sh"

taskset -pc 0 $$ >/dev/null
setup
speed before
for ph in $PHASES; do
	echo "# $(date +%T) phase $ph" >&2
	case $ph in
	rates) rates ;;
	tcp) tcp ;;
	balance) balance ;;
	order) order ;;
	control) control ;;
	profile) profile ;;
	memory) memory ;;
	walk) walk ;;
	*) die "unknown phase $ph" ;;
	esac
done
speed after
echo "BENCH done"
