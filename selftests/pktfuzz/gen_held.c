// SPDX-License-Identifier: GPL-2.0
/*
 * Held flows: flows of the tunnel services that fuzz_packets.sh
 * establishes before the first input (a SYN, then a packet more than
 * RS_FT_CONFIRM later) and fuzz_packets keeps alive (a packet of each
 * every few seconds, well within RS_FT_ACTIVE), so that the flow table
 * holds them as established when the ring changes mid-run. Their tuples
 * come from the clients' and ports' pools of every other input
 * (gen_base.c), so random inputs meet them too. And some inputs are
 * aimed at them: a spoofed SYN with a held flow's tuple, which must not
 * take the flow to the ring's new choice, or two packets for each of
 * sixteen tuples of a held flow's client, its own among them: the flood
 * that confirms entries as fast as a sender can, which flowtab.c's
 * confirmation time and its limit of confirmed ways are against. Which
 * inputs are aimed is drawn from a stream of its own, so that every other
 * input is what it is without held flows.
 */

#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "gen.h"

#define TCP_SYN		0x02
#define TCP_ACK		0x10
#define FLOOD_TUPLES	16

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v;
}

void gen_pick_held(const struct topo *t, uint64_t seed, int n, FILE *out)
{
	char v[INET6_ADDRSTRLEN + 8], s[INET6_ADDRSTRLEN + 8];
	struct flow *mine = calloc(n > 0 ? n : 1, sizeof(*mine));
	struct input in;
	struct gx x = { .t = t, .in = &in };
	int i, k, got;

	x.r.s = seed ^ 0x4e1d4e1dULL;
	rnd(&x.r);
	for (i = 0; i < t->nsvcs; i++) {
		const struct svc *sv = &t->svcs[i];

		if (sv->fwd != FWD_TUNNEL)
			continue;
		x.fam = sv->vip.family;
		for (got = 0; got < n;) {
			struct flow f = { .svc = i };

			client(&x, &f.src);
			f.sport = cport(&x);
			/* ringctl lookup takes no port 0. */
			for (k = 0; k < got && !(addr_eq(&mine[k].src, &f.src) &&
						 mine[k].sport == f.sport); k++)
				;
			if (!f.sport || k < got)
				continue;
			mine[got++] = f;
			fprintf(out, "%s %s %s - - held\n", ep_str(&sv->vip, sv->port, v, sizeof(v)),
				sv->proto == IPPROTO_TCP ? "tcp" : "udp",
				ep_str(&f.src, f.sport, s, sizeof(s)));
		}
	}
	free(mine);
}

/* The held flow's packet from @f->src to its service, with @flags (TCP). */
static void held_packet(struct pkt *p, const struct topo *t, const struct flow *f,
			uint16_t ipid, uint32_t label, uint32_t seq, uint8_t flags)
{
	const struct svc *s = &t->svcs[f->svc];

	if (s->vip.family == AF_INET)
		ip4_begin(p, &f->src, &s->vip, s->proto, 64, ipid, true, NULL, 0);
	else
		ip6_begin(p, &f->src, &s->vip, 64, label);
	if (s->proto == IPPROTO_TCP) {
		struct tcp_args a = { .sport = f->sport, .dport = s->port, .seq = seq,
				      .ack = seq, .flags = flags, .win = 64240 };

		tcp_put(p, &a, NULL, 0);
	} else {
		udp_put(p, f->sport, s->port);
	}
}

/*
 * No input's tag: its IPv6 flow label has no FL_MARK, and check.c knows
 * a keepalive by its payload before it looks for a tag.
 */
void gen_keepalive(struct gen *g, const struct flow *f, uint16_t id,
		   uint32_t round, bool syn, struct frame *fr)
{
	const struct link *l = &g->t->links[0];
	struct pkt *p = &g->p;
	uint8_t pl[HELD_MAGIC_LEN + 6];

	held_packet(p, g->t, f, id, 0, round << 16 | id, syn ? TCP_SYN : TCP_ACK);
	memcpy(pl, HELD_MAGIC, HELD_MAGIC_LEN);
	put16(pl + HELD_MAGIC_LEN, id);
	put16(pl + HELD_MAGIC_LEN + 2, round >> 16);
	put16(pl + HELD_MAGIC_LEN + 4, round);
	pkt_put(p, pl, sizeof(pl));
	pkt_finish(p);
	memcpy(fr->b, l->lbmac, 6);
	memcpy(fr->b + 6, l->mac, 6);
	put16(fr->b + 12, p->family == AF_INET ? 0x0800 : 0x86dd);
	memcpy(fr->b + 14, p->b, p->len);
	fr->len = 14 + p->len;
}

