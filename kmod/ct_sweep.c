// SPDX-License-Identifier: GPL-2.0
/*
 * When the conntrack walks a namespace's changes need run, and what they
 * may cost.
 *
 * Every walk visits the whole host's conntrack table (conntrack has one
 * for all namespaces) under nf_conntrack_mutex, which conntrack -F,
 * namespace teardown and every other walk wait for, and the namespace may
 * be an unprivileged user's. So each namespace's walks are bounded: they
 * may take RS_WALK_BURST at once, then a tenth of the time (a credit that
 * refills at a tenth of the time passed, the cost of each walk measured
 * and taken from it), and they are batched:
 *
 * - A delete is walked for by the deferred walk, never by the request:
 *   the request returns once the delete is published, and a walk it
 *   waited for would hold genetlink's cb_lock meanwhile (genl_rcv()), and
 *   with it every generic netlink request of the host once a family
 *   registers. The walk runs as soon as the credit allows (at once while
 *   there is some), after a grace period; the delete's sequence number
 *   is in its reply, and the walk's end is announced (rs_sweep_ops
 *   walked) for whoever waits for it: ringctl does by default
 *   (doc/semantics.md, "Deleting"). A health mark with on-down reset is
 *   one such delete, and never waits either.
 * - A new service's walk for flows bound to its VIP (ct_walk.c) runs at
 *   once while there is credit, or else deferred, with whatever else is
 *   due then: a restore of many services costs a walk or two, not one
 *   each, and old flows reach the VIP a little longer meanwhile.
 * - What a delete or a new service walked for is walked for once more,
 *   RS_SECOND_PASS later, by the deferred walk: see commit.c walk() for
 *   the packets that only this second walk sees. (A new service's
 *   deferred walk is late enough already.)
 * - Kept flows are counted by the deferred walk, every RS_KEPT_POLL, or
 *   RS_KEPT_SHARE times the last walk's cost if that is longer.
 *
 * Whatever runs a walk serves everything due in the same walk. Nothing
 * sleeps for the credit, and no walk runs without it: a namespace may
 * have RS_SWEEP_MAX targets waiting for a first walk, and a change that
 * would queue more is refused before it is applied (rs_sweep_room(),
 * EAGAIN), so what one namespace queues is bounded, its memory charged
 * to whoever made the changes. Second walks have a bound of their own,
 * and beyond it are skipped, not walked early.
 */

#include <linux/jiffies.h>
#include <linux/slab.h>

#include "ct_sweep.h"

#define RS_WALK_BURST	NSEC_PER_SEC
#define RS_WALK_SHARE	10
#define RS_KEPT_POLL	(10 * HZ)
#define RS_KEPT_SHARE	100
#define RS_SECOND_PASS	(5 * HZ)
/* Targets queued for first walks, and for second walks, at most. */
#define RS_SWEEP_MAX	4096

struct rs_sweep_batch *rs_sweep_batch_alloc(u32 n)
{
	struct rs_sweep_batch *b;

	b = kvzalloc(struct_size(b, t, n), GFP_KERNEL_ACCOUNT);
	if (b)
		INIT_LIST_HEAD(&b->node);
	return b;
}

void rs_sweep_batch_free(struct rs_sweep_batch *b)
{
	kvfree(b);
}

/* The credit now, refilled for the time since it was last looked at. */
static s64 credit(struct rs_sweep *s)
{
	u64 now = ktime_get_ns();

	s->credit = min_t(s64, RS_WALK_BURST,
			  s->credit + (s64)div_u64(now - s->stamp, RS_WALK_SHARE));
	s->stamp = now;
	return s->credit;
}

/* How long until a walk may start. */
static u64 owed_ns(struct rs_sweep *s)
{
	s64 c = credit(s);

	return c > 0 ? 0 : (u64)-c * RS_WALK_SHARE + 1;
}

static void charge(struct rs_sweep *s, u64 cost)
{
	credit(s);
	s->credit -= min_t(u64, cost, S64_MAX / 2);
	s->cost = cost;
}

static u32 nkept(struct rs_sweep *s)
{
	return s->ops->kept_targets(s, NULL);
}

static bool poll_due(struct rs_sweep *s)
{
	return nkept(s) && time_after_eq(jiffies, s->poll_at);
}

static void queue_batch(struct rs_sweep *s, struct rs_sweep_batch *b,
			unsigned long due)
{
	b->due = due;
	list_add_tail(&b->node, &s->queue);
	s->nqueued += b->n;
	if (b->second)
		s->nsecond += b->n;
}

