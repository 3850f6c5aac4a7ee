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

#include "chain_kept.h"
#include "commit.h"
#include "conf.h"
#include "flowtab.h"
#include "nlmsg.h"
#include "placement.h"

/*
 * What a new snapshot of a chained service keeps of the old one's chain
 * (steer.h): the kept rings as they are, the old ring in front of them
 * (a backend changed the ring), or nothing (a new key, vnodes, hash or
 * encapsulation: the old rings are not placements of the same flows).
 * Either way no more than chain - 1.
 */
enum rs_chain_op {
	RS_CHAIN_KEEP,
	RS_CHAIN_PUSH,
	RS_CHAIN_CLEAR,
	RS_CHAIN_GIVEN,		/* the request's (chain_kept.h), built aside */
};

/* A ring built for one service, published by apply(). */
struct rs_pending {
	struct rs_service *svc;
	struct rs_steer *steer;
	u64 *arcs;
	enum rs_chain_op chain_op;
};

/* What the conntrack walk after publication is for (ct_sweep.c). */
enum rs_walk {
	RS_WALK_NONE,
	RS_WALK_ADDED,		/* a new service: flows bound to its VIP */
	RS_WALK_DELETED,	/* what was deleted: its steered entries */
};

/*
 * A change as prepare() decided it: apply(), finish() and txn_free() do
 * what these fields say and never look at the command again.
 */
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
	/*
	 * placement slots: the backend's new slots, or NULL; once applied,
	 * the ones they replaced, to free.
	 */
	u16 *slots;
	u16 nslots;
	struct list_head retiring;	/* struct rs_retired, for keep-flows */
	u32 nretiring;
	struct sk_buff *event;		/* the announcement, once built */
	struct rs_kept_req kept;	/* a service-set's kept rings */

	/* The decisions. */
	struct rs_service *new_service;	/* to link; the txn's until applied */
	struct rs_backend *new_backend;	/* to link; the txn's until applied */
	struct rs_backend *gone_backend; /* to unlink, freed after a grace period */
	struct rs_service **doomed;	/* to unlink, freed after a grace period */
	u32 ndoomed;
	const struct rs_service_conf *conf; /* the service's new settings */
	bool set_backend;		/* the backend's new settings */
	bool up_backend;		/* and it is up again */
	const u8 *key;			/* the namespace's new key */
	enum rs_walk walk;
	bool announce_early;		/* built before what it names goes */
	bool applied;			/* apply() ran: what it linked is not ours */
};

static bool active(u8 state)
{
	return state == RINGSTEER_STATE_ACTIVE;
}

/*
 * The ring sees one state: active when the operator's state is active and
 * the checker's health up, draining otherwise. So draining and down are
 * the same to the ring, and either undone restores the exact mapping.
 */
static u8 ring_state(u8 state, u8 health)
{
	return state == RINGSTEER_STATE_ACTIVE && health == RINGSTEER_HEALTH_UP ?
	       RINGSTEER_STATE_ACTIVE : RINGSTEER_STATE_DRAINING;
}

static u8 conf_ring_state(const struct rs_backend_conf *conf)
{
	return ring_state(conf->state, conf->health);
}

