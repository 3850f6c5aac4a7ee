// SPDX-License-Identifier: GPL-2.0
/*
 * The one path every change takes: prepare, apply, finish (commit.h).
 * IPVS's ip_vs_mh_dest_changed() is the model: build the new state aside,
 * swap it in, free the old after a grace period. Unlike IPVS's table, a
 * ring is never rewritten in place, so readers see the old ring or the
 * new one, never a mix. rs_net->lock is held throughout.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "commit.h"
#include "nlmsg.h"

/* A ring built for one service, published by apply(). */
struct rs_pending {
	struct rs_service *svc;
	struct rs_steer *steer;
	u64 *arcs;
};

struct rs_txn {
	struct rs_net *rn;
	const struct rs_change *change;
	struct netlink_ext_ack *extack;
	struct rs_service *svc;		/* the service changed, new or not */
	struct rs_backend *backend;	/* the backend changed, new or not */
	struct rs_pending *pending;
	u32 npending;
	u64 npoints;			/* the namespace's total afterwards */
	struct rs_sweep_batch *sweep;	/* entries to walk for once published */
	struct list_head dead;		/* services unlinked by the change */
	struct list_head retiring;	/* struct rs_retired, for keep-flows */
	u32 nretiring;
	struct sk_buff *event;		/* a delete's announcement */
};

static bool active(u8 state)
{
	return state == RINGSTEER_STATE_ACTIVE;
}

static void ring_extack(int err, struct netlink_ext_ack *extack)
{
	switch (err) {
	case -E2BIG:
		NL_SET_ERR_MSG_MOD(extack, "ring would exceed its limit of points or backends");
		break;
	case -ERANGE:
		NL_SET_ERR_MSG_MOD(extack, "weight or vnodes out of range");
		break;
	case -ENOMEM:
		NL_SET_ERR_MSG_MOD(extack, "out of memory building the ring");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "cannot build the ring");
	}
}

/* A full build from the active backends, for new keys, vnodes or services. */
static struct rs_ring *build_full(const u8 *key, const struct rs_service *svc,
				  u32 vnodes, int *err)
{
	struct rs_member *members;
	struct rs_backend *b;
	struct rs_ring *ring;
	u32 n = 0;

	members = kvcalloc(max(svc->nbackends, 1U), sizeof(*members),
			   GFP_KERNEL_ACCOUNT);
	if (!members) {
		*err = -ENOMEM;
		return NULL;
	}
	list_for_each_entry(b, &svc->backends, node) {
		if (active(b->state))
			members[n++] = b->member;
	}
	ring = rs_ring_build(key, members, n, vnodes, err);
	kvfree(members);
	return ring;
}

/* The ring after one backend changes, or NULL (and *err 0) if the same. */
static struct rs_ring *build_changed(const struct rs_ring *ring,
				     const struct rs_member *was, u8 was_state,
				     u32 weight, u8 state, int *err)
{
	struct rs_member m = *was;
	int idx = -ENOENT;

	*err = 0;
	if (active(was_state)) {
		idx = rs_ring_find_member(ring, was);
		if (WARN_ON_ONCE(idx < 0)) {
			*err = idx;
			return NULL;
		}
	}
	if (active(was_state) && active(state))
		return weight == was->weight ? NULL :
			rs_ring_set_weight(ring, idx, weight, err);
	if (active(was_state))
		return rs_ring_remove_member(ring, idx, err);
	if (active(state)) {
		m.weight = weight;
		return rs_ring_add_member(ring, &m, err);
	}
	return NULL;
}

static u32 old_points(struct rs_txn *txn, struct rs_service *svc)
{
	const struct rs_steer *steer = rs_steer_locked(svc, &txn->rn->lock);

	return steer ? steer->ring->npoints : 0;
}

