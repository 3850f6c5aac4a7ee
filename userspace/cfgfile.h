/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration file of "ringctl save" and "ringctl restore":
 *
 *	# comment
 *	key HEX32
 *	service VIP:PORT [proto tcp|udp] [vnodes N] [hash flow|source]
 *		backend ADDR:PORT [weight W] [state active|draining]
 *
 * A backend line belongs to the service line above it; indentation is
 * free. The key line is optional (restore then keeps the current key).
 */
#ifndef RINGCTL_CFGFILE_H
#define RINGCTL_CFGFILE_H

#include <stdio.h>

#include "model.h"

/*
 * Parse and validate all of F (NAME for messages) into *c: syntax, ranges,
 * duplicates, families and the kernel's limits. On error prints
 * "ringctl: CTX: NAME:LINE: what" and returns -EINVAL (c is then empty).
 */
int rc_cfg_parse(FILE *f, const char *ctx, const char *name, struct rc_config *c);
/* Print *c in the format above, every setting explicit. */
void rc_cfg_print(FILE *f, const struct rc_config *c);

#endif /* RINGCTL_CFGFILE_H */
