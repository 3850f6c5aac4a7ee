// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl simulate"'s report for people: the ring's or the slots'
 * balance, the change, the sweep, the side by side and need-vnodes, as
 * aligned text. simulate_print_json.c prints the same report for scripts.
 */

#include <stdio.h>

#include "print.h"
#include "sim_report.h"

static void text_stats(const char *what, const struct sim_stats *st)
{
	printf("%s: share/expected min %.3f max %.3f, max/min %.3f, peak/mean %.3f, stddev %.3f\n",
	       what, st->min_ratio, st->max_ratio, st->max_min, st->peak_mean,
	       st->stddev);
}

/* Per-backend flows of the change, largest first, X itself excluded. */
static void text_moves(const struct rs_ring *r, const double *frac,
		       const struct rs_member *x)
{
	u32 i, shown = 0, *ord = print_sim_by_fraction(r, frac, false);
	char buf[RC_ENDPOINT_LEN];

	for (i = 0; ord && i < r->nmembers && frac[ord[i]] > 0 && shown < PRINT_SIM_TOP; i++) {
		if (sim_find(&r->members[ord[i]], 1, x) == 0)
			continue;
		sim_member_format(buf, &r->members[ord[i]]);
		printf("    %-24s %9.4f%%\n", buf, 100 * frac[ord[i]]);
		shown++;
	}
	free(ord);
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
	printf("key %s, hash %s\n", hex, print_sim_hash_name(s));
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

/* "change: KIND BACKEND [weight W]", the line left open; BACKEND in BUF. */
static void text_change_title(const struct sim *s, char buf[RC_ENDPOINT_LEN])
{
	sim_member_format(buf, &s->cm);
	printf("\nchange: %s %s", sim_change_names[s->change], buf);
	if (s->change == CH_ADD || s->change == CH_WEIGHT)
		printf(" weight %u", s->cm.weight);
}

static void text_change(const struct sim *s, const struct sim_report *p)
{
	bool grow = print_sim_change_grows(s, p);
	char buf[RC_ENDPOINT_LEN];

	text_change_title(s, buf);
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
	printf("key %s, hash %s\n", hex, print_sim_hash_name(s));
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
		printf("  %-24s %6u %9.4f%% %9.4f%% %8.3f", buf, r->members[i].weight,
		       100 * sl->share[i], 100 * want,
		       sl->count[i] / (want * (sl->smp.flows - sl->smp.unowned)));
		if (sl->holder[i])
			print_slots_text(stdout, sl->holder[i]);
		printf("\n");
	}
}

static void text_slots_change(const struct sim *s, const struct sim_report *p)
{
	const struct rc_backend *b = print_sim_changed(s, p);
	const struct sim_slots *sl = &p->sl;
	bool grow = print_sim_change_grows(s, p);
	char buf[RC_ENDPOINT_LEN];

	text_change_title(s, buf);
	/* Those given, or those the real command would pick. */
	if (b)
		print_slots_text(stdout, b);
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
