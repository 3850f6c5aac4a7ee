// SPDX-License-Identifier: GPL-2.0
/* ringctl service add|set|del: services (virtual IP, port, protocol). */

#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

void cmd_service_usage(FILE *f)
{
	rc_settings_synopsis(f, "Usage: ringctl service add", "VIP:PORT [proto tcp|udp]",
			     RC_OBJ_SERVICE, RC_SOP_ADD, "");
	rc_settings_synopsis(f, "       ringctl service set", "VIP:PORT [proto tcp|udp]",
			     RC_OBJ_SERVICE, RC_SOP_SET, "");
	fprintf(f,
"       ringctl service del VIP:PORT [proto tcp|udp] [keep-flows]\n"
"\n"
"VIP is a.b.c.d or [IPv6]; proto defaults to tcp. vnodes is the number of\n"
"ring points per unit of backend weight (1..%u, default %u), for placement\n"
"ring only; hash flow (default) hashes the whole connection tuple, hash\n"
"source the client address only. 'set' of vnodes or hash re-places every\n"
"point: new flows may move between all backends, established ones stay.\n"
"'del' also deletes the service's connection tracking entries unless\n"
"keep-flows is given. on-down reset deletes a backend's connections when it\n"
"is marked down (health); keep (default) lets them go on, as after a drain.\n"
"\n"
"forward nat (default) DNATs each new flow through connection tracking;\n"
"forward tunnel encapsulates every packet to its backend, which replies to\n"
"the client directly (its backends have the VIP's port). encap ipip\n"
"(default; ip6ip6 for IPv6) or gue, to UDP port N (default %u). A\n"
"service keeps its forward mode: delete and add it to change that.\n"
"\n"
"placement ring (default) places each backend on the ring; placement slots\n"
"gives each backend weight numbered slots of a slot space of capacity N\n"
"positions (a power of two, %u..%u, default %u) and sends a flow to the\n"
"first live slot of its own probe sequence: even balance, and a change moves\n"
"only the flows of the backend it changes. Keep the slots held above an\n"
"eighth of N. A service keeps its placement; 'set' of capacity re-places\n"
"every flow.\n",
		RINGSTEER_MAX_VNODES, RINGSTEER_DEFAULT_VNODES, RINGSTEER_DEFAULT_GUE_PORT,
		RINGSTEER_MIN_CAPACITY, RINGSTEER_MAX_CAPACITY, RINGSTEER_DEFAULT_CAPACITY);
}

enum op { OP_ADD, OP_SET, OP_DEL };

/* The keywords of OP but its settings (parse_settings_kw()). */
static const uint64_t allowed[] = {
	[OP_ADD] = PARSE_KW_PROTO,
	[OP_SET] = PARSE_KW_PROTO,
	[OP_DEL] = PARSE_KW_PROTO | PARSE_KW_KEEP_FLOWS,
};

static const unsigned int setting_ops[] = {
	[OP_ADD] = RC_SOP_ADD,
	[OP_SET] = RC_SOP_SET,
	[OP_DEL] = 0,
};

/* argv[0] is the subcommand's name. */
static int run(enum op op, int argc, char **argv)
{
	char ctx[32], name[RC_SERVICE_NAME_LEN];
	struct rc_service s;
	struct parse_args a;
	struct nl_conn nl;
	int err;

	snprintf(ctx, sizeof(ctx), "service %s", argv[0]);
	err = parse_service_args(ctx, argc - 1, argv + 1, allowed[op] |
				 parse_settings_kw(RC_OBJ_SERVICE, setting_ops[op]), &s, &a);
	if (!err && op == OP_ADD)
		err = parse_check_new_service(ctx, &s);
	if (err)
		return err;
	if (op == OP_SET && !rc_settings_changed(RC_OBJ_SERVICE, &s))
		return cli_error("%s: nothing to change (give vnodes, hash, on-down, encap or capacity)",
				 ctx);
	err = cli_nl_open(&nl);
	if (err)
		return err;
	if (op == OP_ADD)
		err = nl_service_new(&nl, &s);
	else if (op == OP_SET)
		err = nl_service_set(&nl, &s);
	else
		err = nl_service_del(&nl, &s, a.seen & PARSE_KW_KEEP_FLOWS ?
				     RINGSTEER_F_KEEP_FLOWS : 0);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "%s %s", ctx, rc_service_name(name, &s));
	nl_close(&nl);
	return err;
}

static int add(int argc, char **argv)
{
	return run(OP_ADD, argc, argv);
}

static int set(int argc, char **argv)
{
	return run(OP_SET, argc, argv);
}

static int del(int argc, char **argv)
{
	return run(OP_DEL, argc, argv);
}

static const struct cli_cmd cmds[] = {
	{ "add", add, cmd_service_usage, "add a service" },
	{ "set", set, cmd_service_usage, "change a service's settings" },
	{ "del", del, cmd_service_usage, "delete a service" },
	{ "delete", del, cmd_service_usage, NULL },
	{ "show", cmd_show, cmd_show_usage, NULL },
	{ "list", cmd_show, cmd_show_usage, NULL },
};

int cmd_service(int argc, char **argv)
{
	return cli_dispatch(cmds, sizeof(cmds) / sizeof(cmds[0]), cmd_service_usage,
			    argc, argv);
}
