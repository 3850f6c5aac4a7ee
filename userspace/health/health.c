// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl health run|check FILE: the health checker, which marks a
 * service's backends up and down in the kernel from probe results
 * (health_run.c), and its configuration check.
 */

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../fleet/fleet_conf.h"
#include "../cmd.h"
#include "health_conf.h"
#include "health_run.h"

void cmd_health_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl health run FILE\n"
"       ringctl health check FILE\n"
"\n"
"'run' probes the backends of the services FILE names, in the current\n"
"network namespace (one checker for each), and marks a backend down after\n"
"'fall' failed probes and up after 'rise' good ones. It changes nothing\n"
"until every backend has been probed enough times, nothing while a\n"
"self-check fails, never more than 'guard max-down' of a service's active\n"
"backends (default %u%%) and never the last one; it never changes a\n"
"backend's state (drain is the operator's). A service of FILE that the\n"
"kernel does not have is named in the log and the status, unchecked, and\n"
"checked once it appears; when the kernel has none of them, 'run' fails\n"
"at once. On SIGTERM it exits and leaves the kernel as it is. 'check'\n"
"reads and checks FILE only. The file format is in ringctl(8), HEALTH\n"
"CHECK FILE FORMAT.\n", HC_DEF_MAX_DOWN_PCT);
}

static int load(int argc, char **argv, const char *ctx, struct hc_config *c)
{
	struct fl_conf fc;
	int err;

	if (argc != 2)
		return cli_error("%s: want one FILE", ctx);
	err = hc_conf_read(argv[1], ctx, c);
	/* The fleet file too, so that 'check' finds a bad one before 'run'. */
	if (!err && c->fleet) {
		err = fl_conf_read(c->fleet, ctx, &fc);
		if (err)
			hc_conf_free(c);
		else
			fl_conf_free(&fc);
	}
	return err;
}

static int check(int argc, char **argv)
{
	struct hc_config c;
	int err = load(argc, argv, "health check", &c);

	if (!err) {
		printf("%s: %u services, %u self-checks: good\n", argv[1], c.ns, c.nself);
		hc_conf_free(&c);
	}
	return err;
}

static int run(int argc, char **argv)
{
	struct hc_config c;
	int err = load(argc, argv, "health run", &c);

	if (err)
		return err;
	/* Our log lines go to the journal as they come. */
	setvbuf(stderr, NULL, _IOLBF, 0);
	err = hc_run(&c);
	hc_conf_free(&c);
	return err;
}

static const struct cli_cmd cmds[] = {
	{ "run", run, cmd_health_usage, "check backends and mark them up or down" },
	{ "check", check, cmd_health_usage, "check the configuration file only" },
};

int cmd_health(int argc, char **argv)
{
	return cli_dispatch(cmds, sizeof(cmds) / sizeof(cmds[0]), cmd_health_usage,
			    argc, argv);
}
