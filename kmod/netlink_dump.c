// SPDX-License-Identifier: GPL-2.0
/*
 * The dumps of the ringsteer family: services, and the backends of one
 * service with their live connections. Requests are checked as netlink.c
 * parsed as netlink.c parses a doit's (rs_nl_dump_request()).
 *
 * Locking: each part of a dump runs under the namespace mutex, like a
 * doit, and resumes from a position kept in cb->ctx; a change between two
 * parts flags the dump NLM_F_DUMP_INTR (cb->seq is the generation). The
 * first part of a backend dump with counts drops the mutex while it
 * counts (ct_count.h).
 */

#include <linux/mm.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "uapi/ringsteer.h"
#include "ct_count.h"
#include "netlink.h"
#include "family.h"
#include "generated/netlink-gen.h"
#include "netns.h"
#include "nlmsg.h"
#include "service.h"

/* Dump position, kept across the calls of one dump. */
struct dump_ctx {
	u32 index;
	bool counted;		/* the first call made sure of the counts */
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
 * Live connections are counted when the dump starts (ct_count.h: at most one
 * walk of the conntrack table, without the mutex, which is why the service
 * is looked up again after it), and never per packet.
 */
static int count_conns(struct rs_net *rn, struct netlink_callback *cb,
		       struct rs_request *req)
{
	int err = rs_conns_count(&rn->conns, req->svc, NULL);

	if (err) {
		if (err == -ENOMEM)
			NL_SET_ERR_MSG_MOD(cb->extack, "out of memory counting connections");
		return err;
	}
	dump_ctx(cb)->counted = true;
	cb->seq = rn->generation ?: 1;
	return rs_nl_dump_request(rn, cb->skb, RINGSTEER_CMD_BACKEND_GET,
				  rs_dump_attrs(cb), req, cb->extack);
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
	err = rs_nl_dump_request(rn, cb->skb, RINGSTEER_CMD_BACKEND_GET,
				 rs_dump_attrs(cb), &req, cb->extack);
	if (err == -ENOENT && ctx->index) {
		/*
		 * The service went between two parts (only a part that sent
		 * backends has a next): not the request's fault. End the
		 * dump; the delete moved the generation, so NLMSG_DONE
		 * carries NLM_F_DUMP_INTR and the reader retries.
		 */
		NL_SET_ERR_MSG_MOD(cb->extack, "service deleted during the dump");
		err = 0;
		goto out;
	}
	/* As in the doit: a tunnel's backends get no counts rather than 0. */
	if (!err && rs_tunnel(&req.svc->conf.fwd))
		req.flags &= ~RINGSTEER_F_CONNS;
	if (!err && (req.flags & RINGSTEER_F_CONNS) && !ctx->index &&
	    !ctx->counted)
		err = count_conns(rn, cb, &req);
	if (err)
		goto out;
	svc = req.svc;
	list_for_each_entry(b, &svc->backends, node) {
		if (i++ < ctx->index)
			continue;
		hdr = dump_put(skb, cb, RINGSTEER_CMD_BACKEND_GET);
		err = hdr ? dump_done_one(skb, hdr,
					  rs_put_service(skb, rn, svc, RS_SERVICE_ID) ?:
					  rs_put_backend(skb, b, true,
							 (req.flags & RINGSTEER_F_CONNS) &&
							 b->counted ? &b->conns : NULL)) :
			    -EMSGSIZE;
		if (err)
			break;
		ctx->index++;
	}
out:
	mutex_unlock(&rn->lock);
	return dump_end(skb, err);
}
