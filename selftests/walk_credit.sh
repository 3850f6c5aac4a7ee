#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No request waits for a conntrack walk inside generic netlink, and no walk
# runs beyond its namespace's credit (ct_sweep.c; doc/semantics.md, "When a
# delete has returned"):
#
#  - delete: while ringctl's delete of b1 waits for its walk (the credit
#    spent by deletes of a spare b4, on a large conntrack table), a genl
#    family registering (modprobe of a module with one, as a user's
#    CTRL_CMD_GETFAMILY would autoload it) and a third genl request
#    (nlctrl) both complete: the delete waits outside genl_rcv(), whose
#    cb_lock the registration needs for writing. A health mark of b3 down
#    with on-down reset (raw, as the checker sends it) returns before the
#    walk (b3's entry still there), and so does a counting GET (show) while
#    another request deletes b2. Once ringctl's delete returns, the
#    entries of b1, b2 and b3 are gone.
#  - queue: unprivileged, a user+net namespace adds services and flushes
#    as fast as it can from several processes, for WC_FILL seconds: its
#    walks (every rs_ct_walk(), traced) take at most the credit's burst, a
#    tenth of the time, and two walks' worth of slack; its changes are
#    refused with EAGAIN once its queue is full.
#  - the credit worker (sweep_work, a kprobe) runs about once per walk,
#    not again and again for the last partial jiffy of each wait.
#
# WC_PARTS picks parts ("delete queue", the default).
#
#   wk-cli               wk-lb                                   wk-b1 .. wk-b3
#  +----------------+  +-------------------------------------+    +-----------+
#  | 10.1.0.2       +--+ 10.0.0.100:80 udp -> b1 b2 b3 (b4)  +----+ 10.2.N.2  |
#  | UDP flows to   |  | 400,000 more conntrack entries      | x3 | :8080     |
#  | b1, b2, b3     |  | del b1; modprobe, genl, mark b3,    |    | says "bN" |
#  +----------------+  | show + del b2 meanwhile             |    +-----------+
#                      +-------------------------------------+
#  + a user+net namespace of nobody's: services added and flushed

set -e
P=wk
. "$(dirname "$0")/lib/topo.sh"
need_tools conntrack genl modprobe setpriv unshare
CT_FILL=${WC_CT_FILL:-$RS_BINDIR/ct_fill}
ENTRIES=${WC_ENTRIES:-400000}
FILL=${WC_FILL:-40}
FILL_PROCS=${WC_FILL_PROCS:-4}
PARTS=${WC_PARTS:-delete queue}
MAX_SPEND=8
SPORTS=40000-40063
SPARE=$(be4 4)
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
[ -x "$CT_FILL" ] || die "no $CT_FILL (make selftest-bins)"
TRACE=/sys/kernel/tracing
[ -e $TRACE/trace ] || TRACE=/sys/kernel/debug/tracing
# The debug kernel has no function tracer (doc/testing.md): nothing here
# can be judged without the walks' durations.
[ -e $TRACE/set_graph_function ] || { echo "SKIP: no function tracer"; exit "$KSFT_SKIP"; }
CT_MAX=$(cat /proc/sys/net/netfilter/nf_conntrack_max 2>/dev/null || true)
# A module with a generic netlink family of its own, not loaded yet.
GENLMOD=
for m in team wireguard; do
	grep -q "^$m " /proc/modules || ! modinfo "$m" >/dev/null 2>&1 || { GENLMOD=$m; break; }
done
[ -n "$GENLMOD" ] || die "no module with a genl family to load (team, wireguard)"
ARMED_ALL=()
declare -A GO=()

