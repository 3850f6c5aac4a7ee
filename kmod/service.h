/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Services and backends of one network namespace.
 *
 * Locking: every change happens under rs_net->lock (a mutex, so changes may
 * sleep: they allocate rings and walk the conntrack table). The packet path
 * takes no lock: it finds a service in an RCU hash table and reads one
 * immutable snapshot, struct rs_steer, through svc->steer. A change builds
 * a new snapshot aside and publishes it with one rcu_assign_pointer(); the
 * old snapshot, and any backend or service that was removed, is freed after
 * a grace period. Fields marked "writer" are only touched under the mutex.
 */
#ifndef _RINGSTEER_SERVICE_H
#define _RINGSTEER_SERVICE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/u64_stats_sync.h>
#include <linux/netfilter.h>
#include <net/netns/generic.h>

#include "ring.h"

struct netlink_ext_ack;

struct rs_counter {
	u64_stats_t packets;		/* new flows steered or dropped */
	struct u64_stats_sync syncp;
};

struct rs_backend {
	struct list_head node;		/* writer: svc->backends, identity order */
	struct rs_member id;		/* identity and weight, ring form */
	u8 state;			/* writer: enum ringsteer_backend_state */
	u64 share;			/* writer: ring positions owned */
	struct rs_counter __percpu *flows;
	struct rcu_head rcu;
};

/* What readers see of a service: immutable once published. */
struct rs_steer {
	struct rcu_head rcu;
	struct rs_ring *ring;
	u8 hash;			/* enum ringsteer_hash_mode */
	struct rs_backend *owner[];	/* [ring->nmembers], by member index */
};

struct rs_service {
	struct hlist_node hnode;	/* rs_net->table, RCU */
	struct list_head node;		/* writer: rs_net->services */
	union nf_inet_addr vip;
	__be16 port;
	u8 family;			/* AF_INET or AF_INET6 */
	u8 proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	u32 vnodes;			/* writer */
	u8 hash;			/* writer; readers use steer->hash */
	u32 nbackends;			/* writer */
	struct list_head backends;	/* writer */
	struct rs_steer __rcu *steer;
	struct rs_counter __percpu *flows;
	struct rs_counter __percpu *no_backend;
	struct rcu_head rcu;
};

struct rs_net {
	struct mutex lock;		/* serializes every change, see above */
	u8 key[RINGSTEER_KEY_LEN];	/* writer */
	struct list_head services;	/* writer, creation order */
	u32 nservices;			/* writer */
	u32 generation;			/* writer: bumped by every change */
	bool hooks_registered;		/* writer */
	bool kept_flows;		/* writer: a service went, its flows stayed */
	struct net *net;
	DECLARE_HASHTABLE(table, 8);	/* services by (vip, port, proto) */
};

extern unsigned int rs_net_id;

static inline struct rs_net *rs_net(const struct net *net)
{
	return net_generic(net, rs_net_id);
}

/* A service or backend endpoint as named in a request. */
struct rs_endpoint {
	union nf_inet_addr addr;
	__be16 port;
	u8 family;
	u8 proto;			/* services only */
};

struct rs_service_conf {
	u32 vnodes;
	u8 hash;
};

/* Packet path and LOOKUP: rcu_read_lock() held. */
struct rs_service *rs_service_find_rcu(struct rs_net *rn, u8 family,
				       const union nf_inet_addr *vip,
				       __be16 port, u8 proto);
struct rs_backend *rs_steer_pick(const struct rs_steer *steer,
				 const struct rs_flow *flow, u64 *pos);
void rs_counter_inc(struct rs_counter __percpu *c);
u64 rs_counter_sum(struct rs_counter __percpu *c);

/* Everything below: rs_net->lock held. */
struct rs_service *rs_service_get(struct rs_net *rn,
				  const struct rs_endpoint *ep);
int rs_service_add(struct rs_net *rn, const struct rs_endpoint *ep,
		   const struct rs_service_conf *conf,
		   struct netlink_ext_ack *extack);
int rs_service_change(struct rs_net *rn, struct rs_service *svc,
		      const struct rs_service_conf *conf,
		      struct netlink_ext_ack *extack);
void rs_service_del(struct rs_net *rn, struct rs_service *svc,
		    bool keep_flows);
void rs_service_flush(struct rs_net *rn, bool keep_flows);

struct rs_backend *rs_backend_get(struct rs_service *svc,
				  const struct rs_endpoint *ep);
int rs_backend_add(struct rs_net *rn, struct rs_service *svc,
		   const struct rs_endpoint *ep, u32 weight, u8 state,
		   struct netlink_ext_ack *extack);
int rs_backend_change(struct rs_net *rn, struct rs_service *svc,
		      struct rs_backend *b, u32 weight, u8 state,
		      struct netlink_ext_ack *extack);
int rs_backend_del(struct rs_net *rn, struct rs_service *svc,
		   struct rs_backend *b, bool keep_flows,
		   struct netlink_ext_ack *extack);

int rs_key_set(struct rs_net *rn, const u8 *key,
	       struct netlink_ext_ack *extack);

static inline struct rs_steer *rs_steer_locked(struct rs_net *rn,
					       struct rs_service *svc)
{
	return rcu_dereference_protected(svc->steer,
					 lockdep_is_held(&rn->lock));
}

int __init rs_service_init(void);
void rs_service_uninit(void);

#endif /* _RINGSTEER_SERVICE_H */
