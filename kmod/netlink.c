// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "ringsteer": the control API used by ringctl.
 * The uapi header documents every command and attribute.
 */

#include <net/genetlink.h>

#include "uapi/ringsteer.h"
#include "netlink.h"

static struct genl_family rs_genl_family __ro_after_init = {
	.name = RINGSTEER_GENL_NAME,
	.version = RINGSTEER_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
};

int __init rs_genl_init(void)
{
	return genl_register_family(&rs_genl_family);
}

void rs_genl_uninit(void)
{
	genl_unregister_family(&rs_genl_family);
}
