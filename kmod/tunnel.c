// SPDX-License-Identifier: GPL-2.0
/*
 * forward tunnel: a PRE_ROUTING hook after defragmentation (-400) and the
 * raw table (-300), before conntrack (-200). For every packet to a tunnel
 * service it picks the backend: the one its flow started on if the flow
 * table (flowtab.c) has it, else the ring's, exactly as the NAT hook picks
 * for the first packet of the same flow (same flow, same hash); then it
 * hands the packet to encap.c, which encapsulates and sends it: the packet is
 * stolen, conntrack never sees it, and the backend replies to the client
 * directly. An ICMP error sent to the VIP about one of its flows (a router
 * on the backend's reply path telling it about MTU) goes to the backend
 * that owns the quoted flow.
 *
 * Runs under rcu_read_lock() in softirq: no lock, no allocation, no
 * sleeping. Local clients on the load balancer itself (LOCAL_OUT) are not
 * steered: their packets to the VIP follow the host's own routing.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "flowtab.h"
#include "encap.h"
#include "tunnel.h"

/* Between the raw table (-300) and conntrack (-200). */
#define RS_TUN_PRIORITY (NF_IP_PRI_RAW + 50)

/* What the hook reads of a packet before it knows the service. */
struct pkt_info {
	union nf_inet_addr saddr, daddr;	/* the flow's client and VIP */
	__be16 sport, dport;
	u8 proto;
	bool syn;		/* a TCP SYN without ACK: may start a flow */
	bool reassembled;	/* arrived as fragments */
	bool icmp;		/* an ICMP error quoting the flow */
};

static bool read_ports(const struct sk_buff *skb, unsigned int thoff,
		       struct pkt_info *pi)
{
	struct tcphdr _th;
	const struct tcphdr *th;
	__be16 _ports[2];
	const __be16 *ports;

	if (pi->proto == IPPROTO_TCP && !pi->icmp) {
		th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
		if (!th)
			return false;
		pi->sport = th->source;
		pi->dport = th->dest;
		pi->syn = th->syn && !th->ack;
		return true;
	}
	if (pi->proto != IPPROTO_TCP && pi->proto != IPPROTO_UDP)
		return false;
	/* An ICMP error quotes at least 8 bytes: the ports are there. */
	ports = skb_header_pointer(skb, thoff, sizeof(_ports), _ports);
	if (!ports)
		return false;
	pi->sport = ports[0];
	pi->dport = ports[1];
	return true;
}

/*
 * An ICMP error to the VIP quotes a packet the backend sent from it: the
 * flow is the quoted one, turned round (the client is its destination).
 */
static bool read_icmp4(const struct sk_buff *skb, unsigned int thoff,
		       struct pkt_info *pi)
{
	struct icmphdr _ih;
	const struct icmphdr *ih;
	struct iphdr _qh;
	const struct iphdr *qh;

	ih = skb_header_pointer(skb, thoff, sizeof(_ih), &_ih);
	if (!ih || !icmp_is_err(ih->type))
		return false;
	qh = skb_header_pointer(skb, thoff + sizeof(_ih), sizeof(_qh), &_qh);
	if (!qh || qh->ihl < 5 || qh->saddr != pi->daddr.ip ||
	    ip_is_fragment(qh))
		return false;
	pi->icmp = true;
	pi->proto = qh->protocol;
	pi->saddr.ip = qh->daddr;
	if (!read_ports(skb, thoff + sizeof(_ih) + qh->ihl * 4, pi))
		return false;
	swap(pi->sport, pi->dport);
	return true;
}

static bool read4(const struct sk_buff *skb, struct pkt_info *pi)
{
	const struct iphdr *iph = ip_hdr(skb);

	/* Defragmentation could not reassemble it: not a flow's packet. */
	if (ip_is_fragment(iph))
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->saddr.ip = iph->saddr;
	pi->daddr.ip = iph->daddr;
	pi->proto = iph->protocol;
	pi->reassembled = IPCB(skb)->frag_max_size;
	if (pi->proto == IPPROTO_ICMP)
		return read_icmp4(skb, ip_hdrlen(skb), pi);
	return read_ports(skb, ip_hdrlen(skb), pi);
}

