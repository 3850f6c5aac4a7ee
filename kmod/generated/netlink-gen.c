// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	kmod/uapi/ringsteer.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/ringsteer_genl.h>

/* Common nested types */
const struct nla_policy ringsteer_backend_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1] = {
	[RINGSTEER_BACKEND_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_BACKEND_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_WEIGHT),
	[RINGSTEER_BACKEND_A_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_BACKEND_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_BACKEND_A_FLOWS] = { .type = NLA_U64, },
	[RINGSTEER_BACKEND_A_SHARE] = { .type = NLA_U64, },
	[RINGSTEER_BACKEND_A_CONNS_ESTABLISHED] = { .type = NLA_U64, },
	[RINGSTEER_BACKEND_A_CONNS_OTHER] = { .type = NLA_U64, },
	[RINGSTEER_BACKEND_A_CONNS_CLOSED] = { .type = NLA_U64, },
	[RINGSTEER_BACKEND_A_ON_DOWN] = NLA_POLICY_MAX(NLA_U32, 2),
	[RINGSTEER_BACKEND_A_SLOTS] = { .type = NLA_BINARY, },
};

const struct nla_policy ringsteer_chain_nl_policy[RINGSTEER_CHAIN_A_XMIT_ERRORS + 1] = {
	[RINGSTEER_CHAIN_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_CHAIN_A_LAST_RESORT] = NLA_POLICY_MAX(NLA_U8, 1),
	[RINGSTEER_CHAIN_A_MAX_HOPS] = NLA_POLICY_RANGE(NLA_U8, 1, RINGSTEER_CHAIN_MAX_HOPS),
	[RINGSTEER_CHAIN_A_ACCEPTED_SYN] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_ACCEPTED_SOCKET] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_ACCEPTED_COOKIE] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_FORWARDED] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_LAST_RESORT_ACCEPTS] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_LAST_RESORT_DROPS] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_PASSED] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_MALFORMED] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_HOP_COUNT] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_HOP_SELF] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_HOP_BROADCAST] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_HOP_MULTICAST] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_HOP_LOCAL] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_TTL_EXCEEDED] = { .type = NLA_U64, },
	[RINGSTEER_CHAIN_A_XMIT_ERRORS] = { .type = NLA_U64, },
};

const struct nla_policy ringsteer_flow_nl_policy[RINGSTEER_FLOW_A_PORT + 1] = {
	[RINGSTEER_FLOW_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_FLOW_A_PORT] = { .type = NLA_U16, },
};

const struct nla_policy ringsteer_service_nl_policy[RINGSTEER_SERVICE_A_KEPT + 1] = {
	[RINGSTEER_SERVICE_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_SERVICE_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_PROTO] = { .type = NLA_U8, },
	[RINGSTEER_SERVICE_A_VNODES] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_VNODES),
	[RINGSTEER_SERVICE_A_HASH] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_BACKENDS] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_ACTIVE] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_POINTS] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_RING_BYTES] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_FLOWS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_NO_BACKEND] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_GENERATION] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_FINGERPRINT] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_ON_DOWN] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_FORWARD] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_ENCAP] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_ENCAP_PORT] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_PACKETS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_TABLE_HITS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_TABLE_MISSES] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_NONSYN_MISSES] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_TOO_BIG] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_FRAGMENTS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_ENCAP_ERRORS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_MARTIANS] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_NOT_HOST] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_ICMP_LIMITED] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_FLOOD_SKIPPED] = { .type = NLA_U64, },
	[RINGSTEER_SERVICE_A_PLACEMENT] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_CAPACITY] = NLA_POLICY_MIN(NLA_U32, RINGSTEER_MIN_CAPACITY),
	[RINGSTEER_SERVICE_A_CHAIN] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_CHAIN),
	[RINGSTEER_SERVICE_A_KEPT_RINGS] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_KEPT] = { .type = NLA_BINARY, },
};

/* Per-command subsets of the nested types */
const struct nla_policy ringsteer_service_id_nl_policy[RINGSTEER_SERVICE_A_PROTO + 1] = {
	[RINGSTEER_SERVICE_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_SERVICE_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_PROTO] = { .type = NLA_U8, },
};

