/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When the conntrack walks a namespace's changes need run, and what they
 * may cost (sweep.c). Everything here runs under rs_net->lock.
 */
#ifndef _RINGSTEER_SWEEP_H
#define _RINGSTEER_SWEEP_H

#include <linux/list.h>
#include <linux/workqueue.h>

#include "conntrack.h"

struct rs_net;

/* The targets of one change's walk, allocated by its prepare step. */
struct rs_sweep_batch {
	struct list_head node;		/* rs_sweep->queue */
	unsigned long due;		/* jiffies: its deferred walk */
	u32 n;
	struct rs_ct_target t[];
};

struct rs_sweep {
	struct list_head queue;		/* batches waiting for a deferred walk */
	u32 nqueued;			/* their targets */
	s64 credit;			/* ns of walking allowed now; < 0: owed */
	u64 stamp;			/* ktime_get_ns() the credit is of */
	u64 cost;			/* the last walk's, in ns */
	unsigned long poll_at;		/* jiffies: the kept flows' next count */
	struct delayed_work work;
};

struct rs_sweep_batch *rs_sweep_batch_alloc(u32 n);
void rs_sweep_batch_free(struct rs_sweep_batch *b);

void rs_sweep_init(struct rs_net *rn);
/* rn->dying set: no walk is started or scheduled any more. */
void rs_sweep_stop(struct rs_net *rn);
void rs_sweep_free(struct rs_net *rn);

/*
 * After a delete is published: walk for @b's targets before returning,
 * and once more later. Takes @b. May sleep, for the namespace's budget.
 */
void rs_sweep_deleted(struct rs_net *rn, struct rs_sweep_batch *b);
/* After a service is published: walk for @b's now or soon. Takes @b. */
void rs_sweep_added(struct rs_net *rn, struct rs_sweep_batch *b);
/*
 * What is published again must not be swept: queued targets like @like
 * (kind, VIP, port, protocol, and backend unless @like is any backend's)
 * are forgotten.
 */
void rs_sweep_forget(struct rs_net *rn, const struct rs_ct_target *like);
/* The kept flows changed: their count is due in RS_KEPT_POLL at most. */
void rs_sweep_kept(struct rs_net *rn);

#endif /* _RINGSTEER_SWEEP_H */
