// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack walks. Deleting an entry ringsteer set up makes the next packet
 * of that flow a new flow, steered by the ring as it is now; counting them
 * tells whether flows kept after a delete are gone. Only entries the hook
 * marked as steered (rs_ct_steered()) are ringsteer's: another NAT user's
 * entries for the same VIP are never deleted or counted.
 */

#include <net/netfilter/nf_conntrack.h>

#include "ct_walk.h"
#include "nat.h"
#include "service.h"

void rs_ct_target_service(struct rs_ct_target *t, const struct rs_service *svc)
{
	memset(t, 0, sizeof(*t));
	t->vip = svc->vip;
	t->port = svc->port;
	t->family = svc->family;
	t->proto = svc->proto;
	t->kind = RS_CT_STEERED;
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
	t->kind = RS_CT_NULL_BOUND;
}

static bool null_bound(const struct nf_conn *ct)
{
	unsigned long status = READ_ONCE(ct->status);

	return (status & (IPS_DST_NAT_DONE | IPS_DST_NAT | IPS_SEEN_REPLY)) ==
	       IPS_DST_NAT_DONE;
}

static u8 ct_family(const struct nf_conn *ct)
{
	switch (nf_ct_l3num(ct)) {
	case NFPROTO_IPV4:
		return AF_INET;
	case NFPROTO_IPV6:
		return AF_INET6;
	}
	return 0;
}

/*
 * Dying and expired entries are connections that have ended: a destroy
 * event may already be out, and whoever counts after it (ringctl monitor,
 * drain wait, the kept flows' poll) must not see them.
 */
static bool ended(const struct nf_conn *ct)
{
	return nf_ct_is_dying(ct) || nf_ct_is_expired(ct);
}

static bool target_match(const struct rs_ct_target *t, u8 family,
			 const struct nf_conn *ct, bool steered)
{
	const struct nf_conntrack_tuple *orig, *reply;

	orig = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	if (t->family != family || orig->dst.protonum != t->proto ||
	    orig->dst.u.all != t->port ||
	    !rs_addr_equal(t->family, &orig->dst.u3, &t->vip))
		return false;
	switch (t->kind) {
	case RS_CT_NULL_BOUND:
		return !steered && null_bound(ct);
	case RS_CT_COUNT:
		if (ended(ct))
			return false;
		break;
	case RS_CT_STEERED:
		break;
	default:
		return false;
	}
	if (!steered)
		return false;
	if (t->any_backend)
		return true;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	return reply->src.u.all == t->backend_port &&
	       rs_addr_equal(t->family, &reply->src.u3, &t->backend_addr);
}

static bool matches(const struct rs_ct_target *t, const struct nf_conn *ct)
{
	return target_match(t, ct_family(ct), ct, rs_ct_steered(ct));
}

#define NO_TARGET	U32_MAX
/* Up to this many targets, comparing each costs less than a table. */
#define LINEAR_MAX	8

/*
 * One walk's targets, chained by the hash of what an entry names first
 * (VIP, port, protocol), so that an entry costs one lookup however many
 * targets the walk serves: kept flows and queued deletes can be thousands.
 */
struct walk {
	const struct rs_ct_target *targets;
	u64 *counts;
	u32 n;
	u32 mask;
	u32 *heads;		/* [mask + 1]; NULL: compare each target */
	u32 *next;		/* [n] */
	bool null_bound;	/* an RS_CT_NULL_BOUND target is among them */
};

static u32 target_hash(u8 family, const union nf_inet_addr *vip, __be16 port,
		       u8 proto)
{
	return rs_service_hash(family, vip, port, proto);
}

static void index_targets(struct walk *w)
{
	u32 nb, i, h;

	if (w->n <= LINEAR_MAX)
		return;
	nb = roundup_pow_of_two(w->n);
	/* Without memory, the walk compares each target: slower, as right. */
	w->heads = kvmalloc_array(nb + w->n, sizeof(u32), GFP_KERNEL_ACCOUNT);
	if (!w->heads)
		return;
	w->next = w->heads + nb;
	w->mask = nb - 1;
	memset(w->heads, 0xff, nb * sizeof(u32));
	for (i = 0; i < w->n; i++) {
		const struct rs_ct_target *t = &w->targets[i];

		h = target_hash(t->family, &t->vip, t->port, t->proto) & w->mask;
		w->next[i] = w->heads[h];
		w->heads[h] = i;
	}
}

static u32 first_target(const struct walk *w, u8 family,
			const struct nf_conntrack_tuple *orig)
{
	if (!w->heads)
		return w->n ? 0 : NO_TARGET;
	return w->heads[target_hash(family, &orig->dst.u3, orig->dst.u.all,
				    orig->dst.protonum) & w->mask];
}

