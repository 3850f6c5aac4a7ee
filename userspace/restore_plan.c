// SPDX-License-Identifier: GPL-2.0
/* What restore changes, and in which order; see restore_plan.h. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "restore_plan.h"
#include "settings.h"

const char *rc_op_name(enum rc_op_kind kind)
{
	static const char *const names[] = {
		[RC_OP_KEY_SET] = "key set",
		[RC_OP_SERVICE_NEW] = "service add",
		[RC_OP_SERVICE_SET] = "service set",
		[RC_OP_SERVICE_DEL] = "service del",
		[RC_OP_BACKEND_NEW] = "backend add",
		[RC_OP_BACKEND_SET] = "backend set",
		[RC_OP_BACKEND_DEL] = "backend del",
	};

	return names[kind];
}

static int push(struct rc_plan *p, enum rc_op_kind kind, const struct rc_service *s,
		const struct rc_backend *b, uint32_t flags)
{
	struct rc_op *op;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;

		op = realloc(p->ops, cap * sizeof(*op));
		if (!op)
			return -ENOMEM;
		p->ops = op;
		p->cap = cap;
	}
	op = &p->ops[p->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	if (s) {
		op->s = *s;
		op->s.b = NULL;
		op->s.nb = op->s.capb = 0;
		/* Only the last set of a chained service gives them (kept_sets()). */
		op->s.has_kept = false;
	}
	if (b)
		op->b = *b;
	op->flags = flags;
	return 0;
}

/*
 * Each backend added re-places the whole ring, so n backends at v points
 * per unit of weight cost O(n^2 v) in the kernel (minutes for thousands of
 * backends). Built at one point per unit of weight and then set to v
 * once, the ring comes out the same, as it depends only on the key, v and
 * the set of active backends, for O(n^2 + n v log(n v)).
 */
static int new_service(struct rc_plan *p, const struct rc_service *s)
{
	bool staged = s->nb > 1 && rc_service_vnodes(s) > 1;
	struct rc_service first = *s, final = *s;
	uint32_t k;
	int err;

	if (staged) {
		first.vnodes = 1;
		first.has |= RC_HAS_VNODES;
		final.vnodes = rc_service_vnodes(s);
		final.has = RC_HAS_VNODES;
	}
	err = push(p, RC_OP_SERVICE_NEW, &first, NULL, 0);
	for (k = 0; !err && k < s->nb; k++)
		err = push(p, RC_OP_BACKEND_NEW, s, &s->b[k], 0);
	if (!err && staged)
		err = push(p, RC_OP_SERVICE_SET, &final, NULL, 0);
	return err;
}

static uint32_t active_weight(const struct rc_backend *b)
{
	return b && rc_backend_state(b) == RINGSTEER_STATE_ACTIVE ? rc_backend_weight(b) : 0;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/*
 * Whether LIVE's backends, WANT's added and the changes between could
 * pass the kernel's limits for a moment: backends of the service, or ring
 * points (every backend at the larger of its two weights, at the larger
 * vnodes). Then the deletes go first.
 */
static bool deletes_first(const struct rc_service *live, const struct rc_service *want)
{
	uint64_t points = 0;
	uint32_t i, n = live->nb;

	for (i = 0; i < want->nb; i++)
		if (!rc_service_find_backend(live, &want->b[i].ep))
			n++;
	if (n > RINGSTEER_MAX_BACKENDS)
		return true;
	for (i = 0; i < live->nb; i++)
		points += max_u32(active_weight(&live->b[i]),
				  active_weight(rc_service_find_backend(want, &live->b[i].ep)));
	for (i = 0; i < want->nb; i++)
		if (!rc_service_find_backend(live, &want->b[i].ep))
			points += active_weight(&want->b[i]);
	points *= max_u32(rc_service_vnodes(live), rc_service_vnodes(want));
	return points > RINGSTEER_MAX_POINTS;
}

static int backend_deletes(struct rc_plan *p, const struct rc_service *live,
			   const struct rc_service *want, uint32_t flags)
{
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < live->nb; i++)
		if (!rc_service_find_backend(want, &live->b[i].ep))
			err = push(p, RC_OP_BACKEND_DEL, live, &live->b[i], flags);
	return err;
}

