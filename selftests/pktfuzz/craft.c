// SPDX-License-Identifier: GPL-2.0
/*
 * Packets built byte by byte: the generator needs headers the kernel's
 * own sockets never send (bad lengths, odd options, extension header
 * chains, overlapping fragments), so nothing here checks what it writes.
 * pkt_finish() fills in lengths and checksums as a correct sender would;
 * gen.c breaks them afterwards where it wants them broken.
 */

#include <string.h>
#include <arpa/inet.h>

#include "pktfuzz.h"

uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *b = data;
	size_t i;

	/* Callers add even-length pieces, except the last. */
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, v >> 16);
	put16(b + 2, v);
}

void ip4_fix_csum(uint8_t *ip)
{
	ip[10] = ip[11] = 0;
	put16(ip + 10, csum_fold(csum_add(0, ip, (ip[0] & 0xf) * 4)));
}

void pkt_bound(struct pkt *p)
{
	if (p->nbounds < MAX_BOUNDS &&
	    (!p->nbounds || p->bounds[p->nbounds - 1] != p->len))
		p->bounds[p->nbounds++] = p->len;
}

void pkt_put(struct pkt *p, const void *data, size_t len)
{
	if (len > PKT_MAX - p->len)
		len = PKT_MAX - p->len;
	memcpy(p->b + p->len, data, len);
	p->len += len;
}

void pkt_fill(struct pkt *p, struct rng *r, size_t len)
{
	size_t i;

	if (len > PKT_MAX - p->len)
		len = PKT_MAX - p->len;
	for (i = 0; i < len; i++)
		p->b[p->len + i] = rnd(r);
	p->len += len;
}

void ip4_begin(struct pkt *p, const struct addr *src, const struct addr *dst,
	       uint8_t proto, uint8_t ttl, uint16_t id, bool df,
	       const uint8_t *opts, size_t optlen)
{
	size_t hlen;

	if (optlen > 40)
		optlen = 40;
	hlen = 20 + ((optlen + 3) & ~3UL);
	memset(p, 0, offsetof(struct pkt, len));
	memset(p->b, 0, hlen);
	p->family = AF_INET;
	p->b[0] = 0x40 | hlen / 4;
	put16(p->b + 4, id);
	put16(p->b + 6, df ? 0x4000 : 0);
	p->b[8] = ttl;
	p->b[9] = proto;
	memcpy(p->b + 12, src->a, 4);
	memcpy(p->b + 16, dst->a, 4);
	if (optlen)
		memcpy(p->b + 20, opts, optlen);
	p->len = 0;
	p->nbounds = 0;
	pkt_bound(p);
	p->len = 20;
	pkt_bound(p);
	p->len = p->l3len = p->l4off = hlen;
	p->l4proto = proto;
	pkt_bound(p);
}

void ip6_begin(struct pkt *p, const struct addr *src, const struct addr *dst,
	       uint8_t hlim, uint32_t flowlabel)
{
	memset(p, 0, offsetof(struct pkt, len));
	memset(p->b, 0, 40);
	p->family = AF_INET6;
	put32(p->b, 6U << 28 | (flowlabel & 0xfffff));
	p->b[6] = IPPROTO_NONE;
	p->b[7] = hlim;
	memcpy(p->b + 8, src->a, 16);
	memcpy(p->b + 24, dst->a, 16);
	p->nbounds = 0;
	p->len = 0;
	pkt_bound(p);
	p->len = p->l3len = p->l4off = p->unfrag = 40;
	p->nhoff = p->unfrag_nh = 6;
	p->l4proto = IPPROTO_NONE;
	pkt_bound(p);
}

void ip6_ext(struct pkt *p, uint8_t type, const uint8_t *body, size_t len)
{
	size_t total = (2 + len + 7) & ~7UL, start = p->len;

	if (total > PKT_MAX - p->len || total > 2048)
		return;
	p->b[p->nhoff] = type;
	memset(p->b + start, 0, total);
	p->b[start] = IPPROTO_NONE;
	p->b[start + 1] = total / 8 - 1;
	memcpy(p->b + start + 2, body, len);
	p->nhoff = start;
	p->len += total;
	p->l3len = p->l4off = p->len;
	pkt_bound(p);
}

void ip6_mark_unfrag(struct pkt *p)
{
	p->unfrag = p->len;
	p->unfrag_nh = p->nhoff;
}

void l4_begin(struct pkt *p, uint8_t proto)
{
	if (p->family == AF_INET)
		p->b[9] = proto;
	else
		p->b[p->nhoff] = proto;
	p->l3len = p->l4off = p->len;
	p->l4proto = proto;
}

void tcp_put(struct pkt *p, const struct tcp_args *a, const uint8_t *opts,
	     size_t optlen)
{
	uint8_t h[60] = {};
	size_t hlen;

	if (optlen > 40)
		optlen = 40;
	hlen = 20 + ((optlen + 3) & ~3UL);
	l4_begin(p, IPPROTO_TCP);
	put16(h, a->sport);
	put16(h + 2, a->dport);
	put32(h + 4, a->seq);
	put32(h + 8, a->ack);
	h[12] = hlen / 4 << 4;
	h[13] = a->flags;
	put16(h + 14, a->win);
	if (optlen)
		memcpy(h + 20, opts, optlen);
	/* The ports alone are what an ICMP error must quote at least. */
	pkt_put(p, h, 4);
	pkt_bound(p);
	pkt_put(p, h + 4, 4);
	pkt_bound(p);
	pkt_put(p, h + 8, hlen - 8);
	pkt_bound(p);
}

