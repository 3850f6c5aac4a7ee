/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward tunnel: the hooks that encapsulate every packet of a tunnel
 * service to the backend the ring picks (tunnel.c; the encapsulation
 * itself is encap.h's).
 */
#ifndef _RINGSTEER_TUNNEL_H
#define _RINGSTEER_TUNNEL_H

#include <linux/netfilter.h>

#include "steer.h"

struct net;

/*
 * One namespace's tunnel hooks, IPv4 and IPv6 PRE_ROUTING; priv points at
 * its services, as for the NAT hooks (nat.h).
 */
struct rs_tun_hooks {
	struct nf_hook_ops ops[2];
	bool registered;
};

/*
 * rs_net->lock held. Registration enables defragmentation in @net (so
 * that fragments hash on their whole flow), never conntrack or nf_nat.
 * Unregistration does not wait for the packets still in the hooks
 * (nf_unregister_net_hooks() frees its entries with call_rcu() and, on
 * 6.1 and 6.12 alike, does not synchronize): what they read is freed a
 * grace period later, the flow table here, services and backends by
 * commit.c, the services themselves with the namespace (netns.c).
 */
int rs_tun_hooks_register(struct net *net, struct rs_tun_hooks *hooks,
			  struct rs_services *services);
void rs_tun_hooks_unregister(struct net *net, struct rs_tun_hooks *hooks,
			     struct rs_services *services);

#endif /* _RINGSTEER_TUNNEL_H */