const struct nla_policy ringsteer_service_conf_nl_policy[RINGSTEER_SERVICE_A_KEPT + 1] = {
	[RINGSTEER_SERVICE_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_SERVICE_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_PROTO] = { .type = NLA_U8, },
	[RINGSTEER_SERVICE_A_VNODES] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_VNODES),
	[RINGSTEER_SERVICE_A_HASH] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_ON_DOWN] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_FORWARD] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_ENCAP] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_ENCAP_PORT] = { .type = NLA_U16, },
	[RINGSTEER_SERVICE_A_PLACEMENT] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_SERVICE_A_CAPACITY] = NLA_POLICY_MIN(NLA_U32, RINGSTEER_MIN_CAPACITY),
	[RINGSTEER_SERVICE_A_CHAIN] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_CHAIN),
	[RINGSTEER_SERVICE_A_KEPT_RINGS] = { .type = NLA_U32, },
	[RINGSTEER_SERVICE_A_KEPT] = { .type = NLA_BINARY, },
};

const struct nla_policy ringsteer_backend_id_nl_policy[RINGSTEER_BACKEND_A_PORT + 1] = {
	[RINGSTEER_BACKEND_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_BACKEND_A_PORT] = { .type = NLA_U16, },
};

const struct nla_policy ringsteer_backend_conf_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1] = {
	[RINGSTEER_BACKEND_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_BACKEND_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_WEIGHT),
	[RINGSTEER_BACKEND_A_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_BACKEND_A_ON_DOWN] = NLA_POLICY_MAX(NLA_U32, 2),
	[RINGSTEER_BACKEND_A_SLOTS] = { .type = NLA_BINARY, },
};

const struct nla_policy ringsteer_backend_set_conf_nl_policy[RINGSTEER_BACKEND_A_SLOTS + 1] = {
	[RINGSTEER_BACKEND_A_FAMILY] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_ADDR] = { .type = NLA_BINARY, },
	[RINGSTEER_BACKEND_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_BACKEND_A_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, RINGSTEER_MAX_WEIGHT),
	[RINGSTEER_BACKEND_A_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_BACKEND_A_HEALTH] = NLA_POLICY_MAX(NLA_U32, 1),
	[RINGSTEER_BACKEND_A_ON_DOWN] = NLA_POLICY_MAX(NLA_U32, 2),
	[RINGSTEER_BACKEND_A_SLOTS] = { .type = NLA_BINARY, },
};

const struct nla_policy ringsteer_chain_conf_nl_policy[RINGSTEER_CHAIN_A_MAX_HOPS + 1] = {
	[RINGSTEER_CHAIN_A_PORT] = { .type = NLA_U16, },
	[RINGSTEER_CHAIN_A_LAST_RESORT] = NLA_POLICY_MAX(NLA_U8, 1),
	[RINGSTEER_CHAIN_A_MAX_HOPS] = NLA_POLICY_RANGE(NLA_U8, 1, RINGSTEER_CHAIN_MAX_HOPS),
};

/* RINGSTEER_CMD_SERVICE_NEW - do */
static const struct nla_policy ringsteer_service_new_nl_policy[RINGSTEER_A_SERVICE + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_conf_nl_policy),
};

/* RINGSTEER_CMD_SERVICE_SET - do */
static const struct nla_policy ringsteer_service_set_nl_policy[RINGSTEER_A_SERVICE + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_conf_nl_policy),
};

/* RINGSTEER_CMD_SERVICE_DEL - do */
static const struct nla_policy ringsteer_service_del_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_SERVICE_GET - do */
static const struct nla_policy ringsteer_service_get_nl_policy[RINGSTEER_A_SERVICE + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
};

/* RINGSTEER_CMD_BACKEND_NEW - do */
static const struct nla_policy ringsteer_backend_new_nl_policy[RINGSTEER_A_BACKEND + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_BACKEND] = NLA_POLICY_NESTED(ringsteer_backend_conf_nl_policy),
};

/* RINGSTEER_CMD_BACKEND_SET - do */
static const struct nla_policy ringsteer_backend_set_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_BACKEND] = NLA_POLICY_NESTED(ringsteer_backend_set_conf_nl_policy),
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_BACKEND_DEL - do */
static const struct nla_policy ringsteer_backend_del_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_BACKEND] = NLA_POLICY_NESTED(ringsteer_backend_id_nl_policy),
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_BACKEND_GET - do */
static const struct nla_policy ringsteer_backend_get_do_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_BACKEND] = NLA_POLICY_NESTED(ringsteer_backend_id_nl_policy),
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_BACKEND_GET - dump */
static const struct nla_policy ringsteer_backend_get_dump_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_LOOKUP - do */
static const struct nla_policy ringsteer_lookup_nl_policy[RINGSTEER_A_FLOW + 1] = {
	[RINGSTEER_A_SERVICE] = NLA_POLICY_NESTED(ringsteer_service_id_nl_policy),
	[RINGSTEER_A_FLOW] = NLA_POLICY_NESTED(ringsteer_flow_nl_policy),
};

