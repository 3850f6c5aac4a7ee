/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward tunnel: the route to a backend, one for every CPU, kept in the
 * backend (struct rs_backend, route fields); route.c has the rules.
 */
#ifndef _RINGSTEER_ROUTE_H
#define _RINGSTEER_ROUTE_H

#include "steer.h"

struct net;
struct rtable;
struct sk_buff;

/*
 * Attach the route to @b for a packet of @proto to @skb (its old route
 * dropped) and give the source address it picked, or NULL: no route, or
 * one that is not unicast (IPv4) or is the host's own. Softirq, under
 * rcu_read_lock().
 */
struct rtable *rs_route4(struct net *net, struct sk_buff *skb,
			 struct rs_backend *b, u8 proto, __be32 *saddr);
struct dst_entry *rs_route6(struct net *net, struct sk_buff *skb,
			    struct rs_backend *b, u8 proto,
			    struct in6_addr *saddr);

#endif /* _RINGSTEER_ROUTE_H */
