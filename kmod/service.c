// SPDX-License-Identifier: GPL-2.0
/*
 * Services and backends as objects. See service.h; the namespace mutex is
 * held throughout, which also makes the RCU read side of these list walks
 * implicit.
 */

#include <linux/slab.h>
#include <net/dst.h>

#include "service.h"
#include "tally.h"

/* steer.h: what a new flow reads of its backend, in one cache line. */
#ifndef CONFIG_DEBUG_LOCK_ALLOC
static_assert(offsetofend(struct rs_backend, tally) <= 64,
	      "the packet path's fields of struct rs_backend outgrew a cache line");
#endif

void rs_services_init(struct rs_services *services)
{
	hash_init(services->table);
	hash_init(services->tun_vips);
	hash_init(services->tun_backends);
	xa_init_flags(&services->ids, XA_FLAGS_ALLOC1);
	services->next_id = 0;
	RCU_INIT_POINTER(services->ft, NULL);
	INIT_LIST_HEAD(&services->list);
	services->count = 0;
	services->ntunnel = 0;
	services->npoints = 0;
}

struct rs_service *rs_service_find(const struct rs_services *services,
				   const struct rs_endpoint *ep)
{
	struct rs_service *svc;

	list_for_each_entry(svc, &services->list, node) {
		if (svc->family == ep->family && svc->port == ep->port &&
		    svc->proto == ep->proto &&
		    rs_addr_equal(ep->family, &svc->vip, &ep->addr))
			return svc;
	}
	return NULL;
}

struct rs_service *rs_service_alloc(const struct rs_endpoint *ep,
				    const struct rs_service_conf *conf)
{
	struct rs_service *svc;

	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc)
		return NULL;
	svc->vip = ep->addr;
	svc->port = ep->port;
	svc->family = ep->family;
	svc->proto = ep->proto;
	svc->conf = *conf;
	INIT_LIST_HEAD(&svc->backends);
	INIT_LIST_HEAD(&svc->tallies);
	svc->new_flows = rs_counter_alloc();
	svc->no_backend = rs_counter_alloc();
	svc->tun_stats = rs_tun_stats_alloc();
	if (!svc->new_flows || !svc->no_backend || !svc->tun_stats) {
		rs_service_free(svc);
		return NULL;
	}
	return svc;
}

void rs_service_link(struct rs_services *services, struct rs_service *svc)
{
	list_add_tail(&svc->node, &services->list);
	services->ntunnel += rs_tunnel(&svc->conf.fwd);
	hash_add_rcu(services->table, &svc->hnode,
		     rs_service_hash(svc->family, &svc->vip, svc->port,
				     svc->proto));
	/* A service's forward mode never changes: one of the two, for life. */
	if (rs_tunnel(&svc->conf.fwd))
		hash_add_rcu(services->tun_vips, &svc->vip_node,
			     rs_vip_hash(svc->family, &svc->vip));
	services->count++;
}

/* Readers may still be on the node: freed a grace period later. */
static void backend_unhash(struct rs_backend *b)
{
	if (!hlist_unhashed(&b->addr_node))
		hlist_del_init_rcu(&b->addr_node);
}

void rs_service_unlink(struct rs_services *services, struct rs_service *svc)
{
	struct rs_backend *b;

	list_for_each_entry(b, &svc->backends, node)
		backend_unhash(b);
	hash_del_rcu(&svc->hnode);
	if (rs_tunnel(&svc->conf.fwd))
		hash_del_rcu(&svc->vip_node);
	list_del(&svc->node);
	services->ntunnel -= rs_tunnel(&svc->conf.fwd);
	services->count--;
}

void rs_steer_free(struct rs_steer *steer)
{
	u8 i;

	if (!steer)
		return;
	if (steer->owns & RS_OWNS_RING)
		rs_ring_free(steer->ring);
	for (i = 0; i < steer->nkept; i++)
		if (steer->owns & RS_OWNS_KEPT(i))
			rs_ring_free(steer->kept[i]);
	rs_slots_free(steer->slots);
	kvfree(steer);
}

static void steer_free_rcu(struct rcu_head *head)
{
	rs_steer_free(container_of(head, struct rs_steer, rcu));
}

void rs_steer_free_rcu(struct rs_steer *steer)
{
	call_rcu(&steer->rcu, steer_free_rcu);
}

void rs_service_free(struct rs_service *svc)
{
	struct rs_backend *b, *tmp;

	list_for_each_entry_safe(b, tmp, &svc->backends, node)
		rs_backend_free(b);
	rs_steer_free(rcu_dereference_protected(svc->steer, 1));
	rs_tally_blocks_put(&svc->tallies);
	free_percpu(svc->new_flows);
	free_percpu(svc->no_backend);
	free_percpu(svc->tun_stats);
	kfree(svc);
}

static void service_free_rcu(struct rcu_head *head)
{
	rs_service_free(container_of(head, struct rs_service, rcu));
}

void rs_service_free_rcu(struct rs_service *svc)
{
	call_rcu(&svc->rcu, service_free_rcu);
}

void rs_endpoint_to_member(const struct rs_endpoint *ep, u32 weight,
			   struct rs_member *m)
{
	memset(m, 0, sizeof(*m));
	m->family = ep->family;
	memcpy(m->addr, &ep->addr, rs_addr_len(ep->family));
	m->port = ep->port;
	m->weight = weight;
}

struct rs_backend *rs_backend_find(const struct rs_service *svc,
				   const struct rs_endpoint *ep)
{
	struct rs_backend *b;
	struct rs_member m;

	rs_endpoint_to_member(ep, 0, &m);
	list_for_each_entry(b, &svc->backends, node) {
		if (!rs_member_cmp(&b->member, &m))
			return b;
	}
	return NULL;
}

struct rs_backend *rs_backend_alloc(struct rs_service *svc,
				    const struct rs_endpoint *ep,
				    const struct rs_backend_conf *conf)
{
	struct rs_backend *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	rs_endpoint_to_member(ep, conf->weight, &b->member);
	b->conf = *conf;
	spin_lock_init(&b->route_lock);
	seqcount_spinlock_init(&b->route_seq, &b->route_lock);
	if (rs_tally_take(&svc->tallies, b)) {
		rs_backend_free(b);
		return NULL;
	}
	return b;
}

void rs_backend_link(struct rs_services *services, struct rs_service *svc,
		     struct rs_backend *b)
{
	struct rs_backend *pos;

	list_for_each_entry(pos, &svc->backends, node) {
		if (rs_member_cmp(&pos->member, &b->member) > 0)
			break;
	}
	list_add_tail(&b->node, &pos->node);
	svc->nbackends++;
	if (rs_tunnel(&svc->conf.fwd))
		hash_add_rcu(services->tun_backends, &b->addr_node,
			     rs_vip_hash(b->member.family,
					 (const union nf_inet_addr *)b->member.addr));
}

void rs_backend_unlink(struct rs_service *svc, struct rs_backend *b)
{
	backend_unhash(b);
	list_del(&b->node);
	svc->nbackends--;
}

void rs_backend_free(struct rs_backend *b)
{
	/* Packets sent by it without a reference are gone (route.c). */
	dst_release(b->route);
	dst_release(b->route_old);
	rs_tally_give_back(b);
	kvfree(b->slots);
	kfree(b);
}

static void backend_free_rcu(struct rcu_head *head)
{
	rs_backend_free(container_of(head, struct rs_backend, rcu));
}

void rs_backend_free_rcu(struct rs_backend *b)
{
	call_rcu(&b->rcu, backend_free_rcu);
}
