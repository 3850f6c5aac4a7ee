// SPDX-License-Identifier: GPL-2.0
/*
 * A module that WARNs on load: the harness self-test loads it in the VM and
 * expects run.sh to fail the run and print the log path.
 */

#include <linux/module.h>

static int __init warnmod_init(void)
{
	WARN(1, "ringsteer harness self-test");
	return 0;
}

static void __exit warnmod_exit(void)
{
}

module_init(warnmod_init);
module_exit(warnmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ringsteer VM harness self-test");