/* Queue @ring (NULL: unchanged) for @svc; frees it on failure. */
static int add_pending(struct rs_txn *txn, struct rs_service *svc,
		       struct rs_ring *ring, u8 hash)
{
	struct rs_pending *p = &txn->pending[txn->npending];
	u32 n;

	if (!ring)
		return 0;
	n = ring->nmembers;
	p->steer = kvzalloc(struct_size(p->steer, owner, n), GFP_KERNEL_ACCOUNT);
	p->arcs = kvcalloc(max(n, 1U), sizeof(*p->arcs), GFP_KERNEL_ACCOUNT);
	if (!p->steer || !p->arcs) {
		kvfree(p->steer);
		kvfree(p->arcs);
		rs_ring_free(ring);
		return -ENOMEM;
	}
	p->svc = svc;
	p->steer->ring = ring;
	p->steer->hash = hash;
	txn->npoints += ring->npoints;
	txn->npoints -= old_points(txn, svc);
	txn->npending++;
	return 0;
}

static int pend_full(struct rs_txn *txn, struct rs_service *svc,
		     const u8 *key, const struct rs_service_conf *conf)
{
	struct rs_ring *ring;
	int err;

	ring = build_full(key, svc, conf->vnodes, &err);
	if (!ring) {
		ring_extack(err, txn->extack);
		return err;
	}
	return add_pending(txn, svc, ring, conf->hash);
}

static int pend_backend(struct rs_txn *txn, const struct rs_member *was,
			u8 was_state, u32 weight, u8 state)
{
	const struct rs_steer *steer = rs_steer_locked(txn->svc, &txn->rn->lock);
	struct rs_ring *ring;
	int err;

	ring = build_changed(steer->ring, was, was_state, weight, state, &err);
	if (err) {
		ring_extack(err, txn->extack);
		return err;
	}
	return add_pending(txn, txn->svc, ring, steer->hash);
}

/* @svc goes: its points are freed, and its flows deleted or kept. */
static int pend_service_del(struct rs_txn *txn, struct rs_service *svc)
{
	struct rs_retired *r;

	txn->npoints -= old_points(txn, svc);
	if (!txn->change->keep_flows) {
		rs_ct_target_service(&txn->sweep->t[txn->sweep->n++], svc);
		return 0;
	}
	if (txn->rn->nkept + txn->nretiring >= rs_net_kept_max()) {
		NL_SET_ERR_MSG_MOD(txn->extack,
				   "too many services with kept flows in this namespace (module parameter max_kept_per_netns); delete without keep-flows");
		return -E2BIG;
	}
	r = rs_retired_alloc(svc);
	if (!r)
		return -ENOMEM;
	list_add_tail(&r->node, &txn->retiring);
	txn->nretiring++;
	return 0;
}

static int prepare_service_new(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_net *rn = txn->rn;

	if (rs_service_find(&rn->services, &c->ep)) {
		NL_SET_ERR_MSG_MOD(txn->extack, "service already exists");
		return -EEXIST;
	}
	if (rn->services.count >= RINGSTEER_MAX_SERVICES) {
		NL_SET_ERR_MSG_MOD(txn->extack, "too many services in this namespace");
		return -E2BIG;
	}
	txn->svc = rs_service_alloc(&c->ep, &c->conf);
	if (!txn->svc)
		return -ENOMEM;
	return pend_full(txn, txn->svc, rn->key, &c->conf);
}

static int prepare_backend_new(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;

	if (rs_backend_find(txn->svc, &c->ep)) {
		NL_SET_ERR_MSG_MOD(txn->extack, "backend already in this service");
		return -EEXIST;
	}
	if (txn->svc->nbackends >= RINGSTEER_MAX_BACKENDS) {
		NL_SET_ERR_MSG_MOD(txn->extack, "service has the maximum number of backends");
		return -E2BIG;
	}
	txn->backend = rs_backend_alloc(&c->ep, c->weight, c->state);
	if (!txn->backend)
		return -ENOMEM;
	/* Not on the ring yet: as if it had been draining. */
	return pend_backend(txn, &txn->backend->member, RINGSTEER_STATE_DRAINING,
			    c->weight, c->state);
}

