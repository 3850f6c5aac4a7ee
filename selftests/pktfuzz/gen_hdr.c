// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of an input that have a grammar of their own: IPv4 options,
 * IPv6 extension header chains and the packet an ICMP error quotes. Kept
 * apart from gen.c, which decides what an input is: these only decide how
 * odd its headers are, and say whether a correct sender could have sent
 * them (what gen.c needs to know what the load balancer must do).
 */

#include <string.h>

#include "gen.h"

/* IPv4 options: 1 to 3 of them, some well formed, some not (RFC 791). */
size_t gen_ip4_opts(struct rng *r, const struct topo *t, uint8_t *o)
{
	size_t n = 0, k, len;
	int i, count = 1 + below(r, 3);

	for (i = 0; i < count && n < 36; i++) {
		size_t room = 40 - n;

		switch (below(r, 9)) {
		case 0:	/* NOPs, then the end of the list */
			o[n++] = 1;
			o[n++] = 1;
			o[n++] = 0;
			break;
		case 1:	/* record route */
		case 2:	/* loose or strict source route */
			len = 3 + 4 * (1 + below(r, 3));
			if (len > room)
				break;
			o[n] = below(r, 2) ? 7 : below(r, 2) ? 131 : 137;
			o[n + 1] = len;
			o[n + 2] = chance(r, 80) ? 4 : below(r, 256);
			for (k = 3; k + 4 <= len; k += 4)
				memcpy(o + n + k, t->lb[below(r, t->nlb)].a, 4);
			n += len;
			break;
		case 3:	/* timestamp */
			len = 4 + 4 * (1 + below(r, 4));
			if (len > room)
				break;
			o[n] = 68;
			o[n + 1] = len;
			o[n + 2] = 5;
			o[n + 3] = below(r, 4);
			memset(o + n + 4, 0, len - 4);
			n += len;
			break;
		case 4:	/* router alert */
			if (room < 4)
				break;
			memcpy(o + n, "\x94\x04\x00\x00", 4);
			n += 4;
			break;
		case 5:	/* security, CIPSO: parsed by LSMs when enabled */
			len = 6 + below(r, 6);
			if (len > room)
				break;
			o[n] = below(r, 2) ? 130 : 134;
			o[n + 1] = len;
			for (k = 2; k < len; k++)
				o[n + k] = rnd(r);
			n += len;
			break;
		case 6:	/* a length of 0, 1 or past the header */
			if (room < 2)
				break;
			o[n] = 7 + below(r, 200);
			o[n + 1] = below(r, 2) ? below(r, 2) : room + 1 + below(r, 8);
			n += 2;
			break;
		default: /* garbage */
			len = 1 + below(r, room < 8 ? room : 8);
			for (k = 0; k < len; k++)
				o[n + k] = rnd(r);
			n += len;
			break;
		}
	}
	return n;
}

/*
 * TLV options of a hop-by-hop or destination options header (RFC 8200
 * 4.2). The kernel drops more than 7 bytes of padding in a row (RFC 4942
 * 2.1.9.5), ip6_ext()'s own included: that is no benign chain either.
 */
static size_t tlv_opts(struct rng *r, uint8_t *b, bool *benign)
{
	size_t n = 0, len, run = 0, maxrun = 0;
	int i, count = 1 + below(r, 3);

	for (i = 0; i < count; i++) {
		switch (below(r, 6)) {
		case 0:
			b[n++] = 0;	/* Pad1 */
			run++;
			break;
		case 1:			/* PadN */
			len = below(r, 6);
			b[n++] = 1;
			b[n++] = len;
			memset(b + n, 0, len);
			n += len;
			run += 2 + len;
			break;
		case 2:			/* router alert */
			memcpy(b + n, "\x05\x02\x00\x00", 4);
			n += 4;
			run = 0;
			break;
		case 3:			/* jumbo payload where there is none */
			memcpy(b + n, "\xc2\x04\x00\x01\x00\x00", 6);
			n += 6;
			*benign = false;
			break;
		default:		/* unknown: skip, discard, ICMP, ICMP unless multicast */
			len = below(r, 6);
			b[n++] = below(r, 4) << 6 | 0x1e;
			b[n++] = len;
			memset(b + n, 0xaa, len);
			n += len;
			*benign = false;
			break;
		}
		if (run > maxrun)
			maxrun = run;
	}
	/* ip6_ext() pads the header to 8 bytes with Pad1s. */
	run += ((2 + n + 7) & ~7UL) - 2 - n;
	if (run > 7 || maxrun > 7)
		*benign = false;
	return n;
}

/* A routing header; segments left 0 or not (RFC 8200 4.4, RFC 8754). */
static size_t routing(struct rng *r, const struct topo *t, uint8_t *b,
		      bool *benign, bool *routed)
{
	static const uint8_t types[] = { 0, 2, 3, 4 };
	int i, nseg = 1 + below(r, 2);
	size_t n;

	b[0] = types[below(r, sizeof(types))];
	b[1] = chance(r, 50) ? 0 : 1 + below(r, nseg);
	if (b[1])
		*routed = true;
	/* Segments left 0 is skipped whatever the type. */
	if (b[1] && b[0] != 2)
		*benign = false;
	memset(b + 2, 0, 4);
	if (b[0] == 4) {
		b[2] = nseg - 1;	/* last entry */
	}
	n = 6;
	for (i = 0; i < nseg; i++) {
		memcpy(b + n, t->client6.a, 16);
		b[n + 15] = i + 1;
		n += 16;
	}
	return n;
}

