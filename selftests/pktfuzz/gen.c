// SPDX-License-Identifier: GPL-2.0
/*
 * One input from (seed, index): a destination (a tunnel or NAT service,
 * another port of a VIP, the LB itself, a host behind it), a source (a
 * client, or a martian), a shape (TCP with any flags, UDP, GUE, an ICMP
 * error quoting a crafted packet, other ICMP, other protocols), then what
 * a broken sender or an attacker does to it (options, extension headers,
 * fragments, truncation, bad lengths, TTL 0 or 1, DF over the tunnel's
 * MTU, an L2 destination that is not the LB's). Each input also says what
 * the load balancer must or must not do with it (struct input), for
 * check.c. Every copy of the input's headers the LB could send carries its
 * tag: the IPv4 ID, the IPv6 flow label, TCP sequence and acknowledgement
 * numbers, the ICMP echo identifier.
 */

#include <string.h>
#include <arpa/inet.h>

#include "gen.h"

static const struct addr *pick_addr(struct gx *x, const struct addr *v, int n)
{
	int i, m = 0, k;

	for (i = 0; i < n; i++)
		m += v[i].family == x->fam;
	if (!m)
		return NULL;
	k = below(&x->r, m);
	for (i = 0; i < n; i++)
		if (v[i].family == x->fam && !k--)
			return &v[i];
	return NULL;
}

static const struct svc *pick_svc(struct gx *x, enum fwd fwd)
{
	const struct topo *t = x->t;
	int i, m = 0, k;

	for (i = 0; i < t->nsvcs; i++)
		m += t->svcs[i].fwd == fwd && t->svcs[i].vip.family == x->fam;
	if (!m)
		return NULL;
	k = below(&x->r, m);
	for (i = 0; i < t->nsvcs; i++)
		if (t->svcs[i].fwd == fwd && t->svcs[i].vip.family == x->fam && !k--)
			return &t->svcs[i];
	return NULL;
}

/*
 * Martian sources (IN_MARTIAN): what routing never accepts a packet
 * from. 0.0.0.0/8, link-local addresses (169.254/16, fe80::/10) and
 * IPv6's unspecified, own and v4-mapped addresses (IN_MARTIAN_TUN) the
 * kernel forwards or answers, but a tunnel service must not steer or
 * answer them.
 */
static void martian(struct gx *x)
{
	struct input *in = x->in;
	const struct addr *a;
	struct addr *s = &in->src;

	in->flags |= IN_MARTIAN;
	if (x->fam == AF_INET) {
		switch (below(&x->r, 7)) {
		case 0: addr_set4(s, 255, 255, 255, 255); break;
		case 1: addr_set4(s, 224 + below(&x->r, 16), rnd(&x->r), rnd(&x->r), rnd(&x->r)); break;
		case 2:
			/*
			 * 0.0.0.0/8: since 5.3 routing takes all of it but
			 * 0.0.0.0 as unicast; as a source it names no host
			 * (RFC 1122), and a tunnel service refuses it.
			 */
			if (chance(&x->r, 50)) {
				addr_set4(s, 0, 0, 0, 0);
				break;
			}
			addr_set4(s, 0, rnd(&x->r), rnd(&x->r), 1 + below(&x->r, 4));
			in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
			break;
		case 3: addr_set4(s, 127, rnd(&x->r), rnd(&x->r), 1 + below(&x->r, 254)); break;
		case 6:
			addr_set4(s, 169, 254, rnd(&x->r), 1 + below(&x->r, 254));
			in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
			break;
		case 4:
			a = pick_addr(x, x->t->lb, x->t->nlb);
			*s = *a;
			break;
		default:
			a = pick_addr(x, x->t->bcast, x->t->nbcast);
			if (a)
				*s = *a;
			else
				addr_set4(s, 255, 255, 255, 255);
			break;
		}
		return;
	}
	memset(s, 0, sizeof(*s));
	s->family = AF_INET6;
	switch (below(&x->r, 6)) {
	case 5:
		s->a[0] = 0xfe;			/* fe80::/10 */
		s->a[1] = 0x80 | below(&x->r, 64);
		s->a[15] = 1 + below(&x->r, 254);
		in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
		break;
	case 0:
		s->a[0] = 0xff;
		s->a[1] = below(&x->r, 256);
		s->a[15] = 1 + below(&x->r, 3);
		break;
	case 1:
		/* ::, which the kernel's TCP answers with a reset to :: */
		in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
		break;
	case 2:
		s->a[15] = 1;			/* ::1 */
		break;
	case 3:
		a = pick_addr(x, x->t->lb, x->t->nlb);
		*s = *a;
		in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
		break;
	default:
		s->a[10] = s->a[11] = 0xff;	/* ::ffff:198.18.0.1 */
		memcpy(s->a + 12, "\xc6\x12\x00\x01", 4);
		in->flags = (in->flags & ~IN_MARTIAN) | IN_MARTIAN_TUN;
		break;
	}
}

