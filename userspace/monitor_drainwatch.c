// SPDX-License-Identifier: GPL-2.0
/*
 * Draining backends watched by ringctl monitor; see monitor_drainwatch.h. A
 * backend is reported once per drain: the entry stays (done) until the
 * backend is active again or deleted.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_drainwatch.h"
#include "pace.h"
#include "settings.h"

struct cmd_drainwatch_entry {
	struct rc_service s;	/* identity only, no backends */
	struct rc_backend b;	/* identity only */
	bool done;		/* reported, or found empty at start */
	bool quiet;		/* found at start: not reported if empty then */
	bool dirty;		/* one of its connections ended since counted */
	double counted;		/* when the last count started; 0: never */
	double took;		/* how long it took, seconds */
};

static struct cmd_drainwatch_entry *find(const struct cmd_drainwatch *w,
					 const struct rc_service *s,
					 const struct rc_endpoint *ep)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!rc_service_cmp(&w->e[i].s, s) && !rc_endpoint_cmp(&w->e[i].b.ep, ep))
			return &w->e[i];
	return NULL;
}

static int add(struct cmd_drainwatch *w, const struct rc_service *s,
	       const struct rc_backend *b, bool quiet)
{
	struct cmd_drainwatch_entry *e;

	if (find(w, s, &b->ep))
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;

		e = realloc(w->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		w->e = e;
		w->cap = cap;
	}
	e = &w->e[w->n++];
	memset(e, 0, sizeof(*e));
	e->s.vip = s->vip;
	e->s.proto = s->proto;
	e->b.ep = b->ep;
	e->quiet = quiet;
	return 0;
}

static void drop(struct cmd_drainwatch *w, struct cmd_drainwatch_entry *e)
{
	*e = w->e[--w->n];
}

int cmd_drainwatch_init(struct cmd_drainwatch *w, struct nl_conn *query, bool blind)
{
	struct rc_config c = { 0 };
	uint32_t i, j;
	int err;

	memset(w, 0, sizeof(*w));
	w->query = query;
	w->blind = blind;
	err = nl_config_get(query, &c, NULL, false);
	for (i = 0; !err && i < c.ns; i++)
		for (j = 0; !err && j < c.s[i].nb; j++)
			if (rc_backend_state(&c.s[i].b[j]) == RINGSTEER_STATE_DRAINING)
				err = add(w, &c.s[i], &c.s[i].b[j], true);
	rc_config_free(&c);
	return err;
}

void cmd_drainwatch_free(struct cmd_drainwatch *w)
{
	free(w->e);
	w->e = NULL;
	w->n = w->cap = 0;
}

/* Without CAP_NET_ADMIN nothing is counted: said once, then left alone. */
static void deny(struct cmd_drainwatch *w)
{
	size_t i;

	if (!w->denied)
		fprintf(stderr, "ringctl: monitor: counting connections needs CAP_NET_ADMIN over this network namespace: no \"drained\" lines\n");
	w->denied = true;
	for (i = 0; i < w->n; i++)
		w->e[i].done = true;
}

static int count(struct cmd_drainwatch *w, struct cmd_drainwatch_entry *e,
		 cmd_drained_t drained, void *data)
{
	double start = pace_monotonic();
	struct rc_backend b = e->b;
	int err;

	err = w->denied ? -EPERM : nl_conns_get(w->query, &e->s, &b);
	if (err == -EPERM) {
		e->done = true;
		deny(w);
		return 0;
	}
	/* forward tunnel: no connections to count, no "drained" to print. */
	if (err == -EOPNOTSUPP) {
		e->done = true;
		return 0;
	}
	if (err)
		return err;
	e->counted = start;
	e->took = pace_monotonic() - start;
	e->dirty = false;
	/* Newer than the kernel's last count: counted again when due. */
	if (!b.has_conns)
		return 0;
	if (b.conns_established || b.conns_other) {
		e->quiet = false;
		return 0;
	}
	e->done = true;
	if (!e->quiet)
		drained(&e->s, &e->b, data);
	return 0;
}

/* A backend just set draining: counted now, dropped if already gone. */
static int watch_new(struct cmd_drainwatch *w, const struct rc_event *ev,
		     cmd_drained_t drained, void *data)
{
	struct cmd_drainwatch_entry *e;
	int err;

	err = add(w, &ev->s, &ev->b, false);
	if (err)
		return err;
	e = &w->e[w->n - 1];
	err = count(w, e, drained, data);
	if (err == -ENOENT) {
		drop(w, e);
		return 0;
	}
	return err;
}

int cmd_drainwatch_event(struct cmd_drainwatch *w, const struct rc_event *ev,
			 cmd_drained_t drained, void *data)
{
	struct cmd_drainwatch_entry *e = NULL;
	size_t i;

	if (ev->has_service && ev->has_backend)
		e = find(w, &ev->s, &ev->b.ep);
	switch (ev->cmd) {
	case RINGSTEER_CMD_BACKEND_SET:
		if (rc_backend_state(&ev->b) == RINGSTEER_STATE_DRAINING)
			return e ? 0 : watch_new(w, ev, drained, data);
		/* Active again: watched no more. */
		__attribute__((fallthrough));
	case RINGSTEER_CMD_BACKEND_DEL:
		if (e)
			drop(w, e);
		return 0;
	case RINGSTEER_CMD_SERVICE_DEL:
		for (i = w->n; i-- > 0;)
			if (!rc_service_cmp(&w->e[i].s, &ev->s))
				drop(w, &w->e[i]);
		return 0;
	case RINGSTEER_CMD_FLUSH:
		w->n = 0;
		return 0;
	}
	return 0;
}

void cmd_drainwatch_ended(const struct nl_ct_end *end, void *data)
{
	struct cmd_drainwatch *w = data;
	struct cmd_drainwatch_entry *e;
	struct rc_service s = { .vip = end->vip, .proto = end->proto };

	e = find(w, &s, &end->backend);
	if (e)
		e->dirty = true;
}

void cmd_drainwatch_lost(struct cmd_drainwatch *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		w->e[i].dirty = true;
}

/* When E is to be counted next; a negative number for never. */
static double due(const struct cmd_drainwatch *w, const struct cmd_drainwatch_entry *e)
{
	if (e->done)
		return -1;
	if (!e->counted)
		return 0;
	if (e->dirty)
		return e->counted + pace_count_gap(CMD_DRAINWATCH_MIN_GAP, e->took);
	return e->counted + pace_count_gap(w->blind ? CMD_DRAINWATCH_POLL_BLIND :
					   CMD_DRAINWATCH_POLL, e->took);
}

int cmd_drainwatch_timeout(const struct cmd_drainwatch *w, double now)
{
	double next = -1, t;
	size_t i;

	for (i = 0; i < w->n; i++) {
		t = due(w, &w->e[i]);
		if (t >= 0 && (next < 0 || t < next))
			next = t;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

int cmd_drainwatch_count(struct cmd_drainwatch *w, double now, cmd_drained_t drained,
			 void *data)
{
	struct cmd_drainwatch_entry *e;
	double t;
	size_t i;
	int err;

	for (i = w->n; i-- > 0;) {
		e = &w->e[i];
		t = due(w, e);
		if (t < 0 || t > now)
			continue;
		err = count(w, e, drained, data);
		/* Gone: its notification follows, or was already printed. */
		if (err == -ENOENT)
			drop(w, e);
		else if (err)
			return err;
	}
	return 0;
}