cleanup()
{
	kill "${ARMED_ALL[@]}" 2>/dev/null || true
	wait "${ARMED_ALL[@]}" 2>/dev/null || true
	echo nop >$TRACE/current_tracer
	echo 0 >$TRACE/events/kprobes/enable 2>/dev/null || true
	echo >$TRACE/kprobe_events 2>/dev/null || true
	echo >$TRACE/set_graph_function
	echo >$TRACE/set_ftrace_filter
	echo 0 >$TRACE/max_graph_depth
	modprobe -r "$GENLMOD" 2>/dev/null || true
	topo_cleanup
	[ -z "$CT_MAX" ] || sysctl -qw net.netfilter.nf_conntrack_max="$CT_MAX"
}

topo_setup 3
trap cleanup EXIT
chmod 0755 "$W"
copy_rsnl "$W"
cp "$LIBDIR/walk_fill.py" "$W/"
modprobe nf_conntrack_netlink 2>/dev/null || true
lb sysctl -qw net.netfilter.nf_conntrack_udp_timeout=600 \
	net.netfilter.nf_conntrack_udp_timeout_stream=600
sysctl -qw net.netfilter.nf_conntrack_max=$((ENTRIES + 65536))

now() { echo "${EPOCHREALTIME/./}"; }
ms() { echo $((($(now) - $1) / 1000)); }
mkfifo "$W/nap"
exec {NAP}<>"$W/nap"
nap() { read -rt "$1" -u "$NAP" _ || true; }
running()
{
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}
entry()
{
	lb conntrack -G -p udp -s "$CLI4" -d "$VIP4" --sport "$1" --dport "$VPORT" >/dev/null 2>&1
}

# arm NAME CMD...: CMD in the LB's namespace, started now, run once go
# NAME is called (output in $W/NAME, pid in ARMED), as walk_throttle.sh.
arm()
{
	local name=$1 fd i comm=
	shift
	mkfifo "$W/$name.go"
	exec {fd}<>"$W/$name.go"
	GO[$name]=$fd
	# shellcheck disable=SC2016 # the armed shell's own arguments
	lb bash -c 'read -r _ <"$1" && shift && exec "$@"' arm "$W/$name.go" \
		"$@" >"$W/$name" 2>&1 &
	ARMED=$!
	ARMED_ALL+=("$ARMED")
	for i in $(seq 1 100); do
		read -r comm 2>/dev/null <"/proc/$ARMED/comm" || break
		[ "$comm" != bash ] || break
		nap 0.05
	done
	[ "$comm" = bash ] || die "$* could not be armed in $P-lb"
	nap 0.2
}
go() { echo go >&"${GO[$1]}"; }

# rsnl_arm NAME REQUEST...: rsnl.py, started (family resolved) now in the
# LB's namespace, sending REQUEST once go_rsnl NAME is called.
rsnl_arm()
{
	local name=$1 fd
	shift
	mkfifo "$W/$name.in"
	lb "$PY" "$W/rsnl.py" - <"$W/$name.in" >"$W/$name" 2>&1 &
	ARMED=$!
	ARMED_ALL+=("$ARMED")
	exec {fd}>"$W/$name.in"
	GO[$name]=$fd
	echo "$*" >"$W/$name.req"
	nap 1
}
go_rsnl()
{
	cat "$W/$1.req" >&"${GO[$1]}"
	eval "exec ${GO[$1]}>&-"
}

# The walks (function_graph on rs_ct_walk) and the credit worker's runs (a
# kprobe on sweep_work) in one trace.
echo nop >$TRACE/current_tracer
echo rs_ct_walk >$TRACE/set_ftrace_filter
echo rs_ct_walk >$TRACE/set_graph_function
echo 1 >$TRACE/max_graph_depth
echo 'p:rs_sweep ringsteer:sweep_work' >$TRACE/kprobe_events ||
	die "no kprobe on the module's sweep_work"
