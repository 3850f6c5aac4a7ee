// SPDX-License-Identifier: GPL-2.0
/*
 * Kept rings as configuration (chain_kept.h): records in, rings built;
 * rings out, records. Both sides walk members in identity order, the
 * order every ring keeps them in (ring.h).
 */

#include <net/netlink.h>

#include "uapi/ringsteer.h"
#include "chain_kept.h"

#define REC_LEN sizeof(struct ringsteer_kept_member)

static void rec_member(const struct ringsteer_kept_member *r,
		       struct rs_member *m)
{
	memset(m, 0, sizeof(*m));
	m->family = r->family;
	memcpy(m->addr, r->addr, sizeof(m->addr));
	m->port = r->port;
	m->weight = r->weight;
}

static int rec_check(const struct ringsteer_kept_member *r, u8 nrings,
		     const struct rs_service *svc, struct netlink_ext_ack *extack)
{
	static const u8 zero[12];

	if (r->ring >= nrings) {
		NL_SET_ERR_MSG_MOD(extack, "kept: a record of a ring past kept-rings");
		return -EINVAL;
	}
	if (r->family != svc->family || !r->port ||
	    (r->family == AF_INET && memcmp(r->addr + 4, zero, sizeof(zero)))) {
		NL_SET_ERR_MSG_MOD(extack,
				   "kept: a record's family is not the service's, its port is 0 or its IPv4 padding not zero");
		return -EINVAL;
	}
	if (r->weight > RINGSTEER_MAX_WEIGHT) {
		NL_SET_ERR_MSG_MOD(extack, "kept: a weight above max-weight");
		return -EINVAL;
	}
	return 0;
}

/* Index of @id's identity among @m[0..n-1], or -1. */
static int find(const struct rs_member *m, u32 n, const struct rs_member *id)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (!rs_member_cmp(&m[i], id))
			return i;
	return -1;
}

/* Kept ring @ring: @cur's members with @recs (@nrec) applied. */
static int merge(const struct rs_ring *cur, u8 ring,
		 const struct ringsteer_kept_member *recs, u32 nrec,
		 struct rs_kept_req *req, struct netlink_ext_ack *extack)
{
	struct rs_member *m, x;
	u32 n = cur->nmembers, i, k;
	bool *touched;
	int idx;

	m = kvcalloc(n + nrec + 1, sizeof(*m), GFP_KERNEL_ACCOUNT);
	touched = kvcalloc(n + nrec + 1, sizeof(*touched), GFP_KERNEL_ACCOUNT);
	req->m[ring] = m;
	if (!m || !touched) {
		kvfree(touched);
		return -ENOMEM;
	}
	memcpy(m, cur->members, n * sizeof(*m));
	for (i = 0; i < nrec; i++) {
		if (recs[i].ring != ring)
			continue;
		rec_member(&recs[i], &x);
		idx = find(m, n, &x);
		if ((idx >= 0 && touched[idx]) || (idx < 0 && !x.weight)) {
			kvfree(touched);
			NL_SET_ERR_MSG_MOD(extack,
					   "kept: a backend twice in a ring, or weight 0 for one not on the service's ring");
			return -EINVAL;
		}
		if (idx < 0)
			idx = n++;
		m[idx] = x;
		touched[idx] = true;
	}
	kvfree(touched);
	for (i = 0, k = 0; i < n; i++)
		if (m[i].weight)
			m[k++] = m[i];
	req->nm[ring] = k;
	return 0;
}

int rs_kept_prepare(const struct rs_service *svc, const struct rs_ring *cur,
		    const struct rs_service_conf *conf,
		    const struct nlattr *rings, const struct nlattr *kept,
		    struct rs_kept_req *req, struct netlink_ext_ack *extack)
{
	const struct ringsteer_kept_member *recs;
	u32 nrec, i, n;
	int err;

