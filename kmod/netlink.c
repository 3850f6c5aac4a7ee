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
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "uapi/ringsteer.h"
#include "commit.h"
#include "conf.h"
#include "ct_count.h"
#include "netlink.h"
#include "family.h"
#include "flowtab.h"
#include "generated/netlink-gen.h"
#include "nlmsg.h"

/*
 * What a VIP or backend address may not be: one whose traffic never leaves
 * the host or reaches no single host, or the IPv4-mapped form of an
 * address that has a family of its own (the spec's family doc).
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

/* Where a nest keeps the endpoint: service and backend nests alike. */
struct endpoint_attrs {
	int family, addr, port;
};

static const struct endpoint_attrs service_ep_attrs = {
	RINGSTEER_SERVICE_A_FAMILY, RINGSTEER_SERVICE_A_ADDR, RINGSTEER_SERVICE_A_PORT,
};

static const struct endpoint_attrs backend_ep_attrs = {
	RINGSTEER_BACKEND_A_FAMILY, RINGSTEER_BACKEND_A_ADDR, RINGSTEER_BACKEND_A_PORT,
};

/* Family, address and port of a service or backend nest. */
static int parse_endpoint(struct nlattr *nest, struct nlattr **tb,
			  const struct endpoint_attrs *at, struct rs_endpoint *ep,
			  struct netlink_ext_ack *extack)
{
	u16 family;

	if (NL_REQ_ATTR_CHECK(extack, nest, tb, at->family) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, at->addr) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, at->port))
		return -EINVAL;

	memset(ep, 0, sizeof(*ep));
	family = nla_get_u16(tb[at->family]);
	if (family != AF_INET && family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[at->family],
				    "address family must be AF_INET or AF_INET6");
		return -EAFNOSUPPORT;
	}
	ep->family = family;
	if (nla_len(tb[at->addr]) != rs_addr_len(family)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[at->addr],
				    "address length does not match the address family");
		return -EINVAL;
	}
	nla_memcpy(&ep->addr, tb[at->addr], sizeof(ep->addr));
	if (check_addr(family, &ep->addr, tb[at->addr], extack))
		return -EINVAL;
	ep->port = nla_get_be16(tb[at->port]);
	if (!ep->port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[at->port], "port 0 is not allowed");
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

/*
 * Split the nest @attr, which is required, into @tb. genetlink validated
 * it already against the command's own subset of the nest (netlink-gen.c),
 * so the nest's full policy only serves to find the attributes.
 */
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

static int parse_service(struct nlattr **attrs, struct rs_request *req,
			 struct netlink_ext_ack *extack)
{
	struct nlattr **tb = req->service_tb;
	int err;

	err = parse_nest(attrs, RINGSTEER_A_SERVICE, tb, RINGSTEER_SERVICE_A_MAX,
			 ringsteer_service_nl_policy, extack) ?:
	      parse_endpoint(attrs[RINGSTEER_A_SERVICE], tb, &service_ep_attrs,
			     &req->service_ep, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attrs[RINGSTEER_A_SERVICE], tb,
			      RINGSTEER_SERVICE_A_PROTO))
		return -EINVAL;
	req->service_ep.proto = nla_get_u8(tb[RINGSTEER_SERVICE_A_PROTO]);
	if (req->service_ep.proto != IPPROTO_TCP &&
	    req->service_ep.proto != IPPROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_SERVICE_A_PROTO],
				    "protocol must be TCP or UDP");
		return -EPROTONOSUPPORT;
	}
	return 0;
}

static int parse_backend(struct nlattr **attrs, struct rs_request *req,
			 struct netlink_ext_ack *extack)
{
	struct nlattr **tb = req->backend_tb;
	int err;

