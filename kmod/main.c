// SPDX-License-Identifier: GPL-2.0
/*
 * ringsteer: steer new connections to backends by consistent hashing.
 *
 * Module init and exit only; each concern lives in its own file.
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include "uapi/ringsteer.h"
#include "uapi/ringsteer_version.h"

#include "nat.h"
#include "netlink.h"
#include "netns.h"
#include "ring_selftest.h"

static int __init ringsteer_init(void)
{
	int err;

	/*
	 * Userspace predicts the kernel's choices with the same ring code and
	 * libsodium's SipHash; refuse to run if this kernel's siphash() or
	 * byte order would make those predictions wrong.
	 */
	err = rs_ring_selftest();
	if (err) {
		pr_err("ring known-answer test failed, not loading\n");
		return err;
	}
	err = rs_hooks_init();
	if (err)
		return err;

	err = rs_netns_init();
	if (err)
		return err;
	err = rs_genl_init();
	if (err)
		goto err_netns;

	/*
	 * Hooks are registered per namespace with its first service, so an
	 * operator reading "loaded" must not take it for steering.
	 */
	pr_info("loaded: idle until a namespace adds its first service\n");
	return 0;

err_netns:
	rs_netns_uninit();
	return err;
}

static void __exit ringsteer_exit(void)
{
	rs_genl_uninit();
	rs_netns_uninit();
}

module_init(ringsteer_init);
module_exit(ringsteer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Consistent-hashing connection steering for load balancers");
MODULE_AUTHOR("ringsteer developers");
MODULE_ALIAS_GENL_FAMILY(RINGSTEER_GENL_NAME);
MODULE_VERSION(RINGSTEER_VERSION);
