/* SPDX-License-Identifier: GPL-2.0 */
/* "ringctl show": its output, beside the command (show_print.c). */
#ifndef RINGCTL_SHOW_PRINT_H
#define RINGCTL_SHOW_PRINT_H

#include <stdio.h>

#include "model.h"

/*
 * The namespace line of "ringctl show": services, ring points of the
 * budget, NAT hooks, kept flows, generation.
 */
void print_net_text(FILE *f, const struct rc_net *n);
/* The table of "ringctl show", after the namespace line if c->has_net. */
void print_show_text(FILE *f, const struct rc_config *c);
/*
 * The JSON object of "ringctl show -j": with c->has_net, the namespace's
 * hooks, points, points_max, kept and generation beside "services".
 */
void print_show_json(FILE *f, const struct rc_config *c);

#endif /* RINGCTL_SHOW_PRINT_H */
