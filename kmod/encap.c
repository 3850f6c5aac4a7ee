// SPDX-License-Identifier: GPL-2.0
/*
 * forward tunnel's encapsulation, after IPVS's ip_vs_tunnel_xmit{,_v6}()
 * (net/netfilter/ipvs/ip_vs_xmit.c): the route to the backend from its
 * cache, the TTL (hop limit) decremented as IPVS does, the path MTU
 * checked before anything is changed (ICMP sent on the route attached to
 * the packet), headroom, offloads and inner headers for GSO, the outer
 * header with the inner DF, DSCP and hop count and the ECN encapsulated,
 * then the packet sent untracked.
 *
 * Softirq under rcu_read_lock(): no lock, no sleeping; the only
 * allocations are the kernel's own for a route not cached yet and for a
 * packet without the headroom (skb_cow_head()), as in any tunnel device.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/module.h>
#include <net/gue.h>
#include <net/icmp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/route.h>
#include <net/ip6_checksum.h>
#include <net/udp.h>

#include "chain_hdr.h"
#include "compat.h"
#include "encap.h"
#include "route.h"
#include "tally.h"

/*
 * The kernel's ICMP limits exempt fragmentation needed and packet too big
 * (icmpv4_mask_allow(), icmpv6_mask_allow()): a path that cannot learn
 * its MTU is broken for good. So without a limit of its own the hook would
 * answer them at the sender's rate; this one is per CPU, and theirs alone,
 * so that another host's time-exceeded flood cannot turn them off. Time
 * exceeded is left to the kernel's limits (icmp_msgs_per_sec and, per
 * destination, icmp_ratelimit), which apply in icmp_send().
 */
static unsigned int icmp_rate = 1000;
module_param(icmp_rate, uint, 0644);
MODULE_PARM_DESC(icmp_rate,
		 "Fragmentation needed / packet too big errors forward tunnel sends a second on one CPU in one namespace (default 1000; 0: none); time exceeded follows the kernel's own ICMP limits");

/* The GUE source port: from the flow's keyed hash, 49152..65535. */
static __be16 gue_sport(u64 hash)
{
	return htons(RS_GUE_SPORT_MIN | (u16)(hash >> 50));
}

/* The outer IPv6 flow label: from the same hash, never 0. */
static __be32 flow_label(u64 hash)
{
	u32 label = (u32)(hash >> 20) & 0xfffff;

	return htonl(label ?: 1);
}

static bool gue(const struct rs_steer *steer)
{
	return steer->fwd.encap == RINGSTEER_ENCAP_GUE;
}

/*
 * What the tunnel adds beyond an outer IP header of @family: a chained
 * service's MTU counts the most hops its packets carry, whatever this one
 * carries, so that every packet of a flow sees the same MTU.
 */
static unsigned int encap_len(const struct rs_steer *steer, u8 family)
{
	return gue(steer) ? sizeof(struct udphdr) + sizeof(struct guehdr) +
			    rs_chain_overhead(family, steer->fwd.chain) : 0;
}

/*
 * GUE's header: plain, or with a chained service's hops in its private
 * data (chain_hdr.h), for an outer packet of @family.
 */
static int push_gue(struct sk_buff *skb, const struct rs_steer *steer,
		    u8 inner, u8 family, const struct rs_tun_pkt *p)
{
	struct guehdr *gueh;
	unsigned int len;

	if (steer->fwd.chain < 2) {
		gueh = skb_push(skb, sizeof(*gueh));
		memset(gueh, 0, sizeof(*gueh));
		gueh->proto_ctype = inner;
		return 0;
	}
	len = rs_chain_len(family, p->nhops);
	if (!len)
		return -EINVAL;
	return rs_chain_encode(skb_push(skb, len), len, family, inner, 0,
			       p->hops, p->nhops) < 0 ? -EINVAL : 0;
}

/*
 * Whether @skb fits @mtu: a reassembled packet is judged by its largest
 * fragment (it leaves fragmented again), a GSO packet by its segments.
 */
static bool too_big(const struct sk_buff *skb, u16 frag_max, unsigned int mtu)
{
	if (frag_max)
		return frag_max > mtu;
	if (skb_is_gso(skb))
		return !skb_gso_validate_network_len(skb, mtu);
	return skb->len > mtu;
}

static void stat(struct rs_service *svc, enum rs_tun_stat which)
{
	rs_tun_stats_add(svc->tun_stats, which, RS_TUN_NSTATS);
}

/*
 * One more "too big" this second on this CPU? Bottom halves are off
 * (tunnel.c): the bucket is this CPU's alone.
 */
static bool may_answer(struct rs_service *svc,
		       struct rs_icmp_limit __percpu *limit)
{
	struct rs_icmp_limit *l = this_cpu_ptr(limit);
	bool ok;

