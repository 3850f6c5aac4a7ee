// SPDX-License-Identifier: GPL-2.0
/*
 * Services and backends, and publication of their rings. See service.h for
 * the locking and RCU rules.
 */

#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include "hook.h"
#include "service.h"

unsigned int rs_net_id __read_mostly;

/* LOCAL_OUT runs the hook in process context, which may be preempted. */
void rs_counter_inc(struct rs_counter __percpu *c)
{
	struct rs_counter *pc = get_cpu_ptr(c);

	u64_stats_update_begin(&pc->syncp);
	u64_stats_inc(&pc->packets);
	u64_stats_update_end(&pc->syncp);
	put_cpu_ptr(c);
}

u64 rs_counter_sum(struct rs_counter __percpu *c)
{
	u64 sum = 0, v;
	unsigned int start;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct rs_counter *pc = per_cpu_ptr(c, cpu);

		do {
			start = u64_stats_fetch_begin(&pc->syncp);
			v = u64_stats_read(&pc->packets);
		} while (u64_stats_fetch_retry(&pc->syncp, start));
		sum += v;
	}
	return sum;
}

static struct rs_counter __percpu *rs_counter_alloc(void)
{
	struct rs_counter __percpu *c;
	int cpu;

	c = alloc_percpu_gfp(struct rs_counter, GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(c, cpu)->syncp);
	return c;
}

static u32 service_hash(u8 family, const union nf_inet_addr *vip,
			__be16 port, u8 proto)
{
	u32 words = family == AF_INET ? 1 : 4;

	return jhash2(vip->all, words, ((u32)proto << 16) ^ (__force u16)port);
}

static bool endpoint_addr_equal(u8 family, const union nf_inet_addr *a,
				const union nf_inet_addr *b)
{
	return family == AF_INET ? a->ip == b->ip : ipv6_addr_equal(&a->in6, &b->in6);
}

struct rs_service *rs_service_find_rcu(struct rs_net *rn, u8 family,
				       const union nf_inet_addr *vip,
				       __be16 port, u8 proto)
{
	struct rs_service *svc;

	hash_for_each_possible_rcu(rn->table, svc, hnode,
				   service_hash(family, vip, port, proto)) {
		if (svc->family == family && svc->port == port &&
		    svc->proto == proto &&
		    endpoint_addr_equal(family, &svc->vip, vip))
			return svc;
	}
	return NULL;
}

struct rs_backend *rs_steer_pick(const struct rs_steer *steer,
				 const struct rs_flow *flow, u64 *pos)
{
	int idx;

	*pos = rs_flow_position(&steer->ring->key, flow, steer->hash);
	idx = rs_ring_lookup(steer->ring, *pos);
	return idx < 0 ? NULL : READ_ONCE(steer->owner[idx]);
}

/* The mutex makes the RCU read side of the writers implicit. */
struct rs_service *rs_service_get(struct rs_net *rn,
				  const struct rs_endpoint *ep)
{
	struct rs_service *svc;

	list_for_each_entry(svc, &rn->services, node) {
		if (svc->family == ep->family && svc->port == ep->port &&
		    svc->proto == ep->proto &&
		    endpoint_addr_equal(ep->family, &svc->vip, &ep->addr))
			return svc;
	}
	return NULL;
}

static void endpoint_to_member(const struct rs_endpoint *ep, u32 weight,
			       struct rs_member *m)
{
	memset(m, 0, sizeof(*m));
	m->family = ep->family;
	memcpy(m->addr, &ep->addr, ep->family == AF_INET ? 4 : 16);
	m->port = ep->port;
	m->weight = weight;
}

static int member_cmp(const struct rs_member *a, const struct rs_member *b)
{
	u8 ida[RINGSTEER_ID_LEN], idb[RINGSTEER_ID_LEN];

	rs_member_id(a, ida);
	rs_member_id(b, idb);
	return memcmp(ida, idb, sizeof(ida));
}

struct rs_backend *rs_backend_get(struct rs_service *svc,
				  const struct rs_endpoint *ep)
{
	struct rs_backend *b;
	struct rs_member m;

	endpoint_to_member(ep, 0, &m);
	list_for_each_entry(b, &svc->backends, node) {
		if (!member_cmp(&b->id, &m))
			return b;
	}
	return NULL;
}

