# SPDX-License-Identifier: GPL-2.0
#
# Load balancers for the datapath benchmark (datapath.sh): one network
# namespace per contender, each with the same links and addresses, so that
# rounds can alternate between contenders without reconfiguring anything.
#
#   root namespace            LB namespace "bx-NAME"             bx-NAME-c / -s
#  +----------------+       +------------------------------+
#  | pktgen (cpu0)  |       | in  10.9.0.1   (RPS: cpu1)   |
#  | gN 10.9.0.2    +-------+ VIP 10.0.0.100 on lo         |
#  +----------------+ veth  | dummy0: 10.2.0.0/16, the UDP |
#                           |  backends (frames freed at   |
#                           |  xmit, counted in tx_packets)|    +-----------+
#                           | tc  10.5.0.1 (RPS: cpu1)     +----+ TCP client|
#                           | ts  10.6.0.1 (RPS: cpu1)     +--+ +-----------+
#                           +------------------------------+  | +-----------+
#                                                             +-+ TCP server|
#                                                               | 10.3.0.1-8|
#                                                               +-----------+
#
# UDP service VIP:80 -> 10.2.0.1.. :8080, TCP service VIP:80 -> 10.3.0.1-8:8080.
# Everything the LB does runs in softirq on cpu1 (RPS on its receiving
# veths); the generator, the TCP client and server run on cpu0.
#
# Contender kinds: plain (routing only: no NAT, no conntrack), fixed (nft
# "dnat to" one backend), jhash (nft "dnat to jhash ... mod N map"), rsV
# (ringsteer, V vnodes), mh, mhct (mh with conntrack=1), mhport (mh-port),
# sh (IPVS source hashing); and the forwarding without NAT of issue 18:
# tunipip, tungue (ringsteer forward tunnel, 256 vnodes, flow table on),
# tunnoft (tunipip with no flow table), tunct (tunipip in a namespace where
# other rules use conntrack), mhipip, mhgue (IPVS mh, -i --tun-type). A
# tunnel's outer packet goes to the backend's address like a NATed one, so
# dummy0 counts both; tunnel backends have the VIP's port (80), which DSR
# cannot change. Placement slots (issue 28): slots (NAT) and tunslots
# (tunnel ipip), a slot space of the smallest power of two above the
# backends (room for one to join), and slhalf, NAT with twice that space
# (half of it held); backend 10.2.X.Y holds slot 256 * X + Y - 1 whatever
# the order it is added in, as an operator's saved configuration would.
# Routed backends: slotsgw, tunslotsgw, rs256gw, tunipipgw, mhgw and
# mhipipgw are slots, tunslots, rs256, tunipip, mh and mhipip with the
# backends' /16 reached through one gateway (10.8.0.2 on dummy0) instead
# of on the link, as a DSR fleet's backends sit behind a router: one
# neighbour entry and one cached route for all of them, where on the
# link each backend address has its own.
# Scaling cases plain-N and plaingw-N route the generator's packets to N
# backend addresses at random, with no balancer (traffic.sh, pg_spread):
# the kernel's own cost of N destinations, on the link and routed.

VIP=10.0.0.100
KEY=000102030405060708090a0b0c0d0e0f
JSEED=0x5eed
LB_NS=()
LB_PIDS=()

lbx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# be ADDR_INDEX [PROTO]: the address of backend I (1-based), UDP or TCP.
be()
{
	local i=$1
	if [ "${2:-udp}" = tcp ]; then
		echo "10.3.0.$i"
	else
		echo "10.2.$(((i) / 256)).$(((i) % 256))"
	fi
}

mac() { printf '02:00:00:%02x:%02x:%02x' "$1" "$2" "$3"; }

# rps NS IF MASK: receive processing of IF on the CPUs of MASK.
rps()
{
	lbx "$1" sh -c "echo $3 >/sys/class/net/$2/queues/rx-0/rps_cpus"
}

