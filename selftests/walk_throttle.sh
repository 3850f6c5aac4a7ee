#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A delete that waits for its namespace's conntrack-walk credit (ct_sweep.c:
# a burst of RS_WALK_BURST, then a tenth of the time passed) must wait
# without the namespace's lock (the kernel answers at once, and ringctl
# waits for the walk's announcement): the other requests of the namespace
# (show, the health checker's marks under a systemd watchdog) go on
# meanwhile, and ringctl's delete still returns only after its walk
# (doc/semantics.md, "When a delete has returned": a deleted backend's
# connections reset on their next segment).
#
# The walks are made expensive with a large conntrack table (ct_fill, no
# traffic) and the credit spent with deletes of a spare backend, b4,
# until one has waited for credit. One more delete, of b1, then waits ten
# times a walk: once it is seen waiting for credit, show and a health
# mark of b2 must return before it does, and before its walk (b1's
# entries still there); once it has returned, b1's entries must be gone
# and b2's still there. The checks are of order, not of time; the times
# are printed.
#
# The order can only be seen if show and the mark take less than the
# delete's wait, which is ten times a walk: the table is large enough that
# the wait is seconds, and the two requests are started beforehand in the
# LB's namespace, so that sending them costs an exec of ringctl each, not
# ip netns exec's namespace setup too (on a busy host, 1.8 s for the pair
# against a 2.3 s wait, and the deferred walk, which runs under the
# namespace's lock, came first).
#
#   wt-cli               wt-lb                                   wt-b1 .. wt-b3
#  +----------------+  +-------------------------------------+    +-----------+
#  | 10.1.0.2       +--+ 10.0.0.100:80 udp -> b1 b2 b3 (b4)  +----+ 10.2.N.2  |
#  | UDP flows to   |  | 200,000 more conntrack entries      | x3 | :8080     |
#  | b1 and b2      |  | del/add b4 (no host) until a delete |    | says "bN" |
#  +----------------+  | waits; del b1: show, b2 down        |    +-----------+
#                      +-------------------------------------+

set -e
P=wt
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack
CT_FILL=${WT_CT_FILL:-$RS_BINDIR/ct_fill}
# A walk of 0.4 s or more under TCG (longer on a busy host), so that the
# delete of b1 waits seconds (3.3 to 7.6 s here), against under one for
# show and the mark.
ENTRIES=${WT_ENTRIES:-400000}
# Deletes of b4 to spend the credit, at most.
MAX_SPEND=6
SPORTS=40000-40063
# The spare backend: on the ring, never sent a flow.
SPARE=$(be4 4)
[ -x "$CT_FILL" ] || die "no $CT_FILL (make selftest-bins)"
TRACE=/sys/kernel/tracing
[ -e $TRACE/trace ] || TRACE=/sys/kernel/debug/tracing
CT_MAX=$(cat /proc/sys/net/netfilter/nf_conntrack_max 2>/dev/null || true)
TRACED=
# The armed requests (arm()), ended with the scenario whatever happens,
# and the fd of each one's fifo by name.
ARMED_ALL=()
declare -A GO=()

cleanup()
{
	kill "${ARMED_ALL[@]}" 2>/dev/null || true
	wait "${ARMED_ALL[@]}" 2>/dev/null || true
	if [ -n "$TRACED" ]; then
		echo nop >$TRACE/current_tracer
		echo >$TRACE/set_graph_function
		echo >$TRACE/set_ftrace_filter
		echo 0 >$TRACE/max_graph_depth
	fi
	topo_cleanup
	[ -z "$CT_MAX" ] || sysctl -qw net.netfilter.nf_conntrack_max="$CT_MAX"
}

topo_setup 3
trap cleanup EXIT
modprobe nf_conntrack_netlink 2>/dev/null || true
# The flows' entries must outlive the scenario, however slow.
lb sysctl -qw net.netfilter.nf_conntrack_udp_timeout=600 \
	net.netfilter.nf_conntrack_udp_timeout_stream=600
sysctl -qw net.netfilter.nf_conntrack_max=$((ENTRIES + 65536))

# now: microseconds, without a process. ms FROM: milliseconds since.
now() { echo "${EPOCHREALTIME/./}"; }
ms() { echo $((($(now) - $1) / 1000)); }
# nap SECONDS: a wait without a process, on a fifo nobody writes.
mkfifo "$W/nap"
exec {NAP}<>"$W/nap"
nap() { read -rt "$1" -u "$NAP" _ || true; }

