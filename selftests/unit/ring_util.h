/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the ring unit tests. */
#ifndef _RINGSTEER_RING_UTIL_H
#define _RINGSTEER_RING_UTIL_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>

#include "ring_test.h"

static const u8 test_key[RINGSTEER_KEY_LEN] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

/* splitmix64: reproducible pseudo-random numbers without libc state. */
static inline u64 rnd_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u32 rnd_below(u64 *s, u32 n)
{
	return (u32)(rnd_next(s) % n);
}

/* Backend number i: 10.(i>>16).(i>>8).(i) port 80+i%3, or 2001:db8::i. */
static inline struct rs_member mk_member(u32 i, bool v6, u32 weight)
{
	struct rs_member m;

	memset(&m, 0, sizeof(m));
	m.weight = weight;
	m.port = htons(80 + i % 3);
	if (v6) {
		static const u8 pfx[4] = { 0x20, 0x01, 0x0d, 0xb8 };

		m.family = AF_INET6;
		memcpy(m.addr, pfx, 4);
		m.addr[13] = i >> 16;
		m.addr[14] = i >> 8;
		m.addr[15] = i;
	} else {
		m.family = AF_INET;
		m.addr[0] = 10;
		m.addr[1] = i >> 16;
		m.addr[2] = i >> 8;
		m.addr[3] = i;
	}
	return m;
}

static inline void shuffle_members(struct rs_member *m, u32 n, u64 *s)
{
	u32 i;

	for (i = n; i > 1; i--) {
		u32 j = rnd_below(s, i);
		struct rs_member t = m[i - 1];

		m[i - 1] = m[j];
		m[j] = t;
	}
}

static inline bool same_id(const struct rs_member *a, const struct rs_member *b)
{
	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Byte-identical rings: members, points, owners, index. */
static inline bool rings_equal(const struct rs_ring *a, const struct rs_ring *b)
{
	if (a->nmembers != b->nmembers || a->npoints != b->npoints ||
	    a->vnodes != b->vnodes || a->index_shift != b->index_shift ||
	    a->size != b->size)
		return false;
	if (memcmp(a->members, b->members, a->nmembers * sizeof(a->members[0])))
		return false;
	if (memcmp(a->pos, b->pos, a->npoints * sizeof(u64)) ||
	    memcmp(a->owner, b->owner, a->npoints * sizeof(u16)))
		return false;
	return !memcmp(a->index, b->index,
		       (rs_ring_buckets(a) + 1) * sizeof(u32));
}

/* The owner of @pos as a member pointer (NULL for an empty ring). */
static inline const struct rs_member *owner_of(const struct rs_ring *r, u64 pos)
{
	int i = rs_ring_lookup(r, pos);

	return i < 0 ? NULL : &r->members[i];
}

#endif /* _RINGSTEER_RING_UTIL_H */
