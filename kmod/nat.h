/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward nat: the NAT lookup hooks nf_nat calls for a connection's first
 * packet (nat.c), registered in a namespace while it has a NAT service or
 * kept flows (rs_net_hooks_get(), netns.c), and the connlabel bit that
 * marks a connection ringsteer steered.
 */
#ifndef _RINGSTEER_NAT_H
#define _RINGSTEER_NAT_H

#include <linux/netfilter.h>

struct net;
struct nf_conn;
struct rs_services;

/*
 * One namespace's NAT lookup hooks. Each namespace registers its own copy
 * of the ops, whose priv points at its services: the packet path then
 * needs no per-namespace lookup, and nf_nat tells the copies apart on
 * unregistration by their address.
 */
struct rs_hooks {
	struct nf_hook_ops ops[4];
	bool registered;
};

/* At module load: the hook_priority and conntrack_label parameters checked. */
int __init rs_hooks_init(void);

/* Whether ringsteer's hook steered @ct (its connlabel bit is set). */
bool rs_ct_steered(const struct nf_conn *ct);

/*
 * Register or remove the hooks (and the conntrack they need) in @net;
 * rs_net->lock held. rs_hooks_unregister() returns at once, with packets
 * possibly still in the hook: the caller waits a grace period before it
 * frees what priv points at.
 */
int rs_hooks_register(struct net *net, struct rs_hooks *hooks,
		      struct rs_services *services);
void rs_hooks_unregister(struct net *net, struct rs_hooks *hooks);

#endif /* _RINGSTEER_NAT_H */
