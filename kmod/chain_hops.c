// SPDX-License-Identifier: GPL-2.0
/*
 * Which hops a chained service's packet carries (chain_hops.h): compiled
 * into the module and, as is, into ringctl and the unit tests.
 */

#ifdef __KERNEL__
#include <linux/in.h>
#else
#include <netinet/in.h>
#endif

#include "chain_hdr.h"
#include "chain_hops.h"

/* Whether @addr is among the @n hops already written, or is @dst's. */
static bool seen(const u8 *hops, u8 n, unsigned int alen, const u8 *addr,
		 const struct rs_member *dst)
{
	u8 i;

	if (!memcmp(addr, dst->addr, alen))
		return true;
	for (i = 0; i < n; i++)
		if (!memcmp(hops + (unsigned int)i * alen, addr, alen))
			return true;
	return false;
}

u8 rs_chain_hops(const struct rs_ring *const *rings, u8 nrings, u64 pos,
		 const struct rs_member *dst, u8 *hops)
{
	unsigned int alen = rs_chain_alen(dst->family);
	const struct rs_member *m;
	u8 i, n = 0;
	int idx;

	if (!alen)
		return 0;
	for (i = 0; i < nrings && n < RS_CHAIN_MAX_HOPS; i++) {
		idx = rs_ring_lookup(rings[i], pos);
		if (idx < 0)
			continue;
		m = &rings[i]->members[idx];
		if (m->family != dst->family ||
		    seen(hops, n, alen, m->addr, dst))
			continue;
		memcpy(hops + (unsigned int)n * alen, m->addr, alen);
		n++;
	}
	return n;
}

unsigned int rs_chain_overhead(u8 family, u8 k)
{
	if (k < 2 || k > RS_CHAIN_MAX)
		return 0;
	return rs_chain_len(family, k - 1) - RS_GUE_HLEN;
}

/* @v as 8 little-endian bytes at @p, on any host. */
static void put_le64(u8 *p, u64 v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

u64 rs_chain_fingerprint(u64 fp, u8 k, const u64 *kept, u8 nkept)
{
	static const u8 zero[RINGSTEER_KEY_LEN];
	u8 bytes[8 * (2 + RS_CHAIN_MAX_HOPS)];
	struct rs_key key;
	u8 i;

	if (k < 2)
		return fp;
	if (nkept > RS_CHAIN_MAX_HOPS)
		nkept = RS_CHAIN_MAX_HOPS;
	put_le64(bytes, fp);
	put_le64(bytes + 8, k);
	for (i = 0; i < nkept; i++)
		put_le64(bytes + 8 * (2 + i), kept[i]);
	rs_key_init(&key, zero);
	return rs_siphash(bytes, 8 * (2 + nkept), &key);
}
