// SPDX-License-Identifier: GPL-2.0
/*
 * Live connection counts, bounded per namespace: see ct_count.h. A walk
 * counts from a copy of the namespace's services and backends taken under
 * the namespace's lock, without it, and stores the counts back into the
 * backends that still exist under it again.
 */

#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "ct_count.h"
#include "ct_walk.h"
#include "service.h"

void rs_conns_init(struct rs_conns *c, struct net *net, struct mutex *ns_lock,
		   struct rs_services *services)
{
	mutex_init(&c->walking);
	c->net = net;
	c->ns_lock = ns_lock;
	c->services = services;
	c->start = 0;
	c->took = 0;
}

/* What a request needs counted, by identity: objects may go meanwhile. */
struct need {
	struct rs_endpoint svc;
	struct rs_endpoint be;
	bool one;		/* only be; else every backend of svc */
};

static void target_ep(const struct rs_ct_target *t, struct rs_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->addr = t->vip;
	ep->port = t->port;
	ep->family = t->family;
	ep->proto = t->proto;
}

static void need_init(struct need *n, const struct rs_service *svc,
		      const struct rs_backend *only)
{
	struct rs_ct_target t;

	rs_ct_target_service(&t, svc);
	target_ep(&t, &n->svc);
	memset(&n->be, 0, sizeof(n->be));
	n->one = only;
	if (only) {
		n->be.family = only->member.family;
		memcpy(&n->be.addr, only->member.addr,
		       rs_addr_len(only->member.family));
		n->be.port = only->member.port;
	}
}

/* Gone objects count as counted: the caller's lookup reports them. */
static bool counted(struct rs_conns *c, const struct need *n)
{
	struct rs_service *svc = rs_service_find(c->services, &n->svc);
	struct rs_backend *b;

	if (!svc)
		return true;
	if (n->one) {
		b = rs_backend_find(svc, &n->be);
		return !b || b->counted;
	}
	list_for_each_entry(b, &svc->backends, node) {
		if (!b->counted)
			return false;
	}
	return true;
}

static u64 next_walk(const struct rs_conns *c)
{
	return c->start ? c->start + RINGSTEER_CONNS_GAP * c->took : 0;
}

/* A copy of every service's backends to count into. */
struct snap {
	struct rs_ct_count *svcs;	/* sorted by rs_ct_target_cmp() */
	struct rs_member *members;
	struct rs_ct_conns *conns;
	u32 n;
};

static void snap_free(struct snap *s)
{
	kvfree(s->svcs);
	kvfree(s->members);
	kvfree(s->conns);
}

static int count_cmp(const void *a, const void *b)
{
	return rs_ct_target_cmp(&((const struct rs_ct_count *)a)->service,
				&((const struct rs_ct_count *)b)->service);
}

static int snapshot(struct rs_conns *conns, struct snap *s)
{
	struct rs_services *services = conns->services;
	u32 nb = 0, i = 0, off = 0;
	struct rs_service *svc;
	struct rs_backend *b;

	list_for_each_entry(svc, &services->list, node)
		nb += svc->nbackends;
	s->n = services->count;
	s->svcs = kvcalloc(max(s->n, 1U), sizeof(*s->svcs), GFP_KERNEL_ACCOUNT);
	s->members = kvcalloc(max(nb, 1U), sizeof(*s->members), GFP_KERNEL_ACCOUNT);
	s->conns = kvcalloc(max(nb, 1U), sizeof(*s->conns), GFP_KERNEL_ACCOUNT);
	if (!s->svcs || !s->members || !s->conns) {
		snap_free(s);
		return -ENOMEM;
	}
	list_for_each_entry(svc, &services->list, node) {
		struct rs_ct_count *c = &s->svcs[i++];

		rs_ct_target_service(&c->service, svc);
		c->service.kind = RS_CT_COUNT;
		c->members = s->members + off;
		c->conns = s->conns + off;
		c->n = svc->nbackends;
		list_for_each_entry(b, &svc->backends, node)
			s->members[off++] = b->member;
	}
	sort(s->svcs, s->n, sizeof(*s->svcs), count_cmp, NULL);
	return 0;
}

/* Both lists are in identity order: one pass over each service's. */
static void store(struct rs_conns *conns, const struct snap *s)
{
	struct rs_service *svc;
	struct rs_endpoint ep;
	struct rs_backend *b;
	u32 i, j;

	for (i = 0; i < s->n; i++) {
		const struct rs_ct_count *c = &s->svcs[i];

		target_ep(&c->service, &ep);
		svc = rs_service_find(conns->services, &ep);
		if (!svc)
			continue;
		j = 0;
		list_for_each_entry(b, &svc->backends, node) {
			while (j < c->n && rs_member_cmp(&c->members[j], &b->member) < 0)
				j++;
			if (j < c->n && !rs_member_cmp(&c->members[j], &b->member)) {
				b->conns = c->conns[j];
				b->counted = true;
			}
		}
	}
}

/* Until the next walk is due: false if a fatal signal came first. */
static bool wait_turn(struct rs_conns *c)
{
	u64 due = next_walk(c), now = ktime_get_ns();

	if (now >= due)
		return true;
	mutex_unlock(c->ns_lock);
	schedule_timeout_killable(nsecs_to_jiffies(due - now) + 1);
	mutex_lock(c->ns_lock);
	return !fatal_signal_pending(current);
}

/* One walk; both locks held, the namespace's dropped meanwhile. */
static int walk(struct rs_conns *c)
{
	struct snap s;
	u64 t0, took;
	int err;

	if (!wait_turn(c))
		return -EINTR;
	err = snapshot(c, &s);
	if (err)
		return err;
	mutex_unlock(c->ns_lock);
	t0 = ktime_get_ns();
	rs_ct_count_conns(c->net, s.svcs, s.n);
	took = ktime_get_ns() - t0;
	mutex_lock(c->ns_lock);
	store(c, &s);
	c->start = t0;
	c->took = max(took, 1ULL);
	snap_free(&s);
	return 0;
}

int rs_conns_count(struct rs_conns *c, struct rs_service *svc,
		   struct rs_backend *only)
{
	struct need n;
	int err, tries;

	lockdep_assert_held(c->ns_lock);
	need_init(&n, svc, only);
	if (counted(c, &n) && ktime_get_ns() < next_walk(c))
		return 0;
	mutex_unlock(c->ns_lock);
	err = mutex_lock_killable(&c->walking);
	mutex_lock(c->ns_lock);
	if (err)
		return err;
	/*
	 * A walk made while this request waited may serve it. Otherwise one
	 * walk, and one more only if a backend it asks for was added while
	 * the first ran.
	 */
	for (tries = 0; tries < 2; tries++) {
		if (counted(c, &n) &&
		    (tries || ktime_get_ns() < next_walk(c)))
			break;
		err = walk(c);
		if (err)
			break;
	}
	mutex_unlock(&c->walking);
	return err;
}
