// SPDX-License-Identifier: GPL-2.0
/*
 * What "ringctl simulate" prints: text for people, -j JSON for
 * scripts, each its own set of functions over the same computed report.
 */

#include <stdio.h>

#include "json.h"
#include "print.h"
#include "sim_report.h"

#define TOP 10	/* per-backend moves listed in text mode */

struct flow_owner {
	struct sim_flow_text t;
	char b1[RC_ENDPOINT_LEN], b2[RC_ENDPOINT_LEN];
	u64 pos;
	bool after;		/* b2 holds the owner after the change */
};

/* The owner by the slots table if @st, else by the ring @r. */
static int owner(const struct rs_ring *r, const struct rc_steer *st, u64 pos)
{
	return st ? rc_steer_lookup(st, pos) : rs_ring_lookup(r, pos);
}

static void flow_owner(const struct sim *s, const struct rs_key *k, u32 i,
		       const struct rs_ring *r, const struct rs_ring *r2,
		       const struct rc_steer *st, const struct rc_steer *st2,
		       struct flow_owner *o)
{
	const struct rs_flow *f = &s->flows[i];
	int o2;

	o->pos = rs_flow_position(k, f, s->mode);
	sim_flow_format(&o->t, f);
	sim_member_format(o->b1, &r->members[owner(r, st, o->pos)]);
	o2 = r2 ? owner(r2, st2, o->pos) : -1;
	o->after = o2 >= 0;
	if (o->after)
		sim_member_format(o->b2, &r2->members[o2]);
	else
		strcpy(o->b2, "-");
}

void print_sim_flows_text(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2, const struct rc_steer *st,
			  const struct rc_steer *st2)
{
	struct flow_owner o;
	struct rs_key k;
	u32 i;

	rs_key_init(&k, s->key);
	for (i = 0; i < s->nflows; i++) {
		flow_owner(s, &k, i, r, r2, st, st2, &o);
		printf("%s %s %s %s%s%s\n", o.t.src, o.t.dst, o.t.proto, o.b1,
		       r2 ? " " : "", r2 ? o.b2 : "");
	}
}

