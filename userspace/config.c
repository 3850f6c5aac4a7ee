// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl flush, save and restore: the whole configuration of the network
 * namespace at once. restore reads and validates the whole file before
 * it changes anything.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cfgfile.h"
#include "parse.h"
#include "ringctl.h"
#include "rsnl.h"

static int want_help(int argc, char **argv)
{
	return argc > 1 && rc_is_help(argv[1]);
}

int cmd_flush(int argc, char **argv)
{
	struct rc_args a;
	struct rs_nl nl;
	int err;

	if (want_help(argc, argv)) {
		printf("Usage: ringctl flush [keep-flows]\n\n"
		       "Deletes every service of the network namespace, and the connection\n"
		       "tracking entries steered by them unless keep-flows is given.\n");
		return 0;
	}
	if (rc_parse_keywords("flush", argc - 1, argv + 1, RC_KW_KEEP_FLOWS, &a))
		return -1;
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_flush(&nl, a.seen & RC_KW_KEEP_FLOWS ? RINGSTEER_F_KEEP_FLOWS : 0);
	if (err)
		nl_errorf(err, nl.ext_msg, "flush");
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_save(int argc, char **argv)
{
	struct rc_config c;
	struct rs_nl nl;
	int err;

	if (want_help(argc, argv)) {
		printf("Usage: ringctl save\n\n"
		       "Prints the key, the services and their backends in the format\n"
		       "'ringctl restore' reads (see ringctl(8), CONFIGURATION FILE FORMAT).\n"
		       "The key is secret: keep saved files private.\n");
		return 0;
	}
	if (argc > 1)
		return errorf("save: unexpected argument '%s'", argv[1]);
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_config_get(&nl, &c, NULL, true);
	if (err)
		nl_errorf(err, nl.ext_msg, "save");
	rs_nl_close(&nl);
	if (err)
		return -1;
	rc_cfg_print(stdout, &c);
	rc_config_free(&c);
	return 0;
}

static int apply(struct rs_nl *nl, const struct rc_config *c, uint32_t flags)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	uint32_t i, k;
	int err;

	err = rsnl_flush(nl, flags);
	if (err)
		return nl_errorf(err, nl->ext_msg, "restore: flush");
	if (c->has_key) {
		err = rsnl_key_set(nl, c->key);
		if (err)
			return nl_errorf(err, nl->ext_msg, "restore: key set");
	}
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];
		struct rc_service first = *s, final = *s;
		/*
		 * Each backend added re-places the whole ring, so n backends
		 * at v points per unit of weight cost O(n^2 v) in the kernel
		 * (minutes for thousands of backends). Built at one point per
		 * unit of weight and then set to v once, the ring comes out
		 * the same, as it depends only on the key, v and the set of
		 * active backends, for O(n^2 + n v log(n v)).
		 */
		bool staged = s->nb > 1 && rc_service_vnodes(s) > 1;

		if (staged) {
			first.vnodes = 1;
			first.has |= RC_HAS_VNODES;
			final.vnodes = rc_service_vnodes(s);
			final.has = RC_HAS_VNODES;
		}
		err = rsnl_service_new(nl, &first);
		if (err)
			return nl_errorf(err, nl->ext_msg, "restore: line %u: service add %s",
					 s->line, rc_service_name(name, s));
		for (k = 0; k < s->nb; k++) {
			err = rsnl_backend_new(nl, s, &s->b[k]);
			if (err) {
				rc_endpoint_format(ep, &s->b[k].ep);
				return nl_errorf(err, nl->ext_msg,
						 "restore: backend add %s %s",
						 rc_service_name(name, s), ep);
			}
		}
		err = staged ? rsnl_service_set(nl, &final) : 0;
		if (err)
			return nl_errorf(err, nl->ext_msg, "restore: line %u: service set %s vnodes %u",
					 s->line, rc_service_name(name, s), final.vnodes);
	}
	return 0;
}

int cmd_restore(int argc, char **argv)
{
	const char *path = NULL;
	struct rc_config c;
	struct rc_args a;
	struct rs_nl nl;
	FILE *f;
	int err;

	if (want_help(argc, argv)) {
		printf("Usage: ringctl restore FILE|- [keep-flows]\n\n"
		       "Reads a configuration written by 'ringctl save' (- for standard input),\n"
		       "checks all of it, then replaces the namespace's configuration with it:\n"
		       "flush (connection tracking entries too, unless keep-flows), the key if\n"
		       "the file has one, then every service and backend. A bad file changes\n"
		       "nothing.\n");
		return 0;
	}
	if (argc < 2)
		return errorf("restore: missing file name (or - for standard input)");
	path = argv[1];
	if (rc_parse_keywords("restore", argc - 2, argv + 2, RC_KW_KEEP_FLOWS, &a))
		return -1;
	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		return errorf("restore: %s: %s", path, strerror(errno));
	err = rc_cfg_parse(f, "restore", f == stdin ? "<stdin>" : path, &c);
	if (f != stdin)
		fclose(f);
	if (err)
		return -1;
	if (rc_nl_open(&nl)) {
		rc_config_free(&c);
		return -1;
	}
	err = apply(&nl, &c, a.seen & RC_KW_KEEP_FLOWS ? RINGSTEER_F_KEEP_FLOWS : 0);
	rs_nl_close(&nl);
	rc_config_free(&c);
	return err ? -1 : 0;
}