/*
 * Row K of WANT into the request P (struct rc_service or rc_backend), with
 * what goes with it: a setting that follows its parent's word ("encap gue
 * port N") travels with that parent, both ways, as the kernel wants.
 */
static void take(unsigned int k, void *p, const void *want)
{
	const struct rc_setting *r = &rc_settings[k];
	unsigned int i;

	if (rc_setting_given(r, p))
		return;
	rc_setting_put(r, p, rc_setting_value(r, want));
	if ((r->flags & RC_SF_SUB) && r->parent != RC_NO_PARENT)
		take(r->parent, p, want);
	for (i = 0; i < rc_nsettings; i++)
		if ((rc_settings[i].flags & RC_SF_SUB) && rc_settings[i].parent == (int)k &&
		    rc_setting_applies(&rc_settings[i], want))
			take(i, p, want);
}

/*
 * Each setting of OBJ a set changes and a file holds that differs between
 * LIVE and WANT, where it means something in WANT, into P.
 */
static void diff(enum rc_obj obj, const void *live, const void *want, void *p)
{
	const struct rc_setting *r;
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		r = &rc_settings[k];
		if (r->obj != obj || !(r->ops & RC_SOP_SET) ||
		    (r->flags & (RC_SF_FIXED | RC_SF_CHECKER)) || !rc_setting_applies(r, want))
			continue;
		if (rc_setting_value(r, live) != rc_setting_value(r, want))
			take(k, p, want);
	}
}

static int backend_set(struct rc_plan *p, const struct rc_service *want,
		       const struct rc_backend *old, const struct rc_backend *new)
{
	struct rc_backend b = { .ep = new->ep };

	diff(RC_OBJ_BACKEND, old, new, &b);
	/* Slots, a list beside the rows: WANT's, borrowed for the plan's life. */
	if (new->nslots && (new->nslots != old->nslots ||
			    memcmp(new->slots, old->slots, new->nslots * sizeof(*new->slots)))) {
		b.slots = new->slots;
		b.nslots = new->nslots;
	}
	return b.has || b.nslots ? push(p, RC_OP_BACKEND_SET, want, &b, 0) : 0;
}

static int service_set(struct rc_plan *p, const struct rc_service *live,
		       const struct rc_service *want)
{
	struct rc_service s = *want;

	s.has = 0;
	diff(RC_OBJ_SERVICE, live, want, &s);
	return s.has ? push(p, RC_OP_SERVICE_SET, &s, NULL, 0) : 0;
}

/*
 * Whether a setting a service keeps for life (forward, placement:
 * RC_SF_FIXED) differs: then WANT is a new service, not a change of LIVE.
 */
static bool fixed_differs(const struct rc_service *live, const struct rc_service *want)
{
	const struct rc_setting *r;
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		r = &rc_settings[k];
		if (r->obj == RC_OBJ_SERVICE && (r->flags & RC_SF_FIXED) &&
		    rc_setting_value(r, live) != rc_setting_value(r, want))
			return true;
	}
	return false;
}

/* Steps 3 (and 4 if the deletes go first) for a service both have. */
static int kept_service(struct rc_plan *p, const struct rc_service *live,
			const struct rc_service *want, uint32_t flags)
{
	const struct rc_backend *old;
	uint32_t i;
	int err = 0;

	/* A service keeps its forward mode and placement: new ones, a new service. */
	if (fixed_differs(live, want))
		return push(p, RC_OP_SERVICE_DEL, live, NULL, flags) ?:
		       new_service(p, want);

	if (deletes_first(live, want))
		err = backend_deletes(p, live, want, flags);
	for (i = 0; !err && i < want->nb; i++)
		if (!rc_service_find_backend(live, &want->b[i].ep))
			err = push(p, RC_OP_BACKEND_NEW, want, &want->b[i], 0);
	for (i = 0; !err && i < want->nb; i++) {
		old = rc_service_find_backend(live, &want->b[i].ep);
		if (old)
			err = backend_set(p, want, old, &want->b[i]);
	}
	return err ? err : service_set(p, live, want);
}

