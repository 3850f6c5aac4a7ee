// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl import ipvsadm|keepalived FILE|- [--lenient] [--health]: an
 * IPVS configuration in ringsteer's words, on standard output. The file
 * is read whole and mapped (import.h); what comes out is read back by
 * ringsteer's own readers before it is printed, so that what import
 * prints, restore and health run take.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "../cmd.h"
#include "../health/health_conf.h"
#include "import.h"

void cmd_import_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl import ipvsadm FILE|- [--lenient]\n"
		"       ringctl import keepalived FILE|- [--lenient] [--health]\n\n"
		"Prints the ringsteer configuration (the format of 'ringctl restore') of\n"
		"an IPVS setup: the output of 'ipvsadm-save -n', or the virtual_server\n"
		"blocks of a keepalived.conf; with --health, the health-check file of\n"
		"'ringctl health run' for keepalived's checkers instead. What does not\n"
		"map is an error naming its line; --lenient makes it a warning and\n"
		"leaves it out. Notes on what changes are comments in the output.\n");
}

struct import_args {
	const char *format, *path;
	bool lenient, health;
};

static int import_args(int argc, char **argv, struct import_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lenient"))
			a->lenient = true;
		else if (!strcmp(argv[i], "--health"))
			a->health = true;
		else if (!a->format)
			a->format = argv[i];
		else if (!a->path)
			a->path = argv[i];
		else
			return cli_error("import: unexpected argument '%s'", argv[i]);
	}
	if (!a->format || (strcmp(a->format, "ipvsadm") && strcmp(a->format, "keepalived")))
		return cli_error("import: want ipvsadm or keepalived (try 'ringctl import help')");
	if (!a->path)
		return cli_error("import: %s: want a file, or - for standard input", a->format);
	if (a->health && strcmp(a->format, "keepalived"))
		return cli_error("import: --health: ipvsadm-save has no health checks");
	return 0;
}

/* What was printed into TEXT, read back as restore or health run would. */
static int check_output(bool health, char *text, size_t len)
{
	FILE *f = fmemopen(text, len, "r");
	struct hc_config hc;
	struct rc_config rc;
	int err;

	if (!f)
		return cli_error("import: %s", strerror(errno));
	if (health)
		err = hc_conf_parse(f, "import: output", "health", &hc);
	else
		err = parse_config(f, "import: output", "config", &rc);
	fclose(f);
	if (err)
		return cli_error("import: the output above does not read back: a defect of import");
	if (health)
		hc_conf_free(&hc);
	else
		rc_config_free(&rc);
	return 0;
}

int imp_run(struct imp_config *c, const char *format, FILE *in, bool health, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	err = (!strcmp(format, "ipvsadm") ? imp_read_ipvsadm(in, c) :
	       imp_read_keepalived(in, c)) ?: imp_finish(c);
	if (err)
		return err;
	if (health && !c->checked)
		return cli_error("import: %s: no checker that ringsteer's checker takes: no "
				 "health-check file", c->file);
	mem = open_memstream(&text, &len);
	if (!mem)
		return cli_error("import: %s", strerror(errno));
	if (health)
		imp_emit_health(mem, c);
	else
		imp_emit_config(mem, c);
	if (fclose(mem)) {
		free(text);
		return cli_error("import: %s", strerror(errno));
	}
	err = check_output(health, text, len);
	if (!err && fwrite(text, 1, len, out) != len)
		err = cli_error("import: writing output: %s", strerror(errno));
	free(text);
	if (!err && c->warnings)
		fprintf(stderr, "ringctl: import: %u warning%s: what they name is left out\n",
			c->warnings, c->warnings == 1 ? "" : "s");
	return err;
}

int cmd_import(int argc, char **argv)
{
	struct import_args a;
	struct imp_config c;
	FILE *in;
	int err;

	err = import_args(argc, argv, &a);
	if (err)
		return err;
	in = strcmp(a.path, "-") ? fopen(a.path, "r") : stdin;
	if (!in)
		return cli_error("import: %s: %s", a.path, strerror(errno));
	memset(&c, 0, sizeof(c));
	c.file = strcmp(a.path, "-") ? a.path : "stdin";
	c.lenient = a.lenient;
	err = imp_run(&c, a.format, in, a.health, stdout);
	if (in != stdin)
		fclose(in);
	imp_config_free(&c);
	return err;
}
