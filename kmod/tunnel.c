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
 * The hook runs before routing, so it does routing's checks itself (as
 * ip_route_input_slow() and ip_forward() would) before it steers or
 * answers anything: a frame sent to another link-layer address (L2
 * broadcast or multicast) is dropped, and so is a packet whose source is
 * not a remote unicast address (multicast, broadcast, zeronet, loopback,
 * link-local, or one of the host's own); IPv6 likewise (multicast,
 * unspecified, loopback, v4-mapped, link-local, local). The bit tests run on every packet, the
 * routing table's only on a table miss: an entry was recorded by a packet
 * from the same source that passed them. What reaches a tunnel VIP and is
 * not steered (another port or protocol, ICMP echo, a fragment that could
 * not be reassembled, a routing header with segments left) is dropped
 * unless the VIP is one of the host's own addresses: the load balancer of
 * an ECMP fleet need not own its VIP, and its default route leads back to
 * the router that sent it, which would send it here again until its TTL
 * ran out.
 *
 * The outer path MTU: a router between the load balancer and a backend
 * answers an outer packet that is too big with an ICMP error to the load
 * balancer's own address, which the kernel applies only through a tunnel
 * device (tunl0, ip6tnl0, a fou port). So the hook applies it itself, if
 * it is about a packet to one of the namespace's backends and
 * net.ipv4.ip_no_pmtu_disc allows it, and the next packet of the flow is
 * answered with the smaller MTU.
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
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "flowtab.h"
#include "encap.h"
#include "tunnel.h"
#include "tally.h"

/* Between the raw table (-300) and conntrack (-200). */
#define RS_TUN_PRIORITY (NF_IP_PRI_RAW + 50)

/* What the hook reads of a packet before it knows the service. */
struct pkt_info {
	union nf_inet_addr saddr, daddr;	/* the flow's client and VIP */
	__be16 sport, dport;
	u8 proto;
	bool syn;		/* a TCP SYN without ACK: may start a flow */
	bool end;		/* a TCP FIN or RST: the client closes */
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
		pi->end = th->fin || th->rst;
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
	/* A first fragment quotes the ports: only a later one has none. */
	if (!qh || qh->ihl < 5 || qh->saddr != pi->daddr.ip ||
	    qh->frag_off & htons(IP_OFFSET))
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
	if (qoff < 0 || frag_off & htons(IP6_OFFSET))
		return false;
	pi->icmp = true;
	pi->proto = nexthdr;
	pi->saddr.in6 = qh->daddr;
	if (!read_ports(skb, qoff, pi))
		return false;
	swap(pi->sport, pi->dport);
	return true;
}

/*
 * A routing header with segments left: the VIP is a waypoint, not the
 * packet's destination, and the host's own routing decides (RFC 8200).
 */
static bool routed_on(const struct sk_buff *skb)
{
	int flags = IP6_FH_F_SKIP_RH;
	unsigned int off = 0;

	return ipv6_find_hdr(skb, &off, NEXTHDR_ROUTING, NULL, &flags) >= 0;
}

static bool read6(const struct sk_buff *skb, struct pkt_info *pi)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	u8 nexthdr = ip6h->nexthdr;
	__be16 frag_off;
	int thoff;

	thoff = ipv6_skip_exthdr(skb, sizeof(*ip6h), &nexthdr, &frag_off);
	if (thoff < 0 || frag_off || (nexthdr != ip6h->nexthdr && routed_on(skb)))
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
	rs_counter_inc(rs_backend_new_flows(b));
}

static unsigned int drop(struct rs_service *svc, enum rs_tun_stat why)
{
	rs_tun_stats_add(svc->tun_stats, RS_TUN_PACKETS, why);
	return NF_DROP;
}

/*
 * The bit tests on the packet's own source (not a quoted one). A
 * link-local source (169.254/16, fe80::/10) names a host on the link the
 * packet came in by, not on the backend's: ip6_forward() refuses to
 * forward it, and so does the tunnel, for both families.
 */