# lb_topo NAME ID: the drawing above for contender NAME; ID (1..) numbers
# its generator veth gID in the root namespace. Commands go to "ip -b" in
# batches: under emulation each process start costs tens of milliseconds.
lb_topo()
{
	local n=$1 id=$2 ns=bx-$1 i lb=$W/ip.lb cl=$W/ip.c sv=$W/ip.s
	ip netns add "$ns"
	ip netns add "$ns-c"
	ip netns add "$ns-s"
	LB_NS+=("$ns")
	ip -b - <<-EOF || die "links of $ns"
	link add g$id address $(mac 9 2 "$id") type veth peer name in netns $ns address $(mac 9 1 "$id")
	addr add 10.9.$id.2/24 dev g$id
	link set g$id up
	link add tc netns $ns address $(mac 5 1 1) type veth peer name eth0 netns $ns-c address $(mac 5 2 2)
	link add ts netns $ns address $(mac 6 1 1) type veth peer name eth0 netns $ns-s address $(mac 6 2 2)
	EOF
	cat >"$lb" <<-EOF
	link set lo up
	addr add 10.9.0.1/24 dev in
	link set in up
	route add 10.1.0.0/16 via 10.9.0.2 dev in onlink
	neigh replace 10.9.0.2 lladdr $(mac 9 2 "$id") dev in nud permanent
	link add dummy0 type dummy
	link set dummy0 up
	route add 10.2.0.0/16 dev dummy0
	addr add 10.5.0.1/24 dev tc
	link set tc up
	neigh replace 10.5.0.2 lladdr $(mac 5 2 2) dev tc nud permanent
	addr add 10.6.0.1/24 dev ts
	link set ts up
	neigh replace 10.6.0.2 lladdr $(mac 6 2 2) dev ts nud permanent
	route add 10.3.0.0/24 via 10.6.0.2
	EOF
	if [ "$n" = plain ]; then
		# No VIP: the "VIP" is routed like any backend address.
		echo "route add $VIP/32 dev dummy0" >>"$lb"
	else
		echo "addr add $VIP/32 dev lo" >>"$lb"
	fi
	cat >"$cl" <<-EOF
	link set lo up
	addr add 10.5.0.2/24 dev eth0
	link set eth0 up
	neigh replace 10.5.0.1 lladdr $(mac 5 1 1) dev eth0 nud permanent
	route add default via 10.5.0.1
	EOF
	cat >"$sv" <<-EOF
	link set lo up
	addr add 10.6.0.2/24 dev eth0
	link set eth0 up
	neigh replace 10.6.0.1 lladdr $(mac 6 1 1) dev eth0 nud permanent
	route add default via 10.6.0.1
	EOF
	for i in $(seq 1 8); do
		echo "addr add $(be "$i" tcp)/32 dev eth0" >>"$sv"
	done
	ip -n "$ns" -b "$lb" && ip -n "$ns-c" -b "$cl" && ip -n "$ns-s" -b "$sv" || die "addresses of $ns"
	# Every receive queue's RPS in one process per namespace: the LB's on
	# cpu1, the TCP client's and server's on cpu0.
	lbx "$ns" sh -c 'sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.in.rp_filter=0 &&
		for d in in tc ts; do echo 2 >/sys/class/net/$d/queues/rx-0/rps_cpus; done' ||
		die "sysctl and RPS of $ns"
	rps "$ns-c" eth0 1
	rps "$ns-s" eth0 1
	# A process that lives in the namespace, so its counters can be read
	# through /proc/PID/net without forking into it.
	ip netns exec "$ns" sleep infinity &
	LB_PIDS+=($!)
	eval "LB_PID_${n//-/_}=$!"
}

lb_cleanup()
{
	local pid ns
	for pid in "${LB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for ns in "${LB_NS[@]}"; do
		ip netns del "$ns-c" 2>/dev/null
		ip netns del "$ns-s" 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	true
}