static void steer_free(struct rs_steer *steer)
{
	if (!steer)
		return;
	rs_ring_free(steer->ring);
	kvfree(steer);
}

static void steer_free_rcu(struct rcu_head *head)
{
	steer_free(container_of(head, struct rs_steer, rcu));
}

/*
 * Publishing is split so that a change either fails before touching
 * anything or cannot fail: steer_prepare() allocates, the caller then
 * updates its lists, and steer_publish() fills in and swaps the pointer.
 */
struct rs_pending {
	struct rs_steer *steer;
	u64 *arcs;
};

static int steer_prepare(struct rs_pending *p, struct rs_ring *ring, u8 hash)
{
	u32 n = ring->nmembers;

	p->steer = kvzalloc(struct_size(p->steer, owner, n), GFP_KERNEL_ACCOUNT);
	p->arcs = kvcalloc(max(n, 1U), sizeof(*p->arcs), GFP_KERNEL_ACCOUNT);
	if (!p->steer || !p->arcs) {
		kvfree(p->steer);
		kvfree(p->arcs);
		rs_ring_free(ring);
		return -ENOMEM;
	}
	p->steer->ring = ring;
	p->steer->hash = hash;
	return 0;
}

static void steer_abort(struct rs_pending *p)
{
	steer_free(p->steer);
	kvfree(p->arcs);
}

/*
 * Active backends, in list (identity) order, are exactly the ring's
 * members in index order: both are sorted by the same identity bytes.
 */
static void steer_publish(struct rs_net *rn, struct rs_service *svc,
			  struct rs_pending *p)
{
	struct rs_steer *steer = p->steer, *old;
	struct rs_ring *ring = steer->ring;
	struct rs_backend *b;
	u32 i = 0;

	if (ring->nmembers)
		rs_ring_arcs(ring, p->arcs);
	list_for_each_entry(b, &svc->backends, node) {
		if (b->state != RINGSTEER_STATE_ACTIVE) {
			b->share = 0;
			continue;
		}
		if (WARN_ON_ONCE(i >= ring->nmembers ||
				 member_cmp(&ring->members[i], &b->id)))
			break;
		b->share = p->arcs[i];
		steer->owner[i++] = b;
	}
	WARN_ON_ONCE(i != ring->nmembers);
	kvfree(p->arcs);

	old = rcu_replace_pointer(svc->steer, steer, lockdep_is_held(&rn->lock));
	if (old)
		call_rcu(&old->rcu, steer_free_rcu);
	rn->generation++;
}

/* A full build from the active backends, for new keys or vnodes. */
static struct rs_ring *build_ring(struct rs_net *rn, struct rs_service *svc,
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
		if (b->state == RINGSTEER_STATE_ACTIVE)
			members[n++] = b->id;
	}
	ring = rs_ring_build(rn->key, members, n, vnodes, err);
	kvfree(members);
	return ring;
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

static void service_free(struct rs_service *svc)
{
	struct rs_backend *b, *tmp;

	list_for_each_entry_safe(b, tmp, &svc->backends, node) {
		free_percpu(b->flows);
		kfree(b);
	}
	steer_free(rcu_dereference_protected(svc->steer, 1));
	free_percpu(svc->flows);
	free_percpu(svc->no_backend);
	kfree(svc);
}

static void service_free_rcu(struct rcu_head *head)
{
	service_free(container_of(head, struct rs_service, rcu));
}

int rs_service_add(struct rs_net *rn, const struct rs_endpoint *ep,
		   const struct rs_service_conf *conf,
		   struct netlink_ext_ack *extack)
{
	struct rs_pending pending;
	struct rs_service *svc;
	struct rs_ring *ring;
	int err;