static bool plain_source(const struct sk_buff *skb, u8 family)
{
	__be32 a;

	if (family == AF_INET6)
		return !(ipv6_addr_type(&ipv6_hdr(skb)->saddr) &
			 (IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED |
			  IPV6_ADDR_LINKLOCAL)) &&
		       !ipv6_addr_any(&ipv6_hdr(skb)->saddr);
	/*
	 * The kernel's ipv4_is_zeronet() is 0.0.0.0 alone since 0/8 became
	 * assignable (5.3), but as a source "this network" (RFC 1122) names
	 * no host to answer: the whole /8 is refused here.
	 */
	a = ip_hdr(skb)->saddr;
	return !ipv4_is_multicast(a) && !ipv4_is_lbcast(a) &&
	       (a & htonl(IN_CLASSA_NET)) && !ipv4_is_loopback(a) &&
	       !ipv4_is_linklocal_169(a);
}

static bool local_address(struct net *net, u8 family,
			  const union nf_inet_addr *a)
{
	if (family == AF_INET6)
		return ipv6_chk_addr(net, &a->in6, NULL, 0);
	return inet_addr_type(net, a->ip) == RTN_LOCAL;
}

/* And the routing table's: a directed broadcast, or the host's own. */
static bool remote_source(struct net *net, const struct sk_buff *skb, u8 family)
{
	if (family == AF_INET6)
		return !ipv6_chk_addr(net, &ipv6_hdr(skb)->saddr, NULL, 0);
	return inet_addr_type(net, ip_hdr(skb)->saddr) == RTN_UNICAST;
}

/*
 * An ICMP error to the host's own address that quotes an outer packet
 * of ours (ipip or ip6ip6, or GUE from its source port range) to one of
 * the namespace's tunnel backends: its MTU goes into the route to the
 * backend, where the kernel's tunnel devices would have put it. The
 * checksum is checked last, as it reads the whole message. A quote of
 * any other destination (the host's BGP peer, its resolver) changes
 * nothing: nobody can lower the path MTU towards them through the hook.
 * Spoofed with a backend's address, it can lower the path MTU towards that
 * backend to the kernel's minimum for ip_rt_mtu_expires, as it can through
 * tunl0.
 */
static bool ours_quoted(struct rs_services *services, const struct sk_buff *skb,
			unsigned int qoff, u8 proto, u8 family,
			const union nf_inet_addr *daddr)
{
	const struct udphdr *uh;
	struct udphdr _uh;

	if (proto == IPPROTO_UDP) {
		uh = skb_header_pointer(skb, qoff, sizeof(_uh), &_uh);
		if (!uh || ntohs(uh->source) < RS_GUE_SPORT_MIN)
			return false;
	} else if (proto != IPPROTO_IPIP && proto != IPPROTO_IPV6) {
		return false;
	}
	return rs_tun_backend_rcu(services, family, daddr);
}

/*
 * net.ipv4.ip_no_pmtu_disc, as icmp_unreach() reads it for the kernel's
 * own tunnels: 0 learns. 2 ignores the error. 3 (hardened) believes it
 * only for protocols that verify it themselves (TCP, SCTP), never IPIP or
 * UDP. 1 would lock the route at min_pmtu; the hook copies the client's
 * DF to the outer header, so that would answer every client with the
 * smallest MTU on the word of one ICMP error: 1 learns nothing either
 * (doc/semantics.md).
 */
static bool pmtu_disc(struct net *net)
{
	return !READ_ONCE(net->ipv4.sysctl_ip_no_pmtu_disc);
}

static void learn_pmtu4(struct rs_services *services, struct net *net,
			struct sk_buff *skb)
{
	unsigned int off = ip_hdrlen(skb) + sizeof(struct icmphdr);
	union nf_inet_addr daddr = {};
	const struct icmphdr *ih;
	const struct iphdr *qh;
	struct icmphdr _ih;
	u32 mtu;

