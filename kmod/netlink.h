/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RINGSTEER_NETLINK_H
#define _RINGSTEER_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family rs_genl_family;

int rs_genl_init(void);
void rs_genl_uninit(void);

/* Fills in the family's ops table from the generated one (netlink_ops.c). */
int rs_genl_ops_init(struct genl_family *family);

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
