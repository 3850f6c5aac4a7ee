// SPDX-License-Identifier: GPL-2.0
/*
 * The owner chain's backend mode: a LOCAL_IN hook on the outer packet of
 * GUE, after routing found it is for this host (and IPv4 reassembled it),
 * after the filter table (the host's firewall has its say first), before
 * fou's socket decapsulates it. It judges the inner packet of a GUE
 * packet to the configured port that carries hops (chain_hdr.h), as
 * glb-director's glb-redirect does from an iptables target there:
 *
 *  - a TCP SYN starts a flow here, the first hop: accepted;
 *  - a packet of a local socket (TCP established, SYN_RECV, TIME_WAIT,
 *    looked up in the namespace's own hash table; a connected UDP socket)
 *    is accepted, and so is an ACK that carries a valid SYN cookie of a
 *    local listener that recently sent cookies;
 *  - otherwise, for one of the host's addresses, the packet goes on to
 *    its next hop (chain_fwd.c) or, with no hop left, is accepted (the
 *    stack resets) or dropped, as last-resort says.
 *
 * Accepting is passing the packet on untouched: fou decapsulates it. Not
 * a GUE packet to the port, or GUE without hops: passed, not judged. A
 * chain that does not parse, or carries more than max-hops hops, is
 * dropped: it is never forwarded on.
 *
 * IPv6 outer packets reach LOCAL_IN before reassembly: the mode enables
 * IPv6 defragmentation in its namespace, so that a fragmented one is seen
 * whole. Runs under rcu_read_lock(); no lock, no allocation.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/udp.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "chain_hdr.h"
#include "chain_rx.h"
#include "chain_fwd.h"
#include "compat.h"

/* After the filter table: a firewall rule on the GUE port comes first. */
#define RS_CHAIN_PRIORITY (NF_IP_PRI_FILTER + 10)

/* The inner packet's flow, as the local sockets would see it. */
struct inner {
	u8 family;
	u8 proto;
	union nf_inet_addr saddr, daddr;
	__be16 sport, dport;
	struct tcphdr th;
};

enum inner_kind { INNER_FLOW, INNER_OTHER, INNER_BAD };

static void count(struct rs_chain_rx *cr, enum rs_chain_stat which)
{
	struct rs_chain_stats *s = this_cpu_ptr(cr->stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->v[which]);
	u64_stats_update_end(&s->syncp);
}

u64 rs_chain_rx_stat(const struct rs_chain_rx *cr, enum rs_chain_stat which)
{
	unsigned int start;
	u64 sum = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct rs_chain_stats *s = per_cpu_ptr(cr->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			v = u64_stats_read(&s->v[which]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum += v;
	}
	return sum;
}

static unsigned int verdict(struct rs_chain_rx *cr, enum rs_chain_stat why,
			    unsigned int v)
{
	count(cr, why);
	return v;
}

/*
 * The GUE header's offset from the network header, if @skb is UDP to
 * @port sent to a unicast address of the host; 0 otherwise.
 */
static unsigned int gue_offset(const struct sk_buff *skb, u8 family,
			       __be16 port)
{
	const struct udphdr *uh;
	struct udphdr _uh;
	__be16 frag_off;
	u8 nexthdr;
	int off;

	if (family == AF_INET) {
		const struct rtable *rt = skb_rtable(skb);

		if (ip_hdr(skb)->protocol != IPPROTO_UDP || !rt ||
		    rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST))
			return 0;
		off = ip_hdrlen(skb);
	} else {
		if (ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr))
			return 0;
		nexthdr = ipv6_hdr(skb)->nexthdr;
		off = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(struct ipv6hdr),
				       &nexthdr, &frag_off);
		if (off < 0 || nexthdr != IPPROTO_UDP || frag_off)
			return 0;
		off -= skb_network_offset(skb);
	}
	uh = skb_header_pointer(skb, skb_network_offset(skb) + off, sizeof(_uh), &_uh);
	if (!uh || uh->dest != port)
		return 0;
	return off + sizeof(*uh);
}

