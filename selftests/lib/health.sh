# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the health checker's scenarios (health_*.sh), over topo.sh's
# drawing: each backend bN runs rs_server.py on 8080 (the service's
# traffic) and an HTTP server on 8081 serving /health; the checker runs in
# the LB's namespace with a notification listener (notify_listen.py) in
# place of systemd. Source after topo.sh.

HPORT=8081
CHECKER=
NOTIFY=

# health_setup N: topo_setup N, and on failure the checker's log shown.
health_setup()
{
	topo_setup "$1"
	trap 'rc=$?; [ $rc = 0 ] || { echo "checker log:"; tail -n 40 "$W/checker.log"; } >&2; topo_cleanup' EXIT
}

# health_service N: the key and $SVC4 with backends 1..N, every one up,
# as the checker finds them before its first round.
health_service()
{
	local i
	cmd_ok rctl key set "$KEY"
	cmd_ok rctl service add "$SVC4"
	for i in $(seq 1 "$1"); do
		cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
	done
}

# http_start N: backend N's HTTP server, waited for.
http_start()
{
	local n=$1 t
	mkdir -p "$W/www$n"
	echo ok >"$W/www$n/health"
	bk "$n" "$PY" -m http.server "$HPORT" --bind "10.2.$n.2" --directory "$W/www$n" \
		>>"$W/http$n.log" 2>&1 &
	disown
	for t in $(seq 1 100); do
		bk "$n" "$PY" -c 'import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)' \
			"10.2.$n.2" "$HPORT" 2>/dev/null && return 0
		sleep 0.1
	done
	die "HTTP server of b$n did not start"
}

# rs_start N: backend N's traffic server again, after a kill.
rs_start()
{
	local n=$1 t
	rm -f "$W/b$n.ready"
	bk "$n" "$PY" "$LIBDIR/rs_server.py" "b$n" "$BPORT" "$W/b$n.ready" &
	disown
	for t in $(seq 1 100); do
		[ ! -e "$W/b$n.ready" ] || return 0
		sleep 0.1
	done
	die "rs_server of b$n did not start"
}

# kill_backend N: every process of backend N's namespace.
kill_backend()
{
	local pid
	for pid in $(ip netns pids "$P-b$1"); do
		kill "$pid" 2>/dev/null || true
	done
	while [ -n "$(ip netns pids "$P-b$1")" ]; do sleep 0.1; done
}

# checker_start FILE [ENV=VALUE...]: ringctl health run FILE in the LB,
# its log in $W/checker.log, its notifications in $W/notify.log.
checker_start()
{
	local file=$1 t
	shift
	if [ -z "$NOTIFY" ]; then
		NOTIFY=$W/notify.sock
		"$PY" "$LIBDIR/notify_listen.py" "$NOTIFY" "$W/notify.log" &
		SERVERS+=($!)
		for t in $(seq 1 100); do
			grep -q LISTENING "$W/notify.log" 2>/dev/null && break
			sleep 0.1
		done
	fi
	# Not through lb(): $! must be the checker itself, for kill -STOP.
	ip netns exec "$P-lb" env NOTIFY_SOCKET="$NOTIFY" "$@" "$RINGCTL" health run "$file" \
		>>"$W/checker.log" 2>&1 &
	CHECKER=$!
	SERVERS+=($CHECKER)
}

# checker_stop: SIGTERM; it must exit 0.
checker_stop()
{
	local rc=0
	kill -TERM "$CHECKER"
	wait "$CHECKER" || rc=$?
	[ $rc = 0 ] || die "the checker exited $rc on SIGTERM (log: $(tail -n 5 "$W/checker.log"))"
	CHECKER=
}

# until_true WHAT CMD...: poll CMD (every 0.1 s, 60 s at most: a bound
# against hanging, not a timing assertion).
until_true()
{
	local what=$1 t
	shift
	for t in $(seq 1 600); do
		"$@" && return 0
		[ -z "$CHECKER" ] || kill -0 "$CHECKER" 2>/dev/null ||
			die "$what: the checker died (log: $(tail -n 5 "$W/checker.log"))"
		sleep 0.1
	done
	# A checker systemd runs has no log here.
	[ -e "$W/checker.log" ] || die "$what: not within 60 s"
	die "$what: not within 60 s (checker log: $(tail -n 5 "$W/checker.log"))"
}

# notified LINE: the listener got LINE (at least N times with a count).
notified() { [ "$(grep -cx "$1" "$W/notify.log" 2>/dev/null)" -ge "${2:-1}" ]; }
# logged TEXT: the checker logged a line containing TEXT.
logged() { grep -qF -- "$1" "$W/checker.log"; }

# health_of N: up or down, backend N of $SVC4 in show -j.
health_of()
{
	rctl -j show | "$PY" -c '
import json, sys
for s in json.load(sys.stdin)["services"]:
    for b in s["backends"]:
        if b["addr"] == sys.argv[1]:
            print(b["health"])' "10.2.$1.2"
}

is_health() { [ "$(health_of "$1")" = "$2" ]; }

# ndown: how many backends of the LB are down.
ndown()
{
	rctl -j show | "$PY" -c '
import json, sys
print(sum(b["health"] == "down" for s in json.load(sys.stdin)["services"] for b in s["backends"]))'
}

# ndown_is N: exactly N backends down (for until_true, which must get a
# command, not a value expanded once).
ndown_is() { [ "$(ndown)" = "$1" ]; }

# lookup_with N SPORTS: lookup SPORTS while exactly N backends are down,
# the same before and after (a probe timing out under load may take one
# out for a moment: then look again).
lookup_with()
{
	local n=$1 t
	for t in $(seq 1 20); do
		until_true "$n down" ndown_is "$n"
		lookup "$2" >"$W/lookup_with"
		ndown_is "$n" && { cat "$W/lookup_with"; return 0; }
	done
	die "never $n backends down around a lookup"
}