	if (time_after_eq(jiffies, l->second + HZ)) {
		l->second = jiffies;
		l->sent = 0;
	}
	ok = l->sent < READ_ONCE(icmp_rate);
	l->sent += ok;
	if (!ok)
		stat(svc, RS_TUN_ICMP_LIMITED);
	return ok;
}

/*
 * Offloads and inner headers (GSO segments the inner packet correctly on
 * any device, with offloads on or off), then GUE's UDP and GUE headers.
 * @inner: IPPROTO_IPIP or IPPROTO_IPV6; @gso: SKB_GSO_IPXIP4 or _IPXIP6.
 */
static int encap(struct sk_buff *skb, const struct rs_steer *steer, u8 inner,
		 int gso, u8 family, const struct rs_tun_pkt *p)
{
	struct udphdr *uh;

	if (gue(steer))
		gso |= gso == SKB_GSO_IPXIP6 ? SKB_GSO_UDP_TUNNEL_CSUM :
					       SKB_GSO_UDP_TUNNEL;
	if (iptunnel_handle_offloads(skb, gso))
		return -EINVAL;
	skb->transport_header = skb->network_header;
	skb_set_inner_ipproto(skb, inner);
	skb_set_inner_mac_header(skb, skb_inner_network_offset(skb));
	if (!gue(steer))
		return 0;

	if (push_gue(skb, steer, inner, family, p))
		return -EINVAL;
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->dest = steer->fwd.encap_port;
	uh->source = gue_sport(p->hash);
	uh->len = htons(skb->len);
	uh->check = 0;
	return 0;
}

/* Neither conntrack nor anyone's NAT sees the outer packet. */
static void untrack(struct sk_buff *skb)
{
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	skb_clear_tstamp(skb);
	skb->ignore_df = 1;
}

/*
 * The outer header's ID, once the outer header is in place. An atomic
 * datagram (DF, and small enough for the route: ip_finish_output() will
 * not fragment it) gets 0 (RFC 6864), as ip_select_ident() gives it. Any
 * other may be fragmented, here (untrack() let a DF one be) or on the way,
 * so its ID must not repeat soon between this host and the backend: a
 * per-CPU counter of the backend's, started at random and advanced by the
 * segments a GSO packet becomes, as the kernel numbers a connected
 * socket's packets. Not ip_select_ident(): it hashes the destination into
 * a table shared by the host and draws a random number when the bucket
 * has been idle, which with thousands of backends is two cold accesses a
 * packet (5% of the LB's CPU at 4,000 backends). The IDs of 32 backends
 * share a cache line (tally.h).
 */
static __be16 outer_id(const struct sk_buff *skb, __be16 df,
		       const struct dst_entry *dst, struct rs_backend *b)
{
	u16 segs = skb_shinfo(skb)->gso_segs ?: 1;

	if (df && !too_big(skb, 0, dst_mtu(dst)))
		return 0;
	return htons(this_cpu_add_return(b->tally->outer_id[b->tally_idx],
					 segs) - segs);
}

/*
 * TTL, MTU and size; false if @skb was answered or is to be dropped
 * instead (the caller frees it).
 */
static bool fits4(struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, const struct rtable *rt,
		  const struct rs_tun_pkt *p)
{
	const struct iphdr *iph = ip_hdr(skb);
	unsigned int hlen = sizeof(struct iphdr) + encap_len(steer, AF_INET);
	unsigned int mtu;

	if (iph->ttl <= 1) {
		icmp_send(skb, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, 0);
		return false;
	}
	/* A maximal reassembled datagram has no room for an outer header. */
	if (!skb_is_gso(skb) && skb->len + hlen > IP_MAX_MTU) {
		stat(svc, RS_TUN_ENCAP_ERRORS);
		return false;
	}
	mtu = dst_mtu(&rt->dst) - hlen;
	/* Without DF the outer packet is fragmented instead (ip_fragment()). */
	if (!(iph->frag_off & htons(IP_DF)) ||
	    !too_big(skb, IPCB(skb)->frag_max_size, mtu))
		return true;
	stat(svc, RS_TUN_TOO_BIG);
	/* No IPv4 host need take less than 68 (RFC 791): none is advertised. */
	if (mtu >= 68 && may_answer(svc, p->icmp_limit))
		icmp_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, htonl(mtu));
	return false;
}

