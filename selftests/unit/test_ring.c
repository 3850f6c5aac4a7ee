// SPDX-License-Identifier: GPL-2.0
/*
 * Ring structure: empty and single-member rings, wraparound, ties, limits,
 * the index against a plain binary search, incremental builds against
 * full builds, and independence from insertion order.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "ring_util.h"

static struct rs_ring *build_n(u32 n, u32 vnodes, u64 seed)
{
	struct rs_member *m = calloc(n ? n : 1, sizeof(*m));
	struct rs_ring *r;
	u32 i;

	for (i = 0; i < n; i++)
		m[i] = mk_member(i, i & 1, 1 + rnd_below(&seed, 4));
	r = rs_ring_build(test_key, m, n, vnodes);
	free(m);
	return r;
}

TEST(empty_ring)
{
	struct rs_ring *r;
	u64 arcs[1];

	r = rs_ring_build(test_key, NULL, 0, 16);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(0U, r->npoints);
	ASSERT_EQ(-ENOENT, rs_ring_lookup(r, 0));
	ASSERT_EQ(-ENOENT, rs_ring_lookup(r, U64_MAX));
	ASSERT_EQ(-ENOENT, rs_ring_lookup_bsearch(r, 12345));
	ASSERT_EQ(-ENOENT, rs_ring_arcs(r, arcs));
	ASSERT_EQ(-ENOENT, PTR_ERR(rs_ring_remove_member(r, 0)));
	rs_ring_free(r);
}

TEST(single_member)
{
	struct rs_member m = mk_member(5, false, 3);
	struct rs_ring *r;
	u64 s = 1, arcs[1];
	int i;

	r = rs_ring_build(test_key, &m, 1, 16);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(48U, r->npoints);
	for (i = 0; i < 100000; i++)
		ASSERT_EQ(0, rs_ring_lookup(r, rnd_next(&s)));
	ASSERT_EQ(0, rs_ring_lookup(r, 0));
	ASSERT_EQ(0, rs_ring_lookup(r, U64_MAX));
	ASSERT_EQ(0, rs_ring_arcs(r, arcs));
	ASSERT_EQ(U64_MAX, arcs[0]);
	ASSERT_EQ(0, rs_ring_find_member(r, &m));
	rs_ring_free(r);
}

/* Positions from a table: arg points to u64 pos[member addr[3]][vnode]. */
static u64 table_pos(const struct rs_member *m, u32 vnode, void *arg)
{
	const u64 (*t)[4] = arg;

	return t[m->addr[3]][vnode];
}

/* Owner: first point >= position; past the last point, the first one. */
TEST(wraparound)
{
	static u64 t[3][4] = {
		{ 100, 200 },
		{ 300, 1ULL << 63 },
		{ U64_MAX - 5 },
	};
	struct rs_member m[3] = {
		mk_member(0, false, 2), mk_member(1, false, 2),
		mk_member(2, false, 1),
	};
	struct rs_ring *r;
	u64 arcs[3];

	r = rs_ring_build_hooked(m, 3, 1, table_pos, t);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(5U, r->npoints);
	ASSERT_EQ(0, rs_ring_lookup(r, 0));
	ASSERT_EQ(0, rs_ring_lookup(r, 100));
	ASSERT_EQ(0, rs_ring_lookup(r, 101));
	ASSERT_EQ(0, rs_ring_lookup(r, 200));
	ASSERT_EQ(1, rs_ring_lookup(r, 201));
	ASSERT_EQ(1, rs_ring_lookup(r, 1ULL << 63));
	ASSERT_EQ(2, rs_ring_lookup(r, (1ULL << 63) + 1));
	ASSERT_EQ(2, rs_ring_lookup(r, U64_MAX - 5));
	ASSERT_EQ(0, rs_ring_lookup(r, U64_MAX - 4));
	ASSERT_EQ(0, rs_ring_lookup(r, U64_MAX));

	/* Member 0 owns (U64_MAX - 5, 2^64) and [0, 200]. */
	ASSERT_EQ(0, rs_ring_arcs(r, arcs));
	ASSERT_EQ(5ULL + 201, arcs[0]);
	ASSERT_EQ((1ULL << 63) - 200, arcs[1]);
	ASSERT_EQ((1ULL << 63) - 5 - 1, arcs[2]);
	ASSERT_EQ(0ULL, arcs[0] + arcs[1] + arcs[2]);	/* 2^64 mod 2^64 */
	rs_ring_free(r);
}