/* A port of the VIP that no service of @proto has. */
static uint16_t other_port(struct gx *x, const struct addr *vip, uint8_t proto)
{
	static const uint16_t ports[] = { 22, 53, 443, 6080, 8080, 0, 65535 };
	uint16_t p;

	do {
		p = chance(&x->r, 70) ? ports[below(&x->r, ARRAY_SIZE(ports))] :
					below(&x->r, 65536);
	} while (topo_svc(x->t, vip, p, proto));
	return p;
}

static void destination(struct gx *x)
{
	struct input *in = x->in;
	const struct addr *a = NULL;
	uint32_t c = below(&x->r, 100);

	x->proto = chance(&x->r, 50) ? IPPROTO_TCP : IPPROTO_UDP;
	x->dc = c < 40 ? D_TUN_SVC : c < 50 ? D_TUN_OTHER : c < 72 ? D_NAT_SVC :
		c < 80 ? D_NAT_OTHER : c < 92 ? D_LB : D_ROUTED;
	if (x->dc == D_TUN_SVC || x->dc == D_TUN_OTHER)
		x->svc = pick_svc(x, FWD_TUNNEL);
	else if (x->dc == D_NAT_SVC || x->dc == D_NAT_OTHER)
		x->svc = pick_svc(x, FWD_NAT);
	if (x->svc) {
		in->dst = x->svc->vip;
		if (x->dc == D_TUN_SVC || x->dc == D_NAT_SVC) {
			x->proto = x->svc->proto;
			x->dport = x->svc->port;
		} else {
			x->dport = other_port(x, &in->dst, x->proto);
			x->svc = NULL;
		}
		return;
	}
	if (x->dc == D_ROUTED) {
		const struct link *l = &x->t->links[1 + below(&x->r, x->t->nlinks - 1)];

		a = x->fam == AF_INET ? &l->b4 : &l->b6;
	}
	if (!a)
		a = pick_addr(x, x->t->lb, x->t->nlb);
	x->dc = x->dc == D_ROUTED ? D_ROUTED : D_LB;
	in->dst = *a;
	x->dport = chance(&x->r, 50) ? 80 : below(&x->r, 65536);
}

static void choose_shape(struct gx *x)
{
	uint32_t c = below(&x->r, 100);

	if (c < 20)
		x->shape = S_ICMP_ERR;
	else if (c < 26)
		x->shape = S_ICMP_INFO;
	else if (c < 30)
		x->shape = S_OTHER;
	else if (x->proto == IPPROTO_UDP)
		x->shape = chance(&x->r, 20) ? S_GUE : S_UDP;
	else
		x->shape = S_TCP;
}
/*
 * Fragments: in order, reversed, one missing, overlapping, one twice, or
 * a single first or later fragment; the first sometimes too short for the
 * whole L4 header (RFC 1858).
 */
