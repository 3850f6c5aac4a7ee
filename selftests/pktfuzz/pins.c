// SPDX-License-Identifier: GPL-2.0
/*
 * Flows by tuple (service, client, port), with what fuzz_packets.sh
 * knows of them across a ring change: the held flows it established
 * before the first input and keeps alive, and, after the change, every
 * flow of a tunnel service that was sent before it (pinned), each with
 * the backend the ring gave it before the change and the one it gives
 * now. A file of them is read at the start of a run and the held ones'
 * states written back at its end (a client's FIN or RST ends a held
 * flow's establishment, flowtab.c): the next run, after the change,
 * must know which held flows the flow table still has to keep.
 *
 * The same table, filled as inputs are sent, is the set of tuples a run
 * touched (check.c's --touched).
 */

#include <stdlib.h>
#include <string.h>

#include "pktfuzz.h"

static const char *const state_names[] = {
	[PIN_PINNED] = "pinned", [PIN_HELD] = "held", [PIN_ENDED] = "ended",
};

static uint32_t hash(const struct flow *f)
{
	uint32_t h = 2166136261u ^ (uint32_t)f->svc;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ f->src.a[i]) * 16777619u;
	h = (h ^ f->sport) * 16777619u;
	return h ^ (h >> 15);
}

static bool same(const struct flow *a, const struct flow *b)
{
	return a->svc == b->svc && a->sport == b->sport && addr_eq(&a->src, &b->src);
}

static struct pin *slots(size_t cap)
{
	struct pin *s = calloc(cap, sizeof(*s));
	size_t i;

	if (!s) {
		fprintf(stderr, "fuzz_packets: out of memory\n");
		exit(2);
	}
	for (i = 0; i < cap; i++)
		s[i].f.svc = -1;
	return s;
}

struct pins *pins_new(void)
{
	struct pins *p = calloc(1, sizeof(*p));

	if (!p) {
		fprintf(stderr, "fuzz_packets: out of memory\n");
		exit(2);
	}
	p->cap = 1024;
	p->slot = slots(p->cap);
	return p;
}

static struct pin *probe(struct pin *slot, size_t cap, const struct flow *f)
{
	size_t i = hash(f) & (cap - 1);

	while (slot[i].f.svc >= 0 && !same(&slot[i].f, f))
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

struct pin *pins_find(const struct pins *p, const struct flow *f)
{
	struct pin *e = probe(p->slot, p->cap, f);

	return e->f.svc >= 0 ? e : NULL;
}

/* Doubled when half full; the held list is made once the file is read. */
static void grow(struct pins *p)
{
	struct pin *old = p->slot;
	size_t i, cap = p->cap;

	p->cap *= 2;
	p->slot = slots(p->cap);
	for (i = 0; i < cap; i++)
		if (old[i].f.svc >= 0)
			*probe(p->slot, p->cap, &old[i].f) = old[i];
	free(old);
}

struct pin *pins_add(struct pins *p, const struct flow *f)
{
	struct pin *e = probe(p->slot, p->cap, f);

	if (e->f.svc >= 0)
		return e;
	if (2 * (p->n + 1) > p->cap) {
		grow(p);
		e = probe(p->slot, p->cap, f);
	}
	*e = (struct pin){ .f = *f, .state = PIN_PINNED };
	p->n++;
	return e;
}

static int backend(const struct topo *t, const char *s, int *link)
{
	struct addr a;
	uint16_t port;

	*link = 0;
	if (!strcmp(s, "-"))
		return 0;
	if (ep_parse(s, &a, &port) || !(*link = topo_backend_link(t, &a)))
		return -1;
	return 0;
}

/* One line's words; -1 if it is not a pin. */
static int parse_line(const struct topo *t, char **w, struct pin *e)
{
	struct addr vip;
	uint16_t port;
	const struct svc *s;
	int k;

	if (ep_parse(w[0], &vip, &port) || ep_parse(w[2], &e->f.src, &e->f.sport))
		return -1;
	s = topo_svc(t, &vip, port, strcmp(w[1], "udp") ? IPPROTO_TCP : IPPROTO_UDP);
	if (!s || s->fwd != FWD_TUNNEL || backend(t, w[3], &e->old) ||
	    backend(t, w[4], &e->now))
		return -1;
	e->f.svc = s - t->svcs;
	for (k = 0; k < (int)ARRAY_SIZE(state_names); k++)
		if (!strcmp(w[5], state_names[k]))
			e->state = k;
	return strcmp(w[5], state_names[e->state]) ? -1 : 0;
}

struct pins *pins_read(const struct topo *t, const char *path)
{
	struct pins *p = pins_new();
	char line[512], *w[8];
	struct flow *held = NULL;
	int nw, lineno = 0, n = 0;
	struct pin e, *q;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		nw = split_words(line, w, 7);
		if (!nw || w[0][0] == '#')
			continue;
		memset(&e, 0, sizeof(e));
		if (nw != 6 || parse_line(t, w, &e)) {
			fprintf(stderr, "%s:%d: not a pinned flow\n", path, lineno);
			fclose(f);
			pins_free(p);
			free(held);
			return NULL;
		}
		q = pins_add(p, &e.f);
		*q = e;
		if (e.state != PIN_PINNED) {
			held = realloc(held, (n + 1) * sizeof(*held));
			held[n++] = e.f;
		}
	}
	fclose(f);
	/* The table no longer grows: the pointers stay. */
	p->nheld = n;
	p->held = calloc(n ? n : 1, sizeof(*p->held));
	p->held_flows = held;
	for (lineno = 0; lineno < n; lineno++)
		p->held[lineno] = pins_find(p, &held[lineno]);
	return p;
}

int pins_write(const struct pins *p, const struct topo *t, const char *path)
{
	char v[INET6_ADDRSTRLEN + 8], s[INET6_ADDRSTRLEN + 8];
	char o[INET6_ADDRSTRLEN + 8], n[INET6_ADDRSTRLEN + 8], tmp[4096];
	FILE *f;
	size_t i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return -1;
	}
	/* The held ones first, in their order: inputs aimed at them pick by it. */
	for (i = 0; i < p->nheld + p->cap; i++) {
		const struct pin *e = i < (size_t)p->nheld ? p->held[i] : &p->slot[i - p->nheld];
		const struct svc *sv;

		if (e->f.svc < 0 || (i >= (size_t)p->nheld && e->state != PIN_PINNED))
			continue;
		sv = &t->svcs[e->f.svc];
		strcpy(o, "-");
		strcpy(n, "-");
		if (e->old)
			ep_str(sv->vip.family == AF_INET ? &t->links[e->old].b4 :
			       &t->links[e->old].b6, sv->bport, o, sizeof(o));
		if (e->now)
			ep_str(sv->vip.family == AF_INET ? &t->links[e->now].b4 :
			       &t->links[e->now].b6, sv->bport, n, sizeof(n));
		fprintf(f, "%s %s %s %s %s %s\n", ep_str(&sv->vip, sv->port, v, sizeof(v)),
			sv->proto == IPPROTO_TCP ? "tcp" : "udp",
			ep_str(&e->f.src, e->f.sport, s, sizeof(s)), o, n,
			state_names[e->state]);
	}
	if (fclose(f) || rename(tmp, path)) {
		perror(path);
		return -1;
	}
	return 0;
}

void pins_free(struct pins *p)
{
	if (!p)
		return;
	free(p->slot);
	free(p->held);
	free(p->held_flows);
	free(p);
}
