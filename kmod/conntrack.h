/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walks of a namespace's conntrack table for the entries ringsteer set
 * up. A walk is one pass over the whole table whatever the number of
 * targets, so callers gather what one change needs and walk once.
 */
#ifndef _RINGSTEER_CONNTRACK_H
#define _RINGSTEER_CONNTRACK_H

#include "steer.h"

struct net;

/* Entries DNATed for a service's VIP: to any backend, or to one. */
struct rs_ct_target {
	union nf_inet_addr vip;
	__be16 port;
	u8 family;
	u8 proto;
	bool any_backend;
	union nf_inet_addr backend_addr;
	__be16 backend_port;
};

void rs_ct_target_service(struct rs_ct_target *t, const struct rs_service *svc);
void rs_ct_target_backend(struct rs_ct_target *t, const struct rs_service *svc,
			  const struct rs_backend *b);

/* Delete every entry matching one of @targets. May sleep. */
void rs_ct_delete(struct net *net, const struct rs_ct_target *targets, u32 n);
/* Count the entries of each target into @counts[n]. May sleep. */
void rs_ct_count(struct net *net, const struct rs_ct_target *targets, u32 n,
		 u64 *counts);

/* Order of targets by VIP: family, protocol, port, address. */
int rs_ct_target_cmp(const struct rs_ct_target *a, const struct rs_ct_target *b);

/*
 * One service in a count of connections: its entries (@service, any
 * backend) counted by backend into @conns[i] for @members[i], the
 * identities of its backends in identity order.
 */
struct rs_ct_count {
	struct rs_ct_target service;
	const struct rs_member *members;
	struct rs_ct_conns *conns;
	u32 n;
};

/*
 * The connections of every backend of @svcs[n], sorted by
 * rs_ct_target_cmp() of their services, in one walk. May sleep.
 */
void rs_ct_count_conns(struct net *net, struct rs_ct_count *svcs, u32 n);

#endif /* _RINGSTEER_CONNTRACK_H */
