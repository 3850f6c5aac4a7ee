// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink commands of the owner chain's backend mode: chain-set,
 * chain-del, chain-get (kmod/uapi/ringsteer.yaml). Each runs between
 * netlink.c's pre_doit and post_doit, with the namespace's mutex held;
 * the policy has checked every attribute's type and range already.
 */

#include <net/genetlink.h>

#include "family.h"
#include "generated/netlink-gen.h"
#include "netns.h"
#include "nlmsg.h"

/* The counters' attributes, in enum rs_chain_stat's order. */
static const u16 stat_attr[RS_CH_NSTATS] = {
	[RS_CH_ACCEPTED_SYN] = RINGSTEER_CHAIN_A_ACCEPTED_SYN,
	[RS_CH_ACCEPTED_SOCKET] = RINGSTEER_CHAIN_A_ACCEPTED_SOCKET,
	[RS_CH_ACCEPTED_COOKIE] = RINGSTEER_CHAIN_A_ACCEPTED_COOKIE,
	[RS_CH_FORWARDED] = RINGSTEER_CHAIN_A_FORWARDED,
	[RS_CH_LAST_RESORT_ACCEPTS] = RINGSTEER_CHAIN_A_LAST_RESORT_ACCEPTS,
	[RS_CH_LAST_RESORT_DROPS] = RINGSTEER_CHAIN_A_LAST_RESORT_DROPS,
	[RS_CH_PASSED] = RINGSTEER_CHAIN_A_PASSED,
	[RS_CH_MALFORMED] = RINGSTEER_CHAIN_A_MALFORMED,
	[RS_CH_HOP_COUNT] = RINGSTEER_CHAIN_A_HOP_COUNT,
	[RS_CH_HOP_SELF] = RINGSTEER_CHAIN_A_HOP_SELF,
	[RS_CH_HOP_BROADCAST] = RINGSTEER_CHAIN_A_HOP_BROADCAST,
	[RS_CH_HOP_MULTICAST] = RINGSTEER_CHAIN_A_HOP_MULTICAST,
	[RS_CH_HOP_LOCAL] = RINGSTEER_CHAIN_A_HOP_LOCAL,
	[RS_CH_TTL_EXCEEDED] = RINGSTEER_CHAIN_A_TTL_EXCEEDED,
	[RS_CH_XMIT_ERRORS] = RINGSTEER_CHAIN_A_XMIT_ERRORS,
};

static int put_chain(struct sk_buff *skb, const struct rs_chain_rx *cr,
		     bool counters)
{
	struct nlattr *nest = nla_nest_start(skb, RINGSTEER_A_CHAIN);
	int i;

	if (!nest ||
	    nla_put_be16(skb, RINGSTEER_CHAIN_A_PORT, cr->port) ||
	    nla_put_u8(skb, RINGSTEER_CHAIN_A_LAST_RESORT, cr->last_resort) ||
	    nla_put_u8(skb, RINGSTEER_CHAIN_A_MAX_HOPS, cr->max_hops))
		goto cancel;
	for (i = 0; counters && i < RS_CH_NSTATS; i++) {
		if (nla_put_u64_64bit(skb, stat_attr[i], rs_chain_rx_stat(cr, i),
				      RINGSTEER_CHAIN_A_PAD))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Announced once done; out of memory costs listeners the event only. */
static void announce(struct rs_net *rn, u8 cmd)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &rs_genl_family, 0, cmd);
	if (!hdr || (rn->chain && put_chain(skb, rn->chain, false))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rs_notify_send(rn, skb);
}

static int parse_conf(struct genl_info *info, struct rs_chain_conf *conf)
{
	struct nlattr *tb[RINGSTEER_CHAIN_A_MAX_HOPS + 1];
	struct nlattr *nest = info->attrs[RINGSTEER_A_CHAIN];
	int err;

	if (!nest) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing chain attribute");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, RINGSTEER_A_CHAIN);
		return -EINVAL;
	}
	err = nla_parse_nested(tb, RINGSTEER_CHAIN_A_MAX_HOPS, nest,
			       ringsteer_chain_conf_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[RINGSTEER_CHAIN_A_PORT]) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing chain port");
		NL_SET_ERR_ATTR_MISS(info->extack, nest, RINGSTEER_CHAIN_A_PORT);
		return -EINVAL;
	}
	conf->port = nla_get_be16(tb[RINGSTEER_CHAIN_A_PORT]);
	if (!conf->port) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_CHAIN_A_PORT],
				    "port 0");
		return -EINVAL;
	}
	conf->last_resort = tb[RINGSTEER_CHAIN_A_LAST_RESORT] ?
			    nla_get_u8(tb[RINGSTEER_CHAIN_A_LAST_RESORT]) : -1;
	conf->max_hops = tb[RINGSTEER_CHAIN_A_MAX_HOPS] ?
			 nla_get_u8(tb[RINGSTEER_CHAIN_A_MAX_HOPS]) : 0;
	return 0;
}

int ringsteer_nl_chain_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_chain_conf conf;
	int err;

	err = parse_conf(info, &conf);
	if (err)
		return err;
	err = rs_chain_rx_set(rn->net, &rn->chain, &conf);
	if (err) {
		NL_SET_ERR_MSG_MOD(info->extack, "cannot register the backend mode's hooks");
		return err;
	}
	rn->generation++;
	announce(rn, RINGSTEER_CMD_CHAIN_SET);
	return 0;
}

int ringsteer_nl_chain_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));

	if (!rn->chain) {
		NL_SET_ERR_MSG_MOD(info->extack, "backend mode is off");
		return -ENOENT;
	}
	rs_chain_rx_del(rn->net, &rn->chain);
	rn->generation++;
	announce(rn, RINGSTEER_CMD_CHAIN_DEL);
	return 0;
}

static int fill_chain(struct sk_buff *skb, struct genl_info *info,
		      const void *arg)
{
	const struct rs_chain_rx *cr = rs_net(genl_info_net(info))->chain;

	return cr ? put_chain(skb, cr, true) : 0;
}

int ringsteer_nl_chain_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rs_reply(info, fill_chain, NULL);
}
