// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "ringsteer": the control API used by ringctl.
 * uapi/ringsteer.yaml specifies every command and attribute; the policies
 * and the ops table generated from it (netlink-gen.c) reject what a command
 * does not take, and this file checks the rest and hands every change to
 * rs_commit() under the namespace mutex.
 *
 * Every rejection sets an errno and an extended ack message, with the
 * offending attribute where there is one, before anything is changed.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "uapi/ringsteer.h"
#include "commit.h"
#include "conns.h"
#include "netlink.h"
#include "netlink-gen.h"
#include "nlmsg.h"

/*
 * The generated policies give a nest one policy for every command, so a nest
 * is parsed only up to the last attribute the command takes (a prefix of the
 * nest's attributes): those after it are rejected as unknown.
 */
#define RS_LAST_SERVICE_ID	RINGSTEER_SERVICE_A_PROTO
#define RS_LAST_SERVICE_CONF	RINGSTEER_SERVICE_A_HASH
#define RS_LAST_BACKEND_ID	RINGSTEER_BACKEND_A_PORT
#define RS_LAST_BACKEND_CONF	RINGSTEER_BACKEND_A_STATE

/*
 * What a VIP or backend address may not be: one whose traffic never leaves
 * the host or reaches no single host, or the IPv4-mapped form of an
 * address that has a family of its own (uapi "Addresses").
 */
enum rs_addr_kind {
	RS_ADDR_OK,
	RS_ADDR_UNSPECIFIED,
	RS_ADDR_LOOPBACK,
	RS_ADDR_LINKLOCAL,
	RS_ADDR_MULTICAST,
	RS_ADDR_BROADCAST,
	RS_ADDR_V4MAPPED,
};

static enum rs_addr_kind addr_kind(u8 family, const union nf_inet_addr *a)
{
	if (family == AF_INET) {
		if (ipv4_is_zeronet(a->ip))
			return RS_ADDR_UNSPECIFIED;
		if (ipv4_is_loopback(a->ip))
			return RS_ADDR_LOOPBACK;
		if (ipv4_is_linklocal_169(a->ip))
			return RS_ADDR_LINKLOCAL;
		if (ipv4_is_multicast(a->ip))
			return RS_ADDR_MULTICAST;
		return ipv4_is_lbcast(a->ip) ? RS_ADDR_BROADCAST : RS_ADDR_OK;
	}
	if (ipv6_addr_any(&a->in6))
		return RS_ADDR_UNSPECIFIED;
	if (ipv6_addr_loopback(&a->in6))
		return RS_ADDR_LOOPBACK;
	/* fe80::/10 */
	if ((a->in6.s6_addr32[0] & htonl(0xffc00000)) == htonl(0xfe800000))
		return RS_ADDR_LINKLOCAL;
	if (ipv6_addr_is_multicast(&a->in6))
		return RS_ADDR_MULTICAST;
	return ipv6_addr_v4mapped(&a->in6) ? RS_ADDR_V4MAPPED : RS_ADDR_OK;
}

static int check_addr(u8 family, const union nf_inet_addr *a,
		      const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	switch (addr_kind(family, a)) {
	case RS_ADDR_OK:
		return 0;
	case RS_ADDR_UNSPECIFIED:
		NL_SET_ERR_MSG_ATTR(extack, attr, "address is unspecified (0.0.0.0 or ::)");
		break;
	case RS_ADDR_LOOPBACK:
		NL_SET_ERR_MSG_ATTR(extack, attr, "address is a loopback address");
		break;
	case RS_ADDR_LINKLOCAL:
		NL_SET_ERR_MSG_ATTR(extack, attr, "address is link-local");
		break;
	case RS_ADDR_MULTICAST:
		NL_SET_ERR_MSG_ATTR(extack, attr, "address is a multicast address");
		break;
	case RS_ADDR_BROADCAST:
		NL_SET_ERR_MSG_ATTR(extack, attr, "address is the broadcast address");
		break;
	case RS_ADDR_V4MAPPED:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "address is IPv4-mapped: use the IPv4 address, family AF_INET");
		break;
	}
	return -EINVAL;
}

