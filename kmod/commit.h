/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one path every change takes. A change is described, then committed:
 * everything that can fail (allocations, ring builds, limits, hook
 * registration) happens first and a failure changes nothing; then the
 * change is applied and published at once and the generation bumped once;
 * then what must follow publication runs: the conntrack walk for what was
 * deleted queued (it runs later, after a grace period, as the namespace's
 * walk credit allows), hooks released, the change announced.
 */
#ifndef _RINGSTEER_COMMIT_H
#define _RINGSTEER_COMMIT_H

#include "netns.h"
#include "service.h"

struct netlink_ext_ack;

struct rs_change {
	u8 cmd;				/* RINGSTEER_CMD_*: what, and what is announced */
	struct rs_service *svc;		/* the service changed, if it exists */
	struct rs_backend *backend;	/* the backend changed, if it exists */
	struct rs_endpoint ep;		/* SERVICE_NEW, BACKEND_NEW: the new one */
	struct rs_service_conf conf;	/* SERVICE_NEW, SERVICE_SET */
	struct rs_backend_conf backend_conf; /* BACKEND_NEW, BACKEND_SET */
	const struct nlattr *slots;	/* BACKEND_NEW, BACKEND_SET: or NULL */
	bool force;			/* BACKEND_SET: down even the last */
	const u8 *key;			/* KEY_SET */
	/* SERVICE_SET: kept-rings and kept, the chain's rings given, or NULL */
	const struct nlattr *kept_rings, *kept;
	bool keep_flows;		/* SERVICE_DEL, BACKEND_DEL, FLUSH */
	/*
	 * Out, if not NULL: the sequence number of the deferred conntrack
	 * walk the change queued for what it deleted (ct_sweep.h), 0: none.
	 */
	u64 *walk;
};

/* rs_net->lock held. */
int rs_commit(struct rs_net *rn, const struct rs_change *change,
	      struct netlink_ext_ack *extack);

#endif /* _RINGSTEER_COMMIT_H */