/*
 * Equal positions are ordered by identity: whoever has the lower identity
 * owns a tied point, whatever the order members were given or added in.
 */
TEST(ties)
{
	static u64 t[3][4] = {
		{ 20, 30 },	/* 10.0.0.0:80 */
		{ 10, 20 },	/* 10.0.0.1:81 */
		{ 20, 20 },	/* 10.0.0.2:82: twice at 20 */
	};
	struct rs_member m[3] = {
		mk_member(2, false, 2), mk_member(1, false, 2),
		mk_member(0, false, 2),
	};
	struct rs_ring *r, *a, *b, *c, *full;
	u64 arcs[3];

	r = rs_ring_build_hooked(m, 3, 1, table_pos, t);
	ASSERT_FALSE(IS_ERR(r));
	/* Sorted members: 10.0.0.0, 10.0.0.1, 10.0.0.2. */
	ASSERT_EQ(0, r->members[0].addr[3]);
	ASSERT_EQ(2, r->members[2].addr[3]);
	ASSERT_EQ(10ULL, r->pos[0]);
	ASSERT_EQ(1, r->owner[0]);
	ASSERT_EQ(20ULL, r->pos[1]);
	ASSERT_EQ(0, r->owner[1]);
	ASSERT_EQ(1, r->owner[2]);
	ASSERT_EQ(2, r->owner[3]);
	ASSERT_EQ(2, r->owner[4]);
	ASSERT_EQ(30ULL, r->pos[5]);
	ASSERT_EQ(0, r->owner[5]);

	ASSERT_EQ(1, rs_ring_lookup(r, 5));
	ASSERT_EQ(1, rs_ring_lookup(r, 10));
	ASSERT_EQ(0, rs_ring_lookup(r, 15));	/* tie at 20: lowest id */
	ASSERT_EQ(0, rs_ring_lookup(r, 20));
	ASSERT_EQ(0, rs_ring_lookup(r, 25));
	ASSERT_EQ(1, rs_ring_lookup(r, 31));	/* wraps to 10 */
	ASSERT_EQ(0, rs_ring_arcs(r, arcs));
	ASSERT_EQ(20ULL, arcs[0]);
	ASSERT_EQ(0ULL - 20, arcs[1]);
	ASSERT_EQ(0ULL, arcs[2]);

	/* Incremental adds in two orders give the same bytes. */
	a = rs_ring_build_hooked(NULL, 0, 1, table_pos, t);
	ASSERT_FALSE(IS_ERR(a));
	b = rs_ring_add_member(a, &m[0]);
	c = rs_ring_add_member(b, &m[1]);
	rs_ring_free(b);
	b = rs_ring_add_member(c, &m[2]);
	ASSERT_TRUE(rings_equal(r, b));
	rs_ring_free(b);
	rs_ring_free(c);
	b = rs_ring_add_member(a, &m[2]);
	c = rs_ring_add_member(b, &m[0]);
	rs_ring_free(b);
	b = rs_ring_add_member(c, &m[1]);
	ASSERT_TRUE(rings_equal(r, b));

	/* Removing the tie winner hands the tie to the next identity. */
	rs_ring_free(c);
	c = rs_ring_remove_member(b, 0);
	ASSERT_FALSE(IS_ERR(c));
	ASSERT_EQ(0, rs_ring_lookup(c, 15));	/* 10.0.0.1 is index 0 now */
	ASSERT_EQ(1, c->members[0].addr[3]);
	full = rs_ring_build_hooked(&m[0], 2, 1, table_pos, t);
	ASSERT_TRUE(rings_equal(full, c));

	/* Weight 2 -> 1 drops vnode 1 of 10.0.0.2, its second 20. */
	rs_ring_free(c);
	c = rs_ring_set_weight(r, 2, 1);
	ASSERT_FALSE(IS_ERR(c));
	ASSERT_EQ(5U, c->npoints);
	rs_ring_free(full);
	m[0].weight = 1;
	full = rs_ring_build_hooked(m, 3, 1, table_pos, t);
	ASSERT_TRUE(rings_equal(full, c));

	rs_ring_free(full);
	rs_ring_free(c);
	rs_ring_free(b);
	rs_ring_free(a);
	rs_ring_free(r);
}

