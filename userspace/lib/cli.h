/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line layer (prefix cli_): subcommand tables and their help,
 * error messages, the -j flag. Each layer of userspace/lib/ has its own
 * prefix: parse_ (words and files to model structs, parse.h), nl_
 * (netlink I/O, nl.h, nl_ops.h and nl_ct.h), print_ (text and JSON
 * output, print.h, with json_ its JSON writer), rc_ (the model, model.h,
 * settings.h, enums.h, endpoint.h and preview.h), sim_ (simulate's ring
 * arithmetic, ringmath.h), pace_ (how often connections are counted,
 * pace.h) and etcd_ (etcd's v3 API, etcd.h). The commands, one a file of
 * userspace/, are cmd_* (cmd.h and the headers beside it); no layer
 * includes or calls them. What one command alone needs is beside it
 * (restore_plan.c, show_print.c, ...), keeping its layer's prefix. Every
 * function returns 0 or -errno.
 */
#ifndef RINGCTL_CLI_H
#define RINGCTL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Exit status of "backend drain ... wait" when the timeout passed: a
 * command's positive return is its exit status, a negative one exits 1.
 */
#define CLI_EXIT_TIMEOUT 3

/* Set by -j or --json, before the command or among its arguments. */
extern bool cli_json;

/*
 * One command of a table: RUN gets argv[0] = NAME and returns 0 or
 * -errno; USAGE prints its full usage; HELP is the line listed by the
 * table's help (NULL for an alias, which is not listed).
 */
struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *help;
};

/*
 * Run the command argv[1] of CMDS, argv[0] being the table's own name
 * ("ringctl", "backend"). "help", "-h" and "--help" print USAGE (the
 * table's) when they come first, and the command's usage when they come
 * right after it (-j words skipped), both with status 0. No command
 * prints USAGE to stderr; an unknown one is an error. -EINVAL then.
 */
int cli_dispatch(const struct cli_cmd *cmds, size_t n, void (*usage)(FILE *f),
		 int argc, char **argv);
/* The table's commands with their help lines, as "  name   help". */
void cli_list(FILE *f, const struct cli_cmd *cmds, size_t n);

/* "help", "-h" or "--help". */
bool cli_is_help(const char *word);
/* "-j" or "--json". */
bool cli_is_json(const char *word);
/* Consume leading -j/--json words (setting cli_json). */
void cli_take_json(int *argc, char ***argv);

/* Print "ringctl: <message>" to stderr; returns -EINVAL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Print "ringctl: <message>: <strerror(err)>[: <ext_msg>]" for a failed
 * request (err is an errno, either sign); returns -|err|.
 */
int cli_nl_error(int err, const char *ext_msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CLI_ERROR_LEN 512
/*
 * The last message cli_error() or cli_nl_error() printed, without
 * "ringctl: " (cut to CLI_ERROR_LEN): the agent publishes why it refused
 * a configuration.
 */
const char *cli_last_error(void);

struct nl_conn;

/* nl_open() with the error printed ("module not loaded"). */
int cli_nl_open(struct nl_conn *nl);

#endif /* RINGCTL_CLI_H */
