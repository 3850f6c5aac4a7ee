// SPDX-License-Identifier: GPL-2.0
/*
 * The LB's hops (kmod/chain_hops.c), the computation the tunnel hook,
 * lookup and simulate share: newest first, each address once, never the
 * destination's, only of its family, at most chain 4's three; empty rings
 * skipped; the chain's MTU overhead and its fingerprint.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "ring_util.h"
#include "chain_hdr.h"
#include "chain_hops.h"

/* A ring of backends @ids[0..n-1] (IPv4 unless @v6), weight 1. */
static struct rs_ring *ring_of(const u32 *ids, u32 n, bool v6)
{
	struct rs_member m[8];
	u32 i;

	for (i = 0; i < n; i++)
		m[i] = mk_member(ids[i], v6, 1);
	return rs_ring_build(test_key, m, n, 64);
}

static const struct rs_member *owner(const struct rs_ring *r, u64 pos)
{
	int idx = rs_ring_lookup(r, pos);

	return idx < 0 ? NULL : &r->members[idx];
}

/* What the hops must be, written out plainly: the reference. */
static u8 reference(const struct rs_ring *const *rings, u8 n, u64 pos,
		    const struct rs_member *dst, u8 out[][16], unsigned int alen)
{
	const struct rs_member *o;
	u8 i, k, count = 0;
	bool dup;

	for (i = 0; i < n; i++) {
		o = owner(rings[i], pos);
		if (!o || o->family != dst->family || !memcmp(o->addr, dst->addr, alen))
			continue;
		for (dup = false, k = 0; k < count; k++)
			dup |= !memcmp(out[k], o->addr, alen);
		if (dup || count == RS_CHAIN_MAX_HOPS)
			continue;
		memcpy(out[count++], o->addr, alen);
	}
	return count;
}

/*
 * Three placements, the newest first: {1,2,3,4}, {1,2,3}, {1,2}. For many
 * positions the hops are the reference's, and a flow that moved twice
 * carries both older owners in order.
 */
TEST(newest_first_dedup_not_dst)
{
	static const u32 a[] = { 1, 2, 3, 4 }, b[] = { 1, 2, 3 }, c[] = { 1, 2 };
	const struct rs_ring *rings[3];
	u8 hops[RS_CHAIN_HOPS_ROOM], want[RS_CHAIN_MAX_HOPS][16];
	u32 i, two = 0, none = 0;
	u64 seed = 7, pos;
	u8 n, w, k;

	rings[0] = ring_of(a, 4, false);
	rings[1] = ring_of(b, 3, false);
	rings[2] = ring_of(c, 2, false);
	for (i = 0; i < 20000; i++) {
		const struct rs_member *dst, *o1, *o2;

		pos = rnd_next(&seed);
		dst = owner(rings[0], pos);
		n = rs_chain_hops(rings, 3, pos, dst, hops);
		w = reference(rings, 3, pos, dst, want, 4);
		ASSERT_EQ(w, n);
		for (k = 0; k < n; k++)
			ASSERT_EQ(0, memcmp(hops + 4 * k, want[k], 4));
		o1 = owner(rings[1], pos);
		o2 = owner(rings[2], pos);
		if (!same_id(dst, o1) && !same_id(o1, o2) && !same_id(dst, o2)) {
			/* Moved twice: both older owners, newest first. */
			ASSERT_EQ(2, n);
			EXPECT_EQ(0, memcmp(hops, o1->addr, 4));
			EXPECT_EQ(0, memcmp(hops + 4, o2->addr, 4));
			two++;
		}
		if (same_id(dst, o1) && same_id(dst, o2)) {
			ASSERT_EQ(0, n);
			none++;
		}
	}
	/* Both cases are common: the test saw them. */
	EXPECT_LT(1000U, two);
	EXPECT_LT(1000U, none);
	for (i = 0; i < 3; i++)
		rs_ring_free((struct rs_ring *)rings[i]);
}

/* The current ring alone, or kept rings equal to it: never a hop. */
TEST(same_rings_no_hops)
{
	static const u32 a[] = { 1, 2, 3 };
	const struct rs_ring *rings[4];
	u8 hops[RS_CHAIN_HOPS_ROOM];
	u64 seed = 3, pos;
	u32 i;

	for (i = 0; i < 4; i++)
		rings[i] = ring_of(a, 3, false);
	for (i = 0; i < 1000; i++) {
		pos = rnd_next(&seed);
		ASSERT_EQ(0, rs_chain_hops(rings, 4, pos, owner(rings[0], pos), hops));
		ASSERT_EQ(0, rs_chain_hops(rings, 1, pos, owner(rings[0], pos), hops));
	}
	for (i = 0; i < 4; i++)
		rs_ring_free((struct rs_ring *)rings[i]);
}

/*
 * Five one-backend rings, all different: chain 4 carries three hops, the
 * three newest after the destination's, never a fourth.
 */