/* Everyone at the same positions: one member owns the whole ring. */
static u64 same_pos(const struct rs_member *m, u32 vnode, void *arg)
{
	return 1000 * (u64)(vnode % 7);
}

TEST(all_tied)
{
	struct rs_member m[40];
	struct rs_ring *r, *r2;
	u64 s = 7, arcs[40];
	int i;

	for (i = 0; i < 40; i++)
		m[i] = mk_member(i, i & 1, 1 + i % 5);
	r = rs_ring_build_hooked(m, 40, 30, same_pos, NULL);
	ASSERT_FALSE(IS_ERR(r));
	for (i = 0; i < 100000; i++) {
		u64 p = i < 20000 ? rnd_below(&s, 7000) : rnd_next(&s);

		ASSERT_EQ(0, rs_ring_lookup(r, p));
		ASSERT_EQ(0, rs_ring_lookup_bsearch(r, p));
	}
	ASSERT_EQ(0, rs_ring_arcs(r, arcs));
	ASSERT_EQ(U64_MAX, arcs[0]);
	for (i = 1; i < 40; i++)
		ASSERT_EQ(0ULL, arcs[i]);
	r2 = rs_ring_remove_member(r, 0);
	ASSERT_FALSE(IS_ERR(r2));
	ASSERT_EQ(0, rs_ring_lookup(r2, 500));
	ASSERT_EQ(r->members[1].addr[3], r2->members[0].addr[3]);
	rs_ring_free(r2);
	rs_ring_free(r);
}

TEST(limits)
{
	struct rs_member *m = calloc(RINGSTEER_MAX_BACKENDS + 1, sizeof(*m));
	struct rs_ring *r, *r2;
	int i;

	ASSERT_NE(NULL, m);
	for (i = 0; i <= RINGSTEER_MAX_BACKENDS; i++)
		m[i] = mk_member(i, false, 1);

	ASSERT_EQ(-ERANGE, PTR_ERR(rs_ring_build(test_key, m, 1, 0)));
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_ring_build(test_key, m, 1,
						 RINGSTEER_MAX_VNODES + 1)));
	ASSERT_EQ(-E2BIG, PTR_ERR(rs_ring_build(test_key, m,
						RINGSTEER_MAX_BACKENDS + 1,
						1)));

	/* Exactly the maximum number of backends, then one more. */
	r = rs_ring_build(test_key, m, RINGSTEER_MAX_BACKENDS, 1);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(-E2BIG,
		  PTR_ERR(rs_ring_add_member(r, &m[RINGSTEER_MAX_BACKENDS])));
	ASSERT_EQ(-EEXIST, PTR_ERR(rs_ring_add_member(r, &m[3])));
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_ring_set_weight(r, 0, 0)));
	ASSERT_EQ(-ERANGE,
		  PTR_ERR(rs_ring_set_weight(r, 0, RINGSTEER_MAX_WEIGHT + 1)));
	ASSERT_EQ(-ENOENT,
		  PTR_ERR(rs_ring_set_weight(r, RINGSTEER_MAX_BACKENDS, 1)));
	ASSERT_EQ(-ENOENT,
		  PTR_ERR(rs_ring_remove_member(r, RINGSTEER_MAX_BACKENDS)));
	rs_ring_free(r);

	/* Exactly RINGSTEER_MAX_POINTS, then one more point. */
	r = rs_ring_build(test_key, m, 256, RINGSTEER_MAX_VNODES);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ((u32)RINGSTEER_MAX_POINTS, r->npoints);
	ASSERT_EQ(-E2BIG, PTR_ERR(rs_ring_add_member(r, &m[300])));
	ASSERT_EQ(-E2BIG, PTR_ERR(rs_ring_set_weight(r, 5, 2)));
	r2 = rs_ring_set_weight(r, 5, 1);	/* no change: a copy */
	ASSERT_FALSE(IS_ERR(r2));
	ASSERT_TRUE(rings_equal(r, r2));
	rs_ring_free(r2);
	rs_ring_free(r);
	m[0].weight = 2;
	ASSERT_EQ(-E2BIG, PTR_ERR(rs_ring_build(test_key, m, 256,
						RINGSTEER_MAX_VNODES)));
	m[0].weight = RINGSTEER_MAX_WEIGHT;
	m[1].weight = RINGSTEER_MAX_WEIGHT;
	ASSERT_EQ(-E2BIG, PTR_ERR(rs_ring_build(test_key, m, 2,
						RINGSTEER_MAX_VNODES)));

	/* Bad members. */
	m[0].weight = 0;
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_ring_build(test_key, m, 2, 1)));
	m[0].weight = RINGSTEER_MAX_WEIGHT + 1;
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_ring_build(test_key, m, 2, 1)));
	m[0].weight = 1;
	m[1] = m[0];
	ASSERT_EQ(-EEXIST, PTR_ERR(rs_ring_build(test_key, m, 2, 1)));
	m[1] = mk_member(1, false, 1);
	m[1].addr[4] = 1;
	ASSERT_EQ(-EINVAL, PTR_ERR(rs_ring_build(test_key, m, 2, 1)));
	m[1] = mk_member(1, false, 1);
	m[1].family = AF_UNIX;
	ASSERT_EQ(-EINVAL, PTR_ERR(rs_ring_build(test_key, m, 2, 1)));
	r = build_n(1, 1, 1);
	ASSERT_EQ(-EINVAL, rs_ring_find_member(r, &m[1]));
	ASSERT_EQ(-ENOENT, rs_ring_find_member(r, &m[2]));
	rs_ring_free(r);
	free(m);
}

