// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl backend drain ... wait, drain to completion: once a backend is
 * draining, no new flow reaches it, and its connection tracking entries
 * end as its connections do. The count is read once a second (one walk of
 * the conntrack table each, in the kernel), or less often when a walk
 * takes long (pace_count_gap(), lib/pace.h); nothing is added to the packet
 * path.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend_drain.h"
#include "parse.h"
#include "cli.h"
#include "nl_ops.h"
#include "pace.h"

int cmd_drain_wait_parse(int argc, char **argv, struct cmd_drain_wait *w)
{
	int i = 1;

	memset(w, 0, sizeof(*w));
	if (argc < 1 || strcmp(argv[0], "wait")) {
		cli_error("backend drain: unexpected argument '%s'", argc ? argv[0] : "");
		return -EINVAL;
	}
	w->wait = true;
	if (i < argc && strcmp(argv[i], "delete") && strcmp(argv[i], "del")) {
		if (parse_u32(argv[i], 1, 86400 * 365, &w->timeout)) {
			cli_error("backend drain wait: bad timeout '%s' (want 1 or more seconds)",
			       argv[i]);
			return -EINVAL;
		}
		i++;
	}
	if (i < argc && (!strcmp(argv[i], "delete") || !strcmp(argv[i], "del"))) {
		w->del = true;
		i++;
	}
	if (i < argc) {
		cli_error("backend drain wait: unexpected argument '%s' (want [TIMEOUT] [delete])",
		       argv[i]);
		return -EINVAL;
	}
	return 0;
}

static void progress(bool tty, const char *who, const struct rc_backend *b,
		     double elapsed)
{
	printf("%s%s: %llu connections left (%llu established, %llu other), %.0fs%s",
	       tty ? "\r" : "", who,
	       (unsigned long long)(b->conns_established + b->conns_other),
	       (unsigned long long)b->conns_established,
	       (unsigned long long)b->conns_other, elapsed, tty ? "\033[K" : "\n");
	fflush(stdout);
}

static void pause_until(double t)
{
	double d = t - pace_monotonic();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* What to do instead, as the other hints: in parentheses after the message. */
#define TUNNEL_NO_WAIT \
	"drain without wait: its flows leave the flow table after 5 idle minutes"

int cmd_drain_wait_check(const struct rc_service *s, uint32_t forward)
{
	char name[RC_SERVICE_NAME_LEN];

	if (forward == RINGSTEER_FORWARD_TUNNEL)
		return cli_error("backend drain %s: wait: forward tunnel keeps no conntrack entries, so its connections are not counted (%s)",
				 rc_service_name(name, s), TUNNEL_NO_WAIT);
	return 0;
}

int cmd_drain_wait(struct nl_conn *nl, const struct rc_service *s,
		   const struct rc_backend *b, const struct cmd_drain_wait *w)
{
	char name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN], who[128];
	bool tty = isatty(STDOUT_FILENO);
	struct rc_service svc = *s;
	struct rc_backend got = *b;
	double start = pace_monotonic(), t, t0, next;
	int err;

	rc_endpoint_format(be, &b->ep);
	snprintf(who, sizeof(who), "%s %s", rc_service_name(name, s), be);
	for (;;) {
		t0 = pace_monotonic();
		err = nl_conns_get(nl, &svc, &got);
		if (err)
			return cli_nl_error(err, nl->ext_msg, "backend drain %s", who);
		t = pace_monotonic() - start;
		/* No count yet (the backend is newer than the kernel's): again. */
		if (got.has_conns)
			progress(tty, who, &got, t);
		if (got.has_conns && !got.conns_established && !got.conns_other)
			break;
		if (w->timeout && t >= w->timeout) {
			if (tty)
				putchar('\n');
			cli_error("backend drain %s: %llu connections left after %us", who,
			       (unsigned long long)(got.conns_established + got.conns_other),
			       w->timeout);
			return CLI_EXIT_TIMEOUT;
		}
		next = t0 + pace_count_gap(1, pace_monotonic() - t0);
		if (w->timeout && next > start + w->timeout)
			next = start + w->timeout;
		pause_until(next);
	}
	printf("%sdrained %s after %.0fs\n", tty ? "\n" : "", who, pace_monotonic() - start);
	if (!w->del)
		return 0;
	err = nl_backend_del(nl, s, b, 0);
	if (err)
		return cli_nl_error(err, nl->ext_msg, "backend del %s", who);
	printf("deleted %s\n", who);
	return 0;
}
