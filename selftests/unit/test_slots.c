// SPDX-License-Identifier: GPL-2.0
/*
 * Slot placement (kmod/slots.c): known answers from a second reading of
 * the uapi text (selftests/lib/slots_ref.py), the ranking property (a
 * change moves only the changed backend's flows, the order of building
 * does not matter), balance over sampled flows against the ring's on the
 * same flows, probes per lookup, and the limits.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <math.h>

#include "kselftest_harness.h"
#include "ring_util.h"
#include "slots.h"

struct probe_vec {
	u64 pos;
	u32 bits;
	u32 slot[4];
};

struct owner_vec {
	int live_set;
	u64 pos;
	u32 slot;
};

/* Printed by "python3 selftests/lib/slots_ref.py vectors". */
static const struct probe_vec probe_vecs[] = {
	{ 0x0000000000000000ULL, 1, { 1, 0, 0, 1 } },
	{ 0x0000000000000000ULL, 4, { 14, 6, 0, 15 } },
	{ 0x0000000000000000ULL, 10, { 904, 441, 27, 994 } },
	{ 0x0000000000000000ULL, 16, { 57888, 28280, 1732, 63627 } },
	{ 0x0000000000000001ULL, 1, { 1, 1, 1, 0 } },
	{ 0x0000000000000001ULL, 4, { 9, 11, 15, 7 } },
	{ 0x0000000000000001ULL, 10, { 580, 763, 994, 455 } },
	{ 0x0000000000000001ULL, 16, { 37130, 48875, 63635, 29121 } },
	{ 0x0123456789abcdefULL, 1, { 0, 1, 0, 1 } },
	{ 0x0123456789abcdefULL, 4, { 1, 13, 2, 10 } },
	{ 0x0123456789abcdefULL, 10, { 85, 853, 190, 651 } },
	{ 0x0123456789abcdefULL, 16, { 5498, 54643, 12176, 41684 } },
	{ 0xffffffffffffffffULL, 1, { 1, 1, 0, 0 } },
	{ 0xffffffffffffffffULL, 4, { 14, 14, 3, 6 } },
	{ 0xffffffffffffffffULL, 10, { 915, 934, 224, 436 } },
	{ 0xffffffffffffffffULL, 16, { 58585, 59807, 14383, 27933 } },
	{ 0x8000000000000000ULL, 1, { 0, 1, 0, 0 } },
	{ 0x8000000000000000ULL, 4, { 4, 12, 6, 5 } },
	{ 0x8000000000000000ULL, 10, { 288, 785, 390, 356 } },
	{ 0x8000000000000000ULL, 16, { 18462, 50287, 24998, 22830 } },
};
static const struct owner_vec owner_vecs[] = {
	{ 0, 0x0000000000000000ULL, 3 },
	{ 0, 0x0000000000000001ULL, 9 },
	{ 0, 0x0123456789abcdefULL, 9 },
	{ 0, 0xffffffffffffffffULL, 3 },
	{ 0, 0x8000000000000000ULL, 3 },
	{ 1, 0x0000000000000000ULL, 441 },
	{ 1, 0x0000000000000001ULL, 813 },
	{ 1, 0x0123456789abcdefULL, 651 },
	{ 1, 0xffffffffffffffffULL, 915 },
	{ 1, 0x8000000000000000ULL, 288 },
	{ 2, 0x0000000000000000ULL, 40000 },
	{ 2, 0x0000000000000001ULL, 40000 },
	{ 2, 0x0123456789abcdefULL, 40000 },
	{ 2, 0xffffffffffffffffULL, 40000 },
	{ 2, 0x8000000000000000ULL, 40000 },
	{ 3, 0x0000000000000000ULL, 65535 },
	{ 3, 0x0000000000000001ULL, 7 },
	{ 3, 0x0123456789abcdefULL, 65535 },
	{ 3, 0xffffffffffffffffULL, 65535 },
	{ 3, 0x8000000000000000ULL, 65535 },
};

static const u32 live_bits[] = { 4, 10, 16, 16 };

static u32 live_set(int n, struct rs_slot_holder *h)
{
	u32 i, k = 0;

	switch (n) {
	case 0:
		h[k++].slot = 3;
		h[k++].slot = 9;
		break;
	case 1:
		for (i = 0; i < 1024; i += 3)
			h[k++].slot = i;
		break;
	case 2:
		h[k++].slot = 40000;
		break;
	default:
		h[k++].slot = 7;
		h[k++].slot = 65535;
	}
	for (i = 0; i < k; i++)
		h[i].member = (u16)i;
	return k;
}

