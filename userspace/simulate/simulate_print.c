// SPDX-License-Identifier: GPL-2.0
/*
 * What "ringctl simulate" prints, the part its text and its -j JSON share:
 * the owner of each given flow (both forms, one line or object a flow),
 * and how the report is read (which backends moved most, whether the
 * change grows the changed backend, the hash's name). The reports
 * themselves are simulate_print_text.c and simulate_print_json.c, each
 * its own set of functions over the same computed report.
 */

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "chain_hops.h"
#include "json.h"
#include "print.h"
#include "sim_report.h"

struct flow_owner {
	struct sim_flow_text t;
	char b1[RC_ENDPOINT_LEN], b2[RC_ENDPOINT_LEN];
	u64 pos;
	bool after;		/* b2 holds the owner after the change */
	/* chain: the hops after the change, the ring before it kept */
	u8 nhops;
	char hops[RS_CHAIN_MAX_HOPS][RC_ADDR_LEN];
};

/*
 * The hops a packet of the flow carries after the change with chain
 * s->chain: the kernel's computation (chain_hops.c) over the ring after
 * the change and the one before, which the change keeps.
 */
static void flow_hops(const struct sim *s, const struct rs_ring *r,
		      const struct rs_ring *r2, int o2, struct flow_owner *o)
{
	const struct rs_ring *rings[2] = { r2, r };
	u8 buf[RS_CHAIN_HOPS_ROOM];
	struct rc_endpoint ep = { .family = r2->members[o2].family };
	size_t alen = ep.family == AF_INET ? 4 : 16;
	u8 i;

	o->nhops = 0;
	if (s->chain < 2)
		return;
	o->nhops = rs_chain_hops(rings, 2, o->pos, &r2->members[o2], buf);
	for (i = 0; i < o->nhops; i++) {
		memcpy(ep.addr, buf + i * alen, alen);
		rc_addr_format(o->hops[i], &ep);
	}
}

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
	o->nhops = 0;
	if (o->after)
		sim_member_format(o->b2, &r2->members[o2]);
	else
		strcpy(o->b2, "-");
	/* A slots service keeps no chain: simulate refuses chain there. */
	if (o->after && !st2)
		flow_hops(s, r, r2, o2, o);
}

void print_sim_flows_text(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2, const struct rc_steer *st,
			  const struct rc_steer *st2)
{
	struct flow_owner o;
	struct rs_key k;
	u32 i;
	u8 h;

	rs_key_init(&k, s->key);
	for (i = 0; i < s->nflows; i++) {
		flow_owner(s, &k, i, r, r2, st, st2, &o);
		printf("%s %s %s %s%s%s", o.t.src, o.t.dst, o.t.proto, o.b1,
		       r2 ? " " : "", r2 ? o.b2 : "");
		for (h = 0; h < o.nhops; h++)
			printf("%s%s", h ? "," : " hops ", o.hops[h]);
		putchar('\n');
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
	u8 h;

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
		if (r2 && s->chain > 1) {
			json_arr_begin(&j, "hops");
			for (h = 0; h < o.nhops; h++)
				json_str(&j, NULL, o.hops[h]);
			json_arr_end(&j);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

u32 *print_sim_by_fraction(const struct rs_ring *r, const double *frac, bool all)
{
	u32 i, k, t, *ord = malloc(r->nmembers * sizeof(*ord));

	if (!ord)
		return NULL;
	for (i = 0; i < r->nmembers; i++)
		ord[i] = i;
	for (i = 0; i < r->nmembers; i++)	/* selection sort */
		for (k = i + 1; k < r->nmembers && (all || i < PRINT_SIM_TOP); k++)
			if (frac[ord[k]] > frac[ord[i]]) {
				t = ord[i];
				ord[i] = ord[k];
				ord[k] = t;
			}
	return ord;
}

bool print_sim_change_grows(const struct sim *s, const struct sim_report *p)
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

const char *print_sim_hash_name(const struct sim *s)
{
	return s->mode == RINGSTEER_HASH_FLOW ? "flow" : "source";
}

const struct rc_backend *print_sim_changed(const struct sim *s, const struct sim_report *p)
{
	int i;

	if (!p->slots || (s->change != CH_ADD && s->change != CH_WEIGHT))
		return NULL;
	i = rs_ring_find_member(p->sl.st2.ring, &s->cm);
	return i < 0 ? NULL : p->sl.holder2[i];
}
