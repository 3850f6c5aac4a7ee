// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's state machine; see health_fsm.h. Guards are evaluated
 * against what the kernel says (state and health of every backend of the
 * service), so that several checkers, an operator and restarts all see
 * the same numbers.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "health_fsm.h"
#include "settings.h"

int hc_state_init(struct hc_state *st, const struct hc_config *conf)
{
	uint32_t i;

	memset(st, 0, sizeof(*st));
	st->conf = conf;
	st->s = calloc(conf->ns, sizeof(*st->s));
	if (!st->s)
		return -ENOMEM;
	for (i = 0; i < conf->ns; i++)
		st->s[i].conf = &conf->s[i];
	return 0;
}

void hc_state_free(struct hc_state *st)
{
	uint32_t i, k;

	for (i = 0; st->s && i < st->conf->ns; i++) {
		for (k = 0; k < st->s[i].nb; k++)
			free(st->s[i].b[k]);
		free(st->s[i].b);
	}
	free(st->s);
	st->s = NULL;
}

static struct hc_be *find(const struct hc_svc *s, const struct rc_endpoint *ep)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (!rc_endpoint_cmp(&s->b[i]->ep, ep))
			return s->b[i];
	return NULL;
}

static int add(struct hc_svc *s, const struct rc_backend *kb)
{
	struct hc_be **v, *b;

	v = realloc(s->b, (s->nb + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->b = v;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ep = kb->ep;
	hc_conf_target(s->conf, &kb->ep, &b->to);
	b->state = rc_backend_state(kb);
	b->health = rc_backend_health(kb);
	s->b[s->nb++] = b;
	return 0;
}

int hc_sync(struct hc_svc *s, const struct rc_service *ks, uint64_t now,
	    void (*gone)(struct hc_be *b, void *data), void *data)
{
	struct hc_be *b;
	uint32_t i, k;
	int err;

	s->present = ks;
	for (i = 0; i < s->nb; i++)
		s->b[i]->seen = false;
	for (i = 0; ks && i < ks->nb; i++) {
		b = find(s, &ks->b[i].ep);
		if (!b) {
			err = add(s, &ks->b[i]);
			if (err)
				return err;
			s->b[s->nb - 1]->seen = true;
			continue;
		}
		b->seen = true;
		b->state = rc_backend_state(&ks->b[i]);
		if (b->health != rc_backend_health(&ks->b[i])) {
			b->health = rc_backend_health(&ks->b[i]);
			b->changed = true;
			b->changed_ms = now;
		}
	}
	for (i = k = 0; i < s->nb; i++) {
		if (s->b[i]->seen) {
			s->b[k++] = s->b[i];
			continue;
		}
		if (gone)
			gone(s->b[i], data);
		free(s->b[i]);
	}
	s->nb = k;
	return 0;
}

uint32_t hc_missing(const struct hc_state *st)
{
	uint32_t i, n = 0;

	for (i = 0; i < st->conf->ns; i++)
		n += !st->s[i].present;
	return n;
}

void hc_result(struct hc_target *t, bool ok, const char *why, uint64_t now)
{
	t->probes++;
	if (ok) {
		if (!t->ok_streak)
			t->ok_since = now;
		t->ok_streak++;
		t->fail_streak = 0;
		return;
	}
	t->ok_streak = 0;
	t->fail_streak++;
	snprintf(t->why, sizeof(t->why), "%s", why ? why : "failed");
}

bool hc_settled(const struct hc_target *t, const struct hc_check *c)
{
	return t->probes >= (c->rise > c->fall ? c->rise : c->fall);
}

bool hc_update(struct hc_state *st)
{
	const struct hc_config *conf = st->conf;
	bool all = true, frozen = false;
	uint32_t i, k;

	for (i = 0; i < conf->nself; i++) {
		const struct hc_check *c = &conf->self[i].check;
		struct hc_target *t = &st->self[i];

		if (t->ok_streak >= c->rise)
			st->self_up[i] = true;
		else if (t->fail_streak >= c->fall)
			st->self_up[i] = false;
		all = all && hc_settled(t, c);
		frozen = frozen || !st->self_up[i];
	}
	st->frozen = frozen;
	if (st->started)
		return false;
	for (i = 0; i < conf->ns; i++)
		for (k = 0; k < st->s[i].nb; k++)
			all = all && hc_settled(&st->s[i].b[k]->t, &conf->s[i].check);
	st->started = all;
	return all;
}

bool hc_damped(const struct hc_svc *s, const struct hc_be *b, uint64_t now)
{
	uint32_t i, n = 0, have;

	if (!s->conf->flaps)
		return false;
	have = b->ndowns < HC_MAX_FLAPS ? b->ndowns : HC_MAX_FLAPS;
	for (i = 0; i < have; i++)
		if (now - b->downs[i] <= s->conf->within_ms)
			n++;
	return n >= s->conf->flaps;
}

/* The change the probes ask of B, if any: HC_ACT_DOWN, HC_ACT_UP or -1. */
static int wanted(const struct hc_check *c, const struct hc_be *b)
{
	if (b->health == RINGSTEER_HEALTH_UP && b->t.fail_streak >= c->fall)
		return HC_ACT_DOWN;
	if (b->health == RINGSTEER_HEALTH_DOWN && b->t.ok_streak >= c->rise)
		return HC_ACT_UP;
	return -1;
}

/* May one more active backend go down, N_DOWN of N_ACTIVE being down? */
static bool guard_allows(const struct hc_service_conf *conf, uint32_t n_active,
			 uint32_t n_down)
{
	if (n_down + 1 >= n_active)
		return false;	/* the last one up */
	return (uint64_t)(n_down + 1) * 100 <= (uint64_t)conf->max_down_pct * n_active;
}

int hc_decide(struct hc_state *st, struct hc_svc *s, uint64_t now,
	      struct hc_action *out, int max)
{
	const struct hc_service_conf *conf = s->conf;
	uint32_t i, n_active = 0, n_down = 0;
	bool refused = false;
	int n = 0, w;

	if (!st->started || !s->present)
		return 0;
	for (i = 0; i < s->nb; i++) {
		struct hc_be *b = s->b[i];

		b->held = st->frozen && hc_settled(&b->t, &conf->check) &&
			  wanted(&conf->check, b) >= 0;
	}
	if (st->frozen)
		return 0;
	for (i = 0; i < s->nb; i++) {
		if (s->b[i]->state != RINGSTEER_STATE_ACTIVE)
			continue;
		n_active++;
		n_down += s->b[i]->health == RINGSTEER_HEALTH_DOWN;
	}
	for (i = 0; i < s->nb && n < max; i++) {
		struct hc_be *b = s->b[i];
		bool active = b->state == RINGSTEER_STATE_ACTIVE;

		b->blocked = false;
		w = hc_settled(&b->t, &conf->check) ? wanted(&conf->check, b) : -1;
		if (w < 0)
			continue;
		if (w == HC_ACT_DOWN && active && !guard_allows(conf, n_active, n_down)) {
			b->blocked = true;
			refused = true;
			continue;
		}
		if (b->changed && now - b->changed_ms < conf->hold_down_ms)
			continue;
		if (w == HC_ACT_UP && hc_damped(s, b, now) &&
		    now - b->t.ok_since < conf->stable_ms)
			continue;
		/* Counted at once: the next backend's guard sees this down. */
		if (w == HC_ACT_DOWN && active)
			n_down++;
		out[n++] = (struct hc_action){ w, s, b };
	}
	if (n < max && refused != s->quorum_lost) {
		s->quorum_lost = refused;
		out[n++] = (struct hc_action){
			refused ? HC_ACT_QUORUM_LOSS : HC_ACT_QUORUM_GAIN, s, NULL };
	}
	return n;
}

void hc_applied(struct hc_be *b, enum hc_act act, uint64_t now)
{
	b->health = act == HC_ACT_DOWN ? RINGSTEER_HEALTH_DOWN : RINGSTEER_HEALTH_UP;
	b->changed = true;
	b->changed_ms = now;
	if (act == HC_ACT_DOWN)
		b->downs[b->ndowns++ % HC_MAX_FLAPS] = now;
}

uint64_t hc_next_probe(const struct hc_check *c, uint64_t now, uint32_t rnd)
{
	uint64_t span = (uint64_t)c->interval_ms * c->jitter_pct / 100;

	if (!span)
		return now + c->interval_ms;
	return now + c->interval_ms - span + rnd % (2 * span + 1);
}
