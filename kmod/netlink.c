// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "ringsteer": the control API used by ringctl.
 * uapi/ringsteer.yaml specifies every command and attribute; the policies
 * and the ops table generated from it (netlink-gen.c) reject what a command
 * does not take, and this file checks the rest and calls into service.c
 * under the namespace mutex.
 *
 * Every rejection sets an errno and an extended ack message, with the
 * offending attribute where there is one, before anything is changed.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "uapi/ringsteer.h"
#include "netlink.h"
#include "netlink-gen.h"
#include "nlmsg.h"
#include "service.h"

/*
 * The generated policies give a nest one policy for every command, so a nest
 * is parsed only up to the last attribute the command takes (a prefix of the
 * nest's attributes): those after it are rejected as unknown.
 */
#define RS_LAST_SERVICE_ID	RINGSTEER_SERVICE_A_PROTO
#define RS_LAST_SERVICE_CONF	RINGSTEER_SERVICE_A_HASH
#define RS_LAST_BACKEND_ID	RINGSTEER_BACKEND_A_PORT
#define RS_LAST_BACKEND_CONF	RINGSTEER_BACKEND_A_STATE

static bool addr_usable(u8 family, const union nf_inet_addr *a)
{
	if (family == AF_INET)
		return !ipv4_is_zeronet(a->ip) && !ipv4_is_multicast(a->ip) &&
		       !ipv4_is_lbcast(a->ip);
	return !ipv6_addr_any(&a->in6) && !ipv6_addr_is_multicast(&a->in6);
}

/*
 * Family, address and port of a service or backend nest; @attr_base is
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
	if (!addr_usable(family, &ep->addr)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_attr],
				    "address must be a unicast address");
		return -EINVAL;
	}
	ep->port = nla_get_be16(tb[port_attr]);
	if (!ep->port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[port_attr], "port 0 is not allowed");
		return -EINVAL;
	}
	return 0;
}

static int parse_service(struct nlattr **attrs, struct nlattr **tb, int last,
			 struct rs_endpoint *ep, struct netlink_ext_ack *extack)
{
	struct nlattr *nest = attrs[RINGSTEER_A_SERVICE];
	int err;

	if (!nest) {
		NL_SET_ERR_MSG_MOD(extack, "missing service (RINGSTEER_A_SERVICE)");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, last, nest, ringsteer_service_nl_policy, extack);
	if (err)
		return err;
	err = parse_endpoint(nest, tb, RINGSTEER_SERVICE_A_FAMILY, ep, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, RINGSTEER_SERVICE_A_PROTO))
		return -EINVAL;
	ep->proto = nla_get_u8(tb[RINGSTEER_SERVICE_A_PROTO]);
	if (ep->proto != IPPROTO_TCP && ep->proto != IPPROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_SERVICE_A_PROTO],
				    "protocol must be TCP or UDP");
		return -EPROTONOSUPPORT;
	}
	return 0;
}

/* The named service, which must exist. */
static struct rs_service *find_service(struct rs_net *rn, struct nlattr **attrs,
				       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	struct rs_service *svc;
	struct rs_endpoint ep;
	int err;

	err = parse_service(attrs, tb, RS_LAST_SERVICE_ID, &ep, extack);
	if (err)
		return ERR_PTR(err);
	svc = rs_service_get(rn, &ep);
	if (!svc) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[RINGSTEER_A_SERVICE], "no such service");
		return ERR_PTR(-ENOENT);
	}
	return svc;
}

static int parse_backend(struct nlattr **attrs, struct nlattr **tb, int last,
			 const struct rs_service *svc, struct rs_endpoint *ep,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *nest = attrs[RINGSTEER_A_BACKEND];
	int err;

	if (!nest) {
		NL_SET_ERR_MSG_MOD(extack, "missing backend (RINGSTEER_A_BACKEND)");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, last, nest, ringsteer_backend_nl_policy, extack);
	if (err)
		return err;
	err = parse_endpoint(nest, tb, RINGSTEER_BACKEND_A_FAMILY, ep, extack);
	if (err)
		return err;
	if (ep->family != svc->family) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_BACKEND_A_FAMILY],
				    "backend address family does not match the service");
		return -EINVAL;
	}
	return 0;
}

static bool keep_flows(struct nlattr **attrs)
{
	return attrs[RINGSTEER_A_FLAGS] &&
	       (nla_get_u32(attrs[RINGSTEER_A_FLAGS]) & RINGSTEER_F_KEEP_FLOWS);
}

static const struct genl_multicast_group rs_mcgrps[] = {
	{ .name = RINGSTEER_MCGRP_CONFIG },
};

