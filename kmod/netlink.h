/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RINGSTEER_NETLINK_H
#define _RINGSTEER_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family rs_genl_family;

int rs_genl_init(void);
void rs_genl_uninit(void);

#endif /* _RINGSTEER_NETLINK_H */
