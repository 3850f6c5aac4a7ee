/* SPDX-License-Identifier: GPL-2.0 */
/* ringctl backend drain ... wait: drain to completion. */
#ifndef RINGCTL_DRAIN_H
#define RINGCTL_DRAIN_H

#include "model.h"
#include "nl.h"

struct rc_drain_wait {
	bool wait;
	uint32_t timeout;	/* seconds, 0: none */
	bool del;		/* delete the backend once drained */
};

/*
 * The words from "wait" on: "wait [TIMEOUT] [delete]". 0, or -EINVAL
 * after printing what is wrong.
 */
int rc_drain_wait_parse(int argc, char **argv, struct rc_drain_wait *w);

/*
 * Show the backend's connections once a second until none is left (then
 * delete it if asked): 0, RC_EXIT_TIMEOUT when the timeout passed first,
 * or -errno after printing an error.
 */
int rc_drain_wait(struct nl_conn *nl, const struct rc_service *s,
		  const struct rc_backend *b, const struct rc_drain_wait *w);

/* Seconds on CLOCK_MONOTONIC. */
double rc_monotonic(void);

/*
 * Seconds from the start of one connection count to the next, when the
 * count took TOOK seconds: at least MIN, and RINGSTEER_CONNS_GAP (10) times
 * what counting takes, so that counting a large conntrack table (one walk
 * of it in the kernel) keeps a CPU busy for at most a tenth of the time.
 * The kernel holds every namespace to the same gap between its walks
 * whoever asks; as a count asked for sooner gets the last walk's counts,
 * waiting at least this long makes each of ours a walk of its own.
 */
double rc_count_gap(double min, double took);

#endif /* RINGCTL_DRAIN_H */
