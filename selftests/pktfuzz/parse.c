// SPDX-License-Identifier: GPL-2.0
/*
 * What a frame that left the load balancer is: Ethernet, the outer IP
 * header, and the places where a copy of an input's IP header can be: the
 * packet inside a tunnel (ipip, ip6ip6, GUE), the packet an ICMP error or
 * an IPv6 redirect quotes, or the outer header itself (routed or NATed).
 * Lenient: a quote is cut short, an outer packet may be a fragment, so
 * every read is bounded by what the frame holds. check.c decides which
 * input a copy belongs to.
 */

#include <string.h>
#include <arpa/inet.h>

#include "pktfuzz.h"

static uint16_t get16(const uint8_t *b)
{
	return b[0] << 8 | b[1];
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)get16(b) << 16 | get16(b + 2);
}

static void set_addr(struct addr *a, uint8_t family, const uint8_t *raw)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(a->a, raw, family == AF_INET ? 4 : 16);
}

/* The IP header at @off, bounded by @end; false if there is none. */
static bool parse_ip(const uint8_t *b, size_t off, size_t end, struct hdr *h)
{
	size_t l;
	uint8_t nh;

	memset(h, 0, sizeof(*h));
	if (off + 20 > end)
		return false;
	if ((b[off] >> 4) == 4) {
		l = (b[off] & 0xf) * 4;
		if (l < 20 || off + l > end)
			return false;
		h->family = AF_INET;
		set_addr(&h->src, AF_INET, b + off + 12);
		set_addr(&h->dst, AF_INET, b + off + 16);
		h->proto = b[off + 9];
		h->tagfield = get16(b + off + 4);
		h->frag = get16(b + off + 6) & 0x3fff;
		h->later_frag = get16(b + off + 6) & 0x1fff;
		h->l4 = off + l;
		h->end = end;
		if (get16(b + off + 2) >= l && off + get16(b + off + 2) < end)
			h->end = off + get16(b + off + 2);
	} else if ((b[off] >> 4) == 6 && off + 40 <= end) {
		h->family = AF_INET6;
		set_addr(&h->src, AF_INET6, b + off + 8);
		set_addr(&h->dst, AF_INET6, b + off + 24);
		h->tagfield = get32(b + off) & 0xfffff;
		h->end = end;
		if (off + 40 + get16(b + off + 4) < end)
			h->end = off + 40 + get16(b + off + 4);
		nh = b[off + 6];
		l = off + 40;
		/* Extension headers, as ipv6_skip_exthdr() walks them. */
		while ((nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING ||
			nh == IPPROTO_DSTOPTS || nh == IPPROTO_FRAGMENT ||
			nh == IPPROTO_AH) && l + 8 <= h->end) {
			uint8_t next = b[l];

			if (nh == IPPROTO_FRAGMENT) {
				h->frag = true;
				h->later_frag = get16(b + l + 2) & 0xfff8;
				l += 8;
			} else if (nh == IPPROTO_AH) {
				l += (b[l + 1] + 2) * 4;
			} else {
				l += (b[l + 1] + 1) * 8;
			}
			nh = next;
			if (h->later_frag)
				break;
		}
		h->proto = nh;
		h->l4 = l;
	} else {
		return false;
	}
	if (!h->later_frag && h->l4 + 4 <= h->end &&
	    (h->proto == IPPROTO_TCP || h->proto == IPPROTO_UDP)) {
		h->sport = get16(b + h->l4);
		h->dport = get16(b + h->l4 + 2);
		h->ports = true;
	}
	return true;
}

static bool icmp_error(uint8_t family, uint8_t type)
{
	if (family == AF_INET)
		return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
	return type >= 1 && type <= 4;
}

/* ND (133 to 136) and MLD: neighbour machinery, not an answer to an input. */
static bool nd_or_mld(uint8_t type)
{
	return (type >= 130 && type <= 136) || type == 143;
}

/* A GUE port any service of the topology uses. */
static bool gue_port(const struct topo *t, uint16_t port)
{
	int i;

	for (i = 0; i < t->nsvcs; i++)
		if (t->svcs[i].encap == ENCAP_GUE && t->svcs[i].encap_port == port)
			return true;
	return false;
}

/* An outer packet to a backend: the tunnel's inner packet, if it is one. */
static void tunnel(const struct topo *t, struct out *o)
{
	const struct hdr *h = &o->o;
	size_t in = h->l4;

	if (h->later_frag)
		return;
	if (h->proto == IPPROTO_UDP && h->ports && gue_port(t, h->dport)) {
		size_t g = h->l4 + 8;

		if (g + GUE_HLEN > o->len)
			return;
		in = g + GUE_HLEN + (o->b[g] & 0x1f) * 4;
		o->encap_kind = ENCAP_GUE;
		o->encap_dport = h->dport;
	} else if (h->proto == IPPROTO_IPIP || h->proto == IPPROTO_IPV6) {
		o->encap_kind = ENCAP_IPIP;
	} else {
		return;
	}
	o->encap = parse_ip(o->b, in, o->len, &o->img);
}

