// SPDX-License-Identifier: GPL-2.0
/*
 * Settings of services and backends, from the attributes of a request to
 * the objects and back (conf.h). The generated policies (netlink-gen.c)
 * have checked each attribute's range and which command takes it: what is
 * left here is how settings depend on each other.
 */

#include <linux/log2.h>

#include "uapi/ringsteer.h"
#include "conf.h"
#include "family.h"
#include "generated/netlink-gen.h"

static const struct rs_service_conf service_defaults = {
	.vnodes = RINGSTEER_DEFAULT_VNODES,
	.hash = RINGSTEER_HASH_FLOW,
	.on_down = RINGSTEER_ON_DOWN_KEEP,
	.fwd.mode = RINGSTEER_FORWARD_NAT,
	.fwd.encap = RINGSTEER_ENCAP_IPIP,
	.fwd.encap_port = htons(RINGSTEER_DEFAULT_GUE_PORT),
	.placement = RINGSTEER_PLACEMENT_RING,
	.capacity = RINGSTEER_DEFAULT_CAPACITY,
	.fwd.chain = 1,
};

static const struct rs_backend_conf backend_defaults = {
	.weight = 1,
	.state = RINGSTEER_STATE_ACTIVE,
	.health = RINGSTEER_HEALTH_UP,
	.on_down = RINGSTEER_BACKEND_ON_DOWN_SERVICE,
};

/*
 * Whether @tb, a nest parsed with the command's own subset of its set,
 * holds an attribute beyond @id, the subset that names the object
 * (service-id, backend-id): a setting to change. The spec's subsets are
 * the list, so a new setting needs no edit here.
 */
static bool has_setting(struct nlattr *const *tb, int maxtype,
			const struct nla_policy *id, int id_max)
{
	int i;

	for (i = 1; i <= maxtype; i++)
		if (tb[i] && (i > id_max || id[i].type == NLA_UNSPEC))
			return true;
	return false;
}

/*
 * FORWARD, ENCAP and ENCAP_PORT over @conf: encap only with forward
 * tunnel, a port only with encap gue, and forward only as it is for an
 * existing service @svc.
 */
static int parse_forward(struct nlattr *const *tb, const struct rs_service *svc,
			 struct rs_service_conf *conf,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *mode = tb[RINGSTEER_SERVICE_A_FORWARD];
	struct nlattr *encap = tb[RINGSTEER_SERVICE_A_ENCAP];
	struct nlattr *port = tb[RINGSTEER_SERVICE_A_ENCAP_PORT];

	if (mode)
		conf->fwd.mode = nla_get_u32(mode);
	if (svc && conf->fwd.mode != svc->conf.fwd.mode) {
		NL_SET_ERR_MSG_ATTR(extack, mode,
				    "forward mode is fixed once the service exists: delete and add it");
		return -EINVAL;
	}
	if ((encap || port) && !rs_tunnel(&conf->fwd)) {
		NL_SET_ERR_MSG_ATTR(extack, encap ?: port,
				    "encap applies to forward tunnel only");
		return -EINVAL;
	}
	if (encap)
		conf->fwd.encap = nla_get_u32(encap);
	if (port && conf->fwd.encap != RINGSTEER_ENCAP_GUE) {
		NL_SET_ERR_MSG_ATTR(extack, port, "encap port applies to encap gue only");
		return -EINVAL;
	}
	if (port && !nla_get_be16(port)) {
		NL_SET_ERR_MSG_ATTR(extack, port, "port 0 is not allowed");
		return -EINVAL;
	}
	if (port)
		conf->fwd.encap_port = nla_get_be16(port);
	return 0;
}

/*
 * PLACEMENT and CAPACITY over @conf: placement only as it is for an
 * existing service @svc (its backends' slots, or their absence, were
 * checked against it), capacity only with placement slots, and vnodes
 * not with it: a slots service's ring has a point a slot, whatever vnodes
 * says, so a value given would be taken and ignored. The policy
 * checked capacity's minimum; a slot number is the probe's top bits
 * (uapi "Slot placement"), so capacity is also a power of two.
 */
