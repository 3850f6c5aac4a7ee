// SPDX-License-Identifier: GPL-2.0
/* The owner chain's backend mode over netlink; see nl_chain.h. */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl_chain.h"

const char *const rc_chain_stat_names[RC_CHAIN_NSTATS] = {
	"accepted-syn", "accepted-socket", "accepted-cookie", "forwarded",
	"last-resort-accepts", "last-resort-drops", "passed", "malformed",
	"hop-count", "hop-self", "hop-broadcast", "hop-multicast", "hop-local",
	"ttl-exceeded", "xmit-errors",
};

int nl_chain_set(struct nl_conn *nl, uint16_t port, int last_resort,
		 uint8_t max_hops)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_CHAIN_SET, 0);
	struct nlattr *nest = mnl_attr_nest_start(nlh, RINGSTEER_A_CHAIN);

	mnl_attr_put_u16(nlh, RINGSTEER_CHAIN_A_PORT, htons(port));
	if (last_resort >= 0)
		mnl_attr_put_u8(nlh, RINGSTEER_CHAIN_A_LAST_RESORT, last_resort);
	if (max_hops)
		mnl_attr_put_u8(nlh, RINGSTEER_CHAIN_A_MAX_HOPS, max_hops);
	mnl_attr_nest_end(nlh, nest);
	return nl_request(nl, nlh, NULL, NULL);
}

int nl_chain_del(struct nl_conn *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return nl_request(nl, nl_msg(nl, buf, RINGSTEER_CMD_CHAIN_DEL, 0),
			  NULL, NULL);
}

struct chain_reply {
	struct rc_chain *c;
	int err;
};

/* One attribute of the chain nest; unknown ones (a newer kernel's) skipped. */
static int chain_attr_cb(const struct nlattr *a, void *data)
{
	struct chain_reply *r = data;
	uint16_t type = mnl_attr_get_type(a);
	uint16_t len = mnl_attr_get_payload_len(a);

	if (type == RINGSTEER_CHAIN_A_PORT && len == 2)
		r->c->port = ntohs(mnl_attr_get_u16(a));
	else if (type == RINGSTEER_CHAIN_A_LAST_RESORT && len == 1)
		r->c->last_resort = mnl_attr_get_u8(a);
	else if (type == RINGSTEER_CHAIN_A_MAX_HOPS && len == 1)
		r->c->max_hops = mnl_attr_get_u8(a);
	else if (type >= RINGSTEER_CHAIN_A_ACCEPTED_SYN &&
		 type <= RINGSTEER_CHAIN_A_XMIT_ERRORS && len == 8)
		r->c->stats[type - RINGSTEER_CHAIN_A_ACCEPTED_SYN] = mnl_attr_get_u64(a);
	else if (type <= RINGSTEER_CHAIN_A_XMIT_ERRORS && type != RINGSTEER_CHAIN_A_PAD)
		r->err = -EPROTO;
	return MNL_CB_OK;
}

static int top_attr_cb(const struct nlattr *a, void *data)
{
	struct chain_reply *r = data;

	if (mnl_attr_get_type(a) != RINGSTEER_A_CHAIN)
		return MNL_CB_OK;
	r->c->on = true;
	if (mnl_attr_parse_nested(a, chain_attr_cb, r) < 0)
		r->err = -EPROTO;
	return MNL_CB_OK;
}

static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct chain_reply *r = data;

	if (mnl_attr_parse(nlh, GENL_HDRLEN, top_attr_cb, r) < 0)
		r->err = -EPROTO;
	return MNL_CB_OK;
}

int nl_chain_get(struct nl_conn *nl, struct rc_chain *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_CHAIN_GET, 0);
	struct chain_reply r = { .c = c };
	int err;

	memset(c, 0, sizeof(*c));
	err = nl_request(nl, nlh, chain_cb, &r);
	return err ? err : r.err;
}