static bool on_ring(const struct rs_backend *b)
{
	return active(conf_ring_state(&b->conf));
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

/*
 * A full build from the active backends, for new keys, vnodes or
 * services: a ring or an ERR_PTR().
 */
static struct rs_ring *build_full(const u8 *key, const struct rs_service *svc,
				  u32 vnodes)
{
	struct rs_member *members;
	struct rs_backend *b;
	struct rs_ring *ring;
	u32 n = 0;

	members = kvcalloc(max(svc->nbackends, 1U), sizeof(*members),
			   GFP_KERNEL_ACCOUNT);
	if (!members)
		return ERR_PTR(-ENOMEM);
	list_for_each_entry(b, &svc->backends, node) {
		if (on_ring(b))
			members[n++] = b->member;
	}
	ring = rs_ring_build(key, members, n, vnodes);
	kvfree(members);
	return ring;
}

/*
 * The ring after one backend changes: a new ring, an ERR_PTR(), or NULL
 * if the ring stays as it is (inactive before and after, or the same
 * weight).
 */
static struct rs_ring *build_changed(const struct rs_ring *ring,
				     const struct rs_member *was, u8 was_state,
				     u32 weight, u8 state)
{
	struct rs_member m = *was;
	int idx = -ENOENT;

	if (active(was_state)) {
		idx = rs_ring_find_member(ring, was);
		if (WARN_ON_ONCE(idx < 0))
			return ERR_PTR(idx);
	}
	if (active(was_state) && active(state))
		return weight == was->weight ? NULL :
			rs_ring_set_weight(ring, idx, weight);
	if (active(was_state))
		return rs_ring_remove_member(ring, idx);
	if (active(state)) {
		m.weight = weight;
		return rs_ring_add_member(ring, &m);
	}
	return NULL;
}

/*
 * A slots service's table counts in the budget as a point a position of
 * its slot space, whether the slots are held or not: its size is the
 * capacity's (placement.h), and a point is about 12 bytes of ring to the
 * table's 2 a slot, so the budget bounds both alike and errs on the side
 * of the table.
 */
static u32 table_points(const struct rs_service_conf *conf)
{
	return conf->placement == RINGSTEER_PLACEMENT_SLOTS ? conf->capacity : 0;
}

/*
 * The points of the rings a snapshot after @steer keeps with @op for a
 * chain of @k: they cost what a ring costs, so the budget counts them.
 */
static u64 kept_points(const struct rs_steer *steer, enum rs_chain_op op, u8 k)
{
	u64 n = 0;
	u8 i, room = k > 1 ? k - 1 : 0;

	if (!steer || op == RS_CHAIN_CLEAR || op == RS_CHAIN_GIVEN)
		return 0;
	/* As inherit_chain() does: an empty ring is not kept. */
	if (op == RS_CHAIN_PUSH && room && steer->ring->nmembers) {
		n += steer->ring->npoints;
		room--;
	}
	for (i = 0; i < steer->nkept && i < room; i++)
		n += steer->kept[i]->npoints;
	return n;
}

/* What @svc is charged now: its rings' points and its table's. */
static u64 old_points(struct rs_txn *txn, struct rs_service *svc)
{
	const struct rs_steer *steer = rs_steer_locked(svc, &txn->rn->lock);

	if (!steer)
		return 0;
	return (u64)steer->ring->npoints +
	       kept_points(steer, RS_CHAIN_KEEP, steer->nkept + 1) +
	       (steer->slots ? 1U << steer->slots->bits : 0);
}

/* The points of a full build of @svc's ring with @vnodes. */
static u64 full_points(const struct rs_service *svc, u32 vnodes)
{
	const struct rs_backend *b;
	u64 n = 0;

	list_for_each_entry(b, &svc->backends, node) {
		if (on_ring(b))
			n += (u64)b->member.weight * vnodes;
	}
	return n;
}

/*
 * @svc's ring is to have @points, and its settings to be @conf: checked
 * against the ring's limit and, with the table's points, the namespace's
 * budget before the ring is built, so that a refused change costs no
 * allocation. A change that adds no points to the namespace always passes
 * the budget: lowered at run time below what a namespace holds, it still
 * lets that namespace drain, delete, shrink and take a new key.
 */
static int charge(struct rs_txn *txn, struct rs_service *svc, u64 points,
		  const struct rs_service_conf *conf, enum rs_chain_op op)
{
	const struct rs_steer *steer = rs_steer_locked(svc, &txn->rn->lock);
	u64 kept = op == RS_CHAIN_GIVEN ? txn->kept.points :
		   kept_points(steer, op, conf->fwd.chain);
	u64 total = txn->npoints - old_points(txn, svc) + points +
		    table_points(conf) + kept;

	if (points > RINGSTEER_MAX_POINTS) {
		ring_extack(-E2BIG, txn->extack);
		return -E2BIG;
	}
	if (total > txn->rn->services.npoints && total > rs_net_points_max()) {
		if (table_points(conf))
			NL_SET_ERR_MSG_MOD(txn->extack,
					   "ring and slot table would exceed this namespace's point budget (module parameter max_points_per_netns; a slot table costs a point a slot of its capacity)");
		else if (kept)
			NL_SET_ERR_MSG_MOD(txn->extack,
					   "rings would exceed this namespace's point budget (module parameter max_points_per_netns; a chain's kept rings count as rings)");
		else
			NL_SET_ERR_MSG_MOD(txn->extack,
					   "rings would exceed this namespace's point budget (module parameter max_points_per_netns)");
		return -E2BIG;
	}
	txn->npoints = total;
	return 0;
}

/* Queue @ring (NULL: unchanged) for @svc; frees it on failure. */
static int add_pending(struct rs_txn *txn, struct rs_service *svc,
		       struct rs_ring *ring, const struct rs_service_conf *conf,
		       enum rs_chain_op op)
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
	p->chain_op = op;
	p->steer->ring = ring;
	p->steer->owns = RS_OWNS_RING;
	p->steer->hash = conf->hash;
	p->steer->fwd = conf->fwd;
	txn->npending++;
	if (conf->placement != RINGSTEER_PLACEMENT_SLOTS)
		return 0;
	/* Freed with the steer if it is never published. */
	p->steer->slots = rs_slots_table(svc, conf, ring, txn->backend,
					 txn->slots, txn->nslots);
	if (IS_ERR(p->steer->slots)) {
		int err = PTR_ERR(p->steer->slots);

		p->steer->slots = NULL;
		NL_SET_ERR_MSG_MOD(txn->extack, "cannot build the slot table");
		return err;
	}
	return 0;
}

