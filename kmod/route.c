// SPDX-License-Identifier: GPL-2.0
/*
 * forward tunnel: the route to a backend, one for every CPU, as IPVS
 * keeps one a destination (ip_vs_xmit.c, __ip_vs_dst_check()). Per CPU
 * (struct dst_cache) it was 40 bytes a CPU and a cold line a packet more
 * at thousands of backends; shared, it sits in the backend's first line.
 *
 * Rules.
 *  - The backend holds a reference to the route it caches; packets carry
 *    it without one (skb_dst_set_noref()). They run under rcu_read_lock(),
 *    and the stack takes a reference where it keeps a packet past that
 *    (skb_dst_force(), in a neighbour's or a device's queue).
 *  - The backend's reference to a replaced route is dropped only after a
 *    grace period, as IPVS drops a destination's (ip_vs_dest_dst_rcu_free()):
 *    dropped at once, it can be the last, and a packet still carrying the
 *    route without one would then fail skb_dst_force() and lose its route
 *    in a queue. IPVS allocates a callback's head for every route; here
 *    the replaced route waits in route_old with a polled grace period
 *    (start_poll_synchronize_rcu()), and the next replacement drops it
 *    once that has passed. Until then routes are not replaced: a packet
 *    that finds the cached one stale looks one up for itself.
 *  - The route, its source address and its IPv6 cookie change together:
 *    written under route_lock inside route_seq, read inside route_seq;
 *    route_old and route_gp under route_lock only.
 *  - Nobody waits. A reader that meets a writer, and a writer that meets
 *    another, looks the route up for its own packet, as a miss does. The
 *    hook runs with bottom halves off (tunnel.c), so plain spin_trylock().
 *  - A route dst_check() finds stale is looked up again and replaces it.
 *  - The cached and the replaced route go with the backend
 *    (rs_backend_free()), a grace period after the last packet that could
 *    read either.
 */

#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "route.h"

/* The cached route if still valid, its source in @saddr4 or @saddr6. */
static struct dst_entry *cached(struct rs_backend *b, __be32 *saddr4,
				struct in6_addr *saddr6)
{
	struct dst_entry *dst;
	unsigned int seq;
	u32 cookie = 0;

	seq = raw_read_seqcount(&b->route_seq);
	if (seq & 1)
		return NULL;
	dst = READ_ONCE(b->route);
	if (saddr6) {
		*saddr6 = b->route_saddr6;
		cookie = b->route_cookie;
	} else {
		*saddr4 = b->route_saddr;
	}
	if (read_seqcount_retry(&b->route_seq, seq) || !dst)
		return NULL;
	return dst_check(dst, cookie);
}

static void store(struct rs_backend *b, struct dst_entry *dst,
		  __be32 saddr4, const struct in6_addr *saddr6, u32 cookie)
{
	struct dst_entry *old;

	if (!spin_trylock(&b->route_lock))
		return;
	old = b->route_old;
	if (old && !poll_state_synchronize_rcu(b->route_gp)) {
		spin_unlock(&b->route_lock);
		return;
	}
	dst_hold(dst);
	b->route_old = b->route;
	if (b->route_old)
		b->route_gp = start_poll_synchronize_rcu();
	write_seqcount_begin(&b->route_seq);
	WRITE_ONCE(b->route, dst);
	b->route_saddr = saddr4;
	if (saddr6)
		b->route_saddr6 = *saddr6;
	b->route_cookie = cookie;
	write_seqcount_end(&b->route_seq);
	spin_unlock(&b->route_lock);
	dst_release(old);
}

/* Cached: no reference for the packet to hold (see the rules above). */
static void attach(struct sk_buff *skb, struct dst_entry *dst, bool noref)
{
	skb_dst_drop(skb);
	if (noref)
		skb_dst_set_noref(skb, dst);
	else
		skb_dst_set(skb, dst);
}

/*
 * saddr 0 for the lookup: the host's own routed address, which
 * anti-spoofing filters accept.
 */
struct rtable *rs_route4(struct net *net, struct sk_buff *skb,
			 struct rs_backend *b, u8 proto, __be32 *saddr)
{
	struct flowi4 fl4 = {};
	struct dst_entry *dst;
	struct rtable *rt;

	dst = cached(b, saddr, NULL);
	if (dst) {
		attach(skb, dst, true);
		return container_of(dst, struct rtable, dst);
	}
	memcpy(&fl4.daddr, b->member.addr, sizeof(fl4.daddr));
	fl4.flowi4_proto = proto;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	if (rt->rt_type != RTN_UNICAST) {
		ip_rt_put(rt);
		return NULL;
	}
	store(b, &rt->dst, fl4.saddr, NULL, 0);
	attach(skb, &rt->dst, false);
	*saddr = fl4.saddr;
	return rt;
}

struct dst_entry *rs_route6(struct net *net, struct sk_buff *skb,
			    struct rs_backend *b, u8 proto,
			    struct in6_addr *saddr)
{
	struct flowi6 fl6 = {};
	struct dst_entry *dst;

	dst = cached(b, NULL, saddr);
	if (dst) {
		attach(skb, dst, true);
		return dst;
	}
	memcpy(&fl6.daddr, b->member.addr, sizeof(fl6.daddr));
	fl6.flowi6_proto = proto;
	dst = ip6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return NULL;
	if (container_of(dst, struct rt6_info, dst)->rt6i_flags & RTF_LOCAL) {
		dst_release(dst);
		return NULL;
	}
	store(b, dst, 0, &fl6.saddr, rt6_get_cookie(container_of(dst, struct rt6_info, dst)));
	attach(skb, dst, false);
	*saddr = fl6.saddr;
	return dst;
}
