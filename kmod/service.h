/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Services and backends as objects: creation, lookup by name, linking into
 * and out of the lists, and freeing. Deciding what a change does to the
 * rings, and publishing it, is commit.c's job.
 *
 * Everything here runs under the namespace mutex (rs_net->lock); see
 * steer.h for what the packet path may read and when objects are freed.
 */
#ifndef _RINGSTEER_SERVICE_H
#define _RINGSTEER_SERVICE_H

#include "steer.h"

/* A service or backend endpoint as named in a request. */
struct rs_endpoint {
	union nf_inet_addr addr;
	__be16 port;
	u8 family;
	u8 proto;			/* services only */
};

void rs_services_init(struct rs_services *services);

struct rs_service *rs_service_find(const struct rs_services *services,
				   const struct rs_endpoint *ep);
struct rs_service *rs_service_alloc(const struct rs_endpoint *ep,
				    const struct rs_service_conf *conf);
void rs_service_link(struct rs_services *services, struct rs_service *svc);
void rs_service_unlink(struct rs_services *services, struct rs_service *svc);
/* Now, or once readers are gone: with its backends and snapshot. */
void rs_service_free(struct rs_service *svc);
void rs_service_free_rcu(struct rs_service *svc);

void rs_endpoint_to_member(const struct rs_endpoint *ep, u32 weight,
			   struct rs_member *m);

struct rs_backend *rs_backend_find(const struct rs_service *svc,
				   const struct rs_endpoint *ep);
/* Not linked yet, but with its per-CPU entries among @svc's (tally.h). */
struct rs_backend *rs_backend_alloc(struct rs_service *svc,
				    const struct rs_endpoint *ep,
				    const struct rs_backend_conf *conf);
/*
 * Keeps svc->backends in identity order, the order of ring members, and a
 * tunnel service's backends in services->tun_backends (steer.h).
 */
void rs_backend_link(struct rs_services *services, struct rs_service *svc,
		     struct rs_backend *b);
void rs_backend_unlink(struct rs_service *svc, struct rs_backend *b);
void rs_backend_free(struct rs_backend *b);
void rs_backend_free_rcu(struct rs_backend *b);

/* The snapshot readers see; the mutex, not RCU, keeps it for writers. */
#define rs_steer_locked(svc, lock) \
	rcu_dereference_protected((svc)->steer, lockdep_is_held(lock))

void rs_steer_free(struct rs_steer *steer);
void rs_steer_free_rcu(struct rs_steer *steer);

#endif /* _RINGSTEER_SERVICE_H */