	if (rs_service_get(rn, ep)) {
		NL_SET_ERR_MSG_MOD(extack, "service already exists");
		return -EEXIST;
	}
	if (rn->nservices >= RINGSTEER_MAX_SERVICES) {
		NL_SET_ERR_MSG_MOD(extack, "too many services in this namespace");
		return -E2BIG;
	}
	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc)
		return -ENOMEM;
	svc->vip = ep->addr;
	svc->port = ep->port;
	svc->family = ep->family;
	svc->proto = ep->proto;
	svc->vnodes = conf->vnodes;
	svc->hash = conf->hash;
	INIT_LIST_HEAD(&svc->backends);
	svc->flows = rs_counter_alloc();
	svc->no_backend = rs_counter_alloc();
	err = -ENOMEM;
	if (!svc->flows || !svc->no_backend)
		goto err_free;

	ring = build_ring(rn, svc, svc->vnodes, &err);
	if (!ring) {
		ring_extack(err, extack);
		goto err_free;
	}
	err = steer_prepare(&pending, ring, svc->hash);
	if (err)
		goto err_free;
	if (!rn->hooks_registered) {
		err = rs_hooks_register(rn->net);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "cannot register netfilter NAT hooks");
			steer_abort(&pending);
			goto err_free;
		}
		rn->hooks_registered = true;
	}
	steer_publish(rn, svc, &pending);
	list_add_tail(&svc->node, &rn->services);
	hash_add_rcu(rn->table, &svc->hnode,
		     service_hash(svc->family, &svc->vip, svc->port, svc->proto));
	rn->nservices++;
	return 0;

err_free:
	service_free(svc);
	return err;
}

int rs_service_change(struct rs_net *rn, struct rs_service *svc,
		      const struct rs_service_conf *conf,
		      struct netlink_ext_ack *extack)
{
	struct rs_pending pending;
	struct rs_ring *ring;
	int err;

	ring = build_ring(rn, svc, conf->vnodes, &err);
	if (!ring) {
		ring_extack(err, extack);
		return err;
	}
	err = steer_prepare(&pending, ring, conf->hash);
	if (err)
		return err;
	svc->vnodes = conf->vnodes;
	svc->hash = conf->hash;
	steer_publish(rn, svc, &pending);
	return 0;
}

/*
 * Conntrack entries this service DNATed (to one backend, or to any if
 * backend is NULL): deleting them makes the next packet of each flow a new
 * flow, steered by the current ring.
 */
struct ct_match {
	const struct rs_service *svc;
	const struct rs_backend *backend;
};

static int ct_match(struct nf_conn *ct, void *data)
{
	const struct nf_conntrack_tuple *orig, *reply;
	const struct ct_match *m = data;
	const struct rs_service *svc = m->svc;
	union nf_inet_addr addr = {};

	if (nf_ct_l3num(ct) != (svc->family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6) ||
	    !test_bit(IPS_DST_NAT_BIT, &ct->status))
		return 0;
	orig = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	if (orig->dst.protonum != svc->proto || orig->dst.u.all != svc->port ||
	    !endpoint_addr_equal(svc->family, &orig->dst.u3, &svc->vip))
		return 0;
	if (!m->backend)
		return 1;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	memcpy(&addr, m->backend->id.addr, svc->family == AF_INET ? 4 : 16);
	return reply->src.u.all == m->backend->id.port &&
	       endpoint_addr_equal(svc->family, &reply->src.u3, &addr);
}

static void flush_conntrack(struct rs_net *rn, const struct rs_service *svc,
			    const struct rs_backend *backend)
{
	struct ct_match m = { .svc = svc, .backend = backend };
	struct nf_ct_iter_data iter = { .net = rn->net, .data = &m };

	nf_ct_iterate_cleanup_net(ct_match, &iter);
}

void rs_service_del(struct rs_net *rn, struct rs_service *svc,
		    bool keep_flows)
{
	hash_del_rcu(&svc->hnode);
	list_del(&svc->node);
	rn->nservices--;
	rn->generation++;
	if (keep_flows)
		rn->kept_flows = true;
	else
		flush_conntrack(rn, svc, NULL);
	/*
	 * Last service gone: stop imposing NAT and conntrack on the
	 * namespace, unless flows were kept, which need both to go on.
	 */
	if (!rn->nservices && !rn->kept_flows && rn->hooks_registered) {
		rs_hooks_unregister(rn->net);
		rn->hooks_registered = false;
	}
	/* After the hooks are gone, so the grace period covers their users. */
	call_rcu(&svc->rcu, service_free_rcu);
}

