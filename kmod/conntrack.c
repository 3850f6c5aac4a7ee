// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack walks. Deleting an entry ringsteer set up makes the next packet
 * of that flow a new flow, steered by the ring as it is now; counting them
 * tells whether flows kept after a delete are gone.
 */

#include <net/netfilter/nf_conntrack.h>

#include "conntrack.h"
#include "service.h"

void rs_ct_target_service(struct rs_ct_target *t, const struct rs_service *svc)
{
	memset(t, 0, sizeof(*t));
	t->vip = svc->vip;
	t->port = svc->port;
	t->family = svc->family;
	t->proto = svc->proto;
	t->any_backend = true;
}

void rs_ct_target_backend(struct rs_ct_target *t, const struct rs_service *svc,
			  const struct rs_backend *b)
{
	rs_ct_target_service(t, svc);
	t->any_backend = false;
	memcpy(&t->backend_addr, b->member.addr,
	       svc->family == AF_INET ? 4 : 16);
	t->backend_port = b->member.port;
}

static bool target_match(const struct rs_ct_target *t, const struct nf_conn *ct)
{
	const struct nf_conntrack_tuple *orig, *reply;

	if (nf_ct_l3num(ct) != (t->family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6))
		return false;
	orig = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	if (orig->dst.protonum != t->proto || orig->dst.u.all != t->port ||
	    !rs_addr_equal(t->family, &orig->dst.u3, &t->vip))
		return false;
	if (t->any_backend)
		return true;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	return reply->src.u.all == t->backend_port &&
	       rs_addr_equal(t->family, &reply->src.u3, &t->backend_addr);
}

/* Index of the first target @ct matches, or -1. */
static int match_any(const struct rs_ct_target *targets, u32 n,
		     const struct nf_conn *ct)
{
	u32 i;

	if (!test_bit(IPS_DST_NAT_BIT, &ct->status))
		return -1;
	for (i = 0; i < n; i++) {
		if (target_match(&targets[i], ct))
			return i;
	}
	return -1;
}

struct walk {
	const struct rs_ct_target *targets;
	u32 n;
	u64 *counts;		/* NULL: delete what matches */
};

static int walk_one(struct nf_conn *ct, void *data)
{
	struct walk *w = data;
	int i = match_any(w->targets, w->n, ct);

	if (i < 0)
		return 0;
	if (!w->counts)
		return 1;
	w->counts[i]++;
	return 0;
}

static void walk(struct net *net, struct walk *w)
{
	struct nf_ct_iter_data iter = { .net = net, .data = w };

	if (w->n)
		nf_ct_iterate_cleanup_net(walk_one, &iter);
}

void rs_ct_delete(struct net *net, const struct rs_ct_target *targets, u32 n)
{
	struct walk w = { .targets = targets, .n = n };

	walk(net, &w);
}

void rs_ct_count(struct net *net, const struct rs_ct_target *targets, u32 n,
		 u64 *counts)
{
	struct walk w = { .targets = targets, .n = n, .counts = counts };

	memset(counts, 0, n * sizeof(*counts));
	walk(net, &w);
}

static size_t addr_len(u8 family)
{
	return family == AF_INET ? 4 : 16;
}

int rs_ct_target_cmp(const struct rs_ct_target *a, const struct rs_ct_target *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->proto != b->proto)
		return a->proto < b->proto ? -1 : 1;
	if (a->port != b->port)
		return be16_to_cpu(a->port) < be16_to_cpu(b->port) ? -1 : 1;
	return memcmp(&a->vip, &b->vip, addr_len(a->family));
}

struct conns_walk {
	struct rs_ct_count *svcs;	/* sorted by rs_ct_target_cmp() */
	u32 n;
};

/* The service whose VIP @ct was sent to, if it is counted. */
static struct rs_ct_count *count_service(const struct conns_walk *w,
					 const struct nf_conn *ct)
{
	const struct nf_conntrack_tuple *orig = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	struct rs_ct_target key = {
		.family = nf_ct_l3num(ct) == NFPROTO_IPV4 ? AF_INET : AF_INET6,
		.proto = orig->dst.protonum,
		.port = orig->dst.u.all,
	};
	u32 lo = 0, hi = w->n;

	memcpy(&key.vip, &orig->dst.u3, addr_len(key.family));
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int cmp = rs_ct_target_cmp(&w->svcs[mid].service, &key);

		if (!cmp)
			return &w->svcs[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int member_search(const struct rs_ct_count *c, const struct rs_member *m)
{
	u32 lo = 0, hi = c->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int cmp = rs_member_cmp(&c->members[mid], m);

		if (!cmp)
			return mid;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool established(const struct nf_conn *ct)
{
	return nf_ct_protonum(ct) == IPPROTO_TCP &&
	       READ_ONCE(ct->proto.tcp.state) == TCP_CONNTRACK_ESTABLISHED;
}

static int count_conn(struct nf_conn *ct, void *data)
{
	const struct nf_conntrack_tuple *reply;
	struct conns_walk *w = data;
	struct rs_member m = {};
	struct rs_ct_count *c;
	int i;

	/*
	 * Dying and expired entries are connections that have ended: a
	 * destroy event may already be out, and whoever counts after it
	 * (ringctl monitor, drain wait) must not see them.
	 */
	if (nf_ct_is_dying(ct) || nf_ct_is_expired(ct) ||
	    (nf_ct_l3num(ct) != NFPROTO_IPV4 && nf_ct_l3num(ct) != NFPROTO_IPV6))
		return 0;
	c = count_service(w, ct);
	if (!c || match_any(&c->service, 1, ct) < 0)
		return 0;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	m.family = c->service.family;
	memcpy(m.addr, &reply->src.u3, addr_len(m.family));
	m.port = reply->src.u.all;
	i = member_search(c, &m);
	if (i >= 0) {
		if (established(ct))
			c->conns[i].established++;
		else
			c->conns[i].other++;
	}
	return 0;
}

void rs_ct_count_conns(struct net *net, struct rs_ct_count *svcs, u32 n)
{
	struct conns_walk w = { .svcs = svcs, .n = n };
	struct nf_ct_iter_data iter = { .net = net, .data = &w };
	u32 i;

	for (i = 0; i < n; i++)
		memset(svcs[i].conns, 0, svcs[i].n * sizeof(*svcs[i].conns));
	if (n)
		nf_ct_iterate_cleanup_net(count_conn, &iter);
}