static u32 next_target(const struct walk *w, u32 i)
{
	if (!w->heads)
		return i + 1 < w->n ? i + 1 : NO_TARGET;
	return w->next[i];
}

static int walk_one(struct nf_conn *ct, void *data)
{
	const struct walk *w = data;
	bool steered = rs_ct_steered(ct), del = false;
	u8 family;
	u32 i;

	/* Most entries are neither: a label bit and the status say so. */
	if (!steered && !(w->null_bound && null_bound(ct)))
		return 0;
	family = ct_family(ct);
	if (!family)
		return 0;
	for (i = first_target(w, family, &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple);
	     i != NO_TARGET; i = next_target(w, i)) {
		const struct rs_ct_target *t = &w->targets[i];

		if (!target_match(t, family, ct, steered))
			continue;
		if (t->kind == RS_CT_COUNT)
			w->counts[i]++;
		else
			del = true;
	}
	return del;
}

static int steered(struct nf_conn *ct, void *data)
{
	return rs_ct_steered(ct);
}

void rs_ct_delete_steered(struct net *net)
{
	struct nf_ct_iter_data iter = { .net = net };

	nf_ct_iterate_cleanup_net(steered, &iter);
}

u64 rs_ct_walk(struct net *net, const struct rs_ct_target *targets, u32 n,
	       u64 *counts)
{
	struct walk w = { .targets = targets, .counts = counts, .n = n };
	struct nf_ct_iter_data iter = { .net = net, .data = &w };
	u64 start = ktime_get_ns();
	u32 i;

	for (i = 0; i < n; i++) {
		if (counts)
			counts[i] = 0;
		if (targets[i].kind == RS_CT_NULL_BOUND)
			w.null_bound = true;
	}
	if (!n)
		return 0;
	index_targets(&w);
	nf_ct_iterate_cleanup_net(walk_one, &iter);
	kvfree(w.heads);
	return ktime_get_ns() - start;
}

int rs_ct_target_cmp(const struct rs_ct_target *a, const struct rs_ct_target *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->proto != b->proto)
		return a->proto < b->proto ? -1 : 1;
	if (a->port != b->port)
		return be16_to_cpu(a->port) < be16_to_cpu(b->port) ? -1 : 1;
	return memcmp(&a->vip, &b->vip, rs_addr_len(a->family));
}

struct conns_walk {
	struct rs_ct_count *svcs;	/* sorted by rs_ct_target_cmp() */
	u32 n;
};

/* The service whose VIP @ct was sent to, if it is counted. */
static struct rs_ct_count *count_service(const struct conns_walk *w, u8 family,
					 const struct nf_conn *ct)
{
	const struct nf_conntrack_tuple *orig = &ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple;
	struct rs_ct_target key = {
		.family = family,
		.proto = orig->dst.protonum,
		.port = orig->dst.u.all,
	};
	u32 lo = 0, hi = w->n;

	memcpy(&key.vip, &orig->dst.u3, rs_addr_len(family));
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

/*
 * What a drain waits for is the connections that can still carry data:
 * TCP opening, established or closed in one direction only, and UDP. A
 * TCP entry past both FINs (LAST_ACK, TIME_WAIT, CLOSE) carries no more,
 * though conntrack keeps it two minutes: counted apart.
 */
static u64 *conn_slot(struct rs_ct_conns *conns, const struct nf_conn *ct)
{
	if (nf_ct_protonum(ct) != IPPROTO_TCP)
		return &conns->other;
	switch (READ_ONCE(ct->proto.tcp.state)) {
	case TCP_CONNTRACK_ESTABLISHED:
		return &conns->established;
	case TCP_CONNTRACK_LAST_ACK:
	case TCP_CONNTRACK_TIME_WAIT:
	case TCP_CONNTRACK_CLOSE:
		return &conns->closed;
	default:
		return &conns->other;
	}
}

static int count_conn(struct nf_conn *ct, void *data)
{
	const struct nf_conntrack_tuple *reply;
	struct conns_walk *w = data;
	struct rs_member m = {};
	struct rs_ct_count *c;
	u8 family;
	int i;

	family = ct_family(ct);
	if (!family || !rs_ct_steered(ct))
		return 0;
	c = count_service(w, family, ct);
	if (!c || !matches(&c->service, ct))
		return 0;
	reply = &ct->tuplehash[IP_CT_DIR_REPLY].tuple;
	m.family = family;
	memcpy(m.addr, &reply->src.u3, rs_addr_len(family));
	m.port = reply->src.u.all;
	i = member_search(c, &m);
	if (i >= 0)
		(*conn_slot(&c->conns[i], ct))++;
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
