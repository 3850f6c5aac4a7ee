// SPDX-License-Identifier: GPL-2.0
/* Exact arithmetic on rings for "ringctl simulate"; see ringmath.h. */

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>

#include "endpoint.h"
#include "ringmath.h"

typedef unsigned __int128 u128;

#define TWO64 18446744073709551616.0

/* The endpoint format of the rest of ringctl (endpoint.c). */
void sim_endpoint_format(char buf[RC_ENDPOINT_LEN], u8 family, const u8 addr[16],
			 __be16 port)
{
	struct rc_endpoint ep = { .family = family, .port = ntohs(port) };

	memcpy(ep.addr, addr, sizeof(ep.addr));
	rc_endpoint_format(buf, &ep);
}

void sim_member_format(char buf[RC_ENDPOINT_LEN], const struct rs_member *m)
{
	sim_endpoint_format(buf, m->family, m->addr, m->port);
}

const char *sim_proto_name(u8 proto, char buf[8])
{
	if (proto == IPPROTO_TCP)
		return "tcp";
	if (proto == IPPROTO_UDP)
		return "udp";
	if (proto == IPPROTO_SCTP)
		return "sctp";
	snprintf(buf, 8, "%u", proto);
	return buf;
}

void sim_flow_format(struct sim_flow_text *t, const struct rs_flow *f)
{
	sim_endpoint_format(t->src, f->family, f->saddr, f->sport);
	sim_endpoint_format(t->dst, f->family, f->daddr, f->dport);
	t->proto = sim_proto_name(f->proto, t->proto_buf);
}

int sim_shares(const struct rs_ring *r, double *share, struct sim_stats *st)
{
	u64 *arcs = calloc(r->nmembers + 1, sizeof(u64));
	double wsum = 0, sq = 0;
	u32 i;

	if (!arcs)
		return -ENOMEM;
	if (rs_ring_arcs(r, arcs)) {
		free(arcs);
		return -ENOENT;
	}
	for (i = 0; i < r->nmembers; i++)
		wsum += r->members[i].weight;
	st->min_ratio = INFINITY;
	st->max_ratio = 0;
	for (i = 0; i < r->nmembers; i++) {
		double ratio;

		/* U64_MAX stands for the whole space (see rs_ring_arcs()). */
		share[i] = arcs[i] == U64_MAX ? 1.0 : arcs[i] / TWO64;
		ratio = share[i] / (r->members[i].weight / wsum);
		if (ratio < st->min_ratio)
			st->min_ratio = ratio;
		if (ratio > st->max_ratio)
			st->max_ratio = ratio;
		sq += (ratio - 1) * (ratio - 1);
	}
	st->peak_mean = st->max_ratio;
	st->max_min = st->min_ratio > 0 ? st->max_ratio / st->min_ratio :
					  INFINITY;
	st->stddev = sqrt(sq / r->nmembers);
	free(arcs);
	return 0;
}

struct walk {
	const int *map;		/* a's member index -> b's, or -1 */
	int xa, xb;		/* the changed member in a and b, or -1 */
	u128 moved, collateral;
	u128 *from, *to;
};

static void account(struct walk *w, u128 len, u16 oa, u16 ob)
{
	if (w->map[oa] == ob)
		return;
	w->moved += len;
	w->from[oa] += len;
	w->to[ob] += len;
	if (oa != w->xa && ob != w->xb)
		w->collateral += len;
}

static int find_or_none(const struct rs_ring *r, const struct rs_member *x)
{
	int i = x ? rs_ring_find_member(r, x) : -1;

	return i < 0 ? -1 : i;
}

/* Both rings' points in order: each interval to its owners in A and B. */
static void walk_rings(const struct rs_ring *a, const struct rs_ring *b, struct walk *w)
{
	u32 i = 0, j = 0, na = a->npoints, nb = b->npoints;
	u64 q, first = 0, prev = 0;
	u16 foa = 0, fob = 0;
	bool started = false;

	/* Interval (previous position, q] belongs to the first point >= q. */
	while (i < na || j < nb) {
		if (j >= nb || (i < na && a->pos[i] <= b->pos[j]))
			q = a->pos[i];
		else
			q = b->pos[j];
		if (!started) {
			first = q;
			foa = a->owner[i < na ? i : 0];
			fob = b->owner[j < nb ? j : 0];
			started = true;
		} else {
			account(w, q - prev, a->owner[i < na ? i : 0],
				b->owner[j < nb ? j : 0]);
		}
		prev = q;
		while (i < na && a->pos[i] == q)
			i++;
		while (j < nb && b->pos[j] == q)
			j++;
	}
	/* Above the last position and up to the first: the first points. */
	account(w, ((u128)1 << 64) - prev + first, foa, fob);
}