	err = parse_nest(attrs, RINGSTEER_A_BACKEND, tb, RINGSTEER_BACKEND_A_MAX,
			 ringsteer_backend_nl_policy, extack) ?:
	      parse_endpoint(attrs[RINGSTEER_A_BACKEND], tb, &backend_ep_attrs,
			     &req->backend_ep, extack);
	if (err)
		return err;
	if (req->backend_ep.family != req->service_ep.family) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_BACKEND_A_FAMILY],
				    "backend address family does not match the service");
		return -EINVAL;
	}
	/* DNAT to itself: the entries would not even be marked IPS_DST_NAT. */
	if (req->backend_ep.port == req->service_ep.port &&
	    rs_addr_equal(req->backend_ep.family, &req->backend_ep.addr,
			  &req->service_ep.addr)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_BACKEND],
				    "backend is the service's own VIP and port");
		return -EINVAL;
	}
	return 0;
}

/*
 * What the request names beyond its shape, which the spec gives (each
 * command's attribute subset): whether its service and backend must exist
 * already, and the flags it gives a meaning to. SERVICE_NEW and
 * BACKEND_NEW name a new one themselves.
 */
struct rs_cmd {
	bool service;		/* takes a service nest */
	bool backend;		/* takes a backend nest */
	bool resolve_service;
	bool resolve_backend;
	u32 flags;		/* RINGSTEER_F_* allowed */
	u32 admin_flags;	/* those of them that need CAP_NET_ADMIN */
};

static const struct rs_cmd rs_cmds[RINGSTEER_CMD_MAX + 1] = {
	[RINGSTEER_CMD_SERVICE_NEW] = { true, false, false, false, 0 },
	[RINGSTEER_CMD_SERVICE_SET] = { true, false, true, false, 0 },
	[RINGSTEER_CMD_SERVICE_DEL] = { true, false, true, false,
					RINGSTEER_F_KEEP_FLOWS },
	[RINGSTEER_CMD_SERVICE_GET] = { true, false, true, false, 0 },
	[RINGSTEER_CMD_BACKEND_NEW] = { true, true, true, false, 0 },
	[RINGSTEER_CMD_BACKEND_SET] = { true, true, true, true, RINGSTEER_F_FORCE },
	[RINGSTEER_CMD_BACKEND_DEL] = { true, true, true, true,
					RINGSTEER_F_KEEP_FLOWS },
	[RINGSTEER_CMD_BACKEND_GET] = { true, true, true, true, RINGSTEER_F_CONNS,
					RINGSTEER_F_CONNS },
	[RINGSTEER_CMD_LOOKUP] = { true, false, true, false, 0 },
	[RINGSTEER_CMD_FLUSH] = { false, false, false, false, RINGSTEER_F_KEEP_FLOWS },
};

static struct rs_net *info_rn(struct genl_info *info)
{
	return rs_net(genl_info_net(info));
}

static struct rs_request *info_req(struct genl_info *info)
{
	return info->user_ptr[0];
}

/*
 * The generated policy admits FLAGS only to the commands that take it, and
 * genetlink sizes info->attrs to the command's own last attribute: attrs
 * may only be read here for those commands.
 */
static int parse_flags(const struct rs_cmd *cmd, struct nlattr **attrs,
		       struct rs_request *req, struct netlink_ext_ack *extack)
{
	struct nlattr *flags = cmd->flags ? attrs[RINGSTEER_A_FLAGS] : NULL;

	req->flags = flags ? nla_get_u32(flags) : 0;
	if (req->flags & ~cmd->flags) {
		NL_SET_ERR_MSG_ATTR(extack, flags, "flag not valid for this command");
		return -EINVAL;
	}
	return 0;
}

static struct rs_service *lookup_service(struct rs_net *rn, struct nlattr **attrs,
					 const struct rs_request *req,
					 struct netlink_ext_ack *extack)
{
	struct rs_service *svc = rs_service_find(&rn->services, &req->service_ep);

	if (!svc)
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_SERVICE], "no such service");
	return svc;
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

static struct rs_backend *lookup_backend(struct nlattr **attrs,
					 const struct rs_request *req,
					 struct netlink_ext_ack *extack)
{
	struct rs_backend *b = rs_backend_find(req->svc, &req->backend_ep);

