/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When the conntrack walks a namespace's changes need run, and what they
 * may cost (ct_sweep.c). Everything here runs under the namespace's lock,
 * which the sweep is handed at init and knows nothing else of, but
 * rs_sweep_walked(), which reads one number without it.
 */
#ifndef _RINGSTEER_CT_SWEEP_H
#define _RINGSTEER_CT_SWEEP_H

#include <linux/list.h>
#include <linux/workqueue.h>

#include "ct_walk.h"

struct mutex;
struct net;
struct rs_sweep;

/* The targets of one change's walk, allocated by its prepare step. */
struct rs_sweep_batch {
	struct list_head node;		/* rs_sweep->queue */
	unsigned long due;		/* jiffies: its deferred walk */
	u64 delete_seq;			/* a delete's first walk; 0: none */
	bool second;			/* walked once: RS_SECOND_PASS later */
	u32 n;
	struct rs_ct_target t[];
};

/*
 * What the namespace that owns a sweep keeps for it: the services deleted
 * with keep-flows, whose flows the deferred walk counts. Called with the
 * namespace's lock held.
 */
struct rs_sweep_ops {
	/* The kept flows' count targets, into @t if not NULL; how many. */
	u32 (*kept_targets)(struct rs_sweep *s, struct rs_ct_target *t);
	/* Their counts, in the same order, are in. */
	void (*kept_counted)(struct rs_sweep *s, const u64 *counts);
	/* The first walk of every delete up to @seq has run: announce it. */
	void (*walked)(struct rs_sweep *s, u64 seq);
};

struct rs_sweep {
	struct list_head queue;		/* batches waiting for a deferred walk */
	u32 nqueued;			/* their targets */
	u32 nsecond;			/* of them, second walks' */
	bool stopped;			/* no walk is started or scheduled */
	s64 credit;			/* ns of walking allowed now; < 0: owed */
	u64 stamp;			/* ktime_get_ns() the credit is of */
	u64 cost;			/* the last walk's, in ns */
	unsigned long poll_at;		/* jiffies: the kept flows' next count */
	u64 deletes_queued;		/* deletes given a walk (their seq) */
	u64 deletes_walked;		/* of them walked: READ_ONCE() unlocked */
	struct delayed_work work;
	struct net *net;		/* whose conntrack entries are walked */
	struct mutex *lock;		/* the namespace's: held by every call */
	const struct rs_sweep_ops *ops;
};

struct rs_sweep_batch *rs_sweep_batch_alloc(u32 n);
void rs_sweep_batch_free(struct rs_sweep_batch *b);

/* The namespace's @lock guards the sweep; its deferred walk takes it too. */
void rs_sweep_init(struct rs_sweep *s, struct net *net, struct mutex *lock,
		   const struct rs_sweep_ops *ops);
/* No walk is started or scheduled any more (the lock held). */
void rs_sweep_stop(struct rs_sweep *s);
/* After rs_sweep_stop(), without the lock: a running walk has ended. */
void rs_sweep_sync(struct rs_sweep *s);
void rs_sweep_free(struct rs_sweep *s);

/*
 * Whether a change may queue @n more targets: at most RS_SWEEP_MAX wait
 * for a first walk. Asked before the change is applied; a change refused
 * here changes nothing, and no walk ever runs without credit.
 */
bool rs_sweep_room(const struct rs_sweep *s, u32 n);
/*
 * After a delete is published: @b's targets are queued for the deferred
 * walk, which runs as soon as the credit allows, and once more later.
 * Takes @b. Returns the delete's sequence number, which the walked()
 * announcement and rs_sweep_walked() reach once its first walk has run,
 * or 0 if there is nothing to walk. Never waits.
 */
u64 rs_sweep_deleted(struct rs_sweep *s, struct rs_sweep_batch *b);
/* The last delete whose first walk has run; any lock or none. */
u64 rs_sweep_walked(const struct rs_sweep *s);
/* After a service is published: walk for @b's now or soon. Takes @b. */
void rs_sweep_added(struct rs_sweep *s, struct rs_sweep_batch *b);
/*
 * What is published again must not be swept: queued targets like @like
 * (kind, VIP, port, protocol, and backend unless @like is any backend's)
 * are forgotten.
 */
void rs_sweep_forget(struct rs_sweep *s, const struct rs_ct_target *like);
/* The kept flows changed: their count is due in RS_KEPT_POLL at most. */
void rs_sweep_kept(struct rs_sweep *s);

#endif /* _RINGSTEER_CT_SWEEP_H */