static void unqueue_batch(struct rs_sweep *s, struct rs_sweep_batch *b)
{
	list_del_init(&b->node);
	s->nqueued -= b->n;
	if (b->second)
		s->nsecond -= b->n;
}

/* Arm the deferred walk for the first thing due, once credit allows. */
static void arm(struct rs_sweep *s)
{
	struct rs_sweep_batch *b;
	unsigned long at = 0, wait;
	bool any = false;

	list_for_each_entry(b, &s->queue, node) {
		if (!any || time_before(b->due, at))
			at = b->due;
		any = true;
	}
	if (nkept(s) && (!any || time_before(s->poll_at, at))) {
		at = s->poll_at;
		any = true;
	}
	if (!any || s->stopped)
		return;
	wait = time_after(at, jiffies) ? at - jiffies : 0;
	/*
	 * Rounded up: a wait rounded down ends before the credit is there,
	 * and the work would run again and again for the jiffy's rest.
	 */
	wait = max(wait, nsecs_to_jiffies(owed_ns(s) + TICK_NSEC - 1));
	/* Unbound: a walk can take seconds of CPU. */
	mod_delayed_work(system_unbound_wq, &s->work, wait);
}

static bool batch_due(struct rs_sweep *s, unsigned long now)
{
	struct rs_sweep_batch *b;

	list_for_each_entry(b, &s->queue, node) {
		if (!time_before(now, b->due))
			return true;
	}
	return false;
}

/*
 * @now's targets, those of the batches due at @j and, with @poll, the
 * kept flows' (last), into @t if not NULL; returns how many.
 */
static u32 gather(struct rs_sweep *s, const struct rs_sweep_batch *now,
		  unsigned long j, bool poll, struct rs_ct_target *t)
{
	struct rs_sweep_batch *b;
	u32 n = 0;

	if (now) {
		if (t)
			memcpy(t, now->t, now->n * sizeof(*t));
		n += now->n;
	}
	list_for_each_entry(b, &s->queue, node) {
		if (time_before(j, b->due))
			continue;
		if (t)
			memcpy(t + n, b->t, b->n * sizeof(*t));
		n += b->n;
	}
	if (poll)
		n += s->ops->kept_targets(s, t ? t + n : NULL);
	return n;
}

/* Out of memory: what was due is tried again a little later. */
static void postpone(struct rs_sweep *s, unsigned long j)
{
	struct rs_sweep_batch *b;

	list_for_each_entry(b, &s->queue, node) {
		if (!time_before(j, b->due))
			b->due = j + HZ;
	}
	if (poll_due(s))
		s->poll_at = j + RS_KEPT_POLL;
}

/* Walked once: queued for the second walk, if there is room. */
static void second_pass(struct rs_sweep *s, struct rs_sweep_batch *b)
{
	b->second = true;
	if (s->nsecond + b->n <= RS_SWEEP_MAX)
		queue_batch(s, b, jiffies + RS_SECOND_PASS);
	else
		rs_sweep_batch_free(b);
	arm(s);
}

/*
 * A first walk done in the queue: a delete's is walked once more later;
 * a new service's deferred walk is late enough already.
 */
static void first_walked(struct rs_sweep *s, struct rs_sweep_batch *b)
{
	if (!b->delete_seq) {
		rs_sweep_batch_free(b);
		return;
	}
	WRITE_ONCE(s->deletes_walked, max(s->deletes_walked, b->delete_seq));
	b->delete_seq = 0;
	second_pass(s, b);
}

/*
 * One walk for @now (if not NULL) and everything due. Without the memory
 * to gather them, @now walks alone and the rest waits for the next.
 */
static void run(struct rs_sweep *s, const struct rs_sweep_batch *now)
{
	struct rs_sweep_batch *b, *tmp;
	unsigned long j = jiffies;
	bool poll = poll_due(s);
	u64 *counts, walked = s->deletes_walked;
	struct rs_ct_target *t;
	u32 n, kept = 0;

	n = gather(s, now, j, poll, NULL);
	t = kvcalloc(max(n, 1U), sizeof(*t), GFP_KERNEL_ACCOUNT);
	counts = kvcalloc(max(n, 1U), sizeof(*counts), GFP_KERNEL_ACCOUNT);
	if (!t || !counts) {
		if (now)
			charge(s, rs_ct_walk(s->net, now->t, now->n, NULL));
		postpone(s, j);
		goto out;
	}
	if (poll)
		kept = nkept(s);
	gather(s, now, j, poll, t);
	charge(s, rs_ct_walk(s->net, t, n, counts));
	list_for_each_entry_safe(b, tmp, &s->queue, node) {
		if (time_before(j, b->due))
			continue;
		unqueue_batch(s, b);
		if (b->second)
			rs_sweep_batch_free(b);
		else
			first_walked(s, b);
	}
	if (s->deletes_walked != walked)
		s->ops->walked(s, s->deletes_walked);
	if (poll) {
		s->ops->kept_counted(s, counts + n - kept);
		s->poll_at = jiffies + max_t(unsigned long, RS_KEPT_POLL,
					     nsecs_to_jiffies(s->cost * RS_KEPT_SHARE));
	}
out:
	kvfree(t);
	kvfree(counts);
}