echo 1 >$TRACE/events/kprobes/rs_sweep/enable
echo function_graph >$TRACE/current_tracer
echo 1 >$TRACE/tracing_on
echo >$TRACE/trace
# walks: "COUNT SUM_MS MAX_MS RUNS" of the walks and worker runs traced
# since the last call (function_graph drops the fraction from a second up).
walks()
{
	local t
	t=$(cat $TRACE/trace)
	echo >$TRACE/trace
	printf '%s\n' "$t" | sed -nE 's/.* ([0-9]+)(\.[0-9]+)? us +\|.*rs_ct_walk.*/\1/p' |
		awk -v runs="$(printf '%s\n' "$t" | grep -c 'rs_sweep:' || true)" \
		'{ n++; s += $1; if ($1 > m) m = $1 }
		END { printf "%d %d %d %d\n", n, s / 1000, m / 1000, runs }'
}
TOTAL_WALKS=0
TOTAL_RUNS=0
tally() { TOTAL_WALKS=$((TOTAL_WALKS + $1)); TOTAL_RUNS=$((TOTAL_RUNS + $4)); }

cmd_ok rctl service add "$SVC4" proto udp
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")" proto udp
done
cmd_ok rctl backend set "$SVC4" "$(be4 3)" proto udp on-down reset
lookup -u "$SPORTS" >"$W/map"
for b in 1 2 3; do
	eval "B$b=\$(awk '\$2 == \"b$b\" { print \$1; exit }' \"\$W/map\")"
done
[ -n "$B1" ] && [ -n "$B2" ] && [ -n "$B3" ] || die "no source port of $SPORTS for each of b1 b2 b3"
traffic -u "$B1,$B2,$B3" >"$W/flows"
no_failures "$W/flows" "UDP flows to b1, b2, b3"
for p in $B1 $B2 $B3; do
	entry "$p" || die "no conntrack entry for the flow from $p"
done
pass "UDP flows from $B1 (b1), $B2 (b2), $B3 (b3): their entries are there"
cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp
out=$(lb "$CT_FILL" "$ENTRIES" 10.64.0.1 10.8.0.1 9) || die "ct_fill: $out"
pass "ct_fill: $out"
walks >/dev/null

delete_part()
{
	local i t took cost=0 del frame waited=
	# Armed first: once the credit is spent, it refills meanwhile.
	arm show "$RINGCTL" show
	rsnl_arm mark BACKEND_SET "svc=$SVC4/udp" "be=$(be4 3)" backend.health=u32:1
	rsnl_arm del2 BACKEND_DEL "svc=$SVC4/udp" "be=$(be4 2)"
	# The credit spent: deletes of b4, until one waited for credit (took
	# more than thrice a walk and a half second).
	for i in $(seq 1 $MAX_SPEND); do
		t=$(now)
		cmd_ok rctl backend del "$SVC4" "$SPARE" proto udp
		took=$(ms "$t")
		read -r n s m r <<<"$(walks)"
		tally "$n" "$s" "$m" "$r"
		[ "$m" -le "$cost" ] || cost=$m
		echo "# delete $i of b4: $took ms, walks $n ($s ms, longest $m ms)"
		cmd_ok rctl backend add "$SVC4" "$SPARE" proto udp
		[ "$took" -le $((3 * cost + 500)) ] || { waited=1; break; }
	done
	[ -n "$waited" ] || die "none of $MAX_SPEND deletes of b4 waited for credit (walks of $cost ms)"

	t=$(now)
	lb "$RINGCTL" backend del "$SVC4" "$(be4 1)" proto udp >"$W/del1" 2>&1 &
	del=$!
	nap 0.3
	running $del || die "the delete of b1 returned at once: $(cat "$W/del1")"
	entry "$B1" || die "b1's entry went at once: its delete did not wait for credit"

	# A family registers (cb_lock for writing), and a third request.
	modprobe "$GENLMOD" &
	frame=$!
	nap 0.2
	genl ctrl get name nlctrl >"$W/genl" 2>&1 || die "genl ctrl get name nlctrl: $(cat "$W/genl")"
	wait $frame || die "modprobe $GENLMOD failed"
	grep -q "^$GENLMOD " /proc/modules || die "modprobe $GENLMOD: not loaded"
	running $del && entry "$B1" ||
		die "modprobe $GENLMOD and genl returned only after the delete of b1 ($(ms "$t") ms): the delete held genetlink's cb_lock"
	pass "while the delete of b1 waited for its walk: modprobe $GENLMOD (a genl family) and a genl request completed ($(ms "$t") ms after it started)"

	# The checker's mark, down with on-down reset: before the walk.
	go_rsnl mark
	wait "${ARMED_ALL[-2]}" || die "mark of b3 down: $(cat "$W/mark")"
	entry "$B3" || die "the mark of b3 down returned after its walk (b3's entry gone)"
	running $del && entry "$B1" || die "the walk of b1 ran before the mark was seen returning: credit was not owed"
	pass "the health mark of b3 down (on-down reset) returned before its walk: b3's entry still there"

	# A counting GET while another request deletes b2.
	go show
	nap 0.15
	go_rsnl del2
	wait "${ARMED_ALL[-1]}" || die "delete of b2: $(cat "$W/del2")"
	wait "${ARMED_ALL[-3]}" || die "ringctl show failed: $(cat "$W/show")"
	entry "$B2" || die "the counting show returned after the walk of b2's delete (b2's entry gone)"
	pass "a counting show returned while b2's delete was still to be walked"

	wait $del || die "ringctl backend del b1 failed: $(cat "$W/del1")"
	took=$(ms "$t")
	for p in $B1 $B2 $B3; do
		! entry "$p" || die "ringctl's delete of b1 returned with the entry from $p still there"
	done
	read -r n s m r <<<"$(walks)"
	tally "$n" "$s" "$m" "$r"
	pass "ringctl's delete of b1 returned after its walk ($took ms): the entries of b1, b2 (deleted) and b3 (down, reset) are gone"
}

