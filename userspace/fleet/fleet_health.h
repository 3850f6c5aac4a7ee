/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Health the fleet agrees on (prefix fh_): the checkers' votes in etcd and
 * the verdict every agent computes from them. The keys, under
 * PREFIX/health/ (each under its checker's lease, so a dead checker's
 * votes go with it):
 *
 *   CHECKER/live                          "": a live checker
 *   CHECKER/PROTO/VIP:PORT/BACKEND        "down": it sees BACKEND down
 *
 * A backend is down for the fleet when at least quorum% of the live
 * checkers vote it down; then the guards, the checker's own, apply to
 * the fleet's verdict: at most max-down% of a service's active backends
 * down, and never its last active one. fh_decide() is a pure function of
 * the configuration and the keys, so every agent that holds the same
 * etcd revision decides the same.
 */
#ifndef RINGCTL_FLEET_HEALTH_H
#define RINGCTL_FLEET_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define FH_DEF_QUORUM_PCT	51
#define FH_DEF_MAX_DOWN_PCT	50

/* The key of CHECKER's vote on backend BE of service S, after PREFIX/health/. */
int fh_vote_key(char *buf, size_t len, const char *checker, const struct rc_service *s,
		const struct rc_endpoint *be);

/*
 * Set the health of every backend of C (RC_HAS_HEALTH, up or down) to the
 * fleet's verdict from KEYS (N of them, relative to PREFIX/health/, each
 * with a "down" value or a live key; others ignored). Returns the number
 * of live checkers; with none, C is left as it is (no checker is not
 * "every backend up"). *BLOCKED (may be NULL) counts downs a guard refused.
 */
uint32_t fh_decide(struct rc_config *c, char *const *keys, size_t n, uint32_t quorum_pct,
		   uint32_t max_down_pct, uint32_t *blocked);

#endif /* RINGCTL_FLEET_HEALTH_H */