static bool read_icmp6(const struct sk_buff *skb, unsigned int thoff,
		       struct pkt_info *pi)
{
	struct icmp6hdr _ih;
	const struct icmp6hdr *ih;
	struct ipv6hdr _qh;
	const struct ipv6hdr *qh;
	__be16 frag_off;
	u8 nexthdr;
	int qoff;

	ih = skb_header_pointer(skb, thoff, sizeof(_ih), &_ih);
	if (!ih || !icmpv6_is_err(ih->icmp6_type))
		return false;
	qoff = thoff + sizeof(_ih);
	qh = skb_header_pointer(skb, qoff, sizeof(_qh), &_qh);
	if (!qh || !ipv6_addr_equal(&qh->saddr, &pi->daddr.in6))
		return false;
	nexthdr = qh->nexthdr;
	qoff = ipv6_skip_exthdr(skb, qoff + sizeof(_qh), &nexthdr, &frag_off);
	if (qoff < 0 || frag_off)
		return false;
	pi->icmp = true;
	pi->proto = nexthdr;
	pi->saddr.in6 = qh->daddr;
	if (!read_ports(skb, qoff, pi))
		return false;
	swap(pi->sport, pi->dport);
	return true;
}

static bool read6(const struct sk_buff *skb, struct pkt_info *pi)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	u8 nexthdr = ip6h->nexthdr;
	__be16 frag_off;
	int thoff;

	thoff = ipv6_skip_exthdr(skb, sizeof(*ip6h), &nexthdr, &frag_off);
	if (thoff < 0 || frag_off)
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->saddr.in6 = ip6h->saddr;
	pi->daddr.in6 = ip6h->daddr;
	pi->proto = nexthdr;
	pi->reassembled = IP6CB(skb)->frag_max_size;
	if (pi->proto == IPPROTO_ICMPV6)
		return read_icmp6(skb, thoff, pi);
	return read_ports(skb, thoff, pi);
}

/*
 * A packet that missed the flow table was steered by the ring: what
 * starts a flow (a SYN, a UDP packet) counts as a new flow, a TCP packet
 * of a flow this host has not seen start (another load balancer's, or
 * evicted) as a non-SYN miss.
 */
static void count(struct rs_service *svc, struct rs_backend *b,
		  const struct pkt_info *pi, bool hit)
{
	rs_tun_stats_add(svc->tun_stats, RS_TUN_PACKETS,
			 hit ? RS_TUN_TABLE_HITS : RS_TUN_TABLE_MISSES);
	if (pi->reassembled)
		rs_tun_stats_add(svc->tun_stats, RS_TUN_FRAGMENTS, RS_TUN_NSTATS);
	if (pi->icmp || hit)
		return;
	if (pi->proto == IPPROTO_TCP && !pi->syn) {
		rs_tun_stats_add(svc->tun_stats, RS_TUN_NONSYN_MISSES, RS_TUN_NSTATS);
		return;
	}
	rs_counter_inc(svc->new_flows);
	rs_counter_inc(b->new_flows);
}

/* The flow table first, then the ring (recorded in the table). */
static struct rs_backend *pick(struct rs_services *services,
			       struct rs_service *svc, const struct rs_steer *steer,
			       const struct pkt_info *pi, struct rs_tun_pkt *p,
			       u64 *pos)
{
	bool syn = pi->proto == IPPROTO_TCP && pi->syn;
	struct rs_ft_entry *slot;
	struct rs_backend *b;

	b = rs_ft_get(services, svc, &pi->saddr, pi->sport, syn, &slot);
	if (b) {
		count(svc, b, pi, true);
		*pos = rs_flow_position(&steer->ring->key, &p->flow, steer->hash);
		return b;
	}
	b = rs_steer_pick(steer, &p->flow, pos);
	if (!b)
		return NULL;
	count(svc, b, pi, false);
	/* An ICMP error starts no flow. */
	if (!pi->icmp)
		rs_ft_put(slot, svc, &pi->saddr, pi->sport, b);
	return b;
}

