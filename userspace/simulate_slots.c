// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate, placement slots: the backends given become a slots
 * service, slots picked as "backend add" picks them, the change applied
 * as "plan" applies it (rc_change_apply()), and the table built by the
 * kernel's code (kmod/slots.c through rc_steer_build()). Shares and moves
 * are the rule's; the sampled flows check them, and count the collateral.
 *
 * And "compare": the ring, the slots, Maglev and hash mod N on the same
 * backends, the same change and the same sampled flows; and the words
 * that go with them, and "draining", checked after parsing.
 */

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>

#include "change.h"
#include "cli.h"
#include "settings.h"
#include "sim_report.h"

#define CTX "simulate"

/*
 * The draining backends, spread evenly over the order given (every fifth
 * for a fifth), and the active ones into s->m: what the ring holds.
 */
int sim_split_draining(struct sim *s)
{
	char buf[RC_ENDPOINT_LEN];
	u32 i;

	if (s->ndraining >= s->nall)
		return cli_error(CTX ": draining %u of %u backends leaves none active",
				 s->ndraining, s->nall);
	s->draining = calloc(s->nall, sizeof(*s->draining));
	s->m = calloc(s->nall, sizeof(*s->m));
	if (!s->draining || !s->m)
		return cli_error(CTX ": out of memory");
	for (i = 0; i < s->nall; i++) {
		s->draining[i] = (u64)(i + 1) * s->ndraining / s->nall !=
				 (u64)i * s->ndraining / s->nall;
		if (!s->draining[i])
			s->m[s->n++] = s->all[i];
	}
	/* A change names an active backend (or a new one). */
	i = s->change == CH_NONE ? 0 : sim_find(s->all, s->nall, &s->cm);
	if (s->change != CH_NONE && (int)i >= 0 && s->draining[i]) {
		sim_member_format(buf, &s->cm);
		return cli_error(CTX ": %s is draining: change an active backend", buf);
	}
	return 0;
}

/* What goes with what: errors before any output. */
int sim_check_words(struct sim *s)
{
	bool slots = s->placement == RINGSTEER_PLACEMENT_SLOTS;

	if (s->capacity_given && !slots && !s->compare)
		return cli_error(CTX ": capacity applies to placement slots (or compare) only");
	u32 i, v;

	if (slots && s->need > 0)
		return cli_error(CTX ": need-vnodes applies to placement ring (slots have no vnodes)");
	for (i = 0; i < s->nsweep; i++) {
		v = s->sweep_v[i];
		if (!slots && v > RINGSTEER_MAX_VNODES)
			return cli_error(CTX ": sweep vnodes %u out of range (1..%u)", v,
					 RINGSTEER_MAX_VNODES);
		if (slots && (v < RINGSTEER_MIN_CAPACITY || (v & (v - 1))))
			return cli_error(CTX ": sweep capacity %u is not a power of two, 2..65536", v);
	}
	if (s->samples && !slots && !s->compare)
		return cli_error(CTX ": samples apply to placement slots and compare");
	if (!s->samples)
		s->samples = SIM_SAMPLES_DEFAULT;
	return 0;
}

static struct rc_endpoint member_ep(const struct rs_member *m)
{
	struct rc_endpoint e = { .family = m->family, .port = ntohs(m->port) };

	memcpy(e.addr, m->addr, sizeof(e.addr));
	return e;
}

/* Each backend given, in order, takes the lowest free slots. */
static int build_service(const struct sim *s, struct rc_service *svc)
{
	struct rc_backend b;
	uint16_t *pick;
	u32 i;
	int err;

	memset(svc, 0, sizeof(*svc));
	svc->vip.family = AF_INET;
	svc->proto = IPPROTO_TCP;
	rc_setting_put(&rc_settings[RC_SET_HASH], svc, s->mode);
	rc_setting_put(&rc_settings[RC_SET_PLACEMENT], svc, RINGSTEER_PLACEMENT_SLOTS);
	rc_setting_put(&rc_settings[RC_SET_CAPACITY], svc, s->capacity);
	for (i = 0; i < s->nall; i++) {
		memset(&b, 0, sizeof(b));
		b.ep = member_ep(&s->all[i]);
		b.weight = s->all[i].weight;
		b.state = s->draining[i] ? RINGSTEER_STATE_DRAINING : RINGSTEER_STATE_ACTIVE;
		b.has = RC_HAS_WEIGHT | RC_HAS_STATE;
		pick = malloc(b.weight * sizeof(*pick));
		err = pick ? rc_service_free_slots(svc, b.weight, pick) : -ENOMEM;
		if (err == -ENOSPC) {
			free(pick);
			return cli_error(CTX ": capacity %u holds fewer slots than the weights (%llu): give capacity N, a power of two",
					 s->capacity,
					 (unsigned long long)sim_total_weight(s->all, s->nall));
		}
		b.slots = pick;
		b.nslots = (uint16_t)b.weight;
		if (err || !rc_service_add_backend(svc, &b)) {
			free(pick);
			return cli_error(CTX ": out of memory");
		}
		free(pick);
	}
	return 0;
}

