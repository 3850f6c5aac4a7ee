# SPDX-License-Identifier: GPL-2.0
#
# Traffic and counters for the datapath benchmark (datapath.sh): pktgen in
# the root namespace (its thread kpktgend_0 is bound to cpu0) sends UDP to
# the VIP through one contender's generator veth; the LB's forwarded
# packets are counted at its dummy0.

PG=/proc/net/pktgen

pgset()
{
	local f=$1
	shift
	echo "$*" >"$PG/$f" || die "pktgen $f: $*"
	# $(<file) reads without starting a process.
	[[ $(<"$PG/$f") == *"Result: OK"* ]] || die "pktgen $f: $*: $(grep Result "$PG/$f")"
}

# pg_config ID MODE COUNT: pktgen on gID for one of these traffic kinds:
#   new  every packet a new flow: random source address in 10.1/16 and
#        random source port
#   est  64 flows (ports 1000-1063 of one address), sent round robin
#   flows COUNT distinct flows at BAL_PPS packets/s, one packet each:
#        addresses 10.1.0.1 up (50000 of them) by ports 40000-40002, both
#        counting up, so the first 150000 packets are distinct flows;
#        for more than that, ports 40000-40006 (the periods must be
#        coprime: 50000 by 4 ports would be 50000 flows), 350000
# pktgen's udp_src_max is exclusive (its addresses' maximum is not): with
# 40002 the ports took two values, and 100000 packets were 50000 flows.
pg_config()
{
	local id=$1 mode=$2 count=$3 dev=g$1
	pgset kpktgend_0 rem_device_all
	pgset kpktgend_0 "add_device $dev"
	pgset "$dev" "count $count"
	pgset "$dev" "pkt_size 60"
	pgset "$dev" "dst $VIP"
	pgset "$dev" "dst_mac $(mac 9 1 "$id")"
	pgset "$dev" "udp_dst_min 80"
	pgset "$dev" "udp_dst_max 80"
	case $mode in
	new)
		pgset "$dev" "src_min 10.1.0.1"
		pgset "$dev" "src_max 10.1.255.254"
		pgset "$dev" "udp_src_min 1024"
		pgset "$dev" "udp_src_max 65535"
		pgset "$dev" "flag IPSRC_RND"
		pgset "$dev" "flag UDPSRC_RND"
		;;
	est)
		pgset "$dev" "src_min 10.1.0.1"
		pgset "$dev" "src_max 10.1.0.1"
		pgset "$dev" "udp_src_min 1000"
		pgset "$dev" "udp_src_max 1064"
		;;
	flows)
		pgset "$dev" "src_min 10.1.0.1"
		pgset "$dev" "src_max 10.1.195.80"
		pgset "$dev" "udp_src_min 40000"
		[ "$count" -le 350000 ] || die "pg_config: at most 350000 distinct flows"
		if [ "$count" -le 150000 ]; then
			pgset "$dev" "udp_src_max 40003"
		else
			pgset "$dev" "udp_src_max 40007"
		fi
		pgset "$dev" "ratep $BAL_PPS"
		;;
	esac
}

pg_start() { echo start >"$PG/pgctrl" & PG_RUN=$!; }

pg_stop()
{
	echo stop >"$PG/pgctrl"
	wait "$PG_RUN" 2>/dev/null || true
}

# fwd PID: packets the LB of namespace PID has sent out of dummy0.
fwd()
{
	local l
	while read -r l; do
		case $l in
		dummy0:*)
			set -- ${l#dummy0:}
			echo "${10}"
			return
			;;
		esac
	done <"/proc/$1/net/dev"
}

# offered ID: packets pktgen handed to gID, taken or dropped by the LB's
# backlog (a drop there means the LB's CPU could not keep up).
offered()
{
	local s=/sys/class/net/g$1/statistics
	echo "$(($(<"$s/tx_packets") + $(<"$s/tx_dropped")))"
}

# cpustat: "BUSY TOTAL" jiffies of cpu0 and cpu1, on one line.
cpustat()
{
	awk '$1 == "cpu0" || $1 == "cpu1" {
		t = 0; for (i = 2; i <= NF; i++) t += $i
		printf "%d %d ", t - $5 - $6, t
	}' /proc/stat
}

