/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simulate's compute layer (prefix sim_): exact arithmetic on rings for
 * "ringctl simulate", shares from arc lengths, the hash space that moves
 * between two rings, and what the same change does to "hash mod N"; plus
 * names for ring members and protocols. Parsing them is in parse.h.
 */
#ifndef RINGCTL_RINGMATH_H
#define RINGCTL_RINGMATH_H

#include <stdbool.h>
#include <stddef.h>

#include "endpoint.h"
#include "ring.h"

/* A change to a ring's members, and its name in output. */
enum change_kind { CH_NONE, CH_ADD, CH_REMOVE, CH_DRAIN, CH_WEIGHT };
extern const char *const sim_change_names[];

/* Index of the member with X's identity among M[N], or -1. */
int sim_find(const struct rs_member *m, u32 n, const struct rs_member *x);
u64 sim_total_weight(const struct rs_member *m, u32 n);
unsigned long long sim_gcd(unsigned long long a, unsigned long long b);

void sim_endpoint_format(char buf[RC_ENDPOINT_LEN], u8 family, const u8 addr[16],
			 __be16 port);
void sim_member_format(char buf[RC_ENDPOINT_LEN], const struct rs_member *m);
const char *sim_proto_name(u8 proto, char buf[8]);

/* A flow's words as "simulate flows" reads and prints them. */
struct sim_flow_text {
	char src[RC_ENDPOINT_LEN], dst[RC_ENDPOINT_LEN];
	char proto_buf[8];
	const char *proto;	/* a name, or proto_buf */
};
void sim_flow_format(struct sim_flow_text *t, const struct rs_flow *f);

/*
 * Shares relative to weights: ratio = share / (weight / total weight);
 * peak_mean = max ratio, max_min = max ratio / min ratio, stddev = the
 * standard deviation of the ratios (mean 1).
 */
struct sim_stats {
	double min_ratio;
	double max_ratio;
	double max_min;
	double peak_mean;
	double stddev;
};

/* @share[nmembers] gets each member's exact fraction of the hash space. */
int sim_shares(const struct rs_ring *r, double *share, struct sim_stats *st);

/*
 * The hash space whose owner differs between @a and @b, by walking the
 * union of both point sets: every interval between consecutive distinct
 * positions has one owner in each ring. @x is the changed member (its
 * identity; NULL if none): moves that involve neither end are collateral.
 * @from[a->nmembers] and @to[b->nmembers] (may be NULL) get the fraction
 * that leaves / reaches each member. Fractions of 2^64, summed exactly.
 */
struct sim_diff {
	double moved;
	double collateral;
	unsigned long long collateral_exact;	/* in positions, saturated */
	double *from;
	double *to;
};

int sim_ring_diff(const struct rs_ring *a, const struct rs_ring *b,
	    const struct rs_member *x, struct sim_diff *d);

/*
 * Fraction of flows that change backend when "hash mod N" over the slot
 * list @a (each member repeated weight times, in the given order) becomes
 * the slot list @b. Exact for a uniform hash: counted over one period
 * lcm(Na, Nb) when that is at most @max_period, else sampled with
 * @samples hashes; *exact tells which.
 */
double sim_mod_moved(const struct rs_member *a, u32 na,
		    const struct rs_member *b, u32 nb,
		    unsigned long long max_period, u32 samples, bool *exact);

#endif /* RINGCTL_RINGMATH_H */
