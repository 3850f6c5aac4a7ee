/* SPDX-License-Identifier: GPL-2.0 */
/* The checker's event loop (health_run.c). */
#ifndef RINGCTL_HEALTH_RUN_H
#define RINGCTL_HEALTH_RUN_H

#include "health_conf.h"

/*
 * Check CONF's services in the current network namespace until SIGTERM
 * or SIGINT; returns 0 then, or -errno (printed) when it cannot start.
 */
int hc_run(struct hc_config *conf);

#endif /* RINGCTL_HEALTH_RUN_H */