# running PID: whether PID has not exited (bash reaps a background job
# as it exits, and keeps its status for wait).
running()
{
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# credit_wait PID: if PID is a delete waiting for its namespace's walk
# credit, where it waits. The kernel answers a delete at once, and
# ringctl waits for the walk's announcement in poll(); the walk, and the
# grace period before it, run in the credit worker (sweep_work), so a
# wait while the worker runs is not one for credit.
credit_wait()
{
	local l poll=''
	while read -r l; do
		case $l in
		*do_sys_poll*|*do_select*) poll=1 ;;
		esac
	done 2>/dev/null <"/proc/$1/stack"
	[ -n "$poll" ] || return 0
	! grep -qs sweep_work /proc/[0-9]*/stack || return 0
	echo "ringctl's poll"
}

# del_start BACKEND: delete BACKEND in the background (DEL, from T_DEL).
del_start()
{
	T_DEL=$(now)
	ip netns exec "$P-lb" "$RINGCTL" backend del "$SVC4" "$1" proto udp &
	DEL=$!
}

# del_wait: until the delete DEL returns (1200 looks, over a minute); WAITED:
# where it was seen waiting for credit, if it was.
del_wait()
{
	local i fn
	WAITED=
	for i in $(seq 1 1200); do
		running $DEL || break
		fn=$(credit_wait $DEL)
		[ -z "$fn" ] || WAITED=$fn
		nap 0.05
	done
	! running $DEL || die "a delete did not return within $(ms "$T_DEL") ms"
	wait $DEL || die "ringctl backend del failed"
}

# arm NAME ARGS: ringctl ARGS in the LB's namespace, started now, sending
# its request once go NAME is called (output in $W/NAME, pid in ARMED).
# The fifo is held open both ways here, so neither side's open blocks.
arm()
{
	local name=$1 fd
	shift
	mkfifo "$W/$name.go"
	exec {fd}<>"$W/$name.go"
	GO[$name]=$fd
	# shellcheck disable=SC2016 # the armed shell's own arguments
	lb bash -c 'read -r _ <"$1" && shift && exec "$@"' arm "$W/$name.go" \
		"$RINGCTL" "$@" >"$W/$name" 2>&1 &
	ARMED=$!
	ARMED_ALL+=("$ARMED")
	# Armed once ip netns exec has become the shell (which then reads).
	local i comm=
	for i in $(seq 1 100); do
		read -r comm 2>/dev/null <"/proc/$ARMED/comm" || break
		[ "$comm" != bash ] || break
		nap 0.05
	done
	[ "$comm" = bash ] || die "ringctl $* could not be armed in $P-lb"
	nap 0.2
}
go() { echo go >&"${GO[$1]}"; }

# entry SPORT: whether the LB has the entry of the client's flow from SPORT.
entry()
{
	lb conntrack -G -p udp -s "$CLI4" -d "$VIP4" --sport "$1" --dport "$VPORT" >/dev/null 2>&1
}

# The walks' durations, from ftrace where it is available: every call of
# the module's rs_ct_walk(), whoever makes it.
if [ -e $TRACE/set_graph_function ] &&
	echo rs_ct_walk >$TRACE/set_ftrace_filter 2>/dev/null; then
	TRACED=1
	echo rs_ct_walk >$TRACE/set_graph_function
	echo 1 >$TRACE/max_graph_depth
	echo function_graph >$TRACE/current_tracer
	echo 1 >$TRACE/tracing_on
fi
# walks: the durations in ms of the walks traced since the last call
# (function_graph drops the fraction from a second up), also added to
# $W/walks.
walks()
{
	[ -n "$TRACED" ] || return 0
	grep 'rs_ct_walk' $TRACE/trace | sed -nE 's/.* ([0-9]+)(\.[0-9]+)? us +\|.*/\1/p' |
		awk '{ printf "%d\n", $1 / 1000 }' | tee -a "$W/walks"
	echo >$TRACE/trace
}

cmd_ok rctl service add "$SVC4" proto udp
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")" proto udp
done

# Flows to b1 (deleted later) and to b2 (marked down, its flows kept).
lookup -u "$SPORTS" >"$W/map"
B1=$(awk '$2 == "b1" { print $1 }' "$W/map" | head -n 4 | paste -sd' ')
B2=$(awk '$2 == "b2" { print $1; exit }' "$W/map")
[ -n "$B1" ] || die "no source port of $SPORTS maps to b1"
[ -n "$B2" ] || die "no source port of $SPORTS maps to b2"
traffic -u "${B1// /,},$B2" >"$W/flows"
no_failures "$W/flows" "UDP flows to b1 and b2"
for p in $B1 $B2; do
	entry "$p" || die "no conntrack entry for the flow from $p"