static int parse_service_conf(struct nlattr **tb, struct rs_service_conf *conf)
{
	if (tb[RINGSTEER_SERVICE_A_VNODES])
		conf->vnodes = nla_get_u32(tb[RINGSTEER_SERVICE_A_VNODES]);
	if (tb[RINGSTEER_SERVICE_A_HASH])
		conf->hash = nla_get_u32(tb[RINGSTEER_SERVICE_A_HASH]);
	return tb[RINGSTEER_SERVICE_A_VNODES] || tb[RINGSTEER_SERVICE_A_HASH];
}

int ringsteer_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_service_conf conf = {
		.vnodes = RINGSTEER_DEFAULT_VNODES,
		.hash = RINGSTEER_HASH_FLOW,
	};
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_endpoint ep;
	int err;

	err = parse_service(info->attrs, tb, RS_LAST_SERVICE_CONF, &ep, info->extack);
	if (err)
		return err;
	parse_service_conf(tb, &conf);
	mutex_lock(&rn->lock);
	err = rs_service_add(rn, &ep, &conf, info->extack);
	if (!err)
		rs_notify(rn, RINGSTEER_CMD_SERVICE_NEW, rs_service_get(rn, &ep), NULL);
	mutex_unlock(&rn->lock);
	return err;
}

int ringsteer_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_service_conf conf;
	struct rs_service *svc;
	struct rs_endpoint ep;
	int err;

	err = parse_service(info->attrs, tb, RS_LAST_SERVICE_CONF, &ep, info->extack);
	if (err)
		return err;
	mutex_lock(&rn->lock);
	svc = rs_service_get(rn, &ep);
	if (!svc) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_SERVICE],
				    "no such service");
		err = -ENOENT;
		goto out;
	}
	conf.vnodes = svc->vnodes;
	conf.hash = svc->hash;
	if (!parse_service_conf(tb, &conf)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_SERVICE],
				    "nothing to change: give vnodes or hash");
		err = -EINVAL;
		goto out;
	}
	err = rs_service_change(rn, svc, &conf, info->extack);
	if (!err)
		rs_notify(rn, RINGSTEER_CMD_SERVICE_SET, svc, NULL);
out:
	mutex_unlock(&rn->lock);
	return err;
}

int ringsteer_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_service *svc;
	struct sk_buff *event;
	int err = 0;

	mutex_lock(&rn->lock);
	svc = find_service(rn, info->attrs, info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
	} else {
		event = rs_notify_build(rn, RINGSTEER_CMD_SERVICE_DEL, svc, NULL);
		rs_service_del(rn, svc, keep_flows(info->attrs));
		rs_notify_send(rn, event);
	}
	mutex_unlock(&rn->lock);
	return err;
}

struct service_reply {
	struct rs_net *rn;
	struct rs_service *svc;
};

static int fill_service(struct sk_buff *skb, void *arg)
{
	struct service_reply *r = arg;

	return rs_put_service(skb, r->rn, r->svc, RS_SERVICE_FULL);
}

int ringsteer_nl_service_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct service_reply r = { .rn = rs_net(genl_info_net(info)) };
	int err;

	mutex_lock(&r.rn->lock);
	r.svc = find_service(r.rn, info->attrs, info->extack);
	err = IS_ERR(r.svc) ? PTR_ERR(r.svc) : rs_reply(info, fill_service, &r);
	mutex_unlock(&r.rn->lock);
	return err;
}

/* Dump position, kept across the calls of one dump. */
struct dump_ctx {
	u32 index;
};

static struct dump_ctx *dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct dump_ctx) > sizeof(cb->ctx));
	return (struct dump_ctx *)cb->ctx;
}

static void *dump_put(struct sk_buff *skb, struct netlink_callback *cb,
		      struct rs_net *rn, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rs_genl_family, NLM_F_MULTI, cmd);
	if (hdr) {
		cb->seq = rn->generation;
		genl_dump_check_consistent(cb, hdr);
	}
	return hdr;
}

int ringsteer_nl_service_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct rs_net *rn = rs_net(sock_net(skb->sk));
	struct dump_ctx *ctx = dump_ctx(cb);
	struct rs_service *svc;
	u32 i = 0;
	int err = 0;
	void *hdr;

	mutex_lock(&rn->lock);
	list_for_each_entry(svc, &rn->services, node) {
		if (i++ < ctx->index)
			continue;
		hdr = dump_put(skb, cb, rn, RINGSTEER_CMD_SERVICE_GET);
		if (!hdr || rs_put_service(skb, rn, svc, RS_SERVICE_FULL)) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->index++;
	}
	mutex_unlock(&rn->lock);
	/* A full skb ends this part of the dump; the next call resumes. */
	return err && skb->len ? skb->len : err;
}

