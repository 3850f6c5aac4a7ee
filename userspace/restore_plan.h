/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "ringctl restore" must change to turn the live configuration into
 * the file's, as a list of operations (prefix rc_, as the model's).
 * A pure function of the two configurations, so it is unit-tested on the
 * host; restore.c sends the operations.
 */
#ifndef RINGCTL_RESTORE_PLAN_H
#define RINGCTL_RESTORE_PLAN_H

#include <stddef.h>

#include "model.h"

enum rc_op_kind {
	RC_OP_KEY_SET,
	RC_OP_SERVICE_NEW,
	RC_OP_SERVICE_SET,
	RC_OP_SERVICE_DEL,
	RC_OP_BACKEND_NEW,
	RC_OP_BACKEND_SET,
	RC_OP_BACKEND_DEL,
};

/*
 * One request. s names the service (no backends attached) and carries
 * the settings of SERVICE_NEW and SERVICE_SET (s.has); s.line is the
 * file's line of the service, 0 for deletes. b is the backend
 * of the BACKEND_* operations, with b.has the settings to send. flags go
 * with the deletes (RINGSTEER_F_KEEP_FLOWS).
 */
struct rc_op {
	enum rc_op_kind kind;
	struct rc_service s;
	struct rc_backend b;
	uint32_t flags;
	uint8_t key[RINGSTEER_KEY_LEN];	/* of KEY_SET */
};

struct rc_plan {
	struct rc_op *ops;
	size_t n, cap;
};

/*
 * The operations that turn LIVE into WANT, in an order that never leaves
 * the namespace without a service, nor a kept service without backends,
 * and never deletes a service or backend that both have:
 *
 *   1. the key, if WANT has one and it differs;
 *   2. services only WANT has, each built at one vnode per unit of weight
 *      and then set to its vnodes once (see restore.c);
 *   3. in services both have: backends added, backends changed, then the
 *      service's vnodes or hash changed;
 *   4. backends only LIVE has, deleted with DEL_FLAGS;
 *   5. services only LIVE has, deleted with DEL_FLAGS.
 *
 * Where adding first would pass a kernel limit for a moment (backends or
 * ring points of a service, number of services) although WANT is within
 * it, the deletes of that service (or the service deletes) go first. An
 * empty plan means the two are the same. 0 or -ENOMEM.
 */
int rc_plan_restore(const struct rc_config *live, const struct rc_config *want,
		    uint32_t del_flags, struct rc_plan *p);
void rc_plan_free(struct rc_plan *p);

/* "service add", "backend del", ...: the ringctl command of KIND. */
const char *rc_op_name(enum rc_op_kind kind);

#endif /* RINGCTL_RESTORE_PLAN_H */
