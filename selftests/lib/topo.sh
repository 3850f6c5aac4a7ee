# SPDX-License-Identifier: GPL-2.0
#
# Topology and traffic helpers for the steering scenarios (steer_*.sh,
# lookup_agree.sh, netlink_errors.sh). Source after setting P, a short
# prefix that names this script's namespaces:
#
#   $P-cli                 $P-lb                         $P-b1 .. $P-bN
#  +--------------+      +---------------------------+     +------------------+
#  | cli0         |      | lo: VIP 10.0.0.100/32     |     | eth0             |
#  | 10.1.0.2/24  +------+ fd00::100/128             |     | 10.2.N.2/24      |
#  | fd01::2/64   | veth | lb-cli 10.1.0.1 fd01::1   |veth | fd02:N::2/64     |
#  | default via  |      | lb-bN  10.2.N.1 fd02:N::1 +-----+ default via LB   |
#  | the LB       |      | ip_forward, ringsteer     |     | rs_server.py bN  |
#  +--------------+      +---------------------------+     | tcp+udp :8080    |
#                                                          +------------------+
#
# The client reaches the VIP (port 80) through the LB, whose ringsteer hook
# DNATs each new flow to a backend (port 8080); backends route replies back
# through the LB, where conntrack undoes the DNAT. Every backend answers each
# TCP read and UDP datagram with its name, so the client sees which backend
# each flow reached. The VIP is a local address of the LB: a flow that is
# not steered is refused by the LB itself instead of reaching a backend.
# Neighbour entries are static, so no first packet waits for ARP or ND.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$(dirname "${BASH_SOURCE[0]}")/observe.sh"

LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VIP4=10.0.0.100
VIP6=fd00::100
VPORT=80
BPORT=8080
CLI4=10.1.0.2
CLI6=fd01::2
SVC4=$VIP4:$VPORT
SVC6=[$VIP6]:$VPORT
KEY=000102030405060708090a0b0c0d0e0f
PY=${PY:-python3}
SERVERS=()
W=

cli() { ip netns exec "$P-cli" "$@"; }
lb() { ip netns exec "$P-lb" "$@"; }
bk() { local n=$1; shift; ip netns exec "$P-b$n" "$@"; }
# rctl ARGS: ringctl in the load balancer's namespace.
rctl() { lb "$RINGCTL" "$@"; }
be4() { echo "10.2.$1.2:$BPORT"; }
be6() { echo "[fd02:$1::2]:$BPORT"; }

# copy_rsnl DIR: rsnl.py and the spec it reads, where another user can
# run them (a clone in root's 0700 home is out of that user's reach).
copy_rsnl()
{
	cp "$LIBDIR/rsnl.py" "$RINGSTEER_SRC/kmod/uapi/ringsteer.yaml" "$1/"
}

need_tools()
{
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || {
			echo "SKIP: $t not installed"
			exit "$KSFT_SKIP"
		}
	done
}

topo_cleanup()
{
	local pid ns
	for pid in "${SERVERS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	# A server started through a helper (lb, cli, bk) runs in a child of
	# the subshell whose pid SERVERS has: end what runs in the namespaces.
	for ns in $(ip netns list | awk -v p="$P-" 'index($1, p) == 1 { print $1 }'); do
		for pid in $(ip netns pids "$ns"); do
			kill "$pid" 2>/dev/null || true
		done
		ip netns del "$ns"
	done
	[ -z "$W" ] || rm -rf "$W"
}

# mac SUBNET HOST: a fixed MAC per interface, for the static neighbours.
mac() { printf '02:00:00:00:%02x:%02x' "$1" "$2"; }

