#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad requests are rejected with their errno and an extack message and
# change nothing; limits hold exactly at their boundary; requests without
# CAP_NET_ADMIN (in the user namespace owning the netns) get EPERM.
#
#   ne-lb (no traffic, control plane only)
#  +-------------------------------------------------------------+
#  | 10.0.0.100:80/tcp  b1 b2        ringctl (root, nobody,      |
#  | [fd00::100]:80/tcp b1            no CAP_NET_ADMIN, userns)  |
#  |                                  rsnl.py: raw genl requests |
#  +-------------------------------------------------------------+
#  + a private netns made by `unshare -Urn` (its own user namespace)
#
# ringctl checks some input itself before netlink; selftests/lib/rsnl.py
# sends what ringctl would refuse to build, so the kernel's own validation
# is what answers.

set -e
P=ne
. "$(dirname "$0")/lib/topo.sh"
topo_init
newns "$P-lb"

RSNL=$LIBDIR/rsnl.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 2)" proto tcp weight 2
cmd_ok rctl service add "$SVC6" proto tcp
cmd_ok rctl backend add "$SVC6" "$(be6 1)" proto tcp

# rc_err STRERROR ARGS...: ringctl ARGS fails with exit status 1 and the
# message "ringctl: <what>: STRERROR: <kernel message>", state unchanged.
rc_err()
{
	local want=$1 rc=0
	shift
	snap >"$W/before" || die "snapshot failed"
	rctl "$@" >/dev/null 2>"$W/err" || rc=$?
	[ "$rc" = 1 ] || die "ringctl $*: exit status $rc, expected 1 ($want)"
	grep -Eq "^ringctl: .+: $want: .+" "$W/err" ||
		die "ringctl $*: expected 'ringctl: ...: $want: <kernel message>', got: $(cat "$W/err")"
	snap >"$W/after"
	cmp -s "$W/before" "$W/after" || die "ringctl $* was rejected but changed state"
	echo "ok: ringctl $* -> $(cat "$W/err")"
}

# rc_rejects ARGS...: ringctl ARGS fails (in ringctl or the kernel: which
# one is ringctl's business), state unchanged.
rc_rejects()
{
	local rc=0
	snap >"$W/before"
	rctl "$@" >/dev/null 2>"$W/err" || rc=$?
	[ "$rc" = 1 ] || die "ringctl $*: exit status $rc, expected 1"
	grep -q "^ringctl: " "$W/err" || die "ringctl $*: no error message"
	snap >"$W/after"
	cmp -s "$W/before" "$W/after" || die "ringctl $* was rejected but changed state"
	echo "ok: ringctl $* -> $(cat "$W/err")"
}

ENOENT="No such file or directory"
EEXIST="File exists"
EINVAL="Invalid argument"
E2BIG="Argument list too long"
EPERM="Operation not permitted"

# --- Through ringctl -------------------------------------------------------
rc_err "$ENOENT" service del 10.0.0.99:80 proto tcp
rc_err "$ENOENT" backend add 10.0.0.99:80 "$(be4 3)" proto tcp
rc_err "$ENOENT" backend add "$SVC4" "$(be4 3)" proto udp
rc_err "$ENOENT" backend del "$SVC4" "$(be4 3)" proto tcp
rc_err "$ENOENT" backend set "$SVC4" "$(be4 3)" proto tcp weight 2
rc_err "$ENOENT" backend drain "$SVC4" "$(be4 3)" proto tcp
rc_err "$ENOENT" lookup 10.0.0.99:80 "$CLI4:1000" proto tcp
rc_err "$EEXIST" service add "$SVC4" proto tcp
rc_err "$EEXIST" backend add "$SVC4" "$(be4 1)" proto tcp
rc_err "$EEXIST" backend add "$SVC4" "$(be4 1)" proto tcp weight 3
# ringctl may catch a family mismatch itself; the kernel's EINVAL for it
# is checked with raw requests below.
rc_rejects backend add "$SVC4" "$(be6 3)" proto tcp
rc_rejects backend add "$SVC6" "$(be4 3)" proto tcp
rc_rejects backend add "$SVC4" "$(be4 3)" proto tcp weight 0
rc_rejects backend add "$SVC4" "$(be4 3)" proto tcp weight 1001
rc_rejects backend set "$SVC4" "$(be4 1)" proto tcp weight 0
rc_rejects service add 10.0.0.101:80 proto tcp vnodes 0
rc_rejects service add 10.0.0.101:80 proto tcp vnodes 4097
rc_rejects service add 10.0.0.101:0 proto tcp
rc_rejects backend add "$SVC4" 10.2.3.2:0 proto tcp
rc_rejects key set 0011
# Positive twins: the same commands with valid values work.
cmd_ok rctl backend add "$SVC4" "$(be4 3)" proto tcp weight 1000
cmd_ok rctl backend set "$SVC4" "$(be4 3)" proto tcp weight 1
cmd_ok rctl service add 10.0.0.101:80 proto tcp vnodes 4096
cmd_ok rctl service del 10.0.0.101:80 proto tcp
cmd_ok rctl backend del "$SVC4" "$(be4 3)" proto tcp
pass "ringctl: errors carry errno and kernel message, state unchanged"

