/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The messages the family sends (nlmsg.c): a service's and a backend's
 * nests for replies and dump entries, and the notifications of a change to
 * the "config" multicast group, built while what they name still lives
 * and sent once the change is done. All under rs_net->lock.
 */
#ifndef _RINGSTEER_NLMSG_H
#define _RINGSTEER_NLMSG_H

#include <linux/in.h>
#include <linux/in6.h>
#include <net/genetlink.h>

#include "ct_walk.h"
#include "netns.h"
#include "steer.h"

/* How much of a service a message carries. */
enum rs_service_detail {
	RS_SERVICE_ID,		/* FAMILY, ADDR, PORT, PROTO */
	RS_SERVICE_CONF,	/* ... and its settings (conf.h) */
	RS_SERVICE_FULL,	/* ... and the ring's figures and counters */
};

/* Nests of a message; -EMSGSIZE when @skb is full. rs_net->lock held. */
int rs_put_service(struct sk_buff *skb, struct rs_net *rn,
		   struct rs_service *svc, enum rs_service_detail detail);
int rs_put_backend(struct sk_buff *skb, const struct rs_backend *b, bool full,
		   const struct rs_ct_conns *conns);

/* Replies to a doit with one message, built by @fill. */
int rs_reply(struct genl_info *info,
	     int (*fill)(struct sk_buff *skb, struct genl_info *info,
			 const void *arg),
	     const void *arg);

/*
 * The announcement of a change (see "Notifications" in the uapi header).
 * Built while the objects it names are alive, sent once the change has
 * succeeded; rs_notify() does both when the objects outlive the change.
 */
struct sk_buff *rs_notify_build(struct rs_net *rn, u8 cmd,
				struct rs_service *svc,
				const struct rs_backend *b);
void rs_notify_send(struct rs_net *rn, struct sk_buff *skb);
void rs_notify(struct rs_net *rn, u8 cmd, struct rs_service *svc,
	       const struct rs_backend *b);
/* The walks of deletes up to @walk have run (group walks). May sleep. */
void rs_notify_walked(struct rs_net *rn, u64 walk);

#endif /* _RINGSTEER_NLMSG_H */
