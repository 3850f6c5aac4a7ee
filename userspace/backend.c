// SPDX-License-Identifier: GPL-2.0
/* ringctl backend add|set|drain|activate|del: the backends of a service. */

#include <stdio.h>
#include <string.h>

#include "drain.h"
#include "parse.h"
#include "ringctl.h"
#include "rsnl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl backend add VIP:PORT BACKEND:PORT [proto tcp|udp] [weight W]\n"
"                           [state active|draining]\n"
"       ringctl backend set VIP:PORT BACKEND:PORT [proto tcp|udp] [weight W]\n"
"                           [state active|draining]\n"
"       ringctl backend drain VIP:PORT BACKEND:PORT [proto tcp|udp]\n"
"                           [wait [TIMEOUT] [delete]]\n"
"       ringctl backend activate VIP:PORT BACKEND:PORT [proto tcp|udp]\n"
"       ringctl backend del VIP:PORT BACKEND:PORT [proto tcp|udp] [keep-flows]\n"
"\n"
"The backend has the service's address family. weight is 1..%u (default 1):\n"
"a backend of weight W owns W * vnodes points. A draining backend owns no\n"
"points, so no new flow reaches it while its established flows go on;\n"
"'activate' restores exactly the previous mapping. 'del' also deletes the\n"
"backend's connection tracking entries (their next packets are steered\n"
"afresh) unless keep-flows is given. 'drain ... wait' then shows the\n"
"backend's connections until none is left (exit 0) or TIMEOUT seconds\n"
"pass (exit %d); 'delete' deletes the backend once drained.\n",
		RINGSTEER_MAX_WEIGHT, RC_EXIT_TIMEOUT);
}

enum op { OP_ADD, OP_SET, OP_DRAIN, OP_ACTIVATE, OP_DEL };

static const struct {
	const char *name;
	unsigned int allowed;
} ops[] = {
	[OP_ADD] = { "add", RC_KW_PROTO | RC_KW_WEIGHT | RC_KW_STATE },
	[OP_SET] = { "set", RC_KW_PROTO | RC_KW_WEIGHT | RC_KW_STATE },
	[OP_DRAIN] = { "drain", RC_KW_PROTO },
	[OP_ACTIVATE] = { "activate", RC_KW_PROTO },
	[OP_DEL] = { "del", RC_KW_PROTO | RC_KW_KEEP_FLOWS },
};

static int run(enum op op, int argc, char **argv)
{
	char ctx[32], name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN];
	struct rc_service s;
	struct rc_backend b;
	struct rc_drain_wait w = { 0 };
	struct rc_args a;
	struct rs_nl nl;
	int err, i;

	snprintf(ctx, sizeof(ctx), "backend %s", ops[op].name);
	for (i = 0; op == OP_DRAIN && i < argc; i++)
		if (!strcmp(argv[i], "wait")) {
			if (rc_drain_wait_parse(argc - i, argv + i, &w))
				return -1;
			argc = i;
		}
	if (rc_parse_backend_args(ctx, argc, argv, ops[op].allowed, &s, &b, &a))
		return -1;
	if (op == OP_SET && !(b.has & (RC_HAS_WEIGHT | RC_HAS_STATE)))
		return errorf("%s: nothing to change (give weight and/or state)", ctx);
	if (op == OP_DRAIN || op == OP_ACTIVATE) {
		b.state = op == OP_DRAIN ? RINGSTEER_STATE_DRAINING : RINGSTEER_STATE_ACTIVE;
		b.has |= RC_HAS_STATE;
	}
	if (rc_nl_open(&nl))
		return -1;
	switch (op) {
	case OP_ADD:
		err = rsnl_backend_new(&nl, &s, &b);
		break;
	case OP_DEL:
		err = rsnl_backend_del(&nl, &s, &b, a.seen & RC_KW_KEEP_FLOWS ?
				       RINGSTEER_F_KEEP_FLOWS : 0);
		break;
	default:
		err = rsnl_backend_set(&nl, &s, &b);
		break;
	}
	if (err) {
		rc_endpoint_format(be, &b.ep);
		nl_errorf(err, nl.ext_msg, "%s %s %s", ctx, rc_service_name(name, &s), be);
	} else if (w.wait) {
		err = rc_drain_wait(&nl, &s, &b, &w);
		rs_nl_close(&nl);
		return err;
	}
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_backend(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	size_t i;

	if (!sub) {
		usage(stderr);
		return -1;
	}
	if (rc_is_help(sub)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "delete"))
		sub = "del";
	if (!strcmp(sub, "undrain"))
		sub = "activate";
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(sub, ops[i].name))
			return run(i, argc - 2, argv + 2);
	return errorf("backend: unknown subcommand '%s' (try 'ringctl backend help')", sub);
}