static void fragment(struct gx *x)
{
	const struct pkt *p = &x->g->p;
	struct frag f[8];
	size_t hdr = x->fam == AF_INET ? p->l3len : p->unfrag;
	size_t data = p->len - hdr, cuts[8], off = 0;
	int n = 2 + below(&x->r, 3), i, k, v = below(&x->r, 10), sent = 0;
	static const char *const names[] = {
		"in order", "in order", "in order", "in order", "reversed", "one missing",
		"overlapping", "one twice", "first only", "a later one only",
	};

	if ((size_t)n > data / 8)
		n = data / 8;
	for (i = 0; i < n - 1; i++)
		cuts[i] = 8 * (1 + below(&x->r, data / 8 - 1));
	/* sort, dedup */
	for (i = 0; i < n - 1; i++)
		for (k = i + 1; k < n - 1; k++)
			if (cuts[k] < cuts[i]) {
				size_t tmp = cuts[i];

				cuts[i] = cuts[k];
				cuts[k] = tmp;
			}
	if (chance(&x->r, 15))
		cuts[0] = 8;	/* tiny first fragment */
	for (i = k = 0; i < n; i++) {
		size_t end = i < n - 1 ? cuts[i] : data;

		if (end <= off)
			continue;
		f[k].off = off;
		f[k].len = end - off;
		f[k].more = i < n - 1;
		off = end;
		k++;
	}
	n = k;
	if (v == 6 && n > 1) {
		f[1].off -= 8;
		f[1].len += 8;
	}
	pkt_fragment(p, f, n, (uint32_t)x->in->index, x->g->frags);
	x->fragmented = true;
	/* IPv6 drops a first fragment without the whole header chain. */
	x->complete = v < 5 && (x->fam == AF_INET || f[0].len >= p->l4off - hdr + pkt_l4_hlen(p));
	for (i = 0; i < n; i++) {
		int j = v == 4 ? n - 1 - i : i;
		struct pkt *fp = &x->g->frags[j];

		if ((v == 5 && j == n / 2) || (v == 8 && j) || (v == 9 && (!j || i != n - 1)))
			continue;
		gx_frame(x, &x->g->frames[sent++], fp, fp->len);
		if (fp->len > x->maxfrag)
			x->maxfrag = fp->len;
		if (v == 7 && j == 0)
			gx_frame(x, &x->g->frames[sent++], fp, fp->len);
	}
	x->in->nframes = sent;
	say(x, "frag %d/%d %s ", sent, n, names[v]);
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v;
}

/* Cut at a header boundary (or near it): lengths kept, or made to agree. */
static void truncate_at_bound(struct gx *x)
{
	struct pkt *p = &x->g->p;
	size_t cut = p->bounds[below(&x->r, p->nbounds)];
	bool agree = chance(&x->r, 50);

	if (chance(&x->r, 30))
		cut += below(&x->r, 4);
	if (cut >= p->len)
		cut = p->len - 1;
	if (agree && x->fam == AF_INET && cut >= 20) {
		put16(p->b + 2, cut);
		ip4_fix_csum(p->b);
	} else if (agree && x->fam == AF_INET6 && cut >= 40) {
		put16(p->b + 4, cut - 40);
	}
	gx_frame(x, &x->g->frames[0], p, cut);
	say(x, "cut at %zu of %zu (lengths %s) ", cut, p->len, agree ? "agree" : "kept");
}

static void bad_lengths(struct gx *x)
{
	struct pkt *p = &x->g->p;
	uint16_t v;

	if (x->fam == AF_INET6) {
		v = chance(&x->r, 50) ? p->len - 40 + (chance(&x->r, 50) ? 1 : -1) :
					below(&x->r, 65536);
		put16(p->b + 4, v);
		say(x, "payload length %u ", v);
		return;
	}
	if (chance(&x->r, 40)) {
		p->b[0] = 0x40 | below(&x->r, 16);
		say(x, "ihl %u ", p->b[0] & 0xf);
	} else {
		static const int deltas[] = { -1, 1, 100, -20 };

		v = chance(&x->r, 60) ? p->len + deltas[below(&x->r, 4)] : below(&x->r, 64);
		put16(p->b + 2, v);
		say(x, "total length %u ", v);
	}
	ip4_fix_csum(p->b);
}

