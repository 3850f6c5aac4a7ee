// SPDX-License-Identifier: GPL-2.0
/*
 * The dumps of the ringsteer family: services, and the backends of one
 * service with their live connections. Requests are checked as netlink.c
 * parsed as netlink.c parses a doit's (rs_nl_dump_request()).
 *
 * Locking: each part of a dump runs under the namespace mutex, like a
 * doit, and resumes from a position kept in cb->ctx; a change between two
 * parts flags the dump NLM_F_DUMP_INTR (cb->seq is the generation).
 */

#include <linux/mm.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "uapi/ringsteer.h"
#include "conntrack.h"
#include "netlink.h"
#include "family.h"
#include "netlink-gen.h"
#include "netns.h"
#include "nlmsg.h"
#include "service.h"

/* Dump position, kept across the calls of one dump. */
struct dump_ctx {
	u32 index;
	u32 nconns;
	struct rs_ct_conns *conns;	/* [nconns], counted by the first call */
};

static struct dump_ctx *dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct dump_ctx) > sizeof(cb->ctx));
	return (struct dump_ctx *)cb->ctx;
}

/*
 * Each part of a dump records the generation it saw before emitting
 * anything: a part that emits nothing, the last one included, still lets
 * netlink flag the dump NLM_F_DUMP_INTR if a change came in between.
 */
static struct rs_net *dump_lock(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rs_net *rn = rs_net(sock_net(skb->sk));

	mutex_lock(&rn->lock);
	cb->seq = rn->generation ?: 1;
	return rn;
}

static void *dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rs_genl_family, NLM_F_MULTI, cmd);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/*
 * Ends the message at @hdr once filled, or cancels it and passes @err on:
 * -EMSGSIZE (the skb is full) or the fill's own error (-ENOMEM computing a
 * fingerprint), which ends the dump.
 */
static int dump_done_one(struct sk_buff *skb, void *hdr, int err)
{
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A full skb ends this part of the dump; the next call resumes. */
static int dump_end(struct sk_buff *skb, int err)
{
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

int ringsteer_nl_service_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct rs_net *rn = dump_lock(skb, cb);
	struct dump_ctx *ctx = dump_ctx(cb);
	struct rs_service *svc;
	u32 i = 0;
	int err = 0;
	void *hdr;

	list_for_each_entry(svc, &rn->services.list, node) {
		if (i++ < ctx->index)
			continue;
		hdr = dump_put(skb, cb, RINGSTEER_CMD_SERVICE_GET);
		err = hdr ? dump_done_one(skb, hdr,
					  rs_put_service(skb, rn, svc, RS_SERVICE_FULL)) :
			    -EMSGSIZE;
		if (err)
			break;
		ctx->index++;
	}
	mutex_unlock(&rn->lock);
	if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(cb->extack, "out of memory computing a ring's fingerprint");
	return dump_end(skb, err);
}

/*
 * Live connections are counted once per dump, by one walk of the
 * conntrack table when the dump starts, and never per packet.
 */
static int count_conns(struct rs_net *rn, struct rs_service *svc,
		       struct dump_ctx *ctx)
{
	int err;

	ctx->conns = kvcalloc(max(svc->nbackends, 1U), sizeof(*ctx->conns),
			      GFP_KERNEL_ACCOUNT);
	if (!ctx->conns)
		return -ENOMEM;
	ctx->nconns = svc->nbackends;
	err = rs_ct_count_conns(rn->net, svc, NULL, ctx->conns);
	if (err) {
		kvfree(ctx->conns);
		ctx->conns = NULL;
	}
	return err;
}

int ringsteer_nl_backend_get_done(struct netlink_callback *cb)
{
	kvfree(dump_ctx(cb)->conns);
	return 0;
}

int ringsteer_nl_backend_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct dump_ctx *ctx = dump_ctx(cb);
	struct rs_request req;
	struct rs_service *svc;
	struct rs_backend *b;
	struct rs_net *rn;
	u32 i = 0;
	int err = 0;
	void *hdr;

	rn = dump_lock(skb, cb);
	err = rs_nl_dump_request(rn, RINGSTEER_CMD_BACKEND_GET, rs_dump_attrs(cb),
				 &req, cb->extack);
	if (err)
		goto out;
	svc = req.svc;
	if (!ctx->index && !ctx->conns && (req.flags & RINGSTEER_F_CONNS)) {
		err = count_conns(rn, svc, ctx);
		if (err)
			goto out;
	}
	list_for_each_entry(b, &svc->backends, node) {
		/* Counted before a change the dump will be flagged for. */
		const struct rs_ct_conns *conns = ctx->conns && i < ctx->nconns ?
						  &ctx->conns[i] : NULL;

		if (i++ < ctx->index)
			continue;
		hdr = dump_put(skb, cb, RINGSTEER_CMD_BACKEND_GET);
		err = hdr ? dump_done_one(skb, hdr,
					  rs_put_service(skb, rn, svc, RS_SERVICE_ID) ?:
					  rs_put_backend(skb, b, true, conns)) :
			    -EMSGSIZE;
		if (err)
			break;
		ctx->index++;
	}
out:
	mutex_unlock(&rn->lock);
	return dump_end(skb, err);
}
