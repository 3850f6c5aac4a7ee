// SPDX-License-Identifier: GPL-2.0
/*
 * The Maglev tables simulate compares against (userspace/lib/maglev.c)
 * behave as the peers' published numbers say: near-perfect balance, some
 * collateral on every change, and a table that depends on the order the
 * backends were given. If these fail, the comparison would be unfair.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "ring_util.h"
#include "maglev.h"

static struct rs_key key;

static void members(struct rs_member *m, u32 n, bool reverse)
{
	u32 i;

	for (i = 0; i < n; i++)
		m[i] = mk_member(reverse ? n - 1 - i : i, false, 1);
}

/* Entries whose backend (by identity) differs between a and b. */
static double differ(const struct maglev *a, const struct rs_member *ma,
		     const struct maglev *b, const struct rs_member *mb,
		     const struct rs_member *changed, double *collateral)
{
	u32 i, d = 0, c = 0;

	for (i = 0; i < a->size; i++) {
		const struct rs_member *x = &ma[a->owner[i]];
		const struct rs_member *y = &mb[b->owner[i]];

		if (!rs_member_cmp(x, y))
			continue;
		d++;
		if (!changed || (rs_member_cmp(x, changed) &&
				 rs_member_cmp(y, changed)))
			c++;
	}
	*collateral = (double)c / a->size;
	return (double)d / a->size;
}

static double peak(const struct maglev *t)
{
	double share[200], max = 0;
	u32 i;

	maglev_shares(t, share);
	for (i = 0; i < t->nmembers; i++)
		if (share[i] > max)
			max = share[i];
	return max * t->nmembers;
}

TEST(katran_size_100_backends)
{
	static struct rs_member m[100], r[100], less[99];
	struct maglev a, b, c;
	double moved, coll, p;

	rs_key_init(&key, test_key);
	members(m, 100, false);
	members(r, 100, true);
	memcpy(less, m, 37 * sizeof(*m));
	memcpy(less + 37, m + 38, 62 * sizeof(*m));
	ASSERT_EQ(0, maglev_build(&a, &key, m, 100, MAGLEV_SIZE_KATRAN));
	ASSERT_EQ(0, maglev_build(&b, &key, r, 100, MAGLEV_SIZE_KATRAN));
	ASSERT_EQ(0, maglev_build(&c, &key, less, 99, MAGLEV_SIZE_KATRAN));
	p = peak(&a);
	printf("# maglev 65537, 100 backends: peak/mean %.4f\n", p);
	ASSERT_LE(p, 1.002);
	moved = differ(&a, m, &b, r, NULL, &coll);
	printf("# same backends in reverse order: %.3f%% of the table differs\n",
	       100 * moved);
	ASSERT_GT(moved, 0.0);
	moved = differ(&a, m, &c, less, &m[37], &coll);
	printf("# one backend removed: %.3f%% moved, %.3f%% between others\n",
	       100 * moved, 100 * coll);
	fflush(stdout);	/* the harness's child leaves by _exit() */
	ASSERT_GT(coll, 0.0);
	ASSERT_LT(coll, 0.02);
	maglev_free(&a);
	maglev_free(&b);
	maglev_free(&c);
}

TEST(weights_and_limits)
{
	struct rs_member m[2] = { mk_member(0, false, 1), mk_member(1, false, 3) };
	double share[2];
	struct maglev t;

	rs_key_init(&key, test_key);
	ASSERT_EQ(-EINVAL, maglev_build(&t, &key, m, 0, 7));
	ASSERT_EQ(-EINVAL, maglev_build(&t, &key, m, 2, 2));
	ASSERT_EQ(0, maglev_build(&t, &key, m, 2, MAGLEV_SIZE_IPVS_DEBIAN));
	maglev_shares(&t, share);
	ASSERT_LT(share[0], 0.26);
	ASSERT_GT(share[0], 0.24);
	maglev_free(&t);
	m[0].weight = 0;
	ASSERT_EQ(-ERANGE, maglev_build(&t, &key, m, 2, 7));
}

TEST_HARNESS_MAIN