static void l2(struct gx *x)
{
	uint32_t c = below(&x->r, 1000);

	memcpy(x->dmac, x->t->links[0].lbmac, 6);
	if (c >= 45 || x->shape == S_ICMP_INFO)
		return;
	x->in->flags |= IN_NOT_HOST;
	if (c < 15) {
		memset(x->dmac, 0xff, 6);
		say(x, "l2 broadcast ");
	} else if (c < 30 && x->fam == AF_INET) {
		memcpy(x->dmac, "\x01\x00\x5e\x00\x00\x01", 6);
		say(x, "l2 multicast ");
	} else if (c < 30) {
		memcpy(x->dmac, "\x33\x33\x00\x00\x00\x01", 6);
		say(x, "l2 multicast ");
	} else {
		memcpy(x->dmac, "\x02\x00\x00\x00\x99\x99", 6);
		say(x, "l2 another host ");
	}
}

/* Whether the tunnel hook must steer what it reads, and to which flow. */
static void expectations(struct gx *x)
{
	struct input *in = x->in;
	const struct svc *s = x->shape == S_ICMP_ERR ? x->qsvc : x->svc;
	bool readable, fits;

	if (topo_tunnel_vip(x->t, &in->dst))
		in->flags |= IN_TUNNEL_VIP;
	if (topo_nat_vip(x->t, &in->dst))
		in->flags |= IN_NAT_VIP;
	if (x->ttl <= 1)
		in->flags |= IN_TTL_LOW;
	if (s && s->fwd == FWD_TUNNEL)
		in->hook_svc = s - x->t->svcs;
	if (!(in->flags & IN_TUNNEL_VIP))
		return;
	if (x->shape == S_ICMP_ERR)
		readable = x->quote_ok && x->qk != Q_LATER_FRAG && x->qk != Q_NO_PORTS &&
			   (x->qsvc->proto == IPPROTO_TCP || x->qsvc->proto == IPPROTO_UDP);
	else
		readable = x->shape == S_TCP || x->shape == S_UDP || x->shape == S_GUE;
	in->served = readable && s && s->fwd == FWD_TUNNEL ? SERVED_YES : SERVED_NO;
	/* What the hook reads of a broken packet is not for us to predict. */
	if (!x->wellformed || (x->fragmented && !x->complete) ||
	    (x->ext && (!x->ext_benign || x->ext_routed)))
		in->served = SERVED_MAYBE;
	in->unserved_clear = in->served == SERVED_NO && x->wellformed && !x->ext &&
			     !x->fragmented && !(in->flags & (IN_MARTIAN | IN_MARTIAN_TUN |
							      IN_NOT_HOST));
	if (in->served != SERVED_YES ||
	    (in->flags & (IN_MARTIAN | IN_MARTIAN_TUN | IN_NOT_HOST | IN_TTL_LOW)))
		return;
	if (x->fragmented)
		fits = x->fam == AF_INET || x->maxfrag <= (size_t)s->mtu;
	else
		fits = (x->fam == AF_INET && !x->df) || x->g->p.len <= (size_t)s->mtu;
	if (!fits)
		return;
	in->flags |= IN_STEER;
	in->flow.svc = s - x->t->svcs;
	if (x->shape == S_ICMP_ERR) {
		in->flow.src = x->qclient;
		in->flow.sport = x->qcport;
	} else {
		in->flow.src = in->src;
		in->flow.sport = x->sport;
	}
}

/*
 * A TCP FIN or RST ends a flow's establishment in the flow table, but
 * not in a SYN: the hook takes a SYN without ACK for a SYN whatever else
 * it carries (tunnel.c read_ports()).
 */
static bool ends(uint8_t flags)
{
	return (flags & 0x05) && (flags & 0x12) != 0x02;
}

/* The flow of a tunnel service the input's packet is of, if any. */
static void note_sent(struct gx *x)
{
	struct flow f;

	if (!x->svc || x->svc->fwd != FWD_TUNNEL ||
	    (x->shape != S_TCP && x->shape != S_UDP && x->shape != S_GUE))
		return;
	f = (struct flow){ .svc = x->svc - x->t->svcs, .src = x->in->src, .sport = x->sport };
	gx_sent(x, &f, x->shape == S_TCP && ends(x->tcp_flags));
}

static void gen_flood(struct gen *g, uint64_t index, struct input *in);

