// SPDX-License-Identifier: GPL-2.0
/*
 * sd_notify(3) without the library: the protocol is one datagram, and a
 * checker that cannot tell the manager must go on checking, so every
 * failure here is reported and otherwise ignored by the caller.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "health_fsm.h"
#include "health_notify.h"

int hc_notify_addr(const char *name, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = name ? strlen(name) : 0;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (n < 2 || n >= sizeof(sa->sun_path) || (name[0] != '/' && name[0] != '@'))
		return -EINVAL;
	memcpy(sa->sun_path, name, n);
	/* An abstract name: a NUL first, and no NUL at the end counted. */
	if (name[0] == '@') {
		sa->sun_path[0] = '\0';
		*len = offsetof(struct sockaddr_un, sun_path) + n;
	} else {
		*len = offsetof(struct sockaddr_un, sun_path) + n + 1;
	}
	return 0;
}

int hc_notify_open(struct hc_notify *n, const char *socket_name, const char *usec,
		   const char *wpid, pid_t pid)
{
	uint32_t p;
	char *e;
	unsigned long long us;
	int err;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (usec && *usec && (!wpid || (!parse_u32(wpid, 1, UINT32_MAX, &p) &&
					(pid_t)p == pid))) {
		errno = 0;
		us = strtoull(usec, &e, 10);
		if (!errno && !*e && us)
			n->watchdog_ms = us / 1000 ?: 1;
	}
	if (!socket_name || !*socket_name)
		return 0;
	err = hc_notify_addr(socket_name, &n->sa, &n->salen);
	if (err)
		return err;
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	return n->fd < 0 ? -errno : 0;
}

void hc_notify_close(struct hc_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

size_t hc_notify_status(char *buf, size_t len, const char *text)
{
	size_t i;
	int w = snprintf(buf, len, "STATUS=%s", text);

	if (w < 0)
		return 0;
	if ((size_t)w >= len)
		w = len - 1;
	for (i = 7; i < (size_t)w; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	return w;
}

int hc_notify_send(struct hc_notify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	if (sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&n->sa,
		   n->salen) < 0)
		return -errno;
	return 0;
}

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
