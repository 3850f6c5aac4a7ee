// SPDX-License-Identifier: GPL-2.0
/* ringctl key show|set: the namespace's SipHash key. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "json.h"
#include "parse.h"
#include "ringctl.h"
#include "rsnl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl key [show] [-j]\n"
"       ringctl key set HEX32|random\n"
"\n"
"The SipHash key places every ring of the network namespace: hosts that\n"
"must steer flows the same way need the same key. 'show' prints it as %d\n"
"lowercase hex digits ({\"key\":\"...\"} with -j). 'set' re-places every\n"
"service's ring (new flows may move, established ones stay); 'random'\n"
"draws a key from getrandom(2).\n",
		2 * RINGSTEER_KEY_LEN);
}

static int key_show(int argc, char **argv)
{
	char hex[2 * RINGSTEER_KEY_LEN + 1];
	uint8_t key[RINGSTEER_KEY_LEN];
	struct rc_args a;
	struct rs_nl nl;
	struct json j;
	int err;

	if (rc_parse_keywords("key show", argc, argv, RC_KW_JSON, &a))
		return -1;
	if (a.seen & RC_KW_JSON)
		json_output = true;
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_key_get(&nl, key);
	if (err)
		nl_errorf(err, nl.ext_msg, "key show");
	rs_nl_close(&nl);
	if (err)
		return -1;
	rc_format_key(hex, key);
	if (json_output) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "key", hex);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("%s\n", hex);
	}
	return 0;
}

static int key_set(int argc, char **argv)
{
	uint8_t key[RINGSTEER_KEY_LEN];
	struct rs_nl nl;
	int err;

	if (argc < 1)
		return errorf("key set: missing key (%d hex digits or 'random')",
			      2 * RINGSTEER_KEY_LEN);
	if (argc > 1)
		return errorf("key set: unexpected argument '%s'", argv[1]);
	if (!strcmp(argv[0], "random")) {
		if (getrandom(key, sizeof(key), 0) != sizeof(key))
			return errorf("key set: getrandom: %s", strerror(errno));
	} else if (rc_parse_key(argv[0], key)) {
		return errorf("key set: bad key '%s' (want %d hex digits)", argv[0],
			      2 * RINGSTEER_KEY_LEN);
	}
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_key_set(&nl, key);
	if (err)
		nl_errorf(err, nl.ext_msg, "key set");
	rs_nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_key(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "show";

	if (rc_is_help(sub)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "show"))
		return key_show(argc > 1 ? argc - 2 : 0, argv + 2);
	if (rc_is_json(sub))
		return key_show(argc - 1, argv + 1);
	if (!strcmp(sub, "set"))
		return key_set(argc - 2, argv + 2);
	return errorf("key: unknown subcommand '%s' (try 'ringctl key help')", sub);
}
