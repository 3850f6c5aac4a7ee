// SPDX-License-Identifier: GPL-2.0
/*
 * The owner chain's hop header (kmod/chain_hdr.c): the bytes of glb-
 * director's published example (type 0, IPv4 hops) and of the IPv6 form,
 * both ways; every rejection the backend mode drops a packet for, each
 * from a header that is valid but for one field; and the format's limits.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <netinet/in.h>

#include "kselftest_harness.h"
#include "chain_hdr.h"

#define MAXH 7

static const u8 v4_hops[2][4] = { { 10, 0, 0, 2 }, { 10, 0, 0, 3 } };
/* GUE hlen 3, proto 4, flags 0; type 0, next 0, count 2; two hops. */
static const u8 v4_wire[] = {
	0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	10, 0, 0, 2, 10, 0, 0, 3,
};

static const u8 v6_hops[1][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 },
};
/* GUE hlen 5, proto 41; type 1, next 1, count 1; one 16-byte hop. */
static const u8 v6_wire[] = {
	0x05, 0x29, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
};

TEST(encode_v4_is_glb_format)
{
	u8 buf[RS_CHAIN_MAX_HDR];

	ASSERT_EQ((int)sizeof(v4_wire),
		  rs_chain_encode(buf, sizeof(buf), AF_INET, IPPROTO_IPIP, 0,
				  v4_hops, 2));
	EXPECT_EQ(0, memcmp(buf, v4_wire, sizeof(v4_wire)));
}

TEST(decode_v4)
{
	struct rs_chain c;

	ASSERT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(v4_wire, sizeof(v4_wire),
					       AF_INET, MAXH, &c));
	EXPECT_EQ(AF_INET, c.family);
	EXPECT_EQ(IPPROTO_IPIP, c.proto);
	EXPECT_EQ(0, c.next);
	EXPECT_EQ(2, c.count);
	EXPECT_EQ((int)sizeof(v4_wire), c.len);
	EXPECT_EQ(0, memcmp(rs_chain_hop(&c, 1), v4_hops[1], 4));
}

/* The inner packet follows the header: its bytes are not the chain's. */
TEST(decode_with_inner)
{
	u8 buf[sizeof(v4_wire) + 20];
	struct rs_chain c;

	memset(buf, 0x45, sizeof(buf));
	memcpy(buf, v4_wire, sizeof(v4_wire));
	ASSERT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(buf, sizeof(buf), AF_INET, 2, &c));
	EXPECT_EQ((int)sizeof(v4_wire), c.len);
}

TEST(v6_both_ways)
{
	u8 buf[RS_CHAIN_MAX_HDR];
	struct rs_chain c;

	ASSERT_EQ((int)sizeof(v6_wire),
		  rs_chain_encode(buf, sizeof(buf), AF_INET6, IPPROTO_IPV6, 1,
				  v6_hops, 1));
	EXPECT_EQ(0, memcmp(buf, v6_wire, sizeof(v6_wire)));
	ASSERT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(v6_wire, sizeof(v6_wire),
					       AF_INET6, MAXH, &c));
	EXPECT_EQ(AF_INET6, c.family);
	EXPECT_EQ(IPPROTO_IPV6, c.proto);
	EXPECT_EQ(1, c.next);
	EXPECT_EQ(1, c.count);
	EXPECT_EQ(0, memcmp(rs_chain_hop(&c, 0), v6_hops[0], 16));
}

/* No hop at all is a chain too: its next index is already the end. */
TEST(zero_hops)
{
	u8 buf[RS_CHAIN_MAX_HDR];
	struct rs_chain c;

	ASSERT_EQ(8, rs_chain_encode(buf, sizeof(buf), AF_INET, IPPROTO_IPV6,
				     0, NULL, 0));
	ASSERT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(buf, 8, AF_INET, MAXH, &c));
	EXPECT_EQ(0, c.count);
	EXPECT_EQ(c.count, c.next);
}

