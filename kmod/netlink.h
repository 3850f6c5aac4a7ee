/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RINGSTEER_NETLINK_H
#define _RINGSTEER_NETLINK_H

#include <net/genetlink.h>

#include "uapi/ringsteer.h"

extern struct genl_family rs_genl_family;

int rs_genl_init(void);
void rs_genl_uninit(void);

/* Fills in the family's ops table from the generated one (netlink_ops.c). */
int rs_genl_ops_init(struct genl_family *family);

/*
 * Around every doit (netlink.c). 6.1 compiles struct genl_split_ops as
 * struct genl_ops (Kbuild), the type its family-wide hooks take.
 */
int rs_nl_pre_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
		   struct genl_info *info);
void rs_nl_post_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
		     struct genl_info *info);

struct rs_net;

/*
 * The service a dump request of @cmd (from @skb) names, with its flags,
 * nests and permission checked as pre_doit checks a doit's; under the
 * namespace mutex.
 */
struct rs_service *rs_nl_dump_service(struct rs_net *rn,
				      const struct sk_buff *skb, u8 cmd,
				      struct nlattr **attrs,
				      struct netlink_ext_ack *extack);

static inline bool rs_nl_want_conns(struct nlattr **attrs)
{
	return attrs[RINGSTEER_A_FLAGS] &&
	       (nla_get_u32(attrs[RINGSTEER_A_FLAGS]) & RINGSTEER_F_CONNS);
}

/*
 * The attributes of a dump request, as genetlink validated them. Kbuild
 * defines RS_GENL_SPLIT_OPS where the kernel has split ops (6.2+).
 */
static inline struct nlattr **rs_dump_attrs(struct netlink_callback *cb)
{
#ifdef RS_GENL_SPLIT_OPS
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _RINGSTEER_NETLINK_H */