/* Check the index against a binary search over the whole array. */
static int compare_lookups(struct __test_metadata *_metadata,
			   const struct rs_ring *r, u32 nrand, u64 seed)
{
	u32 i;

	for (i = 0; i < nrand; i++) {
		u64 p = rnd_next(&seed);

		ASSERT_EQ(rs_ring_lookup_bsearch(r, p), rs_ring_lookup(r, p));
	}
	for (i = 0; i < r->npoints; i++) {
		u64 p = r->pos[i];

		ASSERT_EQ(rs_ring_lookup_bsearch(r, p), rs_ring_lookup(r, p));
		ASSERT_EQ(rs_ring_lookup_bsearch(r, p - 1),
			  rs_ring_lookup(r, p - 1));
		ASSERT_EQ(rs_ring_lookup_bsearch(r, p + 1),
			  rs_ring_lookup(r, p + 1));
	}
	ASSERT_EQ(rs_ring_lookup_bsearch(r, 0), rs_ring_lookup(r, 0));
	ASSERT_EQ(rs_ring_lookup_bsearch(r, U64_MAX),
		  rs_ring_lookup(r, U64_MAX));
	return 0;
}

TEST(index_matches_bsearch)
{
	static const u32 sizes[][2] = {
		{ 1, 1 }, { 2, 1 }, { 3, 5 }, { 10, 64 }, { 100, 256 },
		{ 1000, 256 },
	};
	struct rs_ring *r;
	u32 i, nb;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		r = build_n(sizes[i][0], sizes[i][1], i);
		ASSERT_FALSE(IS_ERR(r));
		/* Sorted, and the index points at each bucket's first point. */
		nb = rs_ring_buckets(r);
		ASSERT_LE(r->npoints, 2 * nb);
		for (u32 j = 1; j < r->npoints; j++)
			ASSERT_LE(r->pos[j - 1], r->pos[j]);
		for (u32 b = 0; b < nb; b++) {
			u32 x = r->index[b];

			ASSERT_TRUE(x == r->npoints ||
				    (r->pos[x] >> r->index_shift) >= b);
			ASSERT_TRUE(x == 0 ||
				    (r->pos[x - 1] >> r->index_shift) < b);
		}
		compare_lookups(_metadata, r,
				r->npoints > 100000 ? 10000000 : 200000, i);
		rs_ring_free(r);
	}
}

