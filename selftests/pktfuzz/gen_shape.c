// SPDX-License-Identifier: GPL-2.0
/*
 * An input's packet, once gen.c has chosen what it is: its IP header
 * (with options or extension headers), then TCP with any flags, UDP, GUE
 * around another packet, an ICMP error around a crafted quote, other ICMP,
 * or another protocol, then its payload. Apart from gen.c so that what an
 * input is and how its bytes are laid out read separately.
 */

#include <string.h>

#include "gen.h"

void tcp(struct gx *x, struct pkt *p)
{
	static const uint8_t flags[] = { 0x02, 0x02, 0x02, 0x10, 0x10, 0x18, 0x11, 0x04, 0x12, 0x14 };
	struct tcp_args a = {
		.sport = x->sport, .dport = x->dport,
		.seq = (uint32_t)x->in->tag << 16 | below(&x->r, 0x8000),
		.ack = (uint32_t)x->in->tag << 16 | below(&x->r, 0x8000),
		.win = below(&x->r, 65536),
	};
	uint8_t opts[40];
	size_t optlen = 0;

	a.flags = chance(&x->r, 80) ? flags[below(&x->r, sizeof(flags))] : rnd(&x->r);
	if (chance(&x->r, 15)) {
		/* MSS, SACK permitted, window scale, timestamps, or garbage */
		static const uint8_t known[] = {
			2, 4, 5, 180, 4, 2, 3, 3, 7, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 1,
		};

		optlen = chance(&x->r, 70) ? sizeof(known) : 1 + below(&x->r, 40);
		if (optlen == sizeof(known))
			memcpy(opts, known, optlen);
		else
			for (size_t i = 0; i < optlen; i++)
				opts[i] = rnd(&x->r);
	}
	tcp_put(p, &a, opts, optlen);
	x->tcp_flags = a.flags;
	say(x, "tcp %02x ", a.flags);
}

/* UDP whose payload is GUE (draft-ietf-intarea-gue) around a packet. */
static void gue(struct gx *x, struct pkt *p)
{
	struct pkt *q = &x->g->q;
	uint8_t h[4] = {};

	udp_put(p, x->sport, x->dport);
	if (chance(&x->r, 50)) {
		ip4_begin(q, &x->t->client4, &x->t->client4, IPPROTO_UDP, 64,
			  x->in->tag, false, NULL, 0);
		h[1] = IPPROTO_IPIP;
	} else {
		ip6_begin(q, &x->t->client6, &x->t->client6, 64, FL_MARK | x->in->tag);
		h[1] = IPPROTO_IPV6;
	}
	udp_put(q, cport(x), 80);
	pkt_fill(q, &x->r, below(&x->r, 32));
	pkt_finish(q);
	if (chance(&x->r, 10))
		h[0] = rnd(&x->r);	/* another version, control, extra length */
	pkt_put(p, h, sizeof(h));
	pkt_bound(p);
	pkt_put(p, q->b, q->len);
	say(x, "gue ");
}

/*
 * Whether the LB's own stack learns a path MTU from the "too big" being
 * made, should it reach the stack: icmp_unreach() hands it to the quoted
 * protocol's error handler, and udp_err() calls ipv4_update_pmtu() for
 * any quoted UDP packet, socket or not, as icmp_err() does for a quoted
 * echo reply (one the kernel itself sends); icmpv6_err() calls
 * ip6_update_pmtu() for any quoted ICMPv6 packet. Each needs 8 bytes of
 * the quoted transport header (icmp_socket_deliver(), icmpv6_notify()).
 */
static bool kernel_learns_pmtu(const struct gx *x, uint8_t type, uint8_t code,
			       uint8_t qproto)
{
	const struct pkt *q = &x->g->q;

	if (q->len < q->l4off + 8)
		return false;
	/* IPv4 reads a later fragment's first bytes as the ICMP header. */
	if (x->fam == AF_INET)
		return type == 3 && code == 4 &&
		       (qproto == IPPROTO_UDP ||
			(qproto == IPPROTO_ICMP && q->b[q->l4off] == 0));
	/* ipv6_skip_exthdr() stops at a later fragment's header. */
	return type == 2 && qproto == IPPROTO_ICMPV6 && x->qk != Q_LATER_FRAG;
}