# lb_pid NAME: the pid of a process in contender NAME's LB namespace.
lb_pid() { local v=LB_PID_${1//-/_}; echo "${!v}"; }

# ---- configuration -------------------------------------------------------
# Every contender keeps its backend set in a state file, "ADDR WEIGHT" per
# line in insertion order, so the nft map can be written whole again.

state() { echo "$W/state.$1.$2"; }

# lb_setup NAME KIND PROTO N: service VIP:80/PROTO with backends 1..N.
lb_setup()
{
	local n=$1 kind=$2 proto=$3 nb=$4 i st
	st=$(state "$n" "$proto")
	: >"$st"
	for i in $(seq 1 "$nb"); do
		echo "$(be "$i" "$proto") 1" >>"$st"
	done
	lb_setup_state "$n" "$kind" "$proto"
}

# routed KIND: true for a contender whose backends sit behind a gateway.
routed() { [[ $1 == *gw ]]; }

# lb_setup_state NAME KIND PROTO: the service as its state file says, in
# the file's order.
lb_setup_state()
{
	local n=$1 kind=$2 proto=$3 ns=bx-$1 st
	st=$(state "$n" "$proto")
	if routed "$kind"; then
		ip -n "$ns" route replace 10.2.0.0/16 via 10.8.0.2 dev dummy0 onlink ||
			die "gateway route of $ns"
		kind=${kind%gw}
	fi
	case $kind in
	plain) ;;
	fixed)
		lbx "$ns" nft -f - <<-EOF
		table ip fx_$proto {
			chain pre {
				type nat hook prerouting priority dstnat;
				ip daddr $VIP $proto dport 80 dnat to $(be 1 "$proto"):8080
			}
		}
		EOF
		;;
	jhash) jhash_write "$ns" "$proto" "$st" ;;
	rs*) rs_restore "$n" "${kind#rs}" ;;
	slots | slhalf) rs_restore "$n" "$(slots_settings "$kind" "$n")" ;;
	tun*) tun_restore "$n" "$kind" ;;
	mh*) ipvs_restore "$n" "$kind" ;;
	sh) ipvs_restore "$n" "$kind" ;;
	*) die "unknown contender kind $kind" ;;
	esac
}

# tun_kind KIND: true for a contender that forwards by encapsulation.
tun_kind() { local k=${1%gw}; [[ $k == tun* || $k == mhipip || $k == mhgue ]]; }

# lb_flush NAME KIND PROTO: remove the service again.
lb_flush()
{
	local ns=bx-$1 kind=${2%gw} proto=$3
	rm -f "$(state "$1" "$proto")"
	case $kind in
	fixed) lbx "$ns" nft delete table ip "fx_$proto" ;;
	jhash) lbx "$ns" nft delete table ip "jh_$proto" ;;
	rs* | sl* | tun*) lbx "$ns" "$RINGCTL" service del "$VIP:80" proto "$proto" >/dev/null ;;
	mh* | sh) lbx "$ns" ipvsadm -D "$(ipvs_flag "$proto")" "$VIP:80" ;;
	esac
}

jhash_write()
{
	local ns=$1 proto=$2 st=$3 map m=0 a w k
	map=
	while read -r a w; do
		for ((k = 0; k < w; k++)); do
			map+="${map:+, }$m : $a . 8080"
			m=$((m + 1))
		done
	done <"$st"
	lbx "$ns" nft -f - <<-EOF
	table ip jh_$proto {
		chain pre { type nat hook prerouting priority dstnat; }
	}
	flush chain ip jh_$proto pre
	add rule ip jh_$proto pre ip daddr $VIP $proto dport 80 dnat ip addr . port to jhash ip saddr . $proto sport mod $m seed $JSEED map { $map }
	EOF
}

# rs_conf NAME PORT SETTINGS...: $W/rs.conf for "ringctl restore", which
# replaces the whole configuration, so it is given every service of the
# contender, each with SETTINGS, its backends on PORT (and, placement
# slots, each the slot of its address).
rs_conf()
{
	local n=$1 port=$2 proto a w st sl
	shift 2
	{
		echo "key $KEY"
		for proto in udp tcp; do
			st=$(state "$n" "$proto")
			[ -e "$st" ] || continue
			echo "service $VIP:80 proto $proto $*"
			while read -r a w; do
				sl=
				[[ " $* " != *" placement slots "* ]] || sl=" slots $(slot_of "$a" "$w")"
				echo "backend $a:$port weight $w$sl"
			done <"$st"
		done
	} >"$W/rs.conf"
}

# slot_of ADDR WEIGHT: the slot backend ADDR holds (weight 1 only).
slot_of()
{
	local o
	[ "$2" = 1 ] || die "slot_of $1: weight $2, the bench's slots backends have weight 1"
	IFS=. read -ra o <<<"$1"
	echo $((o[2] * 256 + o[3] - 1))
}

# slots_settings KIND NAME: the placement of slots contender NAME: the
# smallest power of two above its largest service's backends (a join
# fits), twice that for slhalf.
slots_settings()
{
	local c=2 nb
	nb=$(awk '{ c[FILENAME]++ } END { m = 0; for (f in c) if (c[f] > m) m = c[f]; print m }' "$W"/state."$2".*)
	while [ "$c" -le "$nb" ]; do
		c=$((c * 2))
	done
	[ "$1" != slhalf ] || c=$((c * 2))
	echo "placement slots capacity $c"
}

