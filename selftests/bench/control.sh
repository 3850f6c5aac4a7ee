# SPDX-License-Identifier: GPL-2.0
#
# Control plane, profile and ring memory, for datapath.sh.

# ms CMD...: wall milliseconds of CMD (process start included).
ms()
{
	local t0 t1
	t0=$EPOCHREALTIME
	"$@" >/dev/null || die "failed: $*"
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) * 1000 }'
}

# cp_time WHAT TOOL ROUND CMD...: the "BENCH cp" line of one timed command.
cp_time()
{
	local t
	t=$(ms "${@:4}") || die "control: $2 $1 failed"
	echo "BENCH cp $1 $2 $3 $t"
}

# One backend added to a service of 1000 backends, and a restore of 100
# services of 100 backends each, by ringctl, ipvsadm and nft; /bin/true
# gives the cost of starting a process under this emulation.
control()
{
	local ns=bx-cp r s i a m cx=$W/cp
	mkdir -p "$cx"
	ip netns add "$ns"
	LB_NS+=("$ns")
	# IPVS refuses a real server whose address type it cannot tell, as in
	# a namespace without a local routing table (lo down).
	ip -n "$ns" link set lo up
	{
		echo "key $KEY"
		echo "service 10.0.0.200:80 proto udp"
		for i in $(seq 1 1000); do echo "backend $(be "$i"):8080"; done
	} >"$cx/rs1000"
	{
		echo "-A -u 10.0.0.200:80 -s mh"
		for i in $(seq 1 1000); do echo "-a -u 10.0.0.200:80 -r $(be "$i"):8080 -m -w 1"; done
	} >"$cx/ipvs1000"
	{
		echo "key $KEY"
		for s in $(seq 1 100); do
			echo "service 10.0.1.$s:80 proto udp"
			for i in $(seq 1 100); do echo "backend $(be $((s * 100 + i))):8080"; done
		done
	} >"$cx/rs100"
	{
		for s in $(seq 1 100); do
			echo "-A -u 10.0.1.$s:80 -s mh"
			for i in $(seq 1 100); do echo "-a -u 10.0.1.$s:80 -r $(be $((s * 100 + i))):8080 -m -w 1"; done
		done
	} >"$cx/ipvs100"
	{
		echo "table ip jh {"
		echo "chain pre { type nat hook prerouting priority dstnat;"
		for s in $(seq 1 100); do
			m=
			for i in $(seq 0 99); do m+="${m:+, }$i : $(be $((s * 100 + i + 1))) . 8080"; done
			echo "ip daddr 10.0.1.$s udp dport 80 dnat ip addr . port to jhash ip saddr . udp sport mod 100 seed $JSEED map { $m }"
		done
		echo "}"
		echo "}"
	} >"$cx/nft100"

	lbx "$ns" "$RINGCTL" restore "$cx/rs1000" || die "restore rs1000"
	lbx "$ns" ipvsadm-restore <"$cx/ipvs1000" || die "ipvsadm-restore ipvs1000"
	a=10.4.0.1:8080
	for r in $(seq 1 "$ROUNDS"); do
		cp_time add1000 ringctl "$r" lbx "$ns" "$RINGCTL" backend add 10.0.0.200:80 "$a" proto udp
		lbx "$ns" "$RINGCTL" backend del 10.0.0.200:80 "$a" proto udp >/dev/null
		cp_time add1000 ipvsadm "$r" lbx "$ns" ipvsadm -a -u 10.0.0.200:80 -r "$a" -m -w 1
		lbx "$ns" ipvsadm -d -u 10.0.0.200:80 -r "$a"
		cp_time add1000 exec "$r" lbx "$ns" true
	done
	lbx "$ns" "$RINGCTL" flush >/dev/null
	lbx "$ns" ipvsadm -C
	for r in $(seq 1 "$ROUNDS"); do
		cp_time restore100 ringctl "$r" lbx "$ns" "$RINGCTL" restore "$cx/rs100"
		lbx "$ns" "$RINGCTL" flush >/dev/null
		cp_time restore100 ipvsadm "$r" lbx "$ns" sh -c "ipvsadm-restore <$cx/ipvs100"
		lbx "$ns" ipvsadm -C
		cp_time restore100 nft "$r" lbx "$ns" nft -f "$cx/nft100"
		lbx "$ns" nft flush ruleset
	done
	ip netns del "$ns"
}