static int pend_full(struct rs_txn *txn, struct rs_service *svc,
		     const u8 *key, const struct rs_service_conf *conf,
		     enum rs_chain_op op)
{
	struct rs_ring *ring;
	int err;

	err = charge(txn, svc, full_points(svc, rs_ring_vnodes(conf)), conf, op);
	if (err)
		return err;
	ring = build_full(key, svc, rs_ring_vnodes(conf));
	if (IS_ERR(ring)) {
		err = PTR_ERR(ring);
		ring_extack(err, txn->extack);
		return err;
	}
	err = add_pending(txn, svc, ring, conf, op);
	if (err || op != RS_CHAIN_GIVEN)
		return err;
	err = rs_kept_build(&txn->kept, key, rs_ring_vnodes(conf),
			    txn->pending[txn->npending - 1].steer);
	if (err)
		ring_extack(err, txn->extack);
	return err;
}

static int pend_backend(struct rs_txn *txn, const struct rs_member *was,
			u8 was_state, u32 weight, u8 state)
{
	const struct rs_steer *steer = rs_steer_locked(txn->svc, &txn->rn->lock);
	u64 points = steer->ring->npoints;
	enum rs_chain_op op = RS_CHAIN_KEEP;
	struct rs_ring *ring;
	int err;

	if (active(was_state))
		points -= (u64)was->weight * steer->ring->vnodes;
	if (active(state))
		points += (u64)weight * steer->ring->vnodes;
	/* The ring changes (build_changed() builds one): the chain keeps it. */
	if (active(was_state) != active(state) ||
	    (active(state) && weight != was->weight))
		op = RS_CHAIN_PUSH;
	err = charge(txn, txn->svc, points, &txn->svc->conf, op);
	if (err)
		return err;
	ring = build_changed(steer->ring, was, was_state, weight, state);
	/* New slots on the ring: a copy of the ring, a new table. */
	if (!ring && txn->slots && active(state))
		ring = rs_ring_set_weight(steer->ring,
					  rs_ring_find_member(steer->ring, was), weight);
	if (IS_ERR(ring)) {
		err = PTR_ERR(ring);
		ring_extack(err, txn->extack);
		return err;
	}
	/* The service's hash and forward, as the snapshot has them. */
	return add_pending(txn, txn->svc, ring, &txn->svc->conf, op);
}

/* @svc goes: its points are freed, and its flows deleted or kept. */
static int pend_service_del(struct rs_txn *txn, struct rs_service *svc)
{
	struct rs_retired *r;

	txn->doomed[txn->ndoomed++] = svc;
	txn->npoints -= old_points(txn, svc);
	/* Conntrack never saw its flows: nothing to delete or keep. */
	if (rs_tunnel(&svc->conf.fwd))
		return 0;
	txn->walk = RS_WALK_DELETED;
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
	txn->new_service = txn->svc;
	/* Conntrack never sees a tunnel service's flows: no walk for them. */
	if (!rs_tunnel(&c->conf.fwd))
		txn->walk = RS_WALK_ADDED;
	return pend_full(txn, txn->svc, rn->key, &c->conf, RS_CHAIN_CLEAR);
}

