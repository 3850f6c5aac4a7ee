// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate, placement slots: the backends given become a slots
 * service, slots picked as "backend add" picks them, the change applied
 * as "plan" applies it (rc_change_apply()), and the table built by the
 * kernel's code (kmod/slots.c through rc_steer_build()). Shares and moves
 * are the rule's; the sampled flows check them, and count the collateral.
 *
 * And the words that go with them, and "draining", checked after
 * parsing. "compare" is simulate_compare.c.
 */

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>

#include "change.h"
#include "cli.h"
#include "parse.h"
#include "settings.h"
#include "sim_report.h"

#define CTX "simulate"

/*
 * The draining backends, spread evenly over the order given: of N, with
 * COUNT draining, the i-th (from 0) drains when floor((i + 1) COUNT / N)
 * != floor(i COUNT / N), every fifth for a fifth (the 5th, 10th, ...);
 * and the active ones into s->m: what the ring holds.
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
		/* A file's states, or COUNT spread over the order given. */
		s->draining[i] = s->off ? s->off[i] :
				 (u64)(i + 1) * s->ndraining / s->nall !=
				 (u64)i * s->ndraining / s->nall;
		if (!s->draining[i])
			s->m[s->n++] = s->all[i];
	}
	/*
	 * A change names an active backend (or a new one): a draining one owns
	 * no flows, so its weight, drain or removal moves none to simulate.
	 */
	i = s->change == CH_NONE ? 0 : sim_find(s->all, s->nall, &s->cm);
	if (s->change != CH_NONE && (int)i >= 0 && s->draining[i]) {
		sim_member_format(buf, &s->cm);
		return cli_error(CTX ": %s is draining: its weight cannot be changed here, nor can it be drained or removed (it owns no flows, so nothing would move); name an active backend",
				 buf);
	}
	return 0;
}

/* What goes with what: errors before any output. */
int sim_check_words(struct sim *s)
{
	bool slots = s->placement == RINGSTEER_PLACEMENT_SLOTS, given;
	u32 i, v;

	if (s->capacity_given && !slots && !s->compare)
		return cli_error(CTX ": capacity applies to placement slots (or compare) only");
	given = s->cm_given.n;
	for (i = 0; i < s->nall; i++)
		given |= s->given[i].n;
	if (given && !slots && !s->compare)
		return cli_error(CTX ": slots apply to placement slots (or compare) only");

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

static int bad(const char *what, const char *arg, int err)
{
	parse_bad_value(CTX, what, arg, err, "try 'ringctl simulate help'");
	return err ? err : -EINVAL;
}

/* The words of placement slots (and of draining and sampling). */
int sim_kw_placement(struct sim *s, int argc, char **argv)
{
	uint32_t v;

	if (argc < 2 || rc_enum_parse(&rc_enum_placement, argv[1], &v))
		return bad("placement (ring or slots)", argv[1], -EINVAL);
	s->placement = v;
	s->set |= SIM_SET_PLACEMENT;
	return 2;
}

int sim_kw_capacity(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_u32(argv[1], RINGSTEER_MIN_CAPACITY,
						 RINGSTEER_MAX_CAPACITY, &s->capacity);

	if (!err && (s->capacity & (s->capacity - 1)))
		err = -EINVAL;
	if (err)
		return bad("capacity (a power of two, 2..65536)", argv[1], err);
	s->capacity_given = true;
	return 2;
}

int sim_kw_draining(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_u32(argv[1], 0, RINGSTEER_MAX_BACKENDS,
						 &s->ndraining);

	return err ? bad("draining count", argv[1], err) : 2;
}

int sim_kw_samples(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_u32(argv[1], 1, SIM_SAMPLES_MAX, &s->samples);

	return err ? bad("samples (1..16000000)", argv[1], err) : 2;
}

/*
 * "slots N[,N...]" for the backend or the change just named: their count
 * is the weight, as for "backend add ... slots". Whether they fit the
 * capacity and each other is checked when the service is built.
 */
int sim_kw_slots(struct sim *s, int argc, char **argv)
{
	struct sim_given *g = s->slots_for >= 0 ? &s->given[s->slots_for] :
			      s->slots_for == SIM_SLOTS_CHANGE ? &s->cm_given : NULL;
	struct rs_member *m = s->slots_for >= 0 ? &s->all[s->slots_for] : &s->cm;
	int err;

	if (!g)
		return cli_error(CTX ": slots follow 'backend ADDR:PORT', 'add ADDR:PORT' or 'weight ADDR:PORT W'");
	if (argc < 2)
		return parse_bad_value(CTX, "slots", NULL, -EINVAL, "slot numbers 0..65535, N[,N...]");
	err = parse_slots(CTX, argv[1], &g->slots, &g->n);
	if (err)
		return err;
	if (s->slots_weight && m->weight != g->n)
		return cli_error(CTX ": weight %u but %u slots: a placement slots backend holds as many slots as its weight",
				 m->weight, g->n);
	m->weight = g->n;
	s->slots_for = SIM_SLOTS_NONE;
	return 2;
}

/* The first backend before @n given @slot. */
static int given_to(const struct sim *s, u32 n, u32 slot)
{
	u32 i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < s->given[i].n; k++)
			if (s->given[i].slots[k] == slot)
				return i;
	return 0;
}

