// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack entries in bulk, for scenarios whose conntrack walks must be
 * expensive (walk_throttle.sh). Run it only inside a network namespace of
 * a test: the entries are that namespace's, and go with it.
 *
 *   ct_fill [-t TIMEOUT] COUNT SRCADDR DSTADDR DPORT
 *
 * Creates COUNT UDP entries through ctnetlink, as `conntrack -I` would one
 * process at a time: from SRCADDR with ports 1024 to 65535, then from the
 * next address, and so on, to DSTADDR:DPORT, the reply tuple the reverse,
 * expiring after TIMEOUT seconds (default 600). No packet is sent.
 * Requests go a buffer at a time to one send(), which the kernel serves
 * before it returns; without NLM_F_ACK only failures are answered. Prints
 * one line:
 *
 *   created N exist E seconds S
 *
 * (E: entries that were there already) and exits 1 if any other request
 * failed.
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define PORT_MIN 1024
/* What one send() carries: about 300 requests. */
#define BATCH_BYTES 32768
#define PORTS (65536 - PORT_MIN)

struct fill {
	uint32_t src;		/* host order: the first source address */
	uint32_t dst;		/* network order */
	uint16_t dport;		/* network order */
	uint32_t timeout;
};

static void put_tuple(struct nlmsghdr *nlh, int type, uint32_t src, uint32_t dst,
		      uint16_t sport, uint16_t dport)
{
	struct nlattr *tuple = mnl_attr_nest_start(nlh, type), *nest;

	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	mnl_attr_put_u32(nlh, CTA_IP_V4_SRC, src);
	mnl_attr_put_u32(nlh, CTA_IP_V4_DST, dst);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, IPPROTO_UDP);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, sport);
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, dport);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, tuple);
}

/* Entry @k: the k-th port of the first address, and on. */
static void put_entry(void *buf, const struct fill *f, uint64_t k)
{
	uint32_t src = htonl(f->src + k / PORTS);
	uint16_t sport = htons(PORT_MIN + k % PORTS);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_NEW;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_INET;
	nfg->version = NFNETLINK_V0;
	put_tuple(nlh, CTA_TUPLE_ORIG, src, f->dst, sport, f->dport);
	put_tuple(nlh, CTA_TUPLE_REPLY, f->dst, src, f->dport, sport);
	mnl_attr_put_u32(nlh, CTA_TIMEOUT, htonl(f->timeout));
}

/* The answers queued so far: failures only. */
static void drain(struct mnl_socket *nl, unsigned long long *exist,
		  unsigned long long *failed, int *first_err)
{
	static char buf[8192];
	const struct nlmsgerr *e;
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	while ((n = recv(mnl_socket_get_fd(nl), buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		len = n;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			if (!e->error)
				continue;
			if (e->error == -EEXIST) {
				(*exist)++;
				continue;
			}
			if (!*failed)
				*first_err = -e->error;
			(*failed)++;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		/* ENOBUFS: answers were lost, so failures may be missing. */
		if (!*failed)
			*first_err = errno;
		(*failed)++;
	}
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: ct_fill [-t TIMEOUT] COUNT SRCADDR DSTADDR DPORT";
	/* Room for the request that did not fit, past the limit. */
	static char buf[2 * BATCH_BYTES];
	unsigned long long count, k, exist = 0, failed = 0;
	struct fill f = { .timeout = 600 };
	int opt, first_err = 0, one = 1, rcvbuf = 4 << 20;
	struct mnl_nlmsg_batch *batch;
	struct timespec t0, t1;
	struct mnl_socket *nl;
	struct in_addr a;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			errx(2, "%s", usage);
		f.timeout = strtoul(optarg, NULL, 0);
	}
	if (argc - optind != 4 || !f.timeout || inet_pton(AF_INET, argv[optind + 1], &a) != 1)
		errx(2, "%s", usage);
	f.src = ntohl(a.s_addr);
	if (inet_pton(AF_INET, argv[optind + 2], &a) != 1)
		errx(2, "%s", usage);
	f.dst = a.s_addr;
	f.dport = htons(atoi(argv[optind + 3]));
	count = strtoull(argv[optind], NULL, 0);
	if (count && (count - 1) / PORTS > 0xffffffffULL - f.src)
		errx(2, "%llu entries from %s run past 255.255.255.255", count, argv[optind + 1]);

	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl)
		err(1, "mnl_socket_open");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		err(1, "mnl_socket_bind");
	/* A failure's answer without the request it failed. */
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	batch = mnl_nlmsg_batch_start(buf, BATCH_BYTES);
	if (!batch)
		err(1, "mnl_nlmsg_batch_start");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < count || !mnl_nlmsg_batch_is_empty(batch);) {
		if (k < count) {
			put_entry(mnl_nlmsg_batch_current(batch), &f, k++);
			if (mnl_nlmsg_batch_next(batch) && k < count)
				continue;
		}
		if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(batch),
				      mnl_nlmsg_batch_size(batch)) < 0)
			err(1, "send");
		mnl_nlmsg_batch_reset(batch);
		drain(nl, &exist, &failed, &first_err);
	}
	mnl_nlmsg_batch_stop(batch);
	drain(nl, &exist, &failed, &first_err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("created %llu exist %llu seconds %.3f\n", count - exist - failed, exist,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	mnl_socket_close(nl);
	if (failed)
		errx(1, "%llu requests failed, the first with %s", failed, strerror(first_err));
	return 0;
}