void rs_service_flush(struct rs_net *rn, bool keep_flows)
{
	struct rs_service *svc, *tmp;

	list_for_each_entry_safe(svc, tmp, &rn->services, node)
		rs_service_del(rn, svc, keep_flows);
}

int rs_backend_add(struct rs_net *rn, struct rs_service *svc,
		   const struct rs_endpoint *ep, u32 weight, u8 state,
		   struct netlink_ext_ack *extack)
{
	struct rs_steer *steer = rs_steer_locked(rn, svc);
	struct rs_backend *b, *pos;
	struct rs_pending pending;
	struct rs_ring *ring;
	int err;

	if (rs_backend_get(svc, ep)) {
		NL_SET_ERR_MSG_MOD(extack, "backend already in this service");
		return -EEXIST;
	}
	if (svc->nbackends >= RINGSTEER_MAX_BACKENDS) {
		NL_SET_ERR_MSG_MOD(extack, "service has the maximum number of backends");
		return -E2BIG;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	endpoint_to_member(ep, weight, &b->id);
	b->state = state;
	b->flows = rs_counter_alloc();
	if (!b->flows) {
		err = -ENOMEM;
		goto err_free;
	}

	/* A draining backend owns no points: the ring stays as it is. */
	if (state == RINGSTEER_STATE_ACTIVE) {
		ring = rs_ring_add_member(steer->ring, &b->id, &err);
		if (!ring) {
			ring_extack(err, extack);
			goto err_free;
		}
		err = steer_prepare(&pending, ring, steer->hash);
		if (err)
			goto err_free;
	}

	list_for_each_entry(pos, &svc->backends, node) {
		if (member_cmp(&pos->id, &b->id) > 0)
			break;
	}
	list_add_tail(&b->node, &pos->node);
	svc->nbackends++;
	if (state == RINGSTEER_STATE_ACTIVE)
		steer_publish(rn, svc, &pending);
	else
		rn->generation++;
	return 0;

err_free:
	free_percpu(b->flows);
	kfree(b);
	return err;
}

static void backend_free_rcu(struct rcu_head *head)
{
	struct rs_backend *b = container_of(head, struct rs_backend, rcu);

	free_percpu(b->flows);
	kfree(b);
}

/* The ring after changing b to (weight, state), or NULL when unchanged. */
static struct rs_ring *changed_ring(struct rs_net *rn, struct rs_service *svc,
				    struct rs_backend *b, u32 weight, u8 state,
				    int *err)
{
	const struct rs_ring *ring = rs_steer_locked(rn, svc)->ring;
	bool was_active = b->state == RINGSTEER_STATE_ACTIVE;
	bool active = state == RINGSTEER_STATE_ACTIVE;
	struct rs_member m = b->id;
	int idx = -ENOENT;

	*err = 0;
	if (was_active) {
		idx = rs_ring_find_member(ring, &b->id);
		if (WARN_ON_ONCE(idx < 0)) {
			*err = idx;
			return NULL;
		}
	}
	if (was_active && active)
		return weight == b->id.weight ? NULL :
			rs_ring_set_weight(ring, idx, weight, err);
	if (was_active)
		return rs_ring_remove_member(ring, idx, err);
	if (active) {
		m.weight = weight;
		return rs_ring_add_member(ring, &m, err);
	}
	return NULL;
}

int rs_backend_change(struct rs_net *rn, struct rs_service *svc,
		      struct rs_backend *b, u32 weight, u8 state,
		      struct netlink_ext_ack *extack)
{
	struct rs_pending pending;
	struct rs_ring *ring;
	int err;

	ring = changed_ring(rn, svc, b, weight, state, &err);
	if (err) {
		ring_extack(err, extack);
		return err;
	}
	if (ring) {
		err = steer_prepare(&pending, ring, rs_steer_locked(rn, svc)->hash);
		if (err)
			return err;
	}
	b->id.weight = weight;
	b->state = state;
	if (ring)
		steer_publish(rn, svc, &pending);
	else
		rn->generation++;
	return 0;
}

int rs_backend_del(struct rs_net *rn, struct rs_service *svc,
		   struct rs_backend *b, bool keep_flows,
		   struct netlink_ext_ack *extack)
{
	struct rs_pending pending;
	struct rs_ring *ring = NULL;
	int err, idx;