bool rs_sweep_room(const struct rs_sweep *s, u32 n)
{
	lockdep_assert_held(s->lock);
	return s->nqueued - s->nsecond + n <= RS_SWEEP_MAX;
}

u64 rs_sweep_deleted(struct rs_sweep *s, struct rs_sweep_batch *b)
{
	lockdep_assert_held(s->lock);
	if (!b->n) {
		rs_sweep_batch_free(b);
		return 0;
	}
	/* The deferred walk waits a grace period first. */
	b->delete_seq = ++s->deletes_queued;
	queue_batch(s, b, jiffies);
	arm(s);
	return b->delete_seq;
}

u64 rs_sweep_walked(const struct rs_sweep *s)
{
	return READ_ONCE(s->deletes_walked);
}

void rs_sweep_added(struct rs_sweep *s, struct rs_sweep_batch *b)
{
	lockdep_assert_held(s->lock);
	if (owed_ns(s)) {
		queue_batch(s, b, jiffies);
		arm(s);
		return;
	}
	/*
	 * No grace period: the flows this is for were bound before. One a
	 * packet that missed the service is binding now is the second
	 * walk's, which saves every new service a grace period.
	 */
	run(s, b);
	second_pass(s, b);
}

static bool like_target(const struct rs_ct_target *t,
			const struct rs_ct_target *like)
{
	if (t->kind != like->kind || t->family != like->family ||
	    t->proto != like->proto || t->port != like->port ||
	    !rs_addr_equal(t->family, &t->vip, &like->vip))
		return false;
	return like->any_backend ||
	       (!t->any_backend && t->backend_port == like->backend_port &&
		rs_addr_equal(t->family, &t->backend_addr, &like->backend_addr));
}

void rs_sweep_forget(struct rs_sweep *s, const struct rs_ct_target *like)
{
	struct rs_sweep_batch *b;
	u32 i;

	lockdep_assert_held(s->lock);
	list_for_each_entry(b, &s->queue, node) {
		for (i = 0; i < b->n; i++) {
			if (like_target(&b->t[i], like))
				b->t[i].kind = RS_CT_NONE;
		}
	}
}

void rs_sweep_kept(struct rs_sweep *s)
{
	lockdep_assert_held(s->lock);
	/* The first: counted in RS_KEPT_POLL. Others join its schedule. */
	if (nkept(s) == 1)
		s->poll_at = jiffies + RS_KEPT_POLL;
	arm(s);
}

static void sweep_work(struct work_struct *work)
{
	struct rs_sweep *s = container_of(to_delayed_work(work), struct rs_sweep,
					  work);

	mutex_lock(s->lock);
	if (!s->stopped && !owed_ns(s) &&
	    (poll_due(s) || batch_due(s, jiffies))) {
		/* Deferred first walks need a grace period, as deletes do. */
		synchronize_net();
		run(s, NULL);
	}
	arm(s);
	mutex_unlock(s->lock);
}

void rs_sweep_init(struct rs_sweep *s, struct net *net, struct mutex *lock,
		   const struct rs_sweep_ops *ops)
{
	INIT_LIST_HEAD(&s->queue);
	s->credit = RS_WALK_BURST;
	s->stamp = ktime_get_ns();
	s->net = net;
	s->lock = lock;
	s->ops = ops;
	INIT_DELAYED_WORK(&s->work, sweep_work);
}

void rs_sweep_stop(struct rs_sweep *s)
{
	lockdep_assert_held(s->lock);
	s->stopped = true;
}

void rs_sweep_sync(struct rs_sweep *s)
{
	cancel_delayed_work_sync(&s->work);
}

void rs_sweep_free(struct rs_sweep *s)
{
	struct rs_sweep_batch *b, *tmp;

	list_for_each_entry_safe(b, tmp, &s->queue, node) {
		unqueue_batch(s, b);
		rs_sweep_batch_free(b);
	}
}