int ringsteer_nl_backend_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	struct rs_net *rn = rs_net(genl_info_net(info));
	u32 weight = 1, state = RINGSTEER_STATE_ACTIVE;
	struct rs_service *svc;
	struct rs_endpoint ep;
	int err;

	mutex_lock(&rn->lock);
	svc = find_service(rn, info->attrs, info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	err = parse_backend(info->attrs, tb, RS_LAST_BACKEND_CONF, svc, &ep,
			    info->extack);
	if (err)
		goto out;
	if (tb[RINGSTEER_BACKEND_A_WEIGHT])
		weight = nla_get_u32(tb[RINGSTEER_BACKEND_A_WEIGHT]);
	if (tb[RINGSTEER_BACKEND_A_STATE])
		state = nla_get_u32(tb[RINGSTEER_BACKEND_A_STATE]);
	err = rs_backend_add(rn, svc, &ep, weight, state, info->extack);
	if (!err)
		rs_notify(rn, RINGSTEER_CMD_BACKEND_NEW, svc, rs_backend_get(svc, &ep));
out:
	mutex_unlock(&rn->lock);
	return err;
}

/* Service and backend named by the request, both of which must exist. */
static int find_backend(struct rs_net *rn, struct genl_info *info,
			struct nlattr **tb, int last, struct rs_service **svc,
			struct rs_backend **b)
{
	struct rs_endpoint ep;
	int err;

	*svc = find_service(rn, info->attrs, info->extack);
	if (IS_ERR(*svc))
		return PTR_ERR(*svc);
	err = parse_backend(info->attrs, tb, last, *svc, &ep, info->extack);
	if (err)
		return err;
	*b = rs_backend_get(*svc, &ep);
	if (!*b) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_BACKEND],
				    "no such backend in this service");
		return -ENOENT;
	}
	return 0;
}

int ringsteer_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_service *svc;
	struct rs_backend *b;
	u32 weight, state;
	int err;

	mutex_lock(&rn->lock);
	err = find_backend(rn, info, tb, RS_LAST_BACKEND_CONF, &svc, &b);
	if (err)
		goto out;
	if (!tb[RINGSTEER_BACKEND_A_WEIGHT] && !tb[RINGSTEER_BACKEND_A_STATE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RINGSTEER_A_BACKEND],
				    "nothing to change: give weight or state");
		err = -EINVAL;
		goto out;
	}
	weight = tb[RINGSTEER_BACKEND_A_WEIGHT] ?
		 nla_get_u32(tb[RINGSTEER_BACKEND_A_WEIGHT]) : b->id.weight;
	state = tb[RINGSTEER_BACKEND_A_STATE] ?
		nla_get_u32(tb[RINGSTEER_BACKEND_A_STATE]) : b->state;
	err = rs_backend_change(rn, svc, b, weight, state, info->extack);
	if (!err)
		rs_notify(rn, RINGSTEER_CMD_BACKEND_SET, svc, b);
out:
	mutex_unlock(&rn->lock);
	return err;
}

int ringsteer_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	struct rs_net *rn = rs_net(genl_info_net(info));
	struct rs_service *svc;
	struct sk_buff *event;
	struct rs_backend *b;
	int err;

	mutex_lock(&rn->lock);
	err = find_backend(rn, info, tb, RS_LAST_BACKEND_ID, &svc, &b);
	if (err)
		goto out;
	event = rs_notify_build(rn, RINGSTEER_CMD_BACKEND_DEL, svc, b);
	err = rs_backend_del(rn, svc, b, keep_flows(info->attrs), info->extack);
	if (err)
		nlmsg_free(event);
	else
		rs_notify_send(rn, event);
out:
	mutex_unlock(&rn->lock);
	return err;
}

struct backend_reply {
	struct rs_net *rn;
	struct rs_service *svc;
	struct rs_backend *b;
};

static int fill_backend(struct sk_buff *skb, void *arg)
{
	struct backend_reply *r = arg;

	return rs_put_service(skb, r->rn, r->svc, RS_SERVICE_ID) ?:
	       rs_put_backend(skb, r->b, true);
}

int ringsteer_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct backend_reply r = { .rn = rs_net(genl_info_net(info)) };
	struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	int err;

	mutex_lock(&r.rn->lock);
	err = find_backend(r.rn, info, tb, RS_LAST_BACKEND_ID, &r.svc, &r.b);
	if (!err)
		err = rs_reply(info, fill_backend, &r);
	mutex_unlock(&r.rn->lock);
	return err;
}

