// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path: a NAT lookup hook, called by nf_nat for the first
 * packet of a connection whose destination NAT is not set up yet. For a
 * flow to a service it picks the owner on the ring and sets up DNAT to it
 * with nf_nat_setup_info(); every later packet of the flow follows its
 * conntrack entry and never comes here, so ring changes do not move
 * established flows.
 *
 * Runs under rcu_read_lock() in softirq or process context: no locks, no
 * allocation, no sleeping.
 */

#include <linux/module.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_labels.h>
#include <net/netfilter/nf_nat.h>

#include "nat.h"
#include "steer.h"
#include "tally.h"

/*
 * nf_nat calls the lookup hooks of a family in priority order and stops
 * at the first that sets up DNAT; at equal priority, registration order
 * decides. iptables and nftables "dstnat" chains sit at -100, so by
 * default ringsteer runs just before them: a VIP configured as a service
 * is steered by ringsteer whatever NAT rules match it, and whichever was
 * loaded first.
 */
static int hook_priority = NF_IP_PRI_NAT_DST - 1;
module_param(hook_priority, int, 0444);
MODULE_PARM_DESC(hook_priority,
		 "netfilter priority of the NAT lookup hooks, -199..99 (default -101: before iptables/nftables dstnat chains at -100)");

#if !IS_ENABLED(CONFIG_NF_CONNTRACK_LABELS)
#error "ringsteer marks the entries it steers with a connlabel: CONFIG_NF_CONNTRACK_LABELS"
#endif

/*
 * The entries ringsteer steers carry this connlabel bit, and every walk
 * (delete, count, kept flows, rmmod) matches on it: an nft or iptables
 * "dnat" for the same VIP that runs first (hook_priority -99) sets up
 * entries that look the same by address and IPS_DST_NAT, and they are not
 * ringsteer's to delete or count. A label rather than the conntrack mark:
 * the mark is the ruleset's (connmark, routing), while a label bit can be
 * set aside, and holding labels (nf_connlabels_get()) is what makes
 * conntrack give new entries room for them.
 */
static unsigned int conntrack_label = XT_CONNLABEL_MAXBIT;
module_param(conntrack_label, uint, 0444);
MODULE_PARM_DESC(conntrack_label,
		 "connlabel bit, 0..127, that marks the conntrack entries ringsteer steers; no ruleset may use it (default 127)");

bool rs_ct_steered(const struct nf_conn *ct)
{
	const struct nf_conn_labels *labels = nf_ct_labels_find(ct);

	return labels && test_bit(conntrack_label, labels->bits);
}

static void tuple_to_flow(const struct nf_conntrack_tuple *t, u8 family,
			  struct rs_flow *flow)
{
	rs_flow_init(flow, family, t->dst.protonum, &t->src.u3, t->src.u.all,
		     &t->dst.u3, t->dst.u.all);
}

/*
 * A dropped new flow must look the same to every client: silence, then a
 * timeout. NF_DROP in LOCAL_OUT would instead fail a local sender's
 * connect() or sendmsg() at once with EPERM. Freed with the reason
 * nf_hook_slow() gives NF_DROP, so drop monitors see the same either way.
 */
static unsigned int drop_silently(struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	if (state->hook != NF_INET_LOCAL_OUT)
		return NF_DROP;
	kfree_skb_reason(skb, SKB_DROP_REASON_NETFILTER_DROP);
	return NF_STOLEN;
}

static unsigned int dnat_to(struct nf_conn *ct, const struct rs_backend *b,
			    u8 family)
{
	struct nf_nat_range2 range = {
		.flags = NF_NAT_RANGE_MAP_IPS | NF_NAT_RANGE_PROTO_SPECIFIED,
	};

	memcpy(&range.min_addr, b->member.addr, rs_addr_len(family));
	range.max_addr = range.min_addr;
	range.min_proto.all = b->member.port;
	range.max_proto.all = b->member.port;
	return nf_nat_setup_info(ct, &range, NF_NAT_MANIP_DST);
}