	ih = skb_header_pointer(skb, ip_hdrlen(skb), sizeof(_ih), &_ih);
	if (!ih || ih->type != ICMP_DEST_UNREACH || ih->code != ICMP_FRAG_NEEDED)
		return;
	mtu = ntohs(ih->un.frag.mtu);
	if (!pmtu_disc(net) || !pskb_may_pull(skb, off + sizeof(*qh)))
		return;
	qh = (const struct iphdr *)(skb->data + off);
	daddr.ip = qh->daddr;
	if (qh->ihl < 5 || qh->saddr != ip_hdr(skb)->daddr ||
	    !ours_quoted(services, skb, off + qh->ihl * 4, qh->protocol,
			 AF_INET, &daddr) ||
	    inet_addr_type(net, qh->saddr) != RTN_LOCAL ||
	    nf_ip_checksum(skb, NF_INET_PRE_ROUTING, ip_hdrlen(skb), IPPROTO_ICMP))
		return;
	/* It reads the quoted header at skb->data, as an err_handler does. */
	qh = (const struct iphdr *)(skb->data + off);
	__skb_pull(skb, off);
	ipv4_update_pmtu(skb, net, mtu, 0, qh->protocol);
	__skb_push(skb, off);
}

/* IPv6 has no ip_no_pmtu_disc: icmpv6_rcv() always believes a quote. */
static void learn_pmtu6(struct rs_services *services, struct net *net,
			struct sk_buff *skb)
{
	unsigned int off = sizeof(struct ipv6hdr) + sizeof(struct icmp6hdr);
	union nf_inet_addr daddr;
	const struct icmp6hdr *ih;
	const struct ipv6hdr *qh;
	struct icmp6hdr _ih;
	__be32 mtu;

	ih = skb_header_pointer(skb, sizeof(struct ipv6hdr), sizeof(_ih), &_ih);
	if (!ih || ih->icmp6_type != ICMPV6_PKT_TOOBIG)
		return;
	mtu = ih->icmp6_mtu;
	if (!pskb_may_pull(skb, off + sizeof(*qh)))
		return;
	qh = (const struct ipv6hdr *)(skb->data + off);
	daddr.in6 = qh->daddr;
	if (!ipv6_addr_equal(&qh->saddr, &ipv6_hdr(skb)->daddr) ||
	    !ours_quoted(services, skb, off + sizeof(*qh), qh->nexthdr,
			 AF_INET6, &daddr) ||
	    !ipv6_chk_addr(net, &qh->saddr, NULL, 0) ||
	    nf_ip6_checksum(skb, NF_INET_PRE_ROUTING, sizeof(struct ipv6hdr),
			    IPPROTO_ICMPV6))
		return;
	__skb_pull(skb, off);
	ip6_update_pmtu(skb, net, mtu, 0, 0, sock_net_uid(net, NULL));
	__skb_push(skb, off);
}

/*
 * Not a tunnel service's packet: an ICMP error about our outer packets
 * is learned from and passed on; what is for a tunnel VIP the host does
 * not own is dropped (see the top of the file), the rest passed on.
 */
static unsigned int not_steered(struct rs_services *services, struct net *net,
				struct sk_buff *skb, u8 family)
{
	union nf_inet_addr daddr = {};

	if (family == AF_INET) {
		if (ip_hdr(skb)->protocol == IPPROTO_ICMP)
			learn_pmtu4(services, net, skb);
		daddr.ip = ip_hdr(skb)->daddr;
	} else {
		/* The header is in the linear part before any extension. */
		if (ipv6_hdr(skb)->nexthdr == IPPROTO_ICMPV6)
			learn_pmtu6(services, net, skb);
		daddr.in6 = ipv6_hdr(skb)->daddr;
	}
	if (!rs_tun_vip_rcu(services, family, &daddr) ||
	    local_address(net, family, &daddr))
		return NF_ACCEPT;
	rs_counter_inc(services->unserved);
	return NF_DROP;
}

/*
 * The backend from the flow table, else the ring's, recorded (NULL: none
 * serves the VIP; a martian source is dropped on a miss, *@why set).
 */