	memset(req, 0, sizeof(*req));
	n = nla_get_u32(rings);
	if (conf->fwd.chain < 2 || n > conf->fwd.chain - 1 || !kept) {
		NL_SET_ERR_MSG_ATTR(extack, rings,
				    "kept-rings: needs kept, chain above 1 and at most chain - 1 rings");
		return -EINVAL;
	}
	if (nla_len(kept) % REC_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, kept,
				    "kept is an array of struct ringsteer_kept_member");
		return -EINVAL;
	}
	nrec = nla_len(kept) / REC_LEN;
	if (nrec > RINGSTEER_MAX_KEPT_RECORDS) {
		NL_SET_ERR_MSG_ATTR(extack, kept, "kept: more than 64 records");
		return -E2BIG;
	}
	recs = nla_data(kept);
	for (i = 0; i < nrec; i++) {
		err = rec_check(&recs[i], n, svc, extack);
		if (err)
			return err;
	}
	for (req->n = 0; req->n < n; req->n++) {
		err = merge(cur, req->n, recs, nrec, req, extack);
		if (err)
			return err;
		for (i = 0; i < req->nm[req->n]; i++)
			req->points += (u64)req->m[req->n][i].weight * conf->vnodes;
	}
	return 0;
}

int rs_kept_build(const struct rs_kept_req *req, const u8 *key, u32 vnodes,
		  struct rs_steer *steer)
{
	struct rs_ring *r;
	u8 i;

	for (i = 0; i < req->n; i++) {
		r = rs_ring_build(key, req->m[i], req->nm[i], vnodes);
		if (IS_ERR(r))
			return PTR_ERR(r);
		steer->kept[i] = r;
		steer->owns |= RS_OWNS_KEPT(i);
		steer->nkept = i + 1;
	}
	return 0;
}

void rs_kept_release(struct rs_kept_req *req)
{
	u8 i;

	for (i = 0; i < RS_CHAIN_MAX_HOPS; i++) {
		kvfree(req->m[i]);
		req->m[i] = NULL;
	}
}

/*
 * The records of kept ring @k against the current @cur, into @out (NULL:
 * only counted): both member lists are in identity order.
 */
static u32 diff(const struct rs_ring *cur, const struct rs_ring *k, u8 ring,
		struct ringsteer_kept_member *out)
{
	const struct rs_member *a, *b, *m;
	u32 i = 0, j = 0, n = 0, w;
	int c;

	while (i < cur->nmembers || j < k->nmembers) {
		a = i < cur->nmembers ? &cur->members[i] : NULL;
		b = j < k->nmembers ? &k->members[j] : NULL;
		c = !a ? 1 : !b ? -1 : rs_member_cmp(a, b);
		m = c > 0 ? b : a;
		w = c < 0 ? 0 : b->weight;
		i += c <= 0;
		j += c >= 0;
		if (!c && a->weight == b->weight)
			continue;
		if (out) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].ring = ring;
			out[n].family = m->family;
			out[n].port = m->port;
			out[n].weight = w;
			memcpy(out[n].addr, m->addr, sizeof(out[n].addr));
		}
		n++;
	}
	return n;
}

int rs_kept_put(struct sk_buff *skb, const struct rs_steer *steer)
{
	struct ringsteer_kept_member *out;
	struct nlattr *a;
	u32 n = 0;
	u8 i;

	if (!steer || steer->fwd.chain < 2)
		return 0;
	for (i = 0; i < steer->nkept; i++)
		n += diff(steer->ring, steer->kept[i], i, NULL);
	if (nla_put_u32(skb, RINGSTEER_SERVICE_A_KEPT_RINGS, steer->nkept))
		return -EMSGSIZE;
	a = nla_reserve(skb, RINGSTEER_SERVICE_A_KEPT, n * REC_LEN);
	if (!a)
		return -EMSGSIZE;
	out = nla_data(a);
	for (i = 0; i < steer->nkept; i++)
		out += diff(steer->ring, steer->kept[i], i, out);
	return 0;
}
