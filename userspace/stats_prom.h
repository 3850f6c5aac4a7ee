/* SPDX-License-Identifier: GPL-2.0 */
/* "ringctl stats": its output, beside the command (stats_prom.c). */
#ifndef RINGCTL_STATS_PROM_H
#define RINGCTL_STATS_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"

/*
 * "ringctl stats": the text format of Prometheus (stats_prom.c). A label
 * value with \, " and newline escaped as the format wants; cut (never
 * mid-escape) to fit LEN. Returns DST.
 */
const char *print_prom_escape(char *dst, size_t len, const char *src);
/* Every metric of C (services sorted as rc_config_sort() leaves them). */
void print_prom(FILE *f, const struct rc_config *c);

#endif /* RINGCTL_STATS_PROM_H */
