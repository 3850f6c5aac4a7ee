/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netlink messages for the fuzzer (fuzz.h), without any I/O so that the unit
 * test (selftests/unit/test_fuzz_msg.c) can drive them on the host:
 *
 *   - a writer that can produce any byte string, well formed or not;
 *   - fz_parse_request(): reads a request the way the uapi header says the
 *     kernel must (strict attributes, the documented tree per command) and
 *     tells which errnos its flaws allow, and what it asks for;
 *   - fz_check_*(): validate what the kernel answers (lengths, errno range,
 *     extended ack TLVs, reply attributes) and decode replies.
 *
 * They are defined in msg.c, which the fuzzer and the unit test link.
 */
#ifndef FUZZ_MSG_H
#define FUZZ_MSG_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "uapi/ringsteer.h"
#include "settings.h"

#define FZ_MSG_MAX	65536
#define FZ_MAX_OFFS	512
#define FZ_MAX_COOKIE_LEN 20	/* NETLINK_MAX_COOKIE_LEN, kernel-only */

/* ---- Errno sets ---------------------------------------------------------- */

enum {
	FZ_EINVAL = 1U << 0,
	FZ_ERANGE = 1U << 1,
	FZ_EAFNOSUPPORT = 1U << 2,
	FZ_EPROTONOSUPPORT = 1U << 3,
	FZ_ENOENT = 1U << 4,
	FZ_EEXIST = 1U << 5,
	FZ_E2BIG = 1U << 6,
	FZ_EPERM = 1U << 7,
	FZ_EOPNOTSUPP = 1U << 8,
	FZ_EBUSY = 1U << 9,
};
#define FZ_NERRNOS 10	/* one errno per FZ_E* bit */

/* Netlink's attribute validation answers EINVAL or ERANGE by case. */
#define FZ_POLICY (FZ_EINVAL | FZ_ERANGE)

extern const int fz_errnos[FZ_NERRNOS];

/* The bit of a positive errno, 0 for one the uapi never documents. */
uint32_t fz_errbit(int err);

/* ---- Random numbers (splitmix64: one seed, one sequence) ----------------- */

struct fz_rng {
	uint64_t s;
};

uint64_t fz_next(struct fz_rng *r);

uint32_t fz_below(struct fz_rng *r, uint32_t n);

/* True with probability PERMILLE / 1000. */
bool fz_chance(struct fz_rng *r, unsigned int permille);

/* ---- Writer --------------------------------------------------------------- */

struct fz_buf {
	uint8_t p[FZ_MSG_MAX];
	uint32_t len;
};

void fz_put(struct fz_buf *b, const void *data, uint32_t n);

void fz_pad(struct fz_buf *b);

/* An attribute header with nla_len LEN (+4) and raw type TYPE, then DATA. */
uint32_t fz_attr_raw(struct fz_buf *b, uint16_t type, uint16_t nla_len,
		     const void *data, uint32_t n);

uint32_t fz_attr(struct fz_buf *b, uint16_t type, const void *data,
		 uint32_t n);

uint32_t fz_nest_start(struct fz_buf *b, uint16_t type);

void fz_nest_end(struct fz_buf *b, uint32_t off);

/* Netlink and genetlink headers; the caller sets nlmsg_len with fz_end. */
void fz_begin(struct fz_buf *b, uint16_t type, uint16_t flags,
	      uint32_t seq, uint8_t cmd, uint8_t version);

void fz_end(struct fz_buf *b);

/* ---- Requests as the uapi header defines them ---------------------------- */

/* An endpoint nest (service or backend): values by attribute type. */
struct fz_ep {
	uint64_t present;	/* 1 << attribute type */
	uint16_t family;
	uint8_t addr[16];
	uint8_t alen;
	uint16_t port;		/* host order */
	uint8_t proto;
	/* Settings by row of ringctl's table (FZ_SET()); ports in host order. */
	uint32_t set[RC_SETTINGS_MAX];
	/*
	 * A backend's slots: the attribute's length in bytes as it came (odd,
	 * or over max-weight numbers, in a request), its numbers up to
	 * max-weight of them, as given.
	 */
	uint32_t slots_len;
	uint16_t slots[RINGSTEER_MAX_WEIGHT];
	uint32_t kept_rings;	/* a service's kept-rings, as given */
	uint32_t kept_len;	/* and its kept's length in bytes */
};

/* The owner chain's backend mode: a chain nest's values. */
struct fz_chain {
	uint64_t present;	/* 1 << attribute type */
	uint16_t port;		/* host order */
	uint8_t last_resort, max_hops;
};

