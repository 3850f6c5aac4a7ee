/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chained service's kept rings as configuration (service attributes
 * kept-rings and kept): what a dump says of them, and the rings a
 * service-set that gives them builds, so that save and restore reproduce
 * a chain exactly and two LBs given the same file carry the same hops.
 * Each kept ring travels as its difference from the current ring: one
 * record for a ring one change old.
 *
 * rs_net->lock held throughout (commit.c, nlmsg.c).
 */
#ifndef _RINGSTEER_CHAIN_KEPT_H
#define _RINGSTEER_CHAIN_KEPT_H

#include "steer.h"

struct netlink_ext_ack;
struct nlattr;
struct sk_buff;

/* The kept rings a service-set gives, checked, before they are built. */
struct rs_kept_req {
	u8 n;
	struct rs_member *m[RS_CHAIN_MAX_HOPS];	/* kvmalloc()ed, each */
	u32 nm[RS_CHAIN_MAX_HOPS];
	u64 points;				/* of them all, with @vnodes */
};

/*
 * Read @rings (kept-rings) and @kept over the current ring @cur of @svc
 * with settings @conf (chain, vnodes): the members of each kept ring in
 * @req, their points counted; refused with an errno and extack as the
 * spec says. @req is the caller's to release either way.
 */
int rs_kept_prepare(const struct rs_service *svc, const struct rs_ring *cur,
		    const struct rs_service_conf *conf,
		    const struct nlattr *rings, const struct nlattr *kept,
		    struct rs_kept_req *req, struct netlink_ext_ack *extack);

/*
 * Build @req's rings under @key with @vnodes into @steer's kept rings,
 * which it then owns (freed with it on failure too).
 */
int rs_kept_build(const struct rs_kept_req *req, const u8 *key, u32 vnodes,
		  struct rs_steer *steer);

void rs_kept_release(struct rs_kept_req *req);

/* kept-rings and kept of a chained service's @steer into a service nest. */
int rs_kept_put(struct sk_buff *skb, const struct rs_steer *steer);

#endif /* _RINGSTEER_CHAIN_KEPT_H */
