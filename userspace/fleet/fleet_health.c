// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet's health verdict from the checkers' votes (fleet_health.h).
 * Nothing here reads etcd or a clock: the same keys and configuration give
 * the same verdict on every load balancer.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_health.h"
#include "settings.h"

#define CHECKER_LEN 64

int fh_vote_key(char *buf, size_t len, const char *checker, const struct rc_service *s,
		const struct rc_endpoint *be)
{
	char vip[RC_ENDPOINT_LEN], ep[RC_ENDPOINT_LEN];
	int n;

	rc_endpoint_format(vip, &s->vip);
	rc_endpoint_format(ep, be);
	n = snprintf(buf, len, "%s/%s/%s/%s", checker, rc_proto_name(s->proto), vip, ep);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Whether KEY is "CHECKER/live": its checker's name into NAME. */
static bool live_key(const char *key, char name[CHECKER_LEN])
{
	const char *slash = strchr(key, '/');

	if (!slash || strcmp(slash, "/live") || slash == key || slash - key >= CHECKER_LEN)
		return false;
	memcpy(name, key, slash - key);
	name[slash - key] = '\0';
	return true;
}

static bool is_live(char *const *keys, size_t n, const char *checker)
{
	char name[CHECKER_LEN];
	size_t i;

	for (i = 0; i < n; i++)
		if (live_key(keys[i], name) && !strcmp(name, checker))
			return true;
	return false;
}

/* Live checkers voting backend BE of S down. */
static uint32_t votes(const struct rc_service *s, const struct rc_endpoint *be,
		      char *const *keys, size_t n)
{
	char want[256], name[CHECKER_LEN];
	uint32_t v = 0;
	const char *rest;
	size_t i;

	for (i = 0; i < n; i++) {
		rest = strchr(keys[i], '/');
		if (!rest || rest == keys[i] || rest - keys[i] >= CHECKER_LEN)
			continue;
		memcpy(name, keys[i], rest - keys[i]);
		name[rest - keys[i]] = '\0';
		if (fh_vote_key(want, sizeof(want), name, s, be) || strcmp(want, keys[i]))
			continue;
		if (is_live(keys, n, name))
			v++;
	}
	return v;
}

struct cand {
	struct rc_backend *b;
	uint32_t votes;
};

/* Most votes first, then by identity: the same order on every host. */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->votes != b->votes)
		return a->votes > b->votes ? -1 : 1;
	return rc_endpoint_cmp(&a->b->ep, &b->b->ep);
}

static void set_health(struct rc_backend *b, uint32_t health)
{
	b->health = health;
	b->has |= RC_HAS_HEALTH;
}

static uint32_t decide_service(struct rc_service *s, char *const *keys, size_t n,
			       uint32_t live, uint32_t quorum_pct, uint32_t max_down_pct)
{
	struct cand *cand = calloc(s->nb ? s->nb : 1, sizeof(*cand));
	uint32_t i, nc = 0, active = 0, allowed, down = 0, blocked = 0, v;

	if (!cand)
		return 0;
	for (i = 0; i < s->nb; i++) {
		struct rc_backend *b = &s->b[i];

		set_health(b, RINGSTEER_HEALTH_UP);
		if (rc_backend_state(b) == RINGSTEER_STATE_ACTIVE)
			active++;
		v = votes(s, &b->ep, keys, n);
		if (v && (uint64_t)v * 100 >= (uint64_t)quorum_pct * live)
			cand[nc++] = (struct cand){ .b = b, .votes = v };
	}
	qsort(cand, nc, sizeof(*cand), cand_cmp);
	/* max-down% of the active ones, and one active backend always up. */
	allowed = active * max_down_pct / 100;
	if (active && allowed >= active)
		allowed = active - 1;
	for (i = 0; i < nc; i++) {
		bool on_ring = rc_backend_state(cand[i].b) == RINGSTEER_STATE_ACTIVE;

		if (on_ring && down >= allowed) {
			blocked++;
			continue;
		}
		down += on_ring;
		set_health(cand[i].b, RINGSTEER_HEALTH_DOWN);
	}
	free(cand);
	return blocked;
}

uint32_t fh_decide(struct rc_config *c, char *const *keys, size_t n, uint32_t quorum_pct,
		   uint32_t max_down_pct, uint32_t *blocked)
{
	char name[CHECKER_LEN];
	uint32_t live = 0, bl = 0, i;

	for (i = 0; i < n; i++)
		live += live_key(keys[i], name);
	if (live)
		for (i = 0; i < c->ns; i++)
			bl += decide_service(&c->s[i], keys, n, live, quorum_pct, max_down_pct);
	if (blocked)
		*blocked = bl;
	return live;
}