/*
 * The NAT service a new TCP or UDP entry @ct is for, and the snapshot it
 * is steered by; NULL if none.
 */
static struct rs_service *nat_service(const struct rs_services *services,
				      const struct nf_conn *ct, u8 family,
				      const struct rs_steer **steer)
{
	const struct nf_conntrack_tuple *t = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	struct rs_service *svc;

	if (t->dst.protonum != IPPROTO_TCP && t->dst.protonum != IPPROTO_UDP)
		return NULL;
	svc = rs_services_find_rcu(services, family, &t->dst.u3, t->dst.u.all,
				   t->dst.protonum);
	if (!svc)
		return NULL;
	/*
	 * The tunnel hook's (tunnel.c), which takes its packets before
	 * conntrack: what reaches here is a local client's, which tunnel
	 * mode leaves to the host's own routing.
	 */
	*steer = rcu_dereference(svc->steer);
	return rs_tunnel(&(*steer)->fwd) ? NULL : svc;
}

/* DNAT of the unconfirmed entry @ct to the ring's owner, and its mark. */
static unsigned int steer_entry(struct sk_buff *skb,
				const struct nf_hook_state *state,
				struct nf_conn *ct, u8 family,
				struct rs_service *svc,
				const struct rs_steer *steer)
{
	struct nf_conn_labels *labels;
	struct rs_backend *b;
	struct rs_flow flow;
	u64 pos;

	/*
	 * Conntrack gives an entry room for labels when it creates it, and
	 * only while someone holds labels (nf_ct_labels_ext_add() in
	 * init_conntrack(), 6.1 and 6.12 alike); an entry never gets it
	 * later. The hooks take their hold before they exist, so only an
	 * entry created just before (a packet in flight across their
	 * registration) or whose GFP_ATOMIC extension failed lacks it.
	 * Steering it unmarked would hide it from every walk: drop it as a
	 * flow without backend is, and the client's next packet makes an
	 * entry that has the room. Entries from before the hooks need no
	 * mark: ringsteer steered none of them.
	 */
	labels = nf_ct_labels_find(ct);
	if (unlikely(!labels))
		return drop_silently(skb, state);

	tuple_to_flow(&ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple, family, &flow);
	b = rs_steer_pick(steer, &flow, &pos);
	if (!b) {
		/* Nothing serves the VIP itself: drop, do not pass it on. */
		rs_counter_inc(svc->no_backend);
		return drop_silently(skb, state);
	}
	/*
	 * NF_DROP: a helper's seqadj extension could not be added
	 * (GFP_ATOMIC), or a state nf_nat warns about. A drop as any other.
	 */
	if (dnat_to(ct, b, family) != NF_ACCEPT)
		return drop_silently(skb, state);
	/* Unconfirmed: no walk sees the entry before the mark. */
	set_bit(conntrack_label, labels->bits);
	rs_counter_inc(svc->new_flows);
	rs_counter_inc(rs_backend_new_flows(b));
	return NF_ACCEPT;
}

static unsigned int rs_nat_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	enum ip_conntrack_info ctinfo;
	const struct rs_steer *steer;
	struct rs_service *svc;
	struct nf_conn *ct;

	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || ctinfo != IP_CT_NEW)
		return NF_ACCEPT;
	svc = nat_service(priv, ct, family, &steer);
	if (!svc)
		return NF_ACCEPT;
	/*
	 * Confirmed, yet no NAT: conntrack saw the flow before this
	 * namespace had the service (an nft "ct" rule, or the moment
	 * between a flush and a restore), and nf_nat cannot set up NAT on
	 * a confirmed entry any more. Unreplied UDP and retransmitted SYNs
	 * of it keep arriving as NEW; passing them would deliver them to
	 * the VIP itself. Forget the entry instead: the client's next
	 * packet starts a new one, which is steered.
	 */
	if (unlikely(nf_ct_is_confirmed(ct))) {
		nf_ct_kill(ct);
		return drop_silently(skb, state);
	}
	return steer_entry(skb, state, ct, family, svc, steer);
}