static int prepare_backend_new(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	int err;

	if (rs_backend_find(txn->svc, &c->ep)) {
		NL_SET_ERR_MSG_MOD(txn->extack, "backend already in this service");
		return -EEXIST;
	}
	if (txn->svc->nbackends >= RINGSTEER_MAX_BACKENDS) {
		NL_SET_ERR_MSG_MOD(txn->extack, "service has the maximum number of backends");
		return -E2BIG;
	}
	/* Only a new backend adds one: nothing else is refused for it. */
	if (rs_net_backends(txn->rn) >= rs_net_backends_max()) {
		NL_SET_ERR_MSG_MOD(txn->extack,
				   "too many backends in this namespace (module parameter max_backends_per_netns)");
		return -E2BIG;
	}
	err = rs_slots_prepare(txn->svc, NULL, c->slots, c->backend_conf.weight,
			       &txn->slots, &txn->nslots, txn->extack);
	if (err)
		return err;
	txn->backend = rs_backend_alloc(txn->svc, &c->ep, &c->backend_conf);
	if (!txn->backend)
		return -ENOMEM;
	txn->new_backend = txn->backend;
	/* Its id is in use only once flow table entries name it. */
	if (rs_tunnel(&txn->svc->conf.fwd) &&
	    rs_ft_id_alloc(&txn->rn->services, txn->backend))
		return -ENOMEM;
	/* Not on the ring yet: as if it had been draining. */
	return pend_backend(txn, &txn->backend->member, RINGSTEER_STATE_DRAINING,
			    c->backend_conf.weight, conf_ring_state(&c->backend_conf));
}

/*
 * A checker that finds every backend failing may be wrong itself (a bad
 * health endpoint deployed everywhere, its own network gone): it cannot
 * empty a ring by itself. An operator can, with force.
 */
static int prepare_backend_set(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	const struct rs_backend_conf *conf = &c->backend_conf;
	struct rs_backend *b = txn->backend;
	const struct rs_steer *steer = rs_steer_locked(txn->svc, &txn->rn->lock);
	int err;

	err = rs_slots_prepare(txn->svc, b, c->slots, conf->weight, &txn->slots,
			       &txn->nslots, txn->extack);
	if (err)
		return err;
	if (conf->health == RINGSTEER_HEALTH_DOWN && on_ring(b) && !c->force &&
	    steer->ring->nmembers == 1) {
		NL_SET_ERR_MSG_MOD(txn->extack,
				   "the service's last backend on the ring: marking it down needs flag force");
		return -EBUSY;
	}
	txn->set_backend = true;
	/*
	 * Down, with on-down reset (the backend's, given now or before, else
	 * the service's): its connections go, as on a delete. A
	 * tunnel service's are not in conntrack: the flow table ignores a
	 * down backend's entries there instead (rs_backend_cached()).
	 */
	if (conf->health == RINGSTEER_HEALTH_DOWN && b->conf.health == RINGSTEER_HEALTH_UP &&
	    rs_resets_on_down(txn->svc->conf.on_down, conf->on_down) &&
	    !rs_tunnel(&txn->svc->conf.fwd)) {
		txn->walk = RS_WALK_DELETED;
		rs_ct_target_backend(&txn->sweep->t[txn->sweep->n++], txn->svc, b);
	}
	txn->up_backend = conf->health == RINGSTEER_HEALTH_UP &&
			  b->conf.health == RINGSTEER_HEALTH_DOWN;
	return pend_backend(txn, &b->member, conf_ring_state(&b->conf),
			    conf->weight, conf_ring_state(conf));
}

/*
 * Whether a service with settings @b needs a ring and snapshot other than
 * @a's. The packet path reads vnodes and hash from the ring, forward
 * (encap, encap port) from the snapshot and capacity from a slots
 * service's table; on-down alone keeps the same ring, not built again.
 */
static bool new_snapshot(const struct rs_service_conf *a,
			 const struct rs_service_conf *b)
{
	return a->vnodes != b->vnodes || a->hash != b->hash ||
	       a->fwd.mode != b->fwd.mode || a->fwd.encap != b->fwd.encap ||
	       a->fwd.encap_port != b->fwd.encap_port ||
	       a->placement != b->placement || a->capacity != b->capacity;
}