TEST(known_answers)
{
	static struct rs_slot_holder h[1024];
	size_t i;
	u32 j;

	for (i = 0; i < ARRAY_SIZE(probe_vecs); i++)
		for (j = 0; j < 4; j++)
			ASSERT_EQ(probe_vecs[i].slot[j],
				  rs_slots_probe(probe_vecs[i].pos, j,
						 probe_vecs[i].bits));
	for (i = 0; i < ARRAY_SIZE(owner_vecs); i++) {
		const struct owner_vec *v = &owner_vecs[i];
		u32 n = live_set(v->live_set, h);
		struct rs_slots *s = rs_slots_build(live_bits[v->live_set], h, n);

		ASSERT_FALSE(IS_ERR(s));
		ASSERT_EQ((int)v->slot, rs_slots_find(s, v->pos, NULL));
		rs_slots_free(s);
	}
}

TEST(limits)
{
	struct rs_slot_holder h[2] = { { 5, 0 }, { 5, 1 } };
	struct rs_slots *s;

	ASSERT_EQ(-ERANGE, PTR_ERR(rs_slots_build(0, h, 1)));
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_slots_build(RS_SLOTS_MAX_BITS + 1, h, 1)));
	ASSERT_EQ(-ERANGE, PTR_ERR(rs_slots_build(2, h, 1)));	/* 5 >= 4 */
	ASSERT_EQ(-EEXIST, PTR_ERR(rs_slots_build(4, h, 2)));
	s = rs_slots_build(4, h, 0);
	ASSERT_FALSE(IS_ERR(s));
	ASSERT_EQ(-ENOENT, rs_slots_lookup(s, 0));
	ASSERT_EQ(-ENOENT, rs_slots_lookup(s, U64_MAX));
	rs_slots_free(s);
	s = rs_slots_build(1, h, 0);
	ASSERT_FALSE(IS_ERR(s));
	rs_slots_free(s);
}

/*
 * A service of n backends with the given weights holding the lowest
 * slots in turn (what ringctl picks), minus the members in @gone.
 */
static u32 holders(struct rs_slot_holder *h, const u32 *weight, u32 n,
		   const bool *gone)
{
	u32 i, w, k = 0, next = 0;

	for (i = 0; i < n; i++)
		for (w = 0; w < weight[i]; w++, next++)
			if (!gone || !gone[i])
				h[k++] = (struct rs_slot_holder){ next, (u16)i };
	return k;
}

static void shuffle(struct rs_slot_holder *h, u32 n, u64 *seed)
{
	u32 i;

	for (i = n; i > 1; i--) {
		u32 j = rnd_below(seed, i);
		struct rs_slot_holder t = h[i - 1];

		h[i - 1] = h[j];
		h[j] = t;
	}
}

/* Flows that moved between a and b without touching @member. */
static u32 collateral(const struct rs_slots *a, const struct rs_slots *b,
		      int member, u32 flows, u64 seed)
{
	u32 i, bad = 0;

	for (i = 0; i < flows; i++) {
		u64 pos = rnd_next(&seed);
		int x = rs_slots_lookup(a, pos), y = rs_slots_lookup(b, pos);

		if (x != y && x != member && y != member)
			bad++;
	}
	return bad;
}

/*
 * Every kind of change against the set before it: a backend added,
 * removed (or drained: its slots stop being live), a weight raised and
 * lowered by one slot. Only the changed backend's flows move.
 */
TEST(zero_collateral)
{
	static struct rs_slot_holder h[2048], g[2048];
	static u32 weight[200];
	static bool gone[200];
	struct rs_slots *a, *b;
	u64 seed = 7;
	u32 i, n = 200, na, nb;
	int round;

	for (i = 0; i < n; i++)
		weight[i] = 1 + rnd_below(&seed, 4);
	for (round = 0; round < 40; round++) {
		int m = (int)rnd_below(&seed, n);

		memset(gone, 0, sizeof(gone));
		na = holders(h, weight, n, NULL);
		switch (round % 3) {
		case 0:		/* removed or drained */
			gone[m] = true;
			nb = holders(g, weight, n, gone);
			break;
		case 1:		/* one slot fewer: its last */
			memcpy(g, h, na * sizeof(*h));
			for (nb = 0, i = 0; i < na; i++)
				if (h[i].member != m || i + 1 == na ||
				    h[i + 1].member == m)
					g[nb++] = h[i];
			break;
		default:	/* one slot more, past all others */
			memcpy(g, h, na * sizeof(*h));
			g[na] = (struct rs_slot_holder){ 1500, (u16)m };
			nb = na + 1;
		}
		a = rs_slots_build(11, h, na);
		b = rs_slots_build(11, g, nb);
		ASSERT_FALSE(IS_ERR(a));
		ASSERT_FALSE(IS_ERR(b));
		ASSERT_EQ(0U, collateral(a, b, m, 20000, round));
		ASSERT_EQ(0U, collateral(b, a, m, 20000, round));
		rs_slots_free(a);
		rs_slots_free(b);
	}
}