/*
 * Family, address and port of a service or backend nest; @family_attr is
 * the FAMILY attribute of that nest, ADDR and PORT follow it.
 */
static int parse_endpoint(struct nlattr *nest, struct nlattr **tb,
			  int family_attr, struct rs_endpoint *ep,
			  struct netlink_ext_ack *extack)
{
	int addr_attr = family_attr + 1, port_attr = family_attr + 2;
	u16 family;

	if (NL_REQ_ATTR_CHECK(extack, nest, tb, family_attr) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, addr_attr) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, port_attr))
		return -EINVAL;

	memset(ep, 0, sizeof(*ep));
	family = nla_get_u16(tb[family_attr]);
	if (family != AF_INET && family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[family_attr],
				    "address family must be AF_INET or AF_INET6");
		return -EAFNOSUPPORT;
	}
	ep->family = family;
	if (nla_len(tb[addr_attr]) != rs_addr_len(family)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_attr],
				    "address length does not match the address family");
		return -EINVAL;
	}
	nla_memcpy(&ep->addr, tb[addr_attr], sizeof(ep->addr));
	if (check_addr(family, &ep->addr, tb[addr_attr], extack))
		return -EINVAL;
	ep->port = nla_get_be16(tb[port_attr]);
	if (!ep->port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[port_attr], "port 0 is not allowed");
		return -EINVAL;
	}
	return 0;
}

static void missing_nest(int attr, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_ATTR_MISS(extack, NULL, attr);
	if (attr == RINGSTEER_A_SERVICE)
		NL_SET_ERR_MSG_MOD(extack, "missing service (RINGSTEER_A_SERVICE)");
	else if (attr == RINGSTEER_A_BACKEND)
		NL_SET_ERR_MSG_MOD(extack, "missing backend (RINGSTEER_A_BACKEND)");
	else
		NL_SET_ERR_MSG_MOD(extack, "missing flow (RINGSTEER_A_FLOW)");
}

/* Parse the nest @attr, which is required, with @policy into @tb. */
static int parse_nest(struct nlattr **attrs, int attr, struct nlattr **tb,
		      int maxtype, const struct nla_policy *policy,
		      struct netlink_ext_ack *extack)
{
	if (!attrs[attr]) {
		missing_nest(attr, extack);
		return -EINVAL;
	}
	return nla_parse_nested(tb, maxtype, attrs[attr], policy, extack);
}

static int parse_service(struct nlattr **attrs, struct nlattr **tb, int last,
			 struct rs_endpoint *ep, struct netlink_ext_ack *extack)
{
	int err;

	err = parse_nest(attrs, RINGSTEER_A_SERVICE, tb, last,
			 ringsteer_service_nl_policy,
			 extack) ?:
	      parse_endpoint(attrs[RINGSTEER_A_SERVICE], tb,
			     RINGSTEER_SERVICE_A_FAMILY, ep, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attrs[RINGSTEER_A_SERVICE], tb,
			      RINGSTEER_SERVICE_A_PROTO))
		return -EINVAL;
	ep->proto = nla_get_u8(tb[RINGSTEER_SERVICE_A_PROTO]);
	if (ep->proto != IPPROTO_TCP && ep->proto != IPPROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_SERVICE_A_PROTO],
				    "protocol must be TCP or UDP");
		return -EPROTONOSUPPORT;
	}
	return 0;
}

static int parse_backend(struct nlattr **attrs, struct nlattr **tb, int last,
			 const struct rs_service *svc, struct rs_endpoint *ep,
			 struct netlink_ext_ack *extack)
{
	int err;