/*
 * A new key, vnodes, hash or encapsulation starts the chain afresh: the
 * kept rings share the current one's key and hash (chain_hops.h). A new
 * chain alone keeps the same ring, rebuilt, and as many of the kept
 * rings as it has room for.
 */
static int prepare_service_set(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	int err;

	if (c->kept && !c->kept_rings) {
		NL_SET_ERR_MSG_ATTR(txn->extack, c->kept, "kept needs kept-rings");
		return -EINVAL;
	}
	/* The rings given, as they are: the chain a saved file had. */
	if (c->kept_rings) {
		err = rs_kept_prepare(txn->svc,
				      rs_steer_locked(txn->svc, &txn->rn->lock)->ring,
				      txn->conf, c->kept_rings, c->kept, &txn->kept,
				      txn->extack);
		return err ?: pend_full(txn, txn->svc, txn->rn->key, txn->conf,
					RS_CHAIN_GIVEN);
	}
	if (new_snapshot(&txn->svc->conf, txn->conf))
		return rs_slots_check_capacity(txn->svc, txn->conf, txn->extack) ?:
		       pend_full(txn, txn->svc, txn->rn->key, txn->conf,
				 RS_CHAIN_CLEAR);
	if (txn->svc->conf.fwd.chain != txn->conf->fwd.chain)
		return pend_full(txn, txn->svc, txn->rn->key, txn->conf,
				 RS_CHAIN_KEEP);
	return 0;
}

