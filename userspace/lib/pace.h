/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pace of connection counts that repeat ("backend drain ... wait",
 * monitor's "drained"): each count is one walk of the conntrack table in
 * the kernel, so callers space them by what the last one took.
 */
#ifndef RINGCTL_PACE_H
#define RINGCTL_PACE_H

/* Seconds on CLOCK_MONOTONIC. */
double pace_monotonic(void);

/*
 * Seconds from the start of one connection count to the next, when the
 * count took TOOK seconds: at least MIN, and RINGSTEER_CONNS_GAP (10) times
 * what counting takes, so that counting a large conntrack table (one walk
 * of it in the kernel) keeps a CPU busy for at most a tenth of the time.
 * The kernel holds every namespace to the same gap between its walks
 * whoever asks; as a count asked for sooner gets the last walk's counts,
 * waiting at least this long makes each of ours a walk of its own.
 */
double pace_count_gap(double min, double took);

#endif /* RINGCTL_PACE_H */
