// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_netlink [--messages N] [--seed S] [--verbose]
 *
 * Sends N generated requests to the ringsteer family (80% as root in the
 * current namespace, 10% as the owner of a fresh user+net namespace, 10%
 * without CAP_NET_ADMIN over the current namespace) and checks that
 *   - every answer is a well-formed netlink message (fuzz_msg.h);
 *   - each request is accepted or refused as the uapi header says: a model
 *     of services, backends and key predicts the errnos a request may get,
 *     and every acked change is applied to the model;
 *   - GET, LOOKUP and KEY_GET answers, dumps read while other sockets change
 *     things, and the final configuration all equal the model.
 * Requests come from a small pool of addresses so that they keep hitting
 * existing objects; a quarter carry malformed attributes or bytes. The
 * same seed gives the same sequence of requests.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "nl.h"
#include "ring.h"
#include "fuzz_msg.h"

#define NSOCKS		3
#define POINT_BUDGET	(64U * 1024U)	/* keep TCG runs fast: see gen_u32() */
#define NOBODY		65534

/* ---- Model ------------------------------------------------------------- */

struct m_be {
	uint8_t addr[16];
	uint16_t port;
	uint32_t weight, state;
};

struct m_svc {
	uint16_t family;
	uint8_t addr[16];
	uint16_t port;
	uint8_t proto;
	uint32_t vnodes, hash;
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

static uint8_t alen_of(uint16_t family)
{
	return family == AF_INET ? 4 : 16;
}

static bool unicast(uint16_t family, const uint8_t *a)
{
	static const uint8_t zero[16];

	/*
	 * "Unicast" as the kernel reads it: 0.0.0.0 but not the rest of
	 * 0.0.0.0/8 (ipv4_is_zeronet() since Linux 5.3), multicast and the
	 * limited broadcast are refused; the uapi does not say more.
	 */
	if (family == AF_INET)
		return memcmp(a, zero, 4) && (a[0] & 0xf0) != 0xe0 &&
		       memcmp(a, "\xff\xff\xff\xff", 4);
	return memcmp(a, zero, 16) && a[0] != 0xff;
}

static struct m_svc *m_find_svc(struct model *m, const struct fz_ep *e)
{
	uint32_t i;

	for (i = 0; i < m->ns; i++) {
		struct m_svc *s = &m->s[i];

		if (s->family == e->family && s->port == e->port &&
		    s->proto == e->proto && !memcmp(s->addr, e->addr, 16))
			return s;
	}
	return NULL;
}

static struct m_be *m_find_be(const struct m_svc *s, const struct fz_ep *e)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->b[i].port == e->port && !memcmp(s->b[i].addr, e->addr, 16))
			return &s->b[i];
	return NULL;
}

static uint64_t m_points(const struct m_svc *s, uint32_t vnodes)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->b[i].state == RINGSTEER_STATE_ACTIVE)
			n += (uint64_t)s->b[i].weight * vnodes;
	return n;
}

static uint32_t m_active(const struct m_svc *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->nb; i++)
		n += s->b[i].state == RINGSTEER_STATE_ACTIVE;
	return n;
}

static void m_free(struct model *m)
{
	uint32_t i;

	for (i = 0; i < m->ns; i++)
		free(m->s[i].b);
	m->ns = 0;
}

static void m_copy(struct model *dst, const struct model *src)
{
	uint32_t i;

	m_free(dst);
	*dst = *src;
	for (i = 0; i < src->ns; i++) {
		dst->s[i].cap = src->s[i].nb;
		dst->s[i].b = malloc((src->s[i].nb + 1) * sizeof(struct m_be));
		if (!dst->s[i].b)
			abort();
		memcpy(dst->s[i].b, src->s[i].b, src->s[i].nb * sizeof(struct m_be));
	}
}

/*
 * Errnos an endpoint nest's own values allow (uapi "Errors"). A family or
 * protocol outside the documented ones may also be refused by a policy
 * (EINVAL), as selftests/netlink_errors.sh accepts too.
 */
static uint32_t ep_errs(const struct fz_ep *e, bool service)
{
	uint32_t err = 0;

	if ((e->present & BE_ID) != BE_ID)
		err |= FZ_EINVAL;
	if (e->present & B(RINGSTEER_SERVICE_A_FAMILY)) {
		if (e->family != AF_INET && e->family != AF_INET6)
			err |= FZ_EAFNOSUPPORT | FZ_POLICY;
		else if ((e->present & B(RINGSTEER_SERVICE_A_ADDR)) &&
			 (e->alen != alen_of(e->family) || !unicast(e->family, e->addr)))
			err |= FZ_EINVAL;
	}
	if ((e->present & B(RINGSTEER_SERVICE_A_PORT)) && !e->port)
		err |= FZ_EINVAL;
	if (!service)
		return err;
	if (!(e->present & B(RINGSTEER_SERVICE_A_PROTO)))
		err |= FZ_EINVAL;
	else if (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP)
		err |= FZ_EPROTONOSUPPORT | FZ_POLICY;
	return err;
}

static uint32_t predict_backend(const struct m_svc *s, const struct fz_req *q)
{
	const struct fz_ep *e = &q->be;
	uint32_t w = e->present & B(RINGSTEER_BACKEND_A_WEIGHT) ? e->weight : 1;
	uint32_t st = e->present & B(RINGSTEER_BACKEND_A_STATE) ? e->state : 0;
	const struct m_be *b = m_find_be(s, e);
	uint64_t pts = m_points(s, s->vnodes);

	switch (q->cmd) {
	case RINGSTEER_CMD_BACKEND_NEW:
		if (b)
			return FZ_EEXIST;
		if (s->nb >= RINGSTEER_MAX_BACKENDS ||
		    (st == RINGSTEER_STATE_ACTIVE &&
		     pts + (uint64_t)w * s->vnodes > RINGSTEER_MAX_POINTS))
			return FZ_E2BIG;
		return 0;
	case RINGSTEER_CMD_BACKEND_SET:
		if (!b)
			return FZ_ENOENT;
		if (!(e->present & BE_CONF))
			return FZ_EINVAL;
		w = e->present & B(RINGSTEER_BACKEND_A_WEIGHT) ? e->weight : b->weight;
		st = e->present & B(RINGSTEER_BACKEND_A_STATE) ? e->state : b->state;
		if (b->state == RINGSTEER_STATE_ACTIVE)
			pts -= (uint64_t)b->weight * s->vnodes;
		if (st == RINGSTEER_STATE_ACTIVE &&
		    pts + (uint64_t)w * s->vnodes > RINGSTEER_MAX_POINTS)
			return FZ_E2BIG;
		return 0;
	}
	return b ? 0 : FZ_ENOENT;
}

/*
 * Errnos the request may get in the model's state; 0: it must succeed.
 * A superset where the kernel's order of checks decides which one comes.
 */
