/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RINGSTEER_NETLINK_H
#define _RINGSTEER_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family rs_genl_family;

/*
 * pre_doit and post_doit take the split op since 6.2. Tested by a macro
 * that came in the same release, as LINUX_VERSION_CODE is no guide to a
 * distribution's backports.
 */
#ifdef GENL_SET_ERR_MSG_FMT
#define rs_genl_op genl_split_ops
#else
#define rs_genl_op genl_ops
#endif

int rs_genl_init(void);
void rs_genl_uninit(void);

#endif /* _RINGSTEER_NETLINK_H */
