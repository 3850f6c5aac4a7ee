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

/*
 * Entries DNATed for a service's VIP: to any backend, or to one. Or, with
 * null_bound, entries of the VIP that nf_nat bound to the VIP itself and
 * that were never answered: see rs_ct_target_null_bound().
 */
struct rs_ct_target {
	union nf_inet_addr vip;
	__be16 port;
	u8 family;
	u8 proto;
	bool null_bound;
	bool any_backend;
	union nf_inet_addr backend_addr;
	__be16 backend_port;
};

void rs_ct_target_service(struct rs_ct_target *t, const struct rs_service *svc);
void rs_ct_target_backend(struct rs_ct_target *t, const struct rs_service *svc,
			  const struct rs_backend *b);
void rs_ct_target_null_bound(struct rs_ct_target *t,
			     const struct rs_service *svc);

/* Delete every entry matching one of @targets. May sleep. */
void rs_ct_delete(struct net *net, const struct rs_ct_target *targets, u32 n);
/* Count the entries of each target into @counts[n]. May sleep. */
void rs_ct_count(struct net *net, const struct rs_ct_target *targets, u32 n,
		 u64 *counts);

/*
 * A backend's connections now, as ipvsadm counts them: TCP established,
 * and the rest (TCP in any other state, UDP).
 */
struct rs_ct_conns {
	u64 established;
	u64 other;
};

/*
 * The connections of each backend of @svc (list order) into
 * @conns[svc->nbackends], or of @only into @conns[0]. May sleep.
 */
int rs_ct_count_conns(struct net *net, const struct rs_service *svc,
		      const struct rs_backend *only, struct rs_ct_conns *conns);

#endif /* _RINGSTEER_CONNTRACK_H */
