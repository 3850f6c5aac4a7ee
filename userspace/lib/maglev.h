/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maglev (Eisenbud et al., NSDI 2016), as Katran and IPVS's "mh" build
 * it, for "ringctl simulate" to put the peers' balance and collateral
 * beside the ring's and the slots' on the same backends and flows. Never
 * steers anything.
 *
 * Each backend's permutation of the table comes from SipHash of its
 * identity (uapi "Backend identity") under the service key; the table is
 * filled in rounds, in the order the backends are given, a backend
 * taking weight / gcd(weights) entries a round as IPVS does. That order
 * is why Maglev's table depends on history and the ring's does not.
 */
#ifndef RINGCTL_MAGLEV_H
#define RINGCTL_MAGLEV_H

#include "ring.h"

/* Katran's and Envoy's table size, and Debian's ip_vs_mh (TAB_INDEX 12). */
#define MAGLEV_SIZE_KATRAN	65537
#define MAGLEV_SIZE_IPVS_DEBIAN	4093

struct maglev {
	u32 size;		/* prime */
	u32 nmembers;
	u16 *owner;		/* [size]: index into the members given */
};

/*
 * Fills @t from @m[n] in that order; 0, -EINVAL (n == 0, or size not
 * above n), -ERANGE (a weight of 0) or -ENOMEM.
 */
int maglev_build(struct maglev *t, const struct rs_key *key,
		 const struct rs_member *m, u32 n, u32 size);
void maglev_free(struct maglev *t);

static inline u32 maglev_lookup(const struct maglev *t, u64 pos)
{
	return t->owner[pos % t->size];
}

/* @share[nmembers]: each member's fraction of the table. */
void maglev_shares(const struct maglev *t, double *share);

#endif /* RINGCTL_MAGLEV_H */
