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

#include <linux/ip.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>

#include "hook.h"
#include "service.h"

static void tuple_to_flow(const struct nf_conntrack_tuple *t, u8 family,
			  struct rs_flow *flow)
{
	size_t len = family == AF_INET ? 4 : 16;

	memset(flow, 0, sizeof(*flow));
	flow->family = family;
	flow->proto = t->dst.protonum;
	memcpy(flow->saddr, &t->src.u3, len);
	memcpy(flow->daddr, &t->dst.u3, len);
	flow->sport = t->src.u.all;
	flow->dport = t->dst.u.all;
}

static unsigned int rs_nat_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	const struct nf_conntrack_tuple *t;
	struct nf_nat_range2 range = {};
	enum ip_conntrack_info ctinfo;
	const struct rs_steer *steer;
	struct rs_service *svc;
	struct rs_backend *b;
	struct rs_flow flow;
	struct nf_conn *ct;
	unsigned int verdict;
	u64 pos;

	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || ctinfo != IP_CT_NEW)
		return NF_ACCEPT;
	t = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	if (t->dst.protonum != IPPROTO_TCP && t->dst.protonum != IPPROTO_UDP)
		return NF_ACCEPT;

	svc = rs_service_find_rcu(rs_net(state->net), family, &t->dst.u3,
				  t->dst.u.all, t->dst.protonum);
	if (!svc)
		return NF_ACCEPT;
	steer = rcu_dereference(svc->steer);
	tuple_to_flow(t, family, &flow);
	b = rs_steer_pick(steer, &flow, &pos);
	if (!b) {
		/* Nothing serves the VIP itself: drop, do not pass it on. */
		rs_counter_inc(svc->no_backend);
		return NF_DROP;
	}

	range.flags = NF_NAT_RANGE_MAP_IPS | NF_NAT_RANGE_PROTO_SPECIFIED;
	memcpy(&range.min_addr, b->id.addr, family == AF_INET ? 4 : 16);
	range.max_addr = range.min_addr;
	range.min_proto.all = b->id.port;
	range.max_proto.all = b->id.port;
	verdict = nf_nat_setup_info(ct, &range, NF_NAT_MANIP_DST);
	if (verdict == NF_ACCEPT) {
		rs_counter_inc(svc->flows);
		rs_counter_inc(b->flows);
	}
	return verdict;
}

/*
 * PRE_ROUTING catches traffic arriving at the load balancer, LOCAL_OUT
 * connections made from the host itself. Both run at the usual DNAT
 * priority, alongside iptables/nftables NAT chains.
 */
static const struct nf_hook_ops rs_nat_ops[] = {
	{
		.hook = rs_nat_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP_PRI_NAT_DST,
	},
	{
		.hook = rs_nat_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP_PRI_NAT_DST,
	},
	{
		.hook = rs_nat_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP6_PRI_NAT_DST,
	},
	{
		.hook = rs_nat_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP6_PRI_NAT_DST,
	},
};

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

int rs_hooks_register(struct net *net)
{
	int err, i;

	/* NAT needs connection tracking, which is per namespace on demand. */
	err = nf_ct_netns_get(net, NFPROTO_INET);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(rs_nat_ops); i++) {
		err = register_one(net, &rs_nat_ops[i]);
		if (err)
			goto err_unwind;
	}
	return 0;

err_unwind:
	while (i--)
		unregister_one(net, &rs_nat_ops[i]);
	nf_ct_netns_put(net, NFPROTO_INET);
	return err;
}

void rs_hooks_unregister(struct net *net)
{
	int i = ARRAY_SIZE(rs_nat_ops);

	while (i--)
		unregister_one(net, &rs_nat_ops[i]);
	nf_ct_netns_put(net, NFPROTO_INET);
}
