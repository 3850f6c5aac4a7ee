#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fleet.sh CLIENT_TEST: ringctl sync, ringctl fleet status and the etcd
# layer against a real etcd (Debian's etcd-server), on the host, with no
# kernel module: the agents run in dry-run, where the "kernel" is a
# configuration in memory and each request is printed. make check-etcd.
#
#   +---------------- network namespace of its own (unshare -n) ----------+
#   |  etcd 127.0.0.1:2379 (data in a temporary directory, on tmpfs)       |
#   |    ^            ^             ^                 ^                   |
#   |  lb1: sync    lb2: sync     test_etcd_client   fleet status, etcdctl |
#   |  (dry-run)    (dry-run)                                              |
#   +----------------------------------------------------------------------+
#
# Prints KTAP; every case asserts what it names and can fail.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
CLIENT_TEST=$(realpath "${1:?usage: fleet.sh CLIENT_TEST}")
RINGCTL=$PWD/userspace/ringctl

# A namespace of our own: no port taken from the host, none left behind.
if [ -z "${RS_ETCD_NETNS:-}" ]; then
	RS_ETCD_NETNS=1 exec unshare -n -- bash "$0" "$@"
fi
ip link set lo up
# A port whose packets vanish: an etcd endpoint that times out before any
# handshake.
nft 'table ip hole { chain out { type filter hook output priority 0; tcp dport 2399 drop; }; }'

