// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl show: services and backends with their settings, ring sizes,
 * shares and counters, as an ipvsadm-like table or as JSON (-j); the
 * printers are in lib/print.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"
#include "print.h"
#include "show_print.h"

void cmd_show_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl show [-j] [VIP:PORT [proto tcp|udp]]\n"
"\n"
"Shows every service of the network namespace (or the one named) with its\n"
"hash mode, virtual nodes per unit of weight, active/configured backends,\n"
"ring points and memory, new flows steered and dropped for want of an\n"
"active backend; then each backend with its state, health, weight, share\n"
"of the hash space, new flows steered to it, the connections it serves now\n"
"(TCP established, and the rest) and its own on-down if it has one. Each\n"
"service also shows its ring's generation and fingerprint. A first line\n"
"sums up the namespace: ring points of its budget, NAT hooks on or off,\n"
"kept flows, generation. -j prints one JSON object (see ringctl(8), JSON\n"
"OUTPUT).\n\n");
	cmd_show_rate_usage(f);
}

/* The namespace's state into c->net; modules without NET_GET have none. */
static int net_get(struct nl_conn *nl, struct rc_config *c)
{
	int err = nl_net_get(nl, &c->net);

	if (err == -EOPNOTSUPP)
		return 0;
	c->has_net = !err;
	return err;
}

/*
 * Counting needs CAP_NET_ADMIN over the namespace (it walks the host's
 * conntrack table); reading the rest does not: without it, show shows the
 * rest and says why the counts are missing.
 */
static int show_conns(struct nl_conn *nl, struct rc_config *c)
{
	uint32_t i, k;
	int err = nl_config_conns(nl, c);

	if (err != -EPERM)
		return err;
	for (i = 0; i < c->ns; i++)
		for (k = 0; k < c->s[i].nb; k++)
			c->s[i].b[k].has_conns = false;
	c->conns_unavailable = "counting connections needs CAP_NET_ADMIN over this network namespace";
	return 0;
}

int cmd_show(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN] = "";
	struct rc_service one;
	struct rc_config c;
	struct parse_args a;
	struct nl_conn nl;
	int err;

	argc--;
	argv++;
	cli_take_json(&argc, &argv);
	if (argc > 0 && (!strcmp(argv[0], "rate") || !strcmp(argv[0], "--rate")))
		return cmd_show_rate(argc, argv);
	if (argc > 0) {
		err = parse_service_args("show", argc, argv,
					 PARSE_KW_PROTO | PARSE_KW_JSON, &one, &a);
		if (err)
			return err;
		rc_service_name(name, &one);
	}
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, &c, argc > 0 ? &one : NULL, false);
	if (!err) {
		err = show_conns(&nl, &c);
		if (!err)
			err = net_get(&nl, &c);
		if (err)
			rc_config_free(&c);
	}
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "show%s%s", *name ? " " : "", name);
	nl_close(&nl);
	if (err)
		return err;
	if (cli_json)
		print_show_json(stdout, &c);
	else
		print_show_text(stdout, &c);
	rc_config_free(&c);
	return 0;
}