# An empty ring: lookup fails with ENOENT and says why.
cmd_ok rctl service add 10.0.0.102:80 proto udp
rc_err "$ENOENT" lookup 10.0.0.102:80 "$CLI4:1000" proto udp
grep -qi "no active backend" "$W/err" || die "lookup on an empty ring: no 'no active backend' message"
cmd_ok rctl backend add 10.0.0.102:80 "$(be4 1)" proto udp
[ "$(rctl lookup 10.0.0.102:80 "$CLI4:1000" proto udp)" = "$(be4 1)" ] || die "lookup with one backend"
cmd_ok rctl backend drain 10.0.0.102:80 "$(be4 1)" proto udp
rc_err "$ENOENT" lookup 10.0.0.102:80 "$CLI4:1000" proto udp
cmd_ok rctl service del 10.0.0.102:80 proto udp
pass "lookup on a ring with no active backend: ENOENT"

# vnodes means nothing to a placement slots service (its ring has a point a
# slot): ringctl refuses it on an add, the kernel on a set it cannot see.
cmd_ok rctl service add 10.0.0.103:80 proto tcp placement slots
rc_rejects service add 10.0.0.104:80 proto tcp placement slots vnodes 8
grep -q "vnodes applies to placement ring only" "$W/err" ||
	die "service add of placement slots with vnodes: $(cat "$W/err")"
rc_err "$EINVAL" service set 10.0.0.103:80 proto tcp vnodes 8
grep -q "vnodes applies to placement ring only" "$W/err" ||
	die "service set of a slots service's vnodes: $(cat "$W/err")"
pass "vnodes refused for placement slots: by ringctl on add, by the kernel on set"

