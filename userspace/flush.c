// SPDX-License-Identifier: GPL-2.0
/* ringctl flush: every service of the network namespace deleted at once. */

#include <stdio.h>

#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

void cmd_flush_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl flush [keep-flows]\n\n"
		"Deletes every service of the network namespace, and the connection\n"
		"tracking entries steered by them unless keep-flows is given.\n");
}

int cmd_flush(int argc, char **argv)
{
	struct parse_args a;
	struct nl_conn nl;
	int err;

	err = parse_keywords("flush", argc - 1, argv + 1, PARSE_KW_KEEP_FLOWS, &a);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_flush(&nl, a.seen & PARSE_KW_KEEP_FLOWS ? RINGSTEER_F_KEEP_FLOWS : 0);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "flush");
	nl_close(&nl);
	return err;
}