void print_sim_flows_json(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2, const struct rc_steer *st,
			  const struct rc_steer *st2)
{
	struct flow_owner o;
	struct rs_key k;
	struct json j;
	char hex[20];
	u32 i;

	rs_key_init(&k, s->key);
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_arr_begin(&j, "flows");
	for (i = 0; i < s->nflows; i++) {
		flow_owner(s, &k, i, r, r2, st, st2, &o);
		json_obj_begin(&j, NULL);
		json_str(&j, "src", o.t.src);
		json_str(&j, "dst", o.t.dst);
		json_str(&j, "proto", o.t.proto);
		snprintf(hex, sizeof(hex), "%016llx", o.pos);
		json_str(&j, "position", hex);
		json_str(&j, "backend", o.b1);
		if (r2 && o.after)
			json_str(&j, "backend_after", o.b2);
		else if (r2)
			json_null(&j, "backend_after");
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static void print_stats(struct json *j, const char *key,
			const struct sim_stats *st)
{
	json_obj_begin(j, key);
	json_double(j, "min_ratio", st->min_ratio);
	json_double(j, "max_ratio", st->max_ratio);
	json_double(j, "max_min", st->max_min);
	json_double(j, "peak_mean", st->peak_mean);
	json_double(j, "stddev", st->stddev);
	json_obj_end(j);
}

static void text_stats(const char *what, const struct sim_stats *st)
{
	printf("%s: share/expected min %.3f max %.3f, max/min %.3f, peak/mean %.3f, stddev %.3f\n",
	       what, st->min_ratio, st->max_ratio, st->max_min, st->peak_mean,
	       st->stddev);
}

/*
 * The members of R by FRAC, largest first; only the first TOP sorted
 * unless ALL. Returns the order (caller frees) or NULL.
 */
static u32 *by_fraction(const struct rs_ring *r, const double *frac, bool all)
{
	u32 i, k, t, *ord = malloc(r->nmembers * sizeof(*ord));

	if (!ord)
		return NULL;
	for (i = 0; i < r->nmembers; i++)
		ord[i] = i;
	for (i = 0; i < r->nmembers; i++)	/* selection sort */
		for (k = i + 1; k < r->nmembers && (all || i < TOP); k++)
			if (frac[ord[k]] > frac[ord[i]]) {
				t = ord[i];
				ord[i] = ord[k];
				ord[k] = t;
			}
	return ord;
}

/* Per-backend flows of the change, largest first, X itself excluded. */
static void text_moves(const struct rs_ring *r, const double *frac,
		       const struct rs_member *x)
{
	u32 i, shown = 0, *ord = by_fraction(r, frac, false);
	char buf[RC_ENDPOINT_LEN];

	for (i = 0; ord && i < r->nmembers && frac[ord[i]] > 0 && shown < TOP; i++) {
		if (sim_find(&r->members[ord[i]], 1, x) == 0)
			continue;
		sim_member_format(buf, &r->members[ord[i]]);
		printf("    %-24s %9.4f%%\n", buf, 100 * frac[ord[i]]);
		shown++;
	}
	free(ord);
}

static void json_moves(struct json *j, const char *key, const struct rs_ring *r,
		       const double *frac, const struct rs_member *x)
{
	u32 i, *ord = by_fraction(r, frac, true);
	char buf[RC_ENDPOINT_LEN];

	json_arr_begin(j, key);
	for (i = 0; ord && i < r->nmembers && frac[ord[i]] > 0; i++) {
		if (sim_find(&r->members[ord[i]], 1, x) == 0)
			continue;
		sim_member_format(buf, &r->members[ord[i]]);
		json_obj_begin(j, NULL);
		json_str(j, "backend", buf);
		json_double(j, "fraction", frac[ord[i]]);
		json_obj_end(j);
	}
	json_arr_end(j);
	free(ord);
}

/* Whether the change gives the changed backend more of the ring. */
static bool change_grows(const struct sim *s, const struct sim_report *p)
{
	const struct rs_ring *r = p->slots ? p->sl.st.ring : p->r;
	const struct rs_ring *r2 = p->slots ? p->sl.st2.ring : p->r2;
	int before, after;

	if (s->change == CH_ADD)
		return true;
	if (s->change != CH_WEIGHT)
		return false;
	before = rs_ring_find_member(r, &s->cm);
	after = rs_ring_find_member(r2, &s->cm);
	return before >= 0 && after >= 0 &&
	       r2->members[after].weight > r->members[before].weight;
}

static const char *hash_name(const struct sim *s)
{
	return s->mode == RINGSTEER_HASH_FLOW ? "flow" : "source";
}

static void text_ring(const struct sim *s, const struct sim_report *p)
{
	const struct rs_ring *r = p->r;
	char buf[RC_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(s->m, s->n);
	double want;
	u32 i;

	rc_key_format(hex, s->key);
	printf("ring: %u backends, %u points (%u per unit of weight), %zu bytes (%.2f per point)\n",
	       r->nmembers, r->npoints, s->vnodes, r->size,
	       (double)r->size / r->npoints);
	printf("key %s, hash %s\n", hex, hash_name(s));
	text_stats("skew", &p->st);
	if (!s->shares)
		return;
	printf("  %-24s %6s %10s %10s %7s\n", "backend", "weight",
	       "share", "expected", "ratio");
	for (i = 0; i < r->nmembers; i++) {
		want = (double)r->members[i].weight / w;
		sim_member_format(buf, &r->members[i]);
		printf("  %-24s %6u %9.4f%% %9.4f%% %7.3f\n", buf,
		       r->members[i].weight, 100 * p->share[i], 100 * want,
		       p->share[i] / want);
	}
}

static void text_change(const struct sim *s, const struct sim_report *p)
{
	bool grow = change_grows(s, p);
	char buf[RC_ENDPOINT_LEN];

	sim_member_format(buf, &s->cm);
	printf("\nchange: %s %s", sim_change_names[s->change], buf);
	if (s->change == CH_ADD || s->change == CH_WEIGHT)
		printf(" weight %u", s->cm.weight);
	printf("\n  moved:       %9.4f%% of the hash space (ideal %.4f%%)\n",
	       100 * p->d.moved, 100 * p->ideal);
	printf("  collateral:  %9.4f%% (between other backends: %llu positions)\n",
	       100 * p->d.collateral, p->d.collateral_exact);
	printf("  %s %s %s:\n", grow ? "to" : "from", buf, grow ? "from" : "to");
	if (grow)
		text_moves(p->r, p->d.from, &s->cm);
	else
		text_moves(p->r2, p->d.to, &s->cm);
	printf("  hash mod N:  %9.4f%% moved (%llu -> %llu slots, %s)\n",
	       100 * p->mod, (unsigned long long)sim_total_weight(s->m, s->n),
	       (unsigned long long)sim_total_weight(s->after, s->nafter),
	       p->mod_exact ? "exact over one period" : "sampled");
	text_stats("  skew after", &p->st2);
}

static void text_sweep(const struct sim_report *p)
{
	char buf[RC_ENDPOINT_LEN];
	const struct sim_row *rw;
	u32 i;

	sim_member_format(buf, &p->sx);
	printf("\nsweep: %s %s; ideal move %.4f%%, hash mod N moves %.4f%%\n",
	       sim_change_names[p->sc], buf, 100 * p->sweep_ideal,
	       100 * p->sweep_mod);
	printf("  %6s %8s %10s %8s %9s %7s %9s %10s\n", "vnodes", "points",
	       "bytes", "max/min", "peak/mean", "stddev", "moved%", "collateral");
	for (i = 0; i < p->nrows; i++) {
		rw = &p->rows[i];
		if (rw->over)
			printf("  %6u   over the %u point limit\n", rw->vnodes,
			       RINGSTEER_MAX_POINTS);
		else
			printf("  %6u %8u %10zu %8.3f %9.3f %7.3f %9.4f %10.4f\n",
			       rw->vnodes, rw->points, rw->bytes, rw->st.max_min,
			       rw->st.peak_mean, rw->st.stddev, 100 * rw->moved,
			       100 * rw->collateral);
	}
}

/* The part of the report that is the same for the ring and the slots. */
static void text_key(const struct sim *s)
{
	char hex[2 * RINGSTEER_KEY_LEN + 1];

	rc_key_format(hex, s->key);
	printf("key %s, hash %s\n", hex, hash_name(s));
}

static void text_sampled(const char *what, const struct sim_sampled *st,
			 const struct sim_sampled *mod)
{
	printf("%s: %u flows: peak/mean %.4f, min %.4f; floor 1 + 3 sqrt(%u/%u) = %.4f (%s)\n",
	       what, st->flows, st->peak_mean, st->min_ratio, st->members, st->flows,
	       st->floor, st->peak_mean <= st->floor ? "within" : "above");
	printf("  a perfect placement's largest of %u counts: about %.4f", st->members,
	       st->perfect);
	if (mod)
		printf("; hash mod N on the same flows: %.4f", mod->peak_mean);
	printf("\n  probes %.3f a lookup, at most %u, %u lookups by the scan\n",
	       st->probes_mean, st->probes_max, st->scans);
}

static void text_slots(const struct sim *s, const struct sim_report *p)
{
	const struct sim_slots *sl = &p->sl;
	const struct rs_ring *r = sl->st.ring;
	char buf[RC_ENDPOINT_LEN];
	u64 w = sim_total_weight(r->members, r->nmembers);
	double want;
	u32 i;

	printf("slots: %u backends (%u draining), %u slots held of capacity %u, %u live (%.1f%%); %zu bytes: table %zu, ring %zu (a point a slot)\n",
	       s->nall, s->ndraining, sl->held, 1U << sl->st.slots->bits, sl->st.slots->live,
	       100.0 * sl->st.slots->live / (1U << sl->st.slots->bits),
	       sl->st.slots->size + r->size, sl->st.slots->size, r->size);
	text_key(s);
	printf("by rule: every live slot 1/%u of the flows: share/expected min %.3f max %.3f, peak/mean %.3f;\n"
	       "  the scan's share at most %.3g, all of it to one slot at worst: peak/mean at most %.4f\n",
	       sl->st.slots->live, sl->rule.min_ratio, sl->rule.max_ratio, sl->rule.peak_mean,
	       sl->scan, sl->peak_bound);
	text_sampled("sampled", &sl->smp, &sl->mod);
	if (!s->shares)
		return;
	printf("  %-24s %6s %10s %10s %8s\n", "backend", "weight", "share", "expected",
	       "sampled");
	for (i = 0; i < r->nmembers; i++) {
		want = (double)r->members[i].weight / w;
		sim_member_format(buf, &r->members[i]);
		printf("  %-24s %6u %9.4f%% %9.4f%% %8.3f\n", buf, r->members[i].weight,
		       100 * sl->share[i], 100 * want,
		       sl->count[i] / (want * (sl->smp.flows - sl->smp.unowned)));
	}
}

static void text_slots_change(const struct sim *s, const struct sim_report *p)
{
	const struct sim_slots *sl = &p->sl;
	bool grow = change_grows(s, p);
	char buf[RC_ENDPOINT_LEN];

	sim_member_format(buf, &s->cm);
	printf("\nchange: %s %s", sim_change_names[s->change], buf);
	if (s->change == CH_ADD || s->change == CH_WEIGHT)
		printf(" weight %u", s->cm.weight);
	printf("\n  moved:       %9.4f%% of the flows by rule (ideal %.4f%%), %.4f%% sampled (%u of %u)\n",
	       100 * sl->moved, 100 * p->ideal, 100.0 * sl->sd.moved / sl->sd.flows,
	       sl->sd.moved, sl->sd.flows);
	printf("  collateral:  %9.4f%% by rule; %u of %u sampled flows (between other backends)\n",
	       100 * sl->collateral, sl->sd.collateral, sl->sd.flows);
	printf("  %s %s %s (sampled):\n", grow ? "to" : "from", buf, grow ? "from" : "to");
	if (grow)
		text_moves(sl->st.ring, sl->from, &s->cm);
	else
		text_moves(sl->st2.ring, sl->to, &s->cm);
	printf("  hash mod N:  %9.4f%% moved (%llu -> %llu buckets, %s)\n",
	       100 * p->mod, (unsigned long long)sim_total_weight(s->m, s->n),
	       (unsigned long long)sim_total_weight(s->after, s->nafter),
	       p->mod_exact ? "exact over one period" : "sampled");
	text_sampled("  sampled after", &sl->smp2, NULL);
}

static void text_slots_sweep(const struct sim *s, const struct sim_report *p)
{
	bool ch = s->change != CH_NONE;
	u32 i;

	printf("\nsweep: capacity, on the same %u flows\n", s->samples);
	printf("  %8s %6s %6s %9s %9s %9s %8s %6s %9s", "capacity", "live", "C/L", "bytes",
	       "scan max", "rule max", "probes", "max", "sampled");
	if (ch)
		printf(" %9s %9s %10s", "moved%", "sampled%", "collateral");
	printf("\n");
	for (i = 0; i < p->ncaps; i++) {
		const struct sim_cap_row *rw = &p->caps[i];

		printf("  %8u %6u %6.2f %9zu %9.2g %9.4f %8.3f %6u %9.4f", rw->capacity, rw->live,
		       (double)rw->capacity / rw->live, rw->bytes, rw->scan, rw->peak_bound,
		       rw->smp.probes_mean, rw->smp.probes_max, rw->smp.peak_mean);
		if (ch)
			printf(" %9.4f %9.4f %10u", 100 * rw->moved,
			       100.0 * rw->sd.moved / rw->sd.flows, rw->sd.collateral);
		printf("\n");
	}
}

static void text_compare(const struct sim *s, const struct sim_report *p)
{
	bool ch = s->change != CH_NONE;
	u32 i;

	printf("\ncompare: %u active backends%s, the same %u flows sampled from the key\n",
	       s->n, ch ? " and the change" : "", s->samples);
	printf("  %-14s %10s %9s %9s %7s %8s", "placement", "bytes", "peak/mean", "sampled",
	       "perfect", "probes");
	if (ch)
		printf(" %9s %9s %10s", "moved%", "sampled%", "collateral");
	printf("\n");
	for (i = 0; i < p->ncmp; i++) {
		const struct sim_place *pl = &p->cmp[i];
		char name[32];

		snprintf(name, sizeof(name), "%s %u", pl->name, pl->param);
		printf("  %-14s %10zu %9.4f %9.4f %7.4f %8.3f", name, pl->bytes, pl->peak_mean,
		       pl->smp.peak_mean, pl->smp.perfect, pl->smp.probes_mean);
		if (ch)
			printf(" %9.4f %9.4f %10u", 100 * pl->moved,
			       100.0 * pl->sd.moved / pl->sd.flows, pl->sd.collateral);
		printf("\n");
	}
	printf("  (ring N: vnodes, peak/mean and moved exact from arcs; slots N: capacity,\n"
	       "   by rule, the scan's worst counted; maglev N: table entries, exact over\n"
	       "   the table; mod-n N: buckets;\n"
	       "   sampled: counted on the flows, floor 1 + 3 sqrt(N/F) = %.4f, perfect: about\n"
	       "   where a perfect placement's largest count lands; collateral: sampled flows\n"
	       "   moved between backends the change does not touch)\n",
	       p->ncmp ? p->cmp[0].smp.floor : 0);
}

void print_sim_text(const struct sim *s, const struct sim_report *p)
{
	if (p->slots) {
		text_slots(s, p);
		if (s->change != CH_NONE)
			text_slots_change(s, p);
		if (s->sweep)
			text_slots_sweep(s, p);
		if (s->compare)
			text_compare(s, p);
		return;
	}
	text_ring(s, p);
	if (s->ndraining)
		printf("draining: %u backends off the ring\n", s->ndraining);
	if (s->change != CH_NONE)
		text_change(s, p);
	if (s->sweep)
		text_sweep(p);
	if (s->compare)
		text_compare(s, p);
	if (s->need > 0 && p->need.vnodes)
		printf("\nneed-vnodes %.3f: %u vnodes per weight (peak/mean %.3f, %u points, %zu bytes)\n",
		       s->need, p->need.vnodes, p->need.st.peak_mean,
		       p->need.points, p->need.bytes);
	else if (s->need > 0)
		printf("\nneed-vnodes %.3f: not reachable within %u points\n",
		       s->need, RINGSTEER_MAX_POINTS);
}

static void json_ring(struct json *j, const struct sim *s, const struct sim_report *p)
{
	const struct rs_ring *r = p->r;
	char buf[RC_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(s->m, s->n);
	double want;
	u32 i;

	rc_key_format(hex, s->key);
	json_str(j, "key", hex);
	json_str(j, "hash", hash_name(s));
	json_u64(j, "vnodes", s->vnodes);
	json_u64(j, "backends", r->nmembers);
	json_u64(j, "points", r->npoints);
	json_u64(j, "bytes", r->size);
	json_double(j, "bytes_per_point", (double)r->size / r->npoints);
	print_stats(j, "skew", &p->st);
	json_arr_begin(j, "shares");
	for (i = 0; i < r->nmembers; i++) {
		want = (double)r->members[i].weight / w;
		sim_member_format(buf, &r->members[i]);
		json_obj_begin(j, NULL);
		json_str(j, "backend", buf);
		json_u64(j, "weight", r->members[i].weight);
		json_double(j, "share", p->share[i]);
		json_double(j, "expected", want);
		json_double(j, "ratio", p->share[i] / want);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_change(struct json *j, const struct sim *s, const struct sim_report *p)
{
	char buf[RC_ENDPOINT_LEN];

	sim_member_format(buf, &s->cm);
	json_obj_begin(j, "change");
	json_str(j, "type", sim_change_names[s->change]);
	json_str(j, "backend", buf);
	if (s->change == CH_ADD || s->change == CH_WEIGHT)
		json_u64(j, "weight", s->cm.weight);
	json_double(j, "moved", p->d.moved);
	json_double(j, "ideal", p->ideal);
	json_double(j, "collateral", p->d.collateral);
	json_u64(j, "collateral_positions", p->d.collateral_exact);
	print_stats(j, "skew_after", &p->st2);
	if (change_grows(s, p))
		json_moves(j, "from", p->r, p->d.from, &s->cm);
	else
		json_moves(j, "to", p->r2, p->d.to, &s->cm);
	json_obj_begin(j, "mod_n");
	json_u64(j, "slots_before", sim_total_weight(s->m, s->n));
	json_u64(j, "slots_after", sim_total_weight(s->after, s->nafter));
	json_double(j, "moved", p->mod);
	json_bool(j, "exact", p->mod_exact);
	json_obj_end(j);
	json_obj_end(j);
}

static void json_row(struct json *j, const struct sim_row *rw)
{
	json_obj_begin(j, NULL);
	json_u64(j, "vnodes", rw->vnodes);
	json_bool(j, "over_limit", rw->over);
	if (!rw->over) {
		json_u64(j, "points", rw->points);
		json_u64(j, "bytes", rw->bytes);
		json_double(j, "max_min", rw->st.max_min);
		json_double(j, "peak_mean", rw->st.peak_mean);
		json_double(j, "stddev", rw->st.stddev);
		json_double(j, "moved", rw->moved);
		json_double(j, "collateral", rw->collateral);
	}
	json_obj_end(j);
}

static void json_sweep(struct json *j, const struct sim_report *p)
{
	char buf[RC_ENDPOINT_LEN];
	u32 i;

	sim_member_format(buf, &p->sx);
	json_obj_begin(j, "sweep");
	json_str(j, "change", sim_change_names[p->sc]);
	json_str(j, "backend", buf);
	json_double(j, "ideal", p->sweep_ideal);
	json_double(j, "mod_n_moved", p->sweep_mod);
	json_arr_begin(j, "rows");
	for (i = 0; i < p->nrows; i++)
		json_row(j, &p->rows[i]);
	json_arr_end(j);
	json_obj_end(j);
}

static void json_need(struct json *j, const struct sim *s, const struct sim_report *p)
{
	json_obj_begin(j, "need_vnodes");
	json_double(j, "target", s->need);
	if (p->need.vnodes) {
		json_u64(j, "vnodes", p->need.vnodes);
		json_double(j, "peak_mean", p->need.st.peak_mean);
		json_u64(j, "points", p->need.points);
		json_u64(j, "bytes", p->need.bytes);
	} else {
		json_null(j, "vnodes");
	}
	json_obj_end(j);
}

static void json_sampled(struct json *j, const char *key, const struct sim_sampled *st)
{
	json_obj_begin(j, key);
	json_u64(j, "flows", st->flows);
	json_u64(j, "backends", st->members);
	json_double(j, "peak_mean", st->peak_mean);
	json_double(j, "min_ratio", st->min_ratio);
	json_double(j, "floor", st->floor);
	json_double(j, "perfect", st->perfect);
	json_double(j, "probes_mean", st->probes_mean);
	json_u64(j, "probes_max", st->probes_max);
	json_u64(j, "scans", st->scans);
	json_obj_end(j);
}

/* A change counted on the sampled flows. */
static void json_sampled_diff(struct json *j, const char *key,
			      const struct sim_sampled_diff *sd)
{
	json_obj_begin(j, key);
	json_u64(j, "flows", sd->flows);
	json_u64(j, "moved", sd->moved);
	json_u64(j, "collateral", sd->collateral);
	json_obj_end(j);
}

static void json_slots(struct json *j, const struct sim *s, const struct sim_report *p)
{
	const struct sim_slots *sl = &p->sl;
	const struct rs_ring *r = sl->st.ring;
	char buf[RC_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(r->members, r->nmembers);
	double want;
	u32 i;

	rc_key_format(hex, s->key);
	json_str(j, "key", hex);
	json_str(j, "hash", hash_name(s));
	json_str(j, "placement", "slots");
	json_u64(j, "capacity", 1U << sl->st.slots->bits);
	json_u64(j, "backends", s->nall);
	json_u64(j, "draining", s->ndraining);
	json_u64(j, "slots_held", sl->held);
	json_u64(j, "slots_live", sl->st.slots->live);
	json_u64(j, "bytes", sl->st.slots->size + r->size);
	json_u64(j, "table_bytes", sl->st.slots->size);
	json_u64(j, "ring_bytes", r->size);
	json_obj_begin(j, "rule");
	json_double(j, "min_ratio", sl->rule.min_ratio);
	json_double(j, "max_ratio", sl->rule.max_ratio);
	json_double(j, "peak_mean", sl->rule.peak_mean);
	json_double(j, "scan_share_max", sl->scan);
	json_double(j, "peak_mean_max", sl->peak_bound);
	json_obj_end(j);
	json_sampled(j, "sampled", &sl->smp);
	json_sampled(j, "sampled_mod_n", &sl->mod);
	json_arr_begin(j, "shares");
	for (i = 0; i < r->nmembers; i++) {
		want = (double)r->members[i].weight / w;
		sim_member_format(buf, &r->members[i]);
		json_obj_begin(j, NULL);
		json_str(j, "backend", buf);
		json_u64(j, "weight", r->members[i].weight);
		json_double(j, "share", sl->share[i]);
		json_double(j, "expected", want);
		json_u64(j, "sampled", sl->count[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_slots_change(struct json *j, const struct sim *s, const struct sim_report *p)
{
	const struct sim_slots *sl = &p->sl;
	char buf[RC_ENDPOINT_LEN];

	sim_member_format(buf, &s->cm);
	json_obj_begin(j, "change");
	json_str(j, "type", sim_change_names[s->change]);
	json_str(j, "backend", buf);
	if (s->change == CH_ADD || s->change == CH_WEIGHT)
		json_u64(j, "weight", s->cm.weight);
	json_double(j, "moved", sl->moved);
	json_double(j, "ideal", p->ideal);
	json_double(j, "collateral", sl->collateral);
	json_sampled_diff(j, "sampled", &sl->sd);
	json_sampled(j, "sampled_after", &sl->smp2);
	if (change_grows(s, p))
		json_moves(j, "from", sl->st.ring, sl->from, &s->cm);
	else
		json_moves(j, "to", sl->st2.ring, sl->to, &s->cm);
	json_obj_begin(j, "mod_n");
	json_u64(j, "buckets_before", sim_total_weight(s->m, s->n));
	json_u64(j, "buckets_after", sim_total_weight(s->after, s->nafter));
	json_double(j, "moved", p->mod);
	json_bool(j, "exact", p->mod_exact);
	json_obj_end(j);
	json_obj_end(j);
}

static void json_slots_sweep(struct json *j, const struct sim *s, const struct sim_report *p)
{
	u32 i;

	json_arr_begin(j, "sweep");
	for (i = 0; i < p->ncaps; i++) {
		const struct sim_cap_row *rw = &p->caps[i];

		json_obj_begin(j, NULL);
		json_u64(j, "capacity", rw->capacity);
		json_u64(j, "slots_live", rw->live);
		json_u64(j, "bytes", rw->bytes);
		json_double(j, "scan_share_max", rw->scan);
		json_double(j, "peak_mean_max", rw->peak_bound);
		json_sampled(j, "sampled", &rw->smp);
		if (s->change != CH_NONE) {
			json_double(j, "moved", rw->moved);
			json_sampled_diff(j, "sampled_change", &rw->sd);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_compare(struct json *j, const struct sim *s, const struct sim_report *p)
{
	u32 i;

	json_arr_begin(j, "compare");
	for (i = 0; i < p->ncmp; i++) {
		const struct sim_place *pl = &p->cmp[i];

		json_obj_begin(j, NULL);
		json_str(j, "placement", pl->name);
		json_u64(j, !strcmp(pl->name, "ring") ? "vnodes" :
			    !strcmp(pl->name, "slots") ? "capacity" :
			    !strcmp(pl->name, "maglev") ? "table_size" : "buckets", pl->param);
		json_u64(j, "bytes", pl->bytes);
		json_double(j, "peak_mean", pl->peak_mean);
		json_sampled(j, "sampled", &pl->smp);
		if (s->change != CH_NONE) {
			json_double(j, "moved", pl->moved);
			json_sampled_diff(j, "sampled_change", &pl->sd);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

void print_sim_json(const struct sim *s, const struct sim_report *p)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	if (p->slots) {
		json_slots(&j, s, p);
		if (s->change != CH_NONE)
			json_slots_change(&j, s, p);
		if (s->sweep)
			json_slots_sweep(&j, s, p);
		if (s->compare)
			json_compare(&j, s, p);
		json_obj_end(&j);
		json_finish(&j);
		return;
	}
	json_ring(&j, s, p);
	if (s->ndraining)
		json_u64(&j, "draining", s->ndraining);
	if (s->compare)
		json_compare(&j, s, p);
	if (s->change != CH_NONE)
		json_change(&j, s, p);
	if (s->sweep)
		json_sweep(&j, p);
	if (s->need > 0)
		json_need(&j, s, p);
	json_obj_end(&j);
	json_finish(&j);
}
