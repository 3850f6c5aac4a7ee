/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one network namespace: its key, its services, its hooks
 * (NAT, and tunnel for forward tunnel services, and the owner chain's
 * backend mode),
 * and the services deleted with keep-flows whose flows still need NAT.
 *
 * Locking: every change and every read of writer fields happens under
 * rs_net->lock, a mutex (changes allocate rings and walk the conntrack
 * table). The packet path reads only rs_net->services, under RCU (steer.h).
 */
#ifndef _RINGSTEER_NETNS_H
#define _RINGSTEER_NETNS_H

#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/netns/generic.h>

#include "chain_rx.h"
#include "ct_count.h"
#include "ct_walk.h"
#include "nat.h"
#include "steer.h"
#include "ct_sweep.h"
#include "tunnel.h"

struct rs_net {
	struct mutex lock;		/* see above */
	u8 key[RINGSTEER_KEY_LEN];	/* writer */
	struct rs_services services;
	struct rs_hooks hooks;		/* writer */
	struct rs_tun_hooks tun_hooks;	/* writer */
	struct rs_chain_rx *chain;	/* writer: the backend mode, or NULL */
	u32 generation;			/* writer: bumped once by every change */
	bool dying;			/* writer: pre_exit has run */
	/*
	 * Services deleted with keep-flows: their conntrack entries still
	 * need the NAT hooks and conntrack, until the last one is gone.
	 */
	struct list_head retired;	/* writer: struct rs_retired */
	u32 nkept;			/* writer: on retired */
	struct rs_sweep sweep;		/* writer */
	struct rs_conns conns;		/* connection counts: ct_count.h */
	struct net *net;
};

extern unsigned int rs_net_id;

static inline struct rs_net *rs_net(const struct net *net)
{
	return net_generic(net, rs_net_id);
}

/* A service deleted with keep-flows, as long as flows it steered last. */
struct rs_retired {
	struct list_head node;
	struct rs_ct_target flows;
};

/* The ring points one namespace may hold (module parameter). */
u64 rs_net_points_max(void);
/* The services with kept flows one namespace may have (module parameter). */
u32 rs_net_kept_max(void);

/* rs_net->lock held. */
u32 rs_net_kept(struct rs_net *rn);
/* The backends one namespace may have (module parameter). */
u32 rs_net_backends_max(void);
/* rs_net->lock held: its backends now, draining ones included. */
u32 rs_net_backends(const struct rs_net *rn);
/* The hooks a new service of @fwd needs, before it is linked. */
int rs_net_hooks_get(struct rs_net *rn, const struct rs_forward *fwd);
/* Those no service or kept flow needs any more go. */
void rs_net_hooks_put(struct rs_net *rn);
/* Allocated ahead, so that retiring a service cannot fail. */
struct rs_retired *rs_retired_alloc(const struct rs_service *svc);
void rs_net_retire(struct rs_net *rn, struct rs_retired *r);
void rs_net_unretire(struct rs_net *rn, const struct rs_service *svc);

int __init rs_netns_init(void);
void rs_netns_uninit(void);

#endif /* _RINGSTEER_NETNS_H */