/* The chain at @gue, read into @buf where the skb is not linear. */
static enum rs_chain_result read_chain(const struct sk_buff *skb,
				       unsigned int gue, u8 family, u8 max_hops,
				       u8 *buf, struct rs_chain *c)
{
	unsigned int off = skb_network_offset(skb) + gue, avail, want;
	const u8 *p;

	avail = skb->len > off ? skb->len - off : 0;
	p = skb_header_pointer(skb, off, 1, buf);
	if (!p || avail < RS_GUE_HLEN)
		return RS_CHAIN_E_SHORT;
	/* GUE's hlen: no more is read than the chain may take. */
	want = min_t(unsigned int, avail, RS_GUE_HLEN + 4 * (*p & 0x1f));
	p = skb_header_pointer(skb, off, want, buf);
	if (!p)
		return RS_CHAIN_E_SHORT;
	return rs_chain_decode(p, want, family, max_hops, c);
}

static enum inner_kind read_ports(const struct sk_buff *skb, int thoff,
				  struct inner *in)
{
	const struct tcphdr *th;
	const __be16 *ports;
	__be16 _ports[2];

	if (in->proto == IPPROTO_TCP) {
		th = skb_header_pointer(skb, thoff, sizeof(in->th), &in->th);
		if (!th)
			return INNER_BAD;
		if (th != &in->th)
			in->th = *th;
		in->sport = in->th.source;
		in->dport = in->th.dest;
		return INNER_FLOW;
	}
	if (in->proto != IPPROTO_UDP)
		return INNER_OTHER;
	ports = skb_header_pointer(skb, thoff, sizeof(_ports), _ports);
	if (!ports)
		return INNER_BAD;
	in->sport = ports[0];
	in->dport = ports[1];
	return INNER_FLOW;
}

static enum inner_kind read_inner4(const struct sk_buff *skb, int off,
				   struct inner *in)
{
	const struct iphdr *iph;
	struct iphdr _iph;

	iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < 5)
		return INNER_BAD;
	/* A fragment's flow is the stack's to find once it is whole. */
	if (ip_is_fragment(iph))
		return INNER_OTHER;
	in->family = AF_INET;
	in->proto = iph->protocol;
	in->saddr.ip = iph->saddr;
	in->daddr.ip = iph->daddr;
	return read_ports(skb, off + iph->ihl * 4, in);
}

static enum inner_kind read_inner6(const struct sk_buff *skb, int off,
				   struct inner *in)
{
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;
	__be16 frag_off;
	u8 nexthdr;
	int thoff;

	ip6h = skb_header_pointer(skb, off, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->version != 6)
		return INNER_BAD;
	nexthdr = ip6h->nexthdr;
	thoff = ipv6_skip_exthdr(skb, off + sizeof(_ip6h), &nexthdr, &frag_off);
	if (thoff < 0)
		return INNER_BAD;
	if (frag_off)
		return INNER_OTHER;
	in->family = AF_INET6;
	in->proto = nexthdr;
	in->saddr.in6 = ip6h->saddr;
	in->daddr.in6 = ip6h->daddr;
	return read_ports(skb, thoff, in);
}

static bool tcp_socket(struct net *net, const struct inner *in, int dif,
		       int sdif)
{
	struct inet_hashinfo *h = net->ipv4.tcp_death_row.hashinfo;
	struct sock *sk;

	if (in->family == AF_INET)
		sk = __inet_lookup_established(net, h, in->saddr.ip, in->sport,
					       in->daddr.ip, ntohs(in->dport),
					       dif, sdif);
	else
		sk = __inet6_lookup_established(net, h, &in->saddr.in6, in->sport,
						&in->daddr.in6, ntohs(in->dport),
						dif, sdif);
	if (!sk)
		return false;
	sock_gen_put(sk);
	return true;
}

/*
 * A listener's cookie, as tcp_v4_cookie_check() would take it: only while
 * the listener sends cookies (always, or its queue overflowed lately), so
 * that a stray ACK of another hop's flow is not taken for one.
 */