static int prepare_key_set(struct rs_txn *txn)
{
	struct rs_service *svc;
	int err;

	list_for_each_entry(svc, &txn->rn->services.list, node) {
		struct rs_service_conf conf = {
			.vnodes = svc->vnodes,
			.hash = svc->hash,
		};

		err = pend_full(txn, svc, txn->change->key, &conf);
		if (err)
			return err;
		cond_resched();
	}
	return 0;
}

static int prepare_change(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_backend *b = txn->backend;
	struct rs_service *svc;

	switch (c->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		return prepare_service_new(txn);
	case RINGSTEER_CMD_SERVICE_SET:
		return pend_full(txn, txn->svc, txn->rn->key, &c->conf);
	case RINGSTEER_CMD_SERVICE_DEL:
		return pend_service_del(txn, txn->svc);
	case RINGSTEER_CMD_BACKEND_NEW:
		return prepare_backend_new(txn);
	case RINGSTEER_CMD_BACKEND_SET:
		return pend_backend(txn, &b->member, b->state, c->weight, c->state);
	case RINGSTEER_CMD_BACKEND_DEL:
		if (!c->keep_flows)
			rs_ct_target_backend(&txn->sweep->t[txn->sweep->n++],
					     txn->svc, b);
		return pend_backend(txn, &b->member, b->state, b->member.weight,
				    RINGSTEER_STATE_DRAINING);
	case RINGSTEER_CMD_KEY_SET:
		return prepare_key_set(txn);
	case RINGSTEER_CMD_FLUSH:
		list_for_each_entry(svc, &txn->rn->services.list, node) {
			int err = pend_service_del(txn, svc);

			if (err)
				return err;
		}
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Room for the rings and conntrack targets this change can produce. */
static int prepare_room(struct rs_txn *txn)
{
	u32 n = txn->change->cmd == RINGSTEER_CMD_KEY_SET ||
		txn->change->cmd == RINGSTEER_CMD_FLUSH ?
		txn->rn->services.count : 1;

	txn->pending = kvcalloc(max(n, 1U), sizeof(*txn->pending),
				GFP_KERNEL_ACCOUNT);
	txn->sweep = rs_sweep_batch_alloc(max(n, 1U));
	return txn->pending && txn->sweep ? 0 : -ENOMEM;
}

static int prepare(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	int err;

	err = prepare_room(txn);
	if (err)
		return err;
	err = prepare_change(txn);
	if (err)
		return err;
	if (txn->npoints > rs_net_points_max()) {
		NL_SET_ERR_MSG_MOD(txn->extack,
				   "rings would exceed this namespace's point budget (module parameter max_points_per_netns)");
		return -E2BIG;
	}
	if (c->cmd == RINGSTEER_CMD_SERVICE_DEL ||
	    c->cmd == RINGSTEER_CMD_BACKEND_DEL)
		txn->event = rs_notify_build(txn->rn, c->cmd, txn->svc,
					     txn->backend);
	/* Last, as nothing after it may fail: it is not undone. */
	if (c->cmd == RINGSTEER_CMD_SERVICE_NEW) {
		err = rs_net_hooks_get(txn->rn);
		if (err)
			NL_SET_ERR_MSG_MOD(txn->extack, "cannot register netfilter NAT hooks");
	}
	return err;
}

/*
 * Active backends, in list (identity) order, are exactly the ring's
 * members in index order: both are sorted by the same identity bytes.
 */
static void publish(struct rs_net *rn, struct rs_pending *p)
{
	struct rs_steer *steer = p->steer, *old;
	struct rs_ring *ring = steer->ring;
	struct rs_backend *b;
	u32 i = 0;

	if (ring->nmembers)
		rs_ring_arcs(ring, p->arcs);
	list_for_each_entry(b, &p->svc->backends, node) {
		if (!active(b->state)) {
			b->share = 0;
			continue;
		}
		if (WARN_ON_ONCE(i >= ring->nmembers ||
				 rs_member_cmp(&ring->members[i], &b->member)))
			break;
		b->share = p->arcs[i];
		steer->owner[i++] = b;
	}
	WARN_ON_ONCE(i != ring->nmembers);
	kvfree(p->arcs);
	p->arcs = NULL;
	p->steer = NULL;

	p->svc->generation++;
	old = rcu_replace_pointer(p->svc->steer, steer, lockdep_is_held(&rn->lock));
	if (old)
		rs_steer_free_rcu(old);
}

static void unlink_service(struct rs_txn *txn, struct rs_service *svc)
{
	struct rs_retired *r;

	rs_service_unlink(&txn->rn->services, svc);
	list_add_tail(&svc->node, &txn->dead);
	r = list_first_entry_or_null(&txn->retiring, struct rs_retired, node);
	if (r) {
		list_del(&r->node);
		rs_net_retire(txn->rn, r);
	}
}

/* Cannot fail: every allocation was made by prepare(). */
static void apply(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_net *rn = txn->rn;
	struct rs_service *svc, *tmp;
	u32 i;

	switch (c->cmd) {
	case RINGSTEER_CMD_SERVICE_SET:
		txn->svc->vnodes = c->conf.vnodes;
		txn->svc->hash = c->conf.hash;
		break;
	case RINGSTEER_CMD_SERVICE_DEL:
		unlink_service(txn, txn->svc);
		break;
	case RINGSTEER_CMD_BACKEND_NEW:
		rs_backend_link(txn->svc, txn->backend);
		break;
	case RINGSTEER_CMD_BACKEND_SET:
		txn->backend->member.weight = c->weight;
		txn->backend->state = c->state;
		break;
	case RINGSTEER_CMD_BACKEND_DEL:
		rs_backend_unlink(txn->svc, txn->backend);
		break;
	case RINGSTEER_CMD_KEY_SET:
		memcpy(rn->key, c->key, sizeof(rn->key));
		break;
	case RINGSTEER_CMD_FLUSH:
		list_for_each_entry_safe(svc, tmp, &rn->services.list, node)
			unlink_service(txn, svc);
		break;
	}
	for (i = 0; i < txn->npending; i++)
		publish(rn, &txn->pending[i]);
	/*
	 * A new service becomes visible to the packet path only with its
	 * ring published: hash_add_rcu() orders the two.
	 */
	if (c->cmd == RINGSTEER_CMD_SERVICE_NEW) {
		rs_service_link(&rn->services, txn->svc);
		rs_net_unretire(rn, txn->svc);
	}
	rn->services.npoints = txn->npoints;
	rn->generation++;
}

/*
 * After publication, the walks; sweep.c says when they run and what they
 * may cost. A packet that read the old ring may still be setting up DNAT
 * to a deleted backend: rs_sweep_deleted() waits a grace period for it,
 * so that the walk sees its entry. A new service walks for the flows
 * nf_nat bound to the VIP itself before the service existed
 * (rs_ct_target_null_bound()).
 *
 * Two kinds of packet still escape that first walk. A packet held in a
 * queue after the NAT hook (NFQUEUE in a later chain) has its NAT set up
 * already and is confirmed after the walk, however late; that flow
 * survives the delete. And a local UDP sender's first packet, on
 * PREEMPT_RCU kernels such as Debian's: for LOCAL_OUT, the DNAT (in
 * __ip_local_out()'s hook) and the confirmation (POST_ROUTING) are two RCU
 * read sections, with nothing holding one across both on UDP's send
 * path, so the grace period can end between them and the walk run before
 * the entry is in the table (TCP's __ip_queue_xmit() and ip6_xmit() hold
 * one across both). Waiting one more grace period would not close that:
 * RCU does not wait for a task between two read sections. So every walk
 * is done once more, seconds later (sweep.c), and only a sender kept
 * between those two hooks for that long (preempted, under full
 * preemption, on a starved CPU) still escapes. What is published again
 * before then (the service, or the backend) is taken out of that second
 * walk, so as not to delete its new flows. The same second walk catches a flow that missed a new
 * service and got its null binding while the first walk ran.
 */
static void walk(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_sweep_batch *b = txn->sweep;
	struct rs_net *rn = txn->rn;
	struct rs_ct_target like;
	struct rs_service *svc;

	txn->sweep = NULL;
	switch (c->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		rs_ct_target_service(&like, txn->svc);
		rs_sweep_forget(rn, &like);
		rs_ct_target_null_bound(&b->t[b->n++], txn->svc);
		rs_sweep_added(rn, b);
		return;
	case RINGSTEER_CMD_BACKEND_NEW:
		rs_ct_target_backend(&like, txn->svc, txn->backend);
		rs_sweep_forget(rn, &like);
		break;
	case RINGSTEER_CMD_SERVICE_DEL:
	case RINGSTEER_CMD_FLUSH:
		/* Flows to its VIP are the host's again: leave them be. */
		list_for_each_entry(svc, &txn->dead, node) {
			rs_ct_target_null_bound(&like, svc);
			rs_sweep_forget(rn, &like);
		}
		fallthrough;
	case RINGSTEER_CMD_BACKEND_DEL:
		rs_sweep_deleted(rn, b);
		return;
	}
	rs_sweep_batch_free(b);
}

static void finish(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_net *rn = txn->rn;
	struct rs_service *svc, *tmp;

	walk(txn);
	list_for_each_entry_safe(svc, tmp, &txn->dead, node) {
		list_del(&svc->node);
		rs_service_free_rcu(svc);
	}
	if (c->cmd == RINGSTEER_CMD_BACKEND_DEL)
		rs_backend_free_rcu(txn->backend);
	rs_net_hooks_put(rn);

	/* A delete's was built while what it names was alive. */
	if (!txn->event && c->cmd != RINGSTEER_CMD_SERVICE_DEL &&
	    c->cmd != RINGSTEER_CMD_BACKEND_DEL)
		txn->event = rs_notify_build(rn, c->cmd, txn->svc, txn->backend);
	rs_notify_send(rn, txn->event);
	txn->event = NULL;
}

static void txn_free(struct rs_txn *txn, int err)
{
	struct rs_retired *r, *tmp;
	u32 i;

	list_for_each_entry_safe(r, tmp, &txn->retiring, node)
		kfree(r);
	for (i = 0; i < txn->npending; i++) {
		rs_steer_free(txn->pending[i].steer);
		kvfree(txn->pending[i].arcs);
	}
	kvfree(txn->pending);
	rs_sweep_batch_free(txn->sweep);
	nlmsg_free(txn->event);
	if (!err)
		return;
	if (txn->change->cmd == RINGSTEER_CMD_SERVICE_NEW && txn->svc)
		rs_service_free(txn->svc);
	if (txn->change->cmd == RINGSTEER_CMD_BACKEND_NEW && txn->backend)
		rs_backend_free(txn->backend);
}

int rs_commit(struct rs_net *rn, const struct rs_change *change,
	      struct netlink_ext_ack *extack)
{
	struct rs_txn txn = {
		.rn = rn,
		.change = change,
		.extack = extack,
		.svc = change->svc,
		.backend = change->backend,
		.npoints = rn->services.npoints,
		.dead = LIST_HEAD_INIT(txn.dead),
		.retiring = LIST_HEAD_INIT(txn.retiring),
	};
	int err;

	lockdep_assert_held(&rn->lock);
	err = prepare(&txn);
	if (!err) {
		apply(&txn);
		finish(&txn);
	}
	txn_free(&txn, err);
	return err;
}
