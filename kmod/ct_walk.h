/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walks of a namespace's conntrack table for the entries ringsteer set
 * up. A walk is one pass over the whole table (conntrack has one for all
 * namespaces) whatever the number of targets, so callers gather what is
 * due and walk once; when walks run, and how often, is ct_sweep.c's.
 */
#ifndef _RINGSTEER_CT_WALK_H
#define _RINGSTEER_CT_WALK_H

#include "steer.h"

struct net;

/* What a target matches in one VIP's (and port's, protocol's) entries. */
enum rs_ct_kind {
	RS_CT_STEERED,		/* delete what ringsteer steered */
	RS_CT_NULL_BOUND,	/* delete rs_ct_target_null_bound()'s */
	RS_CT_COUNT,		/* count what ringsteer steered, if not ended */
	RS_CT_NONE,		/* nothing: a target forgotten */
};

/* Entries of a service's VIP: to any backend, or to one. */
struct rs_ct_target {
	union nf_inet_addr vip;
	union nf_inet_addr backend_addr;
	__be16 port;
	__be16 backend_port;
	u8 family;
	u8 proto;
	u8 kind;		/* enum rs_ct_kind */
	bool any_backend;
};

/* RS_CT_STEERED targets; change kind for the others. */
void rs_ct_target_service(struct rs_ct_target *t, const struct rs_service *svc);
void rs_ct_target_backend(struct rs_ct_target *t, const struct rs_service *svc,
			  const struct rs_backend *b);
void rs_ct_target_null_bound(struct rs_ct_target *t,
			     const struct rs_service *svc);

/*
 * One walk for all @targets: deletes what RS_CT_STEERED and
 * RS_CT_NULL_BOUND targets match, counts into @counts[i] (zeroed first;
 * NULL if no target counts) what RS_CT_COUNT target i matches. Returns
 * its duration in ns. Never fails; may sleep.
 */
u64 rs_ct_walk(struct net *net, const struct rs_ct_target *targets, u32 n,
	       u64 *counts);
/* Delete every entry ringsteer steered in @net. Never fails; may sleep. */
void rs_ct_delete_steered(struct net *net);

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

#endif /* _RINGSTEER_CT_WALK_H */