/*
 * A SYN (no ACK; now and then FIN, RST or other flags beside it, which
 * the hook reads as a SYN all the same) or a UDP datagram with the held
 * flow's tuple: the held flow's backend must get it.
 */
static void spoofed(struct gx *x, const struct flow *h)
{
	static const uint8_t extra[] = { 0x01, 0x04, 0x05, 0x08, 0x20, 0x40, 0x80 };
	struct input *in = x->in;
	uint8_t flags = TCP_SYN;

	if (chance(&x->r, 25))
		flags |= extra[below(&x->r, sizeof(extra))];
	held_packet(&x->g->p, x->t, h, in->tag, FL_MARK | in->tag,
		    (uint32_t)in->tag << 16 | below(&x->r, 0x8000), flags);
	pkt_fill(&x->g->p, &x->r, below(&x->r, 64));
	pkt_finish(&x->g->p);
	gx_frame(x, &x->g->frames[0], &x->g->p, x->g->p.len);
	if (x->proto == IPPROTO_TCP)
		say(x, "spoofed tcp %02x ", flags);
	else
		say(x, "spoofed udp ");
	in->flags |= IN_STEER;
	in->flow = *h;
	gx_sent(x, h, false);
}

/*
 * Two packets for each of FLOOD_TUPLES tuples of the held flow's client,
 * its own first: SYN then ACK (TCP), as a spoofed handshake that wants
 * its entry confirmed; the pairs back to back or in two rounds. From one
 * client, so that every frame is the input's (check.c ties a copy to its
 * input by tag and addresses).
 */
static void two_each(struct gx *x, const struct flow *h)
{
	struct flow f[FLOOD_TUPLES];
	struct input *in = x->in;
	bool rounds = chance(&x->r, 50);
	int i, k, n = 0;

	for (i = 0; i < FLOOD_TUPLES; i++) {
		f[i] = *h;
		if (i)
			f[i].sport = chance(&x->r, 50) ? h->sport + 1 + below(&x->r, 8) :
							 1024 + below(&x->r, 512);
		gx_sent(x, &f[i], false);
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < FLOOD_TUPLES; i++) {
			int t = rounds ? i : (k * FLOOD_TUPLES + i) / 2;
			bool second = rounds ? k : (k * FLOOD_TUPLES + i) % 2;

			held_packet(&x->g->p, x->t, &f[t], in->tag, FL_MARK | in->tag,
				    (uint32_t)in->tag << 16 | below(&x->r, 0x8000),
				    second ? TCP_ACK : TCP_SYN);
			pkt_finish(&x->g->p);
			gx_frame(x, &x->g->frames[n++], &x->g->p, x->g->p.len);
		}
	in->nframes = n;
	say(x, "two packets each for %d tuples of its client%s ", FLOOD_TUPLES,
	    rounds ? ", in two rounds" : "");
}

bool gen_aimed(struct gen *g, uint64_t index, struct input *in)
{
	struct rng r = { g->seed ^ (index * 0xd1342543de82ef95ULL) ^ 0xa1a1edULL };
	const struct flow *h;
	struct gx x;

	if (!g->nheld)
		return false;
	rnd(&r);
	if (!permille(&r, AIMED_PERMILLE))
		return false;
	gx_begin(&x, g, index, in, 0xa1a1edULL << 8);
	h = &g->held[below(&x.r, g->nheld)];
	x.svc = &x.t->svcs[h->svc];
	x.fam = in->family = x.svc->vip.family;
	x.ethertype = x.fam == AF_INET ? 0x0800 : 0x86dd;
	memcpy(x.dmac, x.t->links[0].lbmac, 6);
	in->src = h->src;
	in->dst = x.svc->vip;
	x.sport = h->sport;
	x.dport = x.svc->port;
	x.proto = x.svc->proto;
	x.ttl = 64;
	in->flags = IN_TUNNEL_VIP;
	in->served = SERVED_YES;
	in->hook_svc = h->svc;
	say(&x, "aimed at held flow %d: ", (int)(h - g->held));
	gx_say_flow(&x);
	if (chance(&x.r, 50))
		spoofed(&x, h);
	else
		two_each(&x, h);
	return true;
}