static uint32_t predict(struct model *m, const struct fz_req *q)
{
	bool svc = q->top & T_SVC;
	uint32_t err = 0, serr = ep_errs(&q->svc, true);
	struct m_svc *s = NULL;

	switch (q->cmd) {
	case RINGSTEER_CMD_KEY_SET:
		return q->top & T_KEY ? 0 : FZ_EINVAL;
	case RINGSTEER_CMD_KEY_GET:
	case RINGSTEER_CMD_FLUSH:
	case RINGSTEER_CMD_NET_GET:
		return 0;
	case RINGSTEER_CMD_SERVICE_GET:
		if (q->dump)
			return 0;
	}
	err = svc ? serr : FZ_EINVAL;
	if (svc && !serr) {
		s = m_find_svc(m, &q->svc);
		if (!s && q->cmd != RINGSTEER_CMD_SERVICE_NEW)
			err |= FZ_ENOENT;
	}
	switch (q->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		if (s)
			err |= FZ_EEXIST;
		else if (svc && !serr && m->ns >= RINGSTEER_MAX_SERVICES)
			err |= FZ_E2BIG;
		return err;
	case RINGSTEER_CMD_SERVICE_SET:
		if (!(q->svc.present & SVC_CONF))
			err |= FZ_EINVAL;
		else if (s && m_points(s, q->svc.present & B(RINGSTEER_SERVICE_A_VNODES) ?
				       q->svc.vnodes : s->vnodes) > RINGSTEER_MAX_POINTS)
			err |= FZ_E2BIG;
		return err;
	case RINGSTEER_CMD_SERVICE_DEL:
	case RINGSTEER_CMD_SERVICE_GET:
		return err;
	case RINGSTEER_CMD_LOOKUP:
		if (!(q->top & T_FLOW) || !q->flow_addr || !q->flow_port ||
		    (q->flow_port && !q->flow_port_v))
			err |= FZ_EINVAL;
		if (q->flow_addr && (q->svc.present & B(RINGSTEER_SERVICE_A_FAMILY)) &&
		    q->flow_alen != alen_of(q->svc.family))
			err |= FZ_EINVAL;
		if (s && !m_active(s))
			err |= FZ_ENOENT;
		return err;
	}
	/* Backend commands. */
	if (q->cmd == RINGSTEER_CMD_BACKEND_GET && q->dump)
		return err;
	if (!(q->top & T_BE))
		return err | FZ_EINVAL;
	err |= ep_errs(&q->be, false);
	if ((q->be.present & q->svc.present & B(RINGSTEER_SERVICE_A_FAMILY)) &&
	    q->be.family != q->svc.family)
		err |= FZ_EINVAL;
	if (s && !ep_errs(&q->be, false) && q->be.family == s->family)
		err |= predict_backend(s, q);
	return err;
}

static void m_add_be(struct m_svc *s, const struct fz_ep *e)
{
	struct m_be *b;

	if (s->nb == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->b = realloc(s->b, s->cap * sizeof(*s->b));
		if (!s->b)
			abort();
	}
	b = &s->b[s->nb++];
	memcpy(b->addr, e->addr, 16);
	b->port = e->port;
	b->weight = e->present & B(RINGSTEER_BACKEND_A_WEIGHT) ? e->weight : 1;
	b->state = e->present & B(RINGSTEER_BACKEND_A_STATE) ? e->state : 0;
}

static bool m_set_be(struct m_be *b, const struct fz_ep *e)
{
	struct m_be old = *b;

	if (e->present & B(RINGSTEER_BACKEND_A_WEIGHT))
		b->weight = e->weight;
	if (e->present & B(RINGSTEER_BACKEND_A_STATE))
		b->state = e->state;
	return memcmp(&old, b, sizeof(old));
}

static void m_add_svc(struct model *m, const struct fz_ep *e)
{
	struct m_svc *s = &m->s[m->ns++];

	memset(s, 0, sizeof(*s));
	s->family = e->family;
	memcpy(s->addr, e->addr, 16);
	s->port = e->port;
	s->proto = e->proto;
	s->vnodes = e->present & B(RINGSTEER_SERVICE_A_VNODES) ? e->vnodes :
		    RINGSTEER_DEFAULT_VNODES;
	s->hash = e->present & B(RINGSTEER_SERVICE_A_HASH) ? e->hash : RINGSTEER_HASH_FLOW;
}

static void m_del_svc(struct model *m, struct m_svc *s)
{
	free(s->b);
	memmove(s, s + 1, (m->s + m->ns - s - 1) * sizeof(*s));
	m->ns--;
}

/* An acked change, with only the attributes the uapi lists for it. */
static void apply(struct model *m, const struct fz_req *q)
{
	struct m_svc *s = q->top & T_SVC ? m_find_svc(m, &q->svc) : NULL;
	struct m_be *b = s ? m_find_be(s, &q->be) : NULL;
	bool changed = true;

	m->changes++;
	switch (q->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		m_add_svc(m, &q->svc);
		break;
	case RINGSTEER_CMD_SERVICE_SET:
		changed = (q->svc.present & B(RINGSTEER_SERVICE_A_VNODES) &&
			   s->vnodes != q->svc.vnodes) ||
			  (q->svc.present & B(RINGSTEER_SERVICE_A_HASH) &&
			   s->hash != q->svc.hash);
		if (q->svc.present & B(RINGSTEER_SERVICE_A_VNODES))
			s->vnodes = q->svc.vnodes;
		if (q->svc.present & B(RINGSTEER_SERVICE_A_HASH))
			s->hash = q->svc.hash;
		break;
	case RINGSTEER_CMD_SERVICE_DEL:
		m_del_svc(m, s);
		break;
	case RINGSTEER_CMD_BACKEND_NEW:
		m_add_be(s, &q->be);
		break;
	case RINGSTEER_CMD_BACKEND_SET:
		changed = m_set_be(b, &q->be);
		break;
	case RINGSTEER_CMD_BACKEND_DEL:
		*b = s->b[--s->nb];
		break;
	case RINGSTEER_CMD_KEY_SET:
		changed = memcmp(m->key, q->key, sizeof(m->key));
		memcpy(m->key, q->key, sizeof(m->key));
		break;
	case RINGSTEER_CMD_FLUSH:
		changed = m->ns;
		m_free(m);
		break;
	default:
		m->changes--;
		return;
	}
	m->content += changed;
}

/* ---- Run state and failure reports ------------------------------------- */

struct sock {
	struct nl_conn nl;
	bool capped;
};

