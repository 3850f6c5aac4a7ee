// SPDX-License-Identifier: GPL-2.0
/* "ringctl simulate" output: text for people, -j JSON for scripts. */

#include <stdio.h>

#include "json.h"
#include "simulate_int.h"

#define TOP 10	/* per-backend moves listed in text mode */

void sim_print_flows(const struct sim *s, const struct rs_ring *r,
			const struct rs_ring *r2)
{
	char src[RM_ENDPOINT_LEN], dst[RM_ENDPOINT_LEN];
	char b1[RM_ENDPOINT_LEN], b2[RM_ENDPOINT_LEN], pb[8], hex[20];
	struct json j;
	struct rs_key k;
	u32 i;

	rs_key_init(&k, s->key);
	json_init(&j, stdout);
	if (s->json) {
		json_obj_begin(&j, NULL);
		json_arr_begin(&j, "flows");
	}
	for (i = 0; i < s->nflows; i++) {
		const struct rs_flow *f = &s->flows[i];
		u64 pos = rs_flow_position(&k, f, s->mode);
		int o = rs_ring_lookup(r, pos);
		int o2 = r2 ? rs_ring_lookup(r2, pos) : -1;
		const char *proto = rm_proto_name(f->proto, pb);

		rm_format_endpoint(src, f->family, f->saddr, f->sport);
		rm_format_endpoint(dst, f->family, f->daddr, f->dport);
		rm_format_member(b1, &r->members[o]);
		if (o2 >= 0)
			rm_format_member(b2, &r2->members[o2]);
		else
			strcpy(b2, "-");
		if (!s->json) {
			printf("%s %s %s %s%s%s\n", src, dst, proto, b1,
			       r2 ? " " : "", r2 ? b2 : "");
			continue;
		}
		json_obj_begin(&j, NULL);
		json_str(&j, "src", src);
		json_str(&j, "dst", dst);
		json_str(&j, "proto", proto);
		snprintf(hex, sizeof(hex), "%016llx", pos);
		json_str(&j, "position", hex);
		json_str(&j, "backend", b1);
		if (r2 && o2 >= 0)
			json_str(&j, "backend_after", b2);
		else if (r2)
			json_null(&j, "backend_after");
		json_obj_end(&j);
	}
	if (s->json) {
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	}
}

static void print_stats(struct json *j, const char *key,
			const struct rm_stats *st)
{
	json_obj_begin(j, key);
	json_double(j, "min_ratio", st->min_ratio);
	json_double(j, "max_ratio", st->max_ratio);
	json_double(j, "max_min", st->max_min);
	json_double(j, "peak_mean", st->peak_mean);
	json_double(j, "stddev", st->stddev);
	json_obj_end(j);
}

static void text_stats(const char *what, const struct rm_stats *st)
{
	printf("%s: share/expected min %.3f max %.3f, max/min %.3f, peak/mean %.3f, stddev %.3f\n",
	       what, st->min_ratio, st->max_ratio, st->max_min, st->peak_mean,
	       st->stddev);
}

/* Per-backend flows of the change, largest first, X itself excluded. */
static void print_moves(struct json *j, const char *key, bool json,
			const struct rs_ring *r, const double *frac,
			const struct rs_member *x)
{
	char buf[RM_ENDPOINT_LEN];
	u32 i, k, shown = 0, *ord = malloc(r->nmembers * sizeof(*ord));

	if (!ord)
		return;
	for (i = 0; i < r->nmembers; i++)
		ord[i] = i;
	for (i = 0; i < r->nmembers; i++)	/* selection: only TOP in text */
		for (k = i + 1; k < r->nmembers && (json || i < TOP); k++)
			if (frac[ord[k]] > frac[ord[i]]) {
				u32 t = ord[i];

				ord[i] = ord[k];
				ord[k] = t;
			}
	if (json)
		json_arr_begin(j, key);
	for (i = 0; i < r->nmembers && frac[ord[i]] > 0; i++) {
		const struct rs_member *m = &r->members[ord[i]];

		if (sim_find(m, 1, x) == 0)
			continue;
		rm_format_member(buf, m);
		if (json) {
			json_obj_begin(j, NULL);
			json_str(j, "backend", buf);
			json_double(j, "fraction", frac[ord[i]]);
			json_obj_end(j);
		} else if (shown++ < TOP) {
			printf("    %-24s %9.4f%%\n", buf, 100 * frac[ord[i]]);
		}
	}
	if (json)
		json_arr_end(j);
	free(ord);
}


