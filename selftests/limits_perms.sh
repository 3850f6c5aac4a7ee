#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a user who may read a load balancer but not configure it gets, and
# the limits a configuration meets when they change at run time:
#  - counting connections (BACKEND_GET with flag conns) walks the host's
#    whole conntrack table: it needs CAP_NET_ADMIN over the namespace, so
#    nobody gets EPERM (doit and dump, with a message), the owner of a
#    user+net namespace counts its own; `ringctl show` as nobody still
#    works, without the counts, and says so (text and -j);
#  - max_points_per_netns lowered below what the namespace holds: a change
#    that adds no points (drain, delete, a lower weight, a new key, fewer
#    vnodes, a draining backend) passes, one that adds points gets E2BIG;
#    a placement slots service's table counts a point a slot of capacity;
#    and a ring over the budget is refused before it is built (E2BIG, not
#    ENOMEM, in a memory cgroup too small to build it);
#  - max_backends_per_netns: every backend counts, draining ones too;
#  - addresses that cannot be a VIP or a backend (unspecified, loopback,
#    link-local, multicast, broadcast, IPv4-mapped, a backend equal to its
#    VIP) are refused by ringctl and by the kernel (EINVAL, a message and
#    the offending attribute), and change nothing.
#
#   lp-lb (control plane only)
#  +----------------------------------------------------------------+
#  | 10.0.0.100:80/tcp b1 b2    ringctl and rsnl.py as root, and as  |
#  | 10.0.0.1:80/tcp (budget)   nobody without CAP_NET_ADMIN         |
#  +----------------------------------------------------------------+
#  + cgroup rs-lp (memory.max 8M): one over-budget request
#  + a user+net namespace that nobody owns (unshare -Urn)
#
# Every check runs, and the script fails at the end if one did.

set -e
P=lp
. "$(dirname "$0")/lib/topo.sh"
need_tools setpriv unshare
topo_init
newns "$P-lb"
CG=/sys/fs/cgroup
PARAMS=/sys/module/ringsteer/parameters
RSNL=$LIBDIR/rsnl.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
EPERM="Operation not permitted"
E2BIG="Argument list too long"
bad=0
points_max=$(cat $PARAMS/max_points_per_netns)
backends_max=$(cat $PARAMS/max_backends_per_netns 2>/dev/null || echo none)
cleanup()
{
	echo "$points_max" >$PARAMS/max_points_per_netns 2>/dev/null || true
	[ "$backends_max" = none ] ||
		echo "$backends_max" >$PARAMS/max_backends_per_netns 2>/dev/null || true
	rmdir $CG/rs-lp 2>/dev/null || true
	topo_cleanup
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; bad=1; }
nb() { lb "${NOBODY[@]}" "$@"; }
# A copy nobody can read (/root is 0700).
chmod 0755 "$W"
copy_rsnl "$W"
raw() { lb "$PY" "$W/rsnl.py" "$@" || true; }
raw_nobody() { nb "$PY" "$W/rsnl.py" "$@" || true; }
# expect_raw WHAT PATTERN ANSWER: the answer of a raw request matches.
expect_raw()
{
	if [[ $3 =~ $2 ]]; then
		echo "ok: $1 -> $3"
	else
		fail "$1 -> '$3', expected /$2/"
	fi
}

V4="svc=$SVC4/tcp"
cmd_ok rctl key set "$KEY"

# --- Connection counts need CAP_NET_ADMIN -----------------------------------
cmd_ok rctl service add "$SVC4"
cmd_ok rctl backend add "$SVC4" "$(be4 1)"
cmd_ok rctl backend add "$SVC4" "$(be4 2)" weight 2
expect_raw "nobody: BACKEND_GET flags=conns" '^EPERM [^-].*CAP_NET_ADMIN.* @flags$' \
	"$(raw_nobody BACKEND_GET "$V4" "be=$(be4 1)" flags=u32:2)"
expect_raw "nobody: BACKEND_GET dump flags=conns" '^EPERM [^-].*CAP_NET_ADMIN' \
	"$(raw_nobody --dump BACKEND_GET "$V4" flags=u32:2)"
# Positive twins: reading without counts needs nothing, root counts.
expect_raw "nobody: BACKEND_GET" '^OK$' "$(raw_nobody BACKEND_GET "$V4" "be=$(be4 1)")"
expect_raw "nobody: BACKEND_GET dump" '^OK$' "$(raw_nobody --dump BACKEND_GET "$V4")"
expect_raw "root: BACKEND_GET flags=conns" '^OK$' "$(raw BACKEND_GET "$V4" "be=$(be4 1)" flags=u32:2)"
expect_raw "root: BACKEND_GET dump flags=conns" '^OK$' "$(raw --dump BACKEND_GET "$V4" flags=u32:2)"

