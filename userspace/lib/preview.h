/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "ringctl plan": what a change would do to a live service, computed with
 * the kernel's ring code from the live key, backends and connections, and
 * nothing changed. The computation (rc_preview_compute) is pure, so that host
 * tests check it against the ring code directly. Part of the model
 * (prefix rc_; plan.c reads the command line), as are the rings and
 * fingerprints of a configuration. Not to be confused with
 * restore_plan.h beside restore.c, the requests "ringctl restore" sends.
 */
#ifndef RINGCTL_PREVIEW_H
#define RINGCTL_PREVIEW_H

#include "model.h"
#include "ring.h"
#include "slots.h"

/*
 * The ring the kernel builds for S under KEY: its active backends, each
 * with weight * vnodes points (one point a slot for placement slots). An
 * ERR_PTR() on failure, as rs_ring_build().
 */
struct rs_ring *rc_service_ring(const uint8_t key[RINGSTEER_KEY_LEN],
				const struct rc_service *s);

/*
 * What the kernel's snapshot of S steers by (kmod/steer.h): the ring and,
 * for placement slots, the table of the slots its members hold, indexed
 * by ring member as kmod/placement.c builds it.
 */
struct rc_steer {
	struct rs_ring *ring;
	struct rs_slots *slots;	/* NULL: placement ring */
};

/*
 * 0 or -errno (as rs_ring_build(), rs_slots_build()); on error *ST is
 * empty, and rc_steer_free() of it does nothing.
 */
int rc_steer_build(const uint8_t key[RINGSTEER_KEY_LEN], const struct rc_service *s,
		   struct rc_steer *st);
void rc_steer_free(struct rc_steer *st);
/* The owner's ring member index for POS, or -ENOENT. */
int rc_steer_lookup(const struct rc_steer *st, u64 pos);
/* F's destination and protocol are S's VIP, port and protocol. */
bool rc_flow_to_service(const struct rs_flow *f, const struct rc_service *s);
/* Every service's fingerprint from c->key, offline. */
int rc_config_fingerprints(struct rc_config *c);
void rc_member_of(struct rs_member *m, const struct rc_endpoint *ep, uint32_t weight);

struct rc_preview_backend {
	struct rc_endpoint ep;
	bool before, after;	/* owns points before / after the change */
	bool gone;		/* deleted by the change */
	double share_before, share_after;
	double leaves, arrives;	/* hash space leaving it / reaching it */
	uint64_t conns;		/* connections it serves now */
	/* Of those, in the hash space that moves (exact or estimated). */
	double conns_moving;
	bool conns_exact;
};

struct rc_preview {
	/*
	 * Placement slots: shares and moves are the rule's (every live slot
	 * 1/L, probes uniform; slotmath.h), not arcs counted position by
	 * position; or, across a capacity change, sampled (SIM_SAMPLES_DEFAULT
	 * positions drawn from the key).
	 */
	bool by_rule;
	bool sampled;
	double moved;
	double collateral;
	unsigned long long collateral_exact;	/* positions, saturated */
	/*
	 * The flows' positions change too (key or hash mode): moved is what
	 * independent positions give, not an exact count of arcs.
	 */
	bool expected;
	struct rc_preview_backend *b;	/* before's backends then the new ones */
	uint32_t nb;
	double conns_moving;		/* sum over the backends */
	bool conns_exact;		/* every term exact */
};

/*
 * Flows whose backends before and after a change are wanted (plan's
 * "flows"): before[i] and after[i] get the backend the kernel's lookup
 * gives f[i] (family 0 where no backend owns points).
 */
struct rc_preview_flows {
	struct rs_flow *f;
	uint32_t n;
	struct rc_endpoint *before, *after;
};

/*
 * Compare service A under KEY_A with B under KEY_B (same service, backends
 * by identity; conns read from A). X names the backend a backend command
 * changes (NULL for service and key changes): moves touching neither X's
 * old nor new points count as collateral. FL, if not NULL, gets its flows'
 * backends from the same two rings. 0 or -errno.
 */
int rc_preview_compute(const uint8_t key_a[RINGSTEER_KEY_LEN], const struct rc_service *a,
		       const uint8_t key_b[RINGSTEER_KEY_LEN], const struct rc_service *b,
		       const struct rc_endpoint *x, const struct rc_preview_flows *fl,
		       struct rc_preview *p);
void rc_preview_free(struct rc_preview *p);

/* A parsed "plan" command line, before any netlink I/O (plan.c). */
enum rc_preview_op {
	RC_PREVIEW_BACKEND_ADD, RC_PREVIEW_BACKEND_SET, RC_PREVIEW_BACKEND_DRAIN,
	RC_PREVIEW_BACKEND_ACTIVATE, RC_PREVIEW_BACKEND_DEL, RC_PREVIEW_SERVICE_SET,
	RC_PREVIEW_KEY_SET,
};

struct rc_preview_req {
	enum rc_preview_op op;
	const char *what;		/* "backend add", for output */
	struct rc_service s;		/* not for key set */
	struct rc_backend b;		/* backend commands */
	bool bare;			/* b given without a port (parse_args) */
	bool keep_flows;
	uint8_t key[RINGSTEER_KEY_LEN];	/* key set */
	const char *flows_path;		/* flows FILE|-: each flow's move */
};

#endif /* RINGCTL_PREVIEW_H */
