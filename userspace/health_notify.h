/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checker tells its service manager (prefix hc_): log lines on
 * stderr, and notifications by hand: one datagram of "KEY=VALUE\n" lines
 * to the AF_UNIX socket $NOTIFY_SOCKET names, a path or, with a leading
 * '@', an abstract name. The watchdog period is $WATCHDOG_USEC (for this
 * process if $WATCHDOG_PID says so).
 */
#ifndef RINGCTL_HEALTH_NOTIFY_H
#define RINGCTL_HEALTH_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct hc_notify {
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
int hc_notify_open(struct hc_notify *n, const char *socket, const char *usec,
		   const char *wpid, pid_t pid);
void hc_notify_close(struct hc_notify *n);
/* The address of NAME into *sa and its length; -EINVAL as above. */
int hc_notify_addr(const char *name, struct sockaddr_un *sa, socklen_t *len);
/*
 * "STATUS=..." with the text's newlines turned into blanks (STATUS is one
 * line), at most LEN bytes with the NUL; the length written.
 */
size_t hc_notify_status(char *buf, size_t len, const char *text);
/* Send MSG as one datagram; 0 without a socket, or -errno. */
int hc_notify_send(struct hc_notify *n, const char *msg);

/* A line of the checker's log, "ringctl health: ...", on stderr (the journal). */
void hc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct hc_state;
/*
 * After a read of the kernel: log each service of ST the kernel lacks,
 * once when it is found missing (at start, or when it goes), and once
 * when it appears (it is checked from then on).
 */
void hc_log_presence(struct hc_state *st);
/*
 * The STATUS= text for ST: services, backends, downs, the checker's
 * condition (VIEW_OK: the last read of the kernel worked), then the
 * services the kernel lacks, counted as unchecked and named as far as
 * LEN allows.
 */
void hc_status_text(char *buf, size_t len, const struct hc_state *st, bool view_ok);

#endif /* RINGCTL_HEALTH_NOTIFY_H */