# link NS_A IF_A NS_B IF_B SUBNET: veth between two namespaces; A is host 1
# (the LB), B host 2 of the subnet; static neighbours on both ends.
link()
{
	local a=$1 ia=$2 b=$3 ib=$4 n=$5 v4 v6
	if [ "$n" = 0 ]; then v4=10.1.0; v6=fd01:; else v4=10.2.$n; v6=fd02:$n:; fi
	ip link add "$ia" netns "$a" address "$(mac "$n" 1)" type veth \
		peer name "$ib" netns "$b" address "$(mac "$n" 2)"
	ip -n "$a" addr add "$v4.1/24" dev "$ia"
	ip -n "$a" addr add "$v6:1/64" dev "$ia" nodad
	ip -n "$b" addr add "$v4.2/24" dev "$ib"
	ip -n "$b" addr add "$v6:2/64" dev "$ib" nodad
	ip -n "$a" link set "$ia" up
	ip -n "$b" link set "$ib" up
	ip -n "$a" neigh replace "$v4.2" lladdr "$(mac "$n" 2)" dev "$ia" nud permanent
	ip -n "$a" neigh replace "$v6:2" lladdr "$(mac "$n" 2)" dev "$ia" nud permanent
	ip -n "$b" neigh replace "$v4.1" lladdr "$(mac "$n" 1)" dev "$ib" nud permanent
	ip -n "$b" neigh replace "$v6:1" lladdr "$(mac "$n" 1)" dev "$ib" nud permanent
	ip -n "$b" route add default via "$v4.1"
	ip -n "$b" -6 route add default via "$v6:1"
}

newns()
{
	ip netns add "$1"
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
}

# topo_init: load the module, a work directory, namespaces of an earlier
# run of this script gone, everything cleaned up on exit.
topo_init()
{
	local ns
	need_tools ip "$PY"
	trap topo_cleanup EXIT
	W=$(mktemp -d "/tmp/rs-$P.XXXXXX")
	for ns in $(ip netns list | awk -v p="$P-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns"
	done
	load_module
}

# topo_setup NBACKENDS: topo_init, build the drawing above, start the
# backends' servers and wait until they listen.
topo_setup()
{
	local nb=$1 i t
	topo_init
	newns "$P-cli"
	newns "$P-lb"
	lb sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	lb ip addr add "$VIP4/32" dev lo
	lb ip addr add "$VIP6/128" dev lo nodad
	link "$P-lb" lb-cli "$P-cli" cli0 0
	for i in $(seq 1 "$nb"); do
		newns "$P-b$i"
		link "$P-lb" "lb-b$i" "$P-b$i" eth0 "$i"
		bk "$i" "$PY" "$LIBDIR/rs_server.py" "b$i" "$BPORT" "$W/b$i.ready" &
		SERVERS+=($!)
	done
	ready_files '\.ready$' "$nb" 300 || die "backend servers did not start"
}

# ready_files REGEX N [TRIES]: wait until N files of $W match REGEX (the
# files servers and listeners create once ready), 0.1 s a try for TRIES
# tries (default 100); false if they never do.
ready_files()
{
	local t
	for t in $(seq 1 "${3:-100}"); do
		[ "$(ls "$W" | grep -c "$1" || true)" -lt "$2" ] || return 0
		sleep 0.1
	done
	return 1
}

# tunnel_service N: the key, and SVC4 as a forward tunnel service over
# backends 1..N with the VIP's port (a tunnel cannot translate it).
tunnel_service()
{
	local i
	cmd_ok rctl key set "$KEY"
	cmd_ok rctl service add "$SVC4" forward tunnel
	for i in $(seq 1 "$1"); do
		cmd_ok rctl backend add "$SVC4" "10.2.$i.2:$VPORT"
	done
}

# ports A-B[,C-D...]: the port numbers, one a line.
ports()
{
	local part
	for part in ${1//,/ }; do
		case $part in
		*-*) seq "${part%-*}" "${part#*-}" ;;
		*) echo "$part" ;;
		esac
	done
}

# traffic [-6] [-u] [-l] [-t TIMEOUT] [-p DPORT] SPORTS: one new flow per
# source port to the VIP (port VPORT unless -p) from the client, or with -l
# from the LB itself (its address on lb-cli: the LOCAL_OUT hook); prints
# "SPORT NAME" (NAME "-" if unanswered).
traffic()
{
	local v6= in=cli dport=$VPORT opts=() src dst
	while :; do
		case $1 in
		-6) v6=1 ;;
		-u) opts+=(--udp) ;;
		-l) in=lb ;;
		-t) opts+=(--timeout "$2"); shift ;;
		-p) dport=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	if [ -n "$v6" ]; then
		dst=$VIP6; src=$CLI6; [ $in = cli ] || src=fd01::1
	else
		dst=$VIP4; src=$CLI4; [ $in = cli ] || src=10.1.0.1
	fi
	$in "$PY" "$LIBDIR/rs_client.py" "${opts[@]}" "$src" "$dst" "$dport" "$1"
}

