/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slot placement: each backend holds explicitly numbered slots of a
 * power-of-two slot space, and a flow goes to the first live slot of a
 * pseudo-random probe sequence drawn from its position. uapi/ringsteer.h
 * ("Slot placement") defines it; this is how to build and query it.
 *
 * The table is built whole from the list of (slot, member) pairs and is
 * immutable afterwards, like the ring: the kernel publishes a new table
 * with one pointer and frees the old after a grace period. The builder
 * allocates and may sleep; rs_slots_lookup() neither allocates, sleeps nor
 * writes, so it may run under rcu_read_lock() in the packet path.
 */
#ifndef _RINGSTEER_SLOTS_H
#define _RINGSTEER_SLOTS_H

#include "ring_shim.h"
#include "uapi/ringsteer.h"

/* Lowest and highest log2 of a slot space's capacity. */
#define RS_SLOTS_MIN_BITS	1
#define RS_SLOTS_MAX_BITS	16
/* Probes before the scan takes over (uapi "Slot placement"). */
#define RS_SLOTS_PROBES		256

/* One live slot and the member (backend index) that holds it. */
struct rs_slot_holder {
	u32 slot;
	u16 member;
};

struct rs_slots {
	u32 bits;		/* capacity is 1 << bits */
	u32 live;		/* slots held */
	size_t size;		/* bytes, all included */
	u64 *map;		/* [capacity / 64, at least 1]: live slots */
	u64 *summary;		/* [capacity / 4096, at least 1]: words of map not 0 */
	u16 *owner;		/* [capacity]: member of a live slot */
};

/*
 * A table of capacity 1 << bits from @n holders, or an ERR_PTR():
 *   -ERANGE  bits out of range, or a slot >= capacity;
 *   -EEXIST  a slot held twice;
 *   -ENOMEM.
 * n == 0 builds an empty table.
 */
struct rs_slots *rs_slots_build(u32 bits, const struct rs_slot_holder *h,
				u32 n);
void rs_slots_free(struct rs_slots *s);

/* The i-th probe's slot for flow position @pos (uapi). */
u32 rs_slots_probe(u64 pos, u32 i, u32 bits);
/*
 * The live slot that owns @pos, or -ENOENT when none is live; @probes, if
 * not NULL, gets the number of probes used (RS_SLOTS_PROBES + 1 when the
 * scan answered). RCU-safe.
 */
int rs_slots_find(const struct rs_slots *s, u64 pos, u32 *probes);
/*
 * The scan: the first live slot at or after @from, wrapping, in a table
 * that is not empty; @reads, if not NULL, gets the words of the table it
 * read, at most 3 + C / 4096 (rounded up). RCU-safe.
 */
u32 rs_slots_scan(const struct rs_slots *s, u32 from, u32 *reads);

/* Owner's member index, or -ENOENT. RCU-safe. */
static inline int rs_slots_lookup(const struct rs_slots *s, u64 pos)
{
	int slot = rs_slots_find(s, pos, NULL);

	return slot < 0 ? slot : s->owner[slot];
}

/*
 * The service's fingerprint from its ring's (@ring_fp, rs_ring_fingerprint())
 * and the table (uapi, service attribute fingerprint): 0 or -ENOMEM.
 * Allocates; in ring_fingerprint.c.
 */
int rs_slots_fingerprint(const struct rs_slots *s, u64 ring_fp, u64 *fp);

#endif /* _RINGSTEER_SLOTS_H */