/* Not a chain: not for the chain to judge. */
TEST(plain_gue)
{
	static const u8 nohdr[] = { 0x00, 0x04, 0x00, 0x00 };
	static const u8 control[] = { 0x23, 0x04, 0, 0, 0, 0, 0, 2 };
	static const u8 version1[] = { 0x45, 0x00, 0x00, 0x54 };
	/* hlen 0 whatever the flags: fou judges those. */
	static const u8 flags_nohdr[] = { 0x00, 0x04, 0x80, 0x00 };
	struct rs_chain c;

	EXPECT_EQ(RS_CHAIN_PLAIN, (int)rs_chain_decode(nohdr, 4, AF_INET, MAXH, &c));
	EXPECT_EQ(RS_CHAIN_PLAIN, (int)rs_chain_decode(control, 8, AF_INET, MAXH, &c));
	EXPECT_EQ(RS_CHAIN_PLAIN, (int)rs_chain_decode(version1, 4, AF_INET, MAXH, &c));
	EXPECT_EQ(RS_CHAIN_PLAIN, (int)rs_chain_decode(flags_nohdr, 4, AF_INET, MAXH, &c));
}

/* v4_wire with one byte changed, decoded as IPv4 with MAXH. */
static int mutated(unsigned int off, u8 val, unsigned int len)
{
	u8 buf[sizeof(v4_wire)];
	struct rs_chain c;

	memcpy(buf, v4_wire, sizeof(buf));
	buf[off] = val;
	return (int)rs_chain_decode(buf, len, AF_INET, MAXH, &c);
}

TEST(truncated)
{
	unsigned int len;

	for (len = 0; len < sizeof(v4_wire); len++)
		EXPECT_EQ(RS_CHAIN_E_SHORT, mutated(0, v4_wire[0], len))
			TH_LOG("%u bytes", len);
	/* hlen 31 says 128 bytes: there are 16. */
	EXPECT_EQ(RS_CHAIN_E_SHORT, mutated(0, 31, sizeof(v4_wire)));
}

