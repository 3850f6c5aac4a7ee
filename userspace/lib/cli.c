// SPDX-License-Identifier: GPL-2.0
/*
 * The command line layer: subcommand dispatch, help and error reporting;
 * see cli.h. Kept out of ringctl.c so that every other file, and the unit
 * tests that link them, can use it.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nl.h"

bool cli_json;
static char last_error[CLI_ERROR_LEN];

static void verror(const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(last_error, sizeof(last_error), fmt, copy);
	va_end(copy);
	fputs("ringctl: ", stderr);
	vfprintf(stderr, fmt, ap);
}

const char *cli_last_error(void)
{
	return last_error;
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int cli_nl_error(int err, const char *ext_msg, const char *fmt, ...)
{
	va_list ap;

	err = err < 0 ? -err : err;
	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", strerror(err));
	snprintf(last_error + strlen(last_error), sizeof(last_error) - strlen(last_error),
		 ": %s%s%s", strerror(err), ext_msg && *ext_msg ? ": " : "",
		 ext_msg ? ext_msg : "");
	if (ext_msg && *ext_msg)
		fprintf(stderr, ": %s", ext_msg);
	fputc('\n', stderr);
	return -err;
}

int cli_nl_open(struct nl_conn *nl)
{
	int err = nl_open(nl);

	if (err == -ENOENT)
		return cli_error("ringsteer module not loaded (modprobe ringsteer)");
	if (err)
		return cli_nl_error(err, NULL, "cannot open generic netlink socket");
	return 0;
}

bool cli_is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") || !strcmp(word, "--help");
}

bool cli_is_json(const char *word)
{
	return !strcmp(word, "-j") || !strcmp(word, "--json");
}

void cli_take_json(int *argc, char ***argv)
{
	while (*argc > 0 && cli_is_json((*argv)[0])) {
		cli_json = true;
		(*argc)--;
		(*argv)++;
	}
}

void cli_list(FILE *f, const struct cli_cmd *cmds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cmds[i].help)
			fprintf(f, "  %-11s %s\n", cmds[i].name, cmds[i].help);
}

/* The first word after the command that is not -j, or NULL. */
static const char *first_word(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!cli_is_json(argv[i]))
			return argv[i];
	return NULL;
}

int cli_dispatch(const struct cli_cmd *cmds, size_t n, void (*usage)(FILE *f),
		 int argc, char **argv)
{
	const char *word;
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return -EINVAL;
	}
	if (cli_is_help(argv[1])) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		word = first_word(argc - 1, argv + 1);
		if (word && cli_is_help(word)) {
			cmds[i].usage(stdout);
			return 0;
		}
		return cmds[i].run(argc - 1, argv + 1);
	}
	if (!strcmp(argv[0], "ringctl"))
		return cli_error("unknown command '%s' (try 'ringctl help')", argv[1]);
	return cli_error("%s: unknown subcommand '%s' (try 'ringctl %s help')",
			 argv[0], argv[1], argv[0]);
}