done
pass "UDP flows from $B1 to b1, from $B2 to b2: their entries are there"
cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp

# A delete with a nearly empty table, then the table filled.
del_start "$SPARE"
del_wait
base=$(ms "$T_DEL")
cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp
walks >/dev/null
out=$(lb "$CT_FILL" "$ENTRIES" 10.64.0.1 10.8.0.1 9) || die "ct_fill: $out"
pass "ct_fill: $out; $(lb cat /proc/sys/net/netfilter/nf_conntrack_count) entries in the LB's table"

# The first delete with a full table still has credit: a walk's cost.
del_start "$SPARE"
del_wait
paid=$(ms "$T_DEL")
cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp
cost=$(walks | sort -n | tail -n 1)
[ -n "$cost" ] || cost="about $((paid > base ? paid - base : 0))"
echo "# a walk of the table costs $cost ms; a delete took $base ms with an empty" \
	"table, $paid ms with a full one"

# What show and the mark cost when nothing waits, once they are armed;
# armed now, not while the credit refills.
arm alone show
ALONE=$ARMED
ts=$(now)
go alone
wait $ALONE || die "ringctl show failed: $(cat "$W/alone")"
alone=$(ms "$ts")
arm show show
SHOW=$ARMED
arm mark backend set "$SVC4" "$(be4 2)" proto udp health down
MARK=$ARMED

# Spend the burst with deletes of b4, until one has waited for credit:
# the walk it waited for leaves the namespace a debt of about one walk.
# Seen in ringctl's poll is not enough: the deferred walk waits out a
# grace period too, with the worker idle. A delete that waited for credit
# took a walk longer than one that did not. (On a quiet host a walk of
# 519 ms is half the burst: the first delete seen in poll had taken 1225
# ms against 937, the next one walked at once, 2026-12-08 on 6.1.)
cost_ms=${cost##* }
for i in $(seq 1 $MAX_SPEND); do
	del_start "$SPARE"
	del_wait
	took=$(ms "$T_DEL")
	echo "# spending the credit: delete $i of b4 took $took ms," \
		"${WAITED:+waited for credit in $WAITED, }walks meanwhile (ms): $(walks | paste -sd' ')"
	[ -z "$WAITED" ] || [ "$took" -lt $((paid + cost_ms)) ] || break
	WAITED=
	cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp
done
[ -n "$WAITED" ] || die "none of $MAX_SPEND deletes of b4 waited for credit (walks of $cost ms)"

# At once one more delete, of b1: it has to wait ten times that debt.
del_start "$(be4 1)"
frame=
for i in $(seq 1 300); do
	frame=$(credit_wait $DEL)
	[ -n "$frame" ] || ! running $DEL || { nap 0.05; continue; }
	break
done
[ -n "$frame" ] || die "the delete of b1 did not wait for credit (it returned, or walked, within $(ms "$T_DEL") ms)"
waiting=$(ms "$T_DEL")

# Meanwhile: show, and the health checker's mark, at once.
ts=$(now)
go show
go mark
wait $SHOW || die "ringctl show failed while the delete waited: $(cat "$W/show")"
show_took=$(ms "$ts")
wait $MARK || die "ringctl backend set health down failed while the delete waited: $(cat "$W/mark")"
mark_took=$(ms "$ts")
both=$(ms "$T_DEL")
running $DEL ||
	die "show and the health mark (in $show_took and $mark_took ms; show alone $alone ms)" \
		"returned after the delete of b1 (seen waiting in $frame, $waiting ms after it" \
		"started): they waited for it; both returned $both ms after it started"
pass "show and the mark of b2 down returned while the delete of b1 waited in $frame" \
	"(seen $waiting ms after it started): in $show_took and $mark_took ms (show alone" \
	"$alone ms), $both ms after it started"
first=${B1%% *}
entry "$first" ||
	die "b1's flow from $first was gone when show and the mark returned: they waited for the delete's walk"
pass "when they returned, the delete had not walked yet: b1's flow from $first still has its entry"

# The delete returns only after its walk.
del_wait
del_took=$(ms "$T_DEL")
for p in $B1; do
	! entry "$p" || die "the delete of b1 returned with b1's flow from $p still in conntrack"
done
entry "$B2" || die "b2's flow from $B2 lost its entry: marked down, its flows are kept"
pass "the delete of b1 returned after $del_took ms, its walk done: b1's flows' entries are gone, b2's kept"
walks >/dev/null
[ -z "$TRACED" ] || echo "# the namespace's walks (ms): $(paste -sd' ' "$W/walks")"
