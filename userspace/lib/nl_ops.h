/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink layer (prefix nl_), message half: ringsteer requests, model
 * structs to attributes and replies back to model structs
 * (uapi/ringsteer.h, "Generic netlink API"). No printing;
 * every function returns 0 or -errno, with nl->ext_msg holding the
 * kernel's extended ack message after a rejection.
 */
#ifndef RINGCTL_NL_OPS_H
#define RINGCTL_NL_OPS_H

#include "model.h"
#include "nl.h"

/*
 * Deletes (service, backend, flush) return once the kernel has made the
 * change and, unless nl_no_wait, once its conntrack walk has run too (the
 * deleted connections' entries are gone): see doc/semantics.md,
 * "Deleting". nl_walk_wait() is that wait, for the walk a reply named.
 */
extern bool nl_no_wait;
int nl_walk_wait(struct nl_conn *nl, uint64_t walk);

int nl_service_new(struct nl_conn *nl, const struct rc_service *s);
int nl_service_set(struct nl_conn *nl, const struct rc_service *s);
int nl_service_del(struct nl_conn *nl, const struct rc_service *s, uint32_t flags);
/* One service, named by *s, with its counters; backends not read. */
int nl_service_get(struct nl_conn *nl, struct rc_service *s);

int nl_backend_new(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b);
int nl_backend_set(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b);
/*
 * backend-set with HEALTH, and B's weight and state if it has them (a
 * checker gives none: they are the operator's). -EBUSY for the last
 * backend on the ring going down, unless FORCE.
 */
int nl_backend_health(struct nl_conn *nl, const struct rc_service *s,
		      const struct rc_backend *b, uint32_t health, bool force);
/*
 * The same for an operator: a mark down with on-down reset returns, as a
 * delete does, once its conntrack walk has run (unless nl_no_wait). A
 * checker's marks (nl_backend_health()) never wait.
 */
int nl_backend_mark(struct nl_conn *nl, const struct rc_service *s,
		    const struct rc_backend *b, uint32_t health, bool force);
int nl_backend_del(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b, uint32_t flags);

/*
 * The backend a new flow from V->src would be steered to, its position
 * and a chained service's hops, into V.
 */
int nl_lookup(struct nl_conn *nl, const struct rc_service *s,
	      struct rc_lookup *v);

/*
 * Lookups of V[0..N-1] pipelined over one socket; stops at the first
 * failure, whose index goes to *failed.
 */
int nl_lookup_many(struct nl_conn *nl, const struct rc_service *s,
		     struct rc_lookup *v, size_t n, size_t *failed);

int nl_key_get(struct nl_conn *nl, uint8_t key[RINGSTEER_KEY_LEN]);
int nl_key_set(struct nl_conn *nl, const uint8_t key[RINGSTEER_KEY_LEN]);
int nl_flush(struct nl_conn *nl, uint32_t flags);

/*
 * Read services with their backends: all of them (ONE == NULL), or the
 * one named by ONE. Dumps flagged NLM_F_DUMP_INTR, and services that
 * vanish between the service and the backend dump, are retried a few
 * times (then -EAGAIN). The result is sorted (rc_config_sort()). WITH_KEY
 * also reads the key.
 */
int nl_config_get(struct nl_conn *nl, struct rc_config *c,
		    const struct rc_service *one, bool with_key);

/*
 * Live connections (RINGSTEER_F_CONNS): of backend B of S (a doit), or of
 * every backend of S already in s->b (one dump), by identity; a backend
 * the kernel has no count for yet is left with has_conns false. The
 * kernel counts a namespace's backends all at once, in one walk of the
 * conntrack table at most every RINGSTEER_CONNS_GAP walk durations.
 * nl_config_conns() does every service of C. -EPERM without CAP_NET_ADMIN
 * over the namespace.
 */
int nl_conns_get(struct nl_conn *nl, struct rc_service *s, struct rc_backend *b);
int nl_config_conns(struct nl_conn *nl, struct rc_config *c);

/*
 * The namespace's state (RINGSTEER_CMD_NET_GET). -EOPNOTSUPP from kernels
 * without the command.
 */
int nl_net_get(struct nl_conn *nl, struct rc_net *n);

/* A change notification (uapi "Notifications"). */
struct rc_event {
	uint8_t cmd;		/* the RINGSTEER_CMD_* that made the change */
	bool has_service, has_backend;
	struct rc_service s;	/* no backends attached */
	struct rc_backend b;	/* its slots are the event's: nl_event_free() */
};

int nl_event_parse(const struct nlmsghdr *nlh, struct rc_event *ev);
/* What a parsed event holds (a backend's slots). */
void nl_event_free(struct rc_event *ev);

#endif /* RINGCTL_NL_OPS_H */