/* Add members one by one in random orders: always the full build. */
TEST(incremental_equals_full)
{
	enum { N = 300, V = 64 };
	struct rs_member m[N];
	struct rs_ring *full, *r, *next;
	u64 s = 42;
	int round, i;

	for (i = 0; i < N; i++)
		m[i] = mk_member(i, i % 3 == 0, 1 + rnd_below(&s, 5));
	full = rs_ring_build(test_key, m, N, V);
	ASSERT_FALSE(IS_ERR(full));
	for (round = 0; round < 8; round++) {
		shuffle_members(m, N, &s);
		r = rs_ring_build(test_key, m, 0, V);
		ASSERT_FALSE(IS_ERR(r));
		for (i = 0; i < N; i++) {
			next = rs_ring_add_member(r, &m[i]);
			ASSERT_FALSE(IS_ERR(next));
			rs_ring_free(r);
			r = next;
		}
		ASSERT_TRUE(rings_equal(full, r));
		/* And a full build from the shuffled array. */
		next = rs_ring_build(test_key, m, N, V);
		ASSERT_TRUE(rings_equal(full, next));
		rs_ring_free(next);
		rs_ring_free(r);
	}
	rs_ring_free(full);
}

/* Removals and weight changes, each checked against a full build. */
TEST(changes_equal_full)
{
	enum { N = 200, V = 32 };
	struct rs_member m[N];
	struct rs_ring *r, *next, *full;
	u64 s = 9;
	u32 n = N;
	int step, idx;

	for (idx = 0; idx < N; idx++)
		m[idx] = mk_member(idx, idx & 1, 1 + rnd_below(&s, 8));
	r = rs_ring_build(test_key, m, N, V);
	ASSERT_FALSE(IS_ERR(r));
	memcpy(m, r->members, sizeof(m));	/* ring order */
	for (step = 0; step < 60; step++) {
		idx = rnd_below(&s, n);
		if (step % 3 == 0) {
			next = rs_ring_remove_member(r, idx);
			memmove(&m[idx], &m[idx + 1], (n - idx - 1) * sizeof(m[0]));
			n--;
		} else {
			u32 w = 1 + rnd_below(&s, 12);

			next = rs_ring_set_weight(r, idx, w);
			m[idx].weight = w;
		}
		ASSERT_FALSE(IS_ERR(next));
		full = rs_ring_build(test_key, m, n, V);
		ASSERT_FALSE(IS_ERR(full));
		ASSERT_TRUE(rings_equal(full, next));
		rs_ring_free(full);
		rs_ring_free(r);
		r = next;
	}
	rs_ring_free(r);
}

TEST(find_member)
{
	struct rs_ring *r = build_n(500, 4, 3);
	struct rs_member q;
	u32 i;

	ASSERT_FALSE(IS_ERR(r));
	for (i = 0; i < r->nmembers; i++) {
		q = r->members[i];
		q.weight = 0;	/* ignored: identity only */
		ASSERT_EQ((int)i, rs_ring_find_member(r, &q));
		ASSERT_EQ(&r->members[i], rs_ring_member(r, i));
	}
	ASSERT_EQ(NULL, rs_ring_member(r, r->nmembers));
	q = mk_member(500, false, 1);
	ASSERT_EQ(-ENOENT, rs_ring_find_member(r, &q));
	/* Sorted by identity: IPv4 before IPv6, then address, then port. */
	ASSERT_EQ(AF_INET, r->members[0].family);
	ASSERT_EQ(AF_INET6, r->members[r->nmembers - 1].family);
	rs_ring_free(r);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Each member's points are exactly H(ID || be32(i)), i < weight * v. */
TEST(points_are_vnode_positions)
{
	struct rs_ring *r = build_n(20, 7, 5);
	struct rs_key k;
	u64 *want, *got;
	u32 i, j, n;

	ASSERT_FALSE(IS_ERR(r));
	rs_key_init(&k, test_key);
	want = calloc(r->npoints, sizeof(u64));
	got = calloc(r->npoints, sizeof(u64));
	for (i = 0; i < r->nmembers; i++) {
		const struct rs_member *m = &r->members[i];

		for (j = 0, n = 0; j < r->npoints; j++)
			if (r->owner[j] == i)
				got[n++] = r->pos[j];
		ASSERT_EQ(m->weight * 7, n);
		for (j = 0; j < n; j++)
			want[j] = rs_vnode_position(&k, m, j);
		qsort(want, n, sizeof(u64), cmp_u64);
		ASSERT_EQ(0, memcmp(want, got, n * sizeof(u64)));
	}
	free(want);
	free(got);
	rs_ring_free(r);
}

TEST_HARNESS_MAIN