# busy BEFORE AFTER: percent busy of cpu0 and cpu1 between two cpustat.
busy()
{
	echo "$1 $2" | awk '{ printf "%.0f %.0f", 100 * ($5 - $1) / ($6 - $2 + 1e-9), 100 * ($7 - $3) / ($8 - $4 + 1e-9) }'
}

# rate NAME ID MODE: run MODE traffic (new or est) through contender NAME
# for a warm-up then BENCH_SECS seconds; prints "PPS OFFERED CPU0% CPU1%".
rate()
{
	local n=$1 id=$2 mode=$3 pid f0 f1 o0 o1 t0 t1 c0 c1
	pid=$(lb_pid "$n")
	pg_config "$id" "$mode" 0
	pg_spread "$n" "$id"
	pg_start
	sleep "$BENCH_WARMUP"
	c0=$(cpustat)
	t0=$EPOCHREALTIME f0=$(fwd "$pid") o0=$(offered "$id")
	sleep "$BENCH_SECS"
	t1=$EPOCHREALTIME f1=$(fwd "$pid") o1=$(offered "$id")
	c1=$(cpustat)
	pg_stop
	awk -v f="$((f1 - f0))" -v o="$((o1 - o0))" -v t0="$t0" -v t1="$t1" -v b="$(busy "$c0" "$c1")" \
		'BEGIN { printf "%.0f %.0f %s\n", f / (t1 - t0), o / (t1 - t0), b }'
}

# pg_spread NAME ID: for a plain-N or plaingw-N case (routing alone, no
# balancer), destinations at random over the N backend addresses, as a
# balancer of N backends sends them: what N destinations cost the kernel
# itself, the floor under every contender's scaling (on the link, one
# neighbour entry each; through the gateway, one for all).
pg_spread()
{
	[[ $1 == plain*-* ]] || return 0
	pgset "g$2" "dst_min $(be 1)"
	pgset "g$2" "dst_max $(be "${1##*-}")"
	pgset "g$2" "flag IPDST_RND"
}

# send_flows NAME ID COUNT: COUNT distinct flows (pg_config "flows")
# through contender NAME, waiting until they are all out.
send_flows()
{
	pg_config "$2" flows "$3"
	echo start >"$PG/pgctrl"
}

# recorder NAME [KIND]: an nft set in the LB's postrouting that notes, for every
# packet, source address, source port and (NATed) destination address.
# Plain filtering needs no conntrack, so it changes no contender's path.
# A tunnel contender's packets are ipip: the outer destination is the
# backend, the inner header's source address and port (raw payload after
# the outer header, so the set has integer keys) name the flow.
recorder()
{
	local key="ip saddr . udp sport . ip daddr" type="type ipv4_addr . inet_service . ipv4_addr"
	local match=
	if tun_kind "${2:-$1}"; then
		key="@th,96,32 . @th,160,16 . ip daddr"
		type="typeof $key"
		match="ip protocol 4"
	fi
	lbx "bx-$1" nft -f - <<-EOF
	table ip rec {
		set seen {
			$type
			size 1048576
			flags dynamic
		}
		chain post {
			type filter hook postrouting priority 300;
			ip daddr 10.2.0.0/16 $match update @seen { $key }
		}
	}
	EOF
}

# seen NAME: "SADDR:SPORT BACKEND" per flow recorded, sorted; empties the
# set. A tunnel's set lists the inner address and port in hex.
seen()
{
	lbx "bx-$1" nft list set ip rec seen |
		tr ',{}' '\n\n\n' | awk '
		function hex(s,  v, i) {
			s = tolower(substr(s, 3)); v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		$2 == "." && $4 == "." {
			a = $1; p = $3
			if (a ~ /^0x/) {
				v = hex(a)
				a = sprintf("%d.%d.%d.%d", int(v / 16777216), int(v / 65536) % 256,
					    int(v / 256) % 256, v % 256)
				p = hex(p)
			}
			print a ":" p, $5
		}' | sort
	lbx "bx-$1" nft flush set ip rec seen
}
