/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family's handlers (netlink.c, netlink_dump.c): what
 * main.c registers, and the request every handler works from once
 * pre_doit (or a dump's start) has parsed it. The ops table and policies
 * are generated from the spec (netlink-gen.h); the messages the family
 * sends are nlmsg.h's.
 */
#ifndef _RINGSTEER_NETLINK_H
#define _RINGSTEER_NETLINK_H

#include <net/genetlink.h>

#include "uapi/ringsteer.h"
#include "service.h"

/* The family with these handlers, registered and unregistered. */
int rs_genl_init(void);
void rs_genl_uninit(void);

struct rs_net;

/*
 * A request as pre_doit parsed it, each nest once: the endpoints its
 * service and backend nests name, the nests' attributes, its flags, and
 * the objects it names where they must exist (under the namespace mutex).
 */
struct rs_request {
	struct rs_endpoint service_ep;
	struct rs_endpoint backend_ep;
	struct nlattr *service_tb[RINGSTEER_SERVICE_A_MAX + 1];
	struct nlattr *backend_tb[RINGSTEER_BACKEND_A_MAX + 1];
	u32 flags;
	struct rs_service *svc;
	struct rs_backend *backend;
};

/*
 * A dump request of @cmd into @req, as pre_doit parses a doit's, and the
 * service it names; under the namespace mutex.
 */
int rs_nl_dump_request(struct rs_net *rn, const struct sk_buff *skb, u8 cmd,
		       struct nlattr **attrs, struct rs_request *req,
		       struct netlink_ext_ack *extack);

#endif /* _RINGSTEER_NETLINK_H */