	if (!b)
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_BACKEND],
				    "no such backend in this service");
	return b;
}

/*
 * The request's nests, each once, and the objects they name; under the
 * mutex. The order is the errors' precedence: a request that names a
 * service that does not exist is ENOENT whatever its backend nest says.
 */
static int resolve(struct rs_net *rn, const struct rs_cmd *cmd,
		   const struct sk_buff *skb, struct nlattr **attrs,
		   struct rs_request *req, struct netlink_ext_ack *extack)
{
	int err;

	err = parse_flags(cmd, attrs, req, extack) ?:
	      check_perm(cmd, skb, rn->net, attrs, extack);
	if (!err && cmd->service)
		err = parse_service(attrs, req, extack);
	if (err)
		return err;
	if (cmd->resolve_service) {
		req->svc = lookup_service(rn, attrs, req, extack);
		if (!req->svc)
			return -ENOENT;
	}
	if (cmd->backend) {
		err = parse_backend(attrs, req, extack);
		if (err)
			return err;
	}
	if (cmd->resolve_backend) {
		req->backend = lookup_backend(attrs, req, extack);
		if (!req->backend)
			return -ENOENT;
	}
	return 0;
}

int rs_nl_dump_request(struct rs_net *rn, const struct sk_buff *skb, u8 cmd,
		       struct nlattr **attrs, struct rs_request *req,
		       struct netlink_ext_ack *extack)
{
	struct rs_cmd dump = rs_cmds[cmd];

	/* A dump names no backend: it lists them. */
	dump.backend = false;
	dump.resolve_backend = false;
	memset(req, 0, sizeof(*req));
	return resolve(rn, &dump, skb, attrs, req, extack);
}

/*
 * Every doit runs between these two: pre_doit takes the namespace mutex
 * and parses the request into a struct rs_request (info->user_ptr[0]),
 * with the objects it names; post_doit releases both. The namespace
 * itself is genl_info_net(info), cheap to find again. BACKEND_GET with
 * counts drops the mutex while it walks the conntrack table (ct_count.h) and
 * resolves the request again once it has it back.
 */
static int pre_doit(const struct rs_genl_op *ops, struct sk_buff *skb,
		    struct genl_info *info)
{
	const struct rs_cmd *cmd = &rs_cmds[info->genlhdr->cmd];
	struct rs_net *rn = info_rn(info);
	struct rs_request *req;
	int err;

	req = kzalloc(sizeof(*req), GFP_KERNEL_ACCOUNT);
	if (!req)
		return -ENOMEM;
	mutex_lock(&rn->lock);
	err = resolve(rn, cmd, skb, info->attrs, req, info->extack);
	if (err) {
		mutex_unlock(&rn->lock);
		kfree(req);
		return err;
	}
	info->user_ptr[0] = req;
	return 0;
}

/*
 * No request waits here for anything but the namespace's mutex: genl_rcv()
 * holds genetlink's cb_lock around the doit, and a family registering
 * meanwhile (a module autoloaded by any user's CTRL_CMD_GETFAMILY) would
 * make every generic netlink request of the host wait too. A delete's
 * conntrack walk is waited for by the requester, if it wants, on the
 * walks group (commit_walk()).
 */
static void post_doit(const struct rs_genl_op *ops, struct sk_buff *skb,
		      struct genl_info *info)
{
	mutex_unlock(&info_rn(info)->lock);
	kfree(info_req(info));
}

/*
 * A change that may delete conntrack entries: committed, and answered
 * with the walk it queued, if any (spec: walk). The reply is allocated
 * first, as nothing may fail once the change is made.
 */
