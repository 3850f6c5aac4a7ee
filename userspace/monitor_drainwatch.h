/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "drained" for ringctl monitor: which draining backends still have
 * connections, and when to count them again. Counting is the kernel's
 * (RINGSTEER_F_CONNS, one conntrack walk); what triggers it is a
 * connection of the backend ending (nl_ct.h), or, for connections the
 * kernel announces no end of, a slow poll. Nothing here is per packet.
 */
#ifndef RINGCTL_MONITOR_DRAINWATCH_H
#define RINGCTL_MONITOR_DRAINWATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "nl.h"
#include "nl_ct.h"
#include "nl_ops.h"

/*
 * A connection ended: count again, but not more than once a second (nor
 * for more than a tenth of the time: pace_count_gap()).
 */
#define CMD_DRAINWATCH_MIN_GAP	1.0
/* Without a trigger: connections created before any event listener. */
#define CMD_DRAINWATCH_POLL	10.0
/* Without connection-end events at all (no CAP_NET_ADMIN, sysctl 0). */
#define CMD_DRAINWATCH_POLL_BLIND 1.0

struct cmd_drainwatch_entry;

typedef void (*cmd_drained_t)(const struct rc_service *s, const struct rc_backend *b,
			      void *data);

struct cmd_drainwatch {
	struct nl_conn *query;	/* requests only: no notification on it */
	bool blind;		/* no connection-end events */
	bool denied;		/* no counts: no CAP_NET_ADMIN (EPERM) */
	struct cmd_drainwatch_entry *e;
	size_t n, cap;
};

/*
 * Watch the backends draining now; those with no connection left are
 * taken as drained before we came and are not reported. 0 or -errno.
 */
int cmd_drainwatch_init(struct cmd_drainwatch *w, struct nl_conn *query, bool blind);
void cmd_drainwatch_free(struct cmd_drainwatch *w);

/*
 * A configuration change (after it is printed). A backend set draining is
 * counted at once, so that its "drained" (DRAINED), if it has no
 * connection, comes right after the change. 0 or -errno.
 */
int cmd_drainwatch_event(struct cmd_drainwatch *w, const struct rc_event *ev,
			 cmd_drained_t drained, void *data);
/* A connection ended (nl_ct_read()'s callback). */
void cmd_drainwatch_ended(const struct nl_ct_end *end, void *w);
/* Connection-end events were lost: count everything again. */
void cmd_drainwatch_lost(struct cmd_drainwatch *w);

/* Milliseconds until the next count is due (poll()'s timeout), or -1. */
int cmd_drainwatch_timeout(const struct cmd_drainwatch *w, double now);
/*
 * Count what is due; DRAINED for each backend found with no connection
 * left. 0 or -errno of a count that failed for another reason than the
 * backend or service having gone.
 */
int cmd_drainwatch_count(struct cmd_drainwatch *w, double now, cmd_drained_t drained,
			 void *data);

#endif /* RINGCTL_MONITOR_DRAINWATCH_H */
