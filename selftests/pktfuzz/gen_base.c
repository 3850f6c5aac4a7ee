// SPDX-License-Identifier: GPL-2.0
/*
 * What gen.c, which decides what an input is, gen_shape.c, which lays
 * out its packet, and gen_held.c, the inputs aimed at held flows, use
 * about the input being made (struct gx): its random numbers, its
 * description, the clients it may come from, its frames. Below all of
 * them, so that none depends on another's helpers.
 */

#include <stdarg.h>
#include <string.h>
#include <arpa/inet.h>

#include "gen.h"

void say(struct gx *x, const char *fmt, ...)
{
	size_t room = sizeof(x->in->what) - x->wpos;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(x->in->what + x->wpos, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		x->wpos += (size_t)n < room ? (size_t)n : room - 1;
}

void addr_set4(struct addr *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->a[0] = b0;
	a->a[1] = b1;
	a->a[2] = b2;
	a->a[3] = b3;
}

/* Clients: 16 of them beyond the LB's default route, and its neighbour. */
void client(struct gx *x, struct addr *a)
{
	if (chance(&x->r, 10)) {
		*a = x->fam == AF_INET ? x->t->client4 : x->t->client6;
		return;
	}
	if (x->fam == AF_INET) {
		addr_set4(a, 198, 18, 0, 1 + below(&x->r, 16));
		return;
	}
	memset(a, 0, sizeof(*a));
	a->family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:1::", a->a);
	a->a[15] = 1 + below(&x->r, 16);
}

/* Ports from a small pool, so that flows come back (flow table, conntrack). */
uint16_t cport(struct gx *x)
{
	return chance(&x->r, 90) ? 1024 + below(&x->r, 512) : below(&x->r, 65536);
}

/* Input @index's own random numbers (@salt: another stream), and its family. */
void gx_begin(struct gx *x, struct gen *g, uint64_t index, struct input *in,
	      uint64_t salt)
{
	*x = (struct gx){ .g = g, .t = g->t, .in = in, .wellformed = true,
			  .ext_benign = true, .ethertype = 0x0800 };
	x->r.s = g->seed ^ (index * 0xd1342543de82ef95ULL) ^ salt;
	rnd(&x->r);
	memset(in, 0, sizeof(*in));
	in->index = index;
	in->tag = tag_of(index);
	in->nframes = 1;
	in->hook_svc = -1;
	in->flow.svc = -1;
	x->fam = chance(&x->r, 50) ? AF_INET : AF_INET6;
	in->family = x->fam;
	if (x->fam == AF_INET6)
		x->ethertype = 0x86dd;
}

/* A frame from the client's end of its link around @p's first @len bytes. */
void gx_frame(struct gx *x, struct frame *f, const struct pkt *p, size_t len)
{
	const struct link *l = &x->t->links[0];

	if (len > p->len)
		len = p->len;
	memcpy(f->b, x->dmac, 6);
	memcpy(f->b + 6, l->mac, 6);
	f->b[12] = x->ethertype >> 8;
	f->b[13] = x->ethertype;
	memcpy(f->b + 14, p->b, len);
	f->len = 14 + len;
}

/* The input's addresses and ports, in its description and in struct input. */
void gx_say_flow(struct gx *x)
{
	char sbuf[INET6_ADDRSTRLEN], dbuf[INET6_ADDRSTRLEN];
	struct input *in = x->in;

	say(x, "v%d %s:%u > %s:%u ", x->fam == AF_INET ? 4 : 6,
	    addr_str(&in->src, sbuf, sizeof(sbuf)), x->sport,
	    addr_str(&in->dst, dbuf, sizeof(dbuf)), x->dport);
	in->sport = x->sport;
	in->dport = x->dport;
	in->proto = x->proto;
	in->ttl = x->ttl;
}

void gx_sent(struct gx *x, const struct flow *f, bool ends)
{
	struct gen *g = x->g;

	if (g->nsent < MAX_SENT)
		g->sent[g->nsent++] = (struct sent_flow){ .f = *f, .ends = ends };
}