static int commit_walk(struct genl_info *info, struct rs_change *c)
{
	struct sk_buff *msg;
	u64 walk = 0;
	void *hdr;
	int err;

	msg = genlmsg_new(nla_total_size_64bit(sizeof(walk)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rs_genl_family, 0, info->genlhdr->cmd);
	c->walk = &walk;
	err = hdr ? rs_commit(info_rn(info), c, info->extack) : -EMSGSIZE;
	if (err || !walk ||
	    WARN_ON_ONCE(nla_put_u64_64bit(msg, RINGSTEER_A_WALK, walk,
					   RINGSTEER_A_PAD))) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	/*
	 * The change is made whatever becomes of the reply: a requester
	 * whose receive buffer is full gets the ack alone.
	 */
	genlmsg_reply(msg, info);
	return 0;
}

static bool keep_flows(const struct rs_request *req)
{
	return req->flags & RINGSTEER_F_KEEP_FLOWS;
}

int ringsteer_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_NEW,
		.ep = req->service_ep,
	};

	return rs_service_conf_parse(req->service_tb, info->attrs[RINGSTEER_A_SERVICE],
				     NULL, &c.conf, info->extack) ?:
	       rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_SET,
		.svc = req->svc,
		.kept_rings = req->service_tb[RINGSTEER_SERVICE_A_KEPT_RINGS],
		.kept = req->service_tb[RINGSTEER_SERVICE_A_KEPT],
	};

	return rs_service_conf_parse(req->service_tb, info->attrs[RINGSTEER_A_SERVICE],
				     req->svc, &c.conf, info->extack) ?:
	       rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_SERVICE_DEL,
		.svc = req->svc,
		.keep_flows = keep_flows(req),
	};

	return commit_walk(info, &c);
}

static int fill_service(struct sk_buff *skb, struct genl_info *info,
			const void *arg)
{
	int err = rs_put_service(skb, info_rn(info), info_req(info)->svc,
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
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_NEW,
		.svc = req->svc,
		.ep = req->backend_ep,
		.slots = req->backend_tb[RINGSTEER_BACKEND_A_SLOTS],
	};

	/* The packet reaches the backend as the client sent it. */
	if (rs_tunnel(&req->svc->conf.fwd) && req->backend_ep.port != req->svc->port) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    req->backend_tb[RINGSTEER_BACKEND_A_PORT],
				    "forward tunnel cannot translate ports: a backend's port must be the VIP's");
		return -EINVAL;
	}
	return rs_backend_conf_parse(req->backend_tb, info->attrs[RINGSTEER_A_BACKEND],
				     NULL, &c.backend_conf, info->extack) ?:
	       rs_commit(info_rn(info), &c, info->extack);
}

int ringsteer_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_SET,
		.svc = req->svc,
		.backend = req->backend,
		.slots = req->backend_tb[RINGSTEER_BACKEND_A_SLOTS],
		.force = req->flags & RINGSTEER_F_FORCE,
	};

	return rs_backend_conf_parse(req->backend_tb, info->attrs[RINGSTEER_A_BACKEND],
				     req->backend, &c.backend_conf, info->extack) ?:
	       commit_walk(info, &c);
}

int ringsteer_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_request *req = info_req(info);
	struct rs_change c = {
		.cmd = RINGSTEER_CMD_BACKEND_DEL,
		.svc = req->svc,
		.backend = req->backend,
		.keep_flows = keep_flows(req),
	};

	return commit_walk(info, &c);
}

/* @arg: non-NULL with the backend's counts, where it has them. */
static int fill_backend(struct sk_buff *skb, struct genl_info *info,
			const void *arg)
{
	struct rs_request *req = info_req(info);
	const struct rs_backend *b = req->backend;

	return rs_put_service(skb, info_rn(info), req->svc, RS_SERVICE_ID) ?:
	       rs_put_backend(skb, b, true, arg && b->counted ? &b->conns : NULL);
}

