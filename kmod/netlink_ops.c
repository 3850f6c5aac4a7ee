// SPDX-License-Identifier: GPL-2.0
/*
 * The ops table registered for the family, made at init from the generated
 * one (netlink-gen.c), so that nothing about a command is written by hand
 * and both target kernels accept exactly what the spec lists.
 */

#include <net/genetlink.h>

#include "netlink.h"
#include "netlink-gen.h"

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

int __init rs_genl_ops_init(struct genl_family *family)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ringsteer_nl_ops); i++) {
		rs_ops[i] = ringsteer_nl_ops[i];
		/*
		 * Split ops take no family-wide pre/post_doit; the spec
		 * cannot name them either, as 6.1's genl_ops has no such
		 * fields: every doit gets them here. Not by testing .doit:
		 * it shares a union with .dumpit (and pre/post_doit with
		 * start/done), so a dump would start in rs_nl_pre_doit.
		 */
		if (rs_ops[i].flags & GENL_CMD_CAP_DO) {
			rs_ops[i].pre_doit = rs_nl_pre_doit;
			rs_ops[i].post_doit = rs_nl_post_doit;
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

int __init rs_genl_ops_init(struct genl_family *family)
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
	return 0;
}

#endif
