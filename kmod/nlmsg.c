// SPDX-License-Identifier: GPL-2.0
/*
 * Messages the family sends: replies, dump entries and notifications. All
 * run under rs_net->lock, which keeps the services and backends they
 * describe alive.
 */

#include <net/genetlink.h>

#include "uapi/ringsteer.h"
#include "conf.h"
#include "family.h"
#include "generated/netlink-gen.h"
#include "nlmsg.h"
#include "chain_kept.h"
#include "service.h"
#include "tally.h"

static int put_endpoint(struct sk_buff *skb, int family_attr, u8 family,
			const void *addr, __be16 port)
{
	if (nla_put_u16(skb, family_attr, family) ||
	    nla_put(skb, family_attr + 1, rs_addr_len(family), addr) ||
	    nla_put_be16(skb, family_attr + 2, port))
		return -EMSGSIZE;
	return 0;
}

/* A chained service's: its kept rings' with the current one's. */
static int chain_fingerprint(struct rs_steer *steer)
{
	u64 kept[RS_CHAIN_MAX_HOPS];
	int err;
	u8 i;

	for (i = 0; i < steer->nkept; i++) {
		err = rs_ring_fingerprint(steer->kept[i], steer->hash, &kept[i]);
		if (err)
			return err;
	}
	steer->fingerprint = rs_chain_fingerprint(steer->fingerprint,
						  steer->fwd.chain, kept,
						  steer->nkept);
	return 0;
}

/* Computed once per published ring, when first asked for. */
static int fingerprint(struct rs_steer *steer, u64 *fp)
{
	int err;

	if (!steer->has_fingerprint) {
		err = rs_ring_fingerprint(steer->ring, steer->hash,
					  &steer->fingerprint);
		if (!err && steer->slots)
			err = rs_slots_fingerprint(steer->slots, steer->fingerprint,
						   &steer->fingerprint);
		if (!err && steer->fwd.chain > 1)
			err = chain_fingerprint(steer);
		if (err)
			return err;
		steer->has_fingerprint = true;
	}
	*fp = steer->fingerprint;
	return 0;
}

static const struct {
	u16 attr;
	u8 stat;
} tun_stats[] = {
	{ RINGSTEER_SERVICE_A_PACKETS, RS_TUN_PACKETS },
	{ RINGSTEER_SERVICE_A_TABLE_HITS, RS_TUN_TABLE_HITS },
	{ RINGSTEER_SERVICE_A_TABLE_MISSES, RS_TUN_TABLE_MISSES },
	{ RINGSTEER_SERVICE_A_NONSYN_MISSES, RS_TUN_NONSYN_MISSES },
	{ RINGSTEER_SERVICE_A_TOO_BIG, RS_TUN_TOO_BIG },
	{ RINGSTEER_SERVICE_A_FRAGMENTS, RS_TUN_FRAGMENTS },
	{ RINGSTEER_SERVICE_A_ENCAP_ERRORS, RS_TUN_ENCAP_ERRORS },
	{ RINGSTEER_SERVICE_A_MARTIANS, RS_TUN_MARTIANS },
	{ RINGSTEER_SERVICE_A_NOT_HOST, RS_TUN_NOT_HOST },
	{ RINGSTEER_SERVICE_A_ICMP_LIMITED, RS_TUN_ICMP_LIMITED },
	{ RINGSTEER_SERVICE_A_FLOOD_SKIPPED, RS_TUN_FLOOD_SKIPPED },
};

/* forward tunnel's counters; a NAT service has none. */
static int put_tun_stats(struct sk_buff *skb, const struct rs_service *svc)
{
	int i;

	if (!rs_tunnel(&svc->conf.fwd))
		return 0;
	for (i = 0; i < ARRAY_SIZE(tun_stats); i++)
		if (nla_put_u64_64bit(skb, tun_stats[i].attr,
				      rs_tun_stats_sum(svc->tun_stats, tun_stats[i].stat),
				      RINGSTEER_SERVICE_A_PAD))
			return -EMSGSIZE;
	return 0;
}

int rs_put_service(struct sk_buff *skb, struct rs_net *rn,
		   struct rs_service *svc, enum rs_service_detail detail)
{
	struct nlattr *nest = nla_nest_start(skb, RINGSTEER_A_SERVICE);
	struct rs_steer *steer = rs_steer_locked(svc, &rn->lock);
	u64 fp;

