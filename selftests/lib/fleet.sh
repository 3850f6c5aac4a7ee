# SPDX-License-Identifier: GPL-2.0
#
# A load-balancer fleet behind ECMP, routed by BIRD 2 (BGP + BFD), for
# the scenarios of selftests/fleet/, which fail, drain and return load
# balancers and change their rings under long-lived traffic. Source after
# setting P (the namespaces' prefix); FLEET_LB picks the load balancers'
# implementation: ipvs (the default), nat or tunnel (ringsteer's two
# forwarding modes), each a set of lb_IMPL_* functions (see
# "implementations" below).
#
#                                      $P-lb1 .. $P-lb3
#                                   +---------------------------+
#   $P-cli              $P-rtr      | eth0 10.3.N.2/24          |
#  +--------------+   +----------+  | lo: VIP 10.0.0.100/32     |
#  | cli0         |   | BIRD:    +--+ BIRD: BGP AS 6500N, BFD,  |
#  | 10.1.0.2/16  +---+ BGP AS   |x3|   announces VIP/32        |
#  | 10.1.1.1-100 |   | 65000,   |  | the LB (FLEET_LB): VIP -> |
#  | (a source    |   | BFD,     |  |   a backend, forwarded    |
#  |  address per |   | ECMP over|  |   via rtr (ipip, GUE or   |
#  |  connection) |   | the LBs  |  |   DNAT)                   |
#  +--------------+   | rp_filter|  +---------------------------+
#                     | 0        |  +---------------------------+
#                     |          +--+ $P-be1 .. $P-beN (NBE)    |
#                     +----------+xN| eth0 10.2.M.2/24          |
#                                   | lo: VIP; tunl0 (ipip)     |
#                                   | fleet_conns.py serve beM  |
#                                   | on VIP:80 (+ 10.2.M.2:80) |
#                                   +---------------------------+
#
# rtr learns VIP/32 from every LB by eBGP and installs one ECMP route
# (BIRD's kernel protocol, merge paths), hashed on the 5-tuple
# (fib_multipath_hash_policy 3, fields 0x0037: with policy 1 the sender's
# socket hash would reach rtr's FIB across the veths, and TCP's rehash on
# a retransmission timeout would move a stalled flow by itself). BFD at
# 200 ms x 5 tells rtr within a second that an LB is gone; BGP's timers are
# short (connect, retry and error wait 1-2 s) so a returning LB is back in
# seconds. Backends answer the client through rtr directly (direct server
# return: rtr's rp_filter is 0, as replies from the VIP come in from a
# backend while rtr's route for the VIP points to the LBs). Neighbour
# entries are static, so no first packet waits for ARP. BIRD runs at a
# higher priority (nice -10) than the traffic: on a loaded 2-CPU guest,
# BFD's 200 ms timers must not wait behind the client and the servers (a
# BIRD starved for a second takes every session down at once), as a
# router's control plane is protected from its traffic. Nothing in the
# guest protects BFD from the host, though: a guest the host does not run
# for over a second loses every session at once (FLEET_BFD_MS and
# FLEET_BFD_MULT set the timers; fleet/failover.sh discards such attempts).

. "$(dirname "${BASH_SOURCE[0]}")/topo.sh"

FLEET_LB=${FLEET_LB:-ipvs}
NLB=${NLB:-3}
NBE=${NBE:-3}
# Backends the LBs start with; the others only have servers, for ring
# changes to add.
NBE_RING=${NBE_RING:-$NBE}
VIP4=10.0.0.100
VPORT=80
CONNS=${FLEET_CONNS:-100}
UDPFLOWS=${FLEET_UDP:-10}
INTERVAL=${FLEET_INTERVAL:-0.1}
RTR_AS=65000
BFD_MS=${FLEET_BFD_MS:-200}
BFD_MULT=${FLEET_BFD_MULT:-5}
FCLIENT=
FCLIENT_PID=
declare -A BIRD_PID=()

rtr() { ip netns exec "$P-rtr" "$@"; }
lbn() { local n=$1; shift; ip netns exec "$P-lb$n" "$@"; }
ben() { local n=$1; shift; ip netns exec "$P-be$n" "$@"; }
lb_addr() { echo "10.3.$1.2"; }
be_addr() { echo "10.2.$1.2"; }
# birdc_in NS ARGS: birdc on the control socket of NS's BIRD.
birdc_in() { local ns=$1; shift; birdc -s "$W/$ns.ctl" "$@"; }

