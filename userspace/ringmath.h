/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact arithmetic on rings for "ringctl simulate": shares from arc
 * lengths, the hash space that moves between two rings, and what the same
 * change does to "hash mod N". Plus endpoint parsing and printing.
 */
#ifndef RINGCTL_RINGMATH_H
#define RINGCTL_RINGMATH_H

#include <stdbool.h>
#include <stddef.h>

#include "ring.h"

#define RM_ENDPOINT_LEN 56	/* "[v6 address]:65535" and a NUL */

/* "a.b.c.d:port" or "[v6]:port"; returns 0 or -EINVAL. */
int rm_parse_endpoint(const char *s, u8 *family, u8 addr[16], __be16 *port);
/* "ENDPOINT[@WEIGHT]", weight 1 if omitted. */
int rm_parse_backend(const char *s, struct rs_member *m);
void rm_format_endpoint(char *buf, u8 family, const u8 addr[16],
			__be16 port);
void rm_format_member(char *buf, const struct rs_member *m);
/*
 * A flow line "SRC:SPORT DST:DPORT PROTO", PROTO tcp, udp, sctp or a
 * number; on error *why says what is wrong.
 */
int rm_parse_flow(const char *line, struct rs_flow *f, const char **why);
const char *rm_proto_name(u8 proto, char buf[8]);

/*
 * Shares relative to weights: ratio = share / (weight / total weight);
 * peak_mean = max ratio, max_min = max ratio / min ratio, stddev = the
 * standard deviation of the ratios (mean 1).
 */
struct rm_stats {
	double min_ratio;
	double max_ratio;
	double max_min;
	double peak_mean;
	double stddev;
};

/* @share[nmembers] gets each member's exact fraction of the hash space. */
int rm_shares(const struct rs_ring *r, double *share, struct rm_stats *st);

/*
 * The hash space whose owner differs between @a and @b, by walking the
 * union of both point sets: every interval between consecutive distinct
 * positions has one owner in each ring. @x is the changed member (its
 * identity; NULL if none): moves that involve neither end are collateral.
 * @from[a->nmembers] and @to[b->nmembers] (may be NULL) get the fraction
 * that leaves / reaches each member. Fractions of 2^64, summed exactly.
 */
struct rm_diff {
	double moved;
	double collateral;
	unsigned long long collateral_exact;	/* in positions, saturated */
	double *from;
	double *to;
};

int rm_diff(const struct rs_ring *a, const struct rs_ring *b,
	    const struct rs_member *x, struct rm_diff *d);

/*
 * Fraction of flows that change backend when "hash mod N" over the slot
 * list @a (each member repeated weight times, in the given order) becomes
 * the slot list @b. Exact for a uniform hash: counted over one period
 * lcm(Na, Nb) when that is at most @max_period, else sampled with
 * @samples hashes; *exact tells which.
 */
double rm_mod_moved(const struct rs_member *a, u32 na,
		    const struct rs_member *b, u32 nb,
		    unsigned long long max_period, u32 samples, bool *exact);

#endif /* RINGCTL_RINGMATH_H */