struct stats {
	uint64_t msgs, acked, refused, maybe_refused, dumps, episodes, intr,
		 raw_mutated, attr_mutated, no_msg, abandoned, multipart,
		 max_services, max_backends, lookups;
	uint64_t by_errno[9];
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

static void hexdump(const char *what, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, "%s (%u bytes):", what, n);
	for (i = 0; i < n && i < 1024; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

static void __attribute__((format(printf, 2, 3), noreturn))
fail(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL: phase %s, message %llu (seed %llu): ", f->phase,
		(unsigned long long)f->index, (unsigned long long)f->seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	hexdump("request", f->req.p, f->req.len);
	exit(1);
}

static void sock_open(struct fuzz *f, struct sock *s, bool capped)
{
	struct timeval tv = { .tv_sec = 30 };
	int zero = 0, fd, err;

	err = nl_open(&s->nl);
	if (err)
		fail(f, "cannot open the ringsteer family: %s", strerror(-err));
	fd = mnl_socket_get_fd(s->nl.sock);
	s->capped = capped;
	if (!capped)
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &zero, sizeof(zero));
	/* A missing answer is a failure, not a hang. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	f->family = s->nl.family_id;
}

/*
 * The dump socket never reads more than 4096 bytes at once, not even to
 * resolve the family: the kernel sizes dump parts by the largest read a
 * socket has made, and small parts make dumps span several.
 */
static void dump_sock_open(struct fuzz *f, struct sock *s)
{
	struct timeval tv = { .tv_sec = 30 };
	int one = 1, fd;

	memset(s, 0, sizeof(*s));
	s->nl.sock = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl.sock || mnl_socket_bind(s->nl.sock, 0, MNL_SOCKET_AUTOPID) < 0)
		fail(f, "dump socket: %s", strerror(errno));
	fd = mnl_socket_get_fd(s->nl.sock);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s->nl.portid = mnl_socket_get_portid(s->nl.sock);
	s->nl.family_id = f->family;
}

/* ---- Answers ------------------------------------------------------------ */

struct answer {
	bool done;
	int err;
	bool msg;
	uint32_t data;		/* data messages so far */
	uint32_t parts;		/* datagrams so far */
	uint32_t intr_part;	/* first part flagged NLM_F_DUMP_INTR, or 0 */
};

static void keep_reply(struct fuzz *f, const struct fz_reply *r)
{
	if (f->nrep == f->caprep) {
		f->caprep = f->caprep ? 2 * f->caprep : 64;
		f->rep = realloc(f->rep, f->caprep * sizeof(*f->rep));
		if (!f->rep)
			abort();
	}
	f->rep[f->nrep++] = *r;
}

static void one_message(struct fuzz *f, struct sock *s, const struct fz_req *q,
			const struct nlmsghdr *h, struct answer *a)
{
	struct fz_reply r;
	const char *why = NULL;

	if (h->nlmsg_seq != q->seq || h->nlmsg_pid != s->nl.portid)
		fail(f, "answer with seq %u pid %u, expected %u %u", h->nlmsg_seq,
		     h->nlmsg_pid, q->seq, s->nl.portid);
	if (h->nlmsg_flags & NLM_F_DUMP_INTR) {
		if (!q->dump)
			fail(f, "NLM_F_DUMP_INTR outside a dump");
		if (!a->intr_part)
			a->intr_part = a->parts;
	}
	if (h->nlmsg_type == NLMSG_ERROR) {
		why = fz_check_error(h, f->req.p, q, &a->err, &a->msg);
		a->done = true;
	} else if (h->nlmsg_type == NLMSG_DONE) {
		if (!q->dump)
			fail(f, "NLMSG_DONE answers a doit");
		if (!(h->nlmsg_flags & NLM_F_MULTI))
			fail(f, "NLMSG_DONE without NLM_F_MULTI");
		why = fz_check_done(h, q, &a->err, &a->msg);
		a->done = true;
	} else if (h->nlmsg_type == f->family) {
		why = fz_check_data(h, q->cmd, &r);
		if (!why && q->dump != !!(h->nlmsg_flags & NLM_F_MULTI))
			why = "NLM_F_MULTI wrong on a data message";
		if (!why)
			keep_reply(f, &r);
		a->data++;
	} else {
		fail(f, "answer of type %u", h->nlmsg_type);
	}
	if (why) {
		hexdump("answer", (const uint8_t *)h, h->nlmsg_len);
		fail(f, "invalid answer: %s", why);
	}
}

/* One datagram of answers to Q on S; true once the request is answered. */
static bool recv_part(struct fuzz *f, struct sock *s, const struct fz_req *q,
		      struct answer *a)
{
	static uint8_t buf[32768];
	/* Dump sockets read small parts, so that dumps span several. */
	size_t size = s == &f->dump ? 4096 : sizeof(buf);
	const struct nlmsghdr *h;
	ssize_t len;
	uint32_t rem;

	len = mnl_socket_recvfrom(s->nl.sock, buf, size);
	if (len < 0)
		fail(f, "no answer: %s", strerror(errno));
	a->parts++;
	rem = len;
	h = (const struct nlmsghdr *)buf;
	while (rem) {
		if (rem < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
		    h->nlmsg_len > rem) {
			hexdump("datagram", buf, len);
			fail(f, "netlink message out of bounds in the datagram");
		}
		if (a->done)
			fail(f, "message after the end of the answer");
		one_message(f, s, q, h, a);
		if (NLMSG_ALIGN(h->nlmsg_len) >= rem)
			break;
		rem -= NLMSG_ALIGN(h->nlmsg_len);
		h = (const struct nlmsghdr *)((const uint8_t *)h + NLMSG_ALIGN(h->nlmsg_len));
	}
	return a->done;
}

/* ---- Checking answers against the model --------------------------------- */

static void print_ep(const char *what, uint16_t family, const uint8_t *addr,
		     uint16_t port, uint8_t proto)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, buf, sizeof(buf));
	fprintf(stderr, "  %s: %s port %u proto %u\n", what, buf, port, proto);
}

static bool same_svc(const struct m_svc *s, const struct fz_ep *e)
{
	return s->family == e->family && s->port == e->port &&
	       s->proto == e->proto && !memcmp(s->addr, e->addr, alen_of(s->family));
}

static void check_service(struct fuzz *f, const struct model *m,
			  const struct fz_reply *r)
{
	const struct m_svc *s = NULL;
	uint32_t i;

	for (i = 0; i < m->ns && !s; i++)
		if (same_svc(&m->s[i], &r->svc))
			s = &m->s[i];
	if (!s) {
		for (i = 0; i < m->ns; i++)
			print_ep("model has", m->s[i].family, m->s[i].addr, m->s[i].port,
				 m->s[i].proto);
		print_ep("kernel reports", r->svc.family, r->svc.addr, r->svc.port,
			 r->svc.proto);
		fail(f, "kernel reports a service the model does not have");
	}
	if (r->svc.vnodes != s->vnodes || r->svc.hash != s->hash ||
	    r->backends != s->nb || r->active != m_active(s) ||
	    r->points != m_points(s, s->vnodes))
		fail(f, "service differs: kernel vnodes %u hash %u backends %u active %u points %u, model %u %u %u %u %llu",
		     r->svc.vnodes, r->svc.hash, r->backends, r->active, r->points,
		     s->vnodes, s->hash, s->nb, m_active(s),
		     (unsigned long long)m_points(s, s->vnodes));
}

static const struct m_be *check_backend(struct fuzz *f, const struct m_svc *s,
					const struct fz_reply *r)
{
	uint32_t i;

	if (!same_svc(s, &r->svc) || r->be.family != s->family) {
		print_ep("model service", s->family, s->addr, s->port, s->proto);
		print_ep("kernel service", r->svc.family, r->svc.addr, r->svc.port,
			 r->svc.proto);
		print_ep("kernel backend", r->be.family, r->be.addr, r->be.port, 0);
		fail(f, "backend reply names another service");
	}
	for (i = 0; i < s->nb; i++) {
		const struct m_be *b = &s->b[i];

		if (b->port != r->be.port || memcmp(b->addr, r->be.addr, alen_of(s->family)))
			continue;
		if (b->weight != r->be.weight || b->state != r->be.state)
			fail(f, "backend differs: kernel weight %u state %u, model %u %u",
			     r->be.weight, r->be.state, b->weight, b->state);
		if (b->state != RINGSTEER_STATE_ACTIVE && r->share)
			fail(f, "draining backend owns ring positions");
		return b;
	}
	fail(f, "kernel reports a backend the model does not have");
}

/* Identity order (uapi "Point order"): family, address, port. */
static int id_cmp(const struct fz_ep *a, const struct fz_ep *b)
{
	uint16_t pa = htons(a->port), pb = htons(b->port);
	int c = memcmp(a->addr, b->addr, 16);

	return c ? c : memcmp(&pa, &pb, 2);
}

/* The whole dump R[0..N-1] of CMD against model M (service S). */
static void check_dump_all(struct fuzz *f, const struct model *m, uint8_t cmd,
			   const struct m_svc *s, const struct fz_reply *r,
			   uint32_t n)
{
	uint32_t i, j;

	if (cmd == RINGSTEER_CMD_SERVICE_GET) {
		if (n != m->ns)
			fail(f, "service dump has %u services, model %u", n, m->ns);
		for (i = 0; i < n; i++) {
			check_service(f, m, &r[i]);
			for (j = 0; j < i; j++)
				if (same_svc(&m->s[0], &r[i].svc) && same_svc(&m->s[0], &r[j].svc))
					fail(f, "service dumped twice");
		}
		return;
	}
	if (n != s->nb)
		fail(f, "backend dump has %u backends, model %u", n, s->nb);
	for (i = 0; i < n; i++) {
		check_backend(f, s, &r[i]);
		if (i && id_cmp(&r[i - 1].be, &r[i].be) >= 0)
			fail(f, "backends not dumped in strictly increasing identity order");
	}
}

static void check_key(struct fuzz *f, const struct model *m, const struct fz_reply *r)
{
	if (memcmp(r->key, m->key, sizeof(m->key)))
		fail(f, "KEY_GET differs from the model's key");
}

