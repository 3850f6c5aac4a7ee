/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One probe in flight (prefix hc_): a non-blocking socket (tcp connect,
 * http GET, udp send and expect) or a child process (exec) watched by its
 * pidfd. The loop waits for P->events on P->fd and calls
 * hc_probe_event(); at P->deadline it calls hc_probe_cancel().
 */
#ifndef RINGCTL_HEALTH_PROBE_H
#define RINGCTL_HEALTH_PROBE_H

#include <stdint.h>
#include <sys/types.h>

#include "health_conf.h"

enum hc_probe_res { HC_PROBE_PENDING, HC_PROBE_OK, HC_PROBE_FAIL };

struct hc_probe {
	const struct hc_check *c;
	int fd;			/* socket or pidfd, -1 when idle */
	/*
	 * The epoll set fd is in, or -1: it leaves it before it is closed,
	 * because a child forked meanwhile holds a copy of fd until its exec
	 * and epoll would go on reporting it (epoll(7)).
	 */
	int epfd;
	pid_t pid;		/* exec's child, 0 if none */
	uint32_t events;	/* EPOLLIN or EPOLLOUT, wanted on fd */
	int phase;
	uint64_t deadline;
	char req[2 * HC_TEXT_LEN + 160];
	size_t req_len, sent;
	char buf[64];
	size_t len;
	char why[96];		/* what failed */
};

/*
 * Start probing TO (ignored by exec) with C at NOW; exec's child gets the
 * NULL-terminated ENV (NAME=VALUE strings) besides our environment.
 * HC_PROBE_PENDING, or HC_PROBE_FAIL with p->why when it cannot start.
 */
int hc_probe_start(struct hc_probe *p, const struct hc_check *c,
		   const struct rc_endpoint *to, char *const *env, uint64_t now);
/* EVENTS (epoll) happened on p->fd: the result, or PENDING (p->events). */
int hc_probe_event(struct hc_probe *p, uint32_t events);
/* Stop it (timeout, exit): close, kill exec's process group and reap it. */
void hc_probe_cancel(struct hc_probe *p);

#endif /* RINGCTL_HEALTH_PROBE_H */