static bool syn_cookie(struct net *net, const struct inner *in, int dif,
		       int sdif)
{
	struct inet_hashinfo *h = net->ipv4.tcp_death_row.hashinfo;
	u8 syncookies = READ_ONCE(net->ipv4.sysctl_tcp_syncookies);
	struct sock *lsk;

	if (!syncookies)
		return false;
	/* Listeners are freed after a grace period: no reference taken. */
	if (in->family == AF_INET)
		lsk = __inet_lookup_listener(net, h, NULL, 0, in->saddr.ip,
					     in->sport, in->daddr.ip,
					     ntohs(in->dport), dif, sdif);
	else
		lsk = inet6_lookup_listener(net, h, NULL, 0, &in->saddr.in6,
					    in->sport, &in->daddr.in6,
					    ntohs(in->dport), dif, sdif);
	if (!lsk || (syncookies != 2 && tcp_synq_no_recent_overflow(lsk)))
		return false;
	return rs_cookie_check(in->family, &in->saddr, &in->daddr, &in->th) > 0;
}

static bool udp_connected(struct net *net, const struct inner *in, int dif)
{
	struct sock *sk;
	bool connected;

	if (in->family == AF_INET)
		sk = udp4_lib_lookup(net, in->saddr.ip, in->sport, in->daddr.ip,
				     in->dport, dif);
	else
		sk = udp6_lib_lookup(net, &in->saddr.in6, in->sport,
				     &in->daddr.in6, in->dport, dif);
	if (!sk)
		return false;
	connected = READ_ONCE(sk->sk_state) == TCP_ESTABLISHED;
	sock_put(sk);
	return connected;
}

/* Why the host takes the flow, RS_CH_NSTATS if it does not. */
static enum rs_chain_stat claimed(struct net *net, const struct inner *in,
				  int dif, int sdif)
{
	const struct tcphdr *th = &in->th;

	if (in->proto == IPPROTO_UDP)
		return udp_connected(net, in, dif) ? RS_CH_ACCEPTED_SOCKET :
						     RS_CH_NSTATS;
	if (th->syn && !th->ack)
		return RS_CH_ACCEPTED_SYN;
	if (tcp_socket(net, in, dif, sdif))
		return RS_CH_ACCEPTED_SOCKET;
	if (th->ack && !th->syn && !th->rst && !th->fin &&
	    syn_cookie(net, in, dif, sdif))
		return RS_CH_ACCEPTED_COOKIE;
	return RS_CH_NSTATS;
}

static bool local_dest(struct net *net, const struct inner *in)
{
	if (in->family == AF_INET)
		return inet_addr_type(net, in->daddr.ip) == RTN_LOCAL;
	return ipv6_chk_addr(net, &in->daddr.in6, NULL, 0);
}

/* A chain that is whole, and the inner packet after it. */
static unsigned int judge_flow(struct rs_chain_rx *cr, struct sk_buff *skb,
			       const struct nf_hook_state *state,
			       unsigned int gue, const struct rs_chain *c)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	int ioff = skb_network_offset(skb) + gue + c->len;
	enum rs_chain_stat why;
	enum inner_kind kind;
	struct inner in;
	int sdif;

	kind = c->proto == IPPROTO_IPIP ? read_inner4(skb, ioff, &in) :
					  read_inner6(skb, ioff, &in);
	if (kind == INNER_BAD)
		return verdict(cr, RS_CH_MALFORMED, NF_DROP);
	if (kind == INNER_OTHER)
		return verdict(cr, RS_CH_PASSED, NF_ACCEPT);
	sdif = family == AF_INET ? inet_sdif(skb) : inet6_sdif(skb);
	why = claimed(state->net, &in, state->in->ifindex, sdif);
	if (why != RS_CH_NSTATS)
		return verdict(cr, why, NF_ACCEPT);
	if (!local_dest(state->net, &in))
		return verdict(cr, RS_CH_PASSED, NF_ACCEPT);
	if (c->next == c->count) {
		if (READ_ONCE(cr->last_resort) == RINGSTEER_LAST_RESORT_DROP)
			return verdict(cr, RS_CH_LAST_RESORT_DROPS, NF_DROP);
		return verdict(cr, RS_CH_LAST_RESORT_ACCEPTS, NF_ACCEPT);
	}
	why = rs_chain_forward(state->net, skb, family, gue,
			       rs_chain_hop(c, c->next));
	return verdict(cr, why, why == RS_CH_FORWARDED ? NF_STOLEN : NF_DROP);
}