/*
 * The kernel changes rings incrementally; this builds S's ring whole from
 * the model (kmod/ring.c, "Ring placement" in the uapi) and returns the
 * owner of POS. Cached until the model changes.
 */
static struct {
	struct rs_ring *ring;
	uint64_t content;
	const struct m_svc *svc;
	struct model *m;
} cache;

static const struct rs_member *ring_owner(struct fuzz *f, const struct m_svc *s,
					  uint64_t pos)
{
	struct rs_member *mb;
	uint32_t i, n = 0;
	int err;

	if (!cache.ring || cache.content != f->m.content || cache.svc != s ||
	    cache.m != &f->m) {
		rs_ring_free(cache.ring);
		mb = calloc(s->nb + 1, sizeof(*mb));
		for (i = 0; i < s->nb; i++) {
			if (s->b[i].state != RINGSTEER_STATE_ACTIVE)
				continue;
			mb[n].family = s->family;
			memcpy(mb[n].addr, s->b[i].addr, 16);
			mb[n].port = htons(s->b[i].port);
			mb[n++].weight = s->b[i].weight;
		}
		cache.ring = rs_ring_build(f->m.key, mb, n, s->vnodes, &err);
		free(mb);
		if (!cache.ring)
			fail(f, "the model's ring does not build: %s", strerror(-err));
		cache.content = f->m.content;
		cache.svc = s;
		cache.m = &f->m;
	}
	err = rs_ring_lookup(cache.ring, pos);
	if (err < 0)
		fail(f, "LOOKUP answered, but the model's ring is empty");
	return &cache.ring->members[err];
}

/* LOOKUP: the position is the documented hash; the owner is active. */
static void check_lookup(struct fuzz *f, struct model *m, const struct fz_req *q,
			 const struct fz_reply *r)
{
	struct m_svc *s = m_find_svc(m, &q->svc);
	const struct m_be *b = check_backend(f, s, r);
	struct rs_flow fl = { .family = s->family, .proto = s->proto };
	const struct rs_member *owner;
	struct rs_key key;

	if (b->state != RINGSTEER_STATE_ACTIVE)
		fail(f, "LOOKUP answers a draining backend");
	memcpy(fl.saddr, q->flow_addr_b, q->flow_alen);
	memcpy(fl.daddr, s->addr, alen_of(s->family));
	fl.sport = htons(q->flow_port_v);
	fl.dport = htons(s->port);
	rs_key_init(&key, m->key);
	if (r->pos != rs_flow_position(&key, &fl, s->hash))
		fail(f, "LOOKUP position differs from the uapi's hash of the flow");
	owner = ring_owner(f, s, r->pos);
	f->st.lookups++;
	if (owner->port != htons(r->be.port) ||
	    memcmp(owner->addr, r->be.addr, alen_of(s->family)))
		fail(f, "LOOKUP owner differs from a full build of the documented ring");
}

/* ---- Requests: the uapi's expectations for one answer ------------------- */

/*
 * Judge the answer A to Q against EXPECT (the errnos the uapi allows, 0 if
 * it must succeed); check replies; apply an acked change to the model.
 */
static void judge(struct fuzz *f, const struct fz_req *q, const struct answer *a,
		  uint32_t expect)
{
	uint32_t bit = fz_errbit(a->err);
	bool tolerated = q->maybe && (bit & (FZ_EINVAL | FZ_ERANGE));

	if (a->err) {
		f->st.refused++;
		if (bit)
			f->st.by_errno[__builtin_ctz(bit)]++;
		if (!a->msg)
			f->st.no_msg++;
		if (!expect && tolerated) {
			f->st.maybe_refused++;
			return;
		}
		if (!expect)
			fail(f, "kernel refused a valid request: %s", strerror(a->err));
		if (!(bit & expect) && !tolerated)
			fail(f, "kernel refused with %s, the uapi allows only mask 0x%x",
			     strerror(a->err), expect);
		/* The family explains every refusal of its own. */
		if (!a->msg && (bit & (FZ_ENOENT | FZ_EEXIST | FZ_E2BIG |
				       FZ_EAFNOSUPPORT | FZ_EPROTONOSUPPORT)))
			fail(f, "refusal (%s) without an extended ack message",
			     strerror(a->err));
		return;
	}
	if (expect)
		fail(f, "kernel accepted a request the uapi refuses (mask 0x%x)", expect);
	f->st.acked++;
	if (q->noproc)
		return;
	if (!q->dump && (q->cmd == RINGSTEER_CMD_SERVICE_GET ||
			 q->cmd == RINGSTEER_CMD_BACKEND_GET ||
			 q->cmd == RINGSTEER_CMD_LOOKUP ||
			 q->cmd == RINGSTEER_CMD_KEY_GET)) {
		if (a->data != 1)
			fail(f, "%u replies to a doit", a->data);
		if (q->cmd == RINGSTEER_CMD_SERVICE_GET)
			check_service(f, &f->m, &f->rep[0]);
		else if (q->cmd == RINGSTEER_CMD_BACKEND_GET)
			check_backend(f, m_find_svc(&f->m, &q->svc), &f->rep[0]);
		else if (q->cmd == RINGSTEER_CMD_LOOKUP)
			check_lookup(f, &f->m, q, &f->rep[0]);
		else
			check_key(f, &f->m, &f->rep[0]);
		return;
	}
	if (!q->dump && q->cmd == RINGSTEER_CMD_NET_GET) {
		/* The namespace's state; its form was checked with the reply. */
		if (a->data != 1)
			fail(f, "%u replies to a doit", a->data);
		return;
	}
	if (!q->dump && a->data)
		fail(f, "a change answered with data");
	if (q->dump)
		return;
	apply(&f->m, q);
}

/* Send the request in f->req on S; returns its parsed form in Q. */
static void send_req(struct fuzz *f, struct sock *s, struct fz_req *q)
{
	struct nlmsghdr *h = (struct nlmsghdr *)f->req.p;

	h->nlmsg_seq = ++s->nl.seq;
	fz_parse_request(q, f->req.p, f->req.len, f->priv);
	if (mnl_socket_sendto(s->nl.sock, f->req.p, f->req.len) < 0)
		fail(f, "send: %s", strerror(errno));
	f->st.msgs++;
	f->nrep = 0;
}

/* Whole exchange: send, read every part, judge. */
static void exchange(struct fuzz *f, struct sock *s)
{
	struct answer a = { 0 };
	struct fz_req q;
	uint32_t expect;

	send_req(f, s, &q);
	expect = q.noproc ? 0 : q.policy ? q.policy : predict(&f->m, &q);
	while (!recv_part(f, s, &q, &a))
		;
	if (q.dump)
		f->st.dumps++;
	if (q.dump && a.parts > 1)
		f->st.multipart++;
	if (f->verbose)
		fprintf(stderr, "%llu: cmd %u dump %d -> %d (expect 0x%x)\n",
			(unsigned long long)f->index, q.cmd, q.dump, a.err, expect);
	judge(f, &q, &a, expect);
	if (q.dump && !a.err && !a.intr_part && !q.maybe) {
		const struct m_svc *svc = q.cmd == RINGSTEER_CMD_BACKEND_GET ?
					  m_find_svc(&f->m, &q.svc) : NULL;

		check_dump_all(f, &f->m, q.cmd, svc, f->rep, f->nrep);
	}
	if (q.dump && a.intr_part)
		fail(f, "NLM_F_DUMP_INTR on a dump nothing interrupted");
}

/* ---- Generator ------------------------------------------------------------ */

/* What a request is about: a service or backend identity. */
struct target {
	uint16_t family;
	uint8_t addr[16];
	uint16_t port;
	uint8_t proto;
};

struct gen {
	struct fuzz *f;
	struct fz_rng *r;
	bool mut;	/* this request gets bad attributes */
	unsigned int known_be;	/* permille: target a backend the model has */
	bool mutated;
};

