/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the packet path writes of a backend, per CPU, kept dense: each
 * service hands its backends the entries of blocks of RS_TALLY_BLOCK
 * backends, so eight backends' new-flow counters share a cache line. With
 * a per-CPU part of its own (16 bytes in a line of its own, the tunnel's
 * route cache after it) a backend cost a new flow one more cold line than
 * its entry here: at 4,000 tunnel backends 3 to 4.5 points of the new-flow
 * rate (bench-results/2026-12-05-twenty-rounds/NOTES.md).
 *
 * Lifetime. The namespace mutex is held to take an entry (the service's
 * block list is the writer's); an entry is given back when its backend is
 * freed, after a grace period and so possibly after its service: each
 * block is referenced by its service and by each backend that holds one of
 * its entries, and the last to let go frees it. A service keeps its blocks
 * while it lives, as many as its most backends at once needed (at most
 * RINGSTEER_MAX_BACKENDS / RS_TALLY_BLOCK and those awaiting a grace
 * period), charged to whoever added the backends.
 */
#ifndef _RINGSTEER_TALLY_H
#define _RINGSTEER_TALLY_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/refcount.h>

#include "steer.h"

#define RS_TALLY_BLOCK BITS_PER_LONG

struct rs_tally {
	struct rs_counter new_flows[RS_TALLY_BLOCK];
	/*
	 * forward tunnel: the next IPv4 ID of the outer headers this CPU
	 * sends to each backend (encap.c, outer_id()); from a random start.
	 */
	u16 outer_id[RS_TALLY_BLOCK];
};

struct rs_tally_block {
	struct list_head node;		/* writer: the service's blocks */
	refcount_t refs;		/* the service's and its backends' */
	unsigned long used;		/* an entry's bit; atomic bit ops */
	struct rs_tally __percpu *pcpu;
};

/* An entry of @blocks for @b, a new block if none is free; writer. */
int rs_tally_take(struct list_head *blocks, struct rs_backend *b);
/* Gives @b's entry back, if it has one; any context, once unreachable. */
void rs_tally_give_back(struct rs_backend *b);
/*
 * Drops the service's references; a block a backend still holds (freed
 * after a grace period) goes with the last of them.
 */
void rs_tally_blocks_put(struct list_head *blocks);

static inline struct rs_counter __percpu *
rs_backend_new_flows(const struct rs_backend *b)
{
	return &b->tally->new_flows[b->tally_idx];
}

#endif /* _RINGSTEER_TALLY_H */