/* RINGSTEER_CMD_KEY_SET - do */
static const struct nla_policy ringsteer_key_set_nl_policy[RINGSTEER_A_KEY + 1] = {
	[RINGSTEER_A_KEY] = NLA_POLICY_EXACT_LEN(RINGSTEER_KEY_LEN),
};

/* RINGSTEER_CMD_FLUSH - do */
static const struct nla_policy ringsteer_flush_nl_policy[RINGSTEER_A_FLAGS + 1] = {
	[RINGSTEER_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
};

/* RINGSTEER_CMD_CHAIN_SET - do */
static const struct nla_policy ringsteer_chain_set_nl_policy[RINGSTEER_A_CHAIN + 1] = {
	[RINGSTEER_A_CHAIN] = NLA_POLICY_NESTED(ringsteer_chain_conf_nl_policy),
};

/* Ops table for ringsteer */
const struct genl_split_ops ringsteer_nl_ops[18] = {
	{
		.cmd		= RINGSTEER_CMD_SERVICE_NEW,
		.doit		= ringsteer_nl_service_new_doit,
		.policy		= ringsteer_service_new_nl_policy,
		.maxattr	= RINGSTEER_A_SERVICE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_SERVICE_SET,
		.doit		= ringsteer_nl_service_set_doit,
		.policy		= ringsteer_service_set_nl_policy,
		.maxattr	= RINGSTEER_A_SERVICE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_SERVICE_DEL,
		.doit		= ringsteer_nl_service_del_doit,
		.policy		= ringsteer_service_del_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_SERVICE_GET,
		.doit		= ringsteer_nl_service_get_doit,
		.policy		= ringsteer_service_get_nl_policy,
		.maxattr	= RINGSTEER_A_SERVICE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= RINGSTEER_CMD_SERVICE_GET,
		.dumpit	= ringsteer_nl_service_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= RINGSTEER_CMD_BACKEND_NEW,
		.doit		= ringsteer_nl_backend_new_doit,
		.policy		= ringsteer_backend_new_nl_policy,
		.maxattr	= RINGSTEER_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_BACKEND_SET,
		.doit		= ringsteer_nl_backend_set_doit,
		.policy		= ringsteer_backend_set_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_BACKEND_DEL,
		.doit		= ringsteer_nl_backend_del_doit,
		.policy		= ringsteer_backend_del_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_BACKEND_GET,
		.doit		= ringsteer_nl_backend_get_doit,
		.policy		= ringsteer_backend_get_do_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_BACKEND_GET,
		.dumpit		= ringsteer_nl_backend_get_dumpit,
		.policy		= ringsteer_backend_get_dump_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= RINGSTEER_CMD_LOOKUP,
		.doit		= ringsteer_nl_lookup_doit,
		.policy		= ringsteer_lookup_nl_policy,
		.maxattr	= RINGSTEER_A_FLOW,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_KEY_SET,
		.doit		= ringsteer_nl_key_set_doit,
		.policy		= ringsteer_key_set_nl_policy,
		.maxattr	= RINGSTEER_A_KEY,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= RINGSTEER_CMD_KEY_GET,
		.doit	= ringsteer_nl_key_get_doit,
		.flags	= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_FLUSH,
		.doit		= ringsteer_nl_flush_doit,
		.policy		= ringsteer_flush_nl_policy,
		.maxattr	= RINGSTEER_A_FLAGS,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= RINGSTEER_CMD_NET_GET,
		.doit	= ringsteer_nl_net_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= RINGSTEER_CMD_CHAIN_SET,
		.doit		= ringsteer_nl_chain_set_doit,
		.policy		= ringsteer_chain_set_nl_policy,
		.maxattr	= RINGSTEER_A_CHAIN,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= RINGSTEER_CMD_CHAIN_DEL,
		.doit	= ringsteer_nl_chain_del_doit,
		.flags	= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= RINGSTEER_CMD_CHAIN_GET,
		.doit	= ringsteer_nl_chain_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group ringsteer_nl_mcgrps[] = {
	[RINGSTEER_NLGRP_CONFIG] = { "config", },
	[RINGSTEER_NLGRP_WALKS] = { "walks", },
};
