/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_netlink's parts (selftests/fuzz/), shared between them:
 *   model.c     services, backends and key as the uapi describes them, and
 *               the errnos a request may get in that state
 *   exchange.c  sockets, sending a request, reading its whole answer
 *   check.c     replies and dumps against the model, and the verdict on
 *               one request (exchange())
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
	uint32_t weight, state, health, on_down;
};

/* On the ring, as the uapi says: active and up. */
static inline bool m_on_ring(const struct m_be *b)
{
	return b->state == RINGSTEER_STATE_ACTIVE && b->health == RINGSTEER_HEALTH_UP;
}

struct m_svc {
	uint16_t family;
	uint8_t addr[16];
	uint16_t port;
	uint8_t proto;
	uint32_t vnodes, hash, on_down;
	uint32_t forward, encap;
	uint16_t encap_port;
	struct m_be *b;
	uint32_t nb, cap;
};

struct model {
	struct m_svc s[RINGSTEER_MAX_SERVICES];
	uint32_t ns;
	uint8_t key[RINGSTEER_KEY_LEN];
	uint64_t content;	/* bumped by every acked change that changed something */
	uint64_t changes;	/* bumped by every acked change request */
};

uint8_t m_alen(uint16_t family);
struct m_svc *m_find_svc(struct model *m, const struct fz_ep *e);
struct m_be *m_find_be(const struct m_svc *s, const struct fz_ep *e);
uint64_t m_points(const struct m_svc *s, uint32_t vnodes);
uint32_t m_active(const struct m_svc *s);
void m_free(struct model *m);
void m_copy(struct model *dst, const struct model *src);
/*
 * Errnos the request may get in the model's state; 0: it must succeed.
 * A superset where the kernel's order of checks decides which one comes.
 */
uint32_t m_predict(struct model *m, const struct fz_req *q);
/* An acked change, with only the attributes the uapi lists for it. */
void m_apply(struct model *m, const struct fz_req *q);

/* ---- Run state */

struct sock {
	struct nl_conn nl;
	bool capped;
};

struct stats {
	uint64_t msgs, acked, refused, maybe_refused, dumps, episodes, intr,
		 raw_mutated, attr_mutated, no_msg, abandoned, multipart,
		 max_services, max_backends, lookups;
	uint64_t by_errno[FZ_NERRNOS];
};

struct fuzz {
	const char *phase;
	struct fz_rng rng;
	uint64_t seed;
	bool priv, verbose, grow;
	struct model m;
	struct sock socks[NSOCKS];
	struct sock dump;
	uint16_t family;
	struct stats st;
	/* The request being answered, for reports. */
	struct fz_buf req;
	uint64_t index;
	struct fz_reply *rep;
	uint32_t nrep, caprep;
};

struct answer {
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
fail(struct fuzz *f, const char *fmt, ...);
void sock_open(struct fuzz *f, struct sock *s, bool capped);
void dump_sock_open(struct fuzz *f, struct sock *s);
/* Send the request in f->req on S; returns its parsed form in Q. */
void send_req(struct fuzz *f, struct sock *s, struct fz_req *q);
/* One datagram of answers to Q on S; true once the request is answered. */
bool recv_part(struct fuzz *f, struct sock *s, const struct fz_req *q,
	       struct answer *a);

/* ---- check.c */

void check_service(struct fuzz *f, const struct model *m, const struct fz_reply *r);
const struct m_be *check_backend(struct fuzz *f, const struct m_svc *s,
				 const struct fz_reply *r);
/* The whole dump R[0..N-1] of CMD against model M (service S). */
void check_dump_all(struct fuzz *f, const struct model *m, uint8_t cmd,
		    const struct m_svc *s, const struct fz_reply *r, uint32_t n);
/*
 * Judge the answer A to Q against EXPECT (the errnos the uapi allows, 0 if
 * it must succeed); check replies; apply an acked change to the model.
 */
void judge(struct fuzz *f, const struct fz_req *q, const struct answer *a,
	   uint32_t expect);
/* Whole exchange: send, read every part, judge. */
void exchange(struct fuzz *f, struct sock *s);
/* Forget the ring built from the model (a new namespace starts empty). */
void check_forget_ring(void);

/* ---- gen.c */

/* A random request in f->req. */
void g_random(struct fuzz *f);
/* A well-formed dump of CMD (of service S's backends). */
void request_dump(struct fuzz *f, uint8_t cmd, const struct m_svc *s);

/* ---- episode.c */

void episode(struct fuzz *f);

#endif /* FUZZ_FUZZ_H */