/*
 * 1 to 3 extension headers in a random order (HBH first most of the
 * time, as it must be). *@benign stays true if a correct sender could
 * have sent the chain and the hook must read through it; *@routed if a
 * routing header has segments left (the VIP is then a waypoint).
 */
void gen_ip6_exts(struct rng *r, const struct topo *t, struct pkt *p,
		  bool *benign, bool *routed)
{
	uint8_t body[256];
	size_t len;
	int i, count = 1 + below(r, 3);
	bool hbh_first = chance(r, 85);

	for (i = 0; i < count; i++) {
		int kind = i == 0 && hbh_first ? 0 : 1 + below(r, 5);

		switch (kind) {
		case 0:
			len = tlv_opts(r, body, benign);
			ip6_ext(p, IPPROTO_HOPOPTS, body, len);
			if (i)
				*benign = false;
			break;
		case 1:
			len = tlv_opts(r, body, benign);
			ip6_ext(p, IPPROTO_DSTOPTS, body, len);
			break;
		case 2:
			len = routing(r, t, body, benign, routed);
			ip6_ext(p, IPPROTO_ROUTING, body, len);
			break;
		case 3:	/* an atomic fragment (RFC 6946) */
			memset(body, 0, 6);
			body[4] = rnd(r);
			ip6_ext(p, IPPROTO_FRAGMENT, body, 6);
			*benign = false;
			break;
		case 4:	/* a hop-by-hop header that is not first */
			len = tlv_opts(r, body, benign);
			ip6_ext(p, IPPROTO_HOPOPTS, body, len);
			*benign = false;
			break;
		default: /* a header nobody knows: the chain ends there */
			len = 6 + below(r, 10);
			memset(body, 0x55, len);
			ip6_ext(p, 253, body, len);
			*benign = false;
			break;
		}
		/* What a fragment header would follow, as a sender puts it. */
		if (kind == 0 || kind == 2)
			ip6_mark_unfrag(p);
	}
}

/*
 * The packet an ICMP error quotes, in @q: as the backend (or the LB
 * itself) would have sent it from @from to @to, ports @sport > @dport,
 * carrying the input's tag, then perhaps marked a fragment and cut short.
 * Returns how the hook may read it.
 */
enum quote_kind gen_quote(struct rng *r, struct pkt *q, uint8_t family,
			  const struct addr *from, const struct addr *to,
			  uint8_t proto, uint16_t sport, uint16_t dport,
			  uint16_t tag, char *what, size_t wlen)
{
	static const char *const names[] = {
		[Q_WHOLE] = "a packet", [Q_FIRST_FRAG] = "a first fragment",
		[Q_LATER_FRAG] = "a later fragment",
		[Q_ATOMIC] = "an atomic fragment", [Q_NO_PORTS] = "no ports",
	};
	struct tcp_args ta = {
		.sport = sport, .dport = dport, .flags = 0x12,
		.seq = (uint32_t)tag << 16, .ack = (uint32_t)tag << 16 | 1,
		.win = 512,
	};
	enum quote_kind k = Q_WHOLE;
	uint8_t opts[12], fh[6] = {};
	char dst[INET6_ADDRSTRLEN];
	size_t cut = 0, optlen = 0;
	int frag = below(r, 100);

	/* As the sender fragmented it: the first fragment, or a later one. */
	if (frag < 25)
		k = Q_FIRST_FRAG;
	else if (frag < 35)
		k = Q_LATER_FRAG;
	else if (frag < 40 && family == AF_INET6)
		k = Q_ATOMIC;
	if (family == AF_INET) {
		/* Options move the ports: the hook must read past them. */
		if (chance(r, 5))
			optlen = 4 + 4 * below(r, 3);
		memset(opts, 1, optlen);
		ip4_begin(q, from, to, proto, 1 + below(r, 64), tag, chance(r, 50),
			  opts, optlen);
		if (k == Q_FIRST_FRAG)
			q->b[6] |= 0x20;
		if (k == Q_LATER_FRAG)
			q->b[7] = 1 + below(r, 100);
	} else {
		ip6_begin(q, from, to, 1 + below(r, 64), FL_MARK | tag);
		if (k != Q_WHOLE) {
			fh[1] = k == Q_FIRST_FRAG;
			if (k == Q_LATER_FRAG)
				fh[0] = 1 + below(r, 100);
			fh[5] = tag;
			ip6_ext(q, IPPROTO_FRAGMENT, fh, 6);
		}
	}
	if (proto == IPPROTO_TCP)
		tcp_put(q, &ta, NULL, 0);
	else if (proto == IPPROTO_UDP)
		udp_put(q, sport, dport);
	else
		pkt_fill(q, r, 8);
	pkt_fill(q, r, below(r, 3) ? below(r, 16) : below(r, 200));
	pkt_finish(q);
	/* Cut: the IP header alone, half the ports, the ports, 8 bytes, or none. */
	switch (below(r, 8)) {
	case 0: cut = q->l4off; break;
	case 1: cut = q->l4off + 2; break;
	case 2: cut = q->l4off + 4; break;
	case 3: cut = q->l4off + 8; break;
	default: break;
	}
	if (cut && cut < q->len) {
		q->len = cut;
		if (cut < q->l4off + 4 && k != Q_LATER_FRAG)
			k = Q_NO_PORTS;
	}
	snprintf(what, wlen, "quoting %s%s%s (%zu bytes, proto %u to %s)", names[k],
		 optlen ? " with options" : "", cut ? " cut short" : "", q->len, proto,
		 addr_str(to, dst, sizeof(dst)));
	return k;
}
