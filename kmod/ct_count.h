/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live connection counts (BACKEND_GET with RINGSTEER_F_CONNS). Counting
 * is one walk of the host's whole conntrack table, whatever the size of
 * the namespace: requests need CAP_NET_ADMIN over the namespace
 * (netlink.c), and the walks of one namespace are bounded here:
 *  - one walk counts every backend of every service of the namespace, and
 *    the counts are kept in the backends (rs_backend->conns);
 *  - a walk starts no sooner than RINGSTEER_CONNS_GAP times the last
 *    walk's duration after that one started, so walks keep a CPU busy at
 *    most a tenth of the time however many ask; a request in between is
 *    answered from the kept counts, or waits for the next walk if they
 *    miss a backend it asks for;
 *  - one walk at a time per namespace, and none holds rs_net->lock:
 *    changes to the namespace go on while it walks.
 *
 * Locking: rs_conns->walking serializes the walks of a namespace and is
 * taken before the namespace's lock (rs_net->lock, handed in at init),
 * never while holding it. start and took are written with both held, so
 * either lock is enough to read them.
 */
#ifndef _RINGSTEER_CT_COUNT_H
#define _RINGSTEER_CT_COUNT_H

#include <linux/mutex.h>
#include <linux/types.h>

struct net;
struct rs_services;
struct rs_service;
struct rs_backend;

struct rs_conns {
	struct mutex walking;	/* see above */
	u64 start;		/* ns (ktime) the last walk started; 0: none yet */
	u64 took;		/* ns it took */
	struct net *net;		/* whose conntrack entries are counted */
	struct mutex *ns_lock;		/* the namespace's */
	struct rs_services *services;	/* the namespace's, under ns_lock */
};

void rs_conns_init(struct rs_conns *c, struct net *net, struct mutex *ns_lock,
		   struct rs_services *services);

/*
 * Make sure @svc's backends (or only @only) hold counts at most
 * RINGSTEER_CONNS_GAP walks' durations old. @c->ns_lock held; it may be
 * dropped and taken again, so @svc and @only must be looked up again
 * afterwards. 0, -ENOMEM or -EINTR (a fatal signal while waiting).
 */
int rs_conns_count(struct rs_conns *c, struct rs_service *svc,
		   struct rs_backend *only);

#endif /* _RINGSTEER_CT_COUNT_H */