void udp_put(struct pkt *p, uint16_t sport, uint16_t dport)
{
	uint8_t h[8] = {};

	l4_begin(p, IPPROTO_UDP);
	put16(h, sport);
	put16(h + 2, dport);
	pkt_put(p, h, 4);
	pkt_bound(p);
	pkt_put(p, h + 4, 4);
	pkt_bound(p);
}

void icmp_put(struct pkt *p, uint8_t type, uint8_t code, uint32_t rest)
{
	uint8_t h[8] = { type, code };

	l4_begin(p, p->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	put32(h + 4, rest);
	pkt_put(p, h, 4);
	pkt_bound(p);
	pkt_put(p, h + 4, 4);
	pkt_bound(p);
}

/* The L4 checksum's pseudo-header, as RFC 793 and RFC 8200 8.1 say. */
static uint32_t pseudo(const struct pkt *p, size_t l4len)
{
	uint8_t ph[8] = {};
	uint32_t sum;

	if (p->family == AF_INET) {
		sum = csum_add(0, p->b + 12, 8);
		put16(ph, p->l4proto);
		put16(ph + 2, l4len);
		return csum_add(sum, ph, 4);
	}
	sum = csum_add(0, p->b + 8, 32);
	put32(ph, l4len);
	ph[7] = p->l4proto;
	return csum_add(sum, ph, 8);
}

void pkt_finish(struct pkt *p)
{
	size_t l4len = p->len > p->l4off ? p->len - p->l4off : 0;
	uint8_t *l4 = p->b + p->l4off;
	size_t at = 0;
	uint32_t sum;

	if (p->family == AF_INET) {
		put16(p->b + 2, p->len);
		ip4_fix_csum(p->b);
	} else {
		put16(p->b + 4, p->len - 40);
	}
	switch (p->l4proto) {
	case IPPROTO_TCP: at = 16; break;
	case IPPROTO_UDP: at = 6; break;
	case IPPROTO_ICMP: at = 2; break;
	case IPPROTO_ICMPV6: at = 2; break;
	default: return;
	}
	if (l4len < at + 2)
		return;
	if (p->l4proto == IPPROTO_UDP)
		put16(l4 + 4, l4len);
	l4[at] = l4[at + 1] = 0;
	sum = p->l4proto == IPPROTO_ICMP ? 0 : pseudo(p, l4len);
	sum = csum_fold(csum_add(sum, l4, l4len));
	if (!sum && p->l4proto == IPPROTO_UDP)
		sum = 0xffff;
	put16(l4 + at, sum);
}

int pkt_fragment(const struct pkt *p, const struct frag *f, int n,
		 uint32_t id, struct pkt *out)
{
	size_t hdr = p->family == AF_INET ? p->l3len : p->unfrag;
	size_t data = p->len - hdr;
	int i;

	for (i = 0; i < n; i++) {
		struct pkt *o = &out[i];
		size_t off = f[i].off, len = f[i].len;

		if (off > data)
			off = data;
		if (len > data - off)
			len = data - off;
		memset(o, 0, offsetof(struct pkt, len));
		o->family = p->family;
		memcpy(o->b, p->b, hdr);
		o->len = hdr;
		if (p->family == AF_INET) {
			put16(o->b + 6, (off / 8) | (f[i].more ? 0x2000 : 0));
		} else {
			uint8_t fh[8] = { p->b[p->unfrag_nh] };

			o->b[p->unfrag_nh] = IPPROTO_FRAGMENT;
			put16(fh + 2, (off & ~7UL) | (f[i].more ? 1 : 0));
			put32(fh + 4, id);
			memcpy(o->b + o->len, fh, 8);
			o->len += 8;
		}
		memcpy(o->b + o->len, p->b + hdr + off, len);
		o->len += len;
		o->l3len = o->l4off = o->len;
		o->l4proto = IPPROTO_NONE;
		if (p->family == AF_INET) {
			put16(o->b + 2, o->len);
			ip4_fix_csum(o->b);
		} else {
			put16(o->b + 4, o->len - 40);
		}
	}
	return n;
}

/* Where the L4 checksum is, 0 if there is none. */
size_t pkt_csum_at(const struct pkt *p)
{
	switch (p->l4proto) {
	case IPPROTO_TCP: return 16;
	case IPPROTO_UDP: return 6;
	case IPPROTO_ICMP: case IPPROTO_ICMPV6: return 2;
	default: return 0;
	}
}

/* The L4 header's length, for the first fragment to hold (RFC 7112). */
size_t pkt_l4_hlen(const struct pkt *p)
{
	if (p->l4proto == IPPROTO_TCP && p->len >= p->l4off + 13)
		return (p->b[p->l4off + 12] >> 4) * 4;
	return pkt_csum_at(p) ? 8 : 0;
}