static unsigned int tun_steer(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	struct rs_services *services = priv;
	const struct rs_steer *steer;
	struct rs_tun_pkt p = {};
	struct rs_service *svc;
	struct pkt_info pi;
	struct rs_backend *b;
	u64 pos;

	if (!(family == AF_INET ? read4(skb, &pi) : read6(skb, &pi)))
		return NF_ACCEPT;
	svc = rs_services_find_rcu(services, family, &pi.daddr, pi.dport,
				   pi.proto);
	if (!svc)
		return NF_ACCEPT;
	steer = rcu_dereference(svc->steer);
	if (!rs_tunnel(&steer->fwd))
		return NF_ACCEPT;

	rs_flow_init(&p.flow, family, pi.proto, &pi.saddr, pi.sport, &pi.daddr,
		     pi.dport);
	b = pick(services, svc, steer, &pi, &p, &pos);
	if (!b) {
		/* Nothing serves the VIP itself: drop, do not pass it on. */
		rs_tun_stats_add(svc->tun_stats, RS_TUN_PACKETS, RS_TUN_NSTATS);
		if (!pi.icmp)
			rs_counter_inc(svc->no_backend);
		return NF_DROP;
	}
	/* Every LB emits the same outer header for a flow: a keyed hash. */
	p.hash = steer->hash == RINGSTEER_HASH_FLOW ? pos :
		 rs_flow_position(&steer->ring->key, &p.flow, RINGSTEER_HASH_FLOW);
	p.icmp = pi.icmp;
	if (family == AF_INET)
		rs_tun_xmit4(state->net, skb, svc, steer, b, &p);
	else
		rs_tun_xmit6(state->net, skb, svc, steer, b, &p);
	return NF_STOLEN;
}

/*
 * Mostly in softirq, but after an NFQUEUE verdict nf_reinject() runs the
 * remaining hooks in process context: the flow table and the per-CPU
 * stats and route caches need their CPU to stay, and no softirq between.
 */
static unsigned int rs_tun_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	unsigned int verdict;

	local_bh_disable();
	verdict = tun_steer(priv, skb, state);
	local_bh_enable();
	return verdict;
}

int rs_tun_hooks_register(struct net *net, struct rs_tun_hooks *hooks,
			  struct rs_services *services)
{
	static const u8 pfs[] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	struct rs_flow_table *ft;
	int err, i;

	if (hooks->registered)
		return 0;
	for (i = 0; i < ARRAY_SIZE(hooks->ops); i++)
		hooks->ops[i] = (struct nf_hook_ops) {
			.hook = rs_tun_hook,
			.priv = services,
			.pf = pfs[i],
			.hooknum = NF_INET_PRE_ROUTING,
			.priority = RS_TUN_PRIORITY,
		};
	/* Charged to whoever adds the namespace's first tunnel service. */
	ft = rs_ft_alloc();
	if (IS_ERR(ft))
		return PTR_ERR(ft);
	rcu_assign_pointer(services->ft, ft);
	/* Fragments reach the hook reassembled, so they hash on their flow. */
	err = nf_defrag_ipv4_enable(net);
	if (err)
		goto err_ft;
	err = nf_defrag_ipv6_enable(net);
	if (err)
		goto err_v4;
	err = nf_register_net_hooks(net, hooks->ops, ARRAY_SIZE(hooks->ops));
	if (err)
		goto err_v6;
	hooks->registered = true;
	return 0;

err_v6:
	nf_defrag_ipv6_disable(net);
err_v4:
	nf_defrag_ipv4_disable(net);
err_ft:
	rs_ft_free(rcu_replace_pointer(services->ft, NULL, true));
	return err;
}

void rs_tun_hooks_unregister(struct net *net, struct rs_tun_hooks *hooks,
			     struct rs_services *services)
{
	if (!hooks->registered)
		return;
	/*
	 * Unregistering does not wait for the packets already in the hook
	 * (the core frees its entries with call_rcu()): the table stays
	 * theirs until a grace period has passed.
	 */
	nf_unregister_net_hooks(net, hooks->ops, ARRAY_SIZE(hooks->ops));
	rs_ft_free_rcu(rcu_replace_pointer(services->ft, NULL, true));
	nf_defrag_ipv6_disable(net);
	nf_defrag_ipv4_disable(net);
	hooks->registered = false;
}