void gen_input(struct gen *g, uint64_t index, struct input *in)
{
	struct gx x;
	uint32_t c, m;

	g->nsent = 0;
	if (gen_aimed(g, index, in))
		return;
	gx_begin(&x, g, index, in, 0);
	if (!below(&x.r, 2000)) {
		gen_flood(g, index, in);
		return;
	}
	destination(&x);
	choose_shape(&x);
	x.sport = cport(&x);
	c = below(&x.r, 1000);
	if (c < 60)
		martian(&x);
	else
		client(&x, &in->src);
	c = below(&x.r, 100);
	x.ttl = c < 2 ? 1 : c < 3 ? 0 : c < 6 ? 2 : c < 80 ? 64 : 2 + below(&x.r, 254);
	x.df = x.fam == AF_INET && chance(&x.r, 60);
	gx_say_flow(&x);
	say(&x, "ttl %u%s ", x.ttl, x.df ? " df" : "");
	build(&x);
	l2(&x);
	if (in->flags & IN_MARTIAN)
		say(&x, "martian ");
	if (in->flags & IN_MARTIAN_TUN)
		say(&x, "tunnel-martian source ");
	m = below(&x.r, 100);
	if (m < 9 && g->p.len - (x.fam == AF_INET ? g->p.l3len : g->p.unfrag) >= 16) {
		fragment(&x);
	} else if (m < 16) {
		x.wellformed = false;
		truncate_at_bound(&x);
	} else {
		if (m < 19) {
			x.wellformed = false;
			bad_lengths(&x);
		} else if (m < 20) {
			x.wellformed = false;
			if (x.fam == AF_INET)
				g->p.b[10] ^= 0xff;
			else
				g->p.b[0] = (g->p.b[0] & 0x0f) | 0x40;
			say(&x, "bad header ");
		}
		gx_frame(&x, &g->frames[0], &g->p, g->p.len);
	}
	if (permille(&x.r, 5)) {
		/* The other family's ethertype. */
		x.wellformed = false;
		x.ethertype ^= 0x0800 ^ 0x86dd;
		for (c = 0; c < in->nframes; c++) {
			g->frames[c].b[12] = x.ethertype >> 8;
			g->frames[c].b[13] = x.ethertype;
		}
		say(&x, "wrong ethertype ");
	}
	expectations(&x);
	note_sent(&x);
}

/*
 * A burst of packets too big for the tunnel from one client, on one
 * flow: the hook's ICMP errors about them must be rate limited.
 */
static void gen_flood(struct gen *g, uint64_t index, struct input *in)
{
	struct gx x;
	int i;

	gx_begin(&x, g, index, in, 0xf100d);
	x.svc = pick_svc(&x, FWD_TUNNEL);
	in->dst = x.svc->vip;
	x.proto = x.svc->proto;
	x.dport = x.svc->port;
	x.shape = x.proto == IPPROTO_TCP ? S_TCP : S_UDP;
	client(&x, &in->src);
	x.sport = cport(&x);
	x.ttl = 64;
	x.df = true;
	in->flags = IN_FLOOD;
	memcpy(x.dmac, x.t->links[0].lbmac, 6);
	say(&x, "flood of %d: ", MAX_FRAMES);
	gx_say_flow(&x);
	say(&x, "len %d ", x.svc->mtu + 20);
	if (x.fam == AF_INET)
		ip4_begin(&g->p, &in->src, &in->dst, x.proto, 64, in->tag, true, NULL, 0);
	else
		ip6_begin(&g->p, &in->src, &in->dst, 64, FL_MARK | in->tag);
	if (x.shape == S_TCP)
		tcp(&x, &g->p);
	else
		udp_put(&g->p, x.sport, x.dport);
	pkt_fill(&g->p, &x.r, x.svc->mtu + 20 - g->p.len);
	pkt_finish(&g->p);
	for (i = 0; i < MAX_FRAMES; i++)
		gx_frame(&x, &g->frames[i], &g->p, g->p.len);
	in->nframes = MAX_FRAMES;
	expectations(&x);
	note_sent(&x);
}
