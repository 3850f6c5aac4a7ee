// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl simulate -j": the report of simulate_print_text.c as one JSON
 * object, every number in full precision, for scripts.
 */

#include <stdio.h>

#include "json.h"
#include "print.h"
#include "sim_report.h"

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

static void json_moves(struct json *j, const char *key, const struct rs_ring *r,
		       const double *frac, const struct rs_member *x)
{
	u32 i, *ord = print_sim_by_fraction(r, frac, true);
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

static void json_ring(struct json *j, const struct sim *s, const struct sim_report *p)
{
	const struct rs_ring *r = p->r;
	char buf[RC_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(s->m, s->n);
	double want;
	u32 i;

	rc_key_format(hex, s->key);
	json_str(j, "key", hex);
	json_str(j, "hash", print_sim_hash_name(s));
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
	if (print_sim_change_grows(s, p))
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

/* A backend's slots, given or picked, if it is known. */
static void json_slots(struct json *j, const struct rc_backend *b)
{
	u32 i;

	if (!b)
		return;
	json_arr_begin(j, "slots");
	for (i = 0; i < b->nslots; i++)
		json_u64(j, NULL, b->slots[i]);
	json_arr_end(j);
}

static void json_slots_report(struct json *j, const struct sim *s, const struct sim_report *p)
{
	const struct sim_slots *sl = &p->sl;
	const struct rs_ring *r = sl->st.ring;
	char buf[RC_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(r->members, r->nmembers);
	double want;
	u32 i;

	rc_key_format(hex, s->key);
	json_str(j, "key", hex);
	json_str(j, "hash", print_sim_hash_name(s));
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
		json_slots(j, sl->holder[i]);
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
	json_slots(j, print_sim_changed(s, p));
	json_double(j, "moved", sl->moved);
	json_double(j, "ideal", p->ideal);
	json_double(j, "collateral", sl->collateral);
	json_sampled_diff(j, "sampled", &sl->sd);
	json_sampled(j, "sampled_after", &sl->smp2);
	if (print_sim_change_grows(s, p))
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
		json_slots_report(&j, s, p);
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
