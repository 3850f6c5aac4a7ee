// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl fingerprint: one line per service, "VIP:PORT PROTO FINGERPRINT",
 * sorted, for diff(1) between load balancers. The fingerprint is a digest
 * of the ring (kmod/ring_fingerprint.c), so it is equal on hosts that map every
 * flow alike, whatever the order in which they were configured; the ring
 * generation, which counts changes, is deliberately left out. From a
 * configuration file it is computed offline with the same code.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "preview.h"
#include "cli.h"
#include "nl_ops.h"
#include "print.h"

void cmd_fingerprint_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl fingerprint [-j]\n"
"       ringctl fingerprint [-j] file FILE|- [key HEX32]\n"
"\n"
"Prints one line per service, sorted: VIP:PORT PROTO FINGERPRINT. The\n"
"fingerprint is a digest of the service's ring (every point, its owner,\n"
"the members and vnodes) and its hash mode: two load balancers with\n"
"equal fingerprints steer every new flow of the service alike. 'file'\n"
"computes them offline from a configuration file (the format of 'save'),\n"
"with its key or the one given. A forward tunnel service's line ends in\n"
"its forward mode and encapsulation: they decide how a packet reaches its\n"
"backend, not which backend, so they stay out of the digest.\n");
}

static void print(const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN], fp[PRINT_FINGERPRINT_LEN];
	struct json j;
	uint32_t i;

	json_init(&j, stdout);
	if (cli_json)
		json_arr_begin(&j, NULL);
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		print_fingerprint(fp, s->fingerprint);
		if (!cli_json) {
			rc_endpoint_format(ep, &s->vip);
			printf("%s %s %s", ep, rc_proto_name(s->proto), fp);
			print_forward_text(stdout, s);
			putchar('\n');
			continue;
		}
		json_obj_begin(&j, NULL);
		print_service_id_json(&j, s, false);
		json_str(&j, "fingerprint", fp);
		print_forward_json(&j, s);
		json_obj_end(&j);
	}
	if (cli_json) {
		json_arr_end(&j);
		json_finish(&j);
	}
}

static int from_file(const char *path, const char *key)
{
	struct rc_config c;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return cli_error("fingerprint: %s: %s", path, strerror(errno));
	err = parse_config(f, "fingerprint", path, &c);
	if (f != stdin)
		fclose(f);
	if (err)
		return err;
	if (key) {
		if (parse_key(key, c.key)) {
			rc_config_free(&c);
			return cli_error("fingerprint: bad key '%s' (want %d hex digits)", key,
				      2 * RINGSTEER_KEY_LEN);
		}
		c.has_key = true;
	}
	if (!c.has_key) {
		rc_config_free(&c);
		return cli_error("fingerprint: %s has no key line: give 'key HEX32'", path);
	}
	rc_config_sort(&c);
	err = rc_config_fingerprints(&c);
	if (!err)
		print(&c);
	rc_config_free(&c);
	return err ? cli_error("fingerprint: %s", strerror(-err)) : 0;
}

static int live(void)
{
	struct rc_config c;
	struct nl_conn nl;
	uint32_t i;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, &c, NULL, false);
	if (err)
		cli_nl_error(err, nl.ext_msg, "fingerprint");
	nl_close(&nl);
	if (err)
		return err;
	for (i = 0; i < c.ns; i++)
		if (!c.s[i].has_fingerprint) {
			rc_config_free(&c);
			return cli_error("fingerprint: this ringsteer module reports no fingerprints");
		}
	print(&c);
	rc_config_free(&c);
	return 0;
}

int cmd_fingerprint(int argc, char **argv)
{
	const char *file = NULL, *key = NULL;
	int i;

	argc--;
	argv++;
	cli_take_json(&argc, &argv);
	for (i = 0; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			cmd_fingerprint_usage(stdout);
			return 0;
		} else if (cli_is_json(argv[i])) {
			cli_json = true;
		} else if (!strcmp(argv[i], "file") && i + 1 < argc && !file) {
			file = argv[++i];
		} else if (!strcmp(argv[i], "key") && i + 1 < argc && !key) {
			key = argv[++i];
		} else {
			cmd_fingerprint_usage(stderr);
			return cli_error("fingerprint: unexpected argument '%s'", argv[i]);
		}
	}
	if (key && !file)
		return cli_error("fingerprint: 'key' goes with 'file'");
	return file ? from_file(file, key) : live();
}
