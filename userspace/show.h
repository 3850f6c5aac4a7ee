/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RINGCTL_SHOW_H
#define RINGCTL_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/* SHARE attribute (positions owned) as a fraction of the hash space. */
double rc_share(uint64_t share);
#define RC_FINGERPRINT_LEN 17	/* 16 hex digits and a NUL */
/* A fingerprint as the 16 hex digits every output uses. */
const char *rc_fingerprint_format(char buf[RC_FINGERPRINT_LEN], uint64_t fp);
/* Every service's fingerprint from c->key, offline. 0 or -errno. */
int rc_config_fingerprints(struct rc_config *c);
/* "ringctl show rate ...": argv[0] is "rate" or "--rate". 0 or -1. */
int rc_show_rate(int argc, char **argv);
/* The table of "ringctl show", or its JSON object. */
void rc_show_print(FILE *f, const struct rc_config *c, bool json);

#endif /* RINGCTL_SHOW_H */