static int parse_placement(struct nlattr *const *tb, const struct rs_service *svc,
			   struct rs_service_conf *conf,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *placement = tb[RINGSTEER_SERVICE_A_PLACEMENT];
	struct nlattr *cap = tb[RINGSTEER_SERVICE_A_CAPACITY];
	struct nlattr *vnodes = tb[RINGSTEER_SERVICE_A_VNODES];

	if (placement)
		conf->placement = nla_get_u32(placement);
	if (svc && conf->placement != svc->conf.placement) {
		NL_SET_ERR_MSG_ATTR(extack, placement,
				    "placement is fixed once the service exists: delete and add it");
		return -EINVAL;
	}
	if (cap && conf->placement != RINGSTEER_PLACEMENT_SLOTS) {
		NL_SET_ERR_MSG_ATTR(extack, cap, "capacity applies to placement slots only");
		return -EINVAL;
	}
	if (vnodes && conf->placement == RINGSTEER_PLACEMENT_SLOTS) {
		NL_SET_ERR_MSG_ATTR(extack, vnodes,
				    "vnodes applies to placement ring only: a slots backend's share is its number of slots");
		return -EINVAL;
	}
	/* The maximum too: see the spec's note on NLA_POLICY_FULL_RANGE. */
	if (cap && (nla_get_u32(cap) > RINGSTEER_MAX_CAPACITY ||
		    !is_power_of_2(nla_get_u32(cap)))) {
		NL_SET_ERR_MSG_ATTR(extack, cap,
				    "capacity must be a power of two, 2 .. 65536");
		return -ERANGE;
	}
	if (cap)
		conf->capacity = nla_get_u32(cap);
	return 0;
}

/*
 * CHAIN over @conf, after forward and placement: the chain's hops travel
 * in GUE private data, so chain above 1 needs forward tunnel with encap
 * gue (EINVAL), on placement ring (EOPNOTSUPP: a slots service's lookups
 * are the table's, which keeps no history). Checked on the settings a
 * request leaves, whichever of them it gives.
 */
static int parse_chain(struct nlattr *const *tb, struct rs_service_conf *conf,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *chain = tb[RINGSTEER_SERVICE_A_CHAIN];

	if (chain)
		conf->fwd.chain = nla_get_u32(chain);
	if (conf->fwd.chain < 2)
		return 0;
	if (!rs_tunnel(&conf->fwd) || conf->fwd.encap != RINGSTEER_ENCAP_GUE) {
		NL_SET_ERR_MSG_ATTR(extack, chain ?: tb[RINGSTEER_SERVICE_A_ENCAP],
				    "chain applies to forward tunnel with encap gue only: its hops travel in GUE private data");
		return -EINVAL;
	}
	if (conf->placement == RINGSTEER_PLACEMENT_SLOTS) {
		NL_SET_ERR_MSG_ATTR(extack, chain,
				    "chain applies to placement ring only");
		return -EOPNOTSUPP;
	}
	return 0;
}

int rs_service_conf_parse(struct nlattr *const *tb, const struct nlattr *nest,
			  const struct rs_service *svc,
			  struct rs_service_conf *conf,
			  struct netlink_ext_ack *extack)
{
	int err;

	*conf = svc ? svc->conf : service_defaults;
	if (tb[RINGSTEER_SERVICE_A_VNODES])
		conf->vnodes = nla_get_u32(tb[RINGSTEER_SERVICE_A_VNODES]);
	if (tb[RINGSTEER_SERVICE_A_HASH])
		conf->hash = nla_get_u32(tb[RINGSTEER_SERVICE_A_HASH]);
	if (tb[RINGSTEER_SERVICE_A_ON_DOWN])
		conf->on_down = nla_get_u32(tb[RINGSTEER_SERVICE_A_ON_DOWN]);
	err = parse_forward(tb, svc, conf, extack) ?:
	      parse_placement(tb, svc, conf, extack) ?:
	      parse_chain(tb, conf, extack);
	if (err)
		return err;
	/* A new service has no ring to keep yet (chain_kept.h). */
	if (!svc && (tb[RINGSTEER_SERVICE_A_KEPT_RINGS] || tb[RINGSTEER_SERVICE_A_KEPT])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RINGSTEER_SERVICE_A_KEPT_RINGS] ?:
				    tb[RINGSTEER_SERVICE_A_KEPT],
				    "kept rings are given by service-set only");
		return -EINVAL;
	}
	if (svc && !has_setting(tb, RINGSTEER_SERVICE_A_MAX, ringsteer_service_id_nl_policy,
				ARRAY_SIZE(ringsteer_service_id_nl_policy) - 1)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "nothing to change: give vnodes, hash, on-down, encap, encap port, capacity, chain or kept rings");
		return -EINVAL;
	}
	return 0;
}