int ringsteer_nl_backend_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct nlattr **attrs = rs_dump_attrs(cb);
	struct rs_net *rn = rs_net(sock_net(skb->sk));
	struct dump_ctx *ctx = dump_ctx(cb);
	struct rs_service *svc;
	struct rs_backend *b;
	u32 i = 0;
	int err;
	void *hdr;

	mutex_lock(&rn->lock);
	svc = find_service(rn, attrs, cb->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	list_for_each_entry(b, &svc->backends, node) {
		if (i++ < ctx->index)
			continue;
		hdr = dump_put(skb, cb, rn, RINGSTEER_CMD_BACKEND_GET);
		if (!hdr || rs_put_service(skb, rn, svc, RS_SERVICE_ID) ||
		    rs_put_backend(skb, b, true)) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->index++;
	}
out:
	mutex_unlock(&rn->lock);
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

struct lookup_reply {
	struct rs_net *rn;
	struct rs_service *svc;
	const struct rs_backend *b;
	u64 pos;
};

static int fill_lookup(struct sk_buff *skb, void *arg)
{
	struct lookup_reply *r = arg;

	if (rs_put_service(skb, r->rn, r->svc, RS_SERVICE_ID) ||
	    nla_put_u64_64bit(skb, RINGSTEER_A_POSITION, r->pos, RINGSTEER_A_PAD))
		return -EMSGSIZE;
	return rs_put_backend(skb, r->b, false);
}

int ringsteer_nl_lookup_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct lookup_reply r = { .rn = rs_net(genl_info_net(info)) };
	struct nlattr *tb[RINGSTEER_FLOW_A_MAX + 1];
	struct nlattr *nest = info->attrs[RINGSTEER_A_FLOW];
	struct rs_flow flow = {};
	size_t len;
	int err;

	if (!nest) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing flow (RINGSTEER_A_FLOW)");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, RINGSTEER_FLOW_A_MAX, nest,
			       ringsteer_flow_nl_policy, info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, RINGSTEER_FLOW_A_ADDR) ||
	    NL_REQ_ATTR_CHECK(info->extack, nest, tb, RINGSTEER_FLOW_A_PORT))
		return -EINVAL;

	mutex_lock(&r.rn->lock);
	r.svc = find_service(r.rn, info->attrs, info->extack);
	if (IS_ERR(r.svc)) {
		err = PTR_ERR(r.svc);
		goto out;
	}
	len = rs_addr_len(r.svc->family);
	if (nla_len(tb[RINGSTEER_FLOW_A_ADDR]) != len) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_FLOW_A_ADDR],
				    "client address family does not match the service");
		err = -EINVAL;
		goto out;
	}
	/* The same fields the hook takes from the conntrack tuple. */
	flow.family = r.svc->family;
	flow.proto = r.svc->proto;
	nla_memcpy(flow.saddr, tb[RINGSTEER_FLOW_A_ADDR], len);
	memcpy(flow.daddr, &r.svc->vip, len);
	flow.sport = nla_get_be16(tb[RINGSTEER_FLOW_A_PORT]);
	if (!flow.sport) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RINGSTEER_FLOW_A_PORT],
				    "port 0 is not allowed");
		err = -EINVAL;
		goto out;
	}
	flow.dport = r.svc->port;
	r.b = rs_steer_pick(rs_steer_locked(r.rn, r.svc), &flow, &r.pos);
	if (!r.b) {
		NL_SET_ERR_MSG_MOD(info->extack, "no active backend in this service");
		err = -ENOENT;
		goto out;
	}
	err = rs_reply(info, fill_lookup, &r);
out:
	mutex_unlock(&r.rn->lock);
	return err;
}

int ringsteer_nl_key_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));
	int err;

	if (GENL_REQ_ATTR_CHECK(info, RINGSTEER_A_KEY))
		return -EINVAL;
	mutex_lock(&rn->lock);
	err = rs_key_set(rn, nla_data(info->attrs[RINGSTEER_A_KEY]), info->extack);
	if (!err)
		rs_notify(rn, RINGSTEER_CMD_KEY_SET, NULL, NULL);
	mutex_unlock(&rn->lock);
	return err;
}

static int fill_key(struct sk_buff *skb, void *arg)
{
	struct rs_net *rn = arg;

	return nla_put(skb, RINGSTEER_A_KEY, sizeof(rn->key), rn->key);
}

int ringsteer_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));
	int err;

	mutex_lock(&rn->lock);
	err = rs_reply(info, fill_key, rn);
	mutex_unlock(&rn->lock);
	return err;
}

int ringsteer_nl_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rs_net *rn = rs_net(genl_info_net(info));

	mutex_lock(&rn->lock);
	rs_service_flush(rn, keep_flows(info->attrs));
	rs_notify(rn, RINGSTEER_CMD_FLUSH, NULL, NULL);
	mutex_unlock(&rn->lock);
	return 0;
}

/* The ops are generated (netlink-gen.c); netlink_ops.c fills them in. */
struct genl_family rs_genl_family __ro_after_init = {
	.name = RINGSTEER_GENL_NAME,
	.version = RINGSTEER_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
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
