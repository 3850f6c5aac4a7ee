// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's table of commands and its top level: global options, dispatch,
 * exit status. Each command lives in its own file (cmd.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

static void usage(FILE *f);

static const struct cli_cmd commands[] = {
	{ "service", cmd_service, cmd_service_usage,
	  "add, change or delete a service (VIP:PORT)" },
	{ "backend", cmd_backend, cmd_backend_usage,
	  "add, change, drain, activate or delete a backend" },
	{ "show", cmd_show, cmd_show_usage, "show services, backends, shares and counters" },
	{ "lookup", cmd_lookup, cmd_lookup_usage,
	  "show the backend a new flow would be steered to" },
	{ "key", cmd_key, cmd_key_usage, "show or set the SipHash key" },
	{ "flush", cmd_flush, cmd_flush_usage, "delete every service" },
	{ "monitor", cmd_monitor, cmd_monitor_usage, "print configuration changes as they happen" },
	{ "save", cmd_save, cmd_save_usage, "print the configuration in the format restore reads" },
	{ "restore", cmd_restore, cmd_restore_usage, "change the configuration to a saved one" },
	{ "plan", cmd_plan, cmd_plan_usage, "show what a change would move, changing nothing" },
	{ "fingerprint", cmd_fingerprint, cmd_fingerprint_usage,
	  "print each service's ring fingerprint" },
	{ "stats", cmd_stats, cmd_stats_usage, "print counters in the Prometheus text format" },
	{ "simulate", cmd_simulate, cmd_simulate_usage,
	  "compute ring shares, moves and owners offline" },
	{ "health", cmd_health, cmd_health_usage,
	  "mark backends up and down from health probes" },
	{ "sync", cmd_sync, cmd_sync_usage,
	  "apply the fleet's configuration from etcd and publish this host's status" },
	{ "fleet", cmd_fleet, cmd_fleet_usage,
	  "whether every load balancer holds etcd's configuration and steers alike" },
	{ "backend-mode", cmd_backend_mode, cmd_backend_mode_usage,
	  "the owner chain's backend mode: accept or forward GUE packets with hops" },
	{ "import", cmd_import, cmd_import_usage,
	  "print an IPVS or keepalived configuration in ringsteer's format" },
	{ "version", cmd_version, cmd_version_usage, "show ringctl's and the kernel module's versions" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: ringctl [-j] [--no-wait] COMMAND [ARGS...]\n\nCommands:\n");
	cli_list(f, commands, NCOMMANDS);
	fprintf(f, "\n'ringctl COMMAND help' (or -h, --help) shows a command's own usage.\n");
}

int cmd_main(int argc, char **argv)
{
	int i, err;

	for (i = 1; i < argc && argv[i][0] == '-' && !cli_is_help(argv[i]); i++) {
		if (cli_is_json(argv[i])) {
			cli_json = true;
		} else if (!strcmp(argv[i], "--no-wait")) {
			/* Deletes return before their conntrack walk. */
			nl_no_wait = true;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			/* The same report as "ringctl version". */
			return cmd_version(1, (char *[]){ "version", NULL }) ? 1 : 0;
		} else {
			cli_error("unknown option '%s' (try 'ringctl help')", argv[i]);
			return 1;
		}
	}
	/* The table's name, in place of the last option (or of argv[0]). */
	argv[i - 1] = "ringctl";
	err = cli_dispatch(commands, NCOMMANDS, usage, argc - i + 1, argv + i - 1);
	if (err < 0)
		return 1;
	/* Output that did not reach its reader is a failure too. */
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("writing output: %s", strerror(errno));
		return 1;
	}
	/* A command's positive return is a documented exit status. */
	return err;
}
