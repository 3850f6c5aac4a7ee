/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink layer (prefix nl_), conntrack half: connection-end
 * notifications from ctnetlink (NFNLGRP_CONNTRACK_DESTROY, and the updates
 * of NFNLGRP_CONNTRACK_UPDATE that take TCP past both FINs), reduced to
 * what "monitor" needs: the service a connection was addressed to and the
 * backend it was DNATed to. No printing.
 *
 * The kernel sends them only for connections that carry the conntrack
 * event extension: with net.netfilter.nf_conntrack_events at its default
 * (2), only connections created while some ctnetlink listener existed.
 */
#ifndef RINGCTL_NL_CT_H
#define RINGCTL_NL_CT_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#include "endpoint.h"

struct nl_ct_end {
	uint8_t proto;
	struct rc_endpoint vip;		/* original destination */
	struct rc_endpoint backend;	/* reply source: where it was sent */
};

struct nl_ct {
	struct mnl_socket *sock;
};

/* Join the destroy and update groups. -EPERM without CAP_NET_ADMIN in the namespace. */
int nl_ct_open(struct nl_ct *ct);
void nl_ct_close(struct nl_ct *ct);
int nl_ct_fd(const struct nl_ct *ct);

/*
 * Read what is queued (the socket is non-blocking) and call CB for each
 * ended connection with ports (TCP, UDP). Returns 0; -ENOBUFS when the
 * kernel dropped notifications, so that the caller must re-count
 * everything it watches; or another -errno.
 */
typedef void (*nl_ct_cb_t)(const struct nl_ct_end *end, void *data);
int nl_ct_read(struct nl_ct *ct, nl_ct_cb_t cb, void *data);

#endif /* RINGCTL_NL_CT_H */
