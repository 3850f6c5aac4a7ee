// SPDX-License-Identifier: GPL-2.0
/*
 * The owner chain's hop header (chain_hdr.h), shared by the module and
 * ringctl. Every field of a packet's header is checked against every other
 * before anything is believed: the backend forwards on what this says.
 */

#ifdef __KERNEL__
#include <linux/in.h>
#else
#include <netinet/in.h>
#endif

#include "chain_hdr.h"

/* GUE's first byte: version (2 bits), C (1), hlen (5). */
#define GUE_VERSION(b)	((b) >> 6)
#define GUE_CONTROL(b)	(((b) >> 5) & 1)
#define GUE_HLEN(b)	((b) & 0x1f)

unsigned int rs_chain_alen(u8 family)
{
	if (family == AF_INET)
		return 4;
	if (family == AF_INET6)
		return 16;
	return 0;
}

unsigned int rs_chain_len(u8 family, u8 count)
{
	unsigned int alen = rs_chain_alen(family);

	if (!alen || 1 + count * alen / 4 > RS_CHAIN_MAX_WORDS)
		return 0;
	return RS_GUE_HLEN + 4 + count * alen;
}

u8 rs_chain_format_max(u8 family)
{
	unsigned int alen = rs_chain_alen(family);

	return alen ? (RS_CHAIN_MAX_WORDS - 1) / (alen / 4) : 0;
}

static u8 type_of(u8 family)
{
	return family == AF_INET6 ? RS_CHAIN_TYPE_V6 : RS_CHAIN_TYPE_V4;
}

static bool inner_proto(u8 proto)
{
	return proto == IPPROTO_IPIP || proto == IPPROTO_IPV6;
}

/* The chain's own fields, once GUE's header is known to hold them. */
static enum rs_chain_result read_chain(const u8 *p, unsigned int hlen,
				       u8 family, u8 max_hops,
				       struct rs_chain *c)
{
	u16 type = (u16)p[4] << 8 | p[5];

	if (type != type_of(family))
		return RS_CHAIN_E_TYPE;
	c->family = family;
	c->proto = p[1];
	c->next = p[6];
	c->count = p[7];
	c->len = RS_GUE_HLEN + 4 * hlen;
	c->hops = p + RS_GUE_HLEN + 4;
	if (c->len != rs_chain_len(family, c->count))
		return RS_CHAIN_E_LEN;
	if (c->count > max_hops)
		return RS_CHAIN_E_COUNT;
	if (c->next > c->count)
		return RS_CHAIN_E_INDEX;
	return RS_CHAIN_OK;
}

enum rs_chain_result rs_chain_decode(const void *gue, unsigned int len,
				     u8 family, u8 max_hops,
				     struct rs_chain *c)
{
	const u8 *p = gue;
	unsigned int hlen;

	if (!rs_chain_alen(family))
		return RS_CHAIN_E_TYPE;
	if (len < RS_GUE_HLEN)
		return RS_CHAIN_E_SHORT;
	/* Not a data message of version 0, or one without private data. */
	hlen = GUE_HLEN(p[0]);
	if (GUE_VERSION(p[0]) || GUE_CONTROL(p[0]) || !hlen)
		return RS_CHAIN_PLAIN;
	if (p[2] || p[3])
		return RS_CHAIN_E_FLAGS;
	if (len < RS_GUE_HLEN + 4 * hlen)
		return RS_CHAIN_E_SHORT;
	if (!inner_proto(p[1]))
		return RS_CHAIN_E_PROTO;
	return read_chain(p, hlen, family, max_hops, c);
}

int rs_chain_encode(void *buf, unsigned int room, u8 family, u8 proto,
		    u8 next, const void *hops, u8 count)
{
	unsigned int len = rs_chain_len(family, count);
	u8 *p = buf;

	if (!len || !inner_proto(proto) || next > count)
		return -EINVAL;
	if (room < len)
		return -ENOSPC;
	p[0] = (len - RS_GUE_HLEN) / 4;
	p[1] = proto;
	p[2] = 0;
	p[3] = 0;
	p[4] = 0;
	p[5] = type_of(family);
	p[6] = next;
	p[7] = count;
	if (count)
		memcpy(p + RS_GUE_HLEN + 4, hops, len - RS_GUE_HLEN - 4);
	return len;
}
