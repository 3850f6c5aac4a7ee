// SPDX-License-Identifier: GPL-2.0
/* ringctl version: ringctl's and the kernel module's versions. */

#include <errno.h>
#include <stdio.h>

#include "uapi/ringsteer.h"
#include "cli.h"
#include "cmd.h"
#include "nl.h"

void cmd_version_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl version\n\n"
		"Prints ringctl's version and that of the kernel module's generic\n"
		"netlink family, if the module is loaded.\n");
}

int cmd_version(int argc, char **argv)
{
	struct nl_conn nl;
	int err;

	if (argc > 1)
		return cli_error("version: unexpected argument '%s'", argv[1]);
	printf("ringctl %s\n", RINGCTL_VERSION);
	err = nl_open(&nl);
	if (err == -ENOENT) {
		printf("kernel: ringsteer module not loaded\n");
		return 0;
	}
	if (err)
		return cli_nl_error(err, NULL, "netlink");
	printf("kernel: generic netlink family %s version %u (id %u)\n",
	       RINGSTEER_GENL_NAME, nl.family_version, nl.family_id);
	nl_close(&nl);
	return 0;
}
