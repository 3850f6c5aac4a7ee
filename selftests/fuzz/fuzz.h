/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_netlink's parts (selftests/fuzz/), shared between them:
 *   model.c     services, backends and key as the uapi describes them, and
 *               the errnos a request may get in that state
 *   exchange.c  sockets, sending a request, reading its whole answer
 *   check.c     replies and dumps against the model, and the verdict on
 *               one request (fz_exchange())
 *   gen.c       random requests, mostly about what the model holds
 *   episode.c   dumps read part by part while other sockets change things
 *   main.c      phases (root, user namespace owner, unprivileged) and the
 *               final comparison
 * msg.c judges the form of every message on its own (and is unit tested).
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdlib.h>
#include <sys/socket.h>

#include "nl.h"
#include "ring.h"
#include "msg.h"

#define NSOCKS		3
#define POINT_BUDGET	(64U * 1024U)	/* keep TCG runs fast: see g_value() */
#define NOBODY		65534

/* ---- model.c */

struct m_be {
	uint8_t addr[16];
	uint16_t port;
	uint32_t set[RC_SETTINGS_MAX];	/* FZ_SET() */
	/* placement slots: the slots it holds, ascending, as many as its weight. */
	uint16_t *slots;
	uint32_t nslots;
};

/* On the ring, as the uapi says: active and up. */
static inline bool m_on_ring(const struct m_be *b)
{
	return FZ_SET(b, STATE) == RINGSTEER_STATE_ACTIVE && FZ_SET(b, HEALTH) == RINGSTEER_HEALTH_UP;
}

struct m_svc {
	uint16_t family;
	uint8_t addr[16];
	uint16_t port;
	uint8_t proto;
	uint32_t set[RC_SETTINGS_MAX];	/* FZ_SET() */
	struct m_be *b;
	uint32_t nb, cap;
};

/* Placement slots (uapi "Slot placement"), else the ring. */
static inline bool m_slots(const struct m_svc *s)
{
	return FZ_SET(s, PLACEMENT) == RINGSTEER_PLACEMENT_SLOTS;
}

/* The ring's points per unit of weight: a slots service's ring has one a slot. */
static inline uint32_t m_vnodes(const struct m_svc *s, uint32_t vnodes)
{
	return m_slots(s) ? 1 : vnodes;
}

struct fz_model {
	struct m_svc s[RINGSTEER_MAX_SERVICES];
	uint32_t ns;
	uint8_t key[RINGSTEER_KEY_LEN];
	/* The owner chain's backend mode (chain-set), not emptied by a flush. */
	bool chain_on;
	uint16_t chain_port;
	uint8_t chain_last_resort, chain_max_hops;
	uint64_t content;	/* bumped by every acked change that changed something */
	uint64_t changes;	/* bumped by every acked change request */
};

uint8_t fz_m_alen(uint16_t family);
struct m_svc *fz_m_find_svc(struct fz_model *m, const struct fz_ep *e);
struct m_be *fz_m_find_be(const struct m_svc *s, const struct fz_ep *e);
/* The points of S's ring with VNODES (ignored for placement slots). */
uint64_t fz_m_points(const struct m_svc *s, uint32_t vnodes);
/* Whether a backend of S other than B holds SLOT. */
bool fz_m_held(const struct m_svc *s, const struct m_be *b, uint32_t slot);
uint32_t fz_m_active(const struct m_svc *s);
void fz_m_free(struct fz_model *m);
void fz_m_copy(struct fz_model *dst, const struct fz_model *src);
/*
 * Errnos the request may get in the model's state; 0: it must succeed.
 * A superset where the kernel's order of checks decides which one comes.
 */
uint32_t fz_m_predict(struct fz_model *m, const struct fz_req *q);
/* An acked change, with only the attributes the uapi lists for it. */
void fz_m_apply(struct fz_model *m, const struct fz_req *q);

/* ---- Run state */

struct fz_sock {
	struct nl_conn nl;
	bool capped;
};

struct fz_stats {
	uint64_t msgs, acked, refused, maybe_refused, dumps, episodes, intr,
		 raw_mutated, attr_mutated, no_msg, abandoned, multipart,
		 max_services, max_backends, lookups,
		 slots_sent, slots_acked, slot_lookups, max_slot_services;
	uint64_t by_errno[FZ_NERRNOS];
};

struct fuzz {
	const char *phase;
	struct fz_rng rng;
	uint64_t seed;
	bool priv, verbose, grow;
	struct fz_model m;
	struct fz_sock socks[NSOCKS];
	struct fz_sock dump;
	uint16_t family;
	struct fz_stats st;
	/* The request being answered, for reports. */
	struct fz_buf req;
	uint64_t index;
	struct fz_reply *rep;
	uint32_t nrep, caprep;
	uint64_t last_walk;	/* the last walk a change's reply named */
};

struct fz_answer {
	bool done;
	int err;
	bool msg;
	uint32_t data;		/* data messages so far */
	uint32_t parts;		/* datagrams so far */
	uint32_t intr_part;	/* first part flagged NLM_F_DUMP_INTR, or 0 */
};

/* ---- exchange.c */

/* Print what went wrong, with the request, and exit 1. */
void __attribute__((format(printf, 2, 3), noreturn))
fz_fail(struct fuzz *f, const char *fmt, ...);
void fz_sock_open(struct fuzz *f, struct fz_sock *s, bool capped);
void fz_dump_sock_open(struct fuzz *f, struct fz_sock *s);
/* Send the request in f->req on S; returns its parsed form in Q. */
void fz_send_req(struct fuzz *f, struct fz_sock *s, struct fz_req *q);
/* One datagram of answers to Q on S; true once the request is answered. */
bool fz_recv_part(struct fuzz *f, struct fz_sock *s, const struct fz_req *q,
		  struct fz_answer *a);

/* ---- check.c */

void fz_check_service(struct fuzz *f, const struct fz_model *m, const struct fz_reply *r);
/* A CHAIN_GET reply against the model's backend mode. */
void fz_check_chain(struct fuzz *f, const struct fz_model *m, const struct fz_reply *r);
const struct m_be *fz_check_backend(struct fuzz *f, const struct m_svc *s,
				    const struct fz_reply *r);
/* The whole dump R[0..N-1] of CMD against model M (service S). */
void fz_check_dump_all(struct fuzz *f, const struct fz_model *m, uint8_t cmd,
		       const struct m_svc *s, const struct fz_reply *r, uint32_t n);
/*
 * Judge the answer A to Q against EXPECT (the errnos the uapi allows, 0 if
 * it must succeed); check replies; apply an acked change to the model.
 */
void fz_judge(struct fuzz *f, const struct fz_req *q, const struct fz_answer *a,
	      uint32_t expect);
/* Whole exchange: send, read every part, judge. */
void fz_exchange(struct fuzz *f, struct fz_sock *s);
/* Forget the ring built from the model (a new namespace starts empty). */
void fz_check_forget_ring(void);

/* ---- gen.c */

/* A random request in f->req. */
void fz_g_random(struct fuzz *f);
/* A well-formed dump of CMD (of service S's backends). */
void fz_request_dump(struct fuzz *f, uint8_t cmd, const struct m_svc *s);

/* ---- episode.c */

void fz_episode(struct fuzz *f);

#endif /* FUZZ_FUZZ_H */
