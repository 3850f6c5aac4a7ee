# SPDX-License-Identifier: GPL-2.0
#
# The cost of counting live connections, for datapath.sh: "ringctl show"
# asks the kernel for each backend's connections (RINGSTEER_F_CONNS), one
# walk of the namespace's conntrack table per service. Timed with the
# table empty, then holding BENCH_WALK entries (UDP flows of the service,
# new flows from pktgen kept by a one-hour timeout); the walk's cost is the
# difference, since the process start and the dump are the same.

WALK=${BENCH_WALK:-10000 100000 1000000}
WALK=${WALK//,/ }

ms_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) * 1000 }'; }

ct_count() { lbx "bx-$1" cat /proc/sys/net/netfilter/nf_conntrack_count; }

# walk_fill NAME ID TARGET: new flows until conntrack holds TARGET entries
# (the LB's backlog drops some of pktgen's packets, so top up).
walk_fill()
{
	local n=$1 id=$2 target=$3 have i
	for i in $(seq 1 20); do
		have=$(ct_count "$n")
		[ "$have" -lt "$target" ] || return 0
		pg_config "$id" new $((target - have))
		echo start >"$PG/pgctrl"
	done
	die "conntrack of $n holds $(ct_count "$n") entries, want $target"
}

# walk_time NAME: one "ringctl show -j" of the UDP service, in ms.
walk_time()
{
	local t0 t1
	t0=$EPOCHREALTIME
	lbx "bx-$1" "$RINGCTL" show -j "$VIP:80" proto udp >"$W/walk.json" || die "ringctl show ($1)"
	t1=$EPOCHREALTIME
	ms_of "$t0" "$t1"
}

walk_rounds()
{
	local n=$1 size=$2 r
	for r in $(seq 1 "$ROUNDS"); do
		echo "BENCH walk $size $(ct_count "$n") $r $(walk_time "$n")"
	done
}

walk()
{
	local n=rs256 id size ns=bx-rs256
	id=$(case_id "$n")
	lbx "$ns" sysctl -qw net.netfilter.nf_conntrack_udp_timeout=3600
	lb_reset "$n" rs256
	walk_rounds "$n" 0
	for size in $WALK; do
		walk_fill "$n" "$id" "$size"
		walk_rounds "$n" "$size"
	done
	grep -q '"conns_other"' "$W/walk.json" || die "show -j has no connection counts"
	lbx "$ns" sysctl -qw net.netfilter.nf_conntrack_udp_timeout=30
	lb_reset "$n" rs256
}
