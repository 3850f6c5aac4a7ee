/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arithmetic on placement slots' tables (kmod/slots.c) and on sampled
 * flows, for "ringctl simulate" and "ringctl plan" (prefix sim_, as
 * ringmath.h).
 *
 * A slots table's shares cannot be summed over 2^64 positions as the
 * ring's arcs are: a flow's owner is the first live slot of a probe
 * sequence, not an interval. Two kinds of numbers are given instead, and
 * always named for what they are:
 *   - by rule: what uapi/ringsteer.h ("Slot placement") promises, every
 *     live slot 1/L of the flows up to the scan's share (at most
 *     (1 - L/C)^256), and what a change moves if each probe were uniform;
 *   - sampled: the kernel's own lookup run on F flow positions drawn from
 *     the service key, counted: per-backend counts, probes, moves, and
 *     the collateral, which is counted and never assumed.
 * The ring and Maglev are sampled the same way on the same positions, so
 * the three can be compared flow for flow.
 */
#ifndef RINGCTL_SLOTMATH_H
#define RINGCTL_SLOTMATH_H

#include <stdbool.h>

#include "maglev.h"
#include "ring.h"
#include "slots.h"

/* Default and largest number of sampled flows. */
#define SIM_SAMPLES_DEFAULT	1000000U
#define SIM_SAMPLES_MAX		16000000U

/*
 * @n flow positions drawn from @key: SipHash-2-4 of the sample's number
 * (little-endian u64) under the service key, as a flow's tuple is hashed.
 * The same key gives the same positions. NULL when out of memory.
 */
u64 *sim_sample_positions(const struct rs_key *key, u32 n);

/*
 * One placement to look flows up in: a ring, a ring with a slots table
 * over its members (placement slots), or a Maglev table. Members are the
 * ring's (identity order) or, for Maglev, in the order given.
 */
struct sim_table {
	const struct rs_ring *ring;
	const struct rs_slots *slots;	/* with ring: placement slots */
	const struct maglev *maglev;	/* instead of ring */
	const struct rs_member *members;
	u32 nmembers;
	/*
	 * Instead of ring and maglev: "hash mod N" over @nmod buckets, each
	 * a member index (sim_mod_buckets()): the perfect balance sampled
	 * flows are measured against.
	 */
	const u32 *mod;
	u32 nmod;
};

/* The buckets of "hash mod N" over @m[n]: each member weight times, in order. */
u32 *sim_mod_buckets(const struct rs_member *m, u32 n, u32 *nbuckets);

/* The member index that owns @pos, or -ENOENT; *@probes for slots (else 1). */
int sim_table_lookup(const struct sim_table *t, u64 pos, u32 *probes);

/* Per-backend counts of sampled flows, against what the weights promise. */
struct sim_sampled {
	u32 flows;
	u32 members;		/* members with weight (the N of the floor) */
	double peak_mean;	/* largest count / its expected count */
	double min_ratio;	/* smallest count / its expected count */
	double floor;		/* 1 + 3 * sqrt(members / flows) */
	/*
	 * The largest of @members counts of a perfect placement: about
	 * 1 + z sqrt(members / flows), z the expected largest of as many
	 * standard normal draws (3.1 at 1,000, 3.5 at 4,000: above the
	 * floor's 3 from a few hundred members on).
	 */
	double perfect;
	double probes_mean;	/* slots: probes a lookup; else 1 */
	u32 probes_max;
	u32 scans;		/* slots: lookups the scan answered */
	u32 unowned;		/* no owner (no live slot, empty ring) */
};

/*
 * Looks up @n positions in @t: the counts' statistics into @st, and each
 * position's owner into @owner[n] if not NULL (-1 where none). 0 or
 * -ENOMEM.
 */
int sim_sample(const struct sim_table *t, const u64 *pos, u32 n,
	       int *owner, struct sim_sampled *st);

/*
 * Sampled flows whose owner differs between two placements (owners from
 * sim_sample() on the same positions, members matched by identity), and
 * of those the collateral: moved between two backends neither of which
 * is @x (NULL: every move is collateral-free by definition, not counted).
 * @from[ta->nmembers] and @to[tb->nmembers], if not NULL, get the
 * fraction of the flows leaving / reaching each member.
 */
struct sim_sampled_diff {
	u32 flows;
	u32 moved;
	u32 collateral;
};

int sim_sampled_diff(const struct sim_table *ta, const int *oa,
		     const struct sim_table *tb, const int *ob, u32 n,
		     const struct rs_member *x, struct sim_sampled_diff *d,
		     double *from, double *to);

/*
 * By rule: each member's share of the flows, its live slots over the
 * table's (@share[nmembers]), and the largest share the scan can take
 * from that, (1 - L/C)^256.
 */
void sim_slots_rule_shares(const struct rs_slots *t, u32 nmembers, double *share);
double sim_slots_scan_bound(const struct rs_slots *t);
/*
 * The largest peak/mean the rule allows once the scan is counted: its
 * share S may all go to one slot (the first live one after the largest
 * gap, lowest slots held leave one gap), so 1 + L * S. 1.0000 while the
 * slots held are more than a few percent of the space; 35 at 800 of
 * 65,536.
 */
double sim_slots_peak_bound(const struct rs_slots *t);

/*
 * By rule, between two tables of the same capacity (members matched by
 * identity through @ra and @rb, the rings the tables index): the fraction
 * of flows whose owner changes if probes were uniform, and of it the part
 * between members that are not @x (NULL: none). A flow's first live slot
 * of A union B is uniform over it; if it is live in both, the flow moves
 * when its holder changed; if only in A (B), its owner in B (A) is
 * uniform over B's (A's) live slots. -EINVAL if the capacities differ.
 * @from/@to as sim_sampled_diff(), may be NULL.
 */
int sim_slots_rule_diff(const struct rs_ring *ra, const struct rs_slots *a,
			const struct rs_ring *rb, const struct rs_slots *b,
			const struct rs_member *x, double *moved,
			double *collateral, double *from, double *to);

#endif /* RINGCTL_SLOTMATH_H */
