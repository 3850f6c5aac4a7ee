// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink transport for ringctl: family resolution, requests, extended acks.
 * Knows nothing about ringsteer's attributes; see the uapi header for those.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "uapi/ringsteer.h"
#include "nl.h"

/* One CTRL_ATTR_MCAST_GROUPS entry: remember the group we listen to. */
static void mcast_group(struct nl_conn *nl, const struct nlattr *group)
{
	const struct nlattr *a, *name = NULL, *id = NULL;

	mnl_attr_for_each_nested(a, group) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			name = a;
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			id = a;
	}
	if (name && id && !strcmp(mnl_attr_get_str(name), RINGSTEER_MCGRP_CONFIG))
		nl->config_group = mnl_attr_get_u32(id);
	if (name && id && !strcmp(mnl_attr_get_str(name), RINGSTEER_MCGRP_WALKS))
		nl->walks_group = mnl_attr_get_u32(id);
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *group;
	struct nl_conn *nl = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		nl->family_id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		nl->family_version = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(group, attr)
			mcast_group(nl, group);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
}

/* Copy the extended ack message, if the kernel sent one after OFFSET. */
static void save_ext_msg(struct nl_conn *nl, const struct nlmsghdr *nlh,
			 unsigned int offset)
{
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + offset)
		return;
	mnl_attr_for_each(attr, nlh, offset) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0) {
			snprintf(nl->ext_msg, sizeof(nl->ext_msg), "%s",
				 mnl_attr_get_str(attr));
		}
	}
}

static void save_ext_ack(struct nl_conn *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int offset = sizeof(*err);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += mnl_nlmsg_get_payload_len(&err->msg);
	save_ext_msg(nl, nlh, offset);
}

/* libmnl hands the same data pointer to data and control callbacks. */
struct request {
	struct nl_conn *nl;
	mnl_cb_t cb;
	void *data;
};

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct request *req = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		req->nl->dump_intr = true;
	return req->cb ? req->cb(nlh, req->data) : MNL_CB_OK;
}

/*
 * A dump ends with NLMSG_DONE carrying an int: 0, or the error that ended
 * it (with an extended ack after it).
 */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct request *req = data;
	int err = 0;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		req->nl->dump_intr = true;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	save_ext_msg(req->nl, nlh, sizeof(err));
	errno = -err;
	return MNL_CB_ERROR;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct request *req = data;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	save_ext_ack(req->nl, nlh);
	if (err->error == 0)
		return MNL_CB_STOP;
	errno = -err->error;
	return MNL_CB_ERROR;
}

struct nlmsghdr *nl_msg(struct nl_conn *nl, void *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = nl->family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = RINGSTEER_GENL_VERSION;
	return nlh;
}

int nl_request(struct nl_conn *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	/* Dumps fill messages up to 32 KiB (the kernel's default). */
	static char buf[32768];
	mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	struct request req = { .nl = nl, .cb = cb, .data = data };
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nl->ext_msg[0] = '\0';
	nl->dump_intr = false;
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		len = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (len < 0)
			return -errno;
		ret = mnl_cb_run2(buf, len, seq, nl->portid, data_cb, &req,
				  ctl_cb, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR && errno == 0)
			errno = EPROTO;
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -errno : 0;
}

/*
 * Replies queue in the socket's receive buffer until read, each a whole
 * skb (about a kilobyte of truesize): a window of 64 stays well inside the
 * default 208 KiB, so none is dropped with ENOBUFS.
 */
#define PIPELINE_WINDOW 64

static int pipeline_window(struct nl_conn *nl, size_t first, size_t count,
			   nl_build_t build, nl_reply_t cb, void *data,
			   size_t *failed)
{
	static char out[PIPELINE_WINDOW * 512], in[32768];
	uint32_t seq0 = nl->seq + 1;
	struct nlmsghdr *nlh;
	size_t len = 0, got = 0, i;
	ssize_t ret;
	int n;

	for (i = 0; i < count; i++) {
		char buf[MNL_SOCKET_BUFFER_SIZE];

		build(nl, buf, first + i, data);
		nlh = (struct nlmsghdr *)buf;
		if (len + NLMSG_ALIGN(nlh->nlmsg_len) > sizeof(out))
			return -EMSGSIZE;
		memcpy(out + len, buf, nlh->nlmsg_len);
		len += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	if (mnl_socket_sendto(nl->sock, out, len) < 0)
		return -errno;
	while (got < count) {
		ret = mnl_socket_recvfrom(nl->sock, in, sizeof(in));
		if (ret < 0)
			return -errno;
		n = ret;
		nlh = (struct nlmsghdr *)in;
		for (; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
			uint32_t idx = nlh->nlmsg_seq - seq0;

			if (nlh->nlmsg_pid != nl->portid || idx >= count || idx != got)
				return -EPROTO;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

				if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
					return -EBADMSG;
				if (err->error) {
					save_ext_ack(nl, nlh);
					*failed = first + idx;
					return err->error;
				}
				return -EPROTO;	/* an ack: there is no reply */
			}
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
				return -EPROTO;
			if (cb(nlh, first + idx, data) < 0) {
				*failed = first + idx;
				return -EPROTO;
			}
			got++;
		}
	}
	return 0;
}

int nl_pipeline(struct nl_conn *nl, size_t n, nl_build_t build,
		   nl_reply_t cb, void *data, size_t *failed)
{
	size_t first, count;
	int err;

	nl->ext_msg[0] = '\0';
	for (first = 0; first < n; first += count) {
		count = n - first < PIPELINE_WINDOW ? n - first : PIPELINE_WINDOW;
		err = pipeline_window(nl, first, count, build, cb, data, failed);
		if (err)
			return err;
	}
	return 0;
}

int nl_open(struct nl_conn *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int one = 1;
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err;
	/* Extended acks carry the kernel's reason for every rejection. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);

	nl->family_id = GENL_ID_CTRL;
	nlh = nl_msg(nl, buf, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RINGSTEER_GENL_NAME);
	nl->family_id = 0;
	ret = nl_request(nl, nlh, family_cb, nl);
	if (ret == 0 && !nl->family_id)
		ret = -EPROTO;
	if (ret < 0) {
		mnl_socket_close(nl->sock);
		nl->sock = NULL;
		return ret;
	}
	return 0;
err:
	ret = -errno;
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return ret;
}

void nl_close(struct nl_conn *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

static int join(struct nl_conn *nl, uint32_t group)
{
	if (!group)
		return -EOPNOTSUPP;
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &group, sizeof(group)) < 0)
		return -errno;
	return 0;
}

int nl_join(struct nl_conn *nl)
{
	return join(nl, nl->config_group);
}

int nl_join_walks(struct nl_conn *nl)
{
	return join(nl, nl->walks_group);
}

int nl_readable(struct nl_conn *nl, int timeout_ms)
{
	struct pollfd p = { .fd = mnl_socket_get_fd(nl->sock), .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	return ret < 0 ? -errno : ret;
}

int nl_read_events(struct nl_conn *nl, mnl_cb_t cb, void *data)
{
	static char buf[32768];
	ssize_t len;
	int ret;

	len = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
	if (len < 0)
		return -errno;
	/* Notifications carry sequence number and port id 0. */
	ret = mnl_cb_run(buf, len, 0, 0, cb, data);
	return ret < 0 ? -errno : ret;
}
