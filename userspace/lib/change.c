// SPDX-License-Identifier: GPL-2.0
/*
 * A change applied to a copy of a service, as the kernel would apply it:
 * what "ringctl plan" previews against the live service and "ringctl
 * simulate" against the backends it is given. See change.h.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "cli.h"
#include "settings.h"

int rc_service_free_slots(const struct rc_service *s, uint32_t n, uint16_t *out)
{
	uint32_t cap = rc_service_capacity(s), i, k, got = 0;
	uint8_t *held = calloc(cap, 1);

	if (!held)
		return -ENOMEM;
	for (i = 0; i < s->nb; i++)
		for (k = 0; k < s->b[i].nslots; k++)
			if (s->b[i].slots[k] < cap)
				held[s->b[i].slots[k]] = 1;
	for (i = 0; i < cap && got < n; i++)
		if (!held[i])
			out[got++] = i;
	free(held);
	return got == n ? 0 : -ENOSPC;
}

int rc_backend_pick_slots(const struct rc_service *s, const struct rc_backend *b,
			  uint32_t n, uint16_t *out)
{
	uint32_t keep = b && b->nslots < n ? b->nslots : b ? n : 0;
	int err;

	/* Kept, its lowest: a lower weight gives up its highest slots. */
	if (keep)
		memcpy(out, b->slots, keep * sizeof(*out));
	err = rc_service_free_slots(s, n - keep, out + keep);
	/* No repeats to refuse: the kept are B's own, the rest free. */
	if (!err)
		rc_slots_sort(out, n);
	return err;
}

/* Whether @b holds one of @slots[n]. */
static bool holds_any(const struct rc_backend *b, const uint16_t *slots, uint32_t n)
{
	uint32_t i, k;

	for (i = 0; i < b->nslots; i++)
		for (k = 0; k < n; k++)
			if (b->slots[i] == slots[k])
				return true;
	return false;
}

/*
 * A slots service's backend @b after the request (@b->weight set): the
 * slots given, or as "backend add" and "set" pick them (the lowest free;
 * a lower weight gives up its highest). Refused as the kernel refuses
 * slots on a ring service or of another count than the weight.
 */
static int change_slots(const char *ctx, const struct rc_preview_req *r, struct rc_service *after,
		      struct rc_backend *b, bool slots_service)
{
	char be[RC_ENDPOINT_LEN];
	uint32_t n = b->weight, i;
	uint16_t *pick;
	int err;

	if (!slots_service)
		return r->b.nslots ? cli_error("%s: slots apply to placement slots only", ctx) : 0;
	if (r->b.nslots && r->b.nslots != n)
		return cli_error("%s: a placement slots backend holds as many slots as its weight",
				 ctx);
	if (!r->b.nslots && b->nslots == n)
		return 0;
	pick = malloc((n ? n : 1) * sizeof(*pick));
	if (!pick)
		return cli_error("%s: out of memory", ctx);
	if (r->b.nslots) {
		memcpy(pick, r->b.slots, n * sizeof(*pick));
		for (i = 0, err = 0; i < after->nb && !err; i++)
			err = &after->b[i] != b && holds_any(&after->b[i], pick, n);
		err = err ? -EEXIST : 0;
	} else {
		err = rc_backend_pick_slots(after, b->nslots ? b : NULL, n, pick);
	}
	for (i = 0; !err && i < n; i++)
		if (pick[i] >= rc_service_capacity(after))
			err = -ERANGE;
	if (err) {
		free(pick);
		/* The backend: simulate's service has no VIP to name. */
		rc_endpoint_format(be, &b->ep);
		return cli_error("%s: backend %s: %s (capacity %u)", ctx, be,
				 err == -ENOSPC ? "fewer free slots than its weight" :
				 err == -EEXIST ? "a slot held by another backend" :
				 "a slot beyond the capacity", rc_service_capacity(after));
	}
	free(b->slots);
	b->slots = pick;
	b->nslots = n;
	return 0;
}

