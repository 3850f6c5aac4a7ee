// SPDX-License-Identifier: GPL-2.0
/*
 * A ring's fingerprint: what two load balancers compare to know that they
 * map every flow the same way. It is a digest of the ring itself (every
 * point's position and owner, and the members) and of the hash mode that
 * places flows on it, computed with SipHash
 * under the all-zero key. The positions are outputs of SipHash under the
 * secret key, from which the digest reveals nothing more: it proves equal
 * rings, not the key. uapi/ringsteer.h ("Fingerprint") defines the bytes.
 *
 * Compiled into the module and into ringctl alike.
 */

#include "ring.h"

/* The arrays are hashed as they lie in memory, which the uapi fixes as LE. */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "fingerprint layout is little-endian");

static u64 digest(const void *data, size_t len)
{
	static const u8 zero[RINGSTEER_KEY_LEN];
	struct rs_key key;

	rs_key_init(&key, zero);
	return rs_siphash(data, len, &key);
}

/* Identity (RINGSTEER_ID_LEN bytes) and le32 weight of each member. */
#define FP_MEMBER_LEN (RINGSTEER_ID_LEN + 4)

int rs_ring_fingerprint(const struct rs_ring *r, u8 hash, u64 *fp)
{
	u64 parts[5];
	u8 *members;
	u32 i;

	members = rs_alloc((size_t)r->nmembers * FP_MEMBER_LEN + 1);
	if (!members)
		return -ENOMEM;
	for (i = 0; i < r->nmembers; i++) {
		u8 *m = members + (size_t)i * FP_MEMBER_LEN;
		u32 w = r->members[i].weight;

		rs_member_id(&r->members[i], m);
		memcpy(m + RINGSTEER_ID_LEN, &w, sizeof(w));
	}
	parts[0] = digest(r->pos, (size_t)r->npoints * sizeof(*r->pos));
	parts[1] = digest(r->owner, (size_t)r->npoints * sizeof(*r->owner));
	parts[2] = digest(members, (size_t)r->nmembers * FP_MEMBER_LEN);
	parts[3] = r->vnodes;
	/* The same ring maps flows otherwise if other fields are hashed. */
	parts[4] = hash;
	rs_free(members);
	*fp = digest(parts, sizeof(parts));
	return 0;
}
