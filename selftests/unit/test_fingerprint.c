// SPDX-License-Identifier: GPL-2.0
/*
 * The ring's fingerprint (kmod/ring_fingerprint.c) against its definition in
 * the uapi (ringsteer.yaml, service attribute "fingerprint"): the bytes
 * are serialised little-endian whatever the host's byte order, so two
 * hosts of different endianness that map flows alike agree. The byte
 * string is rebuilt here from the definition alone; the serialising path
 * that big-endian hosts take is forced through the test hook and must give
 * the digest little-endian hosts compute in place; and known answers pin
 * the digests computed before, so that fingerprints compared across
 * versions stay equal.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdlib.h>

#include "kselftest_harness.h"
#include "ring_util.h"

static void put_le(u8 *p, u64 v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static u64 zero_key_hash(const u8 *p, size_t n)
{
	static const u8 zero[RINGSTEER_KEY_LEN];
	struct rs_key k;

	rs_key_init(&k, zero);
	return rs_siphash(p, n, &k);
}

/* The digest exactly as the uapi words it, from the ring's fields. */
static u64 reference(const struct rs_ring *r, u8 hash)
{
	size_t n = r->npoints, nm = r->nmembers, i;
	u8 *pts = malloc(8 * n + 1), *own = malloc(2 * n + 1);
	u8 *mem = malloc((RINGSTEER_ID_LEN + 4) * nm + 1), parts[40];

	for (i = 0; i < n; i++) {
		put_le(pts + 8 * i, r->pos[i], 8);
		put_le(own + 2 * i, r->owner[i], 2);
	}
	for (i = 0; i < nm; i++) {
		u8 *m = mem + (RINGSTEER_ID_LEN + 4) * i;

		rs_member_id(&r->members[i], m);
		put_le(m + RINGSTEER_ID_LEN, r->members[i].weight, 4);
	}
	put_le(parts, zero_key_hash(pts, 8 * n), 8);
	put_le(parts + 8, zero_key_hash(own, 2 * n), 8);
	put_le(parts + 16, zero_key_hash(mem, (RINGSTEER_ID_LEN + 4) * nm), 8);
	put_le(parts + 24, r->vnodes, 8);
	put_le(parts + 32, hash, 8);
	free(pts);
	free(own);
	free(mem);
	return zero_key_hash(parts, sizeof(parts));
}

static struct rs_ring *five(void)
{
	struct rs_member m[5];
	int i;

	for (i = 0; i < 5; i++)
		m[i] = mk_member(i + 1, i >= 3, 1 + i);
	return rs_ring_build(test_key, m, 5, 7);
}

TEST(digest_is_the_documented_bytes)
{
	struct rs_ring *r = five();
	u64 fp;

	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_FLOW, &fp));
	EXPECT_EQ(reference(r, RINGSTEER_HASH_FLOW), fp);
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_SOURCE, &fp));
	EXPECT_EQ(reference(r, RINGSTEER_HASH_SOURCE), fp);
	rs_ring_free(r);
}

/* What a big-endian host computes: the arrays serialised, not hashed in place. */
TEST(serialised_path_gives_the_same_digest)
{
	struct rs_ring *r = five();
	u64 in_place, serialised;

	ASSERT_FALSE(IS_ERR(r));
	rs_test_fp_serialise = false;
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_FLOW, &in_place));
	rs_test_fp_serialise = true;
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_FLOW, &serialised));
	rs_test_fp_serialise = false;
	EXPECT_EQ(in_place, serialised);
	EXPECT_EQ(reference(r, RINGSTEER_HASH_FLOW), serialised);
	rs_ring_free(r);
}

/* Digests computed by the code before the explicit serialisation. */
TEST(known_answers)
{
	static const u8 none[1];
	struct rs_ring *r = five();
	u64 fp;

	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_FLOW, &fp));
	EXPECT_EQ(0xb892cc1826ee636dULL, fp);
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_SOURCE, &fp));
	EXPECT_EQ(0x99c0fcf1303130c3ULL, fp);
	rs_ring_free(r);
	r = rs_ring_build(test_key, (const struct rs_member *)none, 0, 7);
	ASSERT_FALSE(IS_ERR(r));
	rs_test_fp_serialise = true;
	ASSERT_EQ(0, rs_ring_fingerprint(r, RINGSTEER_HASH_FLOW, &fp));
	rs_test_fp_serialise = false;
	EXPECT_EQ(0x9fa2924013770cc2ULL, fp);
	rs_ring_free(r);
}

TEST_HARNESS_MAIN
