// SPDX-License-Identifier: GPL-2.0
/*
 * What a change would move, from two snapshots of a service: the rings
 * are built with the kernel's own code (kmod/ring.c) exactly as the kernel
 * builds them, and compared arc by arc (sim_ring_diff), so the moved fraction is
 * exact, not sampled. See preview.h.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chain_hops.h"
#include "preview.h"
#include "ringmath.h"
#include "settings.h"
#include "slotmath.h"

#define TWO64 18446744073709551616.0

void rc_member_of(struct rs_member *m, const struct rc_endpoint *ep, uint32_t weight)
{
	memset(m, 0, sizeof(*m));
	m->family = ep->family;
	memcpy(m->addr, ep->addr, sizeof(m->addr));
	m->port = htons(ep->port);
	m->weight = weight;
}

/* As the kernel: active and up (a file says nothing of health: up). */
static bool owns_points(const struct rc_backend *b)
{
	return rc_backend_on_ring(b);
}

struct rs_ring *rc_service_ring(const uint8_t key[RINGSTEER_KEY_LEN],
				const struct rc_service *s)
{
	struct rs_member *m = calloc(s->nb ? s->nb : 1, sizeof(*m));
	bool slots = rc_service_placement(s) == RINGSTEER_PLACEMENT_SLOTS;
	struct rs_ring *r;
	uint32_t i, n = 0;

	if (!m)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < s->nb; i++)
		if (owns_points(&s->b[i]))
			rc_member_of(&m[n++], &s->b[i].ep, rc_backend_weight(&s->b[i]));
	/* As rs_ring_vnodes(): a slots service's ring has a point a slot. */
	r = rs_ring_build(key, m, n, slots ? 1 : rc_service_vnodes(s));
	free(m);
	return r;
}

/* The table over @ring's members: each holds its backend's slots. */
static struct rs_slots *service_slots(const struct rc_service *s,
				      const struct rs_ring *ring)
{
	struct rs_slot_holder *h;
	struct rs_slots *t;
	struct rc_endpoint ep;
	const struct rc_backend *b;
	uint32_t i, k, n = 0, room = 0, bits = 0;

	for (i = 0; i < s->nb; i++)
		room += s->b[i].nslots;
	h = malloc((room ? room : 1) * sizeof(*h));
	if (!h)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < ring->nmembers; i++) {
		memset(&ep, 0, sizeof(ep));
		ep.family = ring->members[i].family;
		memcpy(ep.addr, ring->members[i].addr, sizeof(ep.addr));
		ep.port = ntohs(ring->members[i].port);
		b = rc_service_find_backend(s, &ep);
		for (k = 0; b && k < b->nslots; k++)
			h[n++] = (struct rs_slot_holder){ b->slots[k], (u16)i };
	}
	while ((1U << bits) < rc_service_capacity(s))
		bits++;
	t = rs_slots_build(bits, h, n);
	free(h);
	return t;
}

int rc_steer_build(const uint8_t key[RINGSTEER_KEY_LEN], const struct rc_service *s,
		   struct rc_steer *st)
{
	struct rs_ring *r = rc_service_ring(key, s);
	struct rs_slots *t = NULL;

	st->ring = NULL;
	st->slots = NULL;
	if (IS_ERR(r))
		return PTR_ERR(r);
	if (rc_service_placement(s) == RINGSTEER_PLACEMENT_SLOTS)
		t = service_slots(s, r);
	if (IS_ERR(t)) {
		rs_ring_free(r);
		return PTR_ERR(t);
	}
	st->ring = r;
	st->slots = t;
	return 0;
}

void rc_steer_free(struct rc_steer *st)
{
	rs_ring_free(st->ring);
	if (st->slots)
		rs_slots_free(st->slots);
	st->ring = NULL;
	st->slots = NULL;
}

int rc_steer_lookup(const struct rc_steer *st, u64 pos)
{
	return st->slots ? rs_slots_lookup(st->slots, pos) : rs_ring_lookup(st->ring, pos);
}

bool rc_flow_to_service(const struct rs_flow *f, const struct rc_service *s)
{
	return f->family == s->vip.family && f->proto == s->proto &&
	       ntohs(f->dport) == s->vip.port &&
	       !memcmp(f->daddr, s->vip.addr, sizeof(f->daddr));
}