/* A service set's settings; the kernel refuses a capacity below a slot held. */
static int apply_service(const char *ctx, const struct rc_preview_req *r,
			 struct rc_service *after)
{
	uint32_t i;

	if (r->s.has & RC_HAS_VNODES)
		after->vnodes = r->s.vnodes;
	if (r->s.has & RC_HAS_HASH)
		after->hash = r->s.hash;
	if ((r->s.has & RC_HAS_PLACEMENT) &&
	    rc_service_placement(&r->s) != rc_service_placement(after))
		return cli_error("%s: placement is fixed once the service exists", ctx);
	if (!(r->s.has & RC_HAS_CAPACITY))
		return 0;
	if (rc_service_placement(after) != RINGSTEER_PLACEMENT_SLOTS)
		return cli_error("%s: capacity applies to placement slots only", ctx);
	rc_setting_put(&rc_settings[RC_SET_CAPACITY], after, r->s.capacity);
	for (i = 0; i < after->nb; i++)
		if (after->b[i].nslots &&
		    after->b[i].slots[after->b[i].nslots - 1] >= r->s.capacity)
			return cli_error("%s: slot %u is beyond the new capacity: move it first", ctx,
					 after->b[i].slots[after->b[i].nslots - 1]);
	return 0;
}

int rc_change_apply(const char *ctx, const struct rc_preview_req *r,
		    const struct rc_service *live, struct rc_service *after)
{
	bool slots = rc_service_placement(live) == RINGSTEER_PLACEMENT_SLOTS;
	char name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN];
	struct rc_backend *b, nb;
	uint32_t i;

	*after = *live;
	after->b = NULL;
	after->nb = after->capb = 0;
	for (i = 0; i < live->nb; i++)
		if (!rc_service_add_backend(after, &live->b[i]))
			return cli_error("%s: out of memory", ctx);
	if (r->op == RC_PREVIEW_KEY_SET)
		return 0;
	if (r->op == RC_PREVIEW_SERVICE_SET)
		return apply_service(ctx, r, after);
	rc_endpoint_format(be, &r->b.ep);
	b = rc_service_find_backend(after, &r->b.ep);
	if (r->op == RC_PREVIEW_BACKEND_ADD) {
		if (b)
			return cli_error("%s: %s is already a backend of %s", ctx, be,
				      rc_service_name(name, live));
		nb = r->b;
		nb.slots = NULL;
		nb.nslots = 0;
		/* As the kernel: slots without a weight give it. */
		nb.weight = r->b.nslots && !(r->b.has & RC_HAS_WEIGHT) ? r->b.nslots :
			    rc_backend_weight(&r->b);
		nb.state = r->b.has & RC_HAS_STATE ? r->b.state : RINGSTEER_STATE_ACTIVE;
		nb.has = RC_HAS_WEIGHT | RC_HAS_STATE;
		b = rc_service_add_backend(after, &nb);
		if (!b)
			return cli_error("%s: out of memory", ctx);
		return change_slots(ctx, r, after, b, slots);
	}
	if (!b)
		return cli_error("%s: %s is not a backend of %s", ctx, be,
			      rc_service_name(name, live));
	if (r->op == RC_PREVIEW_BACKEND_DEL) {
		free(b->slots);
		*b = after->b[--after->nb];
		return 0;
	}
	if (r->op == RC_PREVIEW_BACKEND_DRAIN || r->op == RC_PREVIEW_BACKEND_ACTIVATE)
		b->state = r->op == RC_PREVIEW_BACKEND_DRAIN ? RINGSTEER_STATE_DRAINING :
							    RINGSTEER_STATE_ACTIVE;
	if (r->b.has & RC_HAS_WEIGHT)
		b->weight = r->b.weight;
	else if (r->b.nslots)
		b->weight = r->b.nslots;
	if (r->b.has & RC_HAS_STATE)
		b->state = r->b.state;
	b->has |= RC_HAS_WEIGHT | RC_HAS_STATE;
	return r->op == RC_PREVIEW_BACKEND_SET ? change_slots(ctx, r, after, b, slots) : 0;
}