# rs_restore NAME VNODES|PLACEMENT: a scaling case's (NAME KIND-N, one
# service) also prints what the kernel kept for it, charged to the
# restore: "BENCH svcmem NAME BACKENDS BYTES".
rs_restore()
{
	case $2 in
	placement*) rs_conf "$1" 8080 $2 ;;
	*) rs_conf "$1" 8080 vnodes "$2" ;;
	esac
	"$RINGCTL" version >/dev/null
	charged "$W/charged" ip netns exec "bx-$1" "$RINGCTL" restore "$W/rs.conf" >/dev/null ||
		die "ringctl restore ($1)"
	[[ $1 != *-* ]] || echo "BENCH svcmem $1 $(wc -l <"$(state "$1" udp)") $(<"$W/charged")"
}

# tun_restore NAME KIND: a forward tunnel service of 256 vnodes (tunslots:
# placement slots, as slots_settings gives for its backends). The flow
# table is taken when the namespace's first tunnel service is added, so
# tunnoft's is made with flow_table_entries at 0. tunct's namespace has a
# stateful nft rule: conntrack is on there for everything the tunnel hook
# (before conntrack) does not steal.
tun_restore()
{
	local n=$1 kind=$2 encap=ipip ft=/sys/module/ringsteer/parameters/flow_table_entries
	local param entries place="vnodes 256"
	[ "$kind" != tungue ] || encap="gue port 6080"
	[ "$kind" != tunslots ] || place=$(slots_settings "$kind" "$n")
	rs_conf "$n" 80 $place forward tunnel encap "$encap"
	if [ "$kind" = tunct ]; then
		lbx "bx-$n" nft -f - <<-EOF || die "nft conntrack rules ($n)"
		table inet ctuse {
			chain pre {
				type filter hook prerouting priority 0;
				ct state new counter
			}
		}
		EOF
	fi
	param=$(<"$ft")
	[ "$kind" != tunnoft ] || echo 0 >"$ft"
	# ringctl's own pages (binary, libraries, read over 9p) would be
	# charged to the first cgroup that reads them.
	"$RINGCTL" version >/dev/null
	charged "$W/charged" ip netns exec "bx-$n" "$RINGCTL" restore "$W/rs.conf" >/dev/null ||
		die "ringctl restore ($n)"
	echo "$param" >"$ft"
	# The first service of a tunipip namespace takes its flow table, one
	# per possible CPU: what it costs in all (with the service's ring and
	# backends), against 48 bytes an entry. The entries are the kernel's
	# (the parameter, rounded up to fill the block). Once per contender:
	# the balance phase restores tunipip again.
	[ "$kind" != tunipip ] || [[ " ${FTMEM_DONE:-} " == *" $n "* ]] || {
		FTMEM_DONE+=" $n"
		entries=$(ip netns exec "bx-$n" "$RINGCTL" show -j | jq .flow_table_entries)
		echo "BENCH ftmem $n $(wc -l <"$(state "$n" udp)") $entries $(<"$W/charged")" \
			"$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible) $((48 * entries))"
	}
}

# charged FILE CMD...: run CMD (a program, not a function) in a memory cgroup of its own; FILE gets the
# bytes still charged to it after CMD (what the kernel kept: rings, the
# flow table), 0 where there is no memory controller.
charged()
{
	local out=$1 cg=/sys/fs/cgroup/bench-charged rc
	shift
	echo 0 >"$out"
	if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		"$@"
		return
	fi
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	rmdir "$cg" 2>/dev/null
	mkdir "$cg" || { "$@"; return; }
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
	rc=$?
	cat "$cg/memory.current" >"$out"
	rmdir "$cg" 2>/dev/null
	return $rc
}

ipvs_flag() { if [ "$1" = tcp ]; then echo -t; else echo -u; fi; }

