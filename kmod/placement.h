/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slot placement's part of a change (commit.c): the slots a backend is to
 * hold, checked against its service before anything is applied, and the
 * table a slots service's snapshot publishes beside its ring.
 *
 * A slots service still has a ring, of one point per slot (vnodes 1): its
 * members, the backends on the ring in identity order, are the index that
 * the table's owners and the snapshot's owner[] share, and every change
 * keeps building it as for placement ring. The table is rebuilt whole on
 * each change: at most 65,536 slots, two bytes each and a bitmap, charged
 * to the namespace's point budget as a point a slot of the capacity.
 */
#ifndef _RINGSTEER_PLACEMENT_H
#define _RINGSTEER_PLACEMENT_H

#include "steer.h"

struct netlink_ext_ack;
struct nlattr;

/* The ring's points per unit of weight for a service of @conf. */
static inline u32 rs_ring_vnodes(const struct rs_service_conf *conf)
{
	return conf->placement == RINGSTEER_PLACEMENT_SLOTS ? 1 : conf->vnodes;
}

/*
 * The slots backend @b of @svc (NULL: a new one) is to hold after a
 * change that gives the slots @attr (NULL: none) and weight @weight:
 * *@slots gets a new array, sorted, for the caller to kvfree(), or NULL
 * if they stay as they are. Refused (errno and extack): slots for
 * placement ring, none for a new backend of a slots service, a count
 * other than @weight, a slot beyond capacity, given twice or held by
 * another backend of @svc.
 */
int rs_slots_prepare(const struct rs_service *svc, const struct rs_backend *b,
		     const struct nlattr *attr, u32 weight, u16 **slots,
		     u16 *nslots, struct netlink_ext_ack *extack);

/* Whether every slot of @svc's backends is below @conf's capacity. */
int rs_slots_check_capacity(const struct rs_service *svc,
			    const struct rs_service_conf *conf,
			    struct netlink_ext_ack *extack);

/*
 * The table of a slots service @svc of settings @conf whose ring is to be
 * @ring: the slots of its members, each as its backend holds them but @b,
 * which is to hold @slots (@n) if they are not NULL. An ERR_PTR() if it
 * cannot be built.
 */
struct rs_slots *rs_slots_table(const struct rs_service *svc,
				const struct rs_service_conf *conf,
				const struct rs_ring *ring,
				const struct rs_backend *b, const u16 *slots,
				u16 n);

/* A backend's share of the hash space, of 2^64, as the ring reports it. */
u64 rs_slots_share(const struct rs_slots *table, u16 nslots);

#endif /* _RINGSTEER_PLACEMENT_H */