# show -j as nobody: no counts, a reason instead; the rest as root sees it.
rctl show -j >"$W/root.json"
rc=0
nb "$RINGCTL" -j show >"$W/nobody.json" 2>"$W/nobody.err" || rc=$?
if [ $rc != 0 ]; then
	fail "ringctl -j show as nobody: exit $rc, $(cat "$W/nobody.err")"
else
	"$PY" - "$W/root.json" "$W/nobody.json" <<'EOF' || fail "ringctl -j show as nobody (see above)"
import json, sys
root, nobody = (json.load(open(p)) for p in sys.argv[1:])
bad = []
for s in root["services"]:
    for b in s["backends"]:
        if any(k not in b for k in ("conns_established", "conns_other", "conns_closed")):
            bad.append("root's show -j has no counts for %s" % b["addr"])
if "conns_unavailable" in root:
    bad.append("root's show -j says counts are unavailable")
for s in nobody["services"]:
    for b in s["backends"]:
        for k in ("conns_established", "conns_other", "conns_closed"):
            if k in b:
                bad.append("nobody's show -j has %s for %s" % (k, b["addr"]))
why = nobody.get("conns_unavailable", "")
if "CAP_NET_ADMIN" not in why:
    bad.append("nobody's show -j does not say why counts are missing: %r" % why)
nobody.pop("conns_unavailable", None)
for s in root["services"]:
    for b in s["backends"]:
        b.pop("conns_established", None)
        b.pop("conns_other", None)
        b.pop("conns_closed", None)
if root != nobody:
    bad.append("nobody's show -j differs beyond the counts:\n%s\n%s" % (root, nobody))