int rs_backend_conf_parse(struct nlattr *const *tb, const struct nlattr *nest,
			  const struct rs_backend *b,
			  struct rs_backend_conf *conf,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *slots = tb[RINGSTEER_BACKEND_A_SLOTS];

	*conf = b ? b->conf : backend_defaults;
	if (tb[RINGSTEER_BACKEND_A_WEIGHT])
		conf->weight = nla_get_u32(tb[RINGSTEER_BACKEND_A_WEIGHT]);
	/* Their numbers are checked with the service's (placement.c). */
	if (slots && (!nla_len(slots) || nla_len(slots) % sizeof(u16))) {
		NL_SET_ERR_MSG_ATTR(extack, slots,
				    "slots is an array of u16 slot numbers, at least one");
		return -EINVAL;
	}
	if (slots && nla_len(slots) / sizeof(u16) > RINGSTEER_MAX_WEIGHT) {
		NL_SET_ERR_MSG_ATTR(extack, slots, "more slots than max-weight");
		return -ERANGE;
	}
	/* A slots backend holds as many slots as its weight. */
	if (slots && !tb[RINGSTEER_BACKEND_A_WEIGHT])
		conf->weight = nla_len(slots) / sizeof(u16);
	if (tb[RINGSTEER_BACKEND_A_STATE])
		conf->state = nla_get_u32(tb[RINGSTEER_BACKEND_A_STATE]);
	/* BACKEND_SET's only, by the policies. */
	if (tb[RINGSTEER_BACKEND_A_HEALTH])
		conf->health = nla_get_u32(tb[RINGSTEER_BACKEND_A_HEALTH]);
	if (tb[RINGSTEER_BACKEND_A_ON_DOWN])
		conf->on_down = nla_get_u32(tb[RINGSTEER_BACKEND_A_ON_DOWN]);
	if (b && !has_setting(tb, RINGSTEER_BACKEND_A_MAX, ringsteer_backend_id_nl_policy,
			      ARRAY_SIZE(ringsteer_backend_id_nl_policy) - 1)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "nothing to change: give weight, state, health, on-down or slots");
		return -EINVAL;
	}
	return 0;
}

static int put_forward(struct sk_buff *skb, const struct rs_forward *fwd)
{
	if (nla_put_u32(skb, RINGSTEER_SERVICE_A_FORWARD, fwd->mode))
		return -EMSGSIZE;
	if (!rs_tunnel(fwd))
		return 0;
	if (nla_put_u32(skb, RINGSTEER_SERVICE_A_ENCAP, fwd->encap) ||
	    (fwd->encap == RINGSTEER_ENCAP_GUE &&
	     (nla_put_be16(skb, RINGSTEER_SERVICE_A_ENCAP_PORT, fwd->encap_port) ||
	      nla_put_u32(skb, RINGSTEER_SERVICE_A_CHAIN, fwd->chain))))
		return -EMSGSIZE;
	return 0;
}

/* A slots service refuses vnodes (its ring has a point a slot): not shown. */
int rs_service_conf_put(struct sk_buff *skb, const struct rs_service_conf *conf)
{
	if ((conf->placement == RINGSTEER_PLACEMENT_RING &&
	     nla_put_u32(skb, RINGSTEER_SERVICE_A_VNODES, conf->vnodes)) ||
	    nla_put_u32(skb, RINGSTEER_SERVICE_A_HASH, conf->hash) ||
	    nla_put_u32(skb, RINGSTEER_SERVICE_A_ON_DOWN, conf->on_down) ||
	    put_forward(skb, &conf->fwd) ||
	    nla_put_u32(skb, RINGSTEER_SERVICE_A_PLACEMENT, conf->placement) ||
	    (conf->placement == RINGSTEER_PLACEMENT_SLOTS &&
	     nla_put_u32(skb, RINGSTEER_SERVICE_A_CAPACITY, conf->capacity)))
		return -EMSGSIZE;
	return 0;
}

int rs_backend_conf_put(struct sk_buff *skb, const struct rs_backend_conf *conf)
{
	if (nla_put_u32(skb, RINGSTEER_BACKEND_A_WEIGHT, conf->weight) ||
	    nla_put_u32(skb, RINGSTEER_BACKEND_A_STATE, conf->state) ||
	    nla_put_u32(skb, RINGSTEER_BACKEND_A_HEALTH, conf->health) ||
	    nla_put_u32(skb, RINGSTEER_BACKEND_A_ON_DOWN, conf->on_down))
		return -EMSGSIZE;
	return 0;
}

void rs_service_set_conf(struct rs_service *svc,
			 const struct rs_service_conf *conf)
{
	svc->conf.vnodes = conf->vnodes;
	svc->conf.hash = conf->hash;
	svc->conf.fwd = conf->fwd;
	svc->conf.placement = conf->placement;
	svc->conf.capacity = conf->capacity;
	/* The flow table reads it (rs_backend_cached()). */
	WRITE_ONCE(svc->conf.on_down, conf->on_down);
}

void rs_backend_set_conf(struct rs_backend *b,
			 const struct rs_backend_conf *conf)
{
	/* The ring's copy, which builds and lookups read. */
	b->member.weight = conf->weight;
	b->conf.weight = conf->weight;
	/* The flow table reads the rest (rs_backend_cached()). */
	WRITE_ONCE(b->conf.state, conf->state);
	WRITE_ONCE(b->conf.on_down, conf->on_down);
	/*
	 * on_down before health: a reader that sees the new down sees the
	 * on-down given with it, never the one it replaced.
	 */
	smp_wmb();
	WRITE_ONCE(b->conf.health, conf->health);
}