TEST(order_does_not_matter)
{
	static struct rs_slot_holder h[1000];
	static u32 weight[300];
	struct rs_slots *a, *b;
	u64 seed = 3, pos = 11;
	u32 i, n;

	for (i = 0; i < 300; i++)
		weight[i] = 1 + rnd_below(&seed, 3);
	n = holders(h, weight, 300, NULL);
	a = rs_slots_build(10, h, n);
	shuffle(h, n, &seed);
	b = rs_slots_build(10, h, n);
	ASSERT_FALSE(IS_ERR(a));
	ASSERT_FALSE(IS_ERR(b));
	for (i = 0; i < 200000; i++) {
		u64 p = rnd_next(&pos);

		ASSERT_EQ(rs_slots_lookup(a, p), rs_slots_lookup(b, p));
	}
	rs_slots_free(a);
	rs_slots_free(b);
}

static u32 log2_ceil(u32 n)
{
	u32 b = RS_SLOTS_MIN_BITS;

	while ((1U << b) < n)
		b++;
	return b;
}

/* Peak over mean of the per-member counts of @flows sampled positions. */
static double peak_slots(const struct rs_slots *s, u32 members, u32 flows,
			 double *probes)
{
	u32 *count = calloc(members, sizeof(*count));
	u64 seed = 99, total = 0;
	u32 i, max = 0, p, live = 0;

	for (i = 0; i < flows; i++) {
		int slot = rs_slots_find(s, rnd_next(&seed), &p);

		count[s->owner[slot]]++;
		total += p;
	}
	for (i = 0; i < members; i++) {
		live += count[i] > 0;
		if (count[i] > max)
			max = count[i];
	}
	free(count);
	*probes = (double)total / flows;
	return max / ((double)flows / live);
}

static double peak_ring(u32 n, u32 flows)
{
	struct rs_member *m = calloc(n, sizeof(*m));
	u32 *count = calloc(n, sizeof(*count));
	u64 seed = 99;
	struct rs_ring *r;
	u32 i, max = 0;

	for (i = 0; i < n; i++)
		m[i] = mk_member(i, false, 1);
	r = rs_ring_build(test_key, m, n, 256);
	for (i = 0; i < flows; i++)
		count[rs_ring_lookup(r, rnd_next(&seed))]++;
	for (i = 0; i < n; i++)
		if (count[i] > max)
			max = count[i];
	rs_ring_free(r);
	free(m);
	free(count);
	return max / ((double)flows / n);
}

/*
 * The per-backend counts of F sampled flows over N equal backends are
 * binomial: their largest is about sqrt(2 ln N) standard deviations
 * (sqrt(N/F) of the mean each) above the mean, 2.5 at N = 10 and 4.1 at
 * 4,000, so "within the sampling floor" is checked as 1 + 4.5 sqrt(N/F)
 * (the 1 + 3 sqrt(N/F) holds at N <= 100; the largest of 4,000
 * draws passes 3 deviations most of the time). The ring's 256 vnodes on
 * the same flows are printed beside it.
 */
static void balance(struct __test_metadata *_metadata, u32 n, bool fifth_gone)
{
	static struct rs_slot_holder h[4096];
	static u32 weight[4096];
	static bool gone[4096];
	u32 i, flows = 1000000, k, live;
	double peak, floor, probes;
	struct rs_slots *s;

	for (i = 0; i < n; i++) {
		weight[i] = 1;
		gone[i] = fifth_gone && i % 5 == 2;
	}
	k = holders(h, weight, n, gone);
	s = rs_slots_build(log2_ceil(n), h, k);
	ASSERT_FALSE(IS_ERR(s));
	live = s->live;
	peak = peak_slots(s, n, flows, &probes);
	floor = 1 + 4.5 * sqrt((double)live / flows);
	printf("# slots: %u live of %u: peak/mean %.4f (floor %.4f), %.2f probes a lookup; ring, 256 vnodes: %.4f\n",
	       live, 1U << s->bits, peak, floor, probes,
	       fifth_gone ? 0.0 : peak_ring(n, flows));
	fflush(stdout);	/* the harness's child leaves by _exit() */
	ASSERT_LE(peak, floor);
	/* A probe hits with probability live/capacity: C/L on average. */
	ASSERT_LE(probes, 1.05 * (1U << s->bits) / live);
	rs_slots_free(s);
}

