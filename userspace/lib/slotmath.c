// SPDX-License-Identifier: GPL-2.0
/* Slots tables by rule, and any placement by sampled flows; see slotmath.h. */

#include <math.h>
#include <stdlib.h>

#include "ringmath.h"
#include "slotmath.h"

u64 *sim_sample_positions(const struct rs_key *key, u32 n)
{
	u64 *pos = malloc((n ? n : 1) * sizeof(*pos));
	u8 le[8];
	u32 i, k;

	if (!pos)
		return NULL;
	for (i = 0; i < n; i++) {
		for (k = 0; k < 8; k++)
			le[k] = (u8)((u64)i >> (8 * k));
		pos[i] = rs_siphash(le, sizeof(le), key);
	}
	return pos;
}

int sim_table_lookup(const struct sim_table *t, u64 pos, u32 *probes)
{
	int slot;

	*probes = 1;
	if (t->mod)
		return (int)t->mod[pos % t->nmod];
	if (t->maglev)
		return (int)maglev_lookup(t->maglev, pos);
	if (!t->slots)
		return rs_ring_lookup(t->ring, pos);
	slot = rs_slots_find(t->slots, pos, probes);
	return slot < 0 ? slot : t->slots->owner[slot];
}

u32 *sim_mod_buckets(const struct rs_member *m, u32 n, u32 *nbuckets)
{
	u32 *b = malloc((sim_total_weight(m, n) ?: 1) * sizeof(*b)), i, k;

	*nbuckets = 0;
	for (i = 0; b && i < n; i++)
		for (k = 0; k < m[i].weight; k++)
			b[(*nbuckets)++] = i;
	return b;
}

/* The expected largest of @n standard normal draws (Gumbel's approximation). */
static double largest_normal(u32 n)
{
	double l = n > 2 ? sqrt(2 * log(n)) : 1;

	return n > 2 ? l - (log(log(n)) + log(4 * M_PI)) / (2 * l) : 0.6;
}

static void count_stats(const struct sim_table *t, const u32 *count,
			struct sim_sampled *st)
{
	u64 w = 0, owned = st->flows - st->unowned;
	double ratio;
	u32 i;

	/* A member whose slots are all drained is expected to get nothing. */
	for (i = 0; i < t->nmembers; i++)
		w += t->members[i].weight;
	st->peak_mean = 0;
	st->min_ratio = INFINITY;
	for (i = 0; i < t->nmembers && owned; i++) {
		ratio = count[i] / ((double)owned * t->members[i].weight / w);
		if (ratio > st->peak_mean)
			st->peak_mean = ratio;
		if (ratio < st->min_ratio)
			st->min_ratio = ratio;
	}
	st->members = t->nmembers;
	st->floor = 1 + 3 * sqrt((double)st->members / (st->flows ? st->flows : 1));
	st->perfect = 1 + largest_normal(st->members) *
			  sqrt((double)st->members / (st->flows ? st->flows : 1));
}

int sim_sample(const struct sim_table *t, const u64 *pos, u32 n,
	       int *owner, struct sim_sampled *st)
{
	u32 *count = calloc(t->nmembers ? t->nmembers : 1, sizeof(*count));
	u64 probes = 0;
	u32 i, p;
	int o;

	if (!count)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	st->flows = n;
	for (i = 0; i < n; i++) {
		o = sim_table_lookup(t, pos[i], &p);
		if (owner)
			owner[i] = o < 0 ? -1 : o;
		probes += p;
		if (p > st->probes_max)
			st->probes_max = p;
		st->scans += p > RS_SLOTS_PROBES;
		if (o < 0)
			st->unowned++;
		else
			count[o]++;
	}
	st->probes_mean = n ? (double)probes / n : 0;
	count_stats(t, count, st);
	free(count);
	return 0;
}

/* @a's member index -> @b's with the same identity, or -1. */
static int *member_map(const struct sim_table *a, const struct sim_table *b)
{
	int *map = malloc((a->nmembers ? a->nmembers : 1) * sizeof(*map));
	u32 i;

	for (i = 0; map && i < a->nmembers; i++)
		map[i] = sim_find(b->members, b->nmembers, &a->members[i]);
	return map;
}

int sim_sampled_diff(const struct sim_table *ta, const int *oa,
		     const struct sim_table *tb, const int *ob, u32 n,
		     const struct rs_member *x, struct sim_sampled_diff *d,
		     double *from, double *to)
{
	int *map = member_map(ta, tb);
	int xa = x ? sim_find(ta->members, ta->nmembers, x) : -1;
	int xb = x ? sim_find(tb->members, tb->nmembers, x) : -1;
	u32 i;

	if (!map)
		return -ENOMEM;
	memset(d, 0, sizeof(*d));
	d->flows = n;
	for (i = 0; from && i < ta->nmembers; i++)
		from[i] = 0;
	for (i = 0; to && i < tb->nmembers; i++)
		to[i] = 0;
	for (i = 0; i < n; i++) {
		bool moved = oa[i] < 0 ? ob[i] >= 0 :
			     ob[i] < 0 || map[oa[i]] != ob[i];

		if (!moved)
			continue;
		d->moved++;
		if (from && oa[i] >= 0)
			from[oa[i]] += 1.0 / n;
		if (to && ob[i] >= 0)
			to[ob[i]] += 1.0 / n;
		if (x && oa[i] != xa && ob[i] != xb)
			d->collateral++;
	}
	free(map);
	return 0;
}