# ipvs_restore NAME KIND: ipvsadm-restore starts from an empty table too.
ipvs_restore()
{
	local n=$1 kind=$2 ns=bx-$1 f a w sched proto st fwd=-m port=8080
	case $kind in
	mh | mhct) sched="-s mh" ;;
	mhport) sched="-s mh -b mh-port" ;;
	sh) sched="-s sh" ;;
	mhipip) sched="-s mh" fwd="-i --tun-type ipip" port=80 ;;
	mhgue) sched="-s mh" fwd="-i --tun-type gue --tun-port 6080" port=80 ;;
	esac
	[ "$kind" != mhct ] || lbx "$ns" sysctl -qw net.ipv4.vs.conntrack=1
	# No rate estimator kthread per namespace: it is background work that
	# would land in other contenders' rounds (where the sysctl exists).
	lbx "$ns" sysctl -qw net.ipv4.vs.run_estimation=0 2>/dev/null
	# UDP "connections" of IPVS expire one second after their last packet,
	# so that the state of one round is gone before the next.
	lbx "$ns" ipvsadm --set 0 0 1
	for proto in udp tcp; do
		st=$(state "$n" "$proto")
		[ -e "$st" ] || continue
		f=$(ipvs_flag "$proto")
		echo "-A $f $VIP:80 $sched"
		while read -r a w; do
			echo "-a $f $VIP:80 -r $a:$port $fwd -w $w"
		done <"$st"
	done | lbx "$ns" ipvsadm-restore || die "ipvsadm-restore ($ns)"
}

# lb_change NAME KIND PROTO OP ADDR [WEIGHT]: OP is join, leave, drain or
# weight, done the way an operator of that balancer would do it.
lb_change()
{
	local n=$1 kind=$2 proto=$3 op=$4 a=$5 w=${6:-} ns=bx-$1 st f
	st=$(state "$n" "$proto")
	case $op in
	join) echo "$a 1" >>"$st" ;;
	leave) sed -i "/^$a /d" "$st" ;;
	drain) sed -i "s/^$a .*/$a 0/" "$st" ;;
	weight) sed -i "s/^$a .*/$a $w/" "$st" ;;
	esac
	case $kind in
	jhash) jhash_write "$ns" "$proto" "$st" ;;
	rs* | slots | slhalf)
		case $op in
		join) lbx "$ns" "$RINGCTL" backend add "$VIP:80" "$a:8080" proto "$proto" >/dev/null ;;
		leave) lbx "$ns" "$RINGCTL" backend del "$VIP:80" "$a:8080" proto "$proto" >/dev/null ;;
		drain) lbx "$ns" "$RINGCTL" backend drain "$VIP:80" "$a:8080" proto "$proto" ;;
		weight) lbx "$ns" "$RINGCTL" backend set "$VIP:80" "$a:8080" proto "$proto" weight "$w" ;;
		esac
		;;
	tun* | mhipip | mhgue)
		# A tunnel's flow table would keep the flows seen before the
		# change where they were: balance.sh rebuilds the service instead.
		die "lb_change: not for tunnel contender $n"
		;;
	mh | mhct | mhport | sh)
		f=$(ipvs_flag "$proto")
		case $op in
		join) lbx "$ns" ipvsadm -a "$f" "$VIP:80" -r "$a:8080" -m -w 1 ;;
		leave) lbx "$ns" ipvsadm -d "$f" "$VIP:80" -r "$a:8080" ;;
		drain) lbx "$ns" ipvsadm -e "$f" "$VIP:80" -r "$a:8080" -m -w 0 ;;
		weight) lbx "$ns" ipvsadm -e "$f" "$VIP:80" -r "$a:8080" -m -w "$w" ;;
		esac
		;;
	esac || die "$op $a on $n ($kind) failed"
}

# lb_reset NAME KIND [nowait]: forget every flow, so the next packets are
# new flows; with nowait IPVS's entries are left to expire on their own
# (TCP ones linger 10 s in CLOSE, and new connections do not collide).
lb_reset()
{
	local ns=bx-$1 kind=${2%gw} t
	case $kind${3:+-$3} in
	plain*) ;;
	mh-nowait | mhport-nowait | sh-nowait | mhipip-nowait | mhgue-nowait) ;;
	mhct-nowait) lbx "$ns" conntrack -F >/dev/null 2>&1 ;;
	mh | mhport | sh | mhipip | mhgue)
		# Wait for IPVS's one-second UDP entries (and TCP ones) to go.
		for t in $(seq 1 200); do
			[ -z "$(lbx "$ns" head -n 2 /proc/net/ip_vs_conn | sed 1d)" ] && return 0
			sleep 0.2
		done
		echo "warning: IPVS connections of $1 did not expire" >&2
		;;
	mhct)
		lbx "$ns" conntrack -F >/dev/null 2>&1
		lb_reset "$1" mh
		;;
	*) lbx "$ns" conntrack -F >/dev/null 2>&1 ;;
	esac
	return 0
}