int sim_ring_diff(const struct rs_ring *a, const struct rs_ring *b,
	    const struct rs_member *x, struct sim_diff *d)
{
	struct walk w = { 0 };
	int *map;
	u32 k;

	if (!a->npoints || !b->npoints)
		return -ENOENT;
	map = calloc(a->nmembers, sizeof(*map));
	w.from = calloc(a->nmembers, sizeof(u128));
	w.to = calloc(b->nmembers, sizeof(u128));
	if (!map || !w.from || !w.to) {
		free(map);
		free(w.from);
		free(w.to);
		return -ENOMEM;
	}
	for (k = 0; k < a->nmembers; k++)
		map[k] = find_or_none(b, &a->members[k]);
	w.map = map;
	w.xa = find_or_none(a, x);
	w.xb = find_or_none(b, x);

	walk_rings(a, b, &w);
	d->moved = (double)w.moved / TWO64;
	d->collateral = (double)w.collateral / TWO64;
	d->collateral_exact = w.collateral > U64_MAX ? U64_MAX :
						       (u64)w.collateral;
	for (k = 0; d->from && k < a->nmembers; k++)
		d->from[k] = (double)w.from[k] / TWO64;
	for (k = 0; d->to && k < b->nmembers; k++)
		d->to[k] = (double)w.to[k] / TWO64;
	free(map);
	free(w.from);
	free(w.to);
	return 0;
}

/* Slot i of "hash mod N": members repeated weight times, as numbers. */
static u32 *slots(const struct rs_member *m, u32 n, const struct rs_member *ref,
		  u32 nref, u32 *nslots)
{
	u32 i, k, s = 0, total = 0, id;
	u32 *out;

	for (i = 0; i < n; i++)
		total += m[i].weight;
	out = malloc((total ? total : 1) * sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		/* Number identities by their place in @ref, else past it. */
		for (id = 0; id < nref; id++)
			if (m[i].family == ref[id].family &&
			    m[i].port == ref[id].port &&
			    !memcmp(m[i].addr, ref[id].addr, 16))
				break;
		if (id == nref)
			id = nref + i;
		for (k = 0; k < m[i].weight; k++)
			out[s++] = id;
	}
	*nslots = total;
	return out;
}

unsigned long long sim_gcd(unsigned long long a, unsigned long long b)
{
	while (b) {
		unsigned long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

double sim_mod_moved(const struct rs_member *a, u32 na,
		    const struct rs_member *b, u32 nb,
		    unsigned long long max_period, u32 samples, bool *exact)
{
	u32 *sa, *sb, la, lb, ra, rb;
	unsigned long long g, period, diff = 0, i;
	double res = NAN;
	u64 seed = 0x5eed;

	sa = slots(a, na, a, na, &la);
	sb = slots(b, nb, a, na, &lb);
	if (!sa || !sb || !la || !lb)
		goto out;
	g = sim_gcd(la, lb);
	period = (unsigned long long)la / g * lb;
	*exact = period <= max_period;
	if (*exact) {
		/*
		 * Over one period h -> (h mod la, h mod lb) takes every pair
		 * with ra = rb (mod g) exactly once (Chinese remainders).
		 */
		for (ra = 0; ra < la; ra++)
			for (rb = ra % g; rb < lb; rb += g)
				diff += sa[ra] != sb[rb];
		res = (double)diff / period;
	} else {
		for (i = 0; i < samples; i++) {
			u64 z = (seed += 0x9e3779b97f4a7c15ULL);

			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
			z ^= z >> 31;
			diff += sa[z % la] != sb[z % lb];
		}
		res = (double)diff / samples;
	}
out:
	free(sa);
	free(sb);
	return res;
}

const char *const sim_change_names[] = {
	"none", "add", "remove", "drain", "weight",
};

int sim_find(const struct rs_member *m, u32 n, const struct rs_member *x)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (m[i].family == x->family && m[i].port == x->port &&
		    !memcmp(m[i].addr, x->addr, 16))
			return i;
	return -1;
}

u64 sim_total_weight(const struct rs_member *m, u32 n)
{
	u64 w = 0;
	u32 i;

	for (i = 0; i < n; i++)
		w += m[i].weight;
	return w;
}
