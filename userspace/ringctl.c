// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl: configure the ringsteer kernel module and reason about its rings.
 * Subcommand families live in their own files; this one only dispatches.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uapi/ringsteer.h"
#include "nl.h"
#include "ringctl.h"
#include "plan.h"
#include "simulate.h"
#include "stats.h"

static int cmd_version(int argc, char **argv)
{
	struct rs_nl nl;
	int ret;

	(void)argv;
	if (argc > 1)
		return errorf("version: unexpected argument '%s'", argv[1]);
	printf("ringctl %s\n", RINGCTL_VERSION);
	ret = rs_nl_open(&nl);
	if (ret == -ENOENT) {
		printf("kernel: ringsteer module not loaded\n");
		return 0;
	}
	if (ret < 0)
		return errorf("netlink: %s", strerror(-ret));
	printf("kernel: generic netlink family %s version %u (id %u)\n",
	       RINGSTEER_GENL_NAME, nl.family_version, nl.family_id);
	rs_nl_close(&nl);
	return 0;
}

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*handler)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "service", cmd_service, "add, change or delete a service (VIP:PORT)" },
	{ "backend", cmd_backend, "add, change, drain, activate or delete a backend" },
	{ "show", cmd_show, "show services, backends, shares and counters" },
	{ "lookup", cmd_lookup, "show the backend a new flow would be steered to" },
	{ "key", cmd_key, "show or set the SipHash key" },
	{ "flush", cmd_flush, "delete every service" },
	{ "monitor", cmd_monitor, "print configuration changes as they happen" },
	{ "save", cmd_save, "print the configuration in the format restore reads" },
	{ "restore", cmd_restore, "replace the configuration with a saved one" },
	{ "plan", cmd_plan, "show what a change would move, changing nothing" },
	{ "fingerprint", cmd_fingerprint, "print each service's ring fingerprint" },
	{ "stats", cmd_stats, "print counters in the Prometheus text format" },
	{ "simulate", cmd_simulate, "compute ring shares, moves and owners offline" },
	{ "version", cmd_version, "show ringctl's and the kernel module's versions" },
	{ "help", cmd_help, "show this help" },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("Usage: %s [-j] COMMAND [ARGS...]\n\nCommands:\n", prog);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-11s %s\n", commands[i].name, commands[i].help);
	printf("\n'%s COMMAND help' shows a command's own usage.\n", prog);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-j") || !strcmp(argv[1], "--json")) {
			json_output = true;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			return cmd_help(0, NULL);
		} else if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
			printf("ringctl %s\n", RINGCTL_VERSION);
			return 0;
		} else {
			errorf("unknown option '%s' (try '%s help')", argv[1], prog);
			return 1;
		}
		argc--;
		argv++;
	}
	if (argc < 2) {
		cmd_help(0, NULL);
		return 1;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* A handler's positive return is a documented exit status. */
		ret = commands[i].handler(argc - 1, argv + 1);
		if (ret < 0)
			return 1;
		/* Output that did not reach its reader is a failure too. */
		if (fflush(stdout) || ferror(stdout)) {
			errorf("writing output: %s", strerror(errno));
			return 1;
		}
		return ret;
	}
	errorf("unknown command '%s' (try '%s help')", argv[1], prog);
	return 1;
}
