// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's votes in etcd (health_fleet.h). A vote is the checker's
 * own verdict before any guard: down after `fall` failed probes, up after
 * `rise` good ones; the guards apply to the fleet's verdict, in every
 * agent alike. On every (re)connection the checker's keys are written
 * whole under a new lease, so that what etcd holds is what it sees.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../fleet/fleet_health.h"
#include "health_fleet.h"
#include "health_notify.h"

#define BACKOFF_MIN_MS	500

int hc_fleet_open(struct hc_fleet *f, const char *path)
{
	int err;

	memset(f, 0, sizeof(*f));
	if (!path)
		return 0;
	err = fl_conf_read(path, "health", &f->c);
	if (err)
		return err;
	err = etcd_open(&f->e, &f->c.etcd);
	if (err) {
		fl_conf_free(&f->c);
		return cli_error("health: etcd: %s", strerror(-err));
	}
	snprintf(f->root, sizeof(f->root), "%s/health/", f->c.prefix);
	snprintf(f->base, sizeof(f->base), "%s%s/", f->root, f->c.host);
	f->on = true;
	return 0;
}

bool hc_fleet_connected(const struct hc_fleet *f)
{
	return f->on && f->connected;
}

static void lost(struct hc_fleet *f, int err, uint64_t now)
{
	if (f->connected)
		hc_log("fleet: etcd: %s: %s; deciding locally until it is back", strerror(-err),
		       f->e.err);
	f->connected = false;
	f->backoff = f->backoff ? f->backoff * 2 : BACKOFF_MIN_MS;
	if (f->backoff > f->c.lease_ttl_ms)
		f->backoff = f->c.lease_ttl_ms;
	f->next_ms = now + f->backoff;
}

/* The verdict before the guards: down, up, or as it was. */
static void vote(struct hc_be *b, const struct hc_check *c)
{
	if (b->t.fail_streak >= c->fall)
		b->vote_down = true;
	else if (b->t.ok_streak >= c->rise)
		b->vote_down = false;
}

static int publish(struct hc_fleet *f, struct hc_state *st, bool all)
{
	char key[sizeof(f->base) + 256];
	size_t len = strlen(f->root);
	uint32_t i, k;
	int err = 0;

	for (i = 0; i < st->conf->ns && !err; i++) {
		struct hc_svc *s = &st->s[i];

		for (k = 0; k < s->nb && !err; k++) {
			struct hc_be *b = s->b[k];

			vote(b, &s->conf->check);
			if (!all && b->vote_down == b->voted_down)
				continue;
			memcpy(key, f->root, len);
			if (fh_vote_key(key + len, sizeof(key) - len, f->c.host, &s->conf->id,
					&b->ep))
				continue;
			if (b->vote_down)
				err = etcd_put(&f->e, key, "down", 4, f->lease, NULL);
			else if (!all)
				err = etcd_delete(&f->e, key, false);
			if (!err)
				b->voted_down = b->vote_down;
		}
	}
	return err;
}

static int connect_fleet(struct hc_fleet *f, struct hc_state *st)
{
	char key[sizeof(f->base) + 8];
	int err;

	err = etcd_lease_grant(&f->e, (f->c.lease_ttl_ms + 999) / 1000, &f->lease);
	/* What an earlier run left (under its own lease) goes first. */
	err = err ?: etcd_delete(&f->e, f->base, true);
	snprintf(key, sizeof(key), "%slive", f->base);
	err = err ?: etcd_put(&f->e, key, "", 0, f->lease, NULL);
	return err ?: publish(f, st, true);
}

void hc_fleet_tick(struct hc_fleet *f, struct hc_state *st, uint64_t now)
{
	int64_t ttl;
	int err;

	if (!f->on)
		return;
	if (!f->connected) {
		if (now < f->next_ms)
			return;
		err = connect_fleet(f, st);
		if (err) {
			lost(f, err, now);
			return;
		}
		hc_log("fleet: voting in %s: the agents apply the fleet's verdict", f->base);
		f->connected = true;
		f->backoff = 0;
		f->next_ms = now + f->c.lease_ttl_ms / 3;
		return;
	}
	err = publish(f, st, false);
	if (!err && now >= f->next_ms) {
		err = etcd_lease_keepalive(&f->e, f->lease, &ttl);
		f->next_ms = now + f->c.lease_ttl_ms / 3;
	}
	if (err)
		lost(f, err, now);
}

void hc_fleet_close(struct hc_fleet *f)
{
	if (!f->on)
		return;
	/* The votes go at once: a stopped checker is not a live one. */
	if (f->connected)
		etcd_lease_revoke(&f->e, f->lease);
	etcd_close(&f->e);
	fl_conf_free(&f->c);
	f->on = false;
}
