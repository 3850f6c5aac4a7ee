# SPDX-License-Identifier: GPL-2.0
#
# Order and history, for datapath.sh: two load balancers with the same
# 100 backends, one given them in order, the other in reverse order with
# one of them deleted and added again, applied one after the other in a
# contender's namespace; ORDER_FLOWS distinct UDP flows through each
# (recorded as balance.sh records them). ringsteer's placements are a
# function of the set (and, placement slots, of each backend's slot, part
# of the configuration): every flow must go to the same backend and the
# fingerprints must agree. IPVS mh fills its table in the order the
# destinations were added: the fraction of flows that differ is printed.
# One line per contender:
#   BENCH order NAME FLOWS DIFFERING FRACTION FINGERPRINT_A FINGERPRINT_B

ORDER_NB=100
ORDER_AGAIN=50

# order_add NAME KIND ADDR: one backend, as an operator adds it (slots:
# the backend's slot, as its saved configuration gives it).
order_add()
{
	local ns=bx-$1 kind=$2 a=$3
	case $kind in
	rs*) lbx "$ns" "$RINGCTL" backend add "$VIP:80" "$a:8080" proto udp ;;
	slots) lbx "$ns" "$RINGCTL" backend add "$VIP:80" "$a:8080" proto udp slots "$(slot_of "$a" 1)" ;;
	mh) lbx "$ns" ipvsadm -a -u "$VIP:80" -r "$a:8080" -m -w 1 ;;
	*) die "order_add: no contender kind $kind" ;;
	esac >/dev/null || die "order: add $a to $1 failed"
}

order_del()
{
	local ns=bx-$1 kind=$2 a=$3
	case $kind in
	rs* | slots) lbx "$ns" "$RINGCTL" backend del "$VIP:80" "$a:8080" proto udp ;;
	mh) lbx "$ns" ipvsadm -d -u "$VIP:80" -r "$a:8080" ;;
	esac >/dev/null || die "order: delete $a from $1 failed"
}

# order_fp NAME KIND: the UDP service's fingerprint, "-" for IPVS.
order_fp()
{
	case $2 in
	mh) echo - ;;
	*) lbx "bx-$1" "$RINGCTL" fingerprint | awk '$2 == "udp" { print $3 }' ;;
	esac
}

# order_reverse NAME KIND: the service again, empty, then backends
# ORDER_NB down to 1, then backend ORDER_AGAIN deleted and added again.
order_reverse()
{
	local n=$1 kind=$2 i place
	# Before lb_flush removes the state file it reads.
	[ "$kind" != slots ] || place=$(slots_settings "$kind" "$n")
	lb_flush "$n" "$kind" udp
	case $kind in
	rs*) lbx "bx-$n" "$RINGCTL" service add "$VIP:80" proto udp vnodes "${kind#rs}" ;;
	slots) lbx "bx-$n" "$RINGCTL" service add "$VIP:80" proto udp $place ;;
	mh) lbx "bx-$n" ipvsadm -A -u "$VIP:80" -s mh ;;
	esac >/dev/null || die "order: service add ($n)"
	for i in $(seq "$ORDER_NB" -1 1); do
		order_add "$n" "$kind" "$(be "$i")"
	done
	order_del "$n" "$kind" "$(be "$ORDER_AGAIN")"
	order_add "$n" "$kind" "$(be "$ORDER_AGAIN")"
}

order()
{
	local kind fa fb saved=$FLOWS
	FLOWS=$ORDER_FLOWS
	for kind in "${ORDER_KINDS[@]}"; do
		has_case "$kind" || continue
		recorder "$kind" || die "nft recorder ($kind)"
		lb_flush "$kind" "$kind" udp
		lb_setup "$kind" "$kind" udp "$ORDER_NB"
		lb_reset "$kind" "$kind"
		fa=$(order_fp "$kind" "$kind")
		bal_run "$kind" "$kind" "$W/OA"

		order_reverse "$kind" "$kind"
		lb_reset "$kind" "$kind"
		fb=$(order_fp "$kind" "$kind")
		bal_run "$kind" "$kind" "$W/OB"
		join "$W/OA" "$W/OB" | awk -v n="$kind" -v fa="$fa" -v fb="$fb" \
			-v a="$(wc -l <"$W/OA")" -v b="$(wc -l <"$W/OB")" '
			{ f++; if ($2 != $3) d++ }
			END { printf "BENCH order %s %d %d %.6f %s %s lost %d\n", n, f, d, d / (f ? f : 1), fa, fb, a + b - 2 * f }'

		lb_flush "$kind" "$kind" udp
		lb_setup "$kind" "$kind" udp 8
		lbx "bx-$kind" nft delete table ip rec
	done
	FLOWS=$saved
}