int ringsteer_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	static const bool with_conns = true;
	struct rs_request *req = info_req(info);
	struct rs_net *rn = info_rn(info);
	int err;

	if (!(req->flags & RINGSTEER_F_CONNS))
		return rs_reply(info, fill_backend, NULL);
	/* A count of 0 would read as "drained" while the flow table still pins flows. */
	if (rs_tunnel(&req->svc->conf.fwd)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "forward tunnel keeps no conntrack entries: its connections are not counted");
		return -EOPNOTSUPP;
	}
	/* The mutex may have been dropped: what the request names, again. */
	err = rs_conns_count(&rn->conns, req->svc, req->backend);
	if (!err) {
		memset(req, 0, sizeof(*req));
		err = resolve(rn, &rs_cmds[RINGSTEER_CMD_BACKEND_GET], skb,
			      info->attrs, req, info->extack);
	}
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
	union nf_inet_addr saddr = {};
	__be16 sport;
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
	sport = nla_get_be16(tb[RINGSTEER_FLOW_A_PORT]);
	if (!sport) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_FLOW_A_PORT],
				    "port 0 is not allowed");
		return -EINVAL;
	}
	nla_memcpy(&saddr, tb[RINGSTEER_FLOW_A_ADDR], sizeof(saddr));
	rs_flow_init(flow, svc->family, svc->proto, &saddr, sport, &svc->vip,
		     svc->port);
	return 0;
}

struct lookup_reply {
	const struct rs_backend *b;
	const struct rs_steer *steer;
	u64 pos;
};

/* A chained service's hops, as the tunnel hook computes them on a miss. */
static int put_hops(struct sk_buff *skb, const struct lookup_reply *r)
{
	const struct rs_ring *rings[RS_CHAIN_MAX];
	u8 hops[RS_CHAIN_HOPS_ROOM];
	u8 i, n;

	if (r->steer->fwd.chain < 2)
		return 0;
	rings[0] = r->steer->ring;
	for (i = 0; i < r->steer->nkept; i++)
		rings[i + 1] = r->steer->kept[i];
	n = rs_chain_hops(rings, r->steer->nkept + 1, r->pos, &r->b->member, hops);
	return nla_put(skb, RINGSTEER_A_HOPS,
		       n * rs_addr_len(r->b->member.family), hops);
}

static int fill_lookup(struct sk_buff *skb, struct genl_info *info,
		       const void *arg)
{
	const struct lookup_reply *r = arg;

	if (rs_put_service(skb, info_rn(info), info_req(info)->svc, RS_SERVICE_ID) ||
	    nla_put_u64_64bit(skb, RINGSTEER_A_POSITION, r->pos, RINGSTEER_A_PAD) ||
	    put_hops(skb, r))
		return -EMSGSIZE;
	return rs_put_backend(skb, r->b, false, NULL);
}

int ringsteer_nl_lookup_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_service *svc = info_req(info)->svc;
	struct rs_net *rn = info_rn(info);
	struct lookup_reply r;
	struct rs_flow flow;
	int err;

	err = parse_flow(info, svc, &flow);
	if (err)
		return err;
	r.steer = rs_steer_locked(svc, &rn->lock);
	r.b = rs_steer_pick(r.steer, &flow, &r.pos);
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
	u32 ft_entries;

	rcu_read_lock();
	ft_entries = rs_ft_entries(rcu_dereference(rn->services.ft));
	rcu_read_unlock();
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
	    nla_put_u32(skb, RINGSTEER_NET_A_BACKENDS_MAX, rs_net_backends_max()) ||
	    nla_put_u8(skb, RINGSTEER_NET_A_TUNNEL_HOOKS, rn->tun_hooks.registered) ||
	    (ft_entries &&
	     nla_put_u32(skb, RINGSTEER_NET_A_FLOW_TABLE_ENTRIES, ft_entries)) ||
	    nla_put_u64_64bit(skb, RINGSTEER_NET_A_UNSERVED_DROPS,
			      rs_counter_sum(rn->services.unserved), RINGSTEER_NET_A_PAD) ||
	    nla_put_u64_64bit(skb, RINGSTEER_NET_A_WALK_DONE,
			      rs_sweep_walked(&rn->sweep), RINGSTEER_NET_A_PAD))
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
		.keep_flows = keep_flows(info_req(info)),
	};

	return commit_walk(info, &c);
}

int __init rs_genl_init(void)
{
	return rs_family_register(pre_doit, post_doit);
}

void rs_genl_uninit(void)
{
	rs_family_unregister();
}
