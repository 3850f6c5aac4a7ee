// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl restore: the whole configuration of the network namespace at
 * once. It reads and validates the whole file before it changes anything,
 * then sends only what differs (lib/restore_plan.c), so that services and
 * backends it keeps never lose a flow.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "restore_plan.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

static int send_op(struct nl_conn *nl, const struct rc_op *op)
{
	switch (op->kind) {
	case RC_OP_KEY_SET:
		return nl_key_set(nl, op->key);
	case RC_OP_SERVICE_NEW:
		return nl_service_new(nl, &op->s);
	case RC_OP_SERVICE_SET:
		return nl_service_set(nl, &op->s);
	case RC_OP_SERVICE_DEL:
		return nl_service_del(nl, &op->s, op->flags);
	case RC_OP_BACKEND_NEW:
		return nl_backend_new(nl, &op->s, &op->b);
	case RC_OP_BACKEND_SET:
		return nl_backend_set(nl, &op->s, &op->b);
	case RC_OP_BACKEND_DEL:
		return nl_backend_del(nl, &op->s, &op->b, op->flags);
	}
	return -EINVAL;
}

/* "restore: line 3: backend add 10.0.0.1:80 tcp 10.1.0.1:8080: ..." */
static int op_error(struct nl_conn *nl, int err, const struct rc_op *op)
{
	char name[RC_SERVICE_NAME_LEN] = "", be[RC_ENDPOINT_LEN] = "", line[24] = "";

	if (op->kind != RC_OP_KEY_SET)
		rc_service_name(name, &op->s);
	if (op->kind >= RC_OP_BACKEND_NEW)
		rc_endpoint_format(be, &op->b.ep);
	if (op->s.line)
		snprintf(line, sizeof(line), "line %u: ", op->s.line);
	return cli_nl_error(err, nl->ext_msg, "restore: %s%s%s%s%s%s", line,
			    rc_op_name(op->kind), *name ? " " : "", name,
			    *be ? " " : "", be);
}

/*
 * The live configuration, or with FLUSH none: flush it and start from
 * nothing, as restore did before it applied differences.
 */
static int read_live(struct nl_conn *nl, struct rc_config *live, bool flush,
		     uint32_t flags)
{
	int err;

	memset(live, 0, sizeof(*live));
	if (flush) {
		err = nl_flush(nl, flags);
		return err ? cli_nl_error(err, nl->ext_msg, "restore: flush") : 0;
	}
	err = nl_config_get(nl, live, NULL, true);
	return err ? cli_nl_error(err, nl->ext_msg, "restore: reading the configuration") : 0;
}

static int apply(struct nl_conn *nl, const struct rc_config *want, bool flush,
		 uint32_t flags)
{
	struct rc_config live;
	struct rc_plan plan;
	size_t i;
	int err;

	err = read_live(nl, &live, flush, flags);
	if (err)
		return err;
	err = rc_plan_restore(&live, want, flags, &plan);
	rc_config_free(&live);
	if (err)
		return cli_error("restore: out of memory");
	for (i = 0; i < plan.n && !err; i++) {
		err = send_op(nl, &plan.ops[i]);
		if (err)
			err = op_error(nl, err, &plan.ops[i]);
	}
	rc_plan_free(&plan);
	return err;
}

int cmd_restore_apply(struct nl_conn *nl, const struct rc_config *want, uint32_t flags)
{
	return apply(nl, want, false, flags);
}

void cmd_restore_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl restore [--flush] FILE|- [keep-flows]\n\n"
		"Reads a configuration written by 'ringctl save' (- for standard input),\n"
		"checks all of it, then changes the namespace's configuration into it,\n"
		"sending only the differences: the key if the file has another one,\n"
		"services and backends added or changed, then those not in the file\n"
		"deleted (their connection tracking entries too, unless keep-flows).\n"
		"Services and backends in both are never deleted: their flows go on.\n"
		"--flush deletes everything first, then adds the file's. A bad file\n"
		"changes nothing.\n");
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
	bool flush = argc > 1 && !strcmp(argv[1], "--flush");
	struct rc_config want;
	struct parse_args a;
	struct nl_conn nl;
	int err;

	argc -= flush;
	argv += flush;
	if (argc < 2)
		return cli_error("restore: missing file name (or - for standard input)");
	err = parse_keywords("restore", argc - 2, argv + 2, PARSE_KW_KEEP_FLOWS, &a);
	if (err)
		return err;
	err = read_file(argv[1], &want);
	if (err)
		return err;
	err = cli_nl_open(&nl);
	if (!err) {
		err = apply(&nl, &want, flush,
			    a.seen & PARSE_KW_KEEP_FLOWS ? RINGSTEER_F_KEEP_FLOWS : 0);
		nl_close(&nl);
	}
	rc_config_free(&want);
	return err;
}
