/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where "ringctl sync" applies the fleet's configuration (prefix sy_):
 * the kernel of its network namespace through restore's diff, or, in
 * dry-run, a configuration kept in memory with each request printed, so
 * that the whole agent runs (and is tested) without the module.
 */
#ifndef RINGCTL_SYNC_APPLY_H
#define RINGCTL_SYNC_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "nl.h"

struct sy_target {
	bool dry_run;
	struct nl_conn nl;
	struct rc_config dry;	/* dry-run's "kernel" */
};

int sy_target_open(struct sy_target *t, bool dry_run);
void sy_target_close(struct sy_target *t);
/* The live configuration with its key, health and fingerprints. */
int sy_target_read(struct sy_target *t, struct rc_config *live);
/*
 * Revision REV (TEXT, LEN bytes, NAME for messages) applied whole, with
 * KEY (NULL: the kernel keeps its own), or refused whole: a file that does
 * not parse or has a key line changes nothing; a request the kernel
 * refuses is rolled back. 0, or -errno with the message printed (and in
 * cli_last_error()).
 */
int sy_apply(struct sy_target *t, const char *text, size_t len, const char *name,
	     const uint8_t *key, int64_t rev);
/*
 * Every backend's health as WANT has it (fleet_health.h's verdict, on a
 * copy of the live configuration): only the backends whose health differs
 * are changed, each logged with REV, the etcd revision of the votes. In
 * dry-run, "health REV: down|up SERVICE BACKEND" on stdout. The number
 * changed, or -errno.
 */
int sy_health(struct sy_target *t, const struct rc_config *want, int64_t rev);
/* A deep copy of FROM (its services and backends). */
int sy_config_copy(struct rc_config *to, const struct rc_config *from);

#endif /* RINGCTL_SYNC_APPLY_H */
