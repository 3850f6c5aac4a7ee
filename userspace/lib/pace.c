// SPDX-License-Identifier: GPL-2.0
/* The pace of repeated connection counts; see pace.h. */

#include <time.h>

#include "uapi/ringsteer.h"

#include "pace.h"

double pace_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double pace_count_gap(double min, double took)
{
	return took * RINGSTEER_CONNS_GAP > min ? took * RINGSTEER_CONNS_GAP : min;
}