TEST(at_most_three_hops)
{
	const struct rs_ring *rings[5];
	u8 hops[RS_CHAIN_HOPS_ROOM + 16];
	struct rs_member dst = mk_member(100, false, 1);
	u32 i, id;

	for (i = 0; i < 5; i++) {
		id = 10 + i;
		rings[i] = ring_of(&id, 1, false);
	}
	memset(hops, 0xee, sizeof(hops));
	ASSERT_EQ(RS_CHAIN_MAX_HOPS, rs_chain_hops(rings, 5, 42, &dst, hops));
	for (i = 0; i < RS_CHAIN_MAX_HOPS; i++)
		EXPECT_EQ(0, memcmp(hops + 4 * i, rings[i]->members[0].addr, 4));
	/* Nothing written past them. */
	EXPECT_EQ(0xee, hops[4 * RS_CHAIN_MAX_HOPS]);
	/* The destination itself is never a hop: the newest ring's owner. */
	ASSERT_EQ(RS_CHAIN_MAX_HOPS, rs_chain_hops(rings, 5, 42, &rings[0]->members[0], hops));
	EXPECT_EQ(0, memcmp(hops, rings[1]->members[0].addr, 4));
	for (i = 0; i < 5; i++)
		rs_ring_free((struct rs_ring *)rings[i]);
}

/* An empty kept ring owns nothing; a hop of another family is left out. */
TEST(empty_ring_and_other_family)
{
	static const u32 one = 1, two = 2;
	const struct rs_ring *rings[3];
	struct rs_member dst = mk_member(9, false, 1);
	u8 hops[RS_CHAIN_HOPS_ROOM];

	rings[0] = ring_of(NULL, 0, false);
	rings[1] = ring_of(&one, 1, true);
	rings[2] = ring_of(&two, 1, false);
	ASSERT_EQ(1, rs_chain_hops(rings, 3, 1, &dst, hops));
	EXPECT_EQ(0, memcmp(hops, rings[2]->members[0].addr, 4));
	rs_ring_free((struct rs_ring *)rings[0]);
	rs_ring_free((struct rs_ring *)rings[1]);
	rs_ring_free((struct rs_ring *)rings[2]);
}

/* IPv6 hops are 16 bytes each, as type 1 carries them. */
TEST(v6_hops)
{
	static const u32 a = 1, b = 2, c = 3;
	const struct rs_ring *rings[3];
	struct rs_member dst = mk_member(a, true, 1);
	u8 hops[RS_CHAIN_HOPS_ROOM];

	rings[0] = ring_of(&a, 1, true);
	rings[1] = ring_of(&b, 1, true);
	rings[2] = ring_of(&c, 1, true);
	ASSERT_EQ(2, rs_chain_hops(rings, 3, 5, &dst, hops));
	EXPECT_EQ(0, memcmp(hops, rings[1]->members[0].addr, 16));
	EXPECT_EQ(0, memcmp(hops + 16, rings[2]->members[0].addr, 16));
	rs_ring_free((struct rs_ring *)rings[0]);
	rs_ring_free((struct rs_ring *)rings[1]);
	rs_ring_free((struct rs_ring *)rings[2]);
}

/* The cost: 4 + 4 (K - 1) bytes over IPv4, 4 + 16 (K - 1) over IPv6. */
TEST(overhead)
{
	EXPECT_EQ(0U, rs_chain_overhead(AF_INET, 1));
	EXPECT_EQ(0U, rs_chain_overhead(AF_INET6, 1));
	EXPECT_EQ(8U, rs_chain_overhead(AF_INET, 2));
	EXPECT_EQ(16U, rs_chain_overhead(AF_INET, 4));
	EXPECT_EQ(20U, rs_chain_overhead(AF_INET6, 2));
	EXPECT_EQ(52U, rs_chain_overhead(AF_INET6, 4));
	EXPECT_EQ(0U, rs_chain_overhead(AF_INET, 5));
	/* What the encoder writes for K - 1 hops, less GUE's own 4 bytes. */
	EXPECT_EQ(rs_chain_len(AF_INET6, 3) - RS_GUE_HLEN, rs_chain_overhead(AF_INET6, 4));
}

/* Off leaves the ring's; the chain, each kept ring and their order count. */
TEST(fingerprint)
{
	const u64 kept[2] = { 0x1111, 0x2222 }, swapped[2] = { 0x2222, 0x1111 };
	u64 fp = 0xabcdef;

	EXPECT_EQ(fp, rs_chain_fingerprint(fp, 1, kept, 2));
	EXPECT_NE(fp, rs_chain_fingerprint(fp, 2, NULL, 0));
	EXPECT_NE(rs_chain_fingerprint(fp, 2, NULL, 0), rs_chain_fingerprint(fp, 3, NULL, 0));
	EXPECT_NE(rs_chain_fingerprint(fp, 3, kept, 1), rs_chain_fingerprint(fp, 3, kept, 2));
	EXPECT_NE(rs_chain_fingerprint(fp, 3, kept, 2), rs_chain_fingerprint(fp, 3, swapped, 2));
	EXPECT_EQ(rs_chain_fingerprint(fp, 3, kept, 2), rs_chain_fingerprint(fp, 3, kept, 2));
}

TEST_HARNESS_MAIN
