// SPDX-License-Identifier: GPL-2.0
/*
 * The exact arithmetic behind "ringctl simulate" (userspace/lib/ringmath.c):
 * moved hash space by walking both rings, hash mod N over one period,
 * shares, and the endpoint and flow syntax.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <math.h>

#include "kselftest_harness.h"
#include "ring_util.h"
#include "parse.h"
#include "ringmath.h"

static u64 table_pos(const struct rs_member *m, u32 vnode, void *arg)
{
	const u64 *t = arg;

	return t[m->addr[3]];
}

/* Hand-made rings: adding a point at 150 between 100 and 200 moves 50. */
TEST(diff_by_hand)
{
	static u64 t[3] = { 100, 200, 150 };
	struct rs_member m[3] = {
		mk_member(0, false, 1), mk_member(1, false, 1),
		mk_member(2, false, 1),
	};
	double from[2], to[3];
	struct sim_diff d = { .from = from, .to = to };
	struct rs_ring *a, *b;

	a = rs_ring_build_hooked(m, 2, 1, table_pos, t);
	b = rs_ring_add_member(a, &m[2]);
	ASSERT_FALSE(IS_ERR(b));
	ASSERT_EQ(0, sim_ring_diff(a, b, &m[2], &d));
	ASSERT_EQ(50 / 18446744073709551616.0, d.moved);
	ASSERT_EQ(0ULL, d.collateral_exact);
	ASSERT_EQ(50 / 18446744073709551616.0, from[1]);	/* from .1 */
	ASSERT_EQ(0.0, from[0]);
	ASSERT_EQ(50 / 18446744073709551616.0, to[2]);

	/* Without naming the changed member, the same move is collateral. */
	ASSERT_EQ(0, sim_ring_diff(a, b, NULL, &d));
	ASSERT_EQ(50ULL, d.collateral_exact);
	rs_ring_free(b);
	rs_ring_free(a);
}

/* Moved space equals the added member's exact share; none is collateral. */
TEST(diff_add_is_share)
{
	struct rs_member m[41];
	struct rs_ring *a, *b;
	struct sim_stats st;
	struct sim_diff d = { 0 };
	double share[41], sum = 0;
	int i, x;

	for (i = 0; i < 41; i++)
		m[i] = mk_member(i, i & 1, 1 + i % 4);
	a = rs_ring_build(test_key, m, 40, 64);
	b = rs_ring_add_member(a, &m[40]);
	ASSERT_FALSE(IS_ERR(b));
	ASSERT_EQ(0, sim_shares(b, share, &st));
	for (i = 0; i < 41; i++)
		sum += share[i];
	ASSERT_LT(fabs(sum - 1), 1e-12);
	ASSERT_EQ(0, sim_ring_diff(a, b, &m[40], &d));
	x = rs_ring_find_member(b, &m[40]);
	ASSERT_LT(fabs(d.moved - share[x]), 1e-15);
	ASSERT_EQ(0ULL, d.collateral_exact);
	ASSERT_EQ(0, sim_ring_diff(a, a, NULL, &d));
	ASSERT_EQ(0.0, d.moved);
	rs_ring_free(b);
	rs_ring_free(a);
}

TEST(mod_n)
{
	struct rs_member m[10], r[2];
	bool exact = false;
	double f;
	int i;

	for (i = 0; i < 10; i++)
		m[i] = mk_member(i, false, 1);
	/* 8 -> 9: only h with h mod 8 == h mod 9 stay: 8 of 72. */
	f = sim_mod_moved(m, 8, m, 9, 1000000, 0, &exact);
	ASSERT_TRUE(exact);
	ASSERT_LT(fabs(f - 64.0 / 72), 1e-12);
	/* Removing the middle of three: 4 of 6 residues move. */
	r[0] = m[0];
	r[1] = m[2];
	f = sim_mod_moved(m, 3, r, 2, 1000000, 0, &exact);
	ASSERT_LT(fabs(f - 4.0 / 6), 1e-12);
	/* Sampled when the period is too long: close to exact. */
	f = sim_mod_moved(m, 8, m, 9, 10, 1000000, &exact);
	ASSERT_FALSE(exact);
	ASSERT_LT(fabs(f - 64.0 / 72), 0.005);
	/* Weights are slots: [A B] -> [A B B B] moves only h = 2 mod 4. */
	r[0] = m[0];
	r[1] = m[1];
	r[1].weight = 3;
	f = sim_mod_moved(m, 2, r, 2, 1000000, 0, &exact);
	ASSERT_TRUE(exact);
	ASSERT_EQ(0.25, f);
}

