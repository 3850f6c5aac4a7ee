// SPDX-License-Identifier: GPL-2.0
/*
 * rs_ring_selftest(): the module refuses to load, and the host tests fail,
 * if this build's SipHash, key loading or byte layouts disagree with the
 * normative definition in uapi/ringsteer.h.
 */

#include "ring.h"
#include "ring_selftest.h"

/*
 * Known answers, checked where the code runs: the kernel's siphash() and
 * key loading, and the canonical layouts, against the SipHash reference
 * vectors (github.com/veorq/SipHash, as in the kernel's lib/test_siphash.c)
 * and against positions and owners computed by an independent
 * implementation of "Ring placement" (a few lines of Python, see
 * selftests/unit). The host tests check this table against libsodium.
 */
const u64 rs_siphash_vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL, 0xbed65cf21aa2ee98ULL,
	0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL,
	0x2f2e6163076bcfadULL, 0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL, 0x7127512f72f27cceULL,
	0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL,
	0x9abfd8766a33735cULL, 0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL, 0xf935451de4f21df2ULL,
	0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL,
	0xa192d576b245165aULL, 0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL, 0xb78dbfaf3a8d83bdULL,
	0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL,
	0x958a324ceb064572ULL
};

/* tcp 192.0.2.1:40000+i -> 198.51.100.1:80 on the ring below. */
static const u8 golden_owner[8] = { 1, 2, 2, 1, 2, 2, 2, 2 };

int rs_ring_selftest(void)
{
	struct rs_member m[3] = {
		{ .family = AF_INET6, .weight = 3,
		  .addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 5 } },
		{ .family = AF_INET, .weight = 2, .addr = { 10, 0, 0, 2 } },
		{ .family = AF_INET, .weight = 1, .addr = { 10, 0, 0, 1 } },
	};
	struct rs_flow f = {
		.family = AF_INET, .proto = 6,
		.saddr = { 192, 0, 2, 1 }, .daddr = { 198, 51, 100, 1 },
	};
	u8 k[RINGSTEER_KEY_LEN], msg[64];
	struct rs_member v = m[2];
	struct rs_ring *r;
	struct rs_key key;
	int i, err = 0;

	for (i = 0; i < 64; i++) {
		msg[i] = i;
		if (i < RINGSTEER_KEY_LEN)
			k[i] = i;
	}
	rs_key_init(&key, k);
	for (i = 0; i < 64; i++)
		if (rs_siphash(msg, i, &key) != rs_siphash_vectors[i])
			return -EINVAL;

	v.port = cpu_to_be16(81);
	f.sport = cpu_to_be16(40000);
	f.dport = cpu_to_be16(80);
	if (rs_vnode_position(&key, &v, 0) != 0x99e2c1ba38eadae7ULL ||
	    rs_vnode_position(&key, &v, 1) != 0xa99acee42a6a0dc8ULL ||
	    rs_flow_position(&key, &f, RINGSTEER_HASH_FLOW) !=
	    0x6a730b11988f441cULL ||
	    rs_flow_position(&key, &f, RINGSTEER_HASH_SOURCE) !=
	    0x342a851de7dbb2b1ULL)
		return -EINVAL;

	m[0].port = cpu_to_be16(443);
	m[1].port = cpu_to_be16(80);
	m[2].port = cpu_to_be16(80);
	r = rs_ring_build(k, m, 3, 16);
	if (IS_ERR(r))
		return PTR_ERR(r);
	for (i = 0; i < 8 && !err; i++) {
		f.sport = cpu_to_be16(40000 + i);
		if (rs_ring_lookup(r, rs_flow_position(&key, &f,
						       RINGSTEER_HASH_FLOW)) !=
		    golden_owner[i])
			err = -EINVAL;
	}
	rs_ring_free(r);
	return err;
}