/* Each flow's backend by ST, hashed as service S hashes (OWNER[fl->n]). */
static void flow_owners(const struct rc_steer *st, const struct rc_service *s,
			const struct rc_preview_flows *fl, struct rc_endpoint *owner)
{
	const struct rs_ring *r = st->ring;
	const struct rs_member *m;
	uint32_t i;
	int idx;

	for (i = 0; i < fl->n; i++) {
		memset(&owner[i], 0, sizeof(owner[i]));
		idx = rc_steer_lookup(st, rs_flow_position(&r->key, &fl->f[i], rc_service_hash(s)));
		if (idx < 0)
			continue;
		m = &r->members[idx];
		owner[i].family = m->family;
		memcpy(owner[i].addr, m->addr, sizeof(owner[i].addr));
		owner[i].port = ntohs(m->port);
	}
}

/*
 * Kept ring RING of S as the kernel builds it (kmod/chain_kept.c): the
 * current ring's members with S's records of RING applied; its
 * fingerprint into *FP.
 */
static int kept_fingerprint(const uint8_t *key, const struct rc_service *s,
			    const struct rs_ring *cur, uint32_t ring, u64 *fp)
{
	struct rs_member *m = calloc(cur->nmembers + s->nkept + 1, sizeof(*m));
	const struct ringsteer_kept_member *r;
	uint32_t n = cur->nmembers, i, k;
	struct rs_member x;
	struct rs_ring *kr;
	int err;

	if (!m)
		return -ENOMEM;
	memcpy(m, cur->members, n * sizeof(*m));
	for (i = 0; i < s->nkept; i++) {
		r = &s->kept[i];
		if (r->ring != ring)
			continue;
		memset(&x, 0, sizeof(x));
		x.family = r->family;
		memcpy(x.addr, r->addr, sizeof(x.addr));
		x.port = r->port;
		x.weight = r->weight;
		for (k = 0; k < n && rs_member_cmp(&m[k], &x); k++)
			;
		m[k == n ? n++ : k] = x;
	}
	for (i = 0, k = 0; i < n; i++)
		if (m[i].weight)
			m[k++] = m[i];
	kr = rs_ring_build(key, m, k, rc_service_vnodes(s));
	free(m);
	if (IS_ERR(kr))
		return PTR_ERR(kr);
	err = rs_ring_fingerprint(kr, rc_service_hash(s), fp);
	rs_ring_free(kr);
	return err;
}

/* The chain's part of S's fingerprint, over the ring's FP (kmod/nlmsg.c). */
static int chain_fingerprint(const uint8_t *key, const struct rc_service *s,
			     const struct rs_ring *cur, u64 *fp)
{
	u64 kept[RINGSTEER_MAX_CHAIN - 1];
	uint32_t i, n = s->has_kept ? s->kept_rings : 0;
	int err;

	if (n > RINGSTEER_MAX_CHAIN - 1)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		err = kept_fingerprint(key, s, cur, i, &kept[i]);
		if (err)
			return err;
	}
	*fp = rs_chain_fingerprint(*fp, rc_service_chain(s), kept, n);
	return 0;
}

/*
 * Each service's fingerprint as the kernel computes it (kmod/nlmsg.c):
 * its ring's, for placement slots the table's over that, and for a chain
 * the chain's over that, with the kept rings the file gives.
 */
int rc_config_fingerprints(struct rc_config *c)
{
	struct rc_steer st;
	uint32_t i;
	int err = 0;
	u64 fp = 0;

	for (i = 0; i < c->ns && !err; i++) {
		err = rc_steer_build(c->key, &c->s[i], &st);
		if (!err) {
			err = rs_ring_fingerprint(st.ring, rc_service_hash(&c->s[i]), &fp);
			if (!err && st.slots)
				err = rs_slots_fingerprint(st.slots, fp, &fp);
			if (!err)
				err = chain_fingerprint(c->key, &c->s[i], st.ring, &fp);
			rc_steer_free(&st);
		}
		c->s[i].fingerprint = fp;
		c->s[i].has_fingerprint = !err;
	}
	return err;
}

/*
 * Each backend's fraction of the hash space, by member index: exact from
 * the ring's arcs, or the slots' by rule.
 */
static double *shares(const struct rc_steer *st)
{
	const struct rs_ring *r = st->ring;
	double *sh = calloc(r->nmembers ? r->nmembers : 1, sizeof(*sh));
	u64 *arcs = calloc(r->nmembers ? r->nmembers : 1, sizeof(*arcs));
	u32 i;

	if (sh && st->slots)
		sim_slots_rule_shares(st->slots, r->nmembers, sh);
	else if (sh && arcs && r->nmembers && !rs_ring_arcs(r, arcs))
		for (i = 0; i < r->nmembers; i++)
			sh[i] = arcs[i] / TWO64;
	free(arcs);
	return sh;
}