static struct rs_backend *pick(struct net *net, struct sk_buff *skb,
			       struct rs_services *services,
			       struct rs_service *svc, const struct rs_steer *steer,
			       const struct pkt_info *pi, struct rs_tun_pkt *p,
			       u64 *pos, enum rs_tun_stat *why)
{
	struct rs_ft_entry *bkt;
	struct rs_backend *b;

	/*
	 * A hit vouches for the sender only when the sender is the flow's
	 * client: an ICMP error's key is the client it quotes.
	 */
	if (pi->icmp && !remote_source(net, skb, p->flow.family)) {
		*why = RS_TUN_MARTIANS;
		return NULL;
	}
	b = rs_ft_get(services, svc, &pi->saddr, pi->sport,
		      pi->syn ? RS_FT_SYN : pi->end ? RS_FT_END : RS_FT_DATA, &bkt);
	if (b) {
		count(svc, b, pi, true);
		*pos = rs_flow_position(&steer->ring->key, &p->flow, steer->hash);
		return b;
	}
	if (!pi->icmp && !remote_source(net, skb, p->flow.family)) {
		*why = RS_TUN_MARTIANS;
		return NULL;
	}
	b = rs_steer_pick(steer, &p->flow, pos);
	if (!b)
		return NULL;
	count(svc, b, pi, false);
	/* An ICMP error starts no flow. */
	if (!pi->icmp &&
	    !rs_ft_put(services, bkt, svc, &pi->saddr, pi->sport, b))
		rs_tun_stats_add(svc->tun_stats, RS_TUN_FLOOD_SKIPPED, RS_TUN_NSTATS);
	return b;
}

/*
 * A chained service's hops: the owner of @pos under the current ring and
 * each kept one but @b, newest first. Computed for every packet, table
 * hits included, rather than kept in the flow table: they are the
 * configuration's, the same on every LB whatever its table holds, and
 * the table's entries stay as small as without chain. A hit whose
 * backend is not the ring's owner (the flow started before a change)
 * carries the current owner as its first hop.
 */
static void chain_hops(const struct rs_steer *steer, u64 pos,
		       const struct rs_backend *b, struct rs_tun_pkt *p)
{
	const struct rs_ring *rings[RS_CHAIN_MAX];
	u8 i;

	if (steer->fwd.chain < 2)
		return;
	rings[0] = steer->ring;
	for (i = 0; i < steer->nkept; i++)
		rings[i + 1] = steer->kept[i];
	p->nhops = rs_chain_hops(rings, steer->nkept + 1, pos, &b->member,
				 p->hops);
}

static unsigned int tun_steer(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	u8 family = state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
	enum rs_tun_stat why = RS_TUN_NSTATS;
	struct rs_services *services = priv;
	const struct rs_steer *steer;
	struct rs_tun_pkt p = {};
	struct rs_service *svc;
	struct pkt_info pi;
	struct rs_backend *b;
	u64 pos;

	if (!(family == AF_INET ? read4(skb, &pi) : read6(skb, &pi)))
		return not_steered(services, state->net, skb, family);
	svc = rs_services_find_rcu(services, family, &pi.daddr, pi.dport,
				   pi.proto);
	if (!svc)
		return not_steered(services, state->net, skb, family);
	steer = rcu_dereference(svc->steer);
	if (!rs_tunnel(&steer->fwd))
		return NF_ACCEPT;
	if (skb->pkt_type != PACKET_HOST)
		return drop(svc, RS_TUN_NOT_HOST);
	if (!plain_source(skb, family))
		return drop(svc, RS_TUN_MARTIANS);

	rs_flow_init(&p.flow, family, pi.proto, &pi.saddr, pi.sport, &pi.daddr,
		     pi.dport);
	b = pick(state->net, skb, services, svc, steer, &pi, &p, &pos, &why);
	if (!b) {
		if (why != RS_TUN_NSTATS)
			return drop(svc, why);
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
	p.icmp_limit = services->icmp_limit;
	chain_hops(steer, pos, b, &p);
	if (family == AF_INET)
		rs_tun_xmit4(state->net, skb, svc, steer, b, &p);
	else
		rs_tun_xmit6(state->net, skb, svc, steer, b, &p);
	return NF_STOLEN;
}

/*
 * Mostly in softirq, but after an NFQUEUE verdict nf_reinject() runs the
 * remaining hooks in process context: the flow table's bucket locks, its
 * per-CPU flood rate and the per-CPU stats and route caches need their CPU
 * to stay, and no softirq between.
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
	ft = rs_ft_alloc(net);
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