	if (!nest)
		return -EMSGSIZE;
	if (detail >= RS_SERVICE_FULL && fingerprint(steer, &fp)) {
		nla_nest_cancel(skb, nest);
		return -ENOMEM;
	}
	if (put_endpoint(skb, RINGSTEER_SERVICE_A_FAMILY, svc->family, &svc->vip,
			 svc->port) ||
	    nla_put_u8(skb, RINGSTEER_SERVICE_A_PROTO, svc->proto))
		goto cancel;
	if (detail >= RS_SERVICE_CONF &&
	    (rs_service_conf_put(skb, &svc->conf) || rs_kept_put(skb, steer)))
		goto cancel;
	if (detail >= RS_SERVICE_FULL &&
	    (nla_put_u32(skb, RINGSTEER_SERVICE_A_BACKENDS, svc->nbackends) ||
	     nla_put_u32(skb, RINGSTEER_SERVICE_A_ACTIVE, steer->ring->nmembers) ||
	     nla_put_u32(skb, RINGSTEER_SERVICE_A_POINTS, steer->ring->npoints) ||
	     nla_put_u64_64bit(skb, RINGSTEER_SERVICE_A_RING_BYTES,
			       steer->ring->size +
			       (steer->slots ? steer->slots->size : 0),
			       RINGSTEER_SERVICE_A_PAD) ||
	     nla_put_u64_64bit(skb, RINGSTEER_SERVICE_A_FLOWS,
			       rs_counter_sum(svc->new_flows), RINGSTEER_SERVICE_A_PAD) ||
	     nla_put_u64_64bit(skb, RINGSTEER_SERVICE_A_NO_BACKEND,
			       rs_counter_sum(svc->no_backend),
			       RINGSTEER_SERVICE_A_PAD) ||
	     nla_put_u32(skb, RINGSTEER_SERVICE_A_GENERATION, svc->generation) ||
	     nla_put_u64_64bit(skb, RINGSTEER_SERVICE_A_FINGERPRINT, fp,
			       RINGSTEER_SERVICE_A_PAD) ||
	     put_tun_stats(skb, svc)))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int rs_put_backend(struct sk_buff *skb, const struct rs_backend *b, bool full,
		   const struct rs_ct_conns *conns)
{
	struct nlattr *nest = nla_nest_start(skb, RINGSTEER_A_BACKEND);

	if (!nest)
		return -EMSGSIZE;
	if (put_endpoint(skb, RINGSTEER_BACKEND_A_FAMILY, b->member.family, b->member.addr,
			 b->member.port) ||
	    rs_backend_conf_put(skb, &b->conf) ||
	    (b->nslots && nla_put(skb, RINGSTEER_BACKEND_A_SLOTS,
				  b->nslots * sizeof(*b->slots), b->slots)))
		goto cancel;
	if (full &&
	    (nla_put_u64_64bit(skb, RINGSTEER_BACKEND_A_FLOWS,
			       rs_counter_sum(rs_backend_new_flows(b)), RINGSTEER_BACKEND_A_PAD) ||
	     nla_put_u64_64bit(skb, RINGSTEER_BACKEND_A_SHARE, b->share,
			       RINGSTEER_BACKEND_A_PAD)))
		goto cancel;
	if (conns &&
	    (nla_put_u64_64bit(skb, RINGSTEER_BACKEND_A_CONNS_ESTABLISHED,
			       conns->established, RINGSTEER_BACKEND_A_PAD) ||
	     nla_put_u64_64bit(skb, RINGSTEER_BACKEND_A_CONNS_OTHER,
			       conns->other, RINGSTEER_BACKEND_A_PAD) ||
	     nla_put_u64_64bit(skb, RINGSTEER_BACKEND_A_CONNS_CLOSED,
			       conns->closed, RINGSTEER_BACKEND_A_PAD)))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int rs_reply(struct genl_info *info,
	     int (*fill)(struct sk_buff *skb, struct genl_info *info,
			 const void *arg),
	     const void *arg)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rs_genl_family, 0, info->genlhdr->cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	err = fill(msg, info, arg);
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err_free:
	nlmsg_free(msg);
	return err;
}

/* Out of memory only costs listeners the event; the change stands. */
struct sk_buff *rs_notify_build(struct rs_net *rn, u8 cmd,
				struct rs_service *svc,
				const struct rs_backend *b)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, 0, 0, &rs_genl_family, 0, cmd);
	if (!hdr ||
	    (svc && rs_put_service(skb, rn, svc,
				   b ? RS_SERVICE_ID : RS_SERVICE_CONF)) ||
	    (b && rs_put_backend(skb, b, false, NULL))) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

void rs_notify_send(struct rs_net *rn, struct sk_buff *skb)
{
	if (skb)
		genlmsg_multicast_netns(&rs_genl_family, rn->net, skb, 0, 0,
					GFP_KERNEL);
}

void rs_notify_walked(struct rs_net *rn, u64 walk)
{
	struct sk_buff *skb;
	void *hdr;

	/* Lost without memory: a waiter reads walk-done from net-get too. */
	skb = genlmsg_new(nla_total_size_64bit(sizeof(u64)), GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &rs_genl_family, 0, RINGSTEER_CMD_WALKED);
	if (!hdr || nla_put_u64_64bit(skb, RINGSTEER_A_WALK, walk, RINGSTEER_A_PAD)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&rs_genl_family, rn->net, skb, 0,
				RINGSTEER_NLGRP_WALKS, GFP_KERNEL);
}

void rs_notify(struct rs_net *rn, u8 cmd, struct rs_service *svc,
	       const struct rs_backend *b)
{
	rs_notify_send(rn, rs_notify_build(rn, cmd, svc, b));
}
