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

struct rs_nl;
struct rc_service;

/* rs_nl_open() with the error printed ("module not loaded"); 0 or -1. */
int rc_nl_open(struct rs_nl *nl);

#define RC_SERVICE_NAME_LEN 64
/* "10.0.0.1:80 tcp", for messages. */
const char *rc_service_name(char buf[RC_SERVICE_NAME_LEN], const struct rc_service *s);

/* Subcommand families: argv[0] is the family's name. 0 or -1. */
int cmd_service(int argc, char **argv);
int cmd_backend(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_fingerprint(int argc, char **argv);

/* Exit status of "backend drain ... wait" when the timeout passed. */
#define RC_EXIT_TIMEOUT 3

#endif /* RINGCTL_H */
