// SPDX-License-Identifier: GPL-2.0
/*
 * The owner chain's backend mode: a packet no local socket claims goes on
 * to its next hop, as glb-redirect sends it (its outer destination the
 * hop, its source the address of this host it came to, the next hop index
 * one further, the UDP checksum adjusted for both), and more carefully:
 *
 *  - the hop is never trusted: not this packet's own destination, not a
 *    broadcast, multicast, loopback, unspecified, link-local or IPv4-mapped
 *    address, and the routing table must give it a unicast route that
 *    does not lead back to this host;
 *  - the outer TTL (hop limit) is one less, and a packet whose TTL would
 *    run out is dropped: with the index, which only grows, no chain loops;
 *  - one packet out for one in, never an ICMP error: its source is this
 *    host now, not a client;
 *  - the packet leaves untracked, as forward tunnel's do (encap.c).
 *
 * An outer packet too big for the route to the hop is dropped (with DF,
 * or IPv6): the load balancer sent it within the path MTU it knew, the
 * backends of one fleet share it. Without DF an IPv4 one is fragmented.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/route.h>
/* skb_gso_validate_network_len(): <net/gso.h> on 6.12, not on 6.1. */
#include <net/udp.h>

#include "chain_hdr.h"
#include "chain_fwd.h"
#include "compat.h"

/* The bit tests, before the routing table is asked. */
static enum rs_chain_stat hop_class4(__be32 hop, __be32 self)
{
	if (hop == self)
		return RS_CH_HOP_SELF;
	if (ipv4_is_lbcast(hop))
		return RS_CH_HOP_BROADCAST;
	if (ipv4_is_multicast(hop))
		return RS_CH_HOP_MULTICAST;
	/* 0.0.0.0/8 as a whole: "this network" names no host to send to. */
	if (!(hop & htonl(IN_CLASSA_NET)) || ipv4_is_loopback(hop) ||
	    ipv4_is_linklocal_169(hop))
		return RS_CH_HOP_LOCAL;
	return RS_CH_FORWARDED;
}

static enum rs_chain_stat hop_class6(const struct in6_addr *hop,
				     const struct in6_addr *self)
{
	int type = ipv6_addr_type(hop);

	if (ipv6_addr_equal(hop, self))
		return RS_CH_HOP_SELF;
	if (type & IPV6_ADDR_MULTICAST)
		return RS_CH_HOP_MULTICAST;
	if (type & (IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED | IPV6_ADDR_LINKLOCAL) ||
	    ipv6_addr_any(hop))
		return RS_CH_HOP_LOCAL;
	return RS_CH_FORWARDED;
}

/* Whether @skb fits @mtu; a GSO packet by its segments. */
static bool fits(const struct sk_buff *skb, unsigned int mtu)
{
	if (skb_is_gso(skb))
		return skb_gso_validate_network_len(skb, mtu);
	return skb->len <= mtu;
}

/*
 * The next hop index one further, the UDP checksum adjusted for it and
 * for the pseudo-header's source, which becomes @hop (the destination
 * moves to the source: it stays in the sum). A zero IPv4 checksum means
 * none and stays so.
 */
static void advance(struct sk_buff *skb, unsigned int gue, const __be32 *from,
		    const __be32 *hop, unsigned int words)
{
	u8 *p = skb_network_header(skb) + gue + RS_CHAIN_NEXT_OFF;
	struct udphdr *uh = (struct udphdr *)(skb_network_header(skb) + gue -
					      sizeof(*uh));
	bool partial = skb->ip_summed == CHECKSUM_PARTIAL;
	__be16 old, new;
	unsigned int i;

	memcpy(&old, p, sizeof(old));
	p[0]++;
	memcpy(&new, p, sizeof(new));
	if (!uh->check && !partial)
		return;
	inet_proto_csum_replace2(&uh->check, skb, old, new, false);
	for (i = 0; i < words; i++)
		inet_proto_csum_replace4(&uh->check, skb, from[i], hop[i], true);
	if (!uh->check && !partial)
		uh->check = CSUM_MANGLED_0;
}

/* As it leaves: untracked, the receive side's state gone. */
static void leave(struct sk_buff *skb, struct dst_entry *dst)
{
	skb_orphan(skb);
	skb_dst_drop(skb);
	skb_dst_set(skb, dst);
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	skb_clear_tstamp(skb);
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
}

