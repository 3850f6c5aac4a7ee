/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the packet path reads: services, their backends and the published
 * snapshot of each ring, and the per-CPU counters it bumps.
 *
 * RCU rules. The packet path takes no lock: it finds a service in the RCU
 * hash table of struct rs_services and reads one immutable snapshot,
 * struct rs_steer, through svc->steer. Writers hold the namespace mutex
 * (rs_net->lock, netns.h); they build a new snapshot aside, publish it with
 * one pointer swap and free the old one, and anything unlinked, only after
 * a grace period. Fields marked "writer" are read and written only under
 * that mutex; the rest is immutable while readers can reach the object.
 */
#ifndef _RINGSTEER_STEER_H
#define _RINGSTEER_STEER_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/u64_stats_sync.h>
#include <linux/netfilter.h>

#include "ring.h"

struct rs_counter {
	u64_stats_t count;
	struct u64_stats_sync syncp;
};

/*
 * A backend's connections, as ipvsadm counts them: TCP established, and
 * the rest (TCP in any other state, UDP).
 */
struct rs_ct_conns {
	u64 established;
	u64 other;
};

struct rs_backend {
	struct list_head node;		/* writer: svc->backends, identity order */
	struct rs_member member;	/* identity and weight, in ring form */
	u8 state;			/* writer: enum ringsteer_backend_state */
	bool counted;			/* writer: conns holds a count (conns.h) */
	u64 share;			/* writer: ring positions owned */
	struct rs_ct_conns conns;	/* writer: at the namespace's last count */
	struct rs_counter __percpu *new_flows;
	struct rcu_head rcu;
};

/* What readers see of a service: immutable once published. */
struct rs_steer {
	struct rcu_head rcu;
	struct rs_ring *ring;
	u8 hash;			/* enum ringsteer_hash_mode */
	bool has_fingerprint;		/* writer: computed when first asked */
	u64 fingerprint;		/* writer */
	struct rs_backend *owner[];	/* [ring->nmembers], by member index */
};

struct rs_service {
	struct hlist_node hnode;	/* rs_services->table, RCU */
	struct list_head node;		/* writer: rs_services->list */
	union nf_inet_addr vip;
	__be16 port;
	u8 family;			/* AF_INET or AF_INET6 */
	u8 proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	u32 vnodes;			/* writer */
	u8 hash;			/* writer; readers use steer->hash */
	u32 nbackends;			/* writer */
	u32 generation;			/* writer: rings published */
	struct list_head backends;	/* writer */
	struct rs_steer __rcu *steer;
	struct rs_counter __percpu *new_flows;
	struct rs_counter __percpu *no_backend;
	struct rcu_head rcu;
};

/* The services of one namespace. */
struct rs_services {
	DECLARE_HASHTABLE(table, 8);	/* by (vip, port, proto), RCU */
	struct list_head list;		/* writer: creation order */
	u32 count;			/* writer */
	u64 npoints;			/* writer: ring points of them all */
};

/* rcu_read_lock() held. */
struct rs_service *rs_services_find_rcu(const struct rs_services *services,
					u8 family, const union nf_inet_addr *vip,
					__be16 port, u8 proto);
struct rs_backend *rs_steer_pick(const struct rs_steer *steer,
				 const struct rs_flow *flow, u64 *pos);

u32 rs_service_hash(u8 family, const union nf_inet_addr *vip, __be16 port,
		    u8 proto);
bool rs_addr_equal(u8 family, const union nf_inet_addr *a,
		   const union nf_inet_addr *b);

struct rs_counter __percpu *rs_counter_alloc(void);
void rs_counter_inc(struct rs_counter __percpu *c);
u64 rs_counter_sum(struct rs_counter __percpu *c);

#endif /* _RINGSTEER_STEER_H */