# etcd fsyncs every write: on tmpfs that costs nothing.
T=$(mktemp -d /dev/shm/rs-etcd.XXXXXX 2>/dev/null || mktemp -d /tmp/rs-etcd.XXXXXX)
EP=http://127.0.0.1:2379
ETCD_PID=
AGENTS=()
cleanup()
{
	local p
	for p in "${AGENTS[@]}" $ETCD_PID; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

etcd_start()
{
	etcd --name t --data-dir "$T/etcd" --listen-client-urls $EP --advertise-client-urls $EP \
		--listen-peer-urls http://127.0.0.1:2380 \
		--initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster t=http://127.0.0.1:2380 >>"$T/etcd.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 50); do
		ectl endpoint health >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "# etcd did not start:"; sed 's/^/#   /' "$T/etcd.log"
	return 1
}

etcd_stop()
{
	kill "$ETCD_PID" && wait "$ETCD_PID" 2>/dev/null
	ETCD_PID=
}

ectl()
{
	ETCDCTL_API=3 timeout 10 etcdctl --endpoints $EP --dial-timeout=2s --command-timeout=5s "$@"
}

# put_config TEXT: the fleet's configuration; prints its revision.
put_config()
{
	printf '%b' "$1" | ectl put /rs/config >/dev/null &&
		ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision'
}

# NAME HOST [more lines]
fleet_file()
{
	local name=$1 host=$2
	shift 2
	{
		echo "endpoints http://127.0.0.1:1 $EP   # the first refuses: failover"
		echo "prefix /rs"
		echo "host $host"
		echo "key-file $T/key"
		echo "timeout 2s"
		echo "lease-ttl ${FLEET_LEASE_TTL:-2s}"
		echo "stale-timeout 2s"
		echo "status-interval 300ms"
		printf '%s\n' "$@"
	} >"$T/$name"
}

# HOST: ringctl sync in dry-run, its output in $T/HOST.out
agent_start()
{
	fleet_file "$1.conf" "$1" "on-stale echo stale >>$T/$1.events" \
		"on-fresh echo fresh >>$T/$1.events"
	"$RINGCTL" sync run "$T/$1.conf" dry-run >"$T/$1.out" 2>"$T/$1.err" &
	AGENTS+=($!)
	eval "PID_$1=$!"
}

# status HOST FILTER: jq's FILTER of HOST's status key, or "none".
status()
{
	local t
	t=$(ectl get "/rs/status/$1" --print-value-only)
	if [ -n "$t" ]; then jq -r "$2" <<<"$t"; else echo none; fi
}

# wait_for SECONDS CMD...: until CMD succeeds, for up to ETCD_WAIT_SLACK
# (default 4) times SECONDS: these are bounds on what must come, not
# timings (the VM scenario measures those), and make check runs this
# beside a kernel build, where an agent once took over 5 s to start
# (2026-12-04).
wait_for()
{
	local end=$((SECONDS + $1 * ${ETCD_WAIT_SLACK:-4}))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

fleet_status()
{
	"$RINGCTL" "$@"
}

n=0
fails=0
# case NAME FUNCTION: one KTAP result.
case_()
{
	local start=$SECONDS
	n=$((n + 1))
	# In this shell, not a subshell: the agents a case starts stay known.
	if "$2" >"$T/case.out" 2>&1 </dev/null; then
		echo "# $((SECONDS - start)) s"
		echo "ok $n $1"
	else
		echo "# $((SECONDS - start)) s"
		echo "not ok $n $1"
		fails=$((fails + 1))
		sed 's/^/# /' "$T/case.out" | tail -40
		# What a failed case may leave behind must not fail the next ones.
		nft delete table ip cut 2>/dev/null
		[ -n "$ETCD_PID" ] || etcd_start >/dev/null
	fi
}

fail()
{
	echo "FAIL: $*"
	return 1
}

CFG1='service 192.0.2.10:80\n\tbackend 10.1.0.1:8080\n\tbackend 10.1.0.2:8080 weight 2\n'
CFG2='service 192.0.2.10:80\n\tbackend 10.1.0.1:8080\n\tbackend 10.1.0.2:8080 weight 2\n\tbackend 10.1.0.3:8080\n'
CFG3='service 192.0.2.10:80\n\tbackend 10.1.0.1:8080\n\tbackend 10.1.0.3:8080\n'

t_client()
{
	RS_ETCD_ENDPOINT=$EP RS_ETCD_SILENT=http://127.0.0.1:2399 "$CLIENT_TEST"
}

# Fake agents' status keys, with the fingerprints `fingerprint file` computes
# (of FAKE_RING, default CFG1), FAKE_DOWN the backends its checker has down.
# HOST REVISION KEYHEX [ERROR_REVISION]
fake_status()
{
	local fp
	fp=$(printf '%b' "${FAKE_RING:-$CFG1}" | "$RINGCTL" -j fingerprint file - key "$3" |
		jq -r '.[0].fingerprint') || return 1
	jq -nc --arg host "$1" --argjson rev "$2" --arg fp "$fp" --argjson erev "${4:-0}" \
		--argjson down "${FAKE_DOWN:-[]}" \
		'{version: 1, host: $host, revision: $rev, updated: 0, key_id: "",
		  services: [{service: "192.0.2.10:80 tcp", fingerprint: $fp, backends: 2, down: $down}],
		  error: (if $erev > 0 then {revision: $erev, message: "it failed"} else null end)}' |
		ectl put "/rs/status/$1" >/dev/null
}

t_status_fake()
{
	local rev out other
	ectl del --prefix /rs/ >/dev/null
	fleet_file admin.conf admin
	rev=$(put_config "$CFG1") || return 1
	fake_status lb1 "$rev" "$KEY" && fake_status lb2 "$rev" "$KEY" || return 1
	ectl put /rs/members/lb1 "" >/dev/null && ectl put /rs/members/lb2 "" >/dev/null
	out=$(fleet_status fleet status "$T/admin.conf") || fail "agreeing fleet: exit $?: $out" || return 1
	grep -q '^lb2 *ok *'"$rev"' *agree *match' <<<"$out" || fail "lb2 line: $out" || return 1

	# lb2 with another key: its fingerprints differ, exit 2, named.
	other=$(head -c16 /dev/urandom | od -An -tx1 | tr -d ' \n')
	fake_status lb2 "$rev" "$other"
	ectl put /rs/members/lb3 "" >/dev/null
	fake_status lb3 "$rev" "$KEY"
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "exit not 2: $out" || return 1
	grep -q '^lb2 .*differ *differ' <<<"$out" || fail "lb2 not named: $out" || return 1
	grep -q '^lb1 .*agree *match' <<<"$out" || fail "lb1: $out" || return 1

	# Without the key only the rings are compared; lb2 still stands out.
	fleet_file nokey.conf admin
	sed -i '/key-file/d' "$T/nokey.conf"
	out=$(fleet_status -j fleet status "$T/nokey.conf"); [ $? = 2 ] || fail "no key: exit" || return 1
	jq -e '(.key == false) and (.agree == false) and
	       (.lbs[] | select(.host == "lb2") | .rings_agree == false) and
	       (.lbs[] | select(.host == "lb1") | .rings_agree == true and .config_match == null)' \
		<<<"$out" >/dev/null || fail "-j: $out" || return 1

	# Missing (a member without status) and stale (behind) and error.
	fake_status lb2 "$rev" "$KEY"
	ectl del /rs/status/lb3 >/dev/null
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "missing: exit" || return 1
	grep -q '^lb3 *missing' <<<"$out" || fail "lb3 missing: $out" || return 1
	fake_status lb3 $((rev - 1)) "$KEY"
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "stale: exit" || return 1
	grep -q '^lb3 *stale' <<<"$out" || fail "lb3 stale: $out" || return 1
	fake_status lb3 "$rev" "$KEY" "$rev"
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "error: exit" || return 1
	grep -q '^lb3 *error.*it failed' <<<"$out" || fail "lb3 error: $out" || return 1

	# Health: lb3's checker has 10.1.0.2 down, so its ring is the
	# configuration's without it: it matches the configuration with its
	# down, and differs from the others (they map those flows elsewhere).
	fake_status lb3 "$rev" "$KEY"
	FAKE_RING='service 192.0.2.10:80\n\tbackend 10.1.0.1:8080\n' FAKE_DOWN='["10.1.0.2:8080"]' \
		fake_status lb3 "$rev" "$KEY"
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "health: exit" || return 1
	grep -q '^lb3 *ok .*differ *match' <<<"$out" || fail "lb3 with a down: $out" || return 1
	# The same down without the ring that goes with it: does not match.
	FAKE_DOWN='["10.1.0.2:8080"]' fake_status lb3 "$rev" "$KEY"
	out=$(fleet_status fleet status "$T/admin.conf")
	grep -q '^lb3 *ok .*agree *differ' <<<"$out" || fail "lb3 down, old ring: $out" || return 1
	fake_status lb3 "$rev" "$KEY" "$rev"

	# Prometheus form of the same.
	out=$(fleet_status fleet status "$T/admin.conf" prometheus)
	grep -qx 'ringsteer_fleet_agree 0' <<<"$out" &&
		grep -qx 'ringsteer_fleet_lb_state{host="lb3",state="error"} 1' <<<"$out" &&
		grep -qx 'ringsteer_fleet_lb_config_match{host="lb1"} 1' <<<"$out" &&
		grep -qx "ringsteer_fleet_config_revision $rev" <<<"$out" || fail "prometheus: $out"
}

t_status_syntax()
{
	local rev out
	rev=$(put_config 'service 192.0.2.10:80\n\tbakend 10.1.0.1:8080\n') || return 1
	out=$(fleet_status fleet status "$T/admin.conf" 2>/dev/null); [ $? = 2 ] || fail "exit" || return 1
	grep -q "config /rs/config revision $rev: .*/rs/config@$rev:2: unknown line 'bakend'" <<<"$out" ||
		fail "error not named: $out" || return 1
	# A key line in etcd is refused too: the key stays local.
	rev=$(put_config "key $KEY\n$CFG1") || return 1
	out=$(fleet_status fleet status "$T/admin.conf" 2>/dev/null); [ $? = 2 ] || fail "key: exit" || return 1
	grep -q "has a key line" <<<"$out" || fail "key line: $out"
}

t_status_no_etcd()
{
	local out
	fleet_file down.conf admin
	sed -i "s|^endpoints .*|endpoints http://127.0.0.1:1|" "$T/down.conf"
	out=$(fleet_status fleet status "$T/down.conf" 2>&1); [ $? = 1 ] || fail "exit not 1: $out" || return 1
	grep -q 'reading /rs/config' <<<"$out" || fail "message: $out"
}

# Two agents converge on a configuration written once.
t_sync_converge()
{
	local rev out
	ectl del --prefix /rs/ >/dev/null
	rev=$(put_config "$CFG1") || return 1
	agent_start lb1
	agent_start lb2
	out=$(fleet_status fleet status "$T/admin.conf" wait 5s) || fail "no agreement: $out" || return 1
	[ "$(status lb1 .revision)" = "$rev" ] && [ "$(status lb2 .revision)" = "$rev" ] ||
		fail "revisions: $rev, $(status lb1 .revision) $(status lb2 .revision)" || return 1
	grep -q "^revision $rev: backend add 192.0.2.10:80 tcp 10.1.0.2:8080" "$T/lb1.out" ||
		fail "lb1 applied: $(cat "$T/lb1.out")"
}

# A change: only the difference is sent.
t_sync_diff()
{
	local rev
	rev=$(put_config "$CFG2") || return 1
	fleet_status fleet status "$T/admin.conf" wait 5s >/dev/null || fail "no agreement" || return 1
	grep -qx "revision $rev: 1 requests" "$T/lb2.out" &&
		grep -qx "revision $rev: backend add 192.0.2.10:80 tcp 10.1.0.3:8080" "$T/lb2.out" ||
		fail "lb2's requests: $(cat "$T/lb2.out")"
}

# A syntax error: refused whole, nothing sent, the status says why.
t_sync_refuse()
{
	local good rev out
	good=$(status lb1 .revision)
	rev=$(put_config 'service 192.0.2.10:80\n\tbackend 10.1.0.1:8080 weight 0x\n') || return 1
	wait_for 5 error_is lb2 "$rev" || fail "lb2 reports no error" || return 1
	[ "$(status lb1 .revision)" = "$good" ] || fail "lb1 moved" || return 1
	! grep -q "^revision $rev:" "$T/lb1.out" "$T/lb2.out" || fail "requests sent for $rev" || return 1
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "exit" || return 1
	grep -q "^lb1 *error *$good .*/rs/config@$rev:2: weight '0x'" <<<"$out" || fail "status: $out" || return 1
	# A key line is refused too: the key stays on each host.
	rev=$(put_config "key $KEY\n$CFG1") || return 1
	wait_for 5 error_is lb1 "$rev" || fail "lb1 took a key from etcd" || return 1
	status lb1 .error.message | grep -q "a key line: the SipHash key stays on each host" ||
		fail "lb1's message: $(status lb1 .error.message)" || return 1
	! grep -q "^revision $rev:" "$T/lb1.out" || fail "requests sent for $rev" || return 1
	# The next good revision clears it.
	rev=$(put_config "$CFG3") || return 1
	fleet_status fleet status "$T/admin.conf" wait 5s >/dev/null || fail "no recovery"
}

# HOST REVISION: HOST's status names an error of REVISION
error_is()
{
	[ "$(status "$1" '.error.revision')" = "$2" ]
}

# Several writers: the newest revision wins everywhere.
t_sync_writers()
{
	local rev w1 w2
	printf '%b' "$CFG1" | ectl put /rs/config >/dev/null &
	w1=$!
	printf '%b' "$CFG2" | ectl put /rs/config >/dev/null &
	w2=$!
	wait $w1 $w2
	rev=$(ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision')
	fleet_status fleet status "$T/admin.conf" wait 5s >/dev/null || fail "no agreement" || return 1
	[ "$(status lb1 .revision)" = "$rev" ] && [ "$(status lb2 .revision)" = "$rev" ] ||
		fail "not at the newest, $rev"
}

# A watch compacted past: an agent (lb4, a lease longer than the pause)
# stopped by SIGSTOP while 10 MB of revisions of PREFIX/config fill its
# watch stream, then etcd compacted past them: etcd ends the watch with
# the compaction, and the agent reads the key whole and holds the newest.
t_sync_compacted()
{
	local rev pid
	fleet_file lb4.conf lb4
	sed -i 's/^lease-ttl .*/lease-ttl 60s/; s/^stale-timeout .*/stale-timeout 60s/' "$T/lb4.conf"
	"$RINGCTL" sync run "$T/lb4.conf" dry-run >"$T/lb4.out" 2>"$T/lb4.err" &
	pid=$!
	AGENTS+=("$pid")
	wait_for 10 grep -q 'in sync' "$T/lb4.err" || fail "lb4 did not start" || return 1
	kill -STOP "$pid"
	python3 - "$EP" "$(printf '%b' "$CFG2")" <<-'PYEOF' || { kill -CONT "$pid"; fail "puts"; return 1; }
	import base64, http.client, json, sys, urllib.parse
	u = urllib.parse.urlsplit(sys.argv[1])
	c = http.client.HTTPConnection(u.hostname, u.port)
	pad = "".join("# %s\n" % ("x" * 76) for _ in range(640))
	for i in range(200):
	    v = sys.argv[2] + "# %d\n" % i + pad
	    body = json.dumps({"key": base64.b64encode(b"/rs/config").decode(),
	                       "value": base64.b64encode(v.encode()).decode()})
	    c.request("POST", "/v3/kv/put", body)
	    r = c.getresponse(); r.read()
	    if r.status != 200:
	        sys.exit(1)
	PYEOF
	rev=$(ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision')
	ectl compact "$rev" >/dev/null || { kill -CONT "$pid"; fail "compact"; return 1; }
	kill -CONT "$pid"
	wait_for 10 grep -q 'reading /rs/config whole' "$T/lb4.err" ||
		fail "lb4 did not read the key whole: $(tail -3 "$T/lb4.err")" || return 1
	wait_for 10 grep -q "revision $rev applied" "$T/lb4.err" ||
		fail "lb4 not at $rev: $(tail -3 "$T/lb4.err")" || return 1
	kill "$pid"
	wait "$pid" 2>/dev/null
	ectl del /rs/members/lb4 >/dev/null
}

# etcd stopped, every endpoint refusing: etcd is down for every LB alike,
# nothing changes, stale but on-stale held; then the agents cut off (their
# packets to etcd's port dropped: silence, not refusals): on-stale; etcd
# back and reachable: resync, on-fresh.
t_sync_etcd_down()
{
	local before rev
	before=$(wc -l <"$T/lb1.out")
	etcd_stop
	wait_for 8 grep -q 'on-stale held' "$T/lb1.err" || fail "not held: $(tail -3 "$T/lb1.err")" || return 1
	sleep 2
	! grep -qx stale "$T/lb1.events" 2>/dev/null || fail "on-stale ran with etcd down everywhere" || return 1
	[ "$(wc -l <"$T/lb1.out")" = "$before" ] || fail "requests without etcd" || return 1
	kill -0 "$PID_lb1" || fail "lb1 died" || return 1
	nft -f - <<-EOF || fail "nft" || return 1
	table ip cut { chain out { type filter hook output priority 0; tcp dport 2379 drop; }; }
	EOF
	wait_for 8 grep -qx stale "$T/lb1.events" || fail "no on-stale when cut off: $(tail -3 "$T/lb1.err")" ||
		return 1
	grep -q 'cut off from the fleet' "$T/lb1.err" || fail "the log does not say cut off" || return 1
	nft delete table ip cut
	etcd_start || return 1
	wait_for 40 grep -qx fresh "$T/lb1.events" || fail "no on-fresh: $(tail -5 "$T/lb1.err")" || return 1
	rev=$(put_config "$CFG1") || return 1
	fleet_status fleet status "$T/admin.conf" wait 40s >/dev/null || fail "no resync" || return 1
	[ "$(status lb2 .revision)" = "$rev" ] || fail "lb2 not at $rev"
}

# Killed: the status goes with the lease (missing); restarted: resynced.
# Stopped by SIGTERM: the lease is revoked at once.
t_sync_kill()
{
	local out
	kill -9 "$PID_lb2"
	wait "$PID_lb2" 2>/dev/null
	wait_for 6 bash -c "! ETCDCTL_API=3 etcdctl --endpoints $EP get /rs/status/lb2 | grep -q ." ||
		fail "status outlived the lease" || return 1
	out=$(fleet_status fleet status "$T/admin.conf"); [ $? = 2 ] || fail "exit" || return 1
	grep -q '^lb2 *missing' <<<"$out" || fail "lb2 not missing: $out" || return 1
	agent_start lb2
	fleet_status fleet status "$T/admin.conf" wait 5s >/dev/null || fail "no resync" || return 1
	kill -TERM "$PID_lb2"
	wait "$PID_lb2" 2>/dev/null
	[ "$(status lb2 .revision)" = none ] || fail "status kept after SIGTERM"
}

# etcd's own user/password auth.
t_auth()
{
	local out
	echo secret >"$T/pass"
	ectl user add --interactive=false root:rootpw >/dev/null &&
		ectl user add --interactive=false lb:secret >/dev/null &&
		ectl role add fleet >/dev/null &&
		ectl role grant-permission fleet --prefix=true readwrite /rs/ >/dev/null &&
		ectl user grant-role lb fleet >/dev/null && ectl auth enable >/dev/null || return 1
	# The agents (no user) lose etcd from here on: stop them first.
	kill "$PID_lb1" 2>/dev/null
	fleet_file auth.conf admin "user lb password-file $T/pass"
	out=$(fleet_status fleet status "$T/auth.conf" 2>&1); [ $? != 1 ] || fail "with auth: $out" || return 1
	out=$(fleet_status fleet status "$T/admin.conf" 2>&1); [ $? = 1 ] || fail "without: $out" || return 1
	grep -qi 'user name is empty\|permission\|auth' <<<"$out" || fail "message: $out"
}

# etcd with TLS and client certificates (--client-cert-auth), on other ports.
t_tls()
{
	local out pid rc=0 d=$T/pki
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca \
		-keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=etcd -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
	openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 1 \
		-extfile <(echo "subjectAltName=IP:127.0.0.1") -out "$d/srv.pem" 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=lb -keyout "$d/cli.key" -out "$d/cli.csr" 2>/dev/null &&
	openssl x509 -req -in "$d/cli.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 1 \
		-extfile <(echo "extendedKeyUsage=clientAuth") -out "$d/cli.pem" 2>/dev/null || return 1
	etcd --name s --data-dir "$T/etcd-tls" --listen-client-urls https://127.0.0.1:2381 \
		--advertise-client-urls https://127.0.0.1:2381 --listen-peer-urls http://127.0.0.1:2382 \
		--initial-advertise-peer-urls http://127.0.0.1:2382 --initial-cluster s=http://127.0.0.1:2382 \
		--cert-file "$d/srv.pem" --key-file "$d/srv.key" --client-cert-auth \
		--trusted-ca-file "$d/ca.pem" >"$T/etcd-tls.log" 2>&1 &
	pid=$!
	AGENTS+=($pid)
	printf 'endpoints https://127.0.0.1:2381\nprefix /rs\nhost a\n' >"$T/tls.conf"
	cp "$T/tls.conf" "$T/tls-nocert.conf"
	echo "tls ca $d/ca.pem cert $d/cli.pem key $d/cli.key" >>"$T/tls.conf"
	echo "tls ca $d/ca.pem" >>"$T/tls-nocert.conf"
	# No configuration there: exit 2 ("no such key"), not 1 (no answer).
	wait_for 10 bash -c "'$RINGCTL' fleet status '$T/tls.conf' >'$T/tls.out' 2>&1; [ \$? = 2 ]" ||
		{ fail "with a client certificate: $(cat "$T/tls.out")"; rc=1; }
	grep -q "no such key" "$T/tls.out" || { fail "$(cat "$T/tls.out")"; rc=1; }
	out=$("$RINGCTL" fleet status "$T/tls-nocert.conf" 2>&1)
	[ $? = 1 ] || { fail "without a client certificate: $out"; rc=1; }
	kill "$pid"
	wait "$pid" 2>/dev/null
	return $rc
}

# As under systemd: READY=1, WATCHDOG=1 every half period, STATUS=.
t_notify()
{
	local pid lis rev n
	rev=$(ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision')
	socat -u UNIX-RECV:"$T/notify.sock" OPEN:"$T/notify.log",creat,append &
	lis=$!
	wait_for 5 test -S "$T/notify.sock" || return 1
	fleet_file n.conf lb5
	NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1000000 "$RINGCTL" sync run "$T/n.conf" dry-run \
		>/dev/null 2>"$T/n.err" &
	pid=$!
	sleep 3
	kill "$pid"
	wait "$pid"
	sleep 0.2
	kill "$lis"
	wait "$lis" 2>/dev/null
	n=$(grep -o WATCHDOG=1 "$T/notify.log" | wc -l)
	grep -q READY=1 "$T/notify.log" || fail "no READY=1" || return 1
	[ "$n" -ge 4 ] || fail "$n WATCHDOG=1 in 3 s at a 1 s watchdog" || return 1
	grep -q "STATUS=revision $rev, etcd connected" "$T/notify.log" ||
		fail "status: $(cat "$T/notify.log")" || return 1
	grep -q STOPPING=1 "$T/notify.log" || fail "no STOPPING=1"
}

# An agent that asks etcd nothing for longer than stale-timeout is not cut
# off: with a 30 s lease its keep-alive comes every 10 s, past the 2 s
# stale-timeout, and stopped (SIGSTOP, as a paused VM) it asks nothing at
# all. Neither is an answer etcd failed to give: no on-stale, and the
# agent still follows the next revision.
t_sync_quiet()
{
	local pid rev
	FLEET_LEASE_TTL=30s fleet_file q.conf lbq "on-stale echo stale >>$T/q.events"
	"$RINGCTL" sync run "$T/q.conf" dry-run >"$T/q.out" 2>"$T/q.err" &
	pid=$!
	AGENTS+=($pid)
	rev=$(ectl get /rs/config -w json | jq -r '.kvs[0].mod_revision')
	wait_for 5 eval '[ "$(status lbq .revision)" = "$rev" ]' || fail "lbq not in sync" || return 1
	sleep 5
	! grep -q stale "$T/q.events" 2>/dev/null || fail "on-stale between keep-alives: $(tail -3 "$T/q.err")" ||
		return 1
	kill -STOP "$pid"
	sleep 5
	kill -CONT "$pid"
	sleep 3
	! grep -q stale "$T/q.events" 2>/dev/null || fail "on-stale after SIGSTOP: $(tail -3 "$T/q.err")" ||
		return 1
	! grep -q 'stale\|cut off' "$T/q.err" || fail "the log says stale: $(tail -3 "$T/q.err")" || return 1
	rev=$(put_config "$CFG2") || return 1
	wait_for 5 eval '[ "$(status lbq .revision)" = "$rev" ]' || fail "lbq not at $rev" || return 1
	kill -TERM "$pid"
	wait "$pid"
}

t_check()
{
	local out
	fleet_file check.conf lb9
	out=$("$RINGCTL" sync check "$T/check.conf") || fail "good file refused" || return 1
	[ "$out" = "$T/check.conf: 2 endpoints, prefix /rs, host lb9, key-file read" ] ||
		fail "check says: $out" || return 1
	fleet_file check.conf lb9 "bogus line"
	out=$("$RINGCTL" sync check "$T/check.conf" 2>&1) && fail "bad file passed" && return 1
	grep -q "check.conf:9: unknown statement 'bogus'" <<<"$out" || fail "message: $out"
}

# Fleet health: three agents with health-quorum under /fh, checkers faked
# by etcdctl (a live key and "down" votes under a lease of their own).
CFGH='service 192.0.2.20:80\n\tbackend 10.2.0.1:80\n\tbackend 10.2.0.2:80\n\tbackend 10.2.0.3:80\n'
VOTE=tcp/192.0.2.20:80

# HOST
hagent_start()
{
	fleet_file "$1.conf" "$1" "health-quorum 51%" "health-max-down 100%"
	sed -i 's|^prefix /rs$|prefix /fh|' "$T/$1.conf"
	"$RINGCTL" sync run "$T/$1.conf" dry-run >"$T/$1.out" 2>"$T/$1.err" &
	AGENTS+=($!)
}

# NAME TTL: a live checker; its lease id in LEASE_NAME
checker()
{
	local id
	id=$(ectl lease grant "$2" | awk '{print $2}') || return 1
	ectl put "/fh/health/$1/live" "" --lease="$id" >/dev/null || return 1
	eval "LEASE_$1=$id"
}

# CHECKER BACKEND: prints the vote's revision
vote()
{
	local l="LEASE_$1"
	ectl put "/fh/health/$1/$VOTE/$2" down --lease="${!l}" >/dev/null &&
		ectl get "/fh/health/$1/$VOTE/$2" -w json | jq -r '.kvs[0].mod_revision'
}

# HOST FILTER
hstatus()
{
	local t
	t=$(ectl get "/fh/status/$1" --print-value-only)
	if [ -n "$t" ]; then jq -r "$2" <<<"$t"; else echo none; fi
}

# LINE: every fleet-health agent printed LINE
all_have()
{
	local h
	for h in h1 h2 h3; do grep -qxF "$1" "$T/$h.out" || return 1; done
}

same_rings()
{
	local a b c
	a=$(hstatus h1 '.services[0].fingerprint')
	b=$(hstatus h2 '.services[0].fingerprint')
	c=$(hstatus h3 '.services[0].fingerprint')
	[ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$a" != none ] && [ "$a" != null ]
}

# Quorum: 1 of 3 checkers changes nothing; 2 of 3 bring every agent the
# same health-down at the vote's revision.
t_health_quorum()
{
	local rev h
	rev=$(printf '%b' "$CFGH" | ectl put /fh/config >/dev/null &&
		ectl get /fh/config -w json | jq -r '.kvs[0].mod_revision') || return 1
	for h in h1 h2 h3; do hagent_start $h; done
	for h in h1 h2 h3; do
		# eval: the status read again at each try, not once before them.
		wait_for 5 eval '[ "$(hstatus $h .revision)" = "$rev" ]' ||
			fail "$h not at $rev: $(tail -4 "$T/$h.err")" || return 1
	done
	checker c1 3 && checker c2 60 && checker c3 60 || return 1
	ETCDCTL_API=3 etcdctl --endpoints $EP lease keep-alive "$LEASE_c1" >/dev/null 2>&1 &
	KEEP_c1=$!
	AGENTS+=($KEEP_c1)
	vote c1 10.2.0.2:80 >/dev/null || return 1
	sleep 1.5
	! grep -q '^health' "$T/h1.out" "$T/h2.out" "$T/h3.out" ||
		fail "a change below quorum: $(grep -h '^health' "$T"/h?.out)" || return 1
	rev=$(vote c2 10.2.0.2:80) || return 1
	wait_for 3 all_have "health $rev: down 192.0.2.20:80 tcp 10.2.0.2:80" ||
		fail "not all down at $rev: $(grep -H '^health' "$T"/h?.out)" || return 1
	[ "$(grep -ch '^health' "$T/h1.out" "$T/h2.out" "$T/h3.out" | sort -u)" = 1 ] ||
		fail "other changes: $(grep -H '^health' "$T"/h?.out)" || return 1
	wait_for 3 same_rings || fail "rings differ"
}

# The last active backend stays up fleet-wide, whatever the votes.
t_health_guard()
{
	local rev
	vote c1 10.2.0.1:80 >/dev/null && vote c2 10.2.0.3:80 >/dev/null &&
		rev=$(vote c3 10.2.0.1:80) && vote c3 10.2.0.3:80 >/dev/null || return 1
	# 10.2.0.1 down at its second vote; 10.2.0.3, the last one up, stays.
	wait_for 3 all_have "health $rev: down 192.0.2.20:80 tcp 10.2.0.1:80" ||
		fail "10.2.0.1 not down alike: $(grep -H '^health' "$T"/h?.out)" || return 1
	sleep 1
	! grep -q 'down 192.0.2.20:80 tcp 10.2.0.3:80' "$T/h1.out" "$T/h2.out" "$T/h3.out" ||
		fail "the last backend went down" || return 1
	grep -q "downs refused by max-down" "$T/h1.err" || fail "no refusal logged" || return 1
	wait_for 3 same_rings || fail "rings differ"
}

# A checker's lease expires: its votes go, below quorum again, up again.
t_health_lease()
{
	local h
	kill "$KEEP_c1"
	# c1 voted 10.2.0.1 and 10.2.0.2: each keeps one vote of two live, 50% < 51%.
	wait_for 8 all_have_up 10.2.0.2:80 ||
		fail "10.2.0.2 not up: $(grep -H '^health' "$T"/h?.out; ectl get --prefix /fh/health/ --keys-only; tail -3 "$T/h1.err")" ||
		return 1
	[ "$(ectl get --prefix /fh/health/c1/ --keys-only | grep -c .)" = 0 ] || fail "c1's keys left" ||
		return 1
	for h in h1 h2 h3; do
		grep '^health .*: up 192.0.2.20:80 tcp 10.2.0.2:80' "$T/$h.out"
	done | cut -d: -f1 | sort -u | wc -l | grep -qx 1 || fail "not at one revision" || return 1
	wait_for 3 same_rings || fail "rings differ"
}

# BACKEND
all_have_up()
{
	local h
	for h in h1 h2 h3; do grep -q "^health [0-9]*: up 192.0.2.20:80 tcp $1\$" "$T/$h.out" || return 1; done
}

KEY=$(head -c16 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077; echo "$KEY" >"$T/key")

echo "TAP version 13"
echo "1..19"
etcd_start || { echo "Bail out! etcd did not start"; exit 1; }
case_ "etcd client: range, put, leases, watch, compaction, failover" t_client
case_ "fleet status: agreement, another key, a backend down, missing, stale, error, -j, prometheus" t_status_fake
case_ "fleet status: a syntax error and a key line named" t_status_syntax
case_ "fleet status: etcd unreachable exits 1" t_status_no_etcd
case_ "sync: two agents converge, fleet status agrees" t_sync_converge
case_ "sync: a new revision sends only the difference" t_sync_diff
case_ "sync: a bad revision is refused whole, the status says why" t_sync_refuse
case_ "sync: of two writers the newest revision wins" t_sync_writers
case_ "sync: a watch compacted past, the key read whole" t_sync_compacted
case_ "sync: etcd down everywhere, nothing changes, on-stale held; cut off, on-stale; back, resync and on-fresh" t_sync_etcd_down
case_ "sync: killed, missing; restarted, resynced; SIGTERM revokes" t_sync_kill
case_ "sync under a service manager: READY, WATCHDOG, STATUS, STOPPING" t_notify
case_ "sync: asking nothing past stale-timeout (a long lease, SIGSTOP) is not stale" t_sync_quiet
case_ "fleet health: below quorum nothing; at quorum the same down everywhere at one revision" t_health_quorum
case_ "fleet health: the last backend is never down fleet-wide" t_health_guard
case_ "fleet health: a checker's lease expires, its votes go, up everywhere" t_health_lease
case_ "etcd user/password auth" t_auth
case_ "sync check: a bad fleet file named with its line" t_check
case_ "etcd over TLS: a client certificate, and refused without one" t_tls
echo "# $n cases, $fails failed"
[ $fails = 0 ]