	err = parse_nest(attrs, RINGSTEER_A_BACKEND, tb, last,
			 ringsteer_backend_nl_policy,
			 extack) ?:
	      parse_endpoint(attrs[RINGSTEER_A_BACKEND], tb,
			     RINGSTEER_BACKEND_A_FAMILY, ep, extack);
	if (err)
		return err;
	if (ep->family != svc->family) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_BACKEND_A_FAMILY],
				    "backend address family does not match the service");
		return -EINVAL;
	}
	/* DNAT to itself: the entries would not even be marked IPS_DST_NAT. */
	if (ep->port == svc->port && rs_addr_equal(ep->family, &ep->addr, &svc->vip)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_BACKEND],
				    "backend is the service's own VIP and port");
		return -EINVAL;
	}
	return 0;
}

/* The service the request names, which must exist. */
static struct rs_service *find_service(struct rs_net *rn, struct nlattr **attrs,
				       int last, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	struct rs_service *svc;
	struct rs_endpoint ep;
	int err;

	err = parse_service(attrs, tb, last, &ep, extack);
	if (err)
		return ERR_PTR(err);
	svc = rs_service_find(&rn->services, &ep);
	if (!svc) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_SERVICE], "no such service");
		return ERR_PTR(-ENOENT);
	}
	return svc;
}

/* The backend of @svc the request names, which must exist. */
static struct rs_backend *find_backend(struct rs_service *svc,
				       struct nlattr **attrs, int last,
				       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	struct rs_backend *b;
	struct rs_endpoint ep;
	int err;

	err = parse_backend(attrs, tb, last, svc, &ep, extack);
	if (err)
		return ERR_PTR(err);
	b = rs_backend_find(svc, &ep);
	if (!b) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_BACKEND],
				    "no such backend in this service");
		return ERR_PTR(-ENOENT);
	}
	return b;
}

static bool keep_flows(struct nlattr **attrs)
{
	return attrs[RINGSTEER_A_FLAGS] &&
	       (nla_get_u32(attrs[RINGSTEER_A_FLAGS]) & RINGSTEER_F_KEEP_FLOWS);
}

/*
 * What each command's request names: the service and backend nests (parsed
 * up to the last attribute the command takes) and the flags it gives a
 * meaning to. pre_doit resolves the named objects, which must exist;
 * SERVICE_NEW and BACKEND_NEW name a new one themselves.
 */
struct rs_cmd {
	u8 service;		/* last attribute of the service nest */
	u8 backend;		/* last attribute of the backend nest */
	bool resolve_service;
	bool resolve_backend;
	u32 flags;		/* RINGSTEER_F_* allowed */
	u32 admin_flags;	/* those of them that need CAP_NET_ADMIN */
};

static const struct rs_cmd rs_cmds[RINGSTEER_CMD_MAX + 1] = {
	[RINGSTEER_CMD_SERVICE_NEW] = { RS_LAST_SERVICE_CONF, 0, false, false, 0 },
	[RINGSTEER_CMD_SERVICE_SET] = { RS_LAST_SERVICE_CONF, 0, true, false, 0 },
	[RINGSTEER_CMD_SERVICE_DEL] = { RS_LAST_SERVICE_ID, 0, true, false,
					RINGSTEER_F_KEEP_FLOWS },
	[RINGSTEER_CMD_SERVICE_GET] = { RS_LAST_SERVICE_ID, 0, true, false, 0 },
	[RINGSTEER_CMD_BACKEND_NEW] = { RS_LAST_SERVICE_ID, RS_LAST_BACKEND_CONF,
					true, false, 0 },
	[RINGSTEER_CMD_BACKEND_SET] = { RS_LAST_SERVICE_ID, RS_LAST_BACKEND_CONF,
					true, true, 0 },
	[RINGSTEER_CMD_BACKEND_DEL] = { RS_LAST_SERVICE_ID, RS_LAST_BACKEND_ID,
					true, true, RINGSTEER_F_KEEP_FLOWS },
	[RINGSTEER_CMD_BACKEND_GET] = { RS_LAST_SERVICE_ID, RS_LAST_BACKEND_ID,
					true, true, RINGSTEER_F_CONNS,
					RINGSTEER_F_CONNS },
	[RINGSTEER_CMD_LOOKUP] = { RS_LAST_SERVICE_ID, 0, true, false, 0 },
	[RINGSTEER_CMD_FLUSH] = { 0, 0, false, false, RINGSTEER_F_KEEP_FLOWS },
};