TEST(endpoints)
{
	char buf[RC_ENDPOINT_LEN];
	struct rs_member m;
	u8 fam, addr[16];
	__be16 port;

	ASSERT_EQ(0, parse_wire_endpoint("10.1.2.3:8080", &fam, addr, &port));
	ASSERT_EQ(AF_INET, fam);
	ASSERT_EQ(8080, ntohs(port));
	ASSERT_EQ(0, addr[4]);
	sim_endpoint_format(buf, fam, addr, port);
	ASSERT_STREQ("10.1.2.3:8080", buf);
	ASSERT_EQ(0, parse_wire_endpoint("[2001:db8::1]:443", &fam, addr, &port));
	ASSERT_EQ(AF_INET6, fam);
	sim_endpoint_format(buf, fam, addr, port);
	ASSERT_STREQ("[2001:db8::1]:443", buf);
	ASSERT_EQ(0, parse_member("10.0.0.1:80@7", &m));
	ASSERT_EQ(7U, m.weight);
	ASSERT_EQ(0, parse_member("10.0.0.1:80", &m));
	ASSERT_EQ(1U, m.weight);

	ASSERT_EQ(-EINVAL, parse_wire_endpoint("10.1.2.3", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("10.1.2.3:", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("10.1.2.3:65536", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("10.1.2:80", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("2001:db8::1:80", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("[2001:db8::1]80", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("[10.0.0.1]:80", &fam, addr, &port));
	ASSERT_EQ(-EINVAL, parse_wire_endpoint("10.0.0.1:-1", &fam, addr, &port));
	ASSERT_EQ(-ERANGE, parse_member("10.0.0.1:80@0", &m));
	ASSERT_EQ(-ERANGE, parse_member("10.0.0.1:80@1001", &m));
	ASSERT_EQ(-EINVAL, parse_member("10.0.0.1:80@", &m));
	ASSERT_EQ(-EINVAL, parse_member("10.0.0.1:80@1x", &m));
}

TEST(flow_lines)
{
	const char *why;
	struct rs_flow f;

	ASSERT_EQ(0, parse_flow_line("192.0.2.1:40000 198.51.100.1:80 tcp",
				   &f, &why));
	ASSERT_EQ(AF_INET, f.family);
	ASSERT_EQ(IPPROTO_TCP, f.proto);
	ASSERT_EQ(40000, ntohs(f.sport));
	ASSERT_EQ(198, f.daddr[0]);
	ASSERT_EQ(0, parse_flow_line("[::1]:1 [::2]:2 47\n", &f, &why));
	ASSERT_EQ(47, f.proto);
	ASSERT_EQ(AF_INET6, f.family);
	ASSERT_EQ(-EINVAL, parse_flow_line("[::1]:1 10.0.0.1:2 udp", &f, &why));
	ASSERT_EQ(-EINVAL, parse_flow_line("1.1.1.1:1 2.2.2.2:2", &f, &why));
	ASSERT_EQ(-EINVAL, parse_flow_line("1.1.1.1:1 2.2.2.2:2 tcp x", &f, &why));
	ASSERT_EQ(-EINVAL, parse_flow_line("1.1.1.1:1 2.2.2.2:2 256", &f, &why));
	ASSERT_EQ(-EINVAL, parse_flow_line("1.1.1.1:1 2.2.2.2:2 icmpx", &f, &why));
}

TEST_HARNESS_MAIN