static bool gm(struct gen *g, unsigned int permille)
{
	if (!g->mut || !fz_chance(g->r, permille))
		return false;
	g->mutated = true;
	return true;
}

#define PICK(r, a) ((a)[fz_below(r, sizeof(a) / sizeof((a)[0]))])

/* One attribute, perhaps dropped, renumbered, flagged, resized or repeated. */
static void g_attr(struct gen *g, uint16_t type, const void *v, uint32_t n)
{
	static const uint8_t lens[] = { 0, 1, 2, 3, 5, 8, 15, 17, 20 };
	uint8_t junk[24];
	uint32_t i;

	if (gm(g, 25))
		return;
	if (gm(g, 20))
		type = fz_below(g->r, 16);
	if (gm(g, 5))
		type = NLA_TYPE_MASK - fz_below(g->r, 4);
	if (gm(g, 15))
		type |= NLA_F_NESTED;
	if (gm(g, 15))
		type |= NLA_F_NET_BYTEORDER;
	if (gm(g, 30)) {
		uint32_t m = PICK(g->r, lens);

		for (i = 0; i < m; i++)
			junk[i] = i < n ? ((const uint8_t *)v)[i] : fz_next(g->r);
		v = junk;
		n = m;
	}
	fz_attr(&g->f->req, type, v, n);
	if (gm(g, 20))
		fz_attr(&g->f->req, type, v, n);
}

static void g_u32(struct gen *g, uint16_t type, uint32_t v)
{
	g_attr(g, type, &v, 4);
}

static void pool_addr(struct target *t, uint16_t family, uint8_t net, uint32_t i)
{
	memset(t->addr, 0, 16);
	t->family = family;
	if (family == AF_INET) {
		t->addr[0] = 10;
		t->addr[2] = net;
		t->addr[3] = i;
	} else {
		t->addr[0] = 0xfd;
		t->addr[1] = net;
		t->addr[15] = i;
	}
}

/* A service: mostly one the model has, else one of the small pool. */
static struct m_svc *pick_svc(struct gen *g, struct target *t, unsigned int known)
{
	static const uint16_t ports[] = { 80, 65535 };
	struct model *m = &g->f->m;
	struct m_svc *s;

	if (m->ns && fz_chance(g->r, known)) {
		s = &m->s[fz_below(g->r, m->ns)];
		t->family = s->family;
		memcpy(t->addr, s->addr, 16);
		t->port = s->port;
		t->proto = s->proto;
		return s;
	}
	pool_addr(t, fz_chance(g->r, 500) ? AF_INET : AF_INET6, 0, 1 + fz_below(g->r, 3));
	t->port = PICK(g->r, ports);
	t->proto = fz_chance(g->r, 500) ? IPPROTO_TCP : IPPROTO_UDP;
	return NULL;
}

static struct m_be *pick_be(struct gen *g, const struct target *svc,
			    struct m_svc *s, struct target *t, unsigned int known)
{
	static const uint16_t ports[] = { 8080, 1, 65535 };
	struct m_be *b;

	if (s && s->nb && fz_chance(g->r, known)) {
		b = &s->b[fz_below(g->r, s->nb)];
		t->family = s->family;
		memcpy(t->addr, b->addr, 16);
		t->port = b->port;
		return b;
	}
	pool_addr(t, fz_chance(g->r, 970) ? svc->family :
		  svc->family == AF_INET ? AF_INET6 : AF_INET, 1,
		  1 + fz_below(g->r, 12));
	t->port = PICK(g->r, ports);
	return NULL;
}

/* FAMILY, ADDR, PORT (and PROTO) of T, sometimes at a boundary. */
static void g_ep(struct gen *g, const struct target *t, bool service)
{
	static const uint16_t fams[] = { 0, 1, 3, AF_INET, AF_INET6, 0xffff };
	static const uint8_t lens[] = { 0, 4, 16, 17, 5, 15 };
	static const uint16_t ports[] = { 0, 1, 65535 };
	static const uint8_t protos[] = { 0, 1, IPPROTO_SCTP, 255, IPPROTO_TCP, IPPROTO_UDP };
	struct fz_rng *r = g->r;
	uint16_t fam = t->family, port = htons(t->port);
	uint8_t addr[17] = { 0 }, alen = alen_of(t->family), proto = t->proto;
	uint32_t i;

	memcpy(addr, t->addr, 16);
	if (fz_chance(r, 15))
		fam = PICK(r, fams);
	if (fz_chance(r, 15)) {
		alen = PICK(r, lens);
		for (i = 0; i < alen; i++)
			addr[i] = fz_chance(r, 500) ? addr[i] : fz_next(r);
	}
	if (fz_chance(r, 10)) {
		static const uint8_t bad4[][4] = { { 0 }, { 224, 0, 0, 1 },
			{ 255, 255, 255, 255 }, { 239, 255, 255, 250 } };

		memset(addr, 0, sizeof(addr));
		if (alen == 4)
			memcpy(addr, PICK(r, bad4), 4);
		else if (fz_chance(r, 500))
			addr[0] = 0xff, addr[1] = 2, addr[15] = 1;
	}
	if (fz_chance(r, 15))
		port = htons(PICK(r, ports));
	if (fz_chance(r, 15))
		proto = PICK(r, protos);
	g_attr(g, RINGSTEER_SERVICE_A_FAMILY, &fam, 2);
	g_attr(g, RINGSTEER_SERVICE_A_ADDR, addr, alen);
	g_attr(g, RINGSTEER_SERVICE_A_PORT, &port, 2);
	if (service)
		g_attr(g, RINGSTEER_SERVICE_A_PROTO, &proto, 1);
}

/*
 * Vnodes or weight: small, or a boundary value. Accepted values that
 * would make S's ring larger than POINT_BUDGET become small: every ring
 * change costs time linear in its points, and TCG is slow.
 */
static uint32_t g_value(struct gen *g, bool vnodes, const struct m_svc *s,
			const struct m_be *b)
{
	static const uint32_t vb[] = { 0, 1, 1024, 4096, 4097, UINT32_MAX };
	static const uint32_t wb[] = { 0, 1, 1000, 1001, UINT32_MAX };
	uint32_t v = fz_chance(g->r, 30) ? (vnodes ? PICK(g->r, vb) : PICK(g->r, wb)) :
		     vnodes ? 1 + fz_below(g->r, fz_chance(g->r, 200) ? 512 : 32) :
		     1 + fz_below(g->r, 4);
	uint64_t pts;

	if (!s || !v || v > (vnodes ? RINGSTEER_MAX_VNODES : RINGSTEER_MAX_WEIGHT))
		return v;
	pts = vnodes ? m_points(s, v) :
	      m_points(s, s->vnodes) - (b && !b->state ? b->weight * s->vnodes : 0) +
	      (uint64_t)v * s->vnodes;
	/* Over the limit is fine: the kernel refuses before hashing. */
	return pts > POINT_BUDGET && pts <= RINGSTEER_MAX_POINTS ? 1 : v;
}

static void g_flags_attr(struct gen *g, unsigned int permille)
{
	static const uint32_t bad[] = { 2, 3, UINT32_MAX };

	if (fz_chance(g->r, permille))
		g_u32(g, RINGSTEER_A_FLAGS, fz_chance(g->r, 30) ? PICK(g->r, bad) :
			fz_below(g->r, 2));
}

/* Attributes placed where they do not belong. */
static void g_misplaced(struct gen *g, bool top)
{
	uint8_t junk[20];
	uint32_t n = fz_below(g->r, sizeof(junk) + 1), i;
	uint16_t type = 1 + fz_below(g->r, top ? 9 : 15);

	if (!gm(g, 60))
		return;
	for (i = 0; i < n; i++)
		junk[i] = fz_next(g->r);
	if (fz_chance(g->r, 300)) {
		uint32_t nest = fz_nest_start(&g->f->req, type | NLA_F_NESTED);

		g_attr(g, 1 + fz_below(g->r, 6), junk, n);
		fz_nest_end(&g->f->req, nest);
		return;
	}
	g_attr(g, type, junk, n);
}