/*
 * Slot numbers given hold first, in any order; then each other backend,
 * in the order given, takes the lowest free ones as "backend add" does.
 * HELD[capacity] marks them; 0 or -errno, printed.
 */
static int place(const struct sim *s, u8 *held, u32 i, uint16_t *pick)
{
	const struct sim_given *g = &s->given[i];
	char buf[RC_ENDPOINT_LEN];
	u32 k, slot = 0;

	if (g->n) {
		memcpy(pick, g->slots, g->n * sizeof(*pick));
		return 0;
	}
	for (k = 0; k < s->all[i].weight; k++, slot++) {
		while (slot < s->capacity && held[slot])
			slot++;
		if (slot >= s->capacity) {
			sim_member_format(buf, &s->all[i]);
			return cli_error(CTX ": capacity %u holds fewer free slots than %s's weight %u: give capacity N, a power of two",
					 s->capacity, buf, s->all[i].weight);
		}
		held[slot] = 1;
		pick[k] = slot;
	}
	return 0;
}

/* The slots given, marked in HELD: each once, below the capacity. */
static int hold_given(const struct sim *s, u8 *held)
{
	char buf[RC_ENDPOINT_LEN], other[RC_ENDPOINT_LEN];
	u32 i, k, slot;
	int o;

	for (i = 0; i < s->nall; i++)
		for (k = 0; k < s->given[i].n; k++) {
			slot = s->given[i].slots[k];
			sim_member_format(buf, &s->all[i]);
			if (slot >= s->capacity)
				return cli_error(CTX ": %s's slot %u is beyond capacity %u (give capacity N, a power of two)",
						 buf, slot, s->capacity);
			if (held[slot]) {
				o = given_to(s, i, slot);
				sim_member_format(other, &s->all[o]);
				return cli_error(CTX ": slot %u given to both %s and %s", slot,
						 other, buf);
			}
			held[slot] = 1;
		}
	return 0;
}

static int build_service(const struct sim *s, struct rc_service *svc)
{
	u8 *held = calloc(s->capacity, 1);
	uint16_t *pick = malloc(RINGSTEER_MAX_WEIGHT * sizeof(*pick));
	struct rc_backend b;
	u32 i;
	int err;

	memset(svc, 0, sizeof(*svc));
	svc->vip.family = AF_INET;
	svc->proto = IPPROTO_TCP;
	rc_setting_put(&rc_settings[RC_SET_HASH], svc, s->mode);
	rc_setting_put(&rc_settings[RC_SET_PLACEMENT], svc, RINGSTEER_PLACEMENT_SLOTS);
	rc_setting_put(&rc_settings[RC_SET_CAPACITY], svc, s->capacity);
	err = held && pick ? hold_given(s, held) : cli_error(CTX ": out of memory");
	for (i = 0; !err && i < s->nall; i++) {
		memset(&b, 0, sizeof(b));
		b.ep = member_ep(&s->all[i]);
		b.weight = s->all[i].weight;
		b.state = s->draining[i] ? RINGSTEER_STATE_DRAINING : RINGSTEER_STATE_ACTIVE;
		b.has = RC_HAS_WEIGHT | RC_HAS_STATE;
		err = place(s, held, i, pick);
		b.slots = pick;
		b.nslots = (uint16_t)b.weight;
		if (!err && !rc_service_add_backend(svc, &b))
			err = cli_error(CTX ": out of memory");
	}
	free(held);
	free(pick);
	return err;
}

