/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink layer (prefix nl_), transport half: one generic netlink
 * socket bound to the ringsteer family, requests, dumps, pipelines and
 * extended acks. The ringsteer messages are in nl_ops.h. No printing.
 */
#ifndef RINGCTL_NL_H
#define RINGCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* One generic netlink socket bound to the ringsteer family. */
struct nl_conn {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	uint16_t family_id;
	uint8_t family_version;
	/* Extended ack text of the last failed request, or "". */
	char ext_msg[256];
	/* The last dump was flagged NLM_F_DUMP_INTR: retry it. */
	bool dump_intr;
	/* Multicast group RINGSTEER_MCGRP_CONFIG, 0 if the kernel has none. */
	uint32_t config_group;
	/* And RINGSTEER_MCGRP_WALKS. */
	uint32_t walks_group;
};

/* Returns 0, -ENOENT when the module is not loaded, or another -errno. */
int nl_open(struct nl_conn *nl);
void nl_close(struct nl_conn *nl);

/*
 * Join the configuration change notifications (-EOPNOTSUPP: the kernel
 * has none); then nl_read_events() reads one batch (it blocks until there
 * is one), hands each notification to CB and returns MNL_CB_OK (1) to go
 * on, MNL_CB_STOP (0) when CB said so, or -errno.
 */
int nl_join(struct nl_conn *nl);
int nl_read_events(struct nl_conn *nl, mnl_cb_t cb, void *data);
/* The same for the walks group (RINGSTEER_CMD_WALKED). */
int nl_join_walks(struct nl_conn *nl);
/* Whether a message waits, within TIMEOUT_MS: 1, 0, or -errno. */
int nl_readable(struct nl_conn *nl, int timeout_ms);

/* Start a request for CMD in BUF (MNL_SOCKET_BUFFER_SIZE bytes at least). */
struct nlmsghdr *nl_msg(struct nl_conn *nl, void *buf, uint8_t cmd, uint16_t flags);

/*
 * Send NLH and process replies until the ack or the end of a dump, calling
 * CB (may be NULL) for each data message. Returns 0 or the -errno the
 * kernel answered (in the ack, or in NLMSG_DONE for a dump); nl->ext_msg
 * then holds its extended ack message. nl->dump_intr tells whether a dump
 * was inconsistent.
 */
int nl_request(struct nl_conn *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * Many requests with one answer each (a doit with a reply), pipelined:
 * BUILD(i) builds request i in BUF with nl_msg(), and they are sent in
 * windows of several messages at a time, without acks. CB(i) gets the
 * reply to request i, in order. Stops at the first error: returns its
 * -errno (nl->ext_msg holds the kernel's message) and *failed its index.
 */
typedef void (*nl_build_t)(struct nl_conn *nl, void *buf, size_t i, void *data);
typedef int (*nl_reply_t)(const struct nlmsghdr *nlh, size_t i, void *data);
int nl_pipeline(struct nl_conn *nl, size_t n, nl_build_t build,
		   nl_reply_t cb, void *data, size_t *failed);

#endif /* RINGCTL_NL_H */
