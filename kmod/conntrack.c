// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack walks. Deleting an entry ringsteer set up makes the next packet
 * of that flow a new flow, steered by the ring as it is now; counting them
 * tells whether flows kept after a delete are gone. Only entries the hook
 * marked as steered (rs_ct_steered()) are ringsteer's: another NAT user's
 * entries for the same VIP are never deleted or counted.
 */

#include <net/netfilter/nf_conntrack.h>

#include "conntrack.h"
#include "hook.h"
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
	       rs_addr_len(svc->family));
	t->backend_port = b->member.port;
}

/*
 * When any NAT lookup hook exists in the namespace (another service, kept
 * flows, iptables "nat", an nft nat chain), nf_nat binds a flow that no
 * hook NATs to itself: IPS_DST_NAT_DONE without IPS_DST_NAT, for good.
 * Such a flow to a VIP that had no service yet never reaches the hook
 * again, and would go on to the VIP itself. If it was answered, it is a
 * connection to the host itself, established: it stays, as established
 * flows do. If not (one-way UDP, a SYN the VIP has not answered yet),
 * deleting it makes its next packet a new flow, which is steered.
 */
void rs_ct_target_null_bound(struct rs_ct_target *t,
			     const struct rs_service *svc)
{
	rs_ct_target_service(t, svc);
	t->null_bound = true;
}

static bool null_bound(const struct nf_conn *ct)
{
	unsigned long status = READ_ONCE(ct->status);

	return (status & (IPS_DST_NAT_DONE | IPS_DST_NAT | IPS_SEEN_REPLY)) ==
	       IPS_DST_NAT_DONE;
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
	if (t->null_bound)
		return null_bound(ct) && !rs_ct_steered(ct);
	if (!rs_ct_steered(ct))
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

struct conns_walk {
	struct rs_ct_target service;
	const struct rs_member *members;	/* sorted by identity */
	u32 n;
	struct rs_ct_conns *conns;
};

static int member_search(const struct conns_walk *w, const struct rs_member *m)
{
	u32 lo = 0, hi = w->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int cmp = rs_member_cmp(&w->members[mid], m);

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
	int i;

	/*
	 * Dying and expired entries are connections that have ended: a
	 * destroy event may already be out, and whoever counts after it
	 * (ringctl monitor, drain wait) must not see them.
	 */
	if (nf_ct_is_dying(ct) || nf_ct_is_expired(ct) ||
	    match_any(&w->service, 1, ct) < 0)
		return 0;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	m.family = w->service.family;
	memcpy(m.addr, &reply->src.u3, rs_addr_len(m.family));
	m.port = reply->src.u.all;
	i = member_search(w, &m);
	if (i >= 0) {
		if (established(ct))
			w->conns[i].established++;
		else
			w->conns[i].other++;
	}
	return 0;
}

int rs_ct_count_conns(struct net *net, const struct rs_service *svc,
		      const struct rs_backend *only, struct rs_ct_conns *conns)
{
	struct conns_walk w = { .conns = conns };
	struct nf_ct_iter_data iter = { .net = net, .data = &w };
	struct rs_member *members;
	struct rs_backend *b;

	rs_ct_target_service(&w.service, svc);
	w.n = only ? 1 : svc->nbackends;
	members = kvcalloc(max(w.n, 1U), sizeof(*members), GFP_KERNEL_ACCOUNT);
	if (!members)
		return -ENOMEM;
	if (only) {
		members[0] = only->member;
	} else {
		w.n = 0;
		list_for_each_entry(b, &svc->backends, node)
			members[w.n++] = b->member;
	}
	w.members = members;
	memset(conns, 0, w.n * sizeof(*conns));
	nf_ct_iterate_cleanup_net(count_conn, &iter);
	kvfree(members);
	return 0;
}