# --- Raw generic netlink: the kernel's own validation ----------------------
# ERRNO (regex) | MSG (y: extack message required) | ATTR (offending
# attribute the kernel must point at, or -) | request. The cases after
# command 99 send an attribute the command does not take (at the top level
# or in a nest; read-only counters; do-only attributes in a dump): each is
# rejected, not ignored.
V4="svc=$SVC4/tcp"
cat >"$W/cases" <<EOF
EINVAL   y service.port    SERVICE_NEW svc=10.0.0.101:0/tcp
E(INVAL|RANGE) y service.addr SERVICE_NEW service.family=u16:2 service.addr=hex:0a0000 service.port=be16:80 service.proto=u8:6
E(INVAL|AFNOSUPPORT) y service.family SERVICE_NEW service.family=u16:3 service.addr=ip:10.0.0.101 service.port=be16:80 service.proto=u8:6
EINVAL   y -               SERVICE_NEW service.family=u16:2 service.addr=ip:fd00::101 service.port=be16:80 service.proto=u8:6
EINVAL   y -               SERVICE_NEW service.family=u16:10 service.addr=ip:10.0.0.101 service.port=be16:80 service.proto=u8:6
EINVAL   y -               SERVICE_NEW service.family=u16:2 service.addr=ip:10.0.0.101 service.port=be16:80
EINVAL   y -               SERVICE_NEW service.family=u16:2 service.addr=ip:10.0.0.101 service.proto=u8:6
E(INVAL|PROTONOSUPPORT) y service.proto SERVICE_NEW service.family=u16:2 service.addr=ip:10.0.0.101 service.port=be16:80 service.proto=u8:1
EINVAL   y service.port    SERVICE_NEW service.family=u16:2 service.addr=ip:10.0.0.101 service.port=u32:80 service.proto=u8:6
EINVAL   y service.99      SERVICE_NEW svc=10.0.0.101:80/tcp service.99=u32:1
EINVAL   y 50              SERVICE_NEW svc=10.0.0.101:80/tcp 50=u32:1
EINVAL   y -               SERVICE_NEW
ERANGE   y service.vnodes  SERVICE_NEW svc=10.0.0.101:80/tcp service.vnodes=u32:0
ERANGE   y service.vnodes  SERVICE_NEW svc=10.0.0.101:80/tcp service.vnodes=u32:4097
E(RANGE|INVAL) y service.hash SERVICE_NEW svc=10.0.0.101:80/tcp service.hash=u32:2
ERANGE   y service.vnodes  SERVICE_SET $V4 service.vnodes=u32:0
ENOENT   y -               SERVICE_SET svc=10.0.0.99:80/tcp service.vnodes=u32:8
EINVAL   y backend.port    BACKEND_NEW $V4 be=10.2.3.2:0
ERANGE   y backend.weight  BACKEND_NEW $V4 be=10.2.3.2:8080 backend.weight=u32:0
ERANGE   y backend.weight  BACKEND_NEW $V4 be=10.2.3.2:8080 backend.weight=u32:1001
EINVAL   y -               BACKEND_NEW $V4 be=[fd02:3::2]:8080
EINVAL   y -               BACKEND_NEW $V4 backend.family=u16:10 backend.addr=ip:10.2.3.2 backend.port=be16:8080
EINVAL   y -               BACKEND_NEW $V4 backend.family=u16:2 backend.addr=hex:0a020302000000000000000000000000 backend.port=be16:8080
EINVAL   y -               BACKEND_NEW $V4
E(RANGE|INVAL) y backend.state BACKEND_NEW $V4 be=10.2.3.2:8080 backend.state=u32:2
E(RANGE|INVAL) y backend.state BACKEND_SET $V4 be=10.2.1.2:8080 backend.state=u32:2
E(RANGE|INVAL) y backend.on-down BACKEND_NEW $V4 be=10.2.3.2:8080 backend.on-down=u32:3
E(RANGE|INVAL) y backend.on-down BACKEND_SET $V4 be=10.2.1.2:8080 backend.on-down=u32:3
ERANGE   y backend.weight  BACKEND_SET $V4 be=10.2.1.2:8080 backend.weight=u32:0
ENOENT   y -               BACKEND_SET $V4 be=10.2.3.2:8080 backend.weight=u32:2
ENOENT   y -               BACKEND_DEL $V4 be=10.2.3.2:8080
EINVAL   y flags           BACKEND_DEL $V4 be=10.2.1.2:8080 flags=u32:2
EINVAL   y service.vnodes  SERVICE_NEW svc=10.0.0.101:80/tcp service.placement=u32:1 service.vnodes=u32:256
EINVAL   y service.vnodes  SERVICE_SET svc=10.0.0.103:80/tcp service.vnodes=u32:8
EINVAL   y flags           SERVICE_DEL $V4 flags=u32:6
EINVAL   y -               LOOKUP $V4
EINVAL   y flow.port       LOOKUP $V4 flow=10.1.0.2:0
EINVAL   y -               LOOKUP $V4 flow=[fd01::2]:1000
E(RANGE|INVAL) y key       KEY_SET key=hex:000102030405060708090a0b0c0d0e
E(RANGE|INVAL) y key       KEY_SET key=hex:000102030405060708090a0b0c0d0e0f10
EINVAL   y -               KEY_SET
E(OPNOTSUPP|NOTSUP) n - 99
EINVAL   y flags           SERVICE_NEW svc=10.0.0.101:80/tcp flags=u32:1
EINVAL   y flags           SERVICE_SET $V4 service.vnodes=u32:8 flags=u32:1
EINVAL   y flags           SERVICE_GET $V4 flags=u32:1
EINVAL   y service         --dump SERVICE_GET $V4
EINVAL   y service.hash    SERVICE_DEL $V4 service.hash=u32:1
EINVAL   y service.backends SERVICE_NEW svc=10.0.0.101:80/tcp service.backends=u32:1
EINVAL   y service.vnodes  BACKEND_NEW $V4 service.vnodes=u32:8 be=10.2.3.2:8080
EINVAL   y service.hash    BACKEND_SET $V4 service.hash=u32:1 be=10.2.1.2:8080 backend.weight=u32:3
EINVAL   y flags           BACKEND_NEW $V4 be=10.2.3.2:8080 flags=u32:1
EINVAL   y backend.weight  BACKEND_DEL $V4 be=10.2.1.2:8080 backend.weight=u32:3
EINVAL   y backend.on-down BACKEND_DEL $V4 be=10.2.1.2:8080 backend.on-down=u32:1
EINVAL   y backend.state   BACKEND_GET $V4 be=10.2.1.2:8080 backend.state=u32:1
EINVAL   y backend.flows   BACKEND_SET $V4 be=10.2.1.2:8080 backend.weight=u32:3 backend.flows=u64:1
EINVAL   y backend         --dump BACKEND_GET $V4 be=10.2.1.2:8080
EINVAL   y service.vnodes  LOOKUP $V4 service.vnodes=u32:8 flow=10.1.0.2:1000
EINVAL   y key             KEY_GET key=hex:000102030405060708090a0b0c0d0e0f
EINVAL   y chain.port      CHAIN_SET chain.port=be16:0
EINVAL   y -               CHAIN_SET
EINVAL   y -               CHAIN_SET chain.max-hops=u8:2
EINVAL   y chain.port      CHAIN_SET chain.port=u32:6080
ERANGE   y chain.max-hops  CHAIN_SET chain.port=be16:6080 chain.max-hops=u8:0
ERANGE   y chain.max-hops  CHAIN_SET chain.port=be16:6080 chain.max-hops=u8:8
E(RANGE|INVAL) y chain.last-resort CHAIN_SET chain.port=be16:6080 chain.last-resort=u8:2
EINVAL   y chain.forwarded CHAIN_SET chain.port=be16:6080 chain.forwarded=u64:1
EINVAL   y chain.99        CHAIN_SET chain.port=be16:6080 chain.99=u8:1
EINVAL   y service         CHAIN_SET chain.port=be16:6080 $V4
ENOENT   y -               CHAIN_DEL
EOF
snap >"$W/before"
awk '{ $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$W/cases" >"$W/reqs"
lb "$PY" "$RSNL" - <"$W/reqs" >"$W/answers" || true
snap >"$W/after"
[ "$(wc -l <"$W/answers")" = "$(wc -l <"$W/cases")" ] ||
	die "rsnl.py answered $(wc -l <"$W/answers") of $(wc -l <"$W/cases") requests: $(cat "$W/answers")"