static struct rtable *route4(struct net *net, const struct sk_buff *skb,
			     __be32 self, __be32 hop, enum rs_chain_stat *why)
{
	struct flowi4 fl4 = {
		.daddr = hop,
		.saddr = self,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_mark = skb->mark,
	};
	struct rtable *rt = ip_route_output_key(net, &fl4);

	if (IS_ERR(rt)) {
		*why = RS_CH_HOP_LOCAL;
		return NULL;
	}
	if (rt->rt_type == RTN_UNICAST)
		return rt;
	*why = rt->rt_type == RTN_BROADCAST ? RS_CH_HOP_BROADCAST :
	       rt->rt_type == RTN_MULTICAST ? RS_CH_HOP_MULTICAST : RS_CH_HOP_LOCAL;
	ip_rt_put(rt);
	return NULL;
}

static enum rs_chain_stat forward4(struct net *net, struct sk_buff *skb,
				   unsigned int gue, __be32 hop)
{
	const struct iphdr *iph = ip_hdr(skb);
	enum rs_chain_stat why = hop_class4(hop, iph->daddr);
	__be32 self = iph->daddr, from = iph->saddr;
	struct rtable *rt;
	struct iphdr *w;

	if (why != RS_CH_FORWARDED)
		return why;
	if (iph->ttl <= 1)
		return RS_CH_TTL_EXCEEDED;
	rt = route4(net, skb, self, hop, &why);
	if (!rt)
		return why;
	if (((iph->frag_off & htons(IP_DF)) && !fits(skb, dst_mtu(&rt->dst))) ||
	    skb_ensure_writable(skb, skb_network_offset(skb) + gue +
				RS_CHAIN_NEXT_OFF + 1)) {
		ip_rt_put(rt);
		return RS_CH_XMIT_ERRORS;
	}
	advance(skb, gue, &from, &hop, 1);
	w = ip_hdr(skb);
	w->saddr = self;
	w->daddr = hop;
	w->ttl--;
	ip_send_check(w);
	leave(skb, &rt->dst);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	ip_local_out(net, NULL, skb);
	return RS_CH_FORWARDED;
}

static struct dst_entry *route6(struct net *net, const struct sk_buff *skb,
				const struct in6_addr *self,
				const struct in6_addr *hop,
				enum rs_chain_stat *why)
{
	struct flowi6 fl6 = {
		.daddr = *hop,
		.saddr = *self,
		.flowi6_proto = IPPROTO_UDP,
		.flowi6_mark = skb->mark,
	};
	struct dst_entry *dst;

	*why = RS_CH_HOP_LOCAL;
	if (ipv6_chk_addr(net, hop, NULL, 0))
		return NULL;
	dst = ip6_route_output(net, NULL, &fl6);
	/* A local route leads through the loopback device. */
	if (dst->error || dst_dev(dst)->flags & IFF_LOOPBACK) {
		dst_release(dst);
		return NULL;
	}
	return dst;
}

static enum rs_chain_stat forward6(struct net *net, struct sk_buff *skb,
				   unsigned int gue, const struct in6_addr *hop)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	enum rs_chain_stat why = hop_class6(hop, &ip6h->daddr);
	struct in6_addr self = ip6h->daddr, from = ip6h->saddr;
	struct dst_entry *dst;
	struct ipv6hdr *w;

	if (why != RS_CH_FORWARDED)
		return why;
	if (ip6h->hop_limit <= 1)
		return RS_CH_TTL_EXCEEDED;
	dst = route6(net, skb, &self, hop, &why);
	if (!dst)
		return why;
	if (!fits(skb, dst_mtu(dst)) ||
	    skb_ensure_writable(skb, skb_network_offset(skb) + gue +
				RS_CHAIN_NEXT_OFF + 1)) {
		dst_release(dst);
		return RS_CH_XMIT_ERRORS;
	}
	advance(skb, gue, from.s6_addr32, hop->s6_addr32, 4);
	w = ipv6_hdr(skb);
	w->saddr = self;
	w->daddr = *hop;
	w->hop_limit--;
	leave(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	ip6_local_out(net, NULL, skb);
	return RS_CH_FORWARDED;
}

enum rs_chain_stat rs_chain_forward(struct net *net, struct sk_buff *skb,
				    u8 family, unsigned int gue, const u8 *hop)
{
	struct in6_addr a6;
	__be32 a4;

	if (family == AF_INET) {
		memcpy(&a4, hop, sizeof(a4));
		return forward4(net, skb, gue, a4);
	}
	memcpy(&a6, hop, sizeof(a6));
	return forward6(net, skb, gue, &a6);
}