static bool live(const struct rs_slots *t, u32 slot)
{
	return t->map[slot / 64] & (1ULL << (slot % 64));
}

void sim_slots_rule_shares(const struct rs_slots *t, u32 nmembers, double *share)
{
	u32 i, cap = 1U << t->bits;

	for (i = 0; i < nmembers; i++)
		share[i] = 0;
	for (i = 0; i < cap && t->live; i++)
		if (live(t, i))
			share[t->owner[i]] += 1.0 / t->live;
}

double sim_slots_scan_bound(const struct rs_slots *t)
{
	return pow(1.0 - (double)t->live / (1U << t->bits), RS_SLOTS_PROBES);
}

double sim_slots_peak_bound(const struct rs_slots *t)
{
	return 1 + t->live * sim_slots_scan_bound(t);
}

/* Live slots each member holds in @t (@n[nmembers]). */
static u32 *held(const struct rs_slots *t, u32 nmembers)
{
	u32 *n = calloc(nmembers ? nmembers : 1, sizeof(*n)), i;

	for (i = 0; n && i < (1U << t->bits); i++)
		if (live(t, i))
			n[t->owner[i]]++;
	return n;
}

struct rule_walk {
	const struct rs_ring *ra, *rb;
	const struct rs_slots *a, *b;
	int *map;		/* a's member -> b's, or -1 */
	int xa, xb;
	u32 *na, *nb;		/* live slots held, by member */
	double moved, collateral, *from, *to;
};

static void rule_account(struct rule_walk *w, double p, int ma, int mb)
{
	w->moved += p;
	if (w->from)
		w->from[ma] += p;
	if (w->to)
		w->to[mb] += p;
	if (ma != w->xa && mb != w->xb)
		w->collateral += p;
}

/* Slot @s is the first live slot of A union B (weight 1/|U| each). */
static void rule_slot(struct rule_walk *w, u32 s, double u)
{
	bool in_a = live(w->a, s), in_b = live(w->b, s);
	int ma = in_a ? w->a->owner[s] : -1, mb = in_b ? w->b->owner[s] : -1;
	u32 k;

	if (in_a && in_b) {
		if (w->map[ma] != mb)
			rule_account(w, u, ma, mb);
	} else if (in_a) {
		/* The flow's owner in B is uniform over B's live slots. */
		for (k = 0; k < w->rb->nmembers; k++)
			if (w->nb[k] && (int)k != w->map[ma])
				rule_account(w, u * w->nb[k] / w->b->live, ma, k);
	} else if (in_b) {
		for (k = 0; k < w->ra->nmembers; k++)
			if (w->na[k] && w->map[k] != mb)
				rule_account(w, u * w->na[k] / w->a->live, k, mb);
	}
}

int sim_slots_rule_diff(const struct rs_ring *ra, const struct rs_slots *a,
			const struct rs_ring *rb, const struct rs_slots *b,
			const struct rs_member *x, double *moved,
			double *collateral, double *from, double *to)
{
	struct rule_walk w = { .ra = ra, .rb = rb, .a = a, .b = b,
			       .from = from, .to = to };
	u32 i, u = 0, cap = 1U << a->bits;
	int err = -ENOMEM;

	if (a->bits != b->bits)
		return -EINVAL;
	for (i = 0; from && i < ra->nmembers; i++)
		from[i] = 0;
	for (i = 0; to && i < rb->nmembers; i++)
		to[i] = 0;
	*moved = *collateral = 0;
	if (!a->live || !b->live) {
		/* To or from no live slot: every flow changes, none collateral. */
		*moved = a->live || b->live;
		return 0;
	}
	w.map = malloc((ra->nmembers ? ra->nmembers : 1) * sizeof(*w.map));
	w.na = held(a, ra->nmembers);
	w.nb = held(b, rb->nmembers);
	if (!w.map || !w.na || !w.nb)
		goto out;
	for (i = 0; i < ra->nmembers; i++)
		w.map[i] = rs_ring_find_member(rb, &ra->members[i]);
	w.xa = x ? rs_ring_find_member(ra, x) : -1;
	w.xb = x ? rs_ring_find_member(rb, x) : -1;
	if (w.xa < 0)
		w.xa = -1;
	if (w.xb < 0)
		w.xb = -1;
	for (i = 0; i < cap; i++)
		u += live(a, i) || live(b, i);
	for (i = 0; i < cap; i++)
		rule_slot(&w, i, 1.0 / u);
	*moved = w.moved;
	*collateral = x ? w.collateral : 0;
	err = 0;
out:
	free(w.map);
	free(w.na);
	free(w.nb);
	return err;
}