/*
 * The change's slots against the simulated service, in the command
 * line's words (rc_change_apply() would name a service there is none of).
 */
static int check_change_slots(const struct sim *s, const struct rc_service *svc)
{
	struct rc_endpoint ep = member_ep(&s->cm);
	char buf[RC_ENDPOINT_LEN];
	u32 i, k, n, x;

	for (k = 0; k < s->cm_given.n; k++) {
		x = s->cm_given.slots[k];
		if (x >= s->capacity)
			return cli_error(CTX ": the change's slot %u is beyond capacity %u", x,
					 s->capacity);
		for (i = 0; i < svc->nb; i++) {
			if (!rc_endpoint_cmp(&svc->b[i].ep, &ep))
				continue;
			for (n = 0; n < svc->b[i].nslots && svc->b[i].slots[n] != x; n++)
				;
			if (n == svc->b[i].nslots)
				continue;
			rc_endpoint_format(buf, &svc->b[i].ep);
			return cli_error(CTX ": the change's slot %u is %s's", x, buf);
		}
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
	int err = check_change_slots(s, &sl->svc);

	if (err)
		return err;
	memset(&r, 0, sizeof(r));
	r.op = ops[s->change];
	r.b.ep = member_ep(&s->cm);
	r.what = sim_change_names[s->change];
	if (s->change == CH_ADD || s->change == CH_WEIGHT) {
		r.b.weight = s->cm.weight;
		r.b.has = RC_HAS_WEIGHT;
		r.b.slots = s->cm_given.slots;
		r.b.nslots = s->cm_given.n;
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

/* Each ring member of ST's backend in SVC: the slots the report names. */
static int holders(const struct rc_steer *st, const struct rc_service *svc,
		   const struct rc_backend ***out)
{
	const struct rs_ring *r = st->ring;
	struct rc_endpoint ep;
	u32 i;

	*out = calloc(r->nmembers + 1, sizeof(**out));
	if (!*out)
		return cli_error(CTX ": out of memory");
	for (i = 0; i < r->nmembers; i++) {
		ep = member_ep(&r->members[i]);
		(*out)[i] = rc_service_find_backend(svc, &ep);
	}
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
	return err ?: holders(&sl->st, &sl->svc, &sl->holder) ?:
	       (s->change != CH_NONE ? holders(&sl->st2, &sl->svc2, &sl->holder2) : 0);
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

struct sim_table sim_slots_table(const struct rc_steer *st)
{
	return (struct sim_table){ .ring = st->ring, .slots = st->slots,
				   .members = st->ring->members,
				   .nmembers = st->ring->nmembers };
}

void sim_slots_rule_stats(const struct rs_ring *r, const double *share, struct sim_stats *st)
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
	struct sim_table ta = sim_slots_table(&sl->st), tb = sim_slots_table(&sl->st2);
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
	struct sim_table t = sim_slots_table(&sl->st);
	u32 i;
	int err;

	if (!sl->st.slots->live)
		return cli_error(CTX ": no active backend: no live slot");
	sl->share = calloc(r->nmembers + 1, sizeof(double));
	sl->count = calloc(r->nmembers + 1, sizeof(u32));
	if (!sl->share || !sl->count || sim_positions(s, p))
		return cli_error(CTX ": out of memory");
	sim_slots_rule_shares(sl->st.slots, r->nmembers, sl->share);
	sim_slots_rule_stats(r, sl->share, &sl->rule);
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
	free(sl->holder);
	free(sl->holder2);
	free(p->pos);
	free(p->oa);
	free(p->ob);
}

/* The capacities a slots sweep takes by default: from the slots held up. */
static void default_capacities(struct sim *s)
{
	u64 held = sim_total_weight(s->all, s->nall);
	u32 c, i;

	/* And above the highest slot given: a smaller space cannot hold it. */
	for (i = 0; i < s->nall; i++)
		if (s->given[i].n && s->given[i].slots[s->given[i].n - 1] >= held)
			held = s->given[i].slots[s->given[i].n - 1] + 1ULL;
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
