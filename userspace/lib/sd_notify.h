/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notifications to the service manager by hand (prefix sd_notify_), for
 * the health checker and the fleet agent: one datagram of "KEY=VALUE\n"
 * lines to the AF_UNIX socket $NOTIFY_SOCKET names, a path or, with a
 * leading '@', an abstract name. The watchdog period is $WATCHDOG_USEC
 * (for this process if $WATCHDOG_PID says so).
 */
#ifndef RINGCTL_SD_NOTIFY_H
#define RINGCTL_SD_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct sd_notify {
	int fd;			/* -1: no service manager to tell */
	struct sockaddr_un sa;
	socklen_t salen;
	uint64_t watchdog_ms;	/* 0: no watchdog */
};

/*
 * From NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (any may be NULL;
 * PID is ours). -EINVAL for a name that is neither absolute nor abstract
 * or too long; fd stays -1 without a socket.
 */
int sd_notify_open(struct sd_notify *n, const char *socket, const char *usec,
		   const char *wpid, pid_t pid);
void sd_notify_close(struct sd_notify *n);
/* The address of NAME into *sa and its length; -EINVAL as above. */
int sd_notify_addr(const char *name, struct sockaddr_un *sa, socklen_t *len);
/*
 * "STATUS=..." with the text's newlines turned into blanks (STATUS is one
 * line), at most LEN bytes with the NUL; the length written.
 */
size_t sd_notify_status(char *buf, size_t len, const char *text);
/* Send MSG as one datagram; 0 without a socket, or -errno. */
int sd_notify_send(struct sd_notify *n, const char *msg);

#endif /* RINGCTL_SD_NOTIFY_H */