TEST(balance_10) { balance(_metadata, 10, false); }
TEST(balance_100) { balance(_metadata, 100, false); }
TEST(balance_1000) { balance(_metadata, 1000, false); }
TEST(balance_4000) { balance(_metadata, 4000, false); }
TEST(balance_4000_fifth_drained) { balance(_metadata, 4000, true); }
TEST(balance_100_fifth_drained) { balance(_metadata, 100, true); }

/*
 * A nearly empty slot space answers by the scan after RS_SLOTS_PROBES
 * probes: one live slot of 65,536 owns everything, two split by the gaps.
 */
TEST(scan_bounds_sparse_spaces)
{
	struct rs_slot_holder h[2] = { { 12345, 0 }, { 60000, 1 } };
	struct rs_slots *s = rs_slots_build(16, h, 1);
	u64 seed = 5;
	u32 i, p, max = 0;

	ASSERT_FALSE(IS_ERR(s));
	for (i = 0; i < 100000; i++) {
		ASSERT_EQ(12345, rs_slots_find(s, rnd_next(&seed), &p));
		if (p > max)
			max = p;
	}
	ASSERT_EQ(RS_SLOTS_PROBES + 1U, max);
	rs_slots_free(s);
	s = rs_slots_build(16, h, 2);
	for (i = 0; i < 100000; i++) {
		int slot = rs_slots_find(s, rnd_next(&seed), NULL);

		ASSERT_TRUE(slot == 12345 || slot == 60000);
	}
	rs_slots_free(s);
}

/*
 * The scan's cost does not grow with the slot space: whatever it starts
 * from, it reads at most 3 + C/4096 words (uapi "Slot placement"), here
 * with one live slot of 65,536 just before where it starts, so that it
 * wraps all the way round, and with one just after.
 */
TEST(scan_reads_bounded)
{
	static const u32 live[] = { 0, 63, 64, 4095, 4096, 30000, 65535 };
	u32 bits, k, d, reads, bound, worst = 0;

	for (bits = RS_SLOTS_MIN_BITS; bits <= RS_SLOTS_MAX_BITS; bits++) {
		bound = 3 + ((1U << bits) + 4095) / 4096;
		for (k = 0; k < ARRAY_SIZE(live); k++) {
			u32 cap = 1U << bits, slot = live[k] & (cap - 1);
			struct rs_slot_holder h = { slot, 0 };
			struct rs_slots *s = rs_slots_build(bits, &h, 1);

			ASSERT_FALSE(IS_ERR(s));
			for (d = 0; d < 3; d++) {
				u32 from = (slot + cap - 1 + d) & (cap - 1);

				ASSERT_EQ(slot, rs_slots_scan(s, from, &reads));
				ASSERT_LE(reads, bound);
				if (bits == RS_SLOTS_MAX_BITS && reads > worst)
					worst = reads;
			}
			rs_slots_free(s);
		}
	}
	TH_LOG("scan at capacity 65536: at most %u words read", worst);
}

/* The summary changes the scan's cost, not its answer: a plain walk's. */
TEST(scan_matches_a_walk)
{
	static struct rs_slot_holder h[64];
	struct rs_slots *s;
	u64 seed = 11;
	u32 t, i, n, bits, cap, from, want;

	for (t = 0; t < 400; t++) {
		bits = RS_SLOTS_MIN_BITS + t % (RS_SLOTS_MAX_BITS - RS_SLOTS_MIN_BITS + 1);
		cap = 1U << bits;
		n = 1 + rnd_next(&seed) % (cap < 64 ? cap : 64);
		for (i = 0; i < n; i++) {
			h[i].slot = (i * (cap / n) + rnd_next(&seed) % (cap / n)) & (cap - 1);
			h[i].member = i;
		}
		s = rs_slots_build(bits, h, n);
		ASSERT_FALSE(IS_ERR(s));
		for (i = 0; i < 50; i++) {
			from = rnd_next(&seed) & (cap - 1);
			for (want = from; !(s->map[want / 64] & (1ULL << (want % 64)));)
				want = (want + 1) & (cap - 1);
			ASSERT_EQ(want, rs_slots_scan(s, from, NULL));
		}
		rs_slots_free(s);
	}
}

TEST_HARNESS_MAIN
