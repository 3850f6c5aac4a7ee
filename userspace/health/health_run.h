/* SPDX-License-Identifier: GPL-2.0 */
/* The checker's event loop (health_run.c). */
#ifndef RINGCTL_HEALTH_RUN_H
#define RINGCTL_HEALTH_RUN_H

#include "health_conf.h"
#include "health_fsm.h"

/*
 * Check CONF's services in the current network namespace until SIGTERM
 * or SIGINT; returns 0 then, or -errno (printed) when it cannot start.
 */
int hc_run(struct hc_config *conf);

/*
 * After the first read of the kernel into ST: the start line, with how
 * many of the file's services the kernel has. -ENOENT (printed) when it
 * has none of them: nothing to check, so nothing is started.
 */
int hc_run_start(const struct hc_state *st);

#endif /* RINGCTL_HEALTH_RUN_H */
