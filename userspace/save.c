// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl save: the whole configuration of the network namespace, in the
 * format restore reads (lib/cfgfile.c).
 */

#include <stdio.h>

#include "print.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

void cmd_save_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl save\n\n"
		"Prints the key, the services and their backends in the format\n"
		"'ringctl restore' reads (see ringctl(8), CONFIGURATION FILE FORMAT).\n"
		"The key is secret: keep saved files private.\n");
}

int cmd_save(int argc, char **argv)
{
	struct rc_config c;
	struct nl_conn nl;
	int err;

	if (argc > 1)
		return cli_error("save: unexpected argument '%s'", argv[1]);
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, &c, NULL, true);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "save");
	nl_close(&nl);
	if (err)
		return err;
	print_config(stdout, &c);
	rc_config_free(&c);
	return 0;
}