bad=0
while read -r errno msg attr req && read -r got <&3; do
	gerr=${got%% *}
	gattr=
	case $got in *" @"*) gattr=${got##* @} ;; esac
	gmsg=${got#* }
	gmsg=${gmsg% @*}
	why=
	# 6.1 runs the start callback that checks a dump request against the
	# dump's own policy without an extack: there, the errno only.
	if [[ $req == --dump* && $(uname -r) == 6.1.* ]]; then
		msg=n
		attr=-
	fi
	[[ $gerr =~ ^($errno)$ ]] || why="errno $gerr, expected $errno"
	[ "$msg" != y ] || [ "$gmsg" != - ] || why+=" no extack message"
	[ "$attr" = - ] || [ "$gattr" = "$attr" ] || why+=" offending attribute '${gattr:-none}', expected $attr"
	if [ -n "$why" ]; then
		echo "FAIL: $req -> $got:$why" >&2
		bad=1
	else
		echo "ok: $req -> $got"
	fi
done <"$W/cases" 3<"$W/answers"
# The other checks still run; the script fails at the end.
raw_bad=$bad
[ $bad = 0 ] || echo "FAIL: raw netlink requests were not rejected as documented (see above)" >&2
cmp -s "$W/before" "$W/after" || {
	diff "$W/before" "$W/after" >&2
	die "rejected raw requests changed state"
}
cmd_ok rctl service del 10.0.0.103:80 proto tcp
# Positive twin: a well-formed request on the same path is accepted.
lb "$PY" "$RSNL" SERVICE_NEW svc=10.0.0.101:80/tcp service.vnodes=u32:4096 service.hash=u32:1 | grep -qx OK ||
	die "well-formed raw SERVICE_NEW rejected"
lb "$PY" "$RSNL" SERVICE_DEL svc=10.0.0.101:80/tcp | grep -qx OK || die "raw SERVICE_DEL rejected"
[ $bad = 1 ] || pass "raw netlink: $(wc -l <"$W/cases") malformed requests rejected with errno and extack, nothing changed"

# --- Limits, exactly at the boundary -------------------------------------
# Points: vnodes * weight summed over backends <= 1,048,576.
cmd_ok rctl service add 10.0.0.103:80 proto tcp vnodes 1024
cmd_ok rctl backend add 10.0.0.103:80 "$(be4 1)" proto tcp weight 1000
rc_err "$E2BIG" backend add 10.0.0.103:80 "$(be4 2)" proto tcp weight 25
cmd_ok rctl backend add 10.0.0.103:80 "$(be4 2)" proto tcp weight 24
rc_err "$E2BIG" backend set 10.0.0.103:80 "$(be4 2)" proto tcp weight 25
rctl show -j | grep -q '"points":1048576' || die "ring at the limit does not show 1048576 points"
cmd_ok rctl service del 10.0.0.103:80 proto tcp
pass "points limit: 1048576 accepted, one more E2BIG"

# Services: at most 256 per namespace (2 exist already).
for i in $(seq 1 255); do
	echo "SERVICE_NEW svc=10.0.1.1:$i/udp service.vnodes=u32:1"
done >"$W/svcs"
lb "$PY" "$RSNL" - <"$W/svcs" >"$W/svcs.out" || true
[ "$(grep -c '^OK$' "$W/svcs.out")" = 254 ] || die "$(grep -c '^OK$' "$W/svcs.out") services accepted, expected 254 more"
tail -n1 "$W/svcs.out" | grep -Eq '^E2BIG [^-]' || die "service 257: $(tail -n1 "$W/svcs.out"), expected E2BIG with a message"
cmd_ok rctl flush
rctl show -j | tr -d ' \n' | grep -q '"services":\[\]}$' || die "flush left services: $(rctl show -j | head -c 200)"
pass "services limit: 256 accepted, 257th E2BIG; flush empties"

# Backends: at most 4096 per service.
cmd_ok rctl service add "$SVC4" proto tcp vnodes 1
awk 'BEGIN { for (i = 0; i < 4097; i++)
	printf "BACKEND_NEW svc=10.0.0.100:80/tcp be=10.3.%d.%d:80\n", i / 250, 1 + i % 250 }' >"$W/bes"
lb "$PY" "$RSNL" - <"$W/bes" >"$W/bes.out" || true
[ "$(grep -c '^OK$' "$W/bes.out")" = 4096 ] || die "$(grep -c '^OK$' "$W/bes.out") backends accepted, expected 4096"
tail -n1 "$W/bes.out" | grep -Eq '^E2BIG [^-]' || die "backend 4097: $(tail -n1 "$W/bes.out"), expected E2BIG with a message"
rctl show -j | grep -q '"backends_configured":4096' || die "show -j does not count 4096 backends"
cmd_ok rctl flush
pass "backends limit: 4096 accepted, 4097th E2BIG"

# --- Permissions -------------------------------------------------------------
cmd_ok rctl service add "$SVC4" proto tcp
cmd_ok rctl backend add "$SVC4" "$(be4 1)" proto tcp

# nobody_err ARGS...: ringctl ARGS as nobody without capabilities: EPERM.
nobody_err()
{
	local rc=0
	snap >"$W/before"
	lb "${NOBODY[@]}" "$RINGCTL" "$@" >/dev/null 2>"$W/err" || rc=$?
	[ "$rc" = 1 ] || die "unprivileged ringctl $*: exit status $rc, expected 1"
	grep -q "$EPERM" "$W/err" || die "unprivileged ringctl $*: $(cat "$W/err"), expected EPERM"
	snap >"$W/after"
	cmp -s "$W/before" "$W/after" || die "unprivileged ringctl $* changed state"
}
nobody_err service add 10.0.0.101:80 proto tcp
nobody_err service del "$SVC4" proto tcp
nobody_err backend add "$SVC4" "$(be4 2)" proto tcp
nobody_err backend set "$SVC4" "$(be4 1)" proto tcp weight 2
nobody_err backend drain "$SVC4" "$(be4 1)" proto tcp
nobody_err backend del "$SVC4" "$(be4 1)" proto tcp
nobody_err key set "$KEY"
nobody_err key show
nobody_err lookup "$SVC4" "$CLI4:1000" proto tcp
nobody_err flush
# Reading the configuration needs nothing; counting connections needs
# CAP_NET_ADMIN (limits_perms.sh): the same but for the counts.
strip_conns()
{
	"$PY" -c 'import json, sys
j = json.load(sys.stdin)
j.pop("conns_unavailable", None)
for s in j["services"]:
    for b in s["backends"]:
        b.pop("conns_established", None)
        b.pop("conns_other", None)
        b.pop("conns_closed", None)
print(json.dumps(j, sort_keys=True))'
}
nobody_show=$(lb "${NOBODY[@]}" "$RINGCTL" show -j) || die "unprivileged show -j fails"
[ "$(strip_conns <<<"$nobody_show")" = "$(rctl show -j | strip_conns)" ] ||
	die "unprivileged show -j differs beyond the counts: $nobody_show"
# A clone in root's home (/root is 0700) is out of nobody's reach: it gets
# its own copy of rsnl.py.
chmod 0755 "$W"
copy_rsnl "$W"
lb "${NOBODY[@]}" "$PY" "$W/rsnl.py" SERVICE_NEW svc=10.0.0.101:80/tcp | grep -q '^EPERM' ||
	die "raw SERVICE_NEW as nobody not EPERM"
lb "${NOBODY[@]}" "$PY" "$W/rsnl.py" CHAIN_SET chain.port=be16:6080 | grep -q '^EPERM' ||
	die "raw CHAIN_SET as nobody not EPERM"
lb "${NOBODY[@]}" "$PY" "$W/rsnl.py" CHAIN_GET | grep -q '^OK' ||
	die "raw CHAIN_GET as nobody refused"
pass "nobody: every change, key and lookup EPERM; show works"

# Root without CAP_NET_ADMIN.
if command -v capsh >/dev/null; then
	rc=0
	lb capsh --drop=cap_net_admin -- -c "exec $RINGCTL service add 10.0.0.101:80 proto tcp" 2>"$W/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "$EPERM" "$W/err" || die "root without CAP_NET_ADMIN: status $rc, $(cat "$W/err")"
	pass "root without CAP_NET_ADMIN: EPERM"
fi

# CAP_NET_ADMIN counts in the user namespace owning the netns: a private
# user+net namespace may configure itself, but not the LB's netns.
rc=0
unshare -Urn sh -c "$RINGCTL service add 10.0.0.101:80 proto tcp && $RINGCTL backend add 10.0.0.101:80 10.2.1.2:8080 proto tcp && $RINGCTL lookup 10.0.0.101:80 10.1.0.2:1000 proto tcp" \
	>"$W/userns" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -qx 10.2.1.2:8080 "$W/userns" || die "own user+net namespace cannot configure itself: $(cat "$W/userns")"
rc=0
lb unshare -Ur "$RINGCTL" service add 10.0.0.101:80 proto tcp 2>"$W/err" || rc=$?
[ "$rc" = 1 ] && grep -q "$EPERM" "$W/err" || die "new user namespace changed the LB's netns: status $rc, $(cat "$W/err")"
rctl show -j | grep -q 10.0.0.101 && die "the userns request reached the LB's netns"
pass "user namespaces: own netns ok, the LB's EPERM"

[ "$raw_bad" = 0 ] || die "raw netlink requests were not rejected as documented (see FAIL lines above)"
