/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker and the kernel (prefix hc_): reading every service's
 * backends with their state and health, and changing one backend's
 * health, never forced (the kernel then refuses to mark down the last
 * backend of a service that is active and up).
 */
#ifndef RINGCTL_HEALTH_KERNEL_H
#define RINGCTL_HEALTH_KERNEL_H

#include "nl.h"
#include "health_fsm.h"

struct hc_kernel {
	struct nl_conn nl;
	struct hc_state *st;
};

int hc_kernel_open(struct hc_kernel *k, struct hc_state *st);
void hc_kernel_close(struct hc_kernel *k);
/* Read the namespace's configuration into every service of ST (hc_sync()). */
int hc_kernel_read(struct hc_kernel *k, struct hc_state *st, uint64_t now,
		   void (*gone)(struct hc_be *b, void *data), void *data);
/* Send health change A (logged), hc_applied() when the kernel took it. */
int hc_kernel_apply(struct hc_kernel *k, const struct hc_action *a, uint64_t now);

#endif /* RINGCTL_HEALTH_KERNEL_H */
