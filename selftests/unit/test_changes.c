// SPDX-License-Identifier: GPL-2.0
/*
 * What a change does to flows: over a million flows, adding, removing,
 * draining or reweighting one backend moves flows only to or from that
 * backend (no collateral moves), moves about its share, and undoing the
 * change restores every flow's owner. Shares follow the weights.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <math.h>

#include "kselftest_harness.h"
#include "ring_util.h"

#define NFLOWS	(1U << 20)
#define NBACK	100
#define VNODES	128

enum change { ADD, REMOVE, DRAIN, WEIGHT_UP, WEIGHT_DOWN };

struct moves {
	u32 moved;	/* flows whose owner changed */
	u32 collateral;	/* ... between two backends other than @x */
	u32 wrong_way;	/* ... in the direction the change forbids */
};

FIXTURE(flows) {
	u64 *pos;
	struct rs_member m[NBACK + 1];
	struct rs_ring *r;
	struct rs_key key;
};

FIXTURE_SETUP(flows)
{
	struct rs_flow f;
	u64 s = 2024;
	u32 i;

	rs_key_init(&self->key, test_key);
	self->pos = malloc(NFLOWS * sizeof(u64));
	ASSERT_NE(NULL, self->pos);
	memset(&f, 0, sizeof(f));
	for (i = 0; i < NFLOWS; i++) {
		u64 v = rnd_next(&s);

		f.family = v & 1 ? AF_INET6 : AF_INET;
		f.proto = v & 2 ? IPPROTO_TCP : IPPROTO_UDP;
		memcpy(f.saddr, &v, 4);
		if (f.family == AF_INET6)
			memcpy(f.saddr + 8, &v, 8);
		f.daddr[0] = 198;
		f.daddr[1] = 51;
		f.daddr[2] = 100;
		f.sport = htons(1024 + (v >> 32) % 60000);
		f.dport = htons(443);
		self->pos[i] = rs_flow_position(&self->key, &f,
						RINGSTEER_HASH_FLOW);
	}
	for (i = 0; i <= NBACK; i++)
		self->m[i] = mk_member(i, i % 4 == 0, 1 + i % 3);
	self->r = rs_ring_build(test_key, self->m, NBACK, VNODES);
	ASSERT_FALSE(IS_ERR(self->r));
}

FIXTURE_TEARDOWN(flows)
{
	rs_ring_free(self->r);
	free(self->pos);
}

/* Classifies every flow's move from @a to @b relative to member @x. */
static struct moves diff(const u64 *pos, const struct rs_ring *a,
			 const struct rs_ring *b, const struct rs_member *x,
			 enum change c)
{
	struct moves mv = { 0 };
	u32 i;

	for (i = 0; i < NFLOWS; i++) {
		const struct rs_member *oa = owner_of(a, pos[i]);
		const struct rs_member *ob = owner_of(b, pos[i]);

		if (same_id(oa, ob))
			continue;
		mv.moved++;
		if (!same_id(oa, x) && !same_id(ob, x))
			mv.collateral++;
		/* Growing pulls flows to x; shrinking pushes them away. */
		if ((c == ADD || c == WEIGHT_UP) ? !same_id(ob, x) :
						   !same_id(oa, x))
			mv.wrong_way++;
	}
	return mv;
}

/* The share of member @x in @r (exact, from the arcs). */
static double share(const struct rs_ring *r, const struct rs_member *x)
{
	u64 *arcs = calloc(r->nmembers, sizeof(u64));
	int i = rs_ring_find_member(r, x);
	double s;

	rs_ring_arcs(r, arcs);
	s = i < 0 ? 0 : arcs[i] / 18446744073709551616.0;
	free(arcs);
	return s;
}

/*
 * Applies @c to backend @x (an index into self->m), checks the moves, then
 * applies the inverse and checks that every byte and every flow is back.
 */
static void check_change(struct __test_metadata *_metadata,
			 FIXTURE_DATA(flows) *self, enum change c, u32 x)
{
	const struct rs_member *mx = &self->m[x];
	struct rs_ring *r1, *r2;
	double expect, got, sigma;
	struct moves mv;
	u32 idx, w;

	idx = rs_ring_find_member(self->r, mx);
	w = mx->weight;
	switch (c) {
	case ADD:
		r1 = rs_ring_add_member(self->r, mx);
		break;
	case REMOVE:
	case DRAIN:	/* for the ring, draining is leaving it */
		r1 = rs_ring_remove_member(self->r, idx);
		break;
	case WEIGHT_UP:
		r1 = rs_ring_set_weight(self->r, idx, w + 3);
		break;
	default:
		r1 = rs_ring_set_weight(self->r, idx, w - 1);
		break;
	}
	ASSERT_FALSE(IS_ERR(r1));

	mv = diff(self->pos, self->r, r1, mx, c);
	ASSERT_EQ(0U, mv.collateral);
	ASSERT_EQ(0U, mv.wrong_way);
	ASSERT_LT(0U, mv.moved);
	/* The moved fraction is the exact change of x's share ± 6 sigma. */
	expect = fabs(share(r1, mx) - share(self->r, mx));
	got = (double)mv.moved / NFLOWS;
	sigma = sqrt(expect * (1 - expect) / NFLOWS);
	EXPECT_LT(fabs(got - expect), 6 * sigma + 1e-9)
		TH_LOG("moved %f, exact %f", got, expect);

	switch (c) {
	case ADD:
		r2 = rs_ring_remove_member(r1, rs_ring_find_member(r1, mx));
		break;
	case REMOVE:
	case DRAIN:
		r2 = rs_ring_add_member(r1, mx);
		break;
	default:
		r2 = rs_ring_set_weight(r1, idx, w);
		break;
	}
	ASSERT_FALSE(IS_ERR(r2));
	ASSERT_TRUE(rings_equal(self->r, r2));
	mv = diff(self->pos, self->r, r2, mx, c);
	ASSERT_EQ(0U, mv.moved);
	rs_ring_free(r2);
	rs_ring_free(r1);
}

