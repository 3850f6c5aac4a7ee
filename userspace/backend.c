// SPDX-License-Identifier: GPL-2.0
/* ringctl backend add|set|drain|activate|del: the backends of a service. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "change.h"
#include "cli.h"
#include "cmd.h"
#include "backend_drain.h"
#include "nl_ops.h"
#include "print.h"

void cmd_backend_usage(FILE *f)
{
	rc_settings_synopsis(f, "Usage: ringctl backend add", "VIP:PORT BACKEND:PORT [proto tcp|udp]",
			     RC_OBJ_BACKEND, RC_SOP_ADD, "[slots N[,N...]]");
	rc_settings_synopsis(f, "       ringctl backend set", "VIP:PORT BACKEND:PORT [proto tcp|udp]",
			     RC_OBJ_BACKEND, RC_SOP_SET, "[slots N[,N...]] [force]");
	fprintf(f,
"       ringctl backend drain VIP:PORT BACKEND:PORT [proto tcp|udp]\n"
"                           [wait [TIMEOUT] [delete]]\n"
"       ringctl backend activate VIP:PORT BACKEND:PORT [proto tcp|udp]\n"
"       ringctl backend del VIP:PORT BACKEND:PORT [proto tcp|udp] [keep-flows]\n"
"\n"
"The backend has the service's address family. A forward tunnel service's\n"
"backends have its port (direct server return cannot translate ports): give\n"
"BACKEND alone (10.1.0.1, fd00::1 or [fd00::1]) or with the VIP's port.\n"
"weight is 1..%u (default 1):\n"
"a backend of weight N owns N * vnodes points. A draining backend owns no\n"
"points, so no new flow reaches it while its established flows go on;\n"
"'activate' restores exactly the previous mapping. 'del' also deletes the\n"
"backend's connection tracking entries (their next packets are steered\n"
"afresh) unless keep-flows is given. 'drain ... wait' then shows the\n"
"backend's connections until none is left (exit 0) or TIMEOUT seconds\n"
"pass (exit %d); 'delete' deletes the backend once drained (not for a\n"
"forward tunnel service: no connections are counted there). health is a\n"
"health checker's finding, apart from the state: a backend is on the ring\n"
"when it is active and up. Marking down the service's last backend on the\n"
"ring needs 'force'. on-down says what the backend's connections do when it\n"
"is marked down, over the service's on-down (service, the default, follows it).\n"
"A backend of a placement slots service holds W slots of its slot space, each\n"
"held by one backend: 'slots' gives their numbers (W is then their count);\n"
"'add' without them takes the W lowest free ones and prints them; 'set' of\n"
"weight alone keeps the lowest W it holds and adds the lowest free.\n",
		RINGSTEER_MAX_WEIGHT, CLI_EXIT_TIMEOUT);
}

enum op { OP_ADD, OP_SET, OP_DRAIN, OP_ACTIVATE, OP_DEL };

/* The keywords of OP but its settings (parse_settings_kw()). */
static const uint64_t allowed[] = {
	[OP_ADD] = PARSE_KW_PROTO | PARSE_KW_SLOTS,
	[OP_SET] = PARSE_KW_PROTO | PARSE_KW_FORCE | PARSE_KW_SLOTS,
	[OP_DRAIN] = PARSE_KW_PROTO,
	[OP_ACTIVATE] = PARSE_KW_PROTO,
	[OP_DEL] = PARSE_KW_PROTO | PARSE_KW_KEEP_FLOWS,
};

static const unsigned int setting_ops[] = {
	[OP_ADD] = RC_SOP_ADD,
	[OP_SET] = RC_SOP_SET,
	[OP_DRAIN] = 0,
	[OP_ACTIVATE] = 0,
	[OP_DEL] = 0,
};

static int request(struct nl_conn *nl, enum op op, const struct rc_service *s,
		   const struct rc_backend *b, const struct parse_args *a)
{
	if (op == OP_ADD)
		return nl_backend_new(nl, s, b);
	if (op == OP_DEL)
		return nl_backend_del(nl, s, b, a->seen & PARSE_KW_KEEP_FLOWS ?
				      RINGSTEER_F_KEEP_FLOWS : 0);
	if (b->has & RC_HAS_HEALTH)
		return nl_backend_mark(nl, s, b, b->health,
				       a->seen & PARSE_KW_FORCE);
	return nl_backend_set(nl, s, b);
}

/*
 * What the command must know of the service before it changes anything:
 * its forward mode, when the backend was given without a port or the
 * drain is to be waited for. 0, or -errno printed.
 */
static int check_service(struct nl_conn *nl, const char *ctx, const struct rc_service *s,
			 const struct rc_backend *b, const struct parse_args *a,
			 const struct cmd_drain_wait *w)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service got = { .vip = s->vip, .proto = s->proto };
	uint32_t forward;
	int err;

	if (!a->bare && !w->wait)
		return 0;
	err = nl_service_get(nl, &got);
	forward = rc_service_forward(&got);
	rc_service_free(&got);
	if (err)
		return cli_nl_error(err, nl->ext_msg, "%s %s", ctx, rc_service_name(name, s));
	return (a->bare ? parse_check_bare_backend(ctx, b, forward) : 0) ?:
	       (w->wait ? cmd_drain_wait_check(s, forward) : 0);
}