static void g_service(struct gen *g, const struct target *t, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_SERVICE | NLA_F_NESTED);

	g_ep(g, t, true);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 700))
			g_u32(g, RINGSTEER_SERVICE_A_VNODES, g_value(g, true, s, NULL));
		if (fz_chance(g->r, 400))
			g_u32(g, RINGSTEER_SERVICE_A_HASH,
			      fz_chance(g->r, 30) ? 2 + fz_below(g->r, 3) : fz_below(g->r, 2));
	}
	g_misplaced(g, false);
	fz_nest_end(&g->f->req, nest);
}

static void g_backend(struct gen *g, const struct target *svc, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	struct target t;
	struct m_be *b = pick_be(g, svc, s, &t, g->known_be);
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_BACKEND | NLA_F_NESTED);

	g_ep(g, &t, false);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 600))
			g_u32(g, RINGSTEER_BACKEND_A_WEIGHT, g_value(g, false, s, b));
		if (fz_chance(g->r, 400))
			g_u32(g, RINGSTEER_BACKEND_A_STATE,
			      fz_chance(g->r, 30) ? 2 + fz_below(g->r, 3) : fz_below(g->r, 2));
	}
	g_misplaced(g, false);
	fz_nest_end(&g->f->req, nest);
}

static void g_flow(struct gen *g, const struct target *svc)
{
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_FLOW | NLA_F_NESTED);
	uint16_t port = htons(fz_chance(g->r, 20) ? 0 : 1 + fz_below(g->r, 65535));
	uint8_t addr[16];
	uint32_t i, n = alen_of(svc->family);

	if (fz_chance(g->r, 20))
		n = n == 4 ? 16 : 4;
	for (i = 0; i < 16; i++)
		addr[i] = fz_next(g->r);
	g_attr(g, RINGSTEER_FLOW_A_ADDR, addr, n);
	g_attr(g, RINGSTEER_FLOW_A_PORT, &port, 2);
	fz_nest_end(&g->f->req, nest);
}

/* Three keys, so that setting the key often leaves it as it was. */
static void g_key(struct gen *g)
{
	uint8_t key[RINGSTEER_KEY_LEN + 1];
	uint32_t i, n = fz_chance(g->r, 30) ? 15 + 2 * fz_below(g->r, 2) : 16;
	uint8_t k = fz_below(g->r, 3);

	for (i = 0; i < sizeof(key); i++)
		key[i] = k * 17 + i;
	g_attr(g, RINGSTEER_A_KEY, key, n);
}

static uint16_t g_nlflags(struct gen *g, uint8_t cmd)
{
	static const uint16_t extra[] = { NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC,
					  NLM_F_APPEND, NLM_F_ECHO, NLM_F_MULTI };
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;

	if (fz_admin_cmd(cmd) ? fz_chance(g->r, 15) : fz_chance(g->r, 400))
		flags |= NLM_F_DUMP;
	if (fz_chance(g->r, 20))
		flags |= PICK(g->r, extra);
	if (fz_chance(g->r, 3))
		flags &= ~NLM_F_REQUEST;
	return flags;
}

/* Request CMD into f->req: the command's attributes, perhaps mangled. */
static void g_request(struct gen *g, uint8_t cmd, uint16_t flags)
{
	struct fuzz *f = g->f;
	bool dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	struct target t;
	struct m_svc *s = pick_svc(g, &t, cmd == RINGSTEER_CMD_SERVICE_NEW ? 150 : 800);
	uint8_t version = fz_chance(g->r, 10) ? fz_next(g->r) : RINGSTEER_GENL_VERSION;

	g->known_be = cmd == RINGSTEER_CMD_BACKEND_NEW ? 200 : 750;
	fz_begin(&f->req, f->family, flags, 0, cmd, version);
	switch (cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
	case RINGSTEER_CMD_SERVICE_SET:
		g_service(g, &t, s, true, 0);
		g_flags_attr(g, 10);
		break;
	case RINGSTEER_CMD_SERVICE_DEL:
		g_service(g, &t, s, false, 20);
		g_flags_attr(g, 500);
		break;
	case RINGSTEER_CMD_SERVICE_GET:
		if (!dump || fz_chance(g->r, 50))
			g_service(g, &t, s, false, 20);
		g_flags_attr(g, 10);
		break;
	case RINGSTEER_CMD_BACKEND_NEW:
	case RINGSTEER_CMD_BACKEND_SET:
		g_service(g, &t, s, false, 20);
		g_backend(g, &t, s, true, 0);
		g_flags_attr(g, 10);
		break;
	case RINGSTEER_CMD_BACKEND_DEL:
	case RINGSTEER_CMD_BACKEND_GET:
		g_service(g, &t, s, false, 20);
		if (!dump || fz_chance(g->r, 50))
			g_backend(g, &t, s, false, 20);
		g_flags_attr(g, cmd == RINGSTEER_CMD_BACKEND_DEL ? 500 : 10);
		break;
	case RINGSTEER_CMD_LOOKUP:
		g_service(g, &t, s, false, 20);
		g_flow(g, &t);
		break;
	case RINGSTEER_CMD_KEY_SET:
		g_key(g);
		break;
	case RINGSTEER_CMD_KEY_GET:
		if (fz_chance(g->r, 20))
			g_key(g);
		break;
	case RINGSTEER_CMD_FLUSH:
		g_flags_attr(g, 500);
		break;
	}
	g_misplaced(g, true);
	fz_end(&f->req);
}

/* Bytes the attribute writer would not produce. */
static void g_raw(struct gen *g)
{
	struct fz_buf *b = &g->f->req;
	struct fz_req q;
	uint32_t n, i;
	uint16_t v;

	switch (fz_below(g->r, 5)) {
	case 0:	/* truncated */
		b->len = NLMSG_HDRLEN + fz_below(g->r, b->len - NLMSG_HDRLEN);
		break;
	case 1:	/* a byte of the genetlink header or the attributes flipped */
		if (b->len > NLMSG_HDRLEN)
			b->p[NLMSG_HDRLEN + fz_below(g->r, b->len - NLMSG_HDRLEN)] ^=
				1 + fz_below(g->r, 255);
		break;
	case 2:	/* an attribute's length */
		fz_parse_request(&q, b->p, b->len, true);
		if (q.noffs) {
			v = fz_below(g->r, b->len + 8);
			memcpy(b->p + q.offs[fz_below(g->r, q.noffs)], &v, 2);
		}
		break;
	case 3:	/* trailing bytes */
		n = 1 + fz_below(g->r, 7);
		for (i = 0; i < n; i++)
			b->p[b->len++] = fz_next(g->r);
		break;
	default: /* oversized: one huge attribute */
		n = 1000 + fz_below(g->r, 30000);
		fz_attr_raw(b, fz_below(g->r, 8) | (fz_chance(g->r, 500) ? NLA_F_NESTED : 0),
			    NLA_HDRLEN + n, NULL, 0);
		memset(b->p + b->len, fz_next(g->r), n);
		b->len += n;
		fz_pad(b);
	}
	fz_end(b);
}