# wait_for SECONDS WHAT CMD...: poll CMD every 0.1 s until it succeeds;
# die after SECONDS.
wait_for()
{
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s) + secs))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || die "timed out after ${secs}s: $what"
		sleep 0.1
	done
}

# poll_until SECONDS CMD...: as wait_for, but returns 1 on timeout: for
# conditions a failing case may never meet, whose numbers are still wanted.
poll_until()
{
	local end
	end=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

now() { date +%s.%N; }
# elapsed T0: seconds since T0 (from now), 3 decimals.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# fleet_link NS_A IF_A ADDR_A NS_B IF_B ADDR_B PREFIXLEN ID: a veth, static
# neighbours both ways; ID (1..255) makes the MACs unique.
fleet_link()
{
	local a=$1 ia=$2 xa=$3 b=$4 ib=$5 xb=$6 len=$7 id=$8
	ip link add "$ia" netns "$a" address "$(mac "$id" 1)" type veth \
		peer name "$ib" netns "$b" address "$(mac "$id" 2)"
	ip -n "$a" addr add "$xa/$len" dev "$ia"
	ip -n "$b" addr add "$xb/$len" dev "$ib"
	ip -n "$a" link set "$ia" up
	ip -n "$b" link set "$ib" up
	ip -n "$a" neigh replace "$xb" lladdr "$(mac "$id" 2)" dev "$ia" nud permanent
	ip -n "$b" neigh replace "$xa" lladdr "$(mac "$id" 1)" dev "$ib" nud permanent
}

# ---------------------------------------------------------------- BIRD

# bird_rtr_conf: rtr's BIRD: an eBGP session with BFD to every LB, the
# VIP's routes merged into one ECMP route in the kernel.
bird_rtr_conf()
{
	local n
	cat <<-EOF
	router id 10.1.0.1;
	log "$W/$P-rtr.log" all;
	protocol device { scan time 10; }
	protocol kernel {
		ipv4 {
			import none;
			export filter { if net = $VIP4/32 then accept; reject; };
		};
		merge paths on;
		learn off;
		persist off;
	}
	protocol bfd {
		debug { states };
		interface "rtr-lb*" {
			min rx interval $BFD_MS ms;
			min tx interval $BFD_MS ms;
			multiplier $BFD_MULT;
		};
	}
	template bgp lb {
		debug { states };
		local as $RTR_AS;
		bfd on;
		connect delay time 1;
		connect retry time 1;
		error wait time 1, 2;
		ipv4 {
			import filter { if net = $VIP4/32 then accept; reject; };
			export none;
		};
	}
	EOF
	for n in $(seq 1 "$NLB"); do
		echo "protocol bgp lb$n from lb { neighbor $(lb_addr "$n") as $((65000 + n)); }"
	done
}

# bird_lb_conf N: LB N's BIRD: announces VIP/32 (protocol "vip"; disabling
# it is the graceful withdraw) over one eBGP session ("rtr") with BFD.
# dist/bird/lb.conf is the same for a real host.
bird_lb_conf()
{
	local n=$1
	cat <<-EOF
	router id $(lb_addr "$n");
	log "$W/$P-lb$n.log" all;
	protocol device { scan time 10; }
	protocol static vip {
		ipv4;
		route $VIP4/32 blackhole;
	}
	protocol bfd {
		debug { states };
		interface "eth0" {
			min rx interval $BFD_MS ms;
			min tx interval $BFD_MS ms;
			multiplier $BFD_MULT;
		};
	}
	protocol bgp rtr {
		local $(lb_addr "$n") as $((65000 + n));
		neighbor 10.3.$n.1 as $RTR_AS;
		bfd on;
		connect delay time 1;
		connect retry time 1;
		error wait time 1, 2;
		ipv4 {
			import none;
			export where proto = "vip";
		};
	}
	EOF
}

# bird_start NS: BIRD in the foreground of a background job in NS, on its
# config and control socket in $W; BIRD_PID[NS] is its pid (ip netns exec
# execs it).
bird_start()
{
	local ns=$1
	ip netns exec "$ns" nice -n -10 bird -f -c "$W/$ns.conf" -s "$W/$ns.ctl" >>"$W/$ns.out" 2>&1 &
	BIRD_PID[$ns]=$!
	wait_for 30 "BIRD in $ns answers on its socket" birdc_in "$ns" show status
}

bird_kill()
{
	local ns=$1
	kill -9 "${BIRD_PID[$ns]}"
	wait "${BIRD_PID[$ns]}" 2>/dev/null || true
	rm -f "$W/$ns.ctl"
}

# bgp_established N: rtr's session to LB N is up.
bgp_established() { birdc_in "$P-rtr" show protocols "lb$1" | grep -q Established; }

# rtr_nexthops: the LB links rtr's kernel route for the VIP uses, sorted,
# on one line ("" if none).
rtr_nexthops()
{
	ip -n "$P-rtr" route show "$VIP4/32" | grep -o 'dev rtr-lb[0-9]*' | sort -u -k2,2V |
		awk '{ printf "%s%s", sep, $2; sep = " " }'
}

all_lbs() { seq 1 "$NLB" | sed 's/^/rtr-lb/' | tr '\n' ' ' | sed 's/ $//'; }

# routes_are WANT: rtr's kernel route for the VIP goes over exactly WANT.
routes_are() { [ "$(rtr_nexthops)" = "$1" ]; }

# fleet_converged: every session established, the ECMP route over every LB.
fleet_converged()
{
	local n
	for n in $(seq 1 "$NLB"); do
		bgp_established "$n" || return 1
	done
	routes_are "$(all_lbs)"
}

# ------------------------------------------------------------ topology

# fleet_setup: the drawing above, BIRD everywhere, the LBs and backends
# configured for FLEET_LB, servers listening, BGP converged.
fleet_setup()
{
	local n i
	need_tools ip "$PY" bird birdc nft
	declare -F "lb_${FLEET_LB}_setup" >/dev/null || die "FLEET_LB=$FLEET_LB: no such implementation"
	"lb_${FLEET_LB}_need"
	trap fleet_cleanup EXIT
	W=$(mktemp -d "/tmp/rs-$P.XXXXXX")
	for n in $(ip netns list | awk -v p="$P-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$n"
	done
	newns "$P-cli"
	newns "$P-rtr"
	rtr sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.fib_multipath_hash_policy=3 net.ipv4.fib_multipath_hash_fields=0x0037
	fleet_link "$P-rtr" rtr-cli 10.1.0.1 "$P-cli" cli0 10.1.0.2 16 1
	ip -n "$P-cli" route add default via 10.1.0.1
	# One source address per connection: IPVS mh hashes the client's
	# address only, and ECMP gets as many flows to spread.
	for i in $(seq 1 "$CONNS"); do
		echo "addr add $(cli_src "$i")/16 dev cli0"
	done | ip -n "$P-cli" -batch -
	for n in $(seq 1 "$NLB"); do
		newns "$P-lb$n"
		lbn "$n" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		fleet_link "$P-rtr" "rtr-lb$n" "10.3.$n.1" "$P-lb$n" eth0 "$(lb_addr "$n")" 24 $((16 + n))
		ip -n "$P-lb$n" route add default via "10.3.$n.1"
		ip -n "$P-lb$n" addr add "$VIP4/32" dev lo
	done
	for n in $(seq 1 "$NBE"); do
		newns "$P-be$n"
		fleet_link "$P-rtr" "rtr-be$n" "10.2.$n.1" "$P-be$n" eth0 "$(be_addr "$n")" 24 $((64 + n))
		ip -n "$P-be$n" route add default via "10.2.$n.1"
		ip -n "$P-be$n" addr add "$VIP4/32" dev lo
		# The VIP is the backends' and the LBs': never answer ARP for it.
		ben "$n" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
		"be_${FLEET_LB}_setup" "$n"
		ben "$n" "$PY" "$LIBDIR/fleet_conns.py" serve "be$n" "$VPORT" "$W/be$n.ready" \
			"$VIP4" "$(be_addr "$n")" >"$W/be$n.log" 2>&1 &
		SERVERS+=($!)
	done
	for n in $(seq 1 "$NBE"); do
		wait_for 30 "server be$n listens" test -e "$W/be$n.ready"
	done
	for n in $(seq 1 "$NLB"); do
		"lb_${FLEET_LB}_setup" "$n"
	done
	bird_rtr_conf >"$W/$P-rtr.conf"
	bird_start "$P-rtr"
	for n in $(seq 1 "$NLB"); do
		bird_lb_conf "$n" >"$W/$P-lb$n.conf"
		bird_start "$P-lb$n"
	done
	wait_for 60 "BGP established with every LB, ECMP route over all" fleet_converged
}

cli_src() { echo "10.1.1.$1"; }

# fleet_cleanup: on failure, the last words of every BIRD and of the client
# first (they live in $W, which goes).
fleet_cleanup()
{
	local rc=$? f
	if [ "$rc" != 0 ] && [ -n "$W" ]; then
		for f in "$W"/*.log "$W"/*.out; do
			[ -s "$f" ] || continue
			echo "# --- $(basename "$f") (last lines)"
			tail -n 40 "$f" | sed 's/^/#   /'
		done
		ip -n "$P-rtr" route show "$VIP4/32" 2>/dev/null | sed 's/^/# rtr route: /'
	fi
	[ -z "$FCLIENT_PID" ] || kill "$FCLIENT_PID" 2>/dev/null || true
	topo_cleanup
}

# ------------------------------------------------------------- traffic

# client_start NAME: CONNS TCP connections and UDPFLOWS UDP flows from the
# client, each from its own address, until client_stop; returns once every
# flow has had an answer, or fails (1) if one was reset first or some got
# none in 60 s.
client_start()
{
	local i srcs=()
	FCLIENT=$W/$1
	for i in $(seq 1 "$CONNS"); do
		srcs+=("$(cli_src "$i")")
	done
	rm -f "$FCLIENT.ready" "$FCLIENT.report"
	ip netns exec "$P-cli" "$PY" "$LIBDIR/fleet_conns.py" run --interval "$INTERVAL" --udp "$UDPFLOWS" \
		"$FCLIENT.ready" "$FCLIENT.report" "$VIP4" "$VPORT" "${srcs[@]}" >"$FCLIENT.log" 2>&1 &
	FCLIENT_PID=$!
	poll_until 90 client_ready || true
	if [ ! -e "$FCLIENT.ready" ]; then
		kill "$FCLIENT_PID" 2>/dev/null || true
		wait "$FCLIENT_PID" 2>/dev/null || true
		FCLIENT_PID=
		echo "# $1: the flows did not start: $(cat "$FCLIENT.log")"
		return 1
	fi
}

# client_ready: the client has written its ready file, or has exited
# (then client_start sees no ready file).
client_ready() { [ -e "$FCLIENT.ready" ] || ! kill -0 "$FCLIENT_PID" 2>/dev/null; }

# answered_since T: every flow not reset has had an answer after T (the
# client's progress file, written every 0.5 s, says so).
answered_since()
{
	awk -v t="$1" '{ exit !($1 > t) }' "$FCLIENT.report.progress"
}

# resets: the flows reset so far, one port a line (the progress file).
resets() { awk '{ print $2 }' "$FCLIENT.report.progress"; }

# settle WHAT: every live flow answered after now (the change is through),
# or a note naming WHAT after 30 s.
settle() { poll_until 30 answered_since "$(now)" || echo "# $1: some flows had no answer 30 s later"; }

# client_stop: end the flows; their report is in $FCLIENT.report.
client_stop()
{
	kill -TERM "$FCLIENT_PID"
	wait "$FCLIENT_PID" || die "client failed: $(cat "$FCLIENT.log")"
	FCLIENT_PID=
	[ -s "$FCLIENT.report" ] || die "client wrote no report"
}

# broke PROTO: the flows the client saw break: TCP reset, UDP answered by
# another backend.
broke()
{
	if [ "$1" = tcp ]; then
		awk '$1 == "tcp" && $3 == "reset=1" { print $2 }' "$FCLIENT.report" | sort
	else
		awk '$1 == "udp" && $5 == "moved=1" { print $2 }' "$FCLIENT.report" | sort
	fi
}

# on_backend PROTO M: the flows whose first answer came from beM.
on_backend()
{
	awk -v p="$1" -v b="be$2" '$1 == p { split($8, kv, "="); split(kv[2], first, ","); if (first[1] == b) print $2 }' \
		"$FCLIENT.report" | sort
}

# report_field PROTO FIELD: FIELD of every PROTO line of the report, one a
# line.
report_field()
{
	awk -v p="$1" -v f="$2" '$1 == p { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' \
		"$FCLIENT.report"
}

# count PROTO FIELD VALUE: flows whose FIELD is VALUE.
count() { report_field "$1" "$2" | grep -cx "$3" || true; }
# worst PROTO: the longest stall of PROTO's flows that were not reset.
worst()
{
	awk -v p="$1" '$1 == p && $3 == "reset=0" { split($4, kv, "="); if (kv[2] > m) m = kv[2] } END { printf "%.3f", m }' \
		"$FCLIENT.report"
}
# stalled PROTO BOUND: flows of PROTO not reset that stalled past BOUND.
stalled()
{
	awk -v p="$1" -v b="$2" '$1 == p && $3 == "reset=0" { split($4, kv, "="); if (kv[2] > b) n++ } END { print n + 0 }' \
		"$FCLIENT.report"
}

# ------------------------------------------------------------ failures
#
# lb_fail HOW N / lb_return HOW N: one way for LB N to fail, and to come
# back. Each is what rtr would see of a real host:
#   withdraw  the LB stops announcing (birdc disable vip): a BGP UPDATE
#             withdraws the route; the LB keeps forwarding what still comes
#   linkdown  its link to rtr goes down (carrier lost on rtr's side too)
#   killed    its BIRD is killed (-9): the TCP session closes, BFD stops;
#             its datapath still forwards until rtr moves the traffic
#   dead      the host drops everything, in and out, on its link (nft
#             netdev ingress and egress, before any other hook): the
#             link stays up and no session closes, only BFD's timeout
#             (200 ms x 5) notices
lb_fail()
{
	local how=$1 n=$2
	case $how in
	withdraw) birdc_in "$P-lb$n" disable vip >/dev/null ;;
	linkdown) ip -n "$P-lb$n" link set eth0 down ;;
	killed) bird_kill "$P-lb$n" ;;
	dead)
		lbn "$n" nft -f - <<-EOF
		table netdev dead {
			chain in { type filter hook ingress device "eth0" priority -500; policy drop; }
			chain out { type filter hook egress device "eth0" priority -500; policy drop; }
		}
		EOF
		;;
	*) die "lb_fail: no failure $how" ;;
	esac
}

lb_return()
{
	local how=$1 n=$2
	case $how in
	withdraw) birdc_in "$P-lb$n" enable vip >/dev/null ;;
	linkdown)
		ip -n "$P-lb$n" link set eth0 up
		ip -n "$P-lb$n" route replace default via "10.3.$n.1"
		;;
	killed) bird_start "$P-lb$n" ;;
	dead) lbn "$n" nft delete table netdev dead ;;
	*) die "lb_return: no failure $how" ;;
	esac
}

# fingerprints_agree [SKEWED]: every LB's fingerprint equals lb1's, but
# SKEWED's, which must differ.
fingerprints_agree()
{
	local n skew=${1:-0}
	"lb_${FLEET_LB}_fingerprint" 1 >"$W/fp1"
	[ -s "$W/fp1" ] || die "lb1 has no fingerprint"
	for n in $(seq 2 "$NLB"); do
		"lb_${FLEET_LB}_fingerprint" "$n" >"$W/fp$n"
		if [ "$n" = "$skew" ]; then
			! cmp -s "$W/fp1" "$W/fp$n" || die "lb$n is skewed but its fingerprint equals lb1's"
		else
			cmp -s "$W/fp1" "$W/fp$n" || die "lb$n's fingerprint differs from lb1's: $(diff "$W/fp1" "$W/fp$n" | tr '\n' ' ')"
		fi
	done
}

# monitor_start / monitor_stop: rtr's route changes, timestamped, into
# $W/routes.mon.
monitor_start()
{
	# Line-buffered: ip's stdio would hold the lines until it exits, and
	# the signal that ends it loses them.
	stdbuf -oL ip -n "$P-rtr" -ts monitor route >"$W/routes.mon" 2>&1 &
	MONITOR_PID=$!
	# The failure comes right after: on a starved guest ip may not have
	# subscribed yet, and the route change it misses is the one measured.
	# A route of its own, seen in the file, shows that it listens.
	wait_for 30 "rtr's route monitor to listen" monitor_listens
}

# monitor_listens: a route of its own appears in the monitor's file; if
# not, it comes and goes again, so that every poll makes a change to see.
MONITOR_MARK=192.0.2.254
monitor_listens()
{
	ip -n "$P-rtr" route add blackhole "$MONITOR_MARK/32"
	ip -n "$P-rtr" route del blackhole "$MONITOR_MARK/32"
	grep -q "$MONITOR_MARK " "$W/routes.mon"
}

monitor_stop()
{
	kill "$MONITOR_PID" 2>/dev/null || true
	wait "$MONITOR_PID" 2>/dev/null || true
}

# ------------------------------------------------------ implementations
#
# Each FLEET_LB=IMPL provides:
#   lb_IMPL_need          skip (exit $KSFT_SKIP) if the tools are missing
#   lb_IMPL_setup N       configure LB N: VIP:80 TCP and UDP over
#                         backends 1..NBE_RING, identically on every LB
#   lb_IMPL_skew N        configure LB N differently (the negative control)
#   lb_IMPL_unskew N      back to the fleet's configuration
#   lb_IMPL_fingerprint N what must be equal on every LB, one a line
#   lb_IMPL_clients N     the TCP connections LB N steers now, one
#                         CLIENT:PORT a line
#   lb_IMPL_keeps         0 if an LB's failure is expected to cost its
#                         connections (NAT), 1 if none may break
#   be_IMPL_setup M       prepare backend M for what the LBs send it
#   lb_IMPL_backend ACTION M [N...]   add, drain, activate or del backend
#                         M on LBs N (default all)

# IPVS, maglev hashing (mh), tunnel (ipip) forwarding. The LBs keep no
# state the others need: mh gives the same backend for a client address on
# every LB with the same backends, weights and order; sloppy_tcp lets an LB
# that takes over a connection mid-way schedule its non-SYN packets
# (without it IPVS passes them to the VIP itself; there is no sloppy_udp:
# any UDP datagram schedules a new entry). mh-port and
# mh-fallback are off: the table is a function of the client address.
lb_ipvs_need() { need_tools ipvsadm; modprobe ip_vs_mh && modprobe ipip || die "modprobe ip_vs_mh ipip"; }

lb_ipvs_setup()
{
	local n=$1 m p
	lbn "$n" sysctl -qw net.ipv4.vs.sloppy_tcp=1
	for p in t u; do
		lbn "$n" ipvsadm -A -$p "$VIP4:$VPORT" -s mh
		for m in $(seq 1 "$NBE_RING"); do
			lbn "$n" ipvsadm -a -$p "$VIP4:$VPORT" -r "$(be_addr "$m"):$VPORT" -i -w 1
		done
	done
}

# Another weight for be1 on LB N: another mh table.
lb_ipvs_skew()
{
	local p
	for p in t u; do
		lbn "$1" ipvsadm -e -$p "$VIP4:$VPORT" -r "$(be_addr 1):$VPORT" -i -w 4
	done
}

lb_ipvs_unskew()
{
	local p
	for p in t u; do
		lbn "$1" ipvsadm -e -$p "$VIP4:$VPORT" -r "$(be_addr 1):$VPORT" -i -w 1
	done
}

# ipvsadm -Ln less the counters: services, scheduler, backends in order
# (mh's table depends on their order), forwarding, weights.
lb_ipvs_fingerprint() { lbn "$1" ipvsadm -Ln | awk '$1 == "TCP" || $1 == "UDP" || $1 == "->" { print $1, $2, $3, $4 }'; }

lb_ipvs_clients() { lbn "$1" ipvsadm -Lnc | awk '$1 == "TCP" && $3 == "ESTABLISHED" { print $4 }'; }
lb_ipvs_keeps() { echo 1; }

# A backend of a tunnel: ipip's fallback device up to decapsulate, the VIP
# on lo (done for every backend), and no reverse-path check of the inner
# source on tunl0, which has no route back.
be_ipvs_setup()
{
	local m=$1
	ben "$m" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	ip -n "$P-be$m" link set tunl0 up
	ben "$m" sysctl -qw net.ipv4.conf.tunl0.rp_filter=0
}

lb_ipvs_backend()
{
	local act=$1 m=$2 n p
	shift 2
	for n in ${*:-$(seq 1 "$NLB")}; do
		for p in t u; do
			case $act in
			add) lbn "$n" ipvsadm -a -$p "$VIP4:$VPORT" -r "$(be_addr "$m"):$VPORT" -i -w 1 ;;
			drain) lbn "$n" ipvsadm -e -$p "$VIP4:$VPORT" -r "$(be_addr "$m"):$VPORT" -i -w 0 ;;
			activate) lbn "$n" ipvsadm -e -$p "$VIP4:$VPORT" -r "$(be_addr "$m"):$VPORT" -i -w 1 ;;
			del) lbn "$n" ipvsadm -d -$p "$VIP4:$VPORT" -r "$(be_addr "$m"):$VPORT" ;;
			esac || die "lb$n: ipvsadm: backend $act be$m"
		done
	done
}

# ringsteer, forward nat (today's mode): each LB DNATs a new flow to the
# backend its ring picks, the same on every LB (one key). The replies must
# come back through the LB that translated the flow, and with several LBs
# a backend cannot route to "the one that did": so each LB also
# masquerades what it sends to a backend (full NAT, one nft rule outside
# ringsteer). The backend then sees the LB's address as the client's. A
# flow ECMP moves to another LB reaches the same backend (the rings agree)
# but from another address, where no socket is: the backend resets it.
# NAT mode loses every connection that changes LB, the failed LB's and
# those ECMP reshuffles between the others, on a failure and on a return.
lb_nat_need() { need_tools conntrack; load_module; }

lb_nat_setup()
{
	local n=$1 m p
	lbn "$n" "$RINGCTL" key set "$KEY" || die "lb$n: ringctl key set"
	for p in tcp udp; do
		lbn "$n" "$RINGCTL" service add "$VIP4:$VPORT" proto $p || die "lb$n: service add $p"
		for m in $(seq 1 "$NBE_RING"); do
			lbn "$n" "$RINGCTL" backend add "$VIP4:$VPORT" "$(be_addr "$m"):$VPORT" proto $p ||
				die "lb$n: backend add be$m $p"
		done
	done
	# The flow table is per CPU: as a NIC's RSS would, RPS keeps each
	# flow's packets on one CPU of the LB, whichever CPU rtr sent them from.
	lbn "$n" sh -c "printf %x $(((1 << $(nproc)) - 1)) >/sys/class/net/eth0/queues/rx-0/rps_cpus" ||
		die "lb$n: rps_cpus"
	lbn "$n" nft -f - <<-EOF
	table ip fleet {
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "eth0" ip daddr 10.2.0.0/16 masquerade
		}
	}
	EOF
}

lb_nat_skew() { lbn "$1" "$RINGCTL" key set 0f0e0d0c0b0a09080706050403020100 || die "lb$1: key set"; }
lb_nat_unskew() { lbn "$1" "$RINGCTL" key set "$KEY" || die "lb$1: key set"; }
lb_nat_fingerprint() { lbn "$1" "$RINGCTL" fingerprint; }
lb_nat_clients()
{
	lbn "$1" conntrack -L -p tcp --orig-dst "$VIP4" --dport "$VPORT" 2>/dev/null |
		awk '/ESTABLISHED/ { for (i = 1; i <= NF; i++) { if ($i ~ /^src=/ && !s) s = substr($i, 5); if ($i ~ /^sport=/ && !p) p = substr($i, 7) }
			print s ":" p; s = p = "" }'
}
lb_nat_keeps() { echo 0; }
be_nat_setup() { :; }

lb_nat_backend()
{
	local act=$1 m=$2 n p
	shift 2
	for n in ${*:-$(seq 1 "$NLB")}; do
		for p in tcp udp; do
			# The actions are ringctl's own backend verbs.
			[[ $act != *" "* && " add drain activate del " == *" $act "* ]] ||
				die "lb_nat_backend: no action '$act'"
			lbn "$n" "$RINGCTL" backend "$act" "$VIP4:$VPORT" "$(be_addr "$m"):$VPORT" proto $p ||
				die "lb$n: backend $act be$m $p"
		done
	done
}

# ---- FLEET_LB=tunnel: ringsteer, forward tunnel (encap ipip | gue) ----
# Every LB has the same key and rings and encapsulates a new flow to the
# backend its ring picks, without conntrack; the backend answers the
# client directly. An LB keeps nothing another needs: a flow that ECMP
# moves to another LB meets the same ring there and reaches the same
# backend, where its socket is. FLEET_ENCAP picks ipip or gue (port 6080).
# The backends are prepared by the script the project ships for them
# (dist/ringsteer-backend). There is no conntrack entry to list a
# connection by, so each LB's packets are seen by an nft set at raw
# priority, before ringsteer's hook (-250): an element per client
# address:port, refreshed by its packets, gone 5 s after the last.
FLEET_ENCAP=${FLEET_ENCAP:-ipip}
BACKEND_SCRIPT=$RINGSTEER_SRC/dist/ringsteer-backend
lb_tunnel_need() { need_tools nft; load_module; modprobe ipip && modprobe fou || die "modprobe ipip fou"; }

# tunnel_services BE...: the tunnel fleet's services as a configuration
# file writes them (no key line), each BE a backend number, "M:draining"
# for a draining one.
tunnel_services()
{
	local p b
	for p in tcp udp; do
		echo "service $VIP4:$VPORT proto $p forward tunnel encap $FLEET_ENCAP"
		for b in "$@"; do
			echo "	backend $(be_addr "${b%%:*}"):$VPORT${b#"${b%%:*}"}"
		done
	done | sed 's/:draining$/ state draining/'
}

lb_tunnel_setup()
{
	local n=$1 m p
	lbn "$n" "$RINGCTL" key set "$KEY" || die "lb$n: ringctl key set"
	for p in tcp udp; do
		lbn "$n" "$RINGCTL" service add "$VIP4:$VPORT" proto $p forward tunnel encap "$FLEET_ENCAP" ||
			die "lb$n: service add $p forward tunnel encap $FLEET_ENCAP"
		for m in $(seq 1 "$NBE_RING"); do
			lbn "$n" "$RINGCTL" backend add "$VIP4:$VPORT" "$(be_addr "$m"):$VPORT" proto $p ||
				die "lb$n: backend add be$m $p"
		done
	done
	# The flow table is per CPU: as a NIC's RSS would, RPS keeps each
	# flow's packets on one CPU of the LB, whichever CPU rtr sent them from.
	lbn "$n" sh -c "printf %x $(((1 << $(nproc)) - 1)) >/sys/class/net/eth0/queues/rx-0/rps_cpus" ||
		die "lb$n: rps_cpus"
	lbn "$n" nft -f - <<-EOF
	table ip fleet {
		set seen {
			type ipv4_addr . inet_service
			flags dynamic,timeout
			timeout 5s
		}
		chain pre {
			type filter hook prerouting priority raw; policy accept;
			ip daddr $VIP4 tcp dport $VPORT update @seen { ip saddr . tcp sport }
		}
	}
	EOF
}

lb_tunnel_skew() { lb_nat_skew "$1"; }
lb_tunnel_unskew() { lb_nat_unskew "$1"; }
lb_tunnel_fingerprint() { lb_nat_fingerprint "$1"; }
lb_tunnel_clients()
{
	lbn "$1" nft -j list set ip fleet seen |
		"$PY" -c 'import json, sys
for o in json.load(sys.stdin)["nftables"]:
    for e in o.get("set", {}).get("elem", []):
        v = e["elem"]["val"]["concat"] if isinstance(e, dict) and "elem" in e else e["concat"]
        print("%s:%s" % (v[0], v[1]))'
}
lb_tunnel_keeps() { echo 1; }

be_tunnel_setup()
{
	local m=$1
	ben "$m" bash "$BACKEND_SCRIPT" up --state "$W/bst$m" "$FLEET_ENCAP" "$VIP4" >"$W/bup$m.log" ||
		die "be$m: ringsteer-backend up $FLEET_ENCAP: $(cat "$W/bup$m.log")"
}

lb_tunnel_backend() { lb_nat_backend "$@"; }