/*
 * PRE_ROUTING catches traffic arriving at the load balancer, LOCAL_OUT
 * connections made from the host itself.
 */
static const struct {
	u8 pf;
	u8 hooknum;
} rs_hook_points[] = {
	{ NFPROTO_IPV4, NF_INET_PRE_ROUTING },
	{ NFPROTO_IPV4, NF_INET_LOCAL_OUT },
	{ NFPROTO_IPV6, NF_INET_PRE_ROUTING },
	{ NFPROTO_IPV6, NF_INET_LOCAL_OUT },
};

int __init rs_hooks_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(rs_hook_points) !=
		     ARRAY_SIZE(((struct rs_hooks *)NULL)->ops));
	/* After conntrack, before source NAT: where DNAT is possible. */
	if (hook_priority <= NF_IP_PRI_CONNTRACK ||
	    hook_priority >= NF_IP_PRI_NAT_SRC) {
		pr_err("hook_priority %d outside %d..%d\n", hook_priority,
		       NF_IP_PRI_CONNTRACK + 1, NF_IP_PRI_NAT_SRC - 1);
		return -EINVAL;
	}
	if (conntrack_label > XT_CONNLABEL_MAXBIT) {
		pr_err("conntrack_label %u outside 0..%u\n", conntrack_label,
		       XT_CONNLABEL_MAXBIT);
		return -EINVAL;
	}
	return 0;
}

static int register_one(struct net *net, const struct nf_hook_ops *ops)
{
	return ops->pf == NFPROTO_IPV4 ? nf_nat_ipv4_register_fn(net, ops) :
					 nf_nat_ipv6_register_fn(net, ops);
}

static void unregister_one(struct net *net, const struct nf_hook_ops *ops)
{
	if (ops->pf == NFPROTO_IPV4)
		nf_nat_ipv4_unregister_fn(net, ops);
	else
		nf_nat_ipv6_unregister_fn(net, ops);
}

int rs_hooks_register(struct net *net, struct rs_hooks *hooks,
		      struct rs_services *services)
{
	int err, i;

	if (hooks->registered)
		return 0;
	/* Before conntrack and the hooks: see rs_nat_hook(). */
	err = nf_connlabels_get(net, conntrack_label);
	if (err)
		return err;
	/* NAT needs connection tracking, which is per namespace on demand. */
	err = nf_ct_netns_get(net, NFPROTO_INET);
	if (err)
		goto err_labels;
	for (i = 0; i < ARRAY_SIZE(hooks->ops); i++) {
		hooks->ops[i] = (struct nf_hook_ops) {
			.hook = rs_nat_hook,
			.priv = services,
			.pf = rs_hook_points[i].pf,
			.hooknum = rs_hook_points[i].hooknum,
			.priority = hook_priority,
		};
		err = register_one(net, &hooks->ops[i]);
		if (err)
			goto err_unwind;
	}
	hooks->registered = true;
	return 0;

err_unwind:
	while (i--)
		unregister_one(net, &hooks->ops[i]);
	nf_ct_netns_put(net, NFPROTO_INET);
err_labels:
	nf_connlabels_put(net);
	return err;
}

void rs_hooks_unregister(struct net *net, struct rs_hooks *hooks)
{
	int i = ARRAY_SIZE(hooks->ops);

	if (!hooks->registered)
		return;
	while (i--)
		unregister_one(net, &hooks->ops[i]);
	nf_ct_netns_put(net, NFPROTO_INET);
	/* Marked entries keep their labels; new ones need none now. */
	nf_connlabels_put(net);
	hooks->registered = false;
}