static struct rs_net *info_rn(struct genl_info *info)
{
	return rs_net(genl_info_net(info));
}

static struct rs_service *info_service(struct genl_info *info)
{
	return info->user_ptr[0];
}

static struct rs_backend *info_backend(struct genl_info *info)
{
	return info->user_ptr[1];
}

/*
 * The generated policy admits FLAGS only to the commands that take it, and
 * genetlink sizes info->attrs to the command's own last attribute: attrs
 * may only be read here for those commands.
 */
static int check_flags(const struct rs_cmd *cmd, struct nlattr **attrs,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *flags = cmd->flags ? attrs[RINGSTEER_A_FLAGS] : NULL;

	if (flags && (nla_get_u32(flags) & ~cmd->flags)) {
		NL_SET_ERR_MSG_ATTR(extack, flags, "flag not valid for this command");
		return -EINVAL;
	}
	return 0;
}

/*
 * Each nest holds only what the command takes: checked for every nest
 * before any value is looked at, so that a request with an attribute too
 * many is refused as such, whatever else is wrong with it.
 */
static int check_nests(const struct rs_cmd *cmd, struct nlattr **attrs,
		       struct netlink_ext_ack *extack)
{
	int err = 0;

	if (cmd->service && attrs[RINGSTEER_A_SERVICE])
		err = nla_validate_nested(attrs[RINGSTEER_A_SERVICE], cmd->service,
					  ringsteer_service_nl_policy, extack);
	if (!err && cmd->backend && attrs[RINGSTEER_A_BACKEND])
		err = nla_validate_nested(attrs[RINGSTEER_A_BACKEND], cmd->backend,
					  ringsteer_backend_nl_policy, extack);
	return err;
}

/*
 * Flags that need CAP_NET_ADMIN in the user namespace owning the netns,
 * as GENL_UNS_ADMIN_PERM commands do: counting connections walks the
 * host's whole conntrack table. Checked once the request is known valid,
 * before what it names is looked up.
 */
static int check_perm(const struct rs_cmd *cmd, const struct sk_buff *skb,
		      const struct net *net, struct nlattr **attrs,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *flags = cmd->admin_flags ? attrs[RINGSTEER_A_FLAGS] : NULL;

	if (flags && (nla_get_u32(flags) & cmd->admin_flags) &&
	    !netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_ATTR(extack, flags,
				    "counting connections needs CAP_NET_ADMIN over the network namespace");
		return -EPERM;
	}
	return 0;
}

static int resolve(struct rs_net *rn, const struct rs_cmd *cmd,
		   struct genl_info *info)
{
	struct rs_service *svc = NULL;
	struct rs_backend *b = NULL;

	if (cmd->resolve_service) {
		svc = find_service(rn, info->attrs, cmd->service, info->extack);
		if (IS_ERR(svc))
			return PTR_ERR(svc);
	}
	if (cmd->resolve_backend) {
		b = find_backend(svc, info->attrs, cmd->backend, info->extack);
		if (IS_ERR(b))
			return PTR_ERR(b);
	}
	info->user_ptr[0] = svc;
	info->user_ptr[1] = b;
	return 0;
}

struct rs_service *rs_nl_dump_service(struct rs_net *rn,
				      const struct sk_buff *skb, u8 cmd,
				      struct nlattr **attrs,
				      struct netlink_ext_ack *extack)
{
	const struct rs_cmd *c = &rs_cmds[cmd];
	int err;

	err = check_flags(c, attrs, extack) ?: check_nests(c, attrs, extack) ?:
	      check_perm(c, skb, rn->net, attrs, extack);
	if (err)
		return ERR_PTR(err);
	return find_service(rn, attrs, c->service, extack);
}