# names: "SRC:SPORT BACKEND:PORT" (ringctl lookup batch) to "SPORT bN".
names()
{
	sed -E 's/^[^ ]*:([0-9]+) /\1 /; s/ 10\.2\.([0-9]+)\.2:8080$/ b\1/; s/ \[fd02:([0-9]+)::2\]:8080$/ b\1/'
}

# lookup [-6] [-u] [-l] [-n NS] SPORTS: what the kernel says each flow
# (from the client, or with -l from the LB) maps to, as "SPORT bN"
# (ringctl lookup batch in the LB, or in NS).
lookup()
{
	local src=$CLI4 src6=[$CLI6] svc=$SVC4 proto=tcp ns=$P-lb
	while :; do
		case $1 in
		-6) svc=$SVC6 ;;
		-u) proto=udp ;;
		-l) src=10.1.0.1; src6=[fd01::1] ;;
		-n) ns=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	[ "$svc" = "$SVC4" ] || src=$src6
	ports "$1" | sed "s/^/$src:/" >"$W/lookup.in"
	ip netns exec "$ns" "$RINGCTL" lookup "$svc" batch "$W/lookup.in" proto "$proto" >"$W/lookup.out" ||
		die "ringctl lookup $svc batch (proto $proto) failed"
	[ "$(wc -l <"$W/lookup.out")" = "$(wc -l <"$W/lookup.in")" ] ||
		die "ringctl lookup batch: $(wc -l <"$W/lookup.in") flows in, $(wc -l <"$W/lookup.out") lines out"
	names <"$W/lookup.out"
}

# counts FILE: "bN COUNT" per name in a "SPORT NAME" file, sorted.
counts() { awk '{ c[$2]++ } END { for (n in c) print n, c[n] }' "$1" | sort; }

# expect_same GOT WANT WHAT: two "SPORT NAME" files must be identical.
expect_same()
{
	local got=$1 want=$2 what=$3
	cmp -s "$got" "$want" && return 0
	echo "$what: $(diff "$want" "$got" | grep -c '^>') of $(wc -l <"$want") flows differ (want < > got):" >&2
	diff "$want" "$got" | head -n 20 >&2
	die "$what"
}

# expect_differ A B WHAT: the negative twin of expect_same.
expect_differ()
{
	! cmp -s "$1" "$2" || die "$3: expected a difference, files are identical"
}

# moves BEFORE AFTER: "FROM TO COUNT" for every flow whose name changed.
moves()
{
	paste -d' ' "$1" "$2" | awk '
		$1 != $3 { print "misaligned", NR; exit 1 }
		$2 != $4 { m[$2 " " $4]++ }
		END { for (k in m) print k, m[k] }' | sort
}

# no_failures FILE WHAT: every flow in FILE got an answer.
no_failures()
{
	local n
	n=$(awk '$2 == "-"' "$1" | wc -l)
	[ "$n" = 0 ] || die "$2: $n of $(wc -l <"$1") flows got no answer"
}

# show FILE: `ringctl show -j` of the LB, flattened by rs_json.py into FILE.
show()
{
	rctl show -j >"$1.json" || die "ringctl show -j failed"
	"$PY" "$LIBDIR/rs_json.py" <"$1.json" >"$1" || die "ringctl show -j: unexpected JSON: $(head -c 300 "$1.json")"
}

# field FILE KIND NAME COLUMN: one value of a flattened show; NAME is the
# service for "svc" lines, "SERVICE BACKEND" for "be" lines.
field()
{
	local f=$1 kind=$2 name=$3 col=$4 v
	if [ "$kind" = svc ]; then
		v=$(awk -v n="$name" -v c="$col" '$1 == "svc" && $2 == n { print $c }' "$f")
	else
		v=$(awk -v s="${name% *}" -v b="${name#* }" -v c="$col" \
			'$1 == "be" && $2 == s && $3 == b { print $c }' "$f")
	fi
	[ -n "$v" ] || die "show -j has no $kind $name"
	echo "$v"
}