static void icmp_error(struct gx *x, struct pkt *p)
{
	static const uint8_t err4[][2] = {
		{ 3, 4 }, { 3, 4 }, { 3, 1 }, { 3, 3 }, { 3, 13 }, { 11, 0 }, { 11, 1 },
		{ 12, 0 }, { 4, 0 }, { 5, 1 },
	};
	static const uint8_t err6[][2] = {
		{ 2, 0 }, { 2, 0 }, { 1, 0 }, { 1, 4 }, { 3, 0 }, { 3, 1 }, { 4, 0 }, { 4, 1 },
	};
	struct input *in = x->in;
	struct addr from = in->dst;
	uint8_t type, code, qproto = x->proto;
	uint16_t qsport = x->dport;
	uint32_t rest = 0;
	char qwhat[128];
	int k;

	if (x->fam == AF_INET) {
		k = below(&x->r, ARRAY_SIZE(err4));
		type = err4[k][0];
		code = err4[k][1];
		/* icmp_is_err() counts a redirect: it quotes a packet too. */
		x->quote_ok = true;
	} else {
		k = below(&x->r, ARRAY_SIZE(err6));
		type = err6[k][0];
		code = err6[k][1];
		x->quote_ok = true;
	}
	if (type == 3 && code == 4)
		rest = 300 + below(&x->r, 1300);
	else if (type == 2)
		rest = 1200 + below(&x->r, 400);
	else if (chance(&x->r, 20))
		rest = rnd(&x->r);
	/* The quoted packet: from the VIP to a client, mostly. */
	if (chance(&x->r, 12)) {
		client(x, &from);
		x->quote_ok = false;
	}
	if (chance(&x->r, 8)) {
		qproto = chance(&x->r, 50) ? IPPROTO_ICMP : 132;
		if (x->fam == AF_INET6 && qproto == IPPROTO_ICMP)
			qproto = IPPROTO_ICMPV6;
	}
	if (chance(&x->r, 10) || x->dc == D_LB)
		qsport = below(&x->r, 49152);
	/*
	 * To the LB's own address, "too big" about one of its outer packets
	 * (ipip, ip6ip6) to a client, never a backend: the LB learns no path
	 * MTU from it (fuzz_packets.sh reads its route cache).
	 */
	if (x->dc == D_LB && ((type == 3 && code == 4) || type == 2) && chance(&x->r, 50))
		qproto = x->fam == AF_INET ? IPPROTO_IPIP : IPPROTO_IPV6;
	client(x, &x->qclient);
	x->qcport = cport(x);
	icmp_put(p, type, code, rest);
	x->qk = gen_quote(&x->r, &x->g->q, x->fam, &from, &x->qclient, qproto,
			  qsport, x->qcport, in->tag, qwhat, sizeof(qwhat));
	pkt_put(p, x->g->q.b, x->g->q.len);
	x->qsvc = topo_svc(x->t, &from, qsport, qproto);
	in->kernel_pmtu = kernel_learns_pmtu(x, type, code, qproto);
	in->kernel_pmtu_dst = x->qclient;
	if (!x->qsvc || !addr_eq(&from, &in->dst))
		x->quote_ok = false;
	say(x, "icmp %u/%u %s ", type, code, qwhat);
}

static void icmp_info(struct gx *x, struct pkt *p)
{
	static const uint8_t info4[] = { 8, 8, 13, 15, 17, 0, 40, 200 };
	static const uint8_t info6[] = { 128, 128, 129, 139, 144, 200, 255 };
	uint8_t type = x->fam == AF_INET ? info4[below(&x->r, sizeof(info4))] :
					   info6[below(&x->r, sizeof(info6))];

	/* The identifier is the tag: an echo reply carries it back. */
	icmp_put(p, type, 0, (uint32_t)x->in->tag << 16 | below(&x->r, 65536));
	say(x, "icmp %u ", type);
}

static void other(struct gx *x, struct pkt *p)
{
	static const uint8_t protos[] = { 4, 41, 47, 50, 51, 59, 103, 132, 136, 253, 255 };
	uint8_t proto = protos[below(&x->r, sizeof(protos))];

	l4_begin(p, proto);
	say(x, "proto %u ", proto);
}

/* The payload: small mostly, sometimes near or over the MTU. */
static void payload(struct gx *x, struct pkt *p)
{
	const struct svc *s = x->qsvc ? x->qsvc : x->svc;
	uint32_t c = below(&x->r, 100);
	size_t want = 0;

	if (c < 55)
		want = p->len + below(&x->r, 40);
	else if (c < 85)
		want = p->len + below(&x->r, 400);
	else if (c < 93 || !s || s->fwd != FWD_TUNNEL)
		want = 1300 + below(&x->r, 201);
	else
		want = s->mtu + 1 + below(&x->r, 1500 - s->mtu);
	if (want > 1500)
		want = 1500;
	if (want > p->len)
		pkt_fill(p, &x->r, want - p->len);
}

void build(struct gx *x)
{
	struct input *in = x->in;
	struct pkt *p = &x->g->p;
	uint8_t opts[40];
	size_t optlen = 0;

	if (x->fam == AF_INET) {
		if (chance(&x->r, 8)) {
			optlen = gen_ip4_opts(&x->r, x->t, opts);
			say(x, "options %zu ", optlen);
		}
		ip4_begin(p, &in->src, &in->dst, x->proto, x->ttl, in->tag, x->df,
			  opts, optlen);
	} else {
		ip6_begin(p, &in->src, &in->dst, x->ttl, FL_MARK | in->tag);
		if (chance(&x->r, 15)) {
			x->ext = true;
			gen_ip6_exts(&x->r, x->t, p, &x->ext_benign, &x->ext_routed);
			say(x, "ext%s%s ", x->ext_benign ? "" : " odd",
			    x->ext_routed ? " segments-left" : "");
		}
	}
	switch (x->shape) {
	case S_TCP: tcp(x, p); break;
	case S_UDP: udp_put(p, x->sport, x->dport); say(x, "udp "); break;
	case S_GUE: gue(x, p); break;
	case S_ICMP_ERR: icmp_error(x, p); break;
	case S_ICMP_INFO: icmp_info(x, p); break;
	case S_OTHER: other(x, p); break;
	}
	/* An ICMP error ends with its quote, however short. */
	if (x->shape != S_ICMP_ERR)
		payload(x, p);
	pkt_bound(p);
	pkt_finish(p);
	say(x, "len %zu ", p->len);
	if (chance(&x->r, 3) && pkt_csum_at(p) && p->len >= p->l4off + pkt_csum_at(p) + 2) {
		/* A bad L4 checksum: the hook steers without looking at it. */
		p->b[p->l4off + pkt_csum_at(p)] ^= 0x5a;
		say(x, "bad-l4-csum ");
	}
}