/*
 * Every doit runs between these two: pre_doit takes the namespace mutex
 * and resolves what the request names into info->user_ptr[] (service,
 * backend); post_doit releases the mutex. The namespace itself is
 * genl_info_net(info), cheap to find again. BACKEND_GET with counts drops
 * the mutex while it walks the conntrack table (conns.h) and resolves the
 * request again once it has it back.
 */
int rs_nl_pre_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
		   struct genl_info *info)
{
	const struct rs_cmd *cmd = &rs_cmds[info->genlhdr->cmd];
	struct rs_net *rn = info_rn(info);
	int err;

	err = check_flags(cmd, info->attrs, info->extack) ?:
	      check_nests(cmd, info->attrs, info->extack) ?:
	      check_perm(cmd, skb, genl_info_net(info), info->attrs, info->extack);
	if (err)
		return err;
	mutex_lock(&rn->lock);
	err = resolve(rn, cmd, info);
	if (err)
		mutex_unlock(&rn->lock);
	return err;
}

void rs_nl_post_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
		     struct genl_info *info)
{
	mutex_unlock(&info_rn(info)->lock);
}

static const struct genl_multicast_group rs_mcgrps[] = {
	{ .name = RINGSTEER_MCGRP_CONFIG },
};

/* The service nest's VNODES and HASH over @conf; false if neither. */
static bool parse_service_conf(struct nlattr **attrs,
			       struct rs_service_conf *conf)
{
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];

	/* pre_doit or the caller parsed this nest already: it is valid. */
	if (nla_parse_nested(tb, RS_LAST_SERVICE_CONF, attrs[RINGSTEER_A_SERVICE],
			     ringsteer_service_nl_policy, NULL))
		return false;
	if (tb[RINGSTEER_SERVICE_A_VNODES])
		conf->vnodes = nla_get_u32(tb[RINGSTEER_SERVICE_A_VNODES]);
	if (tb[RINGSTEER_SERVICE_A_HASH])
		conf->hash = nla_get_u32(tb[RINGSTEER_SERVICE_A_HASH]);
	return tb[RINGSTEER_SERVICE_A_VNODES] || tb[RINGSTEER_SERVICE_A_HASH];
}

int ringsteer_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_NEW,
		.conf.vnodes = RINGSTEER_DEFAULT_VNODES,
		.conf.hash = RINGSTEER_HASH_FLOW,
	};
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	int err;

	err = parse_service(info->attrs, tb, RS_LAST_SERVICE_CONF, &c.ep,
			    info->extack);
	if (err)
		return err;
	parse_service_conf(info->attrs, &c.conf);
	return rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_SET,
		.svc = info_service(info),
	};

	c.conf.vnodes = c.svc->vnodes;
	c.conf.hash = c.svc->hash;
	if (!parse_service_conf(info->attrs, &c.conf)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_SERVICE],
				    "nothing to change: give vnodes or hash");
		return -EINVAL;
	}
	return rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_DEL,
		.svc = info_service(info),
		.keep_flows = keep_flows(info->attrs),
	};

	return rs_commit(info_rn(info), &c, info->extack);
}

static int fill_service(struct sk_buff *skb, struct genl_info *info,
			const void *arg)
{
	int err = rs_put_service(skb, info_rn(info), info_service(info),
				 RS_SERVICE_FULL);

	if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory computing the ring's fingerprint");
	return err;
}

int ringsteer_nl_service_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rs_reply(info, fill_service, NULL);
}