queue_part()
{
	local t elapsed n s m r allowed eagain
	# The LB's second walks (RS_SECOND_PASS) done first: they are its own.
	nap 6
	read -r n s m r <<<"$(walks)"
	tally "$n" "$s" "$m" "$r"
	t=$(now)
	"${NOBODY[@]}" unshare -Urn "$PY" "$W/walk_fill.py" "$FILL" "$FILL_PROCS" 10.200 \
		>"$W/fill" 2>&1 || die "walk_fill.py: $(cat "$W/fill")"
	elapsed=$(ms "$t")
	read -r n s m r <<<"$(walks)"
	tally "$n" "$s" "$m" "$r"
	echo "# the user namespace's requests: $(paste -sd';' "$W/fill")"
	allowed=$((1000 + elapsed / 10 + 2 * m))
	[ "$s" -le "$allowed" ] ||
		die "walks took $s ms in $elapsed ms ($n walks, the longest $m ms): beyond the credit ($allowed ms)"
	pass "$n walks took $s ms in $elapsed ms (the longest $m ms): within the credit ($allowed ms)"
	eagain=$(awk '$1 == "EAGAIN" { print $2 }' "$W/fill")
	[ -n "$eagain" ] || die "the namespace's changes were never refused: its queue did not fill"
	grep -q '^EAGAIN .*too many conntrack walks queued' "$W/fill" ||
		die "EAGAIN without its message: $(cat "$W/fill")"
	pass "$eagain changes were refused with EAGAIN once the namespace's queue was full"
}

for part in $PARTS; do
	"${part}_part"
done
# About one run of the worker per walk (and per second walk, and per
# change that armed it), not a spin for each wait's last jiffy.
[ "$TOTAL_RUNS" -le $((3 * TOTAL_WALKS + 20)) ] ||
	die "the credit worker ran $TOTAL_RUNS times for $TOTAL_WALKS walks"
pass "the credit worker ran $TOTAL_RUNS times for $TOTAL_WALKS walks"
