/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The owner chain's hop header in GUE private data (doc/fleet.md, "Owner
 * chain (second chance)"), shared by the module's backend mode
 * (chain_rx.c) and by ringctl and the unit tests: one reading of the bytes
 * everywhere. It reads and writes plain bytes, never an skb, and trusts
 * nothing it reads.
 *
 *	GUE:	| 0 |C|  hlen  | proto/ctype |        flags (0)        |
 *	chain:	|      type (0 or 1)        | next hop idx | hop count |
 *		| hop 0: 4 bytes (type 0) or 16 bytes (type 1)          |
 *		| ...                                                   |
 *
 * Type 0 is glb-director's (32-bit IPv4 hops, in an IPv4 outer packet);
 * type 1 is the same with 128-bit IPv6 hops, in an IPv6 outer packet.
 * hlen counts the 32-bit words after GUE's own 4 bytes: 1 + count for
 * type 0, 1 + 4 * count for type 1.
 */
#ifndef _RINGSTEER_CHAIN_HDR_H
#define _RINGSTEER_CHAIN_HDR_H

#include "ring_shim.h"

#define RS_GUE_HLEN		4
#define RS_CHAIN_TYPE_V4	0
#define RS_CHAIN_TYPE_V6	1
/* Offset of the next hop index from the start of the GUE header. */
#define RS_CHAIN_NEXT_OFF	(RS_GUE_HLEN + 2)
/* GUE's hlen is 5 bits: 31 words, the chain's first word included. */
#define RS_CHAIN_MAX_WORDS	31
#define RS_CHAIN_MAX_HDR	(RS_GUE_HLEN + 4 * RS_CHAIN_MAX_WORDS)

/* A chain as read from a packet; hops points into the bytes read. */
struct rs_chain {
	u8 family;		/* the hops': AF_INET (type 0), AF_INET6 (1) */
	u8 proto;		/* the inner packet's: IPPROTO_IPIP, _IPV6 */
	u8 next;		/* index of the next hop to try, <= count */
	u8 count;		/* hops */
	u16 len;		/* GUE header and private data: inner offset */
	const u8 *hops;		/* count addresses of the family's length */
};

/*
 * What rs_chain_decode() found. PLAIN is no chain at all (a GUE control
 * message, version 1 or no private data): not the chain's to judge. The
 * errors are what a packet must never be forwarded on.
 */
enum rs_chain_result {
	RS_CHAIN_OK,
	RS_CHAIN_PLAIN,
	RS_CHAIN_E_SHORT,	/* shorter than GUE's header or its hlen */
	RS_CHAIN_E_FLAGS,	/* GUE optional fields before the chain */
	RS_CHAIN_E_PROTO,	/* inner neither IPv4 nor IPv6 */
	RS_CHAIN_E_TYPE,	/* unknown type, or not the outer family's */
	RS_CHAIN_E_LEN,		/* hlen is not the hop count's */
	RS_CHAIN_E_COUNT,	/* more hops than max_hops */
	RS_CHAIN_E_INDEX,	/* next hop index past the end */
	RS_CHAIN_NRESULTS
};

/* The address length of @family's hops, 0 for another family. */
unsigned int rs_chain_alen(u8 family);
/* GUE header and chain of @count hops of @family, 0 if it cannot be. */
unsigned int rs_chain_len(u8 family, u8 count);
/* The most hops GUE's hlen can carry for @family. */
u8 rs_chain_format_max(u8 family);

/*
 * Read the GUE header at @gue (@len bytes available) of an outer packet
 * of @family. RS_CHAIN_OK fills @c.
 */
enum rs_chain_result rs_chain_decode(const void *gue, unsigned int len,
				     u8 family, u8 max_hops,
				     struct rs_chain *c);

/*
 * Write a GUE header with @count hops of @family (their addresses at
 * @hops) and next hop index @next into @buf: its length, -EINVAL for a
 * family, proto, count or index the format cannot carry, -ENOSPC when
 * @room is too small.
 */
int rs_chain_encode(void *buf, unsigned int room, u8 family, u8 proto,
		    u8 next, const void *hops, u8 count);

/* Hop @i of @c (i < c->count). */
static inline const u8 *rs_chain_hop(const struct rs_chain *c, u8 i)
{
	return c->hops + (unsigned int)i * rs_chain_alen(c->family);
}

#endif /* _RINGSTEER_CHAIN_HDR_H */
