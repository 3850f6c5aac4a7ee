// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's log lines and the status line it gives its service
 * manager (sent by sd_notify.h).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "health_fsm.h"
#include "health_notify.h"

void hc_log(const char *fmt, ...)
{
	va_list ap;

	fputs("ringctl health: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void hc_log_presence(struct hc_state *st)
{
	char name[RC_SERVICE_NAME_LEN];
	uint32_t i;

	for (i = 0; i < st->conf->ns; i++) {
		struct hc_svc *s = &st->s[i];

		if (s->present != s->said_missing)
			continue;
		s->said_missing = !s->present;
		rc_service_name(name, &s->conf->id);
		if (s->present)
			hc_log("service %s: now in the kernel: checking its %u backends", name, s->nb);
		else
			hc_log("service %s (line %u): not in the kernel: unchecked", name,
			       s->conf->line);
	}
}

/*
 * ", 3 unchecked; not in the kernel: A, B and 1 more": the services the
 * kernel lacks, named as far as LEN allows.
 */
static void unchecked(char *buf, size_t len, const struct hc_state *st, uint32_t missing)
{
	/* Room kept for the tail: " and 4294967295 more". */
	static const size_t tail = 22;
	const char *sep = "; not in the kernel: ";
	char name[RC_SERVICE_NAME_LEN];
	uint32_t i, left = missing;
	int n = snprintf(buf, len, ", %u unchecked", missing);

	for (i = 0; i < st->conf->ns && left && n > 0 && (size_t)n < len; i++) {
		if (st->s[i].present)
			continue;
		rc_service_name(name, &st->s[i].conf->id);
		if (n + strlen(sep) + strlen(name) + (left > 1 ? tail : 0) >= len)
			break;
		n += snprintf(buf + n, len - n, "%s%s", sep, name);
		sep = ", ";
		left--;
	}
	if (left && left < missing)
		snprintf(buf + n, len - n, " and %u more", left);
}

void hc_status_text(char *buf, size_t len, const struct hc_state *st, bool view_ok)
{
	uint32_t i, k, nb = 0, down = 0, lost = 0, missing = hc_missing(st);
	int w;

	for (i = 0; i < st->conf->ns; i++) {
		lost += st->s[i].quorum_lost;
		for (k = 0; k < st->s[i].nb; k++) {
			nb++;
			down += st->s[i].b[k]->health == RINGSTEER_HEALTH_DOWN;
		}
	}
	w = snprintf(buf, len, "%u services, %u backends, %u down%s%s%s%s",
		     st->conf->ns, nb, down, lost ? ", quorum lost" : "",
		     !st->started ? ", starting: probing every backend" : "",
		     st->started && st->frozen ? ", frozen: a self-check fails" : "",
		     !view_ok ? ", cannot read the kernel" : "");
	/* Last, so that a long list cuts only itself. */
	if (missing && w > 0 && (size_t)w < len)
		unchecked(buf + w, len - w, st, missing);
}
