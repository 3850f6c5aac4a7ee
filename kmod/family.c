// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "ringsteer": the family itself, its multicast
 * group, and its ops table, made at init from the generated one
 * (netlink-gen.c) so that nothing about a command is written by hand and
 * both target kernels accept exactly what the spec lists. Every difference
 * between the genetlink of 6.1 and of 6.12 lives here and in family.h;
 * Kbuild only detects which one it builds for.
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include "family.h"
#include "generated/netlink-gen.h"

#ifdef RS_GENL_SPLIT_OPS

/*
 * The generator gives no policy to a request that takes no attribute
 * (key-get, the service-get dump), and genetlink validates a split op
 * without a policy against nothing: give such ops one that rejects every
 * attribute, as the core does itself for the ops of 6.1.
 */
static const struct nla_policy rs_reject_all[] = {
	[1] = { .type = NLA_REJECT },
};

static struct genl_split_ops rs_ops[ARRAY_SIZE(ringsteer_nl_ops)] __ro_after_init;

static int __init ops_init(struct genl_family *family, rs_doit_hook pre_doit,
			   rs_doit_post_hook post_doit)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ringsteer_nl_ops); i++) {
		rs_ops[i] = ringsteer_nl_ops[i];
		/*
		 * Split ops take no family-wide pre/post_doit; the spec
		 * cannot name them either, as 6.1's genl_ops has no such
		 * fields: every doit gets them here. (A dump op's start,
		 * dumpit and done share their storage: test the flag.)
		 */
		if (rs_ops[i].flags & GENL_CMD_CAP_DO) {
			rs_ops[i].pre_doit = pre_doit;
			rs_ops[i].post_doit = post_doit;
		}
		if (!rs_ops[i].policy) {
			rs_ops[i].policy = rs_reject_all;
			rs_ops[i].maxattr = ARRAY_SIZE(rs_reject_all) - 1;
		}
	}
	family->split_ops = rs_ops;
	family->n_split_ops = ARRAY_SIZE(rs_ops);
	return 0;
}

#else

/*
 * Linux 6.1 has no split ops (struct genl_split_ops came in 6.2): a command
 * is one struct genl_ops whose policy serves both its doit and its dumpit.
 * Kbuild compiles the generated split table as struct genl_ops there, and
 * its do and dump entries are merged into one op per command, with the do
 * policy. A dump request is then checked against the dump's own policy in
 * the op's start callback.
 */
static struct genl_ops rs_ops[ARRAY_SIZE(ringsteer_nl_ops)] __ro_after_init;

static const struct genl_ops *rs_dump_op(u8 cmd)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ringsteer_nl_ops); i++)
		if (ringsteer_nl_ops[i].cmd == cmd && ringsteer_nl_ops[i].dumpit)
			return &ringsteer_nl_ops[i];
	return NULL;
}

/*
 * genetlink has checked the request against the do policy only. 6.1 calls
 * this without an extack (cb->extack is set for the dump calls only), so
 * such a rejection carries just its errno.
 */
static int rs_dump_start(struct netlink_callback *cb)
{
	const struct genlmsghdr *hdr = nlmsg_data(cb->nlh);
	const struct genl_ops *dump = rs_dump_op(hdr->cmd);

	if (WARN_ON_ONCE(!dump))
		return -EOPNOTSUPP;
	/* Without a policy (maxattr 0), every attribute is unknown. */
	return __nla_validate(nlmsg_attrdata(cb->nlh, GENL_HDRLEN),
			      nlmsg_attrlen(cb->nlh, GENL_HDRLEN),
			      dump->maxattr, dump->policy, NL_VALIDATE_STRICT,
			      cb->extack);
}

static struct genl_ops *rs_op(u8 cmd, int *n)
{
	int i;

	for (i = 0; i < *n; i++)
		if (rs_ops[i].cmd == cmd)
			return &rs_ops[i];
	rs_ops[*n].cmd = cmd;
	return &rs_ops[(*n)++];
}

static int __init ops_init(struct genl_family *family, rs_doit_hook pre_doit,
			   rs_doit_post_hook post_doit)
{
	const struct genl_ops *src;
	struct genl_ops *op;
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ringsteer_nl_ops); i++) {
		src = &ringsteer_nl_ops[i];
		op = rs_op(src->cmd, &n);
		/* 6.1 derives the capability bits from doit and dumpit. */
		op->flags |= src->flags & ~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
		if (src->doit) {
			op->doit = src->doit;
			op->policy = src->policy;
			op->maxattr = src->maxattr;
		} else {
			op->dumpit = src->dumpit;
			op->start = rs_dump_start;
			op->done = src->done;
			if (!op->doit) {
				op->policy = src->policy;
				op->maxattr = src->maxattr;
			}
		}
	}
	/* An op left without a policy gets the core's reject-all one. */
	family->ops = rs_ops;
	family->n_ops = n;
	/* 6.1's genl_ops has no per-op pre/post_doit: the family's serve. */
	family->pre_doit = pre_doit;
	family->post_doit = post_doit;
	return 0;
}

#endif

/* In the order of the spec's list: RINGSTEER_NLGRP_* index them. */
static const struct genl_multicast_group rs_mcgrps[] = {
	[RINGSTEER_NLGRP_CONFIG] = { .name = RINGSTEER_MCGRP_CONFIG },
	[RINGSTEER_NLGRP_WALKS] = { .name = RINGSTEER_MCGRP_WALKS },
};

/*
 * parallel_ops: requests do not take the global genl_mutex (which would
 * block every other family host-wide while a key change rebuilds rings);
 * each namespace's mutex serializes its own changes.
 */
struct genl_family rs_genl_family __ro_after_init = {
	.name = RINGSTEER_GENL_NAME,
	.version = RINGSTEER_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.mcgrps = rs_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rs_mcgrps),
	/* Strict checks (header, flags, attributes) for every command. */
	.resv_start_op = 0,
};

int __init rs_family_register(rs_doit_hook pre_doit, rs_doit_post_hook post_doit)
{
	int err;

	err = ops_init(&rs_genl_family, pre_doit, post_doit);
	if (err)
		return err;
	return genl_register_family(&rs_genl_family);
}

void rs_family_unregister(void)
{
	genl_unregister_family(&rs_genl_family);
}
