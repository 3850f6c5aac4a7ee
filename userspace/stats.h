/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringctl stats: the counters for monitoring systems, in the text format
 * of Prometheus (node_exporter's textfile collector reads it).
 */
#ifndef RINGCTL_STATS_H
#define RINGCTL_STATS_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"

/*
 * A label value with \, " and newline escaped as the format wants; cut
 * (never mid-escape) to fit LEN. Returns DST.
 */
const char *rc_prom_escape(char *dst, size_t len, const char *src);
/* Every metric of C (services sorted as rc_config_sort() leaves them). */
void rc_prom_print(FILE *f, const struct rc_config *c);

#endif /* RINGCTL_STATS_H */
