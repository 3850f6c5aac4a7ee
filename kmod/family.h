/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family (family.c), and what the rest of the module
 * needs to know of the genetlink it is built against: Kbuild defines
 * RS_GENL_SPLIT_OPS where the kernel has split ops (6.2+). Include it
 * before netlink-gen.h.
 */
#ifndef _RINGSTEER_FAMILY_H
#define _RINGSTEER_FAMILY_H

#include <net/genetlink.h>

#ifdef RS_GENL_SPLIT_OPS
#define rs_genl_op genl_split_ops
#else
/*
 * The generated header declares its table as struct genl_split_ops: on 6.1
 * that is struct genl_ops, here for the files that include it after this
 * one, and by Kbuild for the generated netlink-gen.c itself.
 */
#define genl_split_ops genl_ops
#define rs_genl_op genl_ops
#endif

/* Around every doit: the netlink handlers' own (netlink.c). */
typedef int (*rs_doit_hook)(const struct rs_genl_op *ops, struct sk_buff *skb,
			    struct genl_info *info);
typedef void (*rs_doit_post_hook)(const struct rs_genl_op *ops, struct sk_buff *skb,
				  struct genl_info *info);

extern struct genl_family rs_genl_family;

int rs_family_register(rs_doit_hook pre_doit, rs_doit_post_hook post_doit);
void rs_family_unregister(void);

/* The attributes of a dump request, as genetlink validated them. */
static inline struct nlattr **rs_dump_attrs(struct netlink_callback *cb)
{
#ifdef RS_GENL_SPLIT_OPS
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _RINGSTEER_FAMILY_H */