/* Command weights (per 10000) while the configuration grows / shrinks. */
static const uint16_t cmd_weights[][2] = {
	[0] = { 50, 50 },			/* the unused command 0 */
	[RINGSTEER_CMD_SERVICE_NEW] = { 900, 300 },
	[RINGSTEER_CMD_SERVICE_SET] = { 600, 600 },
	[RINGSTEER_CMD_SERVICE_DEL] = { 20, 250 },
	[RINGSTEER_CMD_SERVICE_GET] = { 700, 700 },
	[RINGSTEER_CMD_BACKEND_NEW] = { 2600, 1200 },
	[RINGSTEER_CMD_BACKEND_SET] = { 1600, 1600 },
	[RINGSTEER_CMD_BACKEND_DEL] = { 300, 1600 },
	[RINGSTEER_CMD_BACKEND_GET] = { 900, 900 },
	[RINGSTEER_CMD_LOOKUP] = { 900, 900 },
	[RINGSTEER_CMD_KEY_SET] = { 80, 80 },
	[RINGSTEER_CMD_KEY_GET] = { 200, 200 },
	/* Rare: a flush empties what took thousands of requests to build. */
	[RINGSTEER_CMD_FLUSH] = { 1, 1 },
	[RINGSTEER_CMD_NET_GET] = { 50, 50 },
	[__RINGSTEER_CMD_LAST] = { 50, 50 },	/* unknown commands */
};

static uint8_t g_cmd(struct gen *g)
{
	uint32_t total = 0, x, i, n = sizeof(cmd_weights) / sizeof(cmd_weights[0]);

	for (i = 0; i < n; i++)
		total += cmd_weights[i][!g->f->grow];
	x = fz_below(g->r, total);
	for (i = 0; i < n; i++) {
		if (x < cmd_weights[i][!g->f->grow])
			break;
		x -= cmd_weights[i][!g->f->grow];
	}
	if (i == __RINGSTEER_CMD_LAST)
		return __RINGSTEER_CMD_LAST + fz_below(g->r, 256 - __RINGSTEER_CMD_LAST);
	return i;
}

/* A random request in f->req. */
static void g_random(struct fuzz *f)
{
	struct gen g = { .f = f, .r = &f->rng };
	uint8_t cmd = g_cmd(&g);

	g.mut = fz_chance(g.r, 250);
	g_request(&g, cmd, g_nlflags(&g, cmd));
	f->st.attr_mutated += g.mutated;
	if (fz_chance(g.r, 60)) {
		g_raw(&g);
		f->st.raw_mutated++;
	}
}

/* A well-formed dump of CMD (of service S's backends). */
static void request_dump(struct fuzz *f, uint8_t cmd, const struct m_svc *s)
{
	struct gen g = { .f = f, .r = &f->rng };
	struct target t = { .family = s ? s->family : 0 };
	uint32_t nest;

	fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, 0, cmd,
		 RINGSTEER_GENL_VERSION);
	if (s) {
		memcpy(t.addr, s->addr, 16);
		t.port = s->port;
		t.proto = s->proto;
		nest = fz_nest_start(&f->req, RINGSTEER_A_SERVICE | NLA_F_NESTED);
		g_attr(&g, RINGSTEER_SERVICE_A_FAMILY, &t.family, 2);
		g_attr(&g, RINGSTEER_SERVICE_A_ADDR, t.addr, alen_of(t.family));
		t.port = htons(t.port);
		g_attr(&g, RINGSTEER_SERVICE_A_PORT, &t.port, 2);
		g_attr(&g, RINGSTEER_SERVICE_A_PROTO, &t.proto, 1);
		fz_nest_end(&f->req, nest);
	}
	fz_end(&f->req);
}

/* ---- Dumps interleaved with changes from other sockets ------------------- */

/*
 * A dump read part by part on the dump socket while other sockets change
 * the configuration. The kernel builds part j+1 while part j is read, so
 * part j+1 shows the state snap[j] of that moment (part 1: at the send).
 * A part with data built after a change must carry NLM_F_DUMP_INTR (the
 * first such part at the latest); with no change at all, none may.
 */
#define EP_PARTS 64

struct dump_parts {
	struct model snap[EP_PARTS];
	uint64_t content[EP_PARTS], changes[EP_PARTS];
	uint32_t data[EP_PARTS];	/* data messages per part */
	struct fz_reply *r;
	uint32_t *part_of;
	uint32_t n, cap, nparts;
};

static void ep_keep(struct fuzz *f, struct dump_parts *d, uint32_t part)
{
	uint32_t i;

	for (i = 0; i < f->nrep; i++) {
		if (d->n == d->cap) {
			d->cap = d->cap ? 2 * d->cap : 64;
			d->r = realloc(d->r, d->cap * sizeof(*d->r));
			d->part_of = realloc(d->part_of, d->cap * sizeof(*d->part_of));
			if (!d->r || !d->part_of)
				abort();
		}
		d->part_of[d->n] = part;
		d->r[d->n++] = f->rep[i];
	}
	if (part < EP_PARTS)
		d->data[part] = f->nrep;
	f->nrep = 0;
}

static void ep_check(struct fuzz *f, struct dump_parts *d, uint8_t cmd,
		     const struct fz_req *q, const struct answer *a)
{
	uint32_t i, k, last = d->nparts < EP_PARTS ? d->nparts - 1 : EP_PARTS - 1;
	const struct m_svc *s;

	if (a->intr_part)
		f->st.intr++;
	if (a->parts > 1)
		f->st.multipart++;
	for (i = 0; i < d->n; i++) {
		k = d->part_of[i] < EP_PARTS ? d->part_of[i] : EP_PARTS - 1;
		if (cmd == RINGSTEER_CMD_SERVICE_GET)
			check_service(f, &d->snap[k], &d->r[i]);
		else if ((s = m_find_svc(&d->snap[k], &q->svc)))
			check_backend(f, s, &d->r[i]);
	}
	/* Part k+1 was built in snap[k]; INTR by then if content moved. */
	for (k = 1; k <= last; k++) {
		if (d->content[k] == d->content[0])
			continue;
		for (i = k; i <= last && !d->data[i]; i++)
			;
		if (i <= last && (!a->intr_part || a->intr_part > i + 1))
			fail(f, "dump part %u built after a change without NLM_F_DUMP_INTR", i + 1);
		break;
	}
	if (a->intr_part && a->intr_part <= EP_PARTS &&
	    d->changes[a->intr_part - 1] == d->changes[0])
		fail(f, "NLM_F_DUMP_INTR in part %u though nothing changed", a->intr_part);
	if (!a->intr_part && d->content[last] == d->content[0])
		check_dump_all(f, &d->snap[0], cmd, cmd == RINGSTEER_CMD_SERVICE_GET ?
			       NULL : m_find_svc(&d->snap[0], &q->svc), d->r, d->n);
}

static void episode(struct fuzz *f)
{
	struct dump_parts *d = calloc(1, sizeof(*d));
	uint8_t cmd = RINGSTEER_CMD_SERVICE_GET;
	bool abandon = fz_chance(&f->rng, 100), done;
	const struct m_svc *s = NULL;
	struct answer a = { 0 };
	struct fz_req q;
	uint32_t i, k;

	for (i = 0; i < f->m.ns; i++)
		if (!s || f->m.s[i].nb > s->nb)
			s = &f->m.s[i];
	if (s && fz_chance(&f->rng, 600))
		cmd = RINGSTEER_CMD_BACKEND_GET;
	else
		s = NULL;
	request_dump(f, cmd, s);
	f->st.episodes++;
	send_req(f, &f->dump, &q);
	m_copy(&d->snap[0], &f->m);
	d->content[0] = f->m.content;
	d->changes[0] = f->m.changes;
	for (;;) {
		/* Changes from other sockets, before the next part is built. */
		for (k = fz_below(&f->rng, 4); k && !abandon; k--) {
			struct fz_buf saved = f->req;

			g_random(f);
			exchange(f, &f->socks[fz_below(&f->rng, NSOCKS)]);
			f->req = saved;
		}
		k = ++d->nparts;
		/* Reading part k makes the kernel build part k+1, now. */
		if (k < EP_PARTS) {
			m_copy(&d->snap[k], &f->m);
			d->content[k] = f->m.content;
			d->changes[k] = f->m.changes;
		}
		/* Replies to the requests in between are not the dump's. */
		f->nrep = 0;
		done = recv_part(f, &f->dump, &q, &a);
		ep_keep(f, d, k - 1);
		if (done || abandon)
			break;
	}
	if (!a.done) {
		f->st.abandoned++;
		nl_close(&f->dump.nl);
		dump_sock_open(f, &f->dump);
	} else if (a.err) {
		fail(f, "interleaved dump failed: %s", strerror(a.err));
	} else {
		ep_check(f, d, cmd, &q, &a);
	}
	for (i = 0; i < EP_PARTS; i++)
		m_free(&d->snap[i]);
	free(d->r);
	free(d->part_of);
	free(d);
}