void rs_tun_xmit4(struct net *net, struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, struct rs_backend *b,
		  const struct rs_tun_pkt *p)
{
	unsigned int hlen = sizeof(struct iphdr) + encap_len(steer, AF_INET);
	struct iphdr *inner, *iph;
	__be32 saddr, daddr;
	struct rtable *rt;
	u8 dsfield, ttl;
	__be16 df;

	/* icmp_send() answers by the route the packet carries. */
	rt = rs_route4(net, skb, b, gue(steer) ? IPPROTO_UDP : IPPROTO_IPIP,
		       &saddr);
	if (!rt)
		goto err;
	if (!fits4(skb, svc, steer, rt, p))
		goto drop;
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst_dev(&rt->dst)) + hlen))
		goto err;
	inner = ip_hdr(skb);
	/* Forwarded, as IPVS's tunnel forwards: one hop less. */
	ip_decrease_ttl(inner);
	ttl = inner->ttl;
	df = inner->frag_off & htons(IP_DF);
	dsfield = INET_ECN_encapsulate(ipv4_get_dsfield(inner),
				       ipv4_get_dsfield(inner));
	memcpy(&daddr, b->member.addr, sizeof(daddr));
	if (encap(skb, steer, IPPROTO_IPIP, SKB_GSO_IPXIP4, AF_INET, p))
		goto err;
	/* RFC 6935: a zero UDP checksum is fine over IPv4. */
	if (gue(steer))
		udp_set_csum(true, skb, saddr, daddr, skb->len);

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->frag_off = df;
	iph->protocol = gue(steer) ? IPPROTO_UDP : IPPROTO_IPIP;
	iph->tos = dsfield;
	iph->daddr = daddr;
	iph->saddr = saddr;
	iph->ttl = ttl;
	untrack(skb);
	iph->id = outer_id(skb, df, &rt->dst, b);
	ip_local_out(net, NULL, skb);
	return;

err:
	stat(svc, RS_TUN_ENCAP_ERRORS);
drop:
	kfree_skb(skb);
}

static bool fits6(struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, const struct dst_entry *dst,
		  const struct rs_tun_pkt *p)
{
	unsigned int mtu;

	if (ipv6_hdr(skb)->hop_limit <= 1) {
		icmpv6_send(skb, ICMPV6_TIME_EXCEED, ICMPV6_EXC_HOPLIMIT, 0);
		return false;
	}
	/* The outer payload length must hold the whole inner packet. */
	if (!skb_is_gso(skb) && skb->len + encap_len(steer, AF_INET6) > IPV6_MAXPLEN) {
		stat(svc, RS_TUN_ENCAP_ERRORS);
		return false;
	}
	mtu = dst_mtu(dst) - sizeof(struct ipv6hdr) - encap_len(steer, AF_INET6);
	mtu = max(mtu, IPV6_MIN_MTU);
	if (!too_big(skb, IP6CB(skb)->frag_max_size, mtu))
		return true;
	stat(svc, RS_TUN_TOO_BIG);
	if (may_answer(svc, p->icmp_limit))
		icmpv6_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
	return false;
}

void rs_tun_xmit6(struct net *net, struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, struct rs_backend *b,
		  const struct rs_tun_pkt *p)
{
	unsigned int hlen = sizeof(struct ipv6hdr) + encap_len(steer, AF_INET6);
	struct ipv6hdr *inner, *ip6h;
	struct in6_addr saddr, daddr;
	struct dst_entry *dst;
	u8 dsfield, hops;

	dst = rs_route6(net, skb, b, gue(steer) ? IPPROTO_UDP : IPPROTO_IPV6,
			&saddr);
	if (!dst)
		goto err;
	if (!fits6(skb, svc, steer, dst, p))
		goto drop;
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst_dev(dst)) + hlen))
		goto err;
	inner = ipv6_hdr(skb);
	inner->hop_limit--;
	hops = inner->hop_limit;
	dsfield = INET_ECN_encapsulate(ipv6_get_dsfield(inner),
				       ipv6_get_dsfield(inner));
	memcpy(&daddr, b->member.addr, sizeof(daddr));
	if (encap(skb, steer, IPPROTO_IPV6, SKB_GSO_IPXIP6, AF_INET6, p))
		goto err;
	/*
	 * RFC 6935 allows a zero UDP checksum over IPv6 for tunnels only
	 * where the decapsulator accepts it (RFC 6936): computed instead, so
	 * any receiver and middlebox takes the packet.
	 */
	if (gue(steer))
		udp6_set_csum(false, skb, &saddr, &daddr, skb->len);

	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, dsfield, flow_label(p->hash));
	ip6h->nexthdr = gue(steer) ? IPPROTO_UDP : IPPROTO_IPV6;
	ip6h->hop_limit = hops;
	ip6h->saddr = saddr;
	ip6h->daddr = daddr;
	untrack(skb);
	ip6_local_out(net, NULL, skb);
	return;

err:
	stat(svc, RS_TUN_ENCAP_ERRORS);
drop:
	kfree_skb(skb);
}