/* The change as the request "plan" would make of its command line. */
static int change_service(const struct sim *s, struct sim_slots *sl)
{
	static const enum rc_preview_op ops[] = {
		[CH_ADD] = RC_PREVIEW_BACKEND_ADD, [CH_REMOVE] = RC_PREVIEW_BACKEND_DEL,
		[CH_DRAIN] = RC_PREVIEW_BACKEND_DRAIN, [CH_WEIGHT] = RC_PREVIEW_BACKEND_SET,
	};
	struct rc_preview_req r;

	memset(&r, 0, sizeof(r));
	r.op = ops[s->change];
	r.b.ep = member_ep(&s->cm);
	r.what = sim_change_names[s->change];
	if (s->change == CH_ADD || s->change == CH_WEIGHT) {
		r.b.weight = s->cm.weight;
		r.b.has = RC_HAS_WEIGHT;
	}
	return rc_change_apply(CTX, &r, &sl->svc, &sl->svc2);
}

static int steer(const struct sim *s, const struct rc_service *svc, struct rc_steer *st)
{
	int err = rc_steer_build(s->key, svc, st);

	if (err)
		return cli_error(CTX ": cannot build the slots table: %s", strerror(-err));
	return 0;
}

int sim_slots_build(struct sim *s, struct sim_report *p)
{
	struct sim_slots *sl = &p->sl;
	u32 i;
	int err;

	err = build_service(s, &sl->svc) ?:
	      (s->change != CH_NONE ? change_service(s, sl) : 0) ?:
	      steer(s, &sl->svc, &sl->st) ?:
	      (s->change != CH_NONE ? steer(s, &sl->svc2, &sl->st2) : 0);
	for (i = 0; !err && i < sl->svc.nb; i++)
		sl->held += sl->svc.b[i].nslots;
	return err;
}

int sim_positions(const struct sim *s, struct sim_report *p)
{
	struct rs_key k;

	if (p->pos)
		return 0;
	rs_key_init(&k, s->key);
	p->pos = sim_sample_positions(&k, s->samples);
	p->oa = malloc(s->samples * sizeof(*p->oa));
	p->ob = malloc(s->samples * sizeof(*p->ob));
	return p->pos && p->oa && p->ob ? 0 : cli_error(CTX ": out of memory");
}

static struct sim_table slots_table(const struct rc_steer *st)
{
	return (struct sim_table){ .ring = st->ring, .slots = st->slots,
				   .members = st->ring->members,
				   .nmembers = st->ring->nmembers };
}

/* Shares by rule against the weights, as sim_shares() does for arcs. */
static void rule_stats(const struct rs_ring *r, const double *share, struct sim_stats *st)
{
	double w = sim_total_weight(r->members, r->nmembers), sq = 0, ratio;
	u32 i;

	st->min_ratio = INFINITY;
	st->max_ratio = 0;
	for (i = 0; i < r->nmembers; i++) {
		ratio = share[i] / (r->members[i].weight / w);
		st->min_ratio = fmin(st->min_ratio, ratio);
		st->max_ratio = fmax(st->max_ratio, ratio);
		sq += (ratio - 1) * (ratio - 1);
	}
	st->peak_mean = st->max_ratio;
	st->max_min = st->min_ratio > 0 ? st->max_ratio / st->min_ratio : INFINITY;
	st->stddev = r->nmembers ? sqrt(sq / r->nmembers) : 0;
}

static int slots_change(const struct sim *s, struct sim_report *p)
{
	struct sim_slots *sl = &p->sl;
	struct sim_table ta = slots_table(&sl->st), tb = slots_table(&sl->st2);
	int err;

	if (!sl->st2.slots->live)
		return cli_error(CTX ": the change leaves no live slot");
	sl->from = calloc(ta.nmembers + 1, sizeof(double));
	sl->to = calloc(tb.nmembers + 1, sizeof(double));
	if (!sl->from || !sl->to)
		return cli_error(CTX ": out of memory");
	err = sim_slots_rule_diff(sl->st.ring, sl->st.slots, sl->st2.ring, sl->st2.slots,
				  &s->cm, &sl->moved, &sl->collateral, NULL, NULL) ?:
	      sim_sample(&tb, p->pos, s->samples, p->ob, &sl->smp2) ?:
	      sim_sampled_diff(&ta, p->oa, &tb, p->ob, s->samples, &s->cm, &sl->sd,
			       sl->from, sl->to);
	if (err)
		return cli_error(CTX ": %s", strerror(-err));
	return 0;
}

/* "hash mod N" over the active backends: sampled, the flows' own floor. */
static int sample_mod(const struct sim *s, struct sim_report *p, struct sim_sampled *st)
{
	struct sim_table t = { .members = s->m, .nmembers = s->n };
	u32 *b = sim_mod_buckets(s->m, s->n, &t.nmod);
	int err;

	t.mod = b;
	err = b ? sim_sample(&t, p->pos, s->samples, NULL, st) : -ENOMEM;
	free(b);
	return err;
}

