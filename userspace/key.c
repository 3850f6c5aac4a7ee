// SPDX-License-Identifier: GPL-2.0
/* ringctl key show|set: the namespace's SipHash key. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

void cmd_key_usage(FILE *f)
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

static void print_key(const uint8_t key[RINGSTEER_KEY_LEN])
{
	char hex[2 * RINGSTEER_KEY_LEN + 1];
	struct json j;

	rc_key_format(hex, key);
	if (!cli_json) {
		printf("%s\n", hex);
		return;
	}
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "key", hex);
	json_obj_end(&j);
	json_finish(&j);
}

/* argv[0] is "show" or "key". */
static int key_show(int argc, char **argv)
{
	uint8_t key[RINGSTEER_KEY_LEN];
	struct parse_args a;
	struct nl_conn nl;
	int err;

	err = parse_keywords("key show", argc - 1, argv + 1, PARSE_KW_JSON, &a);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_key_get(&nl, key);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "key show");
	nl_close(&nl);
	if (!err)
		print_key(key);
	return err;
}

static int key_set(int argc, char **argv)
{
	uint8_t key[RINGSTEER_KEY_LEN];
	struct nl_conn nl;
	int err;

	if (argc < 2)
		return cli_error("key set: missing key (%d hex digits or 'random')",
				 2 * RINGSTEER_KEY_LEN);
	if (argc > 2)
		return cli_error("key set: unexpected argument '%s'", argv[2]);
	if (!strcmp(argv[1], "random")) {
		if (getrandom(key, sizeof(key), 0) != sizeof(key))
			return cli_error("key set: getrandom: %s", strerror(errno));
	} else if (parse_key(argv[1], key)) {
		return cli_error("key set: bad key '%s' (want %d hex digits)", argv[1],
				 2 * RINGSTEER_KEY_LEN);
	}
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_key_set(&nl, key);
	if (err)
		err = cli_nl_error(err, nl.ext_msg, "key set");
	nl_close(&nl);
	return err;
}

static const struct cli_cmd cmds[] = {
	{ "show", key_show, cmd_key_usage, "print the key" },
	{ "set", key_set, cmd_key_usage, "set the key" },
};

int cmd_key(int argc, char **argv)
{
	/* "ringctl key" and "ringctl key -j" show it. */
	if (argc < 2 || cli_is_json(argv[1]))
		return key_show(argc, argv);
	return cli_dispatch(cmds, sizeof(cmds) / sizeof(cmds[0]), cmd_key_usage,
			    argc, argv);
}
