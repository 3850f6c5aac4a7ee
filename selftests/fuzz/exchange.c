// SPDX-License-Identifier: GPL-2.0
/*
 * Talking to the family: the sockets, sending one request and reading its
 * whole answer, each message judged for form (msg.h) as it comes.
 */

#include <stdarg.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "fuzz.h"

static void hexdump(const char *what, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, "%s (%u bytes):", what, n);
	for (i = 0; i < n && i < 1024; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

void __attribute__((format(printf, 2, 3), noreturn))
fz_fail(struct fuzz *f, const char *fmt, ...)
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

void fz_sock_open(struct fuzz *f, struct fz_sock *s, bool capped)
{
	struct timeval tv = { .tv_sec = 30 };
	int zero = 0, fd, err;

	err = nl_open(&s->nl);
	if (err)
		fz_fail(f, "cannot open the ringsteer family: %s", strerror(-err));
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
void fz_dump_sock_open(struct fuzz *f, struct fz_sock *s)
{
	struct timeval tv = { .tv_sec = 30 };
	int one = 1, fd;

	memset(s, 0, sizeof(*s));
	s->nl.sock = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl.sock || mnl_socket_bind(s->nl.sock, 0, MNL_SOCKET_AUTOPID) < 0)
		fz_fail(f, "dump socket: %s", strerror(errno));
	fd = mnl_socket_get_fd(s->nl.sock);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	s->nl.portid = mnl_socket_get_portid(s->nl.sock);
	s->nl.family_id = f->family;
}

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

static void one_message(struct fuzz *f, struct fz_sock *s, const struct fz_req *q,
			const struct nlmsghdr *h, struct fz_answer *a)
{
	struct fz_reply r;
	const char *why = NULL;

	if (h->nlmsg_seq != q->seq || h->nlmsg_pid != s->nl.portid)
		fz_fail(f, "answer with seq %u pid %u, expected %u %u", h->nlmsg_seq,
			h->nlmsg_pid, q->seq, s->nl.portid);
	if (h->nlmsg_flags & NLM_F_DUMP_INTR) {
		if (!q->dump)
			fz_fail(f, "NLM_F_DUMP_INTR outside a dump");
		if (!a->intr_part)
			a->intr_part = a->parts;
	}
	if (h->nlmsg_type == NLMSG_ERROR) {
		why = fz_check_error(h, f->req.p, q, &a->err, &a->msg);
		a->done = true;
	} else if (h->nlmsg_type == NLMSG_DONE) {
		if (!q->dump)
			fz_fail(f, "NLMSG_DONE answers a doit");
		if (!(h->nlmsg_flags & NLM_F_MULTI))
			fz_fail(f, "NLMSG_DONE without NLM_F_MULTI");
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
		fz_fail(f, "answer of type %u", h->nlmsg_type);
	}
	if (why) {
		hexdump("answer", (const uint8_t *)h, h->nlmsg_len);
		fz_fail(f, "invalid answer: %s", why);
	}
}

/* One datagram of answers to Q on S; true once the request is answered. */
bool fz_recv_part(struct fuzz *f, struct fz_sock *s, const struct fz_req *q,
		      struct fz_answer *a)
{
	/* An error echoes the whole request (up to FZ_MSG_MAX) with its TLVs. */
	static uint8_t buf[FZ_MSG_MAX + 8192];
	/* Dump sockets read small parts, so that dumps span several. */
	size_t size = s == &f->dump ? 4096 : 32768;
	const struct nlmsghdr *h;
	ssize_t len;
	uint32_t rem;

	/*
	 * A datagram longer than the part size is such an echo, not a dump
	 * part: read it whole (MSG_TRUNC would fail the read). Peeking one
	 * byte leaves the kernel's dump size, which follows the reads, alone.
	 */
	len = recv(mnl_socket_get_fd(s->nl.sock), buf, 1, MSG_PEEK | MSG_TRUNC);
	if (len > (ssize_t)size)
		size = len <= (ssize_t)sizeof(buf) ? (size_t)len : sizeof(buf);
	len = mnl_socket_recvfrom(s->nl.sock, buf, size);
	if (len < 0)
		fz_fail(f, "no answer: %s", strerror(errno));
	a->parts++;
	rem = len;
	h = (const struct nlmsghdr *)buf;
	while (rem) {
		if (rem < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
		    h->nlmsg_len > rem) {
			hexdump("datagram", buf, len);
			fz_fail(f, "netlink message out of bounds in the datagram");
		}
		if (a->done)
			fz_fail(f, "message after the end of the answer");
		one_message(f, s, q, h, a);
		if (NLMSG_ALIGN(h->nlmsg_len) >= rem)
			break;
		rem -= NLMSG_ALIGN(h->nlmsg_len);
		h = (const struct nlmsghdr *)((const uint8_t *)h + NLMSG_ALIGN(h->nlmsg_len));
	}
	return a->done;
}

/* Send the request in f->req on S; returns its parsed form in Q. */
void fz_send_req(struct fuzz *f, struct fz_sock *s, struct fz_req *q)
{
	struct nlmsghdr *h = (struct nlmsghdr *)f->req.p;

	h->nlmsg_seq = ++s->nl.seq;
	fz_parse_request(q, f->req.p, f->req.len, f->priv);
	if (mnl_socket_sendto(s->nl.sock, f->req.p, f->req.len) < 0)
		fz_fail(f, "send: %s", strerror(errno));
	f->st.msgs++;
	f->nrep = 0;
}
