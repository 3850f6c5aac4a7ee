#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rings are charged to the memory cgroup of whoever builds them, so an
# unprivileged user, who may configure the network namespace of its own
# user namespace, cannot make the kernel hold more than its cgroup allows:
# adding rings at the point limit ends in a clean error (ENOMEM, or E2BIG
# from the per-namespace budget of points) after a few, and the cgroup's
# memory.current grows with what was built. The budget, the module
# parameter max_points_per_netns, refuses what exceeds it with E2BIG.
#
#   cgroup rs-memcg (memory.max 64M)
#  +-------------------------------------------------------------+
#  | uid 65534 -> unshare -Urn: own user + net namespace          |
#  |  up to 12 x: service 10.0.0.I:80 vnodes 4096, one backend    |
#  |  weight 256 = 1,048,576 points, about 12 MiB of ring each    |
#  +-------------------------------------------------------------+
#   mb-lb (root): the budget, max_points_per_netns=1500000

set -e
P=mb
. "$(dirname "$0")/lib/topo.sh"
need_tools setpriv unshare
topo_init
CG=/sys/fs/cgroup
[ -e $CG/cgroup.controllers ] || { echo "SKIP: no cgroup2 at $CG"; exit "$KSFT_SKIP"; }
grep -qw memory $CG/cgroup.controllers || { echo "SKIP: no memory controller"; exit "$KSFT_SKIP"; }
echo +memory >$CG/cgroup.subtree_control
mkdir -p $CG/rs-memcg
cleanup()
{
	[ -z "$INNER" ] || kill "$INNER" 2>/dev/null || true
	wait 2>/dev/null || true
	rmdir $CG/rs-memcg 2>/dev/null || true
	topo_cleanup
}
INNER=
trap cleanup EXIT
echo 64M >$CG/rs-memcg/memory.max
bad=0
MIB=$((1024 * 1024))

# The unprivileged part: its output in $W/adds, "I ok" or "I rc: message",
# memory.current before and after in $W/mem0 and $W/mem1; it waits in its
# namespace (which holds the rings) until killed. It runs a copy of ringctl
# in $W: a clone in root's home (/root is 0700) is out of its reach.
cp "$RINGCTL" "$W/ringctl"
UCTL=$W/ringctl
cat >"$W/inner.sh" <<EOF2
cat $CG/rs-memcg/memory.current >$W/mem0
for i in \$(seq 1 12); do
	out=\$($UCTL service add 10.0.0.\$i:80 vnodes 4096 2>&1 &&
		$UCTL backend add 10.0.0.\$i:80 10.2.1.2:8080 weight 256 2>&1)
	rc=\$?
	if [ \$rc = 0 ]; then echo "\$i ok"; else echo "\$i \$rc: \$out"; break; fi
done >$W/adds
cat $CG/rs-memcg/memory.current >$W/mem1
$UCTL show -j >$W/show.json 2>&1
touch $W/done
exec sleep 120
EOF2
chmod 1777 "$W"; chmod 755 "$W/inner.sh" "$UCTL"
sh -c "echo \$\$ >$CG/rs-memcg/cgroup.procs &&
	exec setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn sh $W/inner.sh" &
INNER=$!
for i in $(seq 1 1200); do
	[ -e "$W/done" ] || ! kill -0 $INNER 2>/dev/null || { sleep 0.1; continue; }
	break
done
[ -e "$W/done" ] || die "the unprivileged adds did not finish: $(cat "$W/adds" 2>/dev/null | tail -n 3)"
cat "$W/adds"
ok=$(grep -c ' ok$' "$W/adds" || true)
mem0=$(cat "$W/mem0")
mem1=$(cat "$W/mem1")
grow=$(((mem1 - mem0) / MIB))
echo "memory.current: $((mem0 / MIB)) MiB before, $((mem1 / MIB)) MiB after $ok rings; events: $(tr '\n' ' ' <$CG/rs-memcg/memory.events)"
kill $INNER
wait $INNER 2>/dev/null || true
INNER=

if [ "$ok" = 12 ]; then
	echo "FAIL: 12 rings of 1M points (about 144 MiB) built in a 64 MiB cgroup" >&2
	bad=1
elif ! tail -n1 "$W/adds" | grep -Eq '^[0-9]+ 1: ringctl: .*(Cannot allocate memory|Argument list too long)'; then
	echo "FAIL: add $((ok + 1)) failed, but not with a clean ENOMEM or E2BIG: $(tail -n1 "$W/adds")" >&2
	bad=1
else
	pass "a clean error after $ok rings: $(tail -n1 "$W/adds")"
fi
# A 1M-point ring has 8 MiB of positions alone.
if [ "$ok" -gt 0 ] && [ "$grow" -lt $((8 * ok)) ]; then
	echo "FAIL: memory.current grew by $grow MiB for $ok rings of 1M points: rings are not charged to the cgroup" >&2
	bad=1
else
	pass "memory.current grew by $grow MiB for $ok rings"
fi

# The per-namespace budget of points.
unload_module
insmod "$RINGSTEER_KO" max_points_per_netns=1500000 || die "insmod max_points_per_netns=1500000"
PARAM=/sys/module/ringsteer/parameters/max_points_per_netns
if [ ! -e $PARAM ]; then
	echo "FAIL: the module has no parameter max_points_per_netns" >&2
	bad=1
elif [ "$(cat $PARAM)" != 1500000 ]; then
	echo "FAIL: max_points_per_netns is $(cat $PARAM), loaded with 1500000" >&2
	bad=1
else
	newns "$P-lb"
	cmd_ok rctl service add 10.0.0.1:80 vnodes 4096
	cmd_ok rctl backend add 10.0.0.1:80 10.2.1.2:8080 weight 256
	cmd_ok rctl service add 10.0.0.2:80 vnodes 4096
	rc=0
	rctl backend add 10.0.0.2:80 10.2.1.2:8080 weight 256 2>"$W/err" || rc=$?
	if [ $rc != 1 ] || ! grep -q 'Argument list too long: .' "$W/err"; then
		echo "FAIL: 2,097,152 points with a budget of 1,500,000: exit $rc, $(cat "$W/err"), expected E2BIG and a message" >&2
		bad=1
	else
		# Positive twin: what fits in the budget is accepted.
		cmd_ok rctl backend add 10.0.0.2:80 10.2.1.2:8080 weight 100
		pass "budget: over 1,500,000 points E2BIG ($(cat "$W/err")), 1,458,176 accepted"
	fi
fi
[ $bad = 0 ] || die "memory cgroup or budget checks failed (see FAIL lines above)"