# hold_start [-6] [-u] [-t TIMEOUT] SPORTS: open flows and keep them
# (coprocess HOLD); prints the first answers like traffic; a flow that has
# no answer TIMEOUT seconds after a request (default 5) is closed as "-".
# hold_ping: one more request on each flow, prints "SPORT NAME".
# hold_stop: reset them all. hold_close: close them as applications do
# (FINs both ways, TIME_WAIT left behind).
hold_start()
{
	local src=$CLI4 dst=$VIP4 opts=(--hold) line
	while :; do
		case $1 in
		-6) src=$CLI6; dst=$VIP6 ;;
		-u) opts+=(--udp) ;;
		-t) opts+=(--timeout "$2"); shift ;;
		*) break ;;
		esac
		shift
	done
	coproc HOLD { cli "$PY" "$LIBDIR/rs_client.py" "${opts[@]}" "$src" "$dst" "$VPORT" "$1"; }
	hold_read
}

hold_read()
{
	local line
	while IFS= read -r -t 120 line <&"${HOLD[0]}"; do
		[ "$line" != . ] || return 0
		echo "$line"
	done
	die "held flows: no answer from rs_client.py"
}

hold_ping()
{
	echo ping >&"${HOLD[1]}"
	hold_read
}

hold_stop()
{
	echo quit >&"${HOLD[1]}"
	wait "$HOLD_PID" 2>/dev/null || true
}

hold_close()
{
	echo close >&"${HOLD[1]}"
	wait "$HOLD_PID" || die "held flows did not close cleanly"
}

# backends SHOW SERVICE: "bN WEIGHT STATE FLOWS SHARE" per backend of
# SERVICE (as in svc lines: VIP:PORT/PROTO) in a flattened show.
backends()
{
	awk -v s="$2" '$1 == "be" && $2 == s { print $3, $4, $5, $6, $7 }' "$1" |
		sed -E 's/^10\.2\.([0-9]+)\.2:8080 /b\1 /; s/^\[fd02:([0-9]+)::2\]:8080 /b\1 /'
}

# expect_spread SHOW SERVICE GOT: the flows in GOT ("SPORT bN") are spread
# over the backends as the ring's shares (show -j "share") say, within 4.5
# standard deviations of the binomial count; a backend with share 0 gets
# nothing, and every flow went to a backend of the service.
expect_spread()
{
	local show=$1 svc=$2 got=$3
	backends "$show" "$svc" >"$W/spread.be"
	[ -s "$W/spread.be" ] || die "spread: no backends for $svc in show -j"
	counts "$got" >"$W/spread.cnt"
	awk -v n="$(wc -l <"$got")" '
		FNR == NR { share[$1] = $5; sum += $5; next }
		{ cnt[$1] = $2 }
		END {
			bad = 0
			if (sum < 0.999999 || sum > 1.000001) {
				printf "shares sum to %.9f, not 1\n", sum; bad = 1
			}
			for (b in cnt) if (!(b in share)) {
				printf "%d flows went to %s, not a backend of the service\n", cnt[b], b; bad = 1
			}
			for (b in share) {
				want = n * share[b]; sd = sqrt(n * share[b] * (1 - share[b]))
				d = cnt[b] - want; if (d < 0) d = -d
				printf "  %s share %.4f: %d flows, expected %.1f +- %.1f\n", b, share[b], cnt[b], want, 4.5 * sd
				if (d > 4.5 * sd + 1) { printf "%s is out of bounds\n", b; bad = 1 }
			}
			exit bad
		}' "$W/spread.be" "$W/spread.cnt" >&2 ||
		die "flows are not spread as the ring's shares say ($svc)"
}

# expect_flows SHOW SERVICE GOT...: the kernel's per-backend "flows"
# counters equal the flows observed on each backend over all GOT files, and
# the service's counter equals their total.
expect_flows()
{
	local show=$1 svc=$2 total
	shift 2
	total=$(cat "$@" | awk '$2 != "-"' | wc -l)
	[ "$(field "$show" svc "$svc" 9)" = "$total" ] ||
		die "service $svc counts $(field "$show" svc "$svc" 9) flows, $total observed"
	backends "$show" "$svc" >"$W/flows.be"
	cat "$@" | awk '$2 != "-" { print $1 " " $2 }' >"$W/flows.got"
	awk '
		FNR == NR { c[$2]++; next }
		{ if ($4 != c[$1] + 0) { printf "%s: kernel counts %d flows, %d observed\n", $1, $4, c[$1]; bad = 1 } }
		END { exit bad }' "$W/flows.got" "$W/flows.be" >&2 ||
		die "per-backend flow counters of $svc do not match the traffic"
}
