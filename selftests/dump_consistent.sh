#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A dump that a change interrupts carries NLM_F_DUMP_INTR, whatever the
# change left for the rest of the dump to send; and `ringctl save` never
# writes a backend list that the service never had.
#
#   dc-lb (control plane only, no traffic)
#  +----------------------------------------------------------------+
#  | 10.0.0.100:80/udp, vnodes 1, 2000 backends 10.3.x.y:80          |
#  | dump_intr.py: reads a BACKEND_GET dump part by part (small      |
#  |   receive buffer), changes the service from a second socket     |
#  |   between two parts                                             |
#  | ringctl save, slowed by strace, while the service is replaced   |
#  +----------------------------------------------------------------+
#
# The kernel resumes a dump by index. If a change leaves fewer backends
# than the dump has already returned, the next part sends no message, and
# the flag, set only on messages that carry a new generation, was missing:
# the reader got a list that never existed and no sign of it.

set -e
P=dc
. "$(dirname "$0")/lib/topo.sh"
topo_init
newns "$P-lb"
RSNL=$LIBDIR/rsnl.py
SVC=10.0.0.100:80/udp
N=2000

# fill: the service with N backends 10.3.I/250.(1+I%250):80, identity order.
fill()
{
	rctl flush >/dev/null
	{
		echo "SERVICE_NEW svc=$SVC service.vnodes=u32:1"
		awk -v n=$N -v s=$SVC 'BEGIN { for (i = 0; i < n; i++)
			printf "BACKEND_NEW svc=%s be=10.3.%d.%d:80\n", s, i / 250, 1 + i % 250 }'
	} | lb "$PY" "$RSNL" - >"$W/fill.out" || die "setting up $N backends: $(grep -v '^OK$' "$W/fill.out" | head -n 3)"
}

# 1. A backend ahead of the dump goes: the next part is flagged. This is
#    the case that already works; it shows the reader sees flags at all.
fill
lb "$PY" "$LIBDIR/dump_intr.py" "$SVC" AHEAD >"$W/ahead" || die "dump_intr.py AHEAD failed"
echo "delete ahead: $(cat "$W/ahead")"
read -r _ got _ intr _ done _ parts <"$W/ahead"
[ "$parts" -ge 3 ] || die "the dump came in $parts parts; the test needs at least 3"
[ "$done" = 0 ] || die "dump ended with error $done"
[ "$intr" = 1 ] || die "a backend was deleted ahead of the dump, no NLM_F_DUMP_INTR"
pass "delete ahead of the dump: $got messages, NLM_F_DUMP_INTR set"

# 2. The service is replaced by one with fewer backends than already
#    dumped: the rest of the dump is empty; it must still be flagged.
fill
lb "$PY" "$LIBDIR/dump_intr.py" "$SVC" REPLACE >"$W/replace" || die "dump_intr.py REPLACE failed"
echo "replace: $(cat "$W/replace")"
read -r _ got _ intr _ done _ parts <"$W/replace"
[ "$got" -gt 5 ] || die "the dump returned only $got backends before the change; the test needs more than 5"
bad=0
if [ "$done" != 0 ] || [ "$intr" = 1 ]; then
	pass "replaced under the dump: $got messages, flagged (intr $intr) or failed (error $done)"
else
	echo "FAIL: dump returned $got backends of a service that now has 5, ended cleanly without NLM_F_DUMP_INTR" >&2
	bad=1
fi

# 3. The service is deleted under the dump. The request was good when it
#    came, so the dump ends without an error, flagged: the reader retries
#    and then learns that the service is gone. (It used to end with ENOENT
#    in the middle of the list.)
fill
lb "$PY" "$LIBDIR/dump_intr.py" "$SVC" DELETE >"$W/delete" || die "dump_intr.py DELETE failed"
echo "delete: $(cat "$W/delete")"
read -r _ got _ intr _ done _ parts <"$W/delete"
[ "$got" -gt 5 ] || die "the dump returned only $got backends before the delete; the test needs more than 5"
if [ "$done" != 0 ] || [ "$intr" != 1 ]; then
	echo "FAIL: service deleted under the dump: error $done, NLM_F_DUMP_INTR $intr (want 0 and 1)" >&2
	bad=1
else
	pass "service deleted under the dump: $got messages, ended cleanly, flagged"
fi

# 4. ringctl save while the service is replaced: every recvmsg() of ringctl
#    waits, so the replacement lands in the middle of its backend dump.
#    The file must be the whole old list, or a state the replacement went
#    through (no old backend, 0 to 5 new ones: the replacement is several
#    requests, and a save that starts between them is consistent), or
#    nothing with a non-zero exit status. Part of the old list is the bug.
need_tools strace
for delay in 0.6 1.2 1.8; do
	fill
	rc=0
	lb strace -f -qq -o /dev/null -e trace=recvmsg,recvfrom \
		-e inject=recvmsg,recvfrom:delay_enter=250000 \
		"$RINGCTL" save >"$W/save" 2>"$W/save.err" &
	spid=$!
	sleep "$delay"
	{
		echo "SERVICE_DEL svc=$SVC"
		echo "SERVICE_NEW svc=$SVC service.vnodes=u32:1"
		for i in 1 2 3 4 5; do echo "BACKEND_NEW svc=$SVC be=10.4.0.$i:80"; done
	} | lb "$PY" "$RSNL" - >/dev/null || die "replacing the service failed"
	wait "$spid" || rc=$?
	nb=$(grep -c '10\.3\.' "$W/save" || true)
	ns=$(grep -c '10\.4\.0\.' "$W/save" || true)
	echo "save, replaced after ${delay}s: exit $rc, $nb old and $ns new backends"
	if [ "$rc" != 0 ]; then
		continue
	fi
	if ! { [ "$nb" = $N ] && [ "$ns" = 0 ]; } && [ "$nb" != 0 ]; then
		echo "FAIL: ringctl save exited 0 with $nb of the old $N backends and $ns of the new 5" >&2
		bad=1
	else
		echo "ok: whole list"
	fi
done
[ $bad = 0 ] || die "an interrupted dump was not ended as it should be (see FAIL lines above)"
pass "ringctl save: whole lists only, or failure"
