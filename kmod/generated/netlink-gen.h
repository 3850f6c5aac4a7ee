/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	kmod/uapi/ringsteer.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_RINGSTEER_GEN_H
#define _LINUX_RINGSTEER_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/ringsteer_genl.h>

/* Common nested types */
extern const struct nla_policy ringsteer_backend_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1];
extern const struct nla_policy ringsteer_chain_nl_policy[RINGSTEER_CHAIN_A_XMIT_ERRORS + 1];
extern const struct nla_policy ringsteer_flow_nl_policy[RINGSTEER_FLOW_A_PORT + 1];
extern const struct nla_policy ringsteer_service_nl_policy[RINGSTEER_SERVICE_A_KEPT + 1];

/* Per-command subsets of the nested types */
extern const struct nla_policy ringsteer_service_id_nl_policy[RINGSTEER_SERVICE_A_PROTO + 1];
extern const struct nla_policy ringsteer_service_conf_nl_policy[RINGSTEER_SERVICE_A_KEPT + 1];
extern const struct nla_policy ringsteer_backend_id_nl_policy[RINGSTEER_BACKEND_A_PORT + 1];
extern const struct nla_policy ringsteer_backend_conf_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1];
extern const struct nla_policy ringsteer_backend_set_conf_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1];
extern const struct nla_policy ringsteer_chain_conf_nl_policy[RINGSTEER_CHAIN_A_MAX_HOPS + 1];

/* Ops table for ringsteer */
extern const struct genl_split_ops ringsteer_nl_ops[18];

int ringsteer_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_service_get_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_service_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
int ringsteer_nl_backend_new_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_backend_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
int ringsteer_nl_lookup_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_key_set_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_flush_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_net_get_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_chain_set_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_chain_del_doit(struct sk_buff *skb, struct genl_info *info);
int ringsteer_nl_chain_get_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	RINGSTEER_NLGRP_CONFIG,
	RINGSTEER_NLGRP_WALKS,
};

#endif /* _LINUX_RINGSTEER_GEN_H */