int ringsteer_nl_backend_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_NEW,
		.svc = info_service(info),
		.weight = 1,
		.state = RINGSTEER_STATE_ACTIVE,
	};
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	int err;

	err = parse_backend(info->attrs, tb, RS_LAST_BACKEND_CONF, c.svc, &c.ep,
			    info->extack);
	if (err)
		return err;
	if (tb[RINGSTEER_BACKEND_A_WEIGHT])
		c.weight = nla_get_u32(tb[RINGSTEER_BACKEND_A_WEIGHT]);
	if (tb[RINGSTEER_BACKEND_A_STATE])
		c.state = nla_get_u32(tb[RINGSTEER_BACKEND_A_STATE]);
	return rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_SET,
		.svc = info_service(info),
		.backend = info_backend(info),
	};
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	struct rs_endpoint ep;
	int err;

	/* pre_doit parsed this nest already: it is valid. */
	err = parse_backend(info->attrs, tb, RS_LAST_BACKEND_CONF, c.svc, &ep,
			    info->extack);
	if (err)
		return err;
	if (!tb[RINGSTEER_BACKEND_A_WEIGHT] && !tb[RINGSTEER_BACKEND_A_STATE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_BACKEND],
				    "nothing to change: give weight or state");
		return -EINVAL;
	}
	c.weight = tb[RINGSTEER_BACKEND_A_WEIGHT] ?
		   nla_get_u32(tb[RINGSTEER_BACKEND_A_WEIGHT]) :
		   c.backend->member.weight;
	c.state = tb[RINGSTEER_BACKEND_A_STATE] ?
		  nla_get_u32(tb[RINGSTEER_BACKEND_A_STATE]) : c.backend->state;
	return rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_DEL,
		.svc = info_service(info),
		.backend = info_backend(info),
		.keep_flows = keep_flows(info->attrs),
	};

	return rs_commit(info_rn(info), &c, info->extack);
}

/* @arg: non-NULL with the backend's counts, where it has them. */
static int fill_backend(struct sk_buff *skb, struct genl_info *info,
			const void *arg)
{
	const struct rs_backend *b = info_backend(info);

	return rs_put_service(skb, info_rn(info), info_service(info),
			      RS_SERVICE_ID) ?:
	       rs_put_backend(skb, b, true, arg && b->counted ? &b->conns : NULL);
}

int ringsteer_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	static const bool with_conns = true;
	struct rs_net *rn = info_rn(info);
	int err;

	if (!rs_nl_want_conns(info->attrs))
		return rs_reply(info, fill_backend, NULL);
	/* The mutex may have been dropped: what the request names, again. */
	err = rs_conns_count(rn, info_service(info), info_backend(info)) ?:
	      resolve(rn, &rs_cmds[RINGSTEER_CMD_BACKEND_GET], info);
	if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory counting connections");
	return err ?: rs_reply(info, fill_backend, &with_conns);
}

/* The client's side of a LOOKUP, in the form the hook reads from conntrack. */
static int parse_flow(struct genl_info *info, const struct rs_service *svc,
		      struct rs_flow *flow)
{
	struct nlattr *tb[RINGSTEER_FLOW_A_MAX + 1];
	size_t len = rs_addr_len(svc->family);
	int err;

	err = parse_nest(info->attrs, RINGSTEER_A_FLOW, tb, RINGSTEER_FLOW_A_MAX,
			 ringsteer_flow_nl_policy,
			 info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[RINGSTEER_A_FLOW], tb,
			      RINGSTEER_FLOW_A_ADDR) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[RINGSTEER_A_FLOW], tb,
			      RINGSTEER_FLOW_A_PORT))
		return -EINVAL;
	if (nla_len(tb[RINGSTEER_FLOW_A_ADDR]) != len) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_FLOW_A_ADDR],
				    "client address family does not match the service");
		return -EINVAL;
	}
	memset(flow, 0, sizeof(*flow));
	flow->family = svc->family;
	flow->proto = svc->proto;
	nla_memcpy(flow->saddr, tb[RINGSTEER_FLOW_A_ADDR], len);
	memcpy(flow->daddr, &svc->vip, len);
	flow->sport = nla_get_be16(tb[RINGSTEER_FLOW_A_PORT]);
	flow->dport = svc->port;
	if (!flow->sport) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_FLOW_A_PORT],
				    "port 0 is not allowed");
		return -EINVAL;
	}
	return 0;
}

struct lookup_reply {
	const struct rs_backend *b;
	u64 pos;
};

static int fill_lookup(struct sk_buff *skb, struct genl_info *info,
		       const void *arg)
{
	const struct lookup_reply *r = arg;

	if (rs_put_service(skb, info_rn(info), info_service(info), RS_SERVICE_ID) ||
	    nla_put_u64_64bit(skb, RINGSTEER_A_POSITION, r->pos, RINGSTEER_A_PAD))
		return -EMSGSIZE;
	return rs_put_backend(skb, r->b, false, NULL);
}

