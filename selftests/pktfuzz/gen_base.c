// SPDX-License-Identifier: GPL-2.0
/*
 * What gen.c, which decides what an input is, and gen_shape.c, which lays
 * out its packet, both use about the input being made (struct gx): its
 * description, and the clients it may come from. Below both of them, so
 * that neither depends on the other's helpers.
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
