// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate compare: the ring, the slots, Maglev and hash mod N on
 * the same backends, the same change and the same sampled flows. The ring
 * and the slots are the kernel's code (as simulate builds them: the ring
 * here, the slots by simulate_slots.c); Maglev is Katran's table
 * (lib/maglev.c); hash mod N the bucket every scheme is measured against.
 */

#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "maglev.h"
#include "sim_report.h"

#define CTX "simulate"

/* Maglev's change: the fraction of table entries whose owner changed. */
static void maglev_moved(const struct maglev *a, const struct rs_member *ma,
			 const struct maglev *b, const struct rs_member *mb,
			 const struct rs_member *x, struct sim_place *pl)
{
	u32 i, moved = 0, coll = 0;

	for (i = 0; i < a->size; i++) {
		const struct rs_member *oa = &ma[a->owner[i]], *ob = &mb[b->owner[i]];

		if (!sim_find(oa, 1, ob))
			continue;
		moved++;
		coll += sim_find(oa, 1, x) && sim_find(ob, 1, x);
	}
	pl->moved = (double)moved / a->size;
	pl->collateral = (double)coll / a->size;
}

/* Samples @ta (and @tb after the change, if not NULL) into @pl. */
static int place_sample(const struct sim *s, struct sim_report *p,
			const struct sim_table *ta, const struct sim_table *tb,
			struct sim_place *pl)
{
	struct sim_sampled after;

	return sim_sample(ta, p->pos, s->samples, p->oa, &pl->smp) ?:
	       (tb ? sim_sample(tb, p->pos, s->samples, p->ob, &after) ?:
		     sim_sampled_diff(ta, p->oa, tb, p->ob, s->samples, &s->cm, &pl->sd,
				      NULL, NULL) : 0);
}

static int compare_ring(struct sim *s, struct sim_report *p, struct sim_place *pl)
{
	struct rs_ring *r = rs_ring_build(s->key, s->m, s->n, s->vnodes), *r2 = NULL;
	struct sim_table ta, tb;
	struct sim_diff d = { 0 };
	struct sim_stats st;
	double *share;
	int err;

	if (IS_ERR(r) && PTR_ERR(r) == -E2BIG)
		return cli_error(CTX ": compare: the ring of %u vnodes is over the %u point limit: give vnodes",
				 s->vnodes, RINGSTEER_MAX_POINTS);
	if (IS_ERR(r))
		return cli_error(CTX ": compare: the ring: %s", strerror(-PTR_ERR(r)));
	pl->name = "ring";
	pl->param = s->vnodes;
	pl->bytes = r->size;
	share = calloc(r->nmembers + 1, sizeof(*share));
	err = share ? sim_shares(r, share, &st) : -ENOMEM;
	pl->peak_mean = st.peak_mean;
	free(share);
	ta = (struct sim_table){ .ring = r, .members = r->members, .nmembers = r->nmembers };
	if (!err && s->change != CH_NONE) {
		r2 = s->change == CH_ADD ? rs_ring_add_member(r, &s->cm) :
		     s->change == CH_WEIGHT ?
		     rs_ring_set_weight(r, rs_ring_find_member(r, &s->cm), s->cm.weight) :
		     rs_ring_remove_member(r, rs_ring_find_member(r, &s->cm));
		err = IS_ERR(r2) ? PTR_ERR(r2) : sim_ring_diff(r, r2, &s->cm, &d);
		pl->moved = d.moved;
		pl->collateral = d.collateral;
	}
	if (!err) {
		tb = (struct sim_table){ .ring = r2, .members = r2 ? r2->members : NULL,
					 .nmembers = r2 ? r2->nmembers : 0 };
		err = place_sample(s, p, &ta, r2 ? &tb : NULL, pl);
	}
	rs_ring_free(r);
	if (r2 && !IS_ERR(r2))
		rs_ring_free(r2);
	return err ? cli_error(CTX ": compare: the ring: %s", strerror(-err)) : 0;
}