static void track(struct fuzz *f)
{
	uint32_t i;

	if (f->m.ns > f->st.max_services)
		f->st.max_services = f->m.ns;
	for (i = 0; i < f->m.ns; i++)
		if (f->m.s[i].nb > f->st.max_backends)
			f->st.max_backends = f->m.s[i].nb;
}

static void step(struct fuzz *f)
{
	if (f->index % 256 == 0)
		track(f);
	if (f->index % 4096 == 0)
		f->grow = fz_chance(&f->rng, 550);
	if (f->priv && fz_chance(&f->rng, 15)) {
		episode(f);
		return;
	}
	g_random(f);
	exchange(f, &f->socks[fz_below(&f->rng, NSOCKS)]);
}

/* ---- Phases --------------------------------------------------------------- */

static void read_key(struct fuzz *f)
{
	struct answer a = { 0 };
	struct fz_req q;

	fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK, 0,
		 RINGSTEER_CMD_KEY_GET, RINGSTEER_GENL_VERSION);
	fz_end(&f->req);
	send_req(f, &f->socks[0], &q);
	while (!recv_part(f, &f->socks[0], &q, &a))
		;
	if (a.err || f->nrep != 1)
		fail(f, "KEY_GET: %s", strerror(a.err));
	memcpy(f->m.key, f->rep[0].key, sizeof(f->m.key));
}

/* Dump everything and compare with the model (the run's verdict). */
static void final_compare(struct fuzz *f, bool with_key)
{
	struct model *m = &f->m;
	struct fz_reply *svcs;
	uint32_t i, n;

	f->index = f->st.msgs;
	request_dump(f, RINGSTEER_CMD_SERVICE_GET, NULL);
	exchange(f, &f->socks[0]);
	n = f->nrep;
	svcs = malloc((n + 1) * sizeof(*svcs));
	memcpy(svcs, f->rep, n * sizeof(*svcs));
	check_dump_all(f, m, RINGSTEER_CMD_SERVICE_GET, NULL, svcs, n);
	for (i = 0; i < m->ns; i++) {
		request_dump(f, RINGSTEER_CMD_BACKEND_GET, &m->s[i]);
		exchange(f, &f->socks[0]);
	}
	free(svcs);
	if (with_key) {
		fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK, 0,
			 RINGSTEER_CMD_KEY_GET, RINGSTEER_GENL_VERSION);
		fz_end(&f->req);
		exchange(f, &f->socks[0]);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(struct fuzz *f, double secs)
{
	const struct stats *st = &f->st;
	unsigned int i;

	printf("phase %s: %llu messages in %.1f s (%.0f/s), seed %llu\n", f->phase,
	       (unsigned long long)st->msgs, secs, st->msgs / (secs > 0 ? secs : 1),
	       (unsigned long long)f->seed);
	printf("  acked %llu, refused %llu (tolerated-attribute refusals %llu, without extack message %llu)\n",
	       (unsigned long long)st->acked, (unsigned long long)st->refused,
	       (unsigned long long)st->maybe_refused, (unsigned long long)st->no_msg);
	printf("  dumps %llu, interleaved dump episodes %llu (abandoned %llu, NLM_F_DUMP_INTR seen %llu)\n",
	       (unsigned long long)st->dumps, (unsigned long long)st->episodes,
	       (unsigned long long)st->abandoned, (unsigned long long)st->intr);
	printf("  requests with bad attributes %llu, with bad bytes %llu; lookups checked against the ring %llu\n",
	       (unsigned long long)st->attr_mutated, (unsigned long long)st->raw_mutated,
	       (unsigned long long)st->lookups);
	printf("  errnos:");
	for (i = 0; i < sizeof(fz_errnos) / sizeof(fz_errnos[0]); i++)
		printf(" %s %llu", strerrorname_np(fz_errnos[i]),
		       (unsigned long long)st->by_errno[i]);
	printf("\n  services %u at the end, at most %llu services and %llu backends in one; multi-part dumps %llu\n",
	       f->m.ns, (unsigned long long)st->max_services,
	       (unsigned long long)st->max_backends, (unsigned long long)st->multipart);
	fflush(stdout);
}

static void run_phase(struct fuzz *f, const char *name, uint64_t n, bool priv,
		      bool know_key)
{
	double t0;
	int i;

	f->phase = name;
	f->priv = priv;
	memset(&f->st, 0, sizeof(f->st));
	for (i = 0; i < NSOCKS; i++)
		sock_open(f, &f->socks[i], i != 1);
	dump_sock_open(f, &f->dump);
	if (priv && !know_key)
		read_key(f);
	t0 = now();
	for (f->index = 0; f->st.msgs < n; f->index++)
		step(f);
	report(f, now() - t0);
	if (priv)
		final_compare(f, true);
}

/* Drop to nobody; then a new user namespace, with a new netns if OWN_NET. */
static int become(bool own_net)
{
	int flags = CLONE_NEWUSER | (own_net ? CLONE_NEWNET : 0);

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	return unshare(flags) ? -errno : 0;
}

static int child(struct fuzz *f, const char *name, uint64_t n, bool own_net)
{
	pid_t pid = fork();
	int status, err;

	if (pid < 0)
		return -1;
	if (pid) {
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	err = become(own_net);
	if (err) {
		fprintf(stderr, "FAIL: %s: cannot enter a user namespace as nobody: %s\n",
			name, strerror(-err));
		exit(1);
	}
	if (own_net) {
		/* A new namespace: empty, with a key nobody has read yet. */
		m_free(&f->m);
		memset(&f->m, 0, sizeof(f->m));
		rs_ring_free(cache.ring);
		cache.ring = NULL;
	}
	f->rng.s = f->seed ^ (own_net ? 0x5555 : 0xaaaa);
	run_phase(f, name, n, own_net, false);
	if (!own_net) {
		/* The refused phase left the namespace alone. */
		f->priv = true;
		final_compare(f, false);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "messages", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	static struct fuzz f;
	uint64_t n = 1000000;
	double t0 = now();
	int c, rc;

	f.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt_long(argc, argv, "n:s:v", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': f.seed = strtoull(optarg, NULL, 0); break;
		case 'v': f.verbose = true; break;
		default:
			fprintf(stderr, "usage: %s [--messages N] [--seed S] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	printf("fuzz_netlink: %llu messages, seed %llu (rerun: --seed %llu --messages %llu)\n",
	       (unsigned long long)n, (unsigned long long)f.seed,
	       (unsigned long long)f.seed, (unsigned long long)n);
	fflush(stdout);
	f.rng.s = f.seed;
	run_phase(&f, "root", n - 2 * (n / 10), true, false);
	fflush(stdout);
	rc = child(&f, "userns-owner", n / 10, true);
	if (!rc)
		rc = child(&f, "unprivileged", n / 10, false);
	if (!rc) {
		f.phase = "root-after";
		f.priv = true;
		final_compare(&f, true);
		printf("fuzz_netlink: %llu messages in %.1f s, kernel state equals the model\n",
		       (unsigned long long)n, now() - t0);
	}
	return rc ? 1 : 0;
}
