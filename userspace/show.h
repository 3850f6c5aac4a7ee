/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RINGCTL_SHOW_H
#define RINGCTL_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/* SHARE attribute (positions owned) as a fraction of the hash space. */
double rc_share(uint64_t share);
/* The table of "ringctl show", or its JSON object. */
void rc_show_print(FILE *f, const struct rc_config *c, bool json);

#endif /* RINGCTL_SHOW_H */