int sim_slots_compute(struct sim *s, struct sim_report *p)
{
	struct sim_slots *sl = &p->sl;
	const struct rs_ring *r = sl->st.ring;
	struct sim_table t = slots_table(&sl->st);
	u32 i;
	int err;

	if (!sl->st.slots->live)
		return cli_error(CTX ": no active backend: no live slot");
	sl->share = calloc(r->nmembers + 1, sizeof(double));
	sl->count = calloc(r->nmembers + 1, sizeof(u32));
	if (!sl->share || !sl->count || sim_positions(s, p))
		return cli_error(CTX ": out of memory");
	sim_slots_rule_shares(sl->st.slots, r->nmembers, sl->share);
	rule_stats(r, sl->share, &sl->rule);
	sl->scan = sim_slots_scan_bound(sl->st.slots);
	sl->peak_bound = fmax(sl->rule.peak_mean, sim_slots_peak_bound(sl->st.slots));
	err = sim_sample(&t, p->pos, s->samples, p->oa, &sl->smp) ?:
	      sample_mod(s, p, &sl->mod);
	if (err)
		return cli_error(CTX ": out of memory");
	for (i = 0; i < s->samples; i++)
		if (p->oa[i] >= 0)
			sl->count[p->oa[i]]++;
	return s->change != CH_NONE ? slots_change(s, p) : 0;
}

void sim_slots_free(struct sim_report *p)
{
	struct sim_slots *sl = &p->sl;

	rc_steer_free(&sl->st);
	rc_steer_free(&sl->st2);
	rc_service_free(&sl->svc);
	rc_service_free(&sl->svc2);
	free(sl->share);
	free(sl->count);
	free(sl->from);
	free(sl->to);
	free(p->pos);
	free(p->oa);
	free(p->ob);
}

/* The capacities a slots sweep takes by default: from the slots held up. */
static void default_capacities(struct sim *s)
{
	u64 held = sim_total_weight(s->all, s->nall);
	u32 c;

	s->nsweep = 0;
	for (c = RINGSTEER_MIN_CAPACITY; c && c <= RINGSTEER_MAX_CAPACITY; c *= 2)
		if (c >= held && s->nsweep < MAX_SWEEP)
			s->sweep_v[s->nsweep++] = c;
}

/* The service again at capacity @row->capacity, on the same flows. */
static int sweep_row(const struct sim *s, struct sim_report *p, struct sim_cap_row *row)
{
	struct sim t = *s;
	struct sim_report q;
	int err;

	memset(&q, 0, sizeof(q));
	t.capacity = row->capacity;
	q.slots = true;
	/* The positions and owners' room are the report's, lent. */
	q.pos = p->pos;
	q.oa = p->oa;
	q.ob = p->ob;
	err = sim_slots_build(&t, &q) ?: sim_slots_compute(&t, &q);
	if (!err) {
		row->live = q.sl.st.slots->live;
		row->bytes = q.sl.st.slots->size + q.sl.st.ring->size;
		row->scan = q.sl.scan;
		row->peak_bound = q.sl.peak_bound;
		row->smp = q.sl.smp;
		row->moved = q.sl.moved;
		row->sd = q.sl.sd;
	}
	q.pos = NULL;
	q.oa = q.ob = NULL;
	sim_slots_free(&q);
	return err;
}

int sim_slots_sweep(struct sim *s, struct sim_report *p)
{
	u32 i;
	int err;

	if (!s->nsweep)
		default_capacities(s);
	for (i = 0; i < s->nsweep; i++) {
		p->caps[i].capacity = s->sweep_v[i];
		err = sweep_row(s, p, &p->caps[i]);
		if (err)
			return err;
		p->ncaps++;
	}
	return 0;
}

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
	struct sim_table ta = slots_table(&sl->st), tb;
	const struct rs_ring *r = sl->st.ring;
	struct sim_stats st;
	int err;

	if (!sl->share) {
		sl->share = calloc(r->nmembers + 1, sizeof(double));
		if (!sl->share)
			return cli_error(CTX ": out of memory");
		sim_slots_rule_shares(sl->st.slots, r->nmembers, sl->share);
	}
	rule_stats(r, sl->share, &st);
	pl->name = "slots";
	pl->param = 1U << sl->st.slots->bits;
	pl->bytes = sl->st.slots->size + r->size;
	pl->peak_mean = fmax(st.peak_mean, sim_slots_peak_bound(sl->st.slots));
	err = s->change != CH_NONE ?
	      sim_slots_rule_diff(r, sl->st.slots, sl->st2.ring, sl->st2.slots, &s->cm,
				  &pl->moved, &pl->collateral, NULL, NULL) : 0;
	if (!err && s->change != CH_NONE) {
		tb = slots_table(&sl->st2);
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