	if (b->state == RINGSTEER_STATE_ACTIVE) {
		const struct rs_steer *steer = rs_steer_locked(rn, svc);

		idx = rs_ring_find_member(steer->ring, &b->id);
		if (WARN_ON_ONCE(idx < 0))
			return idx;
		ring = rs_ring_remove_member(steer->ring, idx, &err);
		if (!ring) {
			ring_extack(err, extack);
			return err;
		}
		err = steer_prepare(&pending, ring, steer->hash);
		if (err)
			return err;
	}
	list_del(&b->node);
	svc->nbackends--;
	if (ring)
		steer_publish(rn, svc, &pending);
	else
		rn->generation++;
	/* After the swap: nothing can steer a new flow to b any more. */
	if (!keep_flows)
		flush_conntrack(rn, svc, b);
	call_rcu(&b->rcu, backend_free_rcu);
	return 0;
}

int rs_key_set(struct rs_net *rn, const u8 *key,
	       struct netlink_ext_ack *extack)
{
	u8 old_key[RINGSTEER_KEY_LEN];
	struct rs_pending *pending;
	struct rs_service *svc;
	struct rs_ring *ring;
	int err = 0;
	u32 i = 0;

	pending = kvcalloc(max(rn->nservices, 1U), sizeof(*pending),
			   GFP_KERNEL_ACCOUNT);
	if (!pending)
		return -ENOMEM;
	memcpy(old_key, rn->key, sizeof(old_key));
	memcpy(rn->key, key, sizeof(rn->key));
	/* Build every ring first so that a failure changes nothing. */
	list_for_each_entry(svc, &rn->services, node) {
		ring = build_ring(rn, svc, svc->vnodes, &err);
		if (!ring) {
			ring_extack(err, extack);
			break;
		}
		err = steer_prepare(&pending[i], ring, svc->hash);
		if (err)
			break;
		i++;
	}
	if (err) {
		while (i--)
			steer_abort(&pending[i]);
		memcpy(rn->key, old_key, sizeof(old_key));
	} else {
		i = 0;
		list_for_each_entry(svc, &rn->services, node)
			steer_publish(rn, svc, &pending[i++]);
		rn->generation++;
	}
	kvfree(pending);
	memzero_explicit(old_key, sizeof(old_key));
	return err;
}

static int __net_init rs_net_init(struct net *net)
{
	struct rs_net *rn = rs_net(net);

	mutex_init(&rn->lock);
	INIT_LIST_HEAD(&rn->services);
	hash_init(rn->table);
	get_random_bytes(rn->key, sizeof(rn->key));
	rn->net = net;
	return 0;
}

static void __net_exit rs_net_exit(struct net *net)
{
	struct rs_net *rn = rs_net(net);

	mutex_lock(&rn->lock);
	/* Conntrack entries stay: they belong to nf_conntrack, not to us. */
	rs_service_flush(rn, true);
	if (rn->hooks_registered) {
		rs_hooks_unregister(net);
		rn->hooks_registered = false;
	}
	mutex_unlock(&rn->lock);
	memzero_explicit(rn->key, sizeof(rn->key));
}

static struct pernet_operations rs_net_ops = {
	.init = rs_net_init,
	.exit = rs_net_exit,
	.id = &rs_net_id,
	.size = sizeof(struct rs_net),
};

int __init rs_service_init(void)
{
	return register_pernet_subsys(&rs_net_ops);
}

void rs_service_uninit(void)
{
	unregister_pernet_subsys(&rs_net_ops);
	/*
	 * nf_nat does not wait for readers when it removes one of several
	 * lookup hooks: make sure no packet is still in rs_nat_hook(), then
	 * that every call_rcu() callback above has run, before the code goes.
	 */
	synchronize_rcu();
	rcu_barrier();
}
