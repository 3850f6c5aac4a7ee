# SPDX-License-Identifier: GPL-2.0
#
# Balance and disruption on real flows, for datapath.sh: BENCH_FLOWS
# distinct UDP flows through a contender, each flow's backend read from an
# nft set in the LB's postrouting (traffic.sh: recorder), before and after
# one change. The state of the LB (conntrack, IPVS connections) is emptied
# between runs, so the same flows are new flows again after the change.

case_id()
{
	local i
	for i in "${!CASES[@]}"; do
		[ "$(case_field "$i" 0)" != "$1" ] || { echo $((i + 1)); return; }
	done
	die "no contender $1"
}

# bal_run NAME KIND FILE: the flows through NAME, "SADDR:SPORT BACKEND"
# per line in FILE; then the LB forgets them.
bal_run()
{
	send_flows "$1" "$(case_id "$1")" "$FLOWS"
	sleep 0.2
	seen "$1" >"$3"
	lb_reset "$1" "$2"
}

# bal_report NAME NB FILE [EXACT_PEAK_MEAN]: per-backend counts (backends
# 1..NB in order), peak/mean and max/min.
bal_report()
{
	awk -v n="$1" -v nb="$2" -v exact="${4:--}" '
		{ split($2, a, "."); c[a[3] * 256 + a[4]]++; f++ }
		END {
			max = 0; min = -1; s = ""
			for (i = 1; i <= nb; i++) {
				v = c[i] + 0; s = s " " v
				if (v > max) max = v
				if (min < 0 || v < min) min = v
			}
			pm = f ? max / (f / nb) : 0
			mm = min > 0 ? max / min : "inf"
			printf "BENCH bal %s %d %d %.4f %s %s counts%s\n", n, nb, f, pm, mm, exact, s
		}' "$3"
}

# disr_report NAME CHANGE ADDR BEFORE AFTER EXACT IDEAL: of the flows seen
# in both runs, how many changed backend, how many of those involve ADDR
# (the changed backend) and how many moved between two others.
disr_report()
{
	join "$4" "$5" | awk -v n="$1" -v ch="$2" -v x="$3" -v exact="$6" -v ideal="$7" \
		-v before="$(wc -l <"$4")" -v after="$(wc -l <"$5")" '
		{ f++; if ($2 != $3) { m++; if ($2 == x || $3 == x) inv++; else col++ } }
		END {
			if (!f) f = 1e-300
			printf "BENCH disr %s %s %d %.6f %.6f %.6f %s %s lost %d\n", n, ch, f,
				m / f, inv / f, col / f, exact, ideal, before - f
		}'
}

# sim_moved VNODES ARGS...: the exact fraction of the hash space that moves
# (ringctl simulate, the kernel's ring code).
sim_field()
{
	local field=$1
	shift
	"$RINGCTL" simulate -j key "$KEY" "$@" | grep -o "\"$field\":[0-9.e+-]*" | head -n1 | cut -d: -f2
}

balance()
{
	local k n kind st b3 b9 base ex
	balance100
	b3=$(be 3)
	b9=$(be 9)
	base="backends 8 $(be 1):8080"
	for kind in "${BAL_KINDS[@]}"; do
		n=$kind
		recorder "$n" || die "nft recorder ($n)"
		lb_flush "$n" "$kind" udp
		lb_setup "$n" "$kind" udp 8
		lb_reset "$n" "$kind"
		bal_run "$n" "$kind" "$W/A"
		ex=-
		[[ $kind != rs* ]] || ex=$(sim_field peak_mean vnodes "${kind#rs}" $base)
		bal_report "$n" 8 "$W/A" "$ex"

		lb_change "$n" "$kind" udp join "$b9"
		bal_run "$n" "$kind" "$W/J"
		[[ $kind != rs* ]] || ex=$(sim_field moved vnodes "${kind#rs}" $base add "$b9:8080")
		disr_report "$n" join "$b9" "$W/A" "$W/J" "$ex" 0.111111

		lb_change "$n" "$kind" udp leave "$b3"
		bal_run "$n" "$kind" "$W/L"
		[[ $kind != rs* ]] || ex=$(sim_field moved vnodes "${kind#rs}" backends 9 "$(be 1):8080" remove "$b3:8080")
		disr_report "$n" leave "$b3" "$W/J" "$W/L" "$ex" 0.111111

		for ch in drain weight; do
			lb_flush "$n" "$kind" udp
			lb_setup "$n" "$kind" udp 8
			if [ $ch = drain ]; then
				lb_change "$n" "$kind" udp drain "$b3"
				[[ $kind != rs* ]] || ex=$(sim_field moved vnodes "${kind#rs}" $base drain "$b3:8080")
				ideal=0.125
			else
				lb_change "$n" "$kind" udp weight "$b3" 2
				[[ $kind != rs* ]] || ex=$(sim_field moved vnodes "${kind#rs}" $base weight "$b3:8080" 2)
				ideal=0.097222
			fi
			bal_run "$n" "$kind" "$W/C"
			disr_report "$n" "$ch" "$b3" "$W/A" "$W/C" "$ex" "$ideal"
		done

		for k in 16 100; do
			lb_flush "$n" "$kind" udp
			lb_setup "$n" "$kind" udp "$k"
			bal_run "$n" "$kind" "$W/B"
			[[ $kind != rs* ]] || ex=$(sim_field peak_mean vnodes "${kind#rs}" backends "$k" "$(be 1):8080")
			bal_report "$n" "$k" "$W/B" "$ex"
		done

		lb_flush "$n" "$kind" udp
		lb_setup "$n" "$kind" udp 8
		lbx "bx-$n" nft delete table ip rec
	done
}

