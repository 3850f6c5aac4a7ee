// SPDX-License-Identifier: GPL-2.0
/*
 * sd_notify(3) without the library: the protocol is one datagram, and a
 * daemon that cannot tell the manager must go on with its work, so every
 * failure here is reported and otherwise ignored by the caller.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "sd_notify.h"

int sd_notify_addr(const char *name, struct sockaddr_un *sa, socklen_t *len)
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

int sd_notify_open(struct sd_notify *n, const char *socket_name, const char *usec,
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
	err = sd_notify_addr(socket_name, &n->sa, &n->salen);
	if (err)
		return err;
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	return n->fd < 0 ? -errno : 0;
}

void sd_notify_close(struct sd_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

size_t sd_notify_status(char *buf, size_t len, const char *text)
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

int sd_notify_send(struct sd_notify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	if (sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&n->sa,
		   n->salen) < 0)
		return -errno;
	return 0;
}