static unsigned int judge(struct rs_chain_rx *cr, struct sk_buff *skb,
			  const struct nf_hook_state *state)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	u8 buf[RS_CHAIN_MAX_HDR];
	enum rs_chain_result r;
	struct rs_chain c;
	unsigned int gue;

	gue = gue_offset(skb, family, READ_ONCE(cr->port));
	if (!gue)
		return NF_ACCEPT;
	r = read_chain(skb, gue, family, READ_ONCE(cr->max_hops), buf, &c);
	switch (r) {
	case RS_CHAIN_OK:
		return judge_flow(cr, skb, state, gue, &c);
	case RS_CHAIN_PLAIN:
		return verdict(cr, RS_CH_PASSED, NF_ACCEPT);
	case RS_CHAIN_E_COUNT:
		return verdict(cr, RS_CH_HOP_COUNT, NF_DROP);
	default:
		return verdict(cr, RS_CH_MALFORMED, NF_DROP);
	}
}

/*
 * Mostly softirq; after an NFQUEUE verdict, process context: the
 * counters and the forward's route need their CPU to stay.
 */
static unsigned int rs_chain_hook(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	unsigned int v;

	local_bh_disable();
	v = judge(priv, skb, state);
	local_bh_enable();
	return v;
}

static struct rs_chain_rx *chain_alloc(void)
{
	struct rs_chain_rx *cr;
	int cpu;

	cr = kzalloc(sizeof(*cr), GFP_KERNEL_ACCOUNT);
	if (!cr)
		return NULL;
	cr->stats = alloc_percpu_gfp(struct rs_chain_stats, GFP_KERNEL_ACCOUNT);
	if (!cr->stats) {
		kfree(cr);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(cr->stats, cpu)->syncp);
	cr->last_resort = RINGSTEER_LAST_RESORT_ACCEPT;
	cr->max_hops = RINGSTEER_DEFAULT_CHAIN_MAX_HOPS;
	return cr;
}

static void chain_free(struct rs_chain_rx *cr)
{
	free_percpu(cr->stats);
	kfree(cr);
}

static void chain_free_rcu(struct rcu_head *head)
{
	chain_free(container_of(head, struct rs_chain_rx, rcu));
}

static int chain_register(struct net *net, struct rs_chain_rx *cr)
{
	static const u8 pfs[] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	int err, i;

	for (i = 0; i < ARRAY_SIZE(cr->ops); i++)
		cr->ops[i] = (struct nf_hook_ops) {
			.hook = rs_chain_hook,
			.priv = cr,
			.pf = pfs[i],
			.hooknum = NF_INET_LOCAL_IN,
			.priority = RS_CHAIN_PRIORITY,
		};
	err = nf_defrag_ipv6_enable(net);
	if (err)
		return err;
	err = nf_register_net_hooks(net, cr->ops, ARRAY_SIZE(cr->ops));
	if (err)
		nf_defrag_ipv6_disable(net);
	return err;
}

int rs_chain_rx_set(struct net *net, struct rs_chain_rx **slot,
		    const struct rs_chain_conf *conf)
{
	struct rs_chain_rx *cr = *slot;
	int err;

	if (!cr) {
		cr = chain_alloc();
		if (!cr)
			return -ENOMEM;
		cr->port = conf->port;
		err = chain_register(net, cr);
		if (err) {
			chain_free(cr);
			return err;
		}
		*slot = cr;
	}
	WRITE_ONCE(cr->port, conf->port);
	if (conf->last_resort >= 0)
		WRITE_ONCE(cr->last_resort, conf->last_resort);
	if (conf->max_hops)
		WRITE_ONCE(cr->max_hops, conf->max_hops);
	return 0;
}

/*
 * Unregistering does not wait for the packets in the hooks (the core
 * frees its entries with call_rcu()): the object is theirs until a grace
 * period has passed. rs_netns_uninit()'s rcu_barrier() waits for it.
 */
void rs_chain_rx_del(struct net *net, struct rs_chain_rx **slot)
{
	struct rs_chain_rx *cr = *slot;

	if (!cr)
		return;
	nf_unregister_net_hooks(net, cr->ops, ARRAY_SIZE(cr->ops));
	nf_defrag_ipv6_disable(net);
	*slot = NULL;
	call_rcu(&cr->rcu, chain_free_rcu);
}