static int service_deletes(struct rc_plan *p, const struct rc_config *live,
			   const struct rc_config *want, uint32_t flags)
{
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < live->ns; i++)
		if (!rc_config_find_service(want, &live->s[i]))
			err = push(p, RC_OP_SERVICE_DEL, &live->s[i], NULL, flags);
	return err;
}

/* Whether live and new services together pass the kernel's limit. */
static bool services_over(const struct rc_config *live, const struct rc_config *want)
{
	uint32_t i, n = live->ns;

	for (i = 0; i < want->ns; i++)
		n += !rc_config_find_service(live, &want->s[i]);
	return n > RINGSTEER_MAX_SERVICES;
}

/* Steps 2 and 3. */
static int adds_and_changes(struct rc_plan *p, const struct rc_config *live,
			    const struct rc_config *want, uint32_t flags)
{
	const struct rc_service *old;
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < want->ns; i++)
		if (!rc_config_find_service(live, &want->s[i]))
			err = new_service(p, &want->s[i]);
	for (i = 0; !err && i < want->ns; i++) {
		old = rc_config_find_service(live, &want->s[i]);
		if (old)
			err = kept_service(p, old, &want->s[i], flags);
	}
	return err;
}

/* Whether an op of P so far changes S's ring (or every ring: a new key). */
static bool touched(const struct rc_plan *p, const struct rc_service *s)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (p->ops[i].kind == RC_OP_KEY_SET || !rc_service_cmp(&p->ops[i].s, s))
			return true;
	return false;
}

static bool kept_differs(const struct rc_service *live, const struct rc_service *want)
{
	return !live->has_kept || live->kept_rings != want->kept_rings ||
	       live->nkept != want->nkept ||
	       memcmp(live->kept, want->kept, want->nkept * sizeof(want->kept[0]));
}

/*
 * Last, the kept rings a file gives, for each chained service whose ring
 * the plan changed or whose chain differs: every change before pushed a
 * ring into the chain as the kernel does live, so that the flows the
 * restore itself moves keep their hops meanwhile; this one makes the
 * chain the file's (chain_kept.h), as it was where the file was saved.
 */
static int kept_sets(struct rc_plan *p, const struct rc_config *live,
		     const struct rc_config *want)
{
	const struct rc_service *old;
	struct rc_service s;
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < want->ns; i++) {
		if (!want->s[i].has_kept)
			continue;
		old = rc_config_find_service(live, &want->s[i]);
		if (old && !touched(p, &want->s[i]) && !kept_differs(old, &want->s[i]))
			continue;
		s = want->s[i];
		s.has = 0;
		err = push(p, RC_OP_SERVICE_SET, &s, NULL, 0);
		if (!err)
			p->ops[p->n - 1].s.has_kept = true;
	}
	return err;
}

int rc_plan_restore(const struct rc_config *live, const struct rc_config *want,
		    uint32_t del_flags, struct rc_plan *p)
{
	bool svc_del_first = services_over(live, want);
	const struct rc_service *old;
	uint32_t i;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (want->has_key && (!live->has_key || memcmp(live->key, want->key, sizeof(want->key)))) {
		err = push(p, RC_OP_KEY_SET, NULL, NULL, 0);
		if (!err)
			memcpy(p->ops[0].key, want->key, sizeof(want->key));
	}
	if (!err && svc_del_first)
		err = service_deletes(p, live, want, del_flags);
	if (!err)
		err = adds_and_changes(p, live, want, del_flags);
	for (i = 0; !err && i < want->ns; i++) {
		old = rc_config_find_service(live, &want->s[i]);
		if (old && !fixed_differs(old, &want->s[i]) &&
		    !deletes_first(old, &want->s[i]))
			err = backend_deletes(p, old, &want->s[i], del_flags);
	}
	if (!err && !svc_del_first)
		err = service_deletes(p, live, want, del_flags);
	if (!err)
		err = kept_sets(p, live, want);
	if (err)
		rc_plan_free(p);
	return err;
}

void rc_plan_free(struct rc_plan *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}