static int index_in(const struct rs_ring *r, const struct rc_endpoint *ep)
{
	struct rs_member m;

	rc_member_of(&m, ep, 1);
	return rs_ring_find_member(r, &m);
}

/* The union of both backend lists, with shares; conns from A. */
static int fill_backends(const struct rc_service *a, const struct rc_service *b,
			 const struct rs_ring *ra, const struct rs_ring *rb,
			 const double *sa, const double *sb, struct rc_preview *p)
{
	uint32_t i, n = 0;
	int ia, ib;

	p->b = calloc(a->nb + b->nb + 1, sizeof(*p->b));
	if (!p->b)
		return -ENOMEM;
	for (i = 0; i < a->nb + b->nb; i++) {
		const struct rc_backend *be = i < a->nb ? &a->b[i] : &b->b[i - a->nb];
		struct rc_preview_backend *pb = &p->b[n];
		bool in_b = rc_service_find_backend((struct rc_service *)b, &be->ep);

		if (i >= a->nb && rc_service_find_backend((struct rc_service *)a, &be->ep))
			continue;
		pb->ep = be->ep;
		pb->gone = !in_b;
		if (i < a->nb && be->has_conns)
			pb->conns = be->conns_established + be->conns_other;
		ia = index_in(ra, &be->ep);
		ib = index_in(rb, &be->ep);
		pb->before = ia >= 0;
		pb->after = ib >= 0;
		pb->share_before = ia >= 0 ? sa[ia] : 0;
		pb->share_after = ib >= 0 ? sb[ib] : 0;
		n++;
	}
	p->nb = n;
	return 0;
}

/*
 * Across a capacity change every flow's probes are read at another width:
 * no rule says which stay, so SIM_SAMPLES_DEFAULT positions drawn from the
 * key are looked up in both tables and counted.
 */
static int sampled_moves(const struct rc_steer *sa, const struct rc_steer *sb,
			 const struct rs_member *x, struct sim_diff *d)
{
	struct sim_table ta = { .ring = sa->ring, .slots = sa->slots,
				.members = sa->ring->members, .nmembers = sa->ring->nmembers };
	struct sim_table tb = { .ring = sb->ring, .slots = sb->slots,
				.members = sb->ring->members, .nmembers = sb->ring->nmembers };
	u32 n = SIM_SAMPLES_DEFAULT;
	u64 *pos = sim_sample_positions(&sa->ring->key, n);
	int *oa = malloc(n * sizeof(*oa)), *ob = malloc(n * sizeof(*ob));
	struct sim_sampled st;
	struct sim_sampled_diff sd;
	int err = -ENOMEM;

	if (pos && oa && ob)
		err = sim_sample(&ta, pos, n, oa, &st) ?: sim_sample(&tb, pos, n, ob, &st) ?:
		      sim_sampled_diff(&ta, oa, &tb, ob, n, x, &sd, d->from, d->to);
	if (!err) {
		d->moved = (double)sd.moved / n;
		d->collateral = (double)sd.collateral / n;
	}
	free(pos);
	free(oa);
	free(ob);
	return err;
}

/* A slots service's moves: by rule at one capacity, else sampled. */
static int slots_moves(const struct rc_steer *sa, const struct rc_steer *sb,
		       const struct rs_member *x, struct sim_diff *d, struct rc_preview *p)
{
	if (sa->slots->bits != sb->slots->bits) {
		p->sampled = true;
		return sampled_moves(sa, sb, x, d);
	}
	p->by_rule = true;
	return sim_slots_rule_diff(sa->ring, sa->slots, sb->ring, sb->slots, x,
				   &d->moved, &d->collateral, d->from, d->to);
}

/*
 * Exact: the arcs whose owner differs (positions of flows unchanged); for
 * placement slots, by rule or sampled.
 */
