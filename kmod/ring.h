/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The consistent-hashing ring. uapi/ringsteer.h ("Ring placement") defines
 * what it computes; this is how to build and query it.
 *
 * A ring is immutable once built. Changes produce a new ring from the old
 * one, which is left untouched, so the kernel publishes the new ring with a
 * single rcu_assign_pointer() and frees the old one after a grace period.
 * Builders allocate (GFP_KERNEL_ACCOUNT) and may sleep; rs_ring_lookup() and
 * rs_flow_position() neither allocate nor sleep nor write, and may run
 * under rcu_read_lock() in the packet path.
 *
 * Members are kept sorted by their identity bytes, so a member's index is
 * the same for every ring holding the same set, whatever the order in which
 * it was built. Adding or removing a member shifts the indices of the
 * members after it.
 */
#ifndef _RINGSTEER_RING_H
#define _RINGSTEER_RING_H

#include "ring_shim.h"
#include "uapi/ringsteer.h"

/* A backend: identity (family, addr, port) and weight. */
struct rs_member {
	u8 family;		/* AF_INET or AF_INET6 */
	u8 addr[16];		/* IPv4: 4 bytes, then 12 zero bytes */
	__be16 port;
	u32 weight;		/* 1 .. RINGSTEER_MAX_WEIGHT */
};

/*
 * The hashed fields of a flow; family and addresses as in rs_member (zero
 * the IPv4 padding), ports zero for protocols without ports.
 */
struct rs_flow {
	u8 family;
	u8 proto;
	u8 saddr[16];
	u8 daddr[16];
	__be16 sport;
	__be16 dport;
};

/*
 * One allocation holds the header, the members and the three arrays.
 * Readers may use the fields below; only ring.c writes them.
 */
struct rs_ring {
	struct rs_key key;
	u32 vnodes;		/* points per unit of weight */
	u32 nmembers;
	u32 npoints;
	u32 index_shift;	/* bucket of a position: pos >> index_shift */
	size_t size;		/* bytes, all included */
	u64 *pos;		/* [npoints], sorted (see "Point order") */
	u16 *owner;		/* [npoints], member index of each point */
	u32 *index;		/* [buckets + 1], first point of each bucket */
	struct rs_member members[];	/* [nmembers], sorted by identity */
};

/*
 * Builders return a new ring, or an ERR_PTR(), never NULL:
 *   -EINVAL  bad family, nonzero IPv4 padding;
 *   -ERANGE  weight or vnodes_per_weight out of range;
 *   -E2BIG   too many backends or points (uapi "Limits");
 *   -EEXIST  a backend identity twice;
 *   -ENOENT  no member at idx;
 *   -ENOMEM.
 * n == 0 builds an empty ring. A change to the same weight returns a
 * copy. The old ring is only read.
 */
struct rs_ring *rs_ring_build(const u8 key[RINGSTEER_KEY_LEN],
			      const struct rs_member *m, u32 n,
			      u32 vnodes_per_weight);
struct rs_ring *rs_ring_add_member(const struct rs_ring *old,
				   const struct rs_member *m);
struct rs_ring *rs_ring_remove_member(const struct rs_ring *old, u32 idx);
struct rs_ring *rs_ring_set_weight(const struct rs_ring *old, u32 idx,
				   u32 weight);
/*
 * Wipes the key copy, then frees; NULL is fine, an ERR_PTR() is not. Not
 * for a published ring.
 */
void rs_ring_free(struct rs_ring *r);

/* Owner's member index, or -ENOENT for an empty ring. RCU-safe. */
int rs_ring_lookup(const struct rs_ring *r, u64 pos);
/* Index of the member with @id's identity (weight ignored), or -ENOENT. */
int rs_ring_find_member(const struct rs_ring *r, const struct rs_member *id);
/*
 * Positions owned by each member (@arcs[nmembers]); they sum to 2^64, so a
 * member owning the whole ring gets U64_MAX. -ENOENT if empty.
 */
int rs_ring_arcs(const struct rs_ring *r, u64 *arcs);
u32 rs_ring_buckets(const struct rs_ring *r);
/* The ring's digest (uapi "Fingerprint"): 0 or -ENOMEM. Allocates. */
int rs_ring_fingerprint(const struct rs_ring *r, u8 hash, u64 *fp);

/* Positions as defined in uapi/ringsteer.h. RCU-safe, no allocation. */
u64 rs_flow_position(const struct rs_key *key, const struct rs_flow *f,
		     enum ringsteer_hash_mode mode);
u64 rs_vnode_position(const struct rs_key *key, const struct rs_member *m,
		      u32 vnode);
/* The 19 identity bytes, or -EINVAL. */
int rs_member_id(const struct rs_member *m, u8 id[RINGSTEER_ID_LEN]);
/*
 * The order of backend identities (memcmp() of the identity bytes) that
 * ring members, a service's backend list and the walks share; members are
 * valid.
 */
int rs_member_cmp(const struct rs_member *a, const struct rs_member *b);

static inline const struct rs_member *rs_ring_member(const struct rs_ring *r,
						     u32 idx)
{
	return idx < r->nmembers ? &r->members[idx] : NULL;
}

#endif /* _RINGSTEER_RING_H */
