// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl flush, save and restore: the whole configuration of the network
 * namespace at once. restore reads and validates the whole file before
 * it changes anything.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "print.h"
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

/*
 * Each backend added re-places the whole ring, so n backends at v points
 * per unit of weight cost O(n^2 v) in the kernel (minutes for thousands of
 * backends). Built at one point per unit of weight and then set to v
 * once, the ring comes out the same, as it depends only on the key, v and
 * the set of active backends, for O(n^2 + n v log(n v)).
 */
static int add_service(struct nl_conn *nl, const struct rc_service *s)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	bool staged = s->nb > 1 && rc_service_vnodes(s) > 1;
	struct rc_service first = *s, final = *s;
	uint32_t k;
	int err;

	rc_service_name(name, s);
	if (staged) {
		first.vnodes = 1;
		first.has |= RC_HAS_VNODES;
		final.vnodes = rc_service_vnodes(s);
		final.has = RC_HAS_VNODES;
	}
	err = nl_service_new(nl, &first);
	if (err)
		return cli_nl_error(err, nl->ext_msg, "restore: line %u: service add %s",
				    s->line, name);
	for (k = 0; k < s->nb; k++) {
		err = nl_backend_new(nl, s, &s->b[k]);
		if (err) {
			rc_endpoint_format(ep, &s->b[k].ep);
			return cli_nl_error(err, nl->ext_msg, "restore: backend add %s %s",
					    name, ep);
		}
	}
	err = staged ? nl_service_set(nl, &final) : 0;
	if (err)
		return cli_nl_error(err, nl->ext_msg, "restore: line %u: service set %s vnodes %u",
				    s->line, name, final.vnodes);
	return 0;
}

static int apply(struct nl_conn *nl, const struct rc_config *c, uint32_t flags)
{
	uint32_t i;
	int err;

	err = nl_flush(nl, flags);
	if (err)
		return cli_nl_error(err, nl->ext_msg, "restore: flush");
	if (c->has_key) {
		err = nl_key_set(nl, c->key);
		if (err)
			return cli_nl_error(err, nl->ext_msg, "restore: key set");
	}
	for (i = 0; i < c->ns; i++) {
		err = add_service(nl, &c->s[i]);
		if (err)
			return err;
	}
	return 0;
}

void cmd_restore_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl restore FILE|- [keep-flows]\n\n"
		"Reads a configuration written by 'ringctl save' (- for standard input),\n"
		"checks all of it, then replaces the namespace's configuration with it:\n"
		"flush (connection tracking entries too, unless keep-flows), the key if\n"
		"the file has one, then every service and backend. A bad file changes\n"
		"nothing.\n");
}

/* The whole of PATH (- for stdin), checked. */
static int read_file(const char *path, struct rc_config *c)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return cli_error("restore: %s: %s", path, strerror(errno));
	err = parse_config(f, "restore", f == stdin ? "<stdin>" : path, c);
	if (f != stdin)
		fclose(f);
	return err;
}

int cmd_restore(int argc, char **argv)
{
	struct rc_config c;
	struct parse_args a;
	struct nl_conn nl;
	int err;

	if (argc < 2)
		return cli_error("restore: missing file name (or - for standard input)");
	err = parse_keywords("restore", argc - 2, argv + 2, PARSE_KW_KEEP_FLOWS, &a);
	if (err)
		return err;
	err = read_file(argv[1], &c);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (!err) {
		err = apply(&nl, &c, a.seen & PARSE_KW_KEEP_FLOWS ? RINGSTEER_F_KEEP_FLOWS : 0);
		nl_close(&nl);
	}
	rc_config_free(&c);
	return err;
}
