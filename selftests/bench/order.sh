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
#   BENCH order NAME FLOWS DIFFERING FRACTION FINGERPRINT_A FINGERPRINT_B lost L
# and for ringsteer the kernel's lookups of all the flows, none lost:
#   BENCH orderlk NAME FLOWS DIFFERING FINGERPRINT_A FINGERPRINT_B

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

# order_reverse NAME KIND: the service deleted, then made again from its
# configuration with the backends in reverse order (ringctl restore,
# ipvsadm-restore: one command each, where a hundred took minutes under
# emulation), then backend ORDER_AGAIN deleted and added again.
order_reverse()
{
	local n=$1 kind=$2
	tac "$(state "$n" udp)" >"$W/rev"
	lb_flush "$n" "$kind" udp
	mv "$W/rev" "$(state "$n" udp)"
	lb_setup_state "$n" "$kind" udp
	order_del "$n" "$kind" "$(be "$ORDER_AGAIN")"
	order_add "$n" "$kind" "$(be "$ORDER_AGAIN")"
}

# order_lookup NAME KIND FILE: the kernel's backend of every flow of
# $W/order.flows (ringctl lookup batch: the pick both hooks make), no
# traffic, so none is lost; nothing for IPVS.
order_lookup()
{
	case $2 in
	mh) : >"$3" ;;
	*) lbx "bx-$1" "$RINGCTL" lookup "$VIP:80" batch "$W/order.flows" proto udp >"$3" ||
		die "order: lookup batch ($1)" ;;
	esac
}

order()
{
	local kind fa fb saved=$FLOWS
	FLOWS=$ORDER_FLOWS
	# The flows pktgen sends (traffic.sh, pg_config flows), for lookups.
	awk -v n="$FLOWS" -v np="$([ "$FLOWS" -le 150000 ] && echo 3 || echo 7)" 'BEGIN {
		for (i = 0; i < n; i++) {
			a = 1 + i % 50000
			printf "10.1.%d.%d:%d\n", int(a / 256), a % 256, 40000 + i % np
		}
	}' >"$W/order.flows"
	for kind in "${ORDER_KINDS[@]}"; do
		has_case "$kind" || continue
		recorder "$kind" || die "nft recorder ($kind)"
		lb_flush "$kind" "$kind" udp
		lb_setup "$kind" "$kind" udp "$ORDER_NB"
		lb_reset "$kind" "$kind"
		fa=$(order_fp "$kind" "$kind")
		order_lookup "$kind" "$kind" "$W/LA"
		bal_run "$kind" "$kind" "$W/OA"

		order_reverse "$kind" "$kind"
		lb_reset "$kind" "$kind"
		fb=$(order_fp "$kind" "$kind")
		order_lookup "$kind" "$kind" "$W/LB"
		bal_run "$kind" "$kind" "$W/OB"
		[ "$kind" = mh ] || paste -d' ' "$W/LA" "$W/LB" | awk -v n="$kind" -v fa="$fa" -v fb="$fb" '
			{ f++; if ($1 != $3 || $2 != $4) d++ }
			END { printf "BENCH orderlk %s %d %d %s %s\n", n, f, d, fa, fb }'
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