static int compare_slots(struct sim *s, struct sim_report *p, struct sim_place *pl)
{
	struct sim_slots *sl = &p->sl;
	struct sim_table ta = sim_slots_table(&sl->st), tb;
	const struct rs_ring *r = sl->st.ring;
	struct sim_stats st;
	int err;

	if (!sl->share) {
		sl->share = calloc(r->nmembers + 1, sizeof(double));
		if (!sl->share)
			return cli_error(CTX ": out of memory");
		sim_slots_rule_shares(sl->st.slots, r->nmembers, sl->share);
	}
	sim_slots_rule_stats(r, sl->share, &st);
	pl->name = "slots";
	pl->param = 1U << sl->st.slots->bits;
	pl->bytes = sl->st.slots->size + r->size;
	pl->peak_mean = fmax(st.peak_mean, sim_slots_peak_bound(sl->st.slots));
	err = s->change != CH_NONE ?
	      sim_slots_rule_diff(r, sl->st.slots, sl->st2.ring, sl->st2.slots, &s->cm,
				  &pl->moved, &pl->collateral, NULL, NULL) : 0;
	if (!err && s->change != CH_NONE) {
		tb = sim_slots_table(&sl->st2);
		err = place_sample(s, p, &ta, &tb, pl);
	} else if (!err) {
		err = place_sample(s, p, &ta, NULL, pl);
	}
	return err ? cli_error(CTX ": compare: the slots: %s", strerror(-err)) : 0;
}

static int compare_maglev(struct sim *s, struct sim_report *p, struct sim_place *pl)
{
	struct maglev a = { 0 }, b = { 0 };
	struct sim_table ta, tb;
	struct rs_key k;
	double *share;
	u32 i;
	int err;

	rs_key_init(&k, s->key);
	pl->name = "maglev";
	pl->param = SIM_MAGLEV_SIZE;
	err = maglev_build(&a, &k, s->m, s->n, SIM_MAGLEV_SIZE) ?:
	      (s->change != CH_NONE ?
	       maglev_build(&b, &k, s->after, s->nafter, SIM_MAGLEV_SIZE) : 0);
	share = calloc(s->n + 1, sizeof(*share));
	if (!err && !share)
		err = -ENOMEM;
	if (!err) {
		double w = sim_total_weight(s->m, s->n);

		pl->bytes = a.size * sizeof(*a.owner);
		maglev_shares(&a, share);
		for (i = 0; i < s->n; i++)
			pl->peak_mean = fmax(pl->peak_mean, share[i] / (s->m[i].weight / w));
		ta = (struct sim_table){ .maglev = &a, .members = s->m, .nmembers = s->n };
		tb = (struct sim_table){ .maglev = &b, .members = s->after,
					 .nmembers = s->nafter };
		if (s->change != CH_NONE)
			maglev_moved(&a, s->m, &b, s->after, &s->cm, pl);
		err = place_sample(s, p, &ta, s->change != CH_NONE ? &tb : NULL, pl);
	}
	free(share);
	maglev_free(&a);
	maglev_free(&b);
	return err ? cli_error(CTX ": compare: Maglev: %s", strerror(-err)) : 0;
}

/* "hash mod N": perfect balance, and almost every flow moves. */
static int compare_mod(struct sim *s, struct sim_report *p, struct sim_place *pl)
{
	struct sim_table ta = { .members = s->m, .nmembers = s->n };
	struct sim_table tb = { .members = s->after, .nmembers = s->nafter };
	u32 *a = sim_mod_buckets(s->m, s->n, &ta.nmod), *b = NULL;
	bool exact;
	int err;

	pl->name = "mod-n";
	pl->param = ta.nmod;
	pl->peak_mean = 1;	/* 2^64 mod N positions apart, of 2^64 */
	ta.mod = a;
	if (s->change != CH_NONE) {
		b = sim_mod_buckets(s->after, s->nafter, &tb.nmod);
		tb.mod = b;
		pl->moved = sim_mod_moved(s->m, s->n, s->after, s->nafter, MOD_MAX_PERIOD,
					  MOD_SAMPLES, &exact);
	}
	err = !a || (s->change != CH_NONE && !b) ? -ENOMEM :
	      place_sample(s, p, &ta, s->change != CH_NONE ? &tb : NULL, pl);
	free(a);
	free(b);
	return err ? cli_error(CTX ": compare: hash mod N: %s", strerror(-err)) : 0;
}

int sim_compare(struct sim *s, struct sim_report *p)
{
	if (sim_positions(s, p))
		return -ENOMEM;
	p->ncmp = 4;
	return compare_ring(s, p, &p->cmp[0]) ?: compare_slots(s, p, &p->cmp[1]) ?:
	       compare_maglev(s, p, &p->cmp[2]) ?: compare_mod(s, p, &p->cmp[3]);
}
