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
 * count took TOOK seconds: at least MIN, and ten times what counting takes,
 * so that counting a large conntrack table (one walk of it in the kernel)
 * keeps a CPU busy for at most a tenth of the time.
 */
double pace_count_gap(double min, double took);

#endif /* RINGCTL_PACE_H */
