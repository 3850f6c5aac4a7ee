/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RINGCTL_H
#define RINGCTL_H

#include <stdbool.h>

#define RINGCTL_VERSION "0.1"

/* Set by the global -j option; subcommands may also accept -j themselves. */
extern bool json_output;
extern const char *prog;

/* Print "ringctl: <message>" to stderr; always returns -1 for chaining. */
int errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Print "ringctl: <message>: <strerror(err)>[: <ext_msg>]" for a failed
 * request (err is an errno, either sign); always returns -1.
 */
int nl_errorf(int err, const char *ext_msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* RINGCTL_H */
