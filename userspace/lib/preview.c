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

#include "preview.h"
#include "ringmath.h"

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
	struct rs_ring *r;
	uint32_t i, n = 0;

	if (!m)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < s->nb; i++)
		if (owns_points(&s->b[i]))
			rc_member_of(&m[n++], &s->b[i].ep, rc_backend_weight(&s->b[i]));
	r = rs_ring_build(key, m, n, rc_service_vnodes(s));
	free(m);
	return r;
}

bool rc_flow_to_service(const struct rs_flow *f, const struct rc_service *s)
{
	return f->family == s->vip.family && f->proto == s->proto &&
	       ntohs(f->dport) == s->vip.port &&
	       !memcmp(f->daddr, s->vip.addr, sizeof(f->daddr));
}

/* Each flow's backend on R, hashed as service S hashes (OWNER[fl->n]). */
static void flow_owners(const struct rs_ring *r, const struct rc_service *s,
			const struct rc_preview_flows *fl, struct rc_endpoint *owner)
{
	const struct rs_member *m;
	uint32_t i;
	int idx;

	for (i = 0; i < fl->n; i++) {
		memset(&owner[i], 0, sizeof(owner[i]));
		idx = rs_ring_lookup(r, rs_flow_position(&r->key, &fl->f[i], rc_service_hash(s)));
		if (idx < 0)
			continue;
		m = &r->members[idx];
		owner[i].family = m->family;
		memcpy(owner[i].addr, m->addr, sizeof(owner[i].addr));
		owner[i].port = ntohs(m->port);
	}
}

/* rs_ring_fingerprint() of each service's ring, as the kernel builds it. */
int rc_config_fingerprints(struct rc_config *c)
{
	struct rs_ring *r;
	uint32_t i;
	int err = 0;
	u64 fp = 0;

	for (i = 0; i < c->ns && !err; i++) {
		r = rc_service_ring(c->key, &c->s[i]);
		if (IS_ERR(r)) {
			err = PTR_ERR(r);
		} else {
			err = rs_ring_fingerprint(r, rc_service_hash(&c->s[i]), &fp);
			rs_ring_free(r);
		}
		c->s[i].fingerprint = fp;
		c->s[i].has_fingerprint = !err;
	}
	return err;
}

/* Each backend's exact fraction of the hash space, by member index. */
static double *shares(const struct rs_ring *r)
{
	double *sh = calloc(r->nmembers ? r->nmembers : 1, sizeof(*sh));
	u64 *arcs = calloc(r->nmembers ? r->nmembers : 1, sizeof(*arcs));
	u32 i;

	if (sh && arcs && r->nmembers && !rs_ring_arcs(r, arcs))
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

/* Exact: the arcs whose owner differs (positions of flows unchanged). */
static int exact_moves(const struct rs_ring *ra, const struct rs_ring *rb,
		       const struct rc_endpoint *x, struct rc_preview *p)
{
	struct sim_diff d = { 0 };
	struct rs_member xm;
	uint32_t i;
	int err, k;

	d.from = calloc(ra->nmembers + 1, sizeof(double));
	d.to = calloc(rb->nmembers + 1, sizeof(double));
	if (x)
		rc_member_of(&xm, x, 1);
	err = d.from && d.to ? sim_ring_diff(ra, rb, x ? &xm : NULL, &d) : -ENOMEM;
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
	struct rs_ring *ra, *rb;
	double *sa, *sb;
	uint32_t i;
	int err;

	memset(p, 0, sizeof(*p));
	ra = rc_service_ring(key_a, a);
	if (IS_ERR(ra))
		return PTR_ERR(ra);
	rb = rc_service_ring(key_b, b);
	if (IS_ERR(rb)) {
		rs_ring_free(ra);
		return PTR_ERR(rb);
	}
	if (fl) {
		flow_owners(ra, a, fl, fl->before);
		flow_owners(rb, b, fl, fl->after);
	}
	sa = shares(ra);
	sb = shares(rb);
	err = sa && sb ? fill_backends(a, b, ra, rb, sa, sb, p) : -ENOMEM;
	if (err)
		goto out;
	if (ra->npoints && rb->npoints) {
		if (memcmp(key_a, key_b, RINGSTEER_KEY_LEN) || rc_service_hash(a) != rc_service_hash(b))
			expected_moves(p);
		else
			err = exact_moves(ra, rb, x, p);
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
	rs_ring_free(ra);
	rs_ring_free(rb);
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
