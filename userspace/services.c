// SPDX-License-Identifier: GPL-2.0
/* ringctl service add|set|del: services (virtual IP, port, protocol). */

#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "ringctl.h"
#include "rsnl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl service add VIP:PORT [proto tcp|udp] [vnodes N] [hash flow|source]\n"
"       ringctl service set VIP:PORT [proto tcp|udp] [vnodes N] [hash flow|source]\n"
"       ringctl service del VIP:PORT [proto tcp|udp] [keep-flows]\n"
"\n"
"VIP is a.b.c.d or [IPv6]; proto defaults to tcp. vnodes is the number of\n"
"ring points per unit of backend weight (1..%u, default %u); hash flow\n"
"(default) hashes the whole connection tuple, hash source the client\n"
"address only. 'set' re-places every point: new flows may move between all\n"
"backends, established ones stay. 'del' also deletes the service's\n"
"connection tracking entries unless keep-flows is given.\n",
		RINGSTEER_MAX_VNODES, RINGSTEER_DEFAULT_VNODES);
}

static int service_add(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service s;
	struct rc_args a;
	struct rs_nl nl;
	int err;

	if (rc_parse_service_args("service add", argc, argv,
				  RC_KW_PROTO | RC_KW_VNODES | RC_KW_HASH, &s, &a))
		return -1;
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_service_new(&nl, &s);
	if (err)
		nl_errorf(err, nl.ext_msg, "service add %s", rc_service_name(name, &s));
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

static int service_set(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service s;
	struct rc_args a;
	struct rs_nl nl;
	int err;

	if (rc_parse_service_args("service set", argc, argv,
				  RC_KW_PROTO | RC_KW_VNODES | RC_KW_HASH, &s, &a))
		return -1;
	if (!(s.has & (RC_HAS_VNODES | RC_HAS_HASH)))
		return errorf("service set: nothing to change (give vnodes and/or hash)");
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_service_set(&nl, &s);
	if (err)
		nl_errorf(err, nl.ext_msg, "service set %s", rc_service_name(name, &s));
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

static int service_del(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service s;
	struct rc_args a;
	struct rs_nl nl;
	int err;

	if (rc_parse_service_args("service del", argc, argv,
				  RC_KW_PROTO | RC_KW_KEEP_FLOWS, &s, &a))
		return -1;
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_service_del(&nl, &s, a.seen & RC_KW_KEEP_FLOWS ?
				RINGSTEER_F_KEEP_FLOWS : 0);
	if (err)
		nl_errorf(err, nl.ext_msg, "service del %s", rc_service_name(name, &s));
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_service(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub) {
		usage(stderr);
		return -1;
	}
	if (rc_is_help(sub)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "add"))
		return service_add(argc - 2, argv + 2);
	if (!strcmp(sub, "set"))
		return service_set(argc - 2, argv + 2);
	if (!strcmp(sub, "del") || !strcmp(sub, "delete"))
		return service_del(argc - 2, argv + 2);
	if (!strcmp(sub, "show") || !strcmp(sub, "list"))
		return cmd_show(argc - 1, argv + 1);
	return errorf("service: unknown subcommand '%s' (try 'ringctl service help')", sub);
}
