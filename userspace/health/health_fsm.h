/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's state machine (prefix hc_): probe results in, health
 * changes and quorum events out, against the kernel's view of each
 * backend. No I/O and no clock of its own (times are milliseconds passed
 * in), so that the unit tests drive it with a fake clock and fake results.
 *
 * The kernel's health is the only verdict: the checker keeps no opinion of
 * its own that a restart could lose. A backend the kernel says is up goes
 * down after `fall` failed probes in a row, one it says is down comes up
 * after `rise` good ones, whoever marked it; so a restart neither drops
 * nor invents a down.
 */
#ifndef RINGCTL_HEALTH_FSM_H
#define RINGCTL_HEALTH_FSM_H

#include <stdbool.h>
#include <stdint.h>

#include "health_conf.h"

/* Results of one probed thing: a backend or a self-check. */
struct hc_target {
	uint32_t ok_streak, fail_streak;
	uint32_t probes;
	uint64_t ok_since;	/* first success of the current good streak */
	char why[96];		/* what the last failed probe saw */
	uint64_t next_ms;	/* when the loop starts the next probe */
	void *probe;		/* the loop's probe in flight, or NULL */
};

struct hc_be {
	struct rc_endpoint ep;	/* the backend, as the kernel names it */
	struct rc_endpoint to;	/* where it is probed */
	struct hc_target t;
	/* The kernel's view, from the last read or our last change. */
	uint32_t state;		/* enum ringsteer_backend_state */
	uint32_t health;	/* enum ringsteer_backend_health */
	bool changed;		/* changed_ms is valid: health changed once */
	uint64_t changed_ms;
	uint64_t downs[HC_MAX_FLAPS];	/* times it went down, a circle */
	uint32_t ndowns;
	bool blocked;		/* should be down, a guard refuses */
	bool held;		/* should change, a failing self-check freezes it */
	bool said_blocked, said_held;	/* the loop logged them */
	bool seen;		/* in the last kernel read */
	/* health_fleet.c: the vote before the guards, and the one in etcd. */
	bool vote_down, voted_down;
};

struct hc_svc {
	const struct hc_service_conf *conf;
	bool present;		/* the kernel has the service */
	bool said_missing;	/* hc_log_presence() said it is missing */
	struct hc_be **b;
	uint32_t nb;
	bool quorum_lost;
};

struct hc_state {
	const struct hc_config *conf;
	struct hc_svc *s;	/* conf->ns of them, in the same order */
	struct hc_target self[HC_MAX_SELF];
	bool self_up[HC_MAX_SELF];
	bool started;		/* every target probed enough: may act */
	bool frozen;		/* a self-check fails: no transition at all */
};

enum hc_act { HC_ACT_DOWN, HC_ACT_UP, HC_ACT_QUORUM_LOSS, HC_ACT_QUORUM_GAIN };

struct hc_action {
	enum hc_act act;
	struct hc_svc *s;
	struct hc_be *b;	/* NULL for the quorum events */
};

int hc_state_init(struct hc_state *st, const struct hc_config *conf);
void hc_state_free(struct hc_state *st);

/*
 * Bring service S in line with the kernel's view KS (NULL: the kernel has
 * no such service): backends the kernel added are added (to be probed
 * from scratch), those it lost removed, after GONE(b, data) has been
 * called so that the caller can drop what it holds for them. A health
 * changed behind our back counts as a change for the hold-down.
 */
int hc_sync(struct hc_svc *s, const struct rc_service *ks, uint64_t now,
	    void (*gone)(struct hc_be *b, void *data), void *data);

/* Services of ST the kernel lacks (at the last read): not checked. */
uint32_t hc_missing(const struct hc_state *st);

/* One probe's result. */
void hc_result(struct hc_target *t, bool ok, const char *why, uint64_t now);

/* Enough results for a verdict either way: max(rise, fall) probes. */
bool hc_settled(const struct hc_target *t, const struct hc_check *c);

/*
 * Update the self-checks' verdicts and the start-up quiet period; true
 * when the quiet period has just ended (every target settled).
 */
bool hc_update(struct hc_state *st);

/*
 * What service S should do now: at most MAX actions into OUT, their
 * number returned. Health changes are emitted only after the quiet
 * period, never while frozen, never within a backend's hold-down, an up
 * of a damped backend only once it has been good for `stable`; a down of
 * an active backend only if afterwards at most max-down% of the active
 * backends are down and one active backend is still up. A down refused
 * by a guard loses the quorum (once); no refused down gains it back.
 */
int hc_decide(struct hc_state *st, struct hc_svc *s, uint64_t now,
	      struct hc_action *out, int max);

/* The kernel took change ACT of B at NOW. */
void hc_applied(struct hc_be *b, enum hc_act act, uint64_t now);

/* Went down FLAPS times within WITHIN: needs STABLE good time to come up. */
bool hc_damped(const struct hc_svc *s, const struct hc_be *b, uint64_t now);

/* When the probe after one started at NOW starts: interval +- jitter (RND). */
uint64_t hc_next_probe(const struct hc_check *c, uint64_t now, uint32_t rnd);

#endif /* RINGCTL_HEALTH_FSM_H */