for line in bad:
    print("FAIL: " + line, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
fi
rc=0
nb "$RINGCTL" show >"$W/nobody.txt" 2>&1 || rc=$?
if [ $rc != 0 ] || ! grep -q "not counted.*CAP_NET_ADMIN" "$W/nobody.txt"; then
	fail "ringctl show as nobody: exit $rc, no note that counts need CAP_NET_ADMIN: $(cat "$W/nobody.txt")"
fi
rctl show >"$W/root.txt"
grep -q "not counted" "$W/root.txt" && fail "root's show says counts are not counted"
# The owner of a user+net namespace counts its own connections.
rc=0
unshare -Urn sh -c "$RINGCTL service add 10.0.0.101:80 && $RINGCTL backend add 10.0.0.101:80 10.2.1.2:8080 && $RINGCTL -j show" \
	>"$W/own.json" 2>&1 || rc=$?
[ $rc = 0 ] && grep -q '"conns_established":0' "$W/own.json" ||
	fail "own user+net namespace: exit $rc, no counts: $(cat "$W/own.json")"
[ $bad = 1 ] || pass "counts: EPERM for nobody (doit, dump), show without them says so, root and a namespace's owner count"
cmd_ok rctl flush

# --- The point budget lowered at run time -------------------------------------
B1=10.2.1.2:8080 B2=10.2.2.2:8080 B3=10.2.3.2:8080 B4=10.2.4.2:8080
S=10.0.0.1:80
cmd_ok rctl service add $S vnodes 1000
for b in $B1 $B2 $B3; do cmd_ok rctl backend add $S $b weight 10; done
# 30,000 points held, 5,000 allowed from now on.
echo 5000 >$PARAMS/max_points_per_netns
# budget_ok ARGS / budget_e2big ARGS: ringctl ARGS passes / gets E2BIG and
# changes nothing.
budget_ok()
{
	rctl "$@" >/dev/null 2>"$W/err" || fail "over a lowered budget, ringctl $* refused: $(cat "$W/err")"
}
budget_e2big()
{
	local rc=0
	snap >"$W/before"
	rctl "$@" >/dev/null 2>"$W/err" || rc=$?
	snap >"$W/after"
	if [ $rc != 1 ] || ! grep -q "$E2BIG: .*budget" "$W/err"; then
		fail "over a lowered budget, ringctl $* (adds points): exit $rc, $(cat "$W/err"), expected E2BIG"
	elif ! cmp -s "$W/before" "$W/after"; then
		fail "ringctl $* was refused but changed state"
	fi
}
budget_e2big backend set $S $B1 weight 11
budget_e2big backend add $S $B4
budget_e2big service set $S vnodes 1001
budget_ok backend add $S $B4 state draining
budget_ok service add 10.0.0.2:80
budget_e2big backend add 10.0.0.2:80 $B1
budget_ok key set 00112233445566778899aabbccddeeff
budget_ok backend set $S $B1 weight 5
budget_ok backend drain $S $B2
budget_ok backend del $S $B2
budget_ok backend del $S $B3
budget_ok service set $S vnodes 900
# 4,500 points: activating B4 (900 more) would cross the budget.
budget_e2big backend activate $S $B4
rctl show -j | grep -q '"points":4500' || fail "the budget checks left $(rctl show -j)"
budget_ok service del $S
budget_ok service del 10.0.0.2:80
echo "$points_max" >$PARAMS/max_points_per_netns
[ $bad = 1 ] || pass "budget lowered below use: what adds no points passes, what adds points E2BIG"

# A placement slots service's table counts a point a slot of its capacity,
# held or not, next to its ring's point a slot held: 512 + 400 of 1,000.
S3=10.0.0.3:80
echo 1000 >$PARAMS/max_points_per_netns
budget_e2big service add $S3 placement slots capacity 2048
grep -q "slot table" "$W/err" || fail "a slot table over the budget: $(cat "$W/err"), expected it named"
budget_ok service add $S3 placement slots capacity 512
budget_e2big service set $S3 placement slots capacity 1024
budget_ok backend add $S3 $B1 weight 400
budget_e2big backend add $S3 $B2 weight 100
rctl show -j | grep -q '"points":912' || fail "a slots service of capacity 512 and 400 slots held: $(rctl show -j)"
budget_ok backend drain $S3 $B1
rctl show -j | grep -q '"points":512' || fail "its backend drained: $(rctl show -j)"
budget_ok service del $S3
rctl show -j | grep -q '"points":0' || fail "its service deleted: $(rctl show -j)"
echo "$points_max" >$PARAMS/max_points_per_netns
[ $bad = 1 ] || pass "slot tables count in the budget: a point a slot of capacity"

# An over-budget ring is refused before it is built: in a cgroup that could
# not hold its 12 MiB, the answer is E2BIG, not ENOMEM.
if ! grep -qw memory $CG/cgroup.controllers 2>/dev/null; then
	fail "no cgroup2 memory controller at $CG"
else
	echo +memory >$CG/cgroup.subtree_control
	mkdir -p $CG/rs-lp
	echo 8M >$CG/rs-lp/memory.max
	echo 100000 >$PARAMS/max_points_per_netns
	cmd_ok rctl service add $S vnodes 4096
	rc=0
	sh -c "echo \$\$ >$CG/rs-lp/cgroup.procs && exec ip netns exec $P-lb $RINGCTL backend add $S $B1 weight 256" \
		>/dev/null 2>"$W/err" || rc=$?
	if [ $rc != 1 ] || ! grep -q "$E2BIG" "$W/err"; then
		fail "1,048,576 points over a budget of 100,000 in an 8 MiB cgroup: exit $rc, $(cat "$W/err"), expected E2BIG before building"
	else
		pass "over-budget ring refused before it is built: $(cat "$W/err")"
	fi
	echo "$points_max" >$PARAMS/max_points_per_netns
	cmd_ok rctl service del $S
fi

# --- Backends per namespace ---------------------------------------------------
if [ "$backends_max" = none ]; then
	fail "the module has no parameter max_backends_per_netns"
else
	cmd_ok rctl service add 10.0.0.1:80
	cmd_ok rctl service add 10.0.0.2:80
	cmd_ok rctl backend add 10.0.0.1:80 $B1
	cmd_ok rctl backend add 10.0.0.2:80 $B1
	echo 3 >$PARAMS/max_backends_per_netns
	budget_ok backend add 10.0.0.1:80 $B2 state draining
	for st in active draining; do
		rc=0
		rctl backend add 10.0.0.2:80 $B2 state $st 2>"$W/err" || rc=$?
		[ $rc = 1 ] && grep -q "$E2BIG: .*backends" "$W/err" ||
			fail "a 4th backend ($st) with max_backends_per_netns=3: exit $rc, $(cat "$W/err")"
	done
	rctl show -j | grep -q '"backends":3,"backends_max":3' ||
		fail "show -j does not report 3 of 3 backends: $(rctl show -j | head -c 200)"
	rctl show | grep -q "3 of 3 backends" || fail "show does not report 3 of 3 backends: $(rctl show | head -n1)"
	# Lowered below use: changes that add no backend still pass.
	echo 1 >$PARAMS/max_backends_per_netns
	budget_ok backend drain 10.0.0.1:80 $B1
	budget_ok backend activate 10.0.0.1:80 $B1
	budget_ok backend set 10.0.0.1:80 $B1 weight 3
	budget_ok backend del 10.0.0.1:80 $B2
	budget_ok service del 10.0.0.2:80
	rc=0
	rctl backend add 10.0.0.1:80 $B3 2>"$W/err" || rc=$?
	[ $rc = 1 ] && grep -q "$E2BIG" "$W/err" || fail "a 2nd backend with max_backends_per_netns=1: exit $rc"
	echo "$backends_max" >$PARAMS/max_backends_per_netns
	cmd_ok rctl backend add 10.0.0.1:80 $B3
	cmd_ok rctl flush
	[ $bad = 1 ] || pass "backends per namespace: draining ones count, a 4th of 3 E2BIG, deletes pass below use"
fi

# --- Addresses that cannot be a VIP or a backend ------------------------------
cmd_ok rctl service add "$SVC4"
cmd_ok rctl service add "$SVC6"
# addr_refused WHAT WORD ARGS: ringctl ARGS exits 1 naming WORD, nothing changes.
addr_refused()
{
	local what=$1 word=$2 rc=0
	shift 2
	snap >"$W/before"
	rctl "$@" >/dev/null 2>"$W/err" || rc=$?
	snap >"$W/after"
	if [ $rc != 1 ] || ! grep -qi "$word" "$W/err"; then
		fail "ringctl $* ($what): exit $rc, '$(cat "$W/err")', expected a refusal naming '$word'"
	elif ! cmp -s "$W/before" "$W/after"; then
		fail "ringctl $* was refused but changed state"
	fi
}
while read -r word v4 v6; do
	if [ "$v4" != - ]; then
		addr_refused "service" "$word" service add "$v4:80"
		addr_refused "backend" "$word" backend add "$SVC4" "$v4:8080"
	fi
	if [ "$v6" != - ]; then
		addr_refused "service" "$word" service add "[$v6]:80"
		addr_refused "backend" "$word" backend add "$SVC6" "[$v6]:8080"
	fi
done <<EOF
unspecified 0.0.0.0 ::
loopback 127.0.0.1 ::1
loopback 127.255.0.9 -
link-local 169.254.10.1 fe80::1
link-local - febf::ffff
multicast 224.0.0.1 ff02::1
multicast 239.255.255.250 ff05::2
broadcast 255.255.255.255 -
mapped - ::ffff:10.0.0.1
EOF
addr_refused "backend equal to the VIP" "VIP" backend add "$SVC4" "$SVC4"
addr_refused "backend equal to the VIP" "VIP" backend add "$SVC6" "$SVC6"
# Raw: the kernel's own checks, each with a message and the attribute.
snap >"$W/before"
cat >"$W/cases" <<EOF
service.addr SERVICE_NEW svc=0.0.0.0:80/tcp
service.addr SERVICE_NEW svc=127.0.0.1:80/tcp
service.addr SERVICE_NEW svc=169.254.1.1:80/tcp
service.addr SERVICE_NEW svc=224.0.0.1:80/tcp
service.addr SERVICE_NEW svc=255.255.255.255:80/tcp
service.addr SERVICE_NEW svc=[::]:80/tcp
service.addr SERVICE_NEW svc=[::1]:80/tcp
service.addr SERVICE_NEW svc=[fe80::1]:80/tcp
service.addr SERVICE_NEW svc=[febf::1]:80/tcp
service.addr SERVICE_NEW svc=[ff02::1]:80/tcp
service.addr SERVICE_NEW svc=[::ffff:10.0.0.1]:80/tcp
backend.addr BACKEND_NEW $V4 be=127.0.0.1:8080
backend.addr BACKEND_NEW $V4 be=169.254.1.1:8080
backend.addr BACKEND_NEW svc=$SVC6/tcp be=[::1]:8080
backend.addr BACKEND_NEW svc=$SVC6/tcp be=[fe80::2]:8080
backend.addr BACKEND_NEW svc=$SVC6/tcp be=[::ffff:10.2.1.2]:8080
backend BACKEND_NEW $V4 be=$SVC4
backend BACKEND_NEW svc=$SVC6/tcp be=$SVC6
EOF
cut -d' ' -f2- "$W/cases" | lb "$PY" "$W/rsnl.py" - >"$W/answers" || true
while read -r attr req && read -r got <&3; do
	expect_raw "$req" "^EINVAL [^-].* @$attr\$" "$got"
done <"$W/cases" 3<"$W/answers"
[ "$(wc -l <"$W/answers")" = "$(wc -l <"$W/cases")" ] ||
	fail "rsnl.py answered $(wc -l <"$W/answers") of $(wc -l <"$W/cases") requests"
snap >"$W/after"
cmp -s "$W/before" "$W/after" || fail "refused raw requests changed state: $(diff "$W/before" "$W/after")"
# Positive twins: neighbours of the refused ranges are accepted.
for a in 126.255.255.255:80 169.253.0.1:80 223.255.255.255:80 "[fec0::1]:80" "[::fffe:a00:1]:80"; do
	rctl service add "$a" 2>"$W/err" || fail "ringctl service add $a refused: $(cat "$W/err")"
done
cmd_ok rctl backend add "$SVC4" 10.0.0.100:8080
cmd_ok rctl backend add "$SVC4" 10.0.0.101:80
[ $bad = 1 ] || pass "addresses: every refused class EINVAL with message and attribute, neighbours accepted"

[ $bad = 0 ] || die "limits and permissions checks failed (see FAIL lines above)"