/*
 * An add to a placement slots service without slots: the weight's number
 * of the lowest slots free now, into B, printed; a set of the weight
 * alone: the slots B holds, its highest given up for a lower weight, the
 * lowest free added for a higher one. 0 for a ring service.
 */
static int pick_slots(struct nl_conn *nl, const char *ctx, const struct rc_service *s,
		      struct rc_backend *b)
{
	char name[RC_SERVICE_NAME_LEN];
	uint32_t n = rc_backend_weight(b);
	struct rc_config c = { 0 };
	int err;

	err = nl_config_get(nl, &c, s, false);
	if (err) {
		rc_config_free(&c);
		return cli_nl_error(err, nl->ext_msg, "%s %s", ctx, rc_service_name(name, s));
	}
	if (!c.ns || rc_service_placement(&c.s[0]) != RINGSTEER_PLACEMENT_SLOTS) {
		rc_config_free(&c);
		return 0;
	}
	b->slots = malloc(n * sizeof(*b->slots));
	err = b->slots ? rc_backend_pick_slots(&c.s[0], rc_service_find_backend(&c.s[0], &b->ep),
					       n, b->slots) : -ENOMEM;
	if (!err)
		b->nslots = n;
	rc_config_free(&c);
	if (err == -ENOSPC)
		return cli_error("%s: %s has fewer than %u free slots: raise its capacity",
				 ctx, rc_service_name(name, s), n);
	if (err)
		return cli_error("%s: out of memory", ctx);
	printf("%s:", ctx);
	print_slots_text(stdout, b);
	putchar('\n');
	return 0;
}

/* argv[0] is the subcommand's name. */
static int run(enum op op, int argc, char **argv)
{
	char ctx[32], name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN];
	struct rc_service s;
	struct rc_backend b;
	struct cmd_drain_wait w = { 0 };
	struct parse_args a;
	struct nl_conn nl;
	int err, i;

	snprintf(ctx, sizeof(ctx), "backend %s", argv[0]);
	/* "wait ..." ends drain's words; the keywords before it are the usual. */
	for (i = 1; op == OP_DRAIN && i < argc; i++)
		if (!strcmp(argv[i], "wait")) {
			err = cmd_drain_wait_parse(argc - i, argv + i, &w);
			if (err)
				return err;
			argc = i;
		}
	err = parse_backend_args(ctx, argc - 1, argv + 1, allowed[op] |
				 parse_settings_kw(RC_OBJ_BACKEND, setting_ops[op]), &s, &b, &a);
	if (err)
		return err;
	if (op == OP_SET && !rc_settings_changed(RC_OBJ_BACKEND, &b) && !b.nslots)
		return cli_error("%s: nothing to change (give weight, state, on-down, health or slots)",
				 ctx);
	if ((a.seen & PARSE_KW_FORCE) && !(b.has & RC_HAS_HEALTH))
		return cli_error("%s: force goes with health down", ctx);
	if (op == OP_DRAIN || op == OP_ACTIVATE) {
		b.state = op == OP_DRAIN ? RINGSTEER_STATE_DRAINING : RINGSTEER_STATE_ACTIVE;
		b.has |= RC_HAS_STATE;
	}
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = check_service(&nl, ctx, &s, &b, &a, &w) ?:
	      ((op == OP_ADD || (op == OP_SET && (b.has & RC_HAS_WEIGHT))) && !b.nslots ?
	       pick_slots(&nl, ctx, &s, &b) : 0);
	if (err) {
		free(b.slots);
		nl_close(&nl);
		return err;
	}
	err = request(&nl, op, &s, &b, &a);
	if (err) {
		rc_endpoint_format(be, &b.ep);
		err = cli_nl_error(err, nl.ext_msg, "%s %s %s", ctx,
				   rc_service_name(name, &s), be);
	} else if (w.wait) {
		err = cmd_drain_wait(&nl, &s, &b, &w);
	}
	free(b.slots);
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

static int drain(int argc, char **argv)
{
	return run(OP_DRAIN, argc, argv);
}

static int activate(int argc, char **argv)
{
	return run(OP_ACTIVATE, argc, argv);
}

static int del(int argc, char **argv)
{
	return run(OP_DEL, argc, argv);
}

static const struct cli_cmd cmds[] = {
	{ "add", add, cmd_backend_usage, "add a backend to a service" },
	{ "set", set, cmd_backend_usage, "change a backend's weight, state, on-down or health" },
	{ "drain", drain, cmd_backend_usage, "send a backend no new flows" },
	{ "activate", activate, cmd_backend_usage, "undo drain" },
	{ "undrain", activate, cmd_backend_usage, NULL },
	{ "del", del, cmd_backend_usage, "delete a backend" },
	{ "delete", del, cmd_backend_usage, NULL },
};

int cmd_backend(int argc, char **argv)
{
	return cli_dispatch(cmds, sizeof(cmds) / sizeof(cmds[0]), cmd_backend_usage,
			    argc, argv);
}
