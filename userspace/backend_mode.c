// SPDX-License-Identifier: GPL-2.0
/* ringctl backend-mode show|set|off: the owner chain's backend mode. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_chain.h"

void cmd_backend_mode_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl backend-mode [show] [-j]\n"
"       ringctl backend-mode set port PORT [last-resort accept|drop] [max-hops N]\n"
"       ringctl backend-mode off\n"
"\n"
"The owner chain's backend mode of this network namespace: every GUE\n"
"packet to PORT that carries hops (the load balancer's older owners of\n"
"the flow) is accepted when it starts a flow (TCP SYN) or a local socket\n"
"holds its flow, else sent on to its next hop. With no hop left it is\n"
"accepted (the stack answers with a reset) or dropped, as last-resort\n"
"says (default accept). A packet with more than max-hops hops (1..%d,\n"
"default %d) is dropped. 'set' on a mode that is on changes only what it\n"
"names; 'off' drops the counters. doc/fleet.md, \"Owner chain\".\n",
		RINGSTEER_CHAIN_MAX_HOPS, RINGSTEER_DEFAULT_CHAIN_MAX_HOPS);
}

static const char *const last_resorts[] = { "accept", "drop" };

static void print_json(const struct rc_chain *c)
{
	struct json j;
	int i;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_bool(&j, "on", c->on);
	if (c->on) {
		json_u64(&j, "port", c->port);
		json_str(&j, "last_resort", c->last_resort < 2 ?
			 last_resorts[c->last_resort] : "?");
		json_u64(&j, "max_hops", c->max_hops);
		json_obj_begin(&j, "counters");
		for (i = 0; i < RC_CHAIN_NSTATS; i++)
			json_u64(&j, rc_chain_stat_names[i], c->stats[i]);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_finish(&j);
}

static void print_chain(const struct rc_chain *c)
{
	int i;

	if (cli_json) {
		print_json(c);
		return;
	}
	if (!c->on) {
		printf("backend mode off\n");
		return;
	}
	printf("backend mode on: GUE port %u, last-resort %s, max-hops %u\n",
	       c->port, c->last_resort < 2 ? last_resorts[c->last_resort] : "?",
	       c->max_hops);
	for (i = 0; i < RC_CHAIN_NSTATS; i++)
		printf("  %-20s %llu\n", rc_chain_stat_names[i],
		       (unsigned long long)c->stats[i]);
}

static int mode_show(int argc, char **argv)
{
	struct parse_args a;
	struct rc_chain c;
	struct nl_conn nl;
	int err;

	err = parse_keywords("backend-mode show", argc - 1, argv + 1,
			     PARSE_KW_JSON, &a);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_chain_get(&nl, &c);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "backend-mode show");
	nl_close(&nl);
	if (!err)
		print_chain(&c);
	return err;
}

/* "port N [last-resort W] [max-hops N]", each once. */
static int parse_set(int argc, char **argv, uint32_t *port, int *last_resort,
		     uint32_t *max_hops)
{
	int i;

	for (i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return cli_error("backend-mode set: '%s' needs a value", k);
		if (!strcmp(k, "port") && !*port) {
			if (parse_u32(v, 1, 65535, port))
				return cli_error("backend-mode set: bad port '%s' (1..65535)", v);
		} else if (!strcmp(k, "last-resort") && *last_resort < 0) {
			*last_resort = !strcmp(v, "accept") ? 0 : !strcmp(v, "drop") ? 1 : -2;
			if (*last_resort == -2)
				return cli_error("backend-mode set: bad last-resort '%s' (accept or drop)", v);
		} else if (!strcmp(k, "max-hops") && !*max_hops) {
			if (parse_u32(v, 1, RINGSTEER_CHAIN_MAX_HOPS, max_hops))
				return cli_error("backend-mode set: bad max-hops '%s' (1..%d)", v,
						 RINGSTEER_CHAIN_MAX_HOPS);
		} else {
			return cli_error("backend-mode set: unexpected or repeated '%s'", k);
		}
	}
	if (!*port)
		return cli_error("backend-mode set: missing port");
	return 0;
}

static int mode_set(int argc, char **argv)
{
	uint32_t port = 0, max_hops = 0;
	int last_resort = -1, err;
	struct nl_conn nl;

	err = parse_set(argc, argv, &port, &last_resort, &max_hops);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_chain_set(&nl, port, last_resort, max_hops);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "backend-mode set");
	nl_close(&nl);
	return err;
}

static int mode_off(int argc, char **argv)
{
	struct nl_conn nl;
	int err;

	if (argc > 1)
		return cli_error("backend-mode off: unexpected argument '%s'", argv[1]);
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_chain_del(&nl);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "backend-mode off");
	nl_close(&nl);
	return err;
}

static const struct cli_cmd cmds[] = {
	{ "show", mode_show, cmd_backend_mode_usage, "print the mode and its counters" },
	{ "set", mode_set, cmd_backend_mode_usage, "turn the mode on or change it" },
	{ "off", mode_off, cmd_backend_mode_usage, "turn the mode off" },
};

int cmd_backend_mode(int argc, char **argv)
{
	if (argc < 2 || cli_is_json(argv[1]))
		return mode_show(argc, argv);
	return cli_dispatch(cmds, sizeof(cmds) / sizeof(cmds[0]),
			    cmd_backend_mode_usage, argc, argv);
}