void sim_print_report(const struct sim *s, const struct report *p)
{
	const struct rs_ring *r = p->r;
	char buf[RM_ENDPOINT_LEN], hex[2 * RINGSTEER_KEY_LEN + 1];
	u64 w = sim_total_weight(s->m, s->n);
	bool js = s->json;
	struct json j;
	u32 i;

	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		sprintf(hex + 2 * i, "%02x", s->key[i]);
	json_init(&j, stdout);
	if (js) {
		json_obj_begin(&j, NULL);
		json_str(&j, "key", hex);
		json_str(&j, "hash", s->mode == RINGSTEER_HASH_FLOW ? "flow" : "source");
		json_u64(&j, "vnodes", s->vnodes);
		json_u64(&j, "backends", r->nmembers);
		json_u64(&j, "points", r->npoints);
		json_u64(&j, "bytes", r->size);
		json_double(&j, "bytes_per_point", (double)r->size / r->npoints);
		print_stats(&j, "skew", &p->st);
		json_arr_begin(&j, "shares");
	} else {
		printf("ring: %u backends, %u points (%u per unit of weight), %zu bytes (%.2f per point)\n",
		       r->nmembers, r->npoints, s->vnodes, r->size,
		       (double)r->size / r->npoints);
		printf("key %s, hash %s\n", hex,
		       s->mode == RINGSTEER_HASH_FLOW ? "flow" : "source");
		text_stats("skew", &p->st);
		if (s->shares)
			printf("  %-24s %6s %10s %10s %7s\n", "backend", "weight",
			       "share", "expected", "ratio");
	}
	for (i = 0; i < r->nmembers && (js || s->shares); i++) {
		const struct rs_member *m = &r->members[i];
		double want = (double)m->weight / w;

		rm_format_member(buf, m);
		if (js) {
			json_obj_begin(&j, NULL);
			json_str(&j, "backend", buf);
			json_u64(&j, "weight", m->weight);
			json_double(&j, "share", p->share[i]);
			json_double(&j, "expected", want);
			json_double(&j, "ratio", p->share[i] / want);
			json_obj_end(&j);
		} else {
			printf("  %-24s %6u %9.4f%% %9.4f%% %7.3f\n", buf,
			       m->weight, 100 * p->share[i], 100 * want,
			       p->share[i] / want);
		}
	}
	if (js)
		json_arr_end(&j);

	if (s->change != CH_NONE) {
		bool grow = s->change == CH_ADD ||
			    (s->change == CH_WEIGHT &&
			     rs_ring_find_member(p->r2, &s->cm) >= 0 &&
			     p->r2->members[rs_ring_find_member(p->r2, &s->cm)].weight >
			     r->members[rs_ring_find_member(r, &s->cm)].weight);

		rm_format_member(buf, &s->cm);
		if (js) {
			json_obj_begin(&j, "change");
			json_str(&j, "type", sim_change_names[s->change]);
			json_str(&j, "backend", buf);
			if (s->change == CH_ADD || s->change == CH_WEIGHT)
				json_u64(&j, "weight", s->cm.weight);
			json_double(&j, "moved", p->d.moved);
			json_double(&j, "ideal", p->ideal);
			json_double(&j, "collateral", p->d.collateral);
			json_u64(&j, "collateral_positions", p->d.collateral_exact);
			print_stats(&j, "skew_after", &p->st2);
		} else {
			printf("\nchange: %s %s", sim_change_names[s->change], buf);
			if (s->change == CH_ADD || s->change == CH_WEIGHT)
				printf(" weight %u", s->cm.weight);
			printf("\n  moved:       %9.4f%% of the hash space (ideal %.4f%%)\n",
			       100 * p->d.moved, 100 * p->ideal);
			printf("  collateral:  %9.4f%% (between other backends: %llu positions)\n",
			       100 * p->d.collateral, p->d.collateral_exact);
			printf("  %s %s %s:\n", grow ? "to" : "from", buf,
			       grow ? "from" : "to");
		}
		if (grow)
			print_moves(&j, "from", js, r, p->d.from, &s->cm);
		else
			print_moves(&j, "to", js, p->r2, p->d.to, &s->cm);
		if (js) {
			json_obj_begin(&j, "mod_n");
			json_u64(&j, "slots_before", w);
			json_u64(&j, "slots_after", sim_total_weight(s->after, s->nafter));
			json_double(&j, "moved", p->mod);
			json_bool(&j, "exact", p->mod_exact);
			json_obj_end(&j);
			json_obj_end(&j);
		} else {
			printf("  hash mod N:  %9.4f%% moved (%llu -> %llu slots, %s)\n",
			       100 * p->mod, (unsigned long long)w,
			       (unsigned long long)sim_total_weight(s->after, s->nafter),
			       p->mod_exact ? "exact over one period" : "sampled");
			text_stats("  skew after", &p->st2);
		}
	}

	if (s->sweep) {
		rm_format_member(buf, &p->sx);
		if (js) {
			json_obj_begin(&j, "sweep");
			json_str(&j, "change", sim_change_names[p->sc]);
			json_str(&j, "backend", buf);
			json_double(&j, "ideal", p->sweep_ideal);
			json_double(&j, "mod_n_moved", p->sweep_mod);
			json_arr_begin(&j, "rows");
		} else {
			printf("\nsweep: %s %s; ideal move %.4f%%, hash mod N moves %.4f%%\n",
			       sim_change_names[p->sc], buf, 100 * p->sweep_ideal,
			       100 * p->sweep_mod);
			printf("  %6s %8s %10s %8s %9s %7s %9s %10s\n", "vnodes",
			       "points", "bytes", "max/min", "peak/mean", "stddev",
			       "moved%", "collateral");
		}
		for (i = 0; i < p->nrows; i++) {
			const struct row *rw = &p->rows[i];

			if (js) {
				json_obj_begin(&j, NULL);
				json_u64(&j, "vnodes", rw->vnodes);
				json_bool(&j, "over_limit", rw->over);
				if (!rw->over) {
					json_u64(&j, "points", rw->points);
					json_u64(&j, "bytes", rw->bytes);
					json_double(&j, "max_min", rw->st.max_min);
					json_double(&j, "peak_mean", rw->st.peak_mean);
					json_double(&j, "stddev", rw->st.stddev);
					json_double(&j, "moved", rw->moved);
					json_double(&j, "collateral", rw->collateral);
				}
				json_obj_end(&j);
			} else if (rw->over) {
				printf("  %6u   over the %u point limit\n", rw->vnodes,
				       RINGSTEER_MAX_POINTS);
			} else {
				printf("  %6u %8u %10zu %8.3f %9.3f %7.3f %9.4f %10.4f\n",
				       rw->vnodes, rw->points, rw->bytes,
				       rw->st.max_min, rw->st.peak_mean,
				       rw->st.stddev, 100 * rw->moved,
				       100 * rw->collateral);
			}
		}
		if (js) {
			json_arr_end(&j);
			json_obj_end(&j);
		}
	}

	if (s->need > 0) {
		if (js) {
			json_obj_begin(&j, "need_vnodes");
			json_double(&j, "target", s->need);
			if (p->need.vnodes) {
				json_u64(&j, "vnodes", p->need.vnodes);
				json_double(&j, "peak_mean", p->need.st.peak_mean);
				json_u64(&j, "points", p->need.points);
				json_u64(&j, "bytes", p->need.bytes);
			} else {
				json_null(&j, "vnodes");
			}
			json_obj_end(&j);
		} else if (p->need.vnodes) {
			printf("\nneed-vnodes %.3f: %u vnodes per weight (peak/mean %.3f, %u points, %zu bytes)\n",
			       s->need, p->need.vnodes, p->need.st.peak_mean,
			       p->need.points, p->need.bytes);
		} else {
			printf("\nneed-vnodes %.3f: not reachable within %u points\n",
			       s->need, RINGSTEER_MAX_POINTS);
		}
	}
	if (js) {
		json_obj_end(&j);
		json_finish(&j);
	}
}