# prof_one NAME: perf on the LB's CPU while NAME takes new flows; the
# samples by where they fall (ringsteer, conntrack, nf_nat, IPVS,
# nf_tables, idle, the rest) and the top symbols.
prof_one()
{
	local n=$1 id kind
	id=$(case_id "$n")
	kind=$(case_field $((id - 1)) 1)
	lb_reset "$n" "$kind"
	pg_config "$id" new 0
	pg_spread "$n" "$id"
	pg_start
	sleep "$BENCH_WARMUP"
	perf record -q -e cpu-clock -C 1 -o "$W/perf.data" -- sleep "$BENCH_SECS" >/dev/null 2>"$W/perf.err" ||
		{ pg_stop; echo "BENCH prof $n failed $(head -c 200 "$W/perf.err" | tr '\n' ' ')"; return; }
	pg_stop
	lb_reset "$n" "$kind"
	perf report -i "$W/perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
		awk -v n="$n" -v ntop="${BENCH_PROF_TOP:-25}" '
		/^ *[0-9.]+%/ {
			p = $1 + 0; d = $2; s = $4
			# An out-of-tree module perf cannot find under /lib/modules
			# may show as [unknown]: kept apart, not counted as "other".
			# perf 6.1 may file module symbols under [kernel.vmlinux]:
			# the symbol names decide too (ringsteer functions start rs_ or ring_).
			if (d ~ /ringsteer/ || s ~ /^(rs|ring|ringsteer)_/) c = "ringsteer"
			else if (d ~ /unknown/) c = "unknown"
			else if (d ~ /ip_vs/ || s ~ /^_*ip_vs_/) c = "ipvs"
			else if (d ~ /nf_tables|nft_/ || s ~ /^nft_/) c = "nftables"
			else if (d ~ /nf_nat/ || s ~ /nf_nat|^nat_|nf_xfrm_me_harder/) c = "nf_nat"
			else if (d ~ /nf_conntrack/ || s ~ /conntrack|^nf_ct_|^__nf_ct|^ct_|^hash_conntrack|tuple/) c = "conntrack"
			else if (s ~ /idle|halt|mwait|cpuidle/) c = "idle"
			else c = "other"
			cat[c] += p
			if (top < ntop) { printf "BENCH profsym %s %.2f %s %s\n", n, p, d, s; top++ }
		}
		END {
			printf "BENCH prof %s", n
			for (c in cat) printf " %s %.2f", c, cat[c]
			printf "\n"
		}'
}

profile()
{
	local n
	command -v perf >/dev/null || { echo "BENCH prof none perf-missing"; return; }
	# The tunnel at 10 and 4000 backends: what a large ring costs; slots
	# too, on the link and routed (gw); and routing alone to as many
	# addresses, for what the kernel pays whoever sends to them.
	for n in rs256 fixed jhash mh mhct tunipip tungue mhipip tunipip-10 tunipip-4000 \
		slots-10 slots-4000 tunslots-10 tunslots-4000 slotsgw-10 slotsgw-4000 \
		tunslotsgw-10 tunslotsgw-4000 mh-10 mh-4000 mhgw-10 mhgw-4000 \
		mhipip-10 mhipip-4000 mhipipgw-10 mhipipgw-4000 plain-10 plain-4000; do
		# Only the contenders this run has (BENCH_CASES).
		! has_case "$n" || prof_one "$n"
	done
}

# Ring memory per service and the skew it buys (ringctl simulate: the
# kernel's ring code).
memory()
{
	local nb v out c
	for nb in 8 10 100 1000 4000; do
		for v in 256 "$DENSE"; do
			# A ring holds at most 1048576 points (ringctl refuses more).
			[ $((v * nb)) -le 1048576 ] || continue
			out=$("$RINGCTL" simulate -j key "$KEY" vnodes "$v" backends "$nb" "$(be 1):8080")
			echo "BENCH mem $nb $v $(grep -o '"points":[0-9]*' <<<"$out" | cut -d: -f2)" \
				"$(grep -o '"bytes":[0-9]*' <<<"$out" | cut -d: -f2)" \
				"$(grep -o '"peak_mean":[0-9.]*' <<<"$out" | head -n1 | cut -d: -f2)"
		done
	done
	# Placement slots, the slot space full and half held: bytes (table
	# and ring) and probes a lookup on a million sampled flows:
	# "BENCH slmem BACKENDS CAPACITY BYTES PROBES_MEAN PROBES_MAX".
	for c in 16 128 1024 4096; do
		for nb in "$c" $((c / 2)); do
			out=$("$RINGCTL" simulate -j key "$KEY" placement slots capacity "$c" \
				backends "$nb" "$(be 1):8080")
			echo "BENCH slmem $nb $c $(sim_json "$out" bytes) $(sim_json "$out" probes_mean)" \
				"$(sim_json "$out" probes_max)"
		done
	done
}

# sim_json JSON FIELD: the first number named FIELD.
sim_json() { grep -o "\"$2\":[0-9.e+-]*" <<<"$1" | head -n1 | cut -d: -f2; }