int ringsteer_nl_lookup_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_service *svc = info_service(info);
	struct rs_net *rn = info_rn(info);
	struct lookup_reply r;
	struct rs_flow flow;
	int err;

	err = parse_flow(info, svc, &flow);
	if (err)
		return err;
	r.b = rs_steer_pick(rs_steer_locked(svc, &rn->lock), &flow, &r.pos);
	if (!r.b) {
		NL_SET_ERR_MSG_MOD(info->extack, "no active backend in this service");
		return -ENOENT;
	}
	return rs_reply(info, fill_lookup, &r);
}

int ringsteer_nl_key_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = { .cmd = RINGSTEER_CMD_KEY_SET };

	if (GENL_REQ_ATTR_CHECK(info, RINGSTEER_A_KEY))
		return -EINVAL;
	c.key = nla_data(info->attrs[RINGSTEER_A_KEY]);
	return rs_commit(info_rn(info), &c, info->extack);
}

static int fill_key(struct sk_buff *skb, struct genl_info *info,
		    const void *arg)
{
	struct rs_net *rn = info_rn(info);

	return nla_put(skb, RINGSTEER_A_KEY, sizeof(rn->key), rn->key);
}

int ringsteer_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rs_reply(info, fill_key, NULL);
}

static int fill_net(struct sk_buff *skb, struct genl_info *info,
		    const void *arg)
{
	struct rs_net *rn = info_rn(info);
	struct nlattr *nest = nla_nest_start(skb, RINGSTEER_A_NET);

	if (!nest ||
	    nla_put_u32(skb, RINGSTEER_NET_A_SERVICES, rn->services.count) ||
	    nla_put_u64_64bit(skb, RINGSTEER_NET_A_POINTS, rn->services.npoints,
			      RINGSTEER_NET_A_PAD) ||
	    nla_put_u64_64bit(skb, RINGSTEER_NET_A_POINTS_MAX,
			      rs_net_points_max(), RINGSTEER_NET_A_PAD) ||
	    nla_put_u8(skb, RINGSTEER_NET_A_HOOKS, rn->hooks.registered) ||
	    nla_put_u32(skb, RINGSTEER_NET_A_KEPT, rs_net_kept(rn)) ||
	    nla_put_u32(skb, RINGSTEER_NET_A_GENERATION, rn->generation) ||
	    nla_put_u32(skb, RINGSTEER_NET_A_BACKENDS, rs_net_backends(rn)) ||
	    nla_put_u32(skb, RINGSTEER_NET_A_BACKENDS_MAX, rs_net_backends_max()))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int ringsteer_nl_net_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rs_reply(info, fill_net, NULL);
}

int ringsteer_nl_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_FLUSH,
		.keep_flows = keep_flows(info->attrs),
	};

	return rs_commit(info_rn(info), &c, info->extack);
}

/*
 * parallel_ops: requests do not take the global genl_mutex (which would
 * block every other family host-wide while a key change rebuilds rings);
 * each namespace's mutex serializes its own changes. The ops come from
 * netlink-gen.c (netlink_ops.c), pre_doit and post_doit with them.
 */
struct genl_family rs_genl_family __ro_after_init = {
	.name = RINGSTEER_GENL_NAME,
	.version = RINGSTEER_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.pre_doit = rs_nl_pre_doit,
	.post_doit = rs_nl_post_doit,
	.mcgrps = rs_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rs_mcgrps),
	/* Strict checks (header, flags, attributes) for every command. */
	.resv_start_op = 0,
};

int __init rs_genl_init(void)
{
	int err;

	err = rs_genl_ops_init(&rs_genl_family);
	if (err)
		return err;
	return genl_register_family(&rs_genl_family);
}

void rs_genl_uninit(void)
{
	genl_unregister_family(&rs_genl_family);
}