TEST_F(flows, add)
{
	check_change(_metadata, self, ADD, NBACK);
}

TEST_F(flows, remove)
{
	check_change(_metadata, self, REMOVE, 17);
}

TEST_F(flows, drain)
{
	check_change(_metadata, self, DRAIN, 40);
}

TEST_F(flows, weight_up)
{
	check_change(_metadata, self, WEIGHT_UP, 5);
}

TEST_F(flows, weight_down)
{
	check_change(_metadata, self, WEIGHT_DOWN, 2);	/* weight 3 -> 2 */
}

/* The old ring is never written: a change leaves it byte for byte. */
TEST_F(flows, old_ring_untouched)
{
	struct rs_ring *copy, *r1;

	copy = malloc(self->r->size);
	ASSERT_NE(NULL, copy);
	memcpy(copy, self->r, self->r->size);
	r1 = rs_ring_add_member(self->r, &self->m[NBACK]);
	ASSERT_FALSE(IS_ERR(r1));
	rs_ring_free(r1);
	r1 = rs_ring_set_weight(self->r, 3, 7);
	ASSERT_FALSE(IS_ERR(r1));
	rs_ring_free(r1);
	r1 = rs_ring_remove_member(self->r, 3);
	ASSERT_FALSE(IS_ERR(r1));
	rs_ring_free(r1);
	ASSERT_EQ(0, memcmp(copy, self->r, self->r->size));
	free(copy);
}

/* The index lookup agrees with the exact arcs on a million flows. */
TEST_F(flows, sampled_matches_arcs)
{
	u32 *count = calloc(NBACK, sizeof(u32));
	u64 arcs[NBACK];
	u32 i;

	ASSERT_NE(NULL, count);
	for (i = 0; i < NFLOWS; i++)
		count[rs_ring_lookup(self->r, self->pos[i])]++;
	ASSERT_EQ(0, rs_ring_arcs(self->r, arcs));
	for (i = 0; i < NBACK; i++) {
		double p = arcs[i] / 18446744073709551616.0;
		double sigma = sqrt(p * (1 - p) / NFLOWS);

		EXPECT_LT(fabs((double)count[i] / NFLOWS - p), 6 * sigma)
			TH_LOG("member %u", i);
	}
	free(count);
}

/*
 * Shares follow weights: with v points per unit of weight, a member's
 * share deviates from weight/total by about 1/sqrt(w * v) relative. The
 * mean squared deviation in those units must be about 1 (below 2), and
 * the mean share of each weight class within 5% of its weight.
 */
TEST(weights_proportional)
{
	enum { N = 300, V = 256, WMAX = 8 };
	double chi = 0, class_share[WMAX + 1] = { 0 };
	u32 class_n[WMAX + 1] = { 0 }, wsum = 0, i;
	struct rs_member m[N];
	struct rs_ring *r;
	u64 arcs[N];

	for (i = 0; i < N; i++) {
		m[i] = mk_member(i, i & 1, 1 + i % WMAX);
		wsum += m[i].weight;
	}
	r = rs_ring_build(test_key, m, N, V);
	ASSERT_FALSE(IS_ERR(r));
	ASSERT_EQ(0, rs_ring_arcs(r, arcs));
	for (i = 0; i < N; i++) {
		u32 w = r->members[i].weight;
		double got = arcs[i] / 18446744073709551616.0;
		double want = (double)w / wsum;
		double rel = (got - want) / want * sqrt((double)w * V);

		chi += rel * rel;
		class_share[w] += got / want;
		class_n[w]++;
	}
	chi /= N;
	EXPECT_LT(chi, 2.0);
	EXPECT_LT(0.3, chi);	/* suspiciously even is a bug too */
	for (i = 1; i <= WMAX; i++)
		EXPECT_LT(fabs(class_share[i] / class_n[i] - 1), 0.05)
			TH_LOG("weight %u", i);
	rs_ring_free(r);
}

TEST_HARNESS_MAIN