/* The quoted packet of an ICMP error, or of an IPv6 redirect's option. */
static bool quote(struct out *o, struct hdr *q)
{
	size_t at = o->o.l4 + 8, end = o->o.end;

	if (o->o.family == AF_INET6 && o->icmp_type == 137) {
		/* Target and destination, then options: 4 is the redirected header. */
		at += 32;
		while (at + 8 <= end && o->b[at + 1]) {
			if (o->b[at] == 4)
				return parse_ip(o->b, at + 8, end, q);
			at += o->b[at + 1] * 8;
		}
		return false;
	}
	return o->icmp_err && parse_ip(o->b, at, end, q);
}

void parse_frame(const struct topo *t, int link, const uint8_t *b, size_t len,
		 struct out *o)
{
	uint16_t type;

	memset(o, 0, sizeof(*o));
	o->link = link;
	o->b = b;
	o->len = len;
	if (len < 14) {
		o->neigh = true;
		return;
	}
	o->l2_group = b[0] & 1;
	type = get16(b + 12);
	if ((type != 0x0800 && type != 0x86dd) || !parse_ip(b, 14, len, &o->o)) {
		/* ARP, or nothing IP: not an answer to anything we send. */
		o->neigh = true;
		return;
	}
	if (o->o.proto == IPPROTO_IGMP) {
		o->neigh = true;
		return;
	}
	if (!o->o.later_frag && o->o.l4 + 8 <= o->o.end &&
	    (o->o.proto == IPPROTO_ICMP || o->o.proto == IPPROTO_ICMPV6)) {
		o->icmp = true;
		o->icmp_type = b[o->o.l4];
		o->icmp_code = b[o->o.l4 + 1];
		o->icmp_err = icmp_error(o->o.family, o->icmp_type);
		if (o->o.family == AF_INET6 && nd_or_mld(o->icmp_type))
			o->neigh = true;
	}
	if (t->links[link].backend)
		tunnel(t, o);
}

/*
 * Candidates for the copy of an input in @o, in the order check.c tries
 * them; each fills @h and the tag it carries, false if there is none.
 */
bool parse_image(struct out *o, enum where w, struct hdr *h, uint32_t *tag)
{
	const uint8_t *l4;

	switch (w) {
	case W_INNER:
		if (!o->encap)
			return false;
		*h = o->img;
		break;
	case W_OUTER:
		*h = o->o;
		break;
	case W_QUOTE:
		if (!o->icmp || !quote(o, h))
			return false;
		break;
	case W_RST:
		l4 = o->b + o->o.l4;
		if (o->o.proto != IPPROTO_TCP || o->o.later_frag ||
		    o->o.l4 + 20 > o->o.end || !(l4[13] & 0x04))
			return false;
		*h = o->o;
		/* With ACK it answers a segment without one: the tag is in ack. */
		*tag = (l4[13] & 0x10 ? get32(l4 + 8) : get32(l4 + 4)) >> 16;
		return true;
	case W_ECHO:
		if (!o->icmp || !(o->o.family == AF_INET ?
				  o->icmp_type == 0 || o->icmp_type == 14 :
				  o->icmp_type == 129))
			return false;
		*h = o->o;
		*tag = get16(o->b + o->o.l4 + 4);
		return true;
	default:
		return false;
	}
	if (h->family == AF_INET6) {
		if (!(h->tagfield & FL_MARK))
			return false;
		*tag = h->tagfield & 0xffff;
	} else {
		*tag = h->tagfield;
	}
	return true;
}

bool parse_keepalive(const struct out *o, uint16_t *id)
{
	const struct hdr *h = &o->img;
	size_t at;

	if (!o->encap || !h->ports || h->later_frag)
		return false;
	if (h->proto == IPPROTO_TCP && h->l4 + 20 <= h->end)
		at = h->l4 + (o->b[h->l4 + 12] >> 4) * 4;
	else if (h->proto == IPPROTO_UDP)
		at = h->l4 + 8;
	else
		return false;
	if (at + HELD_MAGIC_LEN + 6 > h->end ||
	    memcmp(o->b + at, HELD_MAGIC, HELD_MAGIC_LEN))
		return false;
	*id = get16(o->b + at + HELD_MAGIC_LEN);
	return true;
}

bool parse_flow(const uint8_t *b, const struct hdr *h, struct addr *src,
		uint16_t *sport, struct addr *vip, uint16_t *dport,
		uint8_t *proto)
{
	struct hdr q;
	uint8_t type;

	if (h->ports) {
		*src = h->src;
		*sport = h->sport;
		*vip = h->dst;
		*dport = h->dport;
		*proto = h->proto;
		return true;
	}
	if (h->later_frag || h->l4 + 8 > h->end ||
	    (h->proto != IPPROTO_ICMP && h->proto != IPPROTO_ICMPV6))
		return false;
	type = b[h->l4];
	if (!icmp_error(h->family, type) || !parse_ip(b, h->l4 + 8, h->end, &q) ||
	    !q.ports)
		return false;
	/* The quoted packet went from the VIP to the client: turned round. */
	*src = q.dst;
	*sport = q.dport;
	*vip = q.src;
	*dport = q.sport;
	*proto = q.proto;
	return true;
}
