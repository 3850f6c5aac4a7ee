// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's netlink side; see health_kernel.h. A failed read leaves
 * the previous view and stops every change until a read works again.
 */

#include <errno.h>
#include <string.h>

#include "cli.h"
#include "nl_ops.h"
#include "health_kernel.h"
#include "health_notify.h"

int hc_kernel_open(struct hc_kernel *k, struct hc_state *st)
{
	memset(k, 0, sizeof(*k));
	k->st = st;
	return cli_nl_open(&k->nl);
}

void hc_kernel_close(struct hc_kernel *k)
{
	if (k->nl.sock)
		nl_close(&k->nl);
	k->nl.sock = NULL;
}

int hc_kernel_read(struct hc_kernel *k, struct hc_state *st, uint64_t now,
		   void (*gone)(struct hc_be *b, void *data), void *data)
{
	struct rc_config c;
	uint32_t i;
	int err;

	err = nl_config_get(&k->nl, &c, NULL, false);
	if (err)
		return err;
	for (i = 0; i < st->conf->ns && !err; i++)
		err = hc_sync(&st->s[i], rc_config_find_service(&c, &st->conf->s[i].id), now,
			      gone, data);
	rc_config_free(&c);
	return err;
}

/*
 * "3 failed probes (connect: Connection refused)", "2 good probes", or
 * for a damped backend "9 good probes in 8.0 s (damped: flapping)".
 */
static void reason(char *buf, size_t len, const struct hc_action *a, uint64_t now)
{
	const struct hc_target *t = &a->b->t;

	if (a->act == HC_ACT_DOWN)
		snprintf(buf, len, "%u failed probes (%s)", t->fail_streak, t->why);
	else if (hc_damped(a->s, a->b, now))
		snprintf(buf, len, "%u good probes in %.1f s (damped: flapping)", t->ok_streak,
			 (now - t->ok_since) / 1000.0);
	else
		snprintf(buf, len, "%u good probes", t->ok_streak);
}

int hc_kernel_apply(struct hc_kernel *k, const struct hc_action *a, uint64_t now)
{
	char name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN], why[160];
	uint32_t health = a->act == HC_ACT_DOWN ? RINGSTEER_HEALTH_DOWN : RINGSTEER_HEALTH_UP;
	struct rc_backend b = { .ep = a->b->ep };
	int err;

	rc_service_name(name, &a->s->conf->id);
	rc_endpoint_format(be, &a->b->ep);
	reason(why, sizeof(why), a, now);
	err = nl_backend_health(&k->nl, &a->s->conf->id, &b, health, false);
	if (err) {
		hc_log("service %s backend %s: marking it %s after %s: %s%s%s%s", name, be,
		       health ? "down" : "up", why, strerror(-err),
		       *k->nl.ext_msg ? " (" : "", k->nl.ext_msg, *k->nl.ext_msg ? ")" : "");
		return err;
	}
	hc_applied(a->b, a->act, now);
	hc_log("service %s backend %s: %s after %s", name, be, health ? "down" : "up", why);
	return 0;
}
