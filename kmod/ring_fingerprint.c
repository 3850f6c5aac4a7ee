// SPDX-License-Identifier: GPL-2.0
/*
 * A ring's fingerprint: what two load balancers compare to know that they
 * map every flow the same way. It is a digest of the ring itself (every
 * point's position and owner, and the members) and of the hash mode that
 * places flows on it, computed with SipHash
 * under the all-zero key. The positions are outputs of SipHash under the
 * secret key, from which the digest reveals nothing more: it proves equal
 * rings, not the key. uapi/ringsteer.yaml (service attribute fingerprint)
 * defines the bytes.
 *
 * Compiled into the module and into ringctl alike, and byte-order
 * independent: every number is hashed as the little-endian bytes the uapi
 * names, so hosts of either endianness that map flows alike agree.
 */

#include "ring.h"
#include "slots.h"

/* Unit tests take the path of big-endian hosts on any host. */
#ifdef RS_TEST_HOOKS
#include "ring_test.h"
#else
static const bool rs_test_fp_serialise;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RS_HOST_LE 1
#else
#define RS_HOST_LE 0
#endif

static u64 digest(const void *data, size_t len)
{
	static const u8 zero[RINGSTEER_KEY_LEN];
	struct rs_key key;

	rs_key_init(&key, zero);
	return rs_siphash(data, len, &key);
}

/* @v as @width bytes at @p, least significant first, on any host. */
static void put_le(u8 *p, u64 v, unsigned int width)
{
	unsigned int i;

	for (i = 0; i < width; i++)
		p[i] = v >> (8 * i);
}

/*
 * The digest of @n little-endian words of @width bytes (8: positions, 2:
 * owners). A little-endian host hashes the array where it lies, as it is
 * already those bytes; any other serialises a copy first.
 */
static int digest_le(const void *words, u32 n, unsigned int width, u64 *h)
{
	size_t len = (size_t)n * width;
	u8 *buf;
	u32 i;

	if (RS_HOST_LE && !rs_test_fp_serialise) {
		*h = digest(words, len);
		return 0;
	}
	buf = rs_alloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		put_le(buf + (size_t)i * width, width == 8 ? ((const u64 *)words)[i] :
		       ((const u16 *)words)[i], width);
	*h = digest(buf, len);
	rs_free(buf);
	return 0;
}

/* Identity (RINGSTEER_ID_LEN bytes) and le32 weight of each member. */
#define FP_MEMBER_LEN (RINGSTEER_ID_LEN + 4)

static int digest_members(const struct rs_ring *r, u64 *h)
{
	u8 *members;
	u32 i;

	members = rs_alloc((size_t)r->nmembers * FP_MEMBER_LEN + 1);
	if (!members)
		return -ENOMEM;
	for (i = 0; i < r->nmembers; i++) {
		u8 *m = members + (size_t)i * FP_MEMBER_LEN;

		rs_member_id(&r->members[i], m);
		put_le(m + RINGSTEER_ID_LEN, r->members[i].weight, 4);
	}
	*h = digest(members, (size_t)r->nmembers * FP_MEMBER_LEN);
	rs_free(members);
	return 0;
}

int rs_ring_fingerprint(const struct rs_ring *r, u8 hash, u64 *fp)
{
	u8 parts[5 * 8];
	u64 h[3];
	int err;

	err = digest_le(r->pos, r->npoints, sizeof(*r->pos), &h[0]) ?:
	      digest_le(r->owner, r->npoints, sizeof(*r->owner), &h[1]) ?:
	      digest_members(r, &h[2]);
	if (err)
		return err;
	put_le(parts, h[0], 8);
	put_le(parts + 8, h[1], 8);
	put_le(parts + 16, h[2], 8);
	put_le(parts + 24, r->vnodes, 8);
	/* The same ring maps flows otherwise if other fields are hashed. */
	put_le(parts + 32, hash, 8);
	*fp = digest(parts, sizeof(parts));
	return 0;
}

/*
 * A slots service's: its ring (one point a slot) says which backends are
 * on it with what weight and the hash mode; the table adds which slot each
 * holds, as a le16 per slot of the space, 0 for one not live and the
 * member index + 1 for a live one.
 */
int rs_slots_fingerprint(const struct rs_slots *s, u64 ring_fp, u64 *fp)
{
	u32 cap = 1U << s->bits, i;
	u8 parts[4 * 8];
	u16 *w;
	u64 h;
	int err;

	w = rs_alloc((size_t)cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		w[i] = s->map[i / 64] & (1ULL << (i % 64)) ? s->owner[i] + 1 : 0;
	err = digest_le(w, cap, sizeof(*w), &h);
	rs_free(w);
	if (err)
		return err;
	put_le(parts, ring_fp, 8);
	put_le(parts + 8, RINGSTEER_PLACEMENT_SLOTS, 8);
	put_le(parts + 16, s->bits, 8);
	put_le(parts + 24, h, 8);
	*fp = digest(parts, sizeof(parts));
	return 0;
}
