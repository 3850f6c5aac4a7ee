/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LB's side of the owner chain: which hops a packet carries. Shared,
 * like chain_hdr.c, by the module's tunnel hook, ringctl (lookup,
 * simulate) and the unit tests, so that the hops ringctl predicts are the
 * hops the kernel writes.
 *
 * A chained service (chain K) keeps, beside its ring, up to K - 1 older
 * rings: the rings its last ring changes replaced, newest first, all
 * under the same key, hash mode and vnodes as the current one (a change
 * of those starts the chain afresh), so one flow position serves every
 * ring: a packet costs K ring lookups and no more hashing.
 */
#ifndef _RINGSTEER_CHAIN_HOPS_H
#define _RINGSTEER_CHAIN_HOPS_H

#include "ring.h"

/* chain K: K placements, the current included; at most K - 1 hops. */
#define RS_CHAIN_MAX		4
#define RS_CHAIN_MAX_HOPS	(RS_CHAIN_MAX - 1)
/* Room for the most hops of either family. */
#define RS_CHAIN_HOPS_ROOM	(RS_CHAIN_MAX_HOPS * 16)

/*
 * The hops of a flow at ring position @pos whose packet goes to @dst:
 * the owner under each of @rings (@nrings, newest first; an empty ring
 * owns nothing), each address once, none equal to @dst's, only of @dst's
 * family (the hops are where the outer packet may go next), at most
 * RS_CHAIN_MAX_HOPS. Their addresses, rs_chain_alen() bytes each, go to
 * @hops (RS_CHAIN_HOPS_ROOM bytes); returns how many. No allocation, no
 * lock: RCU-safe in the packet path.
 */
u8 rs_chain_hops(const struct rs_ring *const *rings, u8 nrings, u64 pos,
		 const struct rs_member *dst, u8 *hops);

/*
 * The bytes the chain adds to a GUE packet of outer family @family for a
 * service of chain @k: 4 + 4 (k - 1) for IPv4, 4 + 16 (k - 1) for IPv6,
 * 0 for chain 1 (off). The path-MTU answers and the MSS advice count this
 * much, the most a packet carries.
 */
unsigned int rs_chain_overhead(u8 family, u8 k);

/*
 * A service's fingerprint with its chain: the current ring's @fp when @k
 * is 1 (so a service without chain fingerprints as before), else SipHash
 * under the all-zero key, as a ring's own digest, of le64 @fp, le64 @k
 * and le64 of each kept ring's fingerprint @kept (@nkept, newest first):
 * two LBs agree only when their chains do.
 */
u64 rs_chain_fingerprint(u64 fp, u8 k, const u64 *kept, u8 nkept);

#endif /* _RINGSTEER_CHAIN_HOPS_H */