/* How many slot numbers E's slots attribute holds (in E->slots). */
static inline uint32_t fz_nslots(const struct fz_ep *e)
{
	uint32_t n = e->slots_len / 2;

	return n < RINGSTEER_MAX_WEIGHT ? n : RINGSTEER_MAX_WEIGHT;
}

/* The value of setting ROW (RC_SET_ROW) in an endpoint, service or backend. */
#define FZ_SET(p, row) ((p)->set[RC_SET_##row])

/* The table's row of attribute ATTR in OBJ's nest, or NULL. */
const struct rc_setting *fz_setting(enum rc_obj obj, uint16_t attr);

struct fz_req {
	uint8_t cmd;
	bool dump;
	bool noproc;		/* no NLM_F_REQUEST: acked, not processed */
	uint32_t seq;
	uint32_t msg_len;
	/* Errnos the request's own flaws allow; 0 if it has none. */
	uint32_t policy;
	/* Attributes the uapi does not list for this command but the kernel
	 * may tolerate and ignore: the request may still be refused. */
	bool maybe;
	uint64_t top;		/* 1 << top-level attribute types present */
	struct fz_ep svc, be;
	struct fz_chain chain;
	bool flow_addr, flow_port;
	uint8_t flow_alen;
	uint8_t flow_addr_b[16];
	uint16_t flow_port_v;
	uint8_t key[RINGSTEER_KEY_LEN];
	uint32_t flags;
	/* Offsets of every attribute, for the extended ack's OFFS. */
	uint32_t offs[FZ_MAX_OFFS];
	uint32_t noffs;
};

#define B(x) (1ULL << (x))

#define SVC_ID (B(RINGSTEER_SERVICE_A_FAMILY) | B(RINGSTEER_SERVICE_A_ADDR) | \
		B(RINGSTEER_SERVICE_A_PORT) | B(RINGSTEER_SERVICE_A_PROTO))
#define BE_ID (B(RINGSTEER_BACKEND_A_FAMILY) | B(RINGSTEER_BACKEND_A_ADDR) | \
	       B(RINGSTEER_BACKEND_A_PORT))
/*
 * The attribute bits of OBJ's settings, from ringctl's table; ROOTS: only
 * those every reply carries (a child, "encap" say, only where it applies).
 */
uint64_t fz_settings_mask(enum rc_obj obj, bool roots);
#define T_SVC B(RINGSTEER_A_SERVICE)
#define T_BE B(RINGSTEER_A_BACKEND)
#define T_FLOW B(RINGSTEER_A_FLOW)
#define T_KEY B(RINGSTEER_A_KEY)
#define T_FLAGS B(RINGSTEER_A_FLAGS)
#define T_CHAIN B(RINGSTEER_A_CHAIN)
#define CHAIN_CONF (B(RINGSTEER_CHAIN_A_PORT) | B(RINGSTEER_CHAIN_A_LAST_RESORT) | \
		    B(RINGSTEER_CHAIN_A_MAX_HOPS))

bool fz_admin_cmd(uint8_t cmd);

/*
 * Read request MSG (LEN bytes, one message) sent to FAMILY_ID. PRIV: the
 * sender has CAP_NET_ADMIN over the namespace. Fills Q; Q->policy is the set
 * of errnos its flaws allow (the kernel must refuse it with one of them).
 */
void fz_parse_request(struct fz_req *q, const uint8_t *msg, uint32_t len,
		      bool priv);

/* ---- Replies -------------------------------------------------------------- */

/* A decoded reply entry: service and/or backend nests, position, key. */
struct fz_reply {
	bool has_svc, has_be, has_pos, has_key, has_walk, has_chain;
	bool has_conns;		/* both connection counts */
	struct fz_ep svc, be;
	struct fz_chain chain;
	uint32_t backends, active, points;
	uint64_t ring_bytes, flows, no_backend;
	uint64_t be_flows, share, pos, walk;
	uint8_t key[RINGSTEER_KEY_LEN];
};

/*
 * A data message answering CMD: genetlink header, then exactly the
 * attributes the uapi lists for that reply.
 */
const char *fz_check_data(const struct nlmsghdr *h, uint8_t cmd,
			  struct fz_reply *r);

/*
 * An NLMSG_ERROR answering request Q (raw bytes REQ): errno in range, the
 * request echoed (whole, or its header when NLM_F_CAPPED), TLVs after it.
 */
const char *fz_check_error(const struct nlmsghdr *h, const uint8_t *req,
			   const struct fz_req *q, int *err, bool *msg);

/* NLMSG_DONE: an int (0 or -errno), then TLVs. */
const char *fz_check_done(const struct nlmsghdr *h, const struct fz_req *q,
			  int *err, bool *msg);

#endif /* FUZZ_MSG_H */
