// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl stats --prometheus: the counters as a monitoring system wants
 * them, printed by stats_prom.c.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "nl_ops.h"
#include "print.h"
#include "stats_prom.h"

void cmd_stats_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl stats [--prometheus]\n"
"\n"
"Prints every service's and backend's counters, gauges and settings in\n"
"the Prometheus text format (the only format so far), for example for\n"
"node_exporter's textfile collector: see ringctl(8), STATISTICS.\n");
}

static int read_config(struct rc_config *c, bool conns)
{
	struct nl_conn nl;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, c, NULL, false);
	if (!err && conns) {
		err = nl_config_conns(&nl, c);
		/* Without CAP_NET_ADMIN: every metric but the counts. */
		if (err == -EPERM) {
			c->conns_unavailable = "counting connections needs CAP_NET_ADMIN over this network namespace";
			err = 0;
		}
		if (err)
			rc_config_free(c);
	}
	if (err)
		cli_nl_error(err, nl.ext_msg, "reading the configuration");
	nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_stats(int argc, char **argv)
{
	struct rc_config c;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			cmd_stats_usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--prometheus") && strcmp(argv[i], "prometheus")) {
			cmd_stats_usage(stderr);
			return cli_error("stats: unexpected argument '%s'", argv[i]);
		}
	}
	err = read_config(&c, true);
	if (err)
		return err;
	print_prom(stdout, &c);
	rc_config_free(&c);
	return 0;
}