# sim_place KIND: simulate's words for contender KIND's placement now (its
# state files), empty for a contender simulate does not model.
sim_place()
{
	case $1 in
	rs*) echo "vnodes ${1#rs}" ;;
	tunipip) echo "vnodes 256" ;;
	slots | slhalf | tunslots) slots_settings "$1" "$1" ;;
	esac
}

# sim_agree NAME PORT FILE SIMULATE_ARGS...: how many of the flows of
# FILE ("SADDR:SPORT BACKEND", as seen) the kernel sent elsewhere than
# ringctl simulate (the kernel's ring and slots code, offline) computes;
# prints "BENCH simdiff NAME FLOWS DIFFERING" and the first three.
sim_agree()
{
	local n=$1 port=$2 f=$3
	shift 3
	awk -v vip="$VIP:80" '{ print $1, vip, "udp" }' "$f" >"$W/sim.in"
	"$RINGCTL" simulate key "$KEY" "$@" flows "$W/sim.in" | awk '{ print $1, $4 }' >"$W/sim.out" ||
		die "simulate flows ($n)"
	paste -d' ' "$f" "$W/sim.out" | awk -v n="$n" -v p=":$port" '
		{ f++; if ($1 != $3 || $2 p != $4) { d++; if (d <= 3) ex = ex " " $1 "/" $2 "/" $4 } }
		END { printf "BENCH simdiff %s %d %d%s\n", n, f, d, ex }'
}

# Placement slots against the ring and IPVS mh at 100 backends, NAT and
# tunnel (BAL100_KINDS), on the flows of the rest of the phase; then a
# 101st backend joins. A tunnel's flow table would keep every flow seen
# where it was, so a tunnel service is rebuilt with the 101 instead: the
# same set, and the ring and the slots depend on nothing else.
balance100()
{
	local kind port sim ex b
	b=$(be 101)
	for kind in "${BAL100_KINDS[@]}"; do
		port=8080
		! tun_kind "$kind" || port=80
		recorder "$kind" || die "nft recorder ($kind)"
		lb_flush "$kind" "$kind" udp
		lb_setup "$kind" "$kind" udp 100
		lb_reset "$kind" "$kind"
		sim=$(sim_place "$kind")
		bal_run "$kind" "$kind" "$W/H"
		ex=-
		[ -z "$sim" ] || ex=$(sim_field peak_mean $sim backends 100 "$(be 1):$port")
		bal_report "$kind" 100 "$W/H" "$ex"
		[ -z "$sim" ] || sim_agree "$kind" "$port" "$W/H" $sim backends 100 "$(be 1):$port"

		if tun_kind "$kind"; then
			lb_flush "$kind" "$kind" udp
			lb_setup "$kind" "$kind" udp 101
		else
			lb_change "$kind" "$kind" udp join "$b"
		fi
		bal_run "$kind" "$kind" "$W/HJ"
		[ -z "$sim" ] || ex=$(sim_field moved $sim backends 100 "$(be 1):$port" add "$b:$port")
		disr_report "$kind" join100 "$b" "$W/H" "$W/HJ" "$ex" 0.009901

		lb_flush "$kind" "$kind" udp
		lb_setup "$kind" "$kind" udp 8
		lbx "bx-$kind" nft delete table ip rec
	done
}