static int exact_moves(const struct rc_steer *sa, const struct rc_steer *sb,
		       const struct rc_endpoint *x, struct rc_preview *p)
{
	const struct rs_ring *ra = sa->ring, *rb = sb->ring;
	struct sim_diff d = { 0 };
	struct rs_member xm;
	uint32_t i;
	int err, k;

	d.from = calloc(ra->nmembers + 1, sizeof(double));
	d.to = calloc(rb->nmembers + 1, sizeof(double));
	if (x)
		rc_member_of(&xm, x, 1);
	if (!d.from || !d.to)
		err = -ENOMEM;
	else if (sa->slots && sb->slots)
		err = slots_moves(sa, sb, x ? &xm : NULL, &d, p);
	else
		err = sim_ring_diff(ra, rb, x ? &xm : NULL, &d);
	if (!err && (p->by_rule || p->sampled))
		d.collateral_exact = d.collateral <= 0 ? 0 :
				     d.collateral >= 1 ? U64_MAX :
				     (unsigned long long)(d.collateral * TWO64);
	if (!err) {
		p->moved = d.moved;
		p->collateral = d.collateral;
		p->collateral_exact = d.collateral_exact;
		for (i = 0; i < p->nb; i++) {
			k = index_in(ra, &p->b[i].ep);
			p->b[i].leaves = k >= 0 ? d.from[k] : 0;
			k = index_in(rb, &p->b[i].ep);
			p->b[i].arrives = k >= 0 ? d.to[k] : 0;
		}
	}
	free(d.from);
	free(d.to);
	return err;
}

/*
 * The flows' positions are drawn anew (another key or hash mode): a flow
 * keeps its backend with probability sum(share before * share after).
 */
static void expected_moves(struct rc_preview *p)
{
	double stay = 0;
	uint32_t i;

	for (i = 0; i < p->nb; i++) {
		struct rc_preview_backend *pb = &p->b[i];

		stay += pb->share_before * pb->share_after;
		pb->leaves = pb->share_before * (1 - pb->share_after);
		pb->arrives = pb->share_after * (1 - pb->share_before);
	}
	p->moved = 1 - stay;
	p->expected = true;
}

/* A backend's connections in the moving part: exact when all or none. */
static void conns_moving(struct rc_preview *p)
{
	uint32_t i;

	p->conns_exact = true;
	for (i = 0; i < p->nb; i++) {
		struct rc_preview_backend *pb = &p->b[i];

		pb->conns_exact = true;
		if (pb->gone || (pb->before && !pb->after)) {
			pb->conns_moving = pb->conns;
		} else if (!pb->before || pb->leaves <= 0) {
			pb->conns_moving = 0;
		} else if (pb->leaves >= pb->share_before) {
			pb->conns_moving = pb->conns;
		} else {
			/* Connections spread over its arcs like positions do. */
			pb->conns_moving = pb->conns * (pb->leaves / pb->share_before);
			pb->conns_exact = !pb->conns;
		}
		p->conns_moving += pb->conns_moving;
		p->conns_exact &= pb->conns_exact;
	}
}

int rc_preview_compute(const uint8_t key_a[RINGSTEER_KEY_LEN], const struct rc_service *a,
		    const uint8_t key_b[RINGSTEER_KEY_LEN], const struct rc_service *b,
		    const struct rc_endpoint *x, const struct rc_preview_flows *fl,
		    struct rc_preview *p)
{
	struct rc_steer ta, tb;
	struct rs_ring *ra, *rb;
	double *sa, *sb;
	uint32_t i;
	int err;

	memset(p, 0, sizeof(*p));
	err = rc_steer_build(key_a, a, &ta);
	if (err)
		return err;
	err = rc_steer_build(key_b, b, &tb);
	if (err) {
		rc_steer_free(&ta);
		return err;
	}
	ra = ta.ring;
	rb = tb.ring;
	if (fl) {
		flow_owners(&ta, a, fl, fl->before);
		flow_owners(&tb, b, fl, fl->after);
	}
	sa = shares(&ta);
	sb = shares(&tb);
	err = sa && sb ? fill_backends(a, b, ra, rb, sa, sb, p) : -ENOMEM;
	if (err)
		goto out;
	if (ra->npoints && rb->npoints) {
		if (memcmp(key_a, key_b, RINGSTEER_KEY_LEN) || rc_service_hash(a) != rc_service_hash(b))
			expected_moves(p);
		else
			err = exact_moves(&ta, &tb, x, p);
	} else if (ra->npoints || rb->npoints) {
		/* From or to no backend at all: every flow changes. */
		p->moved = 1;
		for (i = 0; i < p->nb; i++) {
			p->b[i].leaves = p->b[i].share_before;
			p->b[i].arrives = p->b[i].share_after;
		}
	}
	if (!err)
		conns_moving(p);
out:
	rc_steer_free(&ta);
	rc_steer_free(&tb);
	free(sa);
	free(sb);
	if (err)
		rc_preview_free(p);
	return err;
}

void rc_preview_free(struct rc_preview *p)
{
	free(p->b);
	p->b = NULL;
	p->nb = 0;
}