static int prepare_key_set(struct rs_txn *txn)
{
	struct rs_service *svc;
	int err;

	list_for_each_entry(svc, &txn->rn->services.list, node) {
		err = pend_full(txn, svc, txn->change->key, &svc->conf,
				RS_CHAIN_CLEAR);
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
		txn->conf = &c->conf;
		return prepare_service_set(txn);
	case RINGSTEER_CMD_SERVICE_DEL:
		txn->announce_early = true;
		return pend_service_del(txn, txn->svc);
	case RINGSTEER_CMD_BACKEND_NEW:
		return prepare_backend_new(txn);
	case RINGSTEER_CMD_BACKEND_SET:
		return prepare_backend_set(txn);
	case RINGSTEER_CMD_BACKEND_DEL:
		txn->gone_backend = b;
		txn->announce_early = true;
		if (!rs_tunnel(&txn->svc->conf.fwd))
			txn->walk = RS_WALK_DELETED;
		if (!c->keep_flows && !rs_tunnel(&txn->svc->conf.fwd))
			rs_ct_target_backend(&txn->sweep->t[txn->sweep->n++],
					     txn->svc, b);
		return pend_backend(txn, &b->member, conf_ring_state(&b->conf),
				    b->member.weight, RINGSTEER_STATE_DRAINING);
	case RINGSTEER_CMD_KEY_SET:
		txn->key = c->key;
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

/*
 * A change whose walk would queue more than the namespace may have
 * waiting is refused, so that no walk ever runs without credit: the walks
 * already queued end the refusals as the credit allows.
 */
static int check_walk_room(struct rs_txn *txn)
{
	u32 n = txn->sweep->n + (txn->walk == RS_WALK_ADDED);

	if (txn->walk == RS_WALK_NONE || rs_sweep_room(&txn->rn->sweep, n))
		return 0;
	NL_SET_ERR_MSG_MOD(txn->extack,
			   "too many conntrack walks queued in this namespace; retry once they have run (net-get walk-done)");
	return -EAGAIN;
}

/* Room for the rings and conntrack targets this change can produce. */
static int prepare_room(struct rs_txn *txn)
{
	u32 n = txn->change->cmd == RINGSTEER_CMD_KEY_SET ||
		txn->change->cmd == RINGSTEER_CMD_FLUSH ?
		txn->rn->services.count : 1;

	txn->pending = kvcalloc(max(n, 1U), sizeof(*txn->pending),
				GFP_KERNEL_ACCOUNT);
	txn->doomed = kvcalloc(max(n, 1U), sizeof(*txn->doomed),
			       GFP_KERNEL_ACCOUNT);
	txn->sweep = rs_sweep_batch_alloc(max(n, 1U));
	return txn->pending && txn->doomed && txn->sweep ? 0 : -ENOMEM;
}

static int prepare(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	int err;

	err = prepare_room(txn);
	if (err)
		return err;
	err = prepare_change(txn) ?: check_walk_room(txn);
	if (err)
		return err;
	/* A delete's notification names what it frees: built while that lives. */
	if (txn->announce_early)
		txn->event = rs_notify_build(txn->rn, c->cmd, txn->svc,
					     txn->backend);
	/* Last, as nothing after it may fail: it is not undone. */
	if (txn->new_service) {
		err = rs_net_hooks_get(txn->rn, &c->conf.fwd);
		if (err && rs_tunnel(&c->conf.fwd))
			NL_SET_ERR_MSG_MOD(txn->extack, "cannot register netfilter tunnel hooks");
		else if (err)
			NL_SET_ERR_MSG_MOD(txn->extack, "cannot register netfilter NAT hooks");
	}
	return err;
}

/*
 * The chain @steer keeps of @old's as @op says: the rings it
 * takes pass to it, and @old, freed a grace period after it is replaced,
 * no longer frees them.
 */
static void inherit_chain(struct rs_steer *steer, enum rs_chain_op op,
			  struct rs_steer *old)
{
	u8 i, room = steer->fwd.chain > 1 ? steer->fwd.chain - 1 : 0;

	/* Built by prepare(), already the snapshot's. */
	if (op == RS_CHAIN_GIVEN)
		return;
	steer->nkept = 0;
	if (!old || op == RS_CHAIN_CLEAR || !room)
		return;
	/* An empty ring placed no flow: nothing to keep. */
	if (op == RS_CHAIN_PUSH && old->ring->nmembers) {
		steer->kept[steer->nkept++] = old->ring;
		old->owns &= ~RS_OWNS_RING;
		steer->owns |= RS_OWNS_KEPT(0);
	}
	for (i = 0; i < old->nkept && steer->nkept < room; i++) {
		steer->kept[steer->nkept] = old->kept[i];
		steer->owns |= RS_OWNS_KEPT(steer->nkept);
		steer->nkept++;
		old->owns &= ~RS_OWNS_KEPT(i);
	}
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
		if (!on_ring(b)) {
			b->share = 0;
			continue;
		}
		if (WARN_ON_ONCE(i >= ring->nmembers ||
				 rs_member_cmp(&ring->members[i], &b->member)))
			break;
		b->share = steer->slots ? rs_slots_share(steer->slots, b->nslots) :
			   p->arcs[i];
		steer->owner[i++] = b;
	}
	WARN_ON_ONCE(i != ring->nmembers);
	kvfree(p->arcs);
	p->arcs = NULL;
	p->steer = NULL;

	p->svc->generation++;
	inherit_chain(steer, p->chain_op, rs_steer_locked(p->svc, &rn->lock));
	old = rcu_replace_pointer(p->svc->steer, steer, lockdep_is_held(&rn->lock));
	if (old)
		rs_steer_free_rcu(old);
}

static void unlink_service(struct rs_txn *txn, struct rs_service *svc)
{
	struct rs_retired *r;
	struct rs_backend *b;

	rs_service_unlink(&txn->rn->services, svc);
	/* Its flow table entries die with the ids. */
	list_for_each_entry(b, &svc->backends, node)
		rs_ft_id_free(&txn->rn->services, b);
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
	u32 i;

	if (txn->conf)
		rs_service_set_conf(txn->svc, txn->conf);
	for (i = 0; i < txn->ndoomed; i++)
		unlink_service(txn, txn->doomed[i]);
	if (txn->new_backend)
		rs_backend_link(&rn->services, txn->svc, txn->new_backend);
	if (txn->set_backend)
		rs_backend_set_conf(txn->backend, &c->backend_conf);
	/* The backend's new slots; txn_free() frees the ones they replace. */
	if (txn->slots) {
		swap(txn->backend->slots, txn->slots);
		swap(txn->backend->nslots, txn->nslots);
	}
	if (txn->gone_backend) {
		rs_ft_id_free(&rn->services, txn->gone_backend);
		rs_backend_unlink(txn->svc, txn->gone_backend);
	}
	if (txn->key)
		memcpy(rn->key, txn->key, sizeof(rn->key));
	for (i = 0; i < txn->npending; i++)
		publish(rn, &txn->pending[i]);
	/*
	 * A new service becomes visible to the packet path only with its
	 * ring published: hash_add_rcu() orders the two.
	 */
	if (txn->new_service) {
		rs_service_link(&rn->services, txn->new_service);
		/* A tunnel service's hook does not translate kept NAT flows. */
		if (!rs_tunnel(&txn->new_service->conf.fwd))
			rs_net_unretire(rn, txn->new_service);
	}
	txn->applied = true;
	rn->services.npoints = txn->npoints;
	rn->generation++;
}

/*
 * After publication, the walks; ct_sweep.c says when they run and what they
 * may cost. A packet that read the old ring may still be setting up DNAT
 * to a deleted backend: the deferred walk waits a grace period for it,
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
 * is done once more, seconds later (ct_sweep.c), and only a sender kept
 * between those two hooks for that long (preempted, under full
 * preemption, on a starved CPU) still escapes. What is published again
 * before then (the service, or the backend) is taken out of the walks
 * still queued for it, the first one too if it has not run (the delete
 * was not waited for: its flows find their backend again), so as not to
 * delete its new flows. The same second walk catches
 * a flow that missed a new service and got its null binding while the
 * first walk ran.
 */
static void walk(struct rs_txn *txn)
{
	struct rs_sweep_batch *b = txn->sweep;
	struct rs_net *rn = txn->rn;
	struct rs_ct_target like;
	u64 seq;
	u32 i;

	txn->sweep = NULL;
	/* Published again: out of a pending second walk for deletes. */
	if (txn->new_service) {
		rs_ct_target_service(&like, txn->new_service);
		rs_sweep_forget(&rn->sweep, &like);
	}
	if (txn->new_backend) {
		rs_ct_target_backend(&like, txn->svc, txn->new_backend);
		rs_sweep_forget(&rn->sweep, &like);
	}
	/* Up again after a reset: its new flows are not the old ones. */
	if (txn->up_backend) {
		rs_ct_target_backend(&like, txn->svc, txn->backend);
		rs_sweep_forget(&rn->sweep, &like);
	}
	switch (txn->walk) {
	case RS_WALK_ADDED:
		rs_ct_target_null_bound(&b->t[b->n++], txn->svc);
		rs_sweep_added(&rn->sweep, b);
		return;
	case RS_WALK_DELETED:
		/* Flows to a deleted service's VIP are the host's again. */
		for (i = 0; i < txn->ndoomed; i++) {
			rs_ct_target_null_bound(&like, txn->doomed[i]);
			rs_sweep_forget(&rn->sweep, &like);
		}
		seq = rs_sweep_deleted(&rn->sweep, b);
		if (txn->change->walk)
			*txn->change->walk = seq;
		return;
	case RS_WALK_NONE:
		break;
	}
	rs_sweep_batch_free(b);
}

static void finish(struct rs_txn *txn)
{
	const struct rs_change *c = txn->change;
	struct rs_net *rn = txn->rn;
	u32 i;

	walk(txn);
	for (i = 0; i < txn->ndoomed; i++)
		rs_service_free_rcu(txn->doomed[i]);
	if (txn->gone_backend)
		rs_backend_free_rcu(txn->gone_backend);
	rs_net_hooks_put(rn);

	if (!txn->announce_early)
		txn->event = rs_notify_build(rn, c->cmd, txn->svc, txn->backend);
	rs_notify_send(rn, txn->event);
	txn->event = NULL;
}

static void txn_free(struct rs_txn *txn)
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
	kvfree(txn->doomed);
	kvfree(txn->slots);
	rs_kept_release(&txn->kept);
	rs_sweep_batch_free(txn->sweep);
	nlmsg_free(txn->event);
	/* Still the txn's: the change failed before apply() linked them. */
	if (txn->applied)
		return;
	if (txn->new_service)
		rs_service_free(txn->new_service);
	if (txn->new_backend) {
		rs_ft_id_free(&txn->rn->services, txn->new_backend);
		rs_backend_free(txn->new_backend);
	}
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
		.retiring = LIST_HEAD_INIT(txn.retiring),
	};
	int err;

	lockdep_assert_held(&rn->lock);
	err = prepare(&txn);
	if (!err) {
		apply(&txn);
		finish(&txn);
	}
	txn_free(&txn);
	return err;
}