TEST(gue_flags)
{
	EXPECT_EQ(RS_CHAIN_E_FLAGS, mutated(2, 0x80, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_FLAGS, mutated(3, 0x01, sizeof(v4_wire)));
}

TEST(inner_proto)
{
	EXPECT_EQ(RS_CHAIN_E_PROTO, mutated(1, IPPROTO_TCP, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_PROTO, mutated(1, 0, sizeof(v4_wire)));
}

/* An unknown type, and each known one in the other family's packet. */
TEST(type)
{
	struct rs_chain c;

	EXPECT_EQ(RS_CHAIN_E_TYPE, mutated(5, 2, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_TYPE, mutated(4, 1, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_TYPE, mutated(5, RS_CHAIN_TYPE_V6, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_TYPE, (int)rs_chain_decode(v4_wire, sizeof(v4_wire),
						   AF_INET6, MAXH, &c));
	EXPECT_EQ(RS_CHAIN_E_TYPE, (int)rs_chain_decode(v6_wire, sizeof(v6_wire),
						   AF_INET, MAXH, &c));
	EXPECT_EQ(RS_CHAIN_E_TYPE, (int)rs_chain_decode(v4_wire, sizeof(v4_wire),
						   0, MAXH, &c));
}

/* hlen and hop count must agree, both ways. */
TEST(bad_length)
{
	u8 buf[sizeof(v4_wire) + 4] = { 0 };
	struct rs_chain c;

	EXPECT_EQ(RS_CHAIN_E_LEN, mutated(7, 3, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_LEN, mutated(7, 1, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_LEN, mutated(7, 255, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_LEN, mutated(0, 2, sizeof(v4_wire)));
	memcpy(buf, v4_wire, sizeof(v4_wire));
	buf[0] = 4;
	EXPECT_EQ(RS_CHAIN_E_LEN, (int)rs_chain_decode(buf, sizeof(buf), AF_INET,
						  MAXH, &c));
	/* An IPv6 hop is four words: hlen 2 is not one hop of type 1. */
	memcpy(buf, v6_wire, 12);
	buf[0] = 2;
	EXPECT_EQ(RS_CHAIN_E_LEN, (int)rs_chain_decode(buf, 12, AF_INET6, MAXH, &c));
}

TEST(count_above_max)
{
	struct rs_chain c;

	EXPECT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(v4_wire, sizeof(v4_wire),
					       AF_INET, 2, &c));
	EXPECT_EQ(RS_CHAIN_E_COUNT, (int)rs_chain_decode(v4_wire, sizeof(v4_wire),
						    AF_INET, 1, &c));
	EXPECT_EQ(RS_CHAIN_E_COUNT, (int)rs_chain_decode(v6_wire, sizeof(v6_wire),
						    AF_INET6, 0, &c));
}

/* next == count is the end (no hop left), past it a lie. */
TEST(index_past_the_end)
{
	EXPECT_EQ(RS_CHAIN_OK, mutated(6, 2, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_INDEX, mutated(6, 3, sizeof(v4_wire)));
	EXPECT_EQ(RS_CHAIN_E_INDEX, mutated(6, 255, sizeof(v4_wire)));
}

/* Every single-byte change of the header's fields is judged, never read past. */
TEST(every_byte_value)
{
	unsigned int off, v, ok = 0;

	for (off = 0; off < 8; off++) {
		for (v = 0; v < 256; v++) {
			int r = mutated(off, v, sizeof(v4_wire));

			ASSERT_LT((int)r, RS_CHAIN_NRESULTS);
			ok += r == RS_CHAIN_OK;
		}
	}
	/* Each byte unchanged (8), next 1 and 2, proto 41. */
	EXPECT_EQ(8U + 2 + 1, ok);
}

TEST(format_limits)
{
	u8 hops[31 * 16] = { 0 }, buf[RS_CHAIN_MAX_HDR + 16];
	struct rs_chain c;
	int n;

	EXPECT_EQ(30, rs_chain_format_max(AF_INET));
	EXPECT_EQ(7, rs_chain_format_max(AF_INET6));
	EXPECT_EQ(0, rs_chain_format_max(0));
	EXPECT_EQ(RS_CHAIN_MAX_HDR, (int)rs_chain_len(AF_INET, 30));
	EXPECT_EQ(0, (int)rs_chain_len(AF_INET, 31));
	EXPECT_EQ(RS_GUE_HLEN + 4 + 7 * 16, (int)rs_chain_len(AF_INET6, 7));
	EXPECT_EQ(0, (int)rs_chain_len(AF_INET6, 8));
	n = rs_chain_encode(buf, sizeof(buf), AF_INET, IPPROTO_IPIP, 30, hops, 30);
	ASSERT_EQ(RS_CHAIN_MAX_HDR, n);
	EXPECT_EQ(RS_CHAIN_OK, (int)rs_chain_decode(buf, n, AF_INET, 30, &c));
	EXPECT_EQ(30, c.next);
}

TEST(encode_rejects)
{
	u8 buf[RS_CHAIN_MAX_HDR];

	EXPECT_EQ(-EINVAL, rs_chain_encode(buf, sizeof(buf), AF_INET, IPPROTO_TCP,
					   0, v4_hops, 2));
	EXPECT_EQ(-EINVAL, rs_chain_encode(buf, sizeof(buf), AF_UNIX, IPPROTO_IPIP,
					   0, v4_hops, 2));
	EXPECT_EQ(-EINVAL, rs_chain_encode(buf, sizeof(buf), AF_INET, IPPROTO_IPIP,
					   3, v4_hops, 2));
	EXPECT_EQ(-EINVAL, rs_chain_encode(buf, sizeof(buf), AF_INET6, IPPROTO_IPIP,
					   0, v4_hops, 8));
	EXPECT_EQ(-ENOSPC, rs_chain_encode(buf, sizeof(v4_wire) - 1, AF_INET,
					   IPPROTO_IPIP, 0, v4_hops, 2));
}

TEST_HARNESS_MAIN
