// SPDX-License-Identifier: GPL-2.0
/*
 * Connection-end notifications from ctnetlink; see nl_ct.h. A destroy
 * message carries both tuples: the original one's destination is what the
 * client addressed (the VIP), the reply one's source is where NAT sent it.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_conntrack_tcp.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>

#include "nl_ct.h"

/* Room for a burst of ended connections (each message is ~200 bytes). */
#define NL_CT_RCVBUF (8 << 20)

int nl_ct_open(struct nl_ct *ct)
{
	unsigned int destroy = NFNLGRP_CONNTRACK_DESTROY;
	unsigned int update = NFNLGRP_CONNTRACK_UPDATE;
	int size = NL_CT_RCVBUF, fd, err;

	ct->sock = mnl_socket_open(NETLINK_NETFILTER);
	if (!ct->sock)
		return -errno;
	fd = mnl_socket_get_fd(ct->sock);
	/* Without CAP_NET_ADMIN, the kernel's limit (rmem_max) applies. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) ||
	    mnl_socket_bind(ct->sock, 0, MNL_SOCKET_AUTOPID) ||
	    mnl_socket_setsockopt(ct->sock, NETLINK_ADD_MEMBERSHIP, &destroy,
				  sizeof(destroy)) ||
	    mnl_socket_setsockopt(ct->sock, NETLINK_ADD_MEMBERSHIP, &update,
				  sizeof(update))) {
		err = -errno;
		nl_ct_close(ct);
		return err;
	}
	return 0;
}

void nl_ct_close(struct nl_ct *ct)
{
	if (ct->sock)
		mnl_socket_close(ct->sock);
	ct->sock = NULL;
}

int nl_ct_fd(const struct nl_ct *ct)
{
	return mnl_socket_get_fd(ct->sock);
}

/* CTA_IP_*: the address of SRC or DST (IPv4 or IPv6) of one tuple. */
static void get_addr(const struct nlattr *ip, bool src, struct rc_endpoint *ep)
{
	uint16_t v4 = src ? CTA_IP_V4_SRC : CTA_IP_V4_DST;
	uint16_t v6 = src ? CTA_IP_V6_SRC : CTA_IP_V6_DST;
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, ip) {
		if (mnl_attr_get_type(a) == v4 && mnl_attr_get_payload_len(a) == 4) {
			ep->family = AF_INET;
			memcpy(ep->addr, mnl_attr_get_payload(a), 4);
		} else if (mnl_attr_get_type(a) == v6 &&
			   mnl_attr_get_payload_len(a) == 16) {
			ep->family = AF_INET6;
			memcpy(ep->addr, mnl_attr_get_payload(a), 16);
		}
	}
}

static void get_proto(const struct nlattr *proto, bool src, uint8_t *num,
		      struct rc_endpoint *ep)
{
	uint16_t port = src ? CTA_PROTO_SRC_PORT : CTA_PROTO_DST_PORT;
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, proto) {
		if (mnl_attr_get_type(a) == CTA_PROTO_NUM &&
		    mnl_attr_get_payload_len(a) == 1)
			*num = mnl_attr_get_u8(a);
		else if (mnl_attr_get_type(a) == port &&
			 mnl_attr_get_payload_len(a) == 2)
			ep->port = ntohs(mnl_attr_get_u16(a));
	}
}

/* One CTA_TUPLE_*: its source (SRC) or destination endpoint. */
static void get_tuple(const struct nlattr *tuple, bool src, uint8_t *proto,
		      struct rc_endpoint *ep)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, tuple) {
		if (mnl_attr_get_type(a) == CTA_TUPLE_IP)
			get_addr(a, src, ep);
		else if (mnl_attr_get_type(a) == CTA_TUPLE_PROTO)
			get_proto(a, src, proto, ep);
	}
}

struct reader {
	nl_ct_cb_t cb;
	void *data;
};

/* CTA_PROTOINFO's TCP state, or TCP_CONNTRACK_MAX if it has none. */
static uint8_t tcp_state(const struct nlattr *protoinfo)
{
	const struct nlattr *tcp, *a;

	mnl_attr_for_each_nested(tcp, protoinfo) {
		if (mnl_attr_get_type(tcp) != CTA_PROTOINFO_TCP)
			continue;
		mnl_attr_for_each_nested(a, tcp) {
			if (mnl_attr_get_type(a) == CTA_PROTOINFO_TCP_STATE &&
			    mnl_attr_get_payload_len(a) == 1)
				return mnl_attr_get_u8(a);
		}
	}
	return TCP_CONNTRACK_MAX;
}

/*
 * A connection ends for "drained" when its entry goes, or when TCP is
 * past both FINs (the kernel counts those apart, conns-closed): conntrack
 * keeps such an entry for minutes, but it carries no more data.
 */
static bool ended(const struct nlmsghdr *nlh, const struct nlattr *protoinfo)
{
	uint8_t state;

	if (nlh->nlmsg_type == ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE))
		return true;
	if (nlh->nlmsg_type != ((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW) ||
	    !protoinfo)
		return false;
	state = tcp_state(protoinfo);
	return state == TCP_CONNTRACK_LAST_ACK || state == TCP_CONNTRACK_TIME_WAIT ||
	       state == TCP_CONNTRACK_CLOSE;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *orig = NULL, *reply = NULL, *protoinfo = NULL;
	const struct reader *r = data;
	struct nl_ct_end end;
	uint8_t reply_proto = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nfgenmsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) == CTA_TUPLE_ORIG)
			orig = a;
		else if (mnl_attr_get_type(a) == CTA_TUPLE_REPLY)
			reply = a;
		else if (mnl_attr_get_type(a) == CTA_PROTOINFO)
			protoinfo = a;
	}
	if (!orig || !reply || !ended(nlh, protoinfo))
		return MNL_CB_OK;
	memset(&end, 0, sizeof(end));
	get_tuple(orig, false, &end.proto, &end.vip);
	get_tuple(reply, true, &reply_proto, &end.backend);
	if ((end.proto == IPPROTO_TCP || end.proto == IPPROTO_UDP) &&
	    end.vip.family && end.backend.family)
		r->cb(&end, r->data);
	return MNL_CB_OK;
}

/* Reads a bounded batch, so that a flood cannot starve the caller's loop. */
#define NL_CT_BATCH 64

int nl_ct_read(struct nl_ct *ct, nl_ct_cb_t cb, void *data)
{
	static char buf[65536];
	struct reader r = { cb, data };
	ssize_t len;
	int i;

	for (i = 0; i < NL_CT_BATCH; i++) {
		len = mnl_socket_recvfrom(ct->sock, buf, sizeof(buf));
		if (len < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (mnl_cb_run(buf, len, 0, 0, event_cb, &r) < 0)
			return -errno;
	}
	return 0;
}
