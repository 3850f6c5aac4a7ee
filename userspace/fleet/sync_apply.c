// SPDX-License-Identifier: GPL-2.0
/*
 * Where "ringctl sync" applies a revision (sync_apply.h): the kernel,
 * through restore's diff, or in dry-run a configuration kept in memory,
 * with each request printed instead of sent.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../cmd.h"
#include "nl_ops.h"
#include "parse.h"
#include "preview.h"
#include "print.h"
#include "../restore_plan.h"
#include "sync_apply.h"

int sy_target_open(struct sy_target *t, bool dry_run)
{
	memset(t, 0, sizeof(*t));
	t->dry_run = dry_run;
	return dry_run ? 0 : cli_nl_open(&t->nl);
}

void sy_target_close(struct sy_target *t)
{
	if (!t->dry_run)
		nl_close(&t->nl);
	rc_config_free(&t->dry);
}

int sy_config_copy(struct rc_config *to, const struct rc_config *from)
{
	struct rc_service *s;
	uint32_t i, k;

	memset(to, 0, sizeof(*to));
	to->has_key = from->has_key;
	memcpy(to->key, from->key, sizeof(to->key));
	for (i = 0; i < from->ns; i++) {
		s = rc_config_add_service(to, &from->s[i]);
		for (k = 0; s && k < from->s[i].nb; k++)
			if (!rc_service_add_backend(s, &from->s[i].b[k]))
				s = NULL;
		if (!s) {
			rc_config_free(to);
			return -ENOMEM;
		}
	}
	return 0;
}

int sy_target_read(struct sy_target *t, struct rc_config *live)
{
	int err;

	if (t->dry_run) {
		err = sy_config_copy(live, &t->dry);
		if (!err) {
			rc_config_sort(live);
			/* Without a key-file the dry run's key is all zeroes. */
			live->has_key = true;
			err = rc_config_fingerprints(live);
		}
		return err ? cli_error("sync: dry-run: %s", strerror(-err)) : 0;
	}
	err = nl_config_get(&t->nl, live, NULL, true);
	return err ? cli_nl_error(err, t->nl.ext_msg, "sync: reading the kernel's configuration") : 0;
}

/* The requests restore would send, printed, and WANT kept as the new state. */
static int dry_apply(struct sy_target *t, const struct rc_config *want, int64_t rev)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	struct rc_config next;
	struct rc_plan plan;
	size_t i;
	int err;

	err = rc_plan_restore(&t->dry, want, 0, &plan);
	if (err)
		return cli_error("sync: dry-run: out of memory");
	for (i = 0; i < plan.n; i++) {
		const struct rc_op *op = &plan.ops[i];

		printf("revision %lld: %s", (long long)rev, rc_op_name(op->kind));
		if (op->kind != RC_OP_KEY_SET)
			printf(" %s", rc_service_name(name, &op->s));
		if (op->kind >= RC_OP_BACKEND_NEW) {
			rc_endpoint_format(ep, &op->b.ep);
			printf(" %s", ep);
		}
		putchar('\n');
	}
	printf("revision %lld: %zu requests\n", (long long)rev, plan.n);
	fflush(stdout);
	rc_plan_free(&plan);
	err = sy_config_copy(&next, want);
	if (err)
		return cli_error("sync: dry-run: out of memory");
	/* restore keeps the key when the file has none. */
	if (!next.has_key) {
		next.has_key = t->dry.has_key;
		memcpy(next.key, t->dry.key, sizeof(next.key));
	}
	rc_config_free(&t->dry);
	t->dry = next;
	return 0;
}

/*
 * The kernel's configuration as it is, then WANT through restore's diff;
 * if a request fails, the first configuration again, so that a revision
 * is applied whole or not at all.
 */
static int kernel_apply(struct sy_target *t, const struct rc_config *want)
{
	char why[CLI_ERROR_LEN];
	struct rc_config before;
	int err;

	err = nl_config_get(&t->nl, &before, NULL, true);
	if (err)
		return cli_nl_error(err, t->nl.ext_msg, "sync: reading the kernel's configuration");
	err = cmd_restore_apply(&t->nl, want, 0);
	if (err) {
		snprintf(why, sizeof(why), "%s", cli_last_error());
		if (cmd_restore_apply(&t->nl, &before, 0))
			cli_error("sync: rolling back to the configuration before: %s",
				  cli_last_error());
		err = cli_error("%s (rolled back)", why);
	}
	rc_config_free(&before);
	return err;
}

int sy_apply(struct sy_target *t, const char *text, size_t len, const char *name,
	     const uint8_t *key, int64_t rev)
{
	struct rc_config want;
	FILE *f = fmemopen((void *)text, len ? len : 1, "r");
	int err;

	if (!f)
		return cli_error("sync: %s: %s", name, strerror(errno));
	err = parse_config(f, "sync", name, &want);
	fclose(f);
	if (err)
		return err;
	if (want.has_key) {
		rc_config_free(&want);
		return cli_error("sync: %s: a key line: the SipHash key stays on each host (key-file), never in etcd",
				 name);
	}
	if (key) {
		memcpy(want.key, key, sizeof(want.key));
		want.has_key = true;
	}
	err = t->dry_run ? dry_apply(t, &want, rev) : kernel_apply(t, &want);
	rc_config_free(&want);
	return err;
}

static int set_one(struct sy_target *t, const struct rc_service *ws, const struct rc_backend *wb)
{
	struct rc_service *ds;
	struct rc_backend *db, b;

	if (!t->dry_run) {
		/* Only the health: weight and state are the configuration's. */
		memset(&b, 0, sizeof(b));
		b.ep = wb->ep;
		return nl_backend_health(&t->nl, ws, &b, wb->health, false);
	}
	ds = rc_config_find_service(&t->dry, ws);
	db = ds ? rc_service_find_backend(ds, &wb->ep) : NULL;
	if (!db)
		return -ENOENT;
	db->health = wb->health;
	db->has |= RC_HAS_HEALTH;
	return 0;
}

int sy_health(struct sy_target *t, const struct rc_config *want, int64_t rev)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	struct rc_config live;
	int err, changed = 0;
	uint32_t i, k;

	err = sy_target_read(t, &live);
	if (err)
		return err;
	for (i = 0; i < want->ns; i++) {
		const struct rc_service *ws = &want->s[i];
		const struct rc_service *ls = rc_config_find_service(&live, ws);

		for (k = 0; ls && k < ws->nb; k++) {
			const struct rc_backend *wb = &ws->b[k];
			const struct rc_backend *lb = rc_service_find_backend(ls, &wb->ep);

			if (!lb || rc_backend_health(lb) == rc_backend_health(wb))
				continue;
			rc_service_name(name, ws);
			rc_endpoint_format(ep, &wb->ep);
			err = set_one(t, ws, wb);
			if (t->dry_run)
				printf("health %lld: %s %s %s\n", (long long)rev,
				       rc_backend_health(wb) ? "down" : "up", name, ep);
			else
				fprintf(stderr, "ringctl sync: health %lld: %s %s %s%s%s\n",
					(long long)rev, rc_backend_health(wb) ? "down" : "up",
					name, ep, err ? ": " : "", err ? strerror(-err) : "");
			changed += !err;
		}
	}
	fflush(stdout);
	rc_config_free(&live);
	return changed;
}
