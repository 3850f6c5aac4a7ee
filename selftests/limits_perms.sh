#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a user who may read a load balancer but not configure it gets, and
# the limits a configuration meets when they change at run time:
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
snap() { rctl show -j; rctl key show; }
# A copy nobody can read (/root is 0700).
chmod 0755 "$W"
cp "$RSNL" "$W/rsnl.py"
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
