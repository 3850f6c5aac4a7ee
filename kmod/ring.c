// SPDX-License-Identifier: GPL-2.0
/*
 * The consistent-hashing ring, shared by the module and ringctl.
 *
 * Storage is three arrays in one allocation: the sorted positions (8 bytes
 * a point), the owner of each point (2 bytes, a member index) and an index
 * over the top bits of the position. Bucket b of the index covers the
 * positions whose top "bits" bits equal b; index[b] is the first point at
 * or after the start of that bucket. With 2^bits >= npoints / 2 buckets a
 * bucket holds one to two points on average, so a lookup reads two
 * adjacent index entries, one or two positions and one owner: three to
 * four cache lines, where a binary search over 256k points takes eighteen
 * dependent steps. The index costs 2 to 4 bytes a point.
 *
 * Everything here is written in the subset of C that ring_shim.h makes
 * work both in the kernel and in userspace.
 */

#include "ring.h"

/* log2 of the average number of points per index bucket (see above). */
#define RS_BUCKET_LOAD_LOG	1
#define RS_INDEX_MAX_BITS	30
/* Buckets larger than this are binary searched instead of scanned. */
#define RS_SCAN_MAX		8
/* Points hashed between two chances to reschedule (about 0.1 ms). */
#define RS_RESCHED_POINTS	4096

/* Owners are u16 member indices; the index holds u32 point offsets. */
static_assert(RINGSTEER_MAX_BACKENDS <= 65536, "owner is a u16");
static_assert(RINGSTEER_MAX_POINTS < (1ULL << 31), "index is a u32");

static u8 id_family(u8 family)
{
	if (family == AF_INET)
		return 4;
	if (family == AF_INET6)
		return 6;
	return 0;
}

int rs_member_id(const struct rs_member *m, u8 id[RINGSTEER_ID_LEN])
{
	u8 fam = id_family(m->family);
	int i;

	if (!fam)
		return -EINVAL;
	if (fam == 4) {
		for (i = 4; i < 16; i++)
			if (m->addr[i])
				return -EINVAL;
	}
	id[0] = fam;
	memcpy(id + 1, m->addr, 16);
	memcpy(id + 17, &m->port, sizeof(m->port));
	return 0;
}

static int check_member(const struct rs_member *m)
{
	u8 id[RINGSTEER_ID_LEN];
	int err;

	err = rs_member_id(m, id);
	if (err)
		return err;
	if (m->weight < 1 || m->weight > RINGSTEER_MAX_WEIGHT)
		return -ERANGE;
	return 0;
}

int rs_member_cmp(const struct rs_member *a, const struct rs_member *b)
{
	int d;

	d = (int)id_family(a->family) - (int)id_family(b->family);
	if (d)
		return d;
	d = memcmp(a->addr, b->addr, sizeof(a->addr));
	if (d)
		return d;
	return memcmp(&a->port, &b->port, sizeof(a->port));
}

static int member_cmp(const void *a, const void *b)
{
	return rs_member_cmp(a, b);
}

/* First member not below @m in @r's order. */
static u32 member_lower_bound(const struct rs_ring *r,
			      const struct rs_member *m)
{
	u32 lo = 0, hi = r->nmembers;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (rs_member_cmp(&r->members[mid], m) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rs_ring_find_member(const struct rs_ring *r, const struct rs_member *id)
{
	u32 i;

	if (!id_family(id->family))
		return -EINVAL;
	i = member_lower_bound(r, id);
	if (i < r->nmembers && !rs_member_cmp(&r->members[i], id))
		return i;
	return -ENOENT;
}

u64 rs_vnode_position(const struct rs_key *key, const struct rs_member *m,
		      u32 vnode)
{
	u8 buf[RINGSTEER_VNODE_LEN];
	__be32 be = cpu_to_be32(vnode);

	if (rs_member_id(m, buf))
		return 0;
	memcpy(buf + RINGSTEER_ID_LEN, &be, sizeof(be));
	return rs_siphash(buf, sizeof(buf), key);
}

u64 rs_flow_position(const struct rs_key *key, const struct rs_flow *f,
		     enum ringsteer_hash_mode mode)
{
	u8 buf[RINGSTEER_FLOW_LEN];

	buf[0] = id_family(f->family);
	if (mode == RINGSTEER_HASH_SOURCE) {
		memcpy(buf + 1, f->saddr, 16);
		return rs_siphash(buf, RINGSTEER_SOURCE_LEN, key);
	}
	buf[1] = f->proto;
	memcpy(buf + 2, f->saddr, 16);
	memcpy(buf + 18, f->daddr, 16);
	memcpy(buf + 34, &f->sport, sizeof(f->sport));
	memcpy(buf + 36, &f->dport, sizeof(f->dport));
	return rs_siphash(buf, RINGSTEER_FLOW_LEN, key);
}

/*
 * Unit tests replace H(ID || be32(vnode)) to construct ties and wraparounds.
 * Elsewhere the hook is a constant NULL: the compiler drops the branch.
 */
#ifdef RS_TEST_HOOKS
#include "ring_test.h"
#else
static u64 (*const rs_test_vnode_pos)(const struct rs_member *m, u32 vnode);
#endif

/* Positions of points [from, to) of member @m, in vnode order. */
static void gen_points(const struct rs_ring *r, const struct rs_member *m,
		       u32 from, u32 to, u64 *out)
{
	u8 buf[RINGSTEER_VNODE_LEN];
	__be32 be;
	u32 i;

	rs_member_id(m, buf);
	for (i = from; i < to; i++) {
		if (i % RS_RESCHED_POINTS == 0)
			rs_resched();
		if (rs_test_vnode_pos) {
			*out++ = rs_test_vnode_pos(m, i);
			continue;
		}
		be = cpu_to_be32(i);
		memcpy(buf + RINGSTEER_ID_LEN, &be, sizeof(be));
		*out++ = rs_siphash(buf, sizeof(buf), &r->key);
	}
}

static u32 index_bits(u32 npoints)
{
	u32 bits = 0;

	while (bits < RS_INDEX_MAX_BITS &&
	       (1U << (bits + RS_BUCKET_LOAD_LOG)) < npoints)
		bits++;
	return bits ? bits : 1;
}

u32 rs_ring_buckets(const struct rs_ring *r)
{
	return 1U << (64 - r->index_shift);
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

/*
 * Allocates a ring for @nmembers members and @npoints points and copies
 * the key and vnodes from @tmpl if given. The caller has checked
 * the limits, which keep every size below 16 MiB.
 */
static struct rs_ring *ring_alloc(const struct rs_ring *tmpl, u32 nmembers,
				  u32 npoints)
{
	u32 bits = index_bits(npoints);
	size_t off_pos, off_index, off_owner, size;
	struct rs_ring *r;

	off_pos = align8(sizeof(*r) + (size_t)nmembers * sizeof(r->members[0]));
	off_index = off_pos + (size_t)npoints * sizeof(u64);
	off_owner = off_index + ((size_t)(1U << bits) + 1) * sizeof(u32);
	size = off_owner + (size_t)npoints * sizeof(u16);

	r = rs_alloc(size);
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->nmembers = nmembers;
	r->npoints = npoints;
	r->index_shift = 64 - bits;
	r->size = size;
	r->pos = (u64 *)((u8 *)r + off_pos);
	r->index = (u32 *)((u8 *)r + off_index);
	r->owner = (u16 *)((u8 *)r + off_owner);
	if (tmpl) {
		r->key = tmpl->key;
		r->vnodes = tmpl->vnodes;
	}
	return r;
}

/* Counting rather than searching: no data-dependent branches. */
static void build_index(struct rs_ring *r)
{
	u32 nb = rs_ring_buckets(r), n = r->npoints, shift = r->index_shift;
	const u64 *pos = r->pos;
	u32 *index = r->index;
	u32 b, i;

	memset(index, 0, (nb + 1) * sizeof(u32));
	for (i = 0; i < n; i++)
		index[(pos[i] >> shift) + 1]++;
	for (b = 1; b <= nb; b++)
		index[b] += index[b - 1];
}

/*
 * After adding (@sign > 0) or removing the sorted positions @pts[0..k),
 * bucket b moves by the number of those below it. Cheaper than counting
 * every point again, unless the number of buckets changed.
 */
static void adjust_index(struct rs_ring *r, const struct rs_ring *old,
			 const u64 *pts, u32 k, int sign)
{
	u32 nb = rs_ring_buckets(r), shift = r->index_shift, b = 0, j;
	const u32 *from = old->index;
	u32 *index = r->index;

	if (shift != old->index_shift) {
		build_index(r);
		return;
	}
	for (j = 0; j <= k; j++) {
		u32 end = j < k ? pts[j] >> shift : nb;

		for (; b <= end; b++)
			index[b] = sign > 0 ? from[b] + j : from[b] - j;
	}
}

/* Point order: position, then owner (= identity order). */
static bool pt_less(const u64 *pos, const u16 *own, u32 a, u32 b)
{
	if (pos[a] != pos[b])
		return pos[a] < pos[b];
	return own && own[a] < own[b];
}

static void pt_swap(u64 *pos, u16 *own, u32 a, u32 b)
{
	u64 p = pos[a];

	pos[a] = pos[b];
	pos[b] = p;
	if (own) {
		u16 o = own[a];

		own[a] = own[b];
		own[b] = o;
	}
}

static void sift_down(u64 *pos, u16 *own, u32 root, u32 n)
{
	for (;;) {
		u32 child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && pt_less(pos, own, child, child + 1))
			child++;
		if (!pt_less(pos, own, root, child))
			return;
		pt_swap(pos, own, root, child);
		root = child;
	}
}

/*
 * Sorts points in place; @own may be NULL (one owner). Buckets are tiny,
 * so insertion sort; heapsort bounds the rare large input.
 */
static void sort_points(u64 *pos, u16 *own, u32 n)
{
	u32 i, j;

	if (n > 16) {
		for (i = n / 2; i-- > 0;)
			sift_down(pos, own, i, n);
		for (i = n - 1; i > 0; i--) {
			pt_swap(pos, own, 0, i);
			sift_down(pos, own, 0, i);
		}
		return;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && pt_less(pos, own, j, j - 1); j--)
			pt_swap(pos, own, j, j - 1);
}

/* Checks the arguments of a build; *@total gets the number of points. */
static int check_build(const struct rs_member *m, u32 n, u32 vnodes,
		       u32 *total)
{
	u64 sum = 0;
	u32 i;
	int err;

	if (vnodes < 1 || vnodes > RINGSTEER_MAX_VNODES)
		return -ERANGE;
	if (n > RINGSTEER_MAX_BACKENDS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		err = check_member(&m[i]);
		if (err)
			return err;
		sum += (u64)m[i].weight * vnodes;
	}
	if (sum > RINGSTEER_MAX_POINTS)
		return -E2BIG;
	*total = sum;
	return 0;
}

/* Copies @m into @r in identity order, or -EEXIST for a duplicate. */
static int set_members(struct rs_ring *r, const struct rs_member *m)
{
	u32 i, n = r->nmembers;

	memcpy(r->members, m, n * sizeof(*m));
	rs_sort(r->members, n, sizeof(*m), member_cmp);
	for (i = 1; i < n; i++)
		if (!rs_member_cmp(&r->members[i - 1], &r->members[i]))
			return -EEXIST;
	return 0;
}

/* Every point of @r, member after member, into @tmp[npoints]. */
static void gen_all_points(const struct rs_ring *r, u64 *tmp)
{
	u32 i, k;

	for (i = 0; i < r->nmembers; i++) {
		k = r->members[i].weight * r->vnodes;
		gen_points(r, &r->members[i], 0, k, tmp);
		tmp += k;
	}
}

/*
 * Counting sort of @tmp (as gen_all_points() left it) by bucket into @r,
 * then a sort within each bucket. Bucket counts are summed into bucket
 * ends; filling backwards leaves each index[b] at its bucket's start.
 */
static void place_points(struct rs_ring *r, const u64 *tmp)
{
	u32 nb = rs_ring_buckets(r), shift = r->index_shift, k = r->npoints;
	u32 *index = r->index, i, b;
	u16 *own = r->owner;
	u64 *pos = r->pos;

	memset(index, 0, (nb + 1) * sizeof(u32));
	for (i = 0; i < k; i++)
		index[tmp[i] >> shift]++;
	for (b = 1; b < nb; b++)
		index[b] += index[b - 1];
	for (i = r->nmembers; i-- > 0;) {
		u32 cnt = r->members[i].weight * r->vnodes;

		while (cnt--) {
			u64 p = tmp[--k];
			u32 at = --index[p >> shift];

			pos[at] = p;
			own[at] = i;
		}
	}
	index[nb] = r->npoints;
	for (b = 0; b < nb; b++)
		sort_points(pos + index[b], own + index[b],
			    index[b + 1] - index[b]);
}

struct rs_ring *rs_ring_build(const u8 key[RINGSTEER_KEY_LEN],
			      const struct rs_member *m, u32 n,
			      u32 vnodes_per_weight)
{
	struct rs_ring *r;
	u64 *tmp;
	u32 total;
	int err;

	err = check_build(m, n, vnodes_per_weight, &total);
	if (err)
		return ERR_PTR(err);
	err = -ENOMEM;
	r = ring_alloc(NULL, n, total);
	tmp = rs_alloc(total ? total * sizeof(u64) : 1);
	if (!r || !tmp)
		goto fail;
	rs_key_init(&r->key, key);
	r->vnodes = vnodes_per_weight;
	err = set_members(r, m);
	if (err)
		goto fail;
	gen_all_points(r, tmp);
	place_points(r, tmp);
	rs_free(tmp);
	return r;
fail:
	rs_free(tmp);
	rs_ring_free(r);
	return ERR_PTR(err);
}

/*
 * Incremental changes. A change adds or removes the points of one member,
 * whose positions are generated again and sorted (a few hundred hashes),
 * and copies the old arrays around them in runs. Each added or removed
 * point is located through the old ring's index, so the cost is one copy
 * of the arrays, O(npoints), and the index is adjusted rather than
 * rebuilt.
 */
struct splice {
	const u64 *pts;		/* sorted positions added or removed */
	u32 k;
	int sign;		/* +1 add, -1 remove */
	u16 own;		/* their owner, in the old numbering */
	u16 remap_from;		/* old owners >= this ... */
	int delta;		/* ... get this added */
};

static void copy_run(struct rs_ring *r, u32 o, const struct rs_ring *old,
		     u32 i, u32 cnt, const struct splice *sp)
{
	u16 lim = sp->remap_from, d = sp->delta;
	const u16 *from = old->owner + i;
	u16 *to = r->owner + o;
	u32 x;

	memcpy(r->pos + o, old->pos + i, cnt * sizeof(u64));
	/* Locals, so the compiler can vectorize this. */
	for (x = 0; x < cnt; x++)
		to[x] = from[x] + (from[x] >= lim ? d : 0);
}

/* First old point at or after @i that does not sort before (@p, own). */
static u32 find_point(const struct rs_ring *old, u32 i, u64 p,
		      const struct splice *sp)
{
	u32 at = old->index[p >> old->index_shift];

	if (at < i)
		at = i;
	/*
	 * An added point goes after the equal positions of lower owners; a
	 * removed one is the first equal position of its own owner.
	 */
	while (at < old->npoints &&
	       (old->pos[at] < p ||
		(old->pos[at] == p && (sp->sign > 0 ?
				       old->owner[at] < sp->own :
				       old->owner[at] != sp->own))))
		at++;
	return at;
}

static int splice_points(struct rs_ring *r, const struct rs_ring *old,
			 const struct splice *sp)
{
	u32 i = 0, o = 0, j, at;

	for (j = 0; j < sp->k; j++) {
		at = find_point(old, i, sp->pts[j], sp);
		copy_run(r, o, old, i, at - i, sp);
		o += at - i;
		i = at;
		if (sp->sign > 0) {
			r->pos[o] = sp->pts[j];
			r->owner[o++] = sp->own;
		} else {
			/* Only a nondeterministic test hook can miss. */
			if (at == old->npoints || old->pos[at] != sp->pts[j])
				return -EINVAL;
			i++;
		}
	}
	if (o + old->npoints - i != r->npoints)
		return -EINVAL;
	copy_run(r, o, old, i, old->npoints - i, sp);
	adjust_index(r, old, sp->pts, sp->k, sp->sign);
	return 0;
}

/*
 * Fills the points of @r, whose members are already in place: those of
 * @old plus or minus points [from, to) of member @m. Returns @r, or frees
 * it and returns an ERR_PTR().
 */
static struct rs_ring *change(struct rs_ring *r, const struct rs_ring *old,
			      const struct rs_member *m, u32 from, u32 to,
			      struct splice *sp)
{
	u64 *pts = rs_alloc((to - from) * sizeof(u64) + 1);
	int err = -ENOMEM;

	if (pts) {
		gen_points(r, m, from, to, pts);
		sort_points(pts, NULL, to - from);
		sp->pts = pts;
		sp->k = to - from;
		err = splice_points(r, old, sp);
		rs_free(pts);
	}
	if (err) {
		rs_ring_free(r);
		return ERR_PTR(err);
	}
	return r;
}

struct rs_ring *rs_ring_add_member(const struct rs_ring *old,
				   const struct rs_member *m)
{
	struct splice sp = { .sign = 1, .delta = 1 };
	struct rs_ring *r;
	u32 ins, k;
	int err;

	err = check_member(m);
	if (err)
		return ERR_PTR(err);
	ins = member_lower_bound(old, m);
	if (ins < old->nmembers && !rs_member_cmp(&old->members[ins], m))
		return ERR_PTR(-EEXIST);
	k = m->weight * old->vnodes;
	if (old->nmembers >= RINGSTEER_MAX_BACKENDS ||
	    old->npoints + k > RINGSTEER_MAX_POINTS)
		return ERR_PTR(-E2BIG);

	r = ring_alloc(old, old->nmembers + 1, old->npoints + k);
	if (!r)
		return ERR_PTR(-ENOMEM);
	memcpy(r->members, old->members, ins * sizeof(*m));
	r->members[ins] = *m;
	memcpy(r->members + ins + 1, old->members + ins,
	       (old->nmembers - ins) * sizeof(*m));
	/* Old owners from ins on move up; the new member sorts before them. */
	sp.own = ins;
	sp.remap_from = ins;
	return change(r, old, m, 0, k, &sp);
}

struct rs_ring *rs_ring_remove_member(const struct rs_ring *old, u32 idx)
{
	struct splice sp = { .sign = -1, .delta = -1 };
	struct rs_ring *r;
	u32 k;

	if (idx >= old->nmembers)
		return ERR_PTR(-ENOENT);
	k = old->members[idx].weight * old->vnodes;
	r = ring_alloc(old, old->nmembers - 1, old->npoints - k);
	if (!r)
		return ERR_PTR(-ENOMEM);
	memcpy(r->members, old->members, idx * sizeof(r->members[0]));
	memcpy(r->members + idx, old->members + idx + 1,
	       (old->nmembers - idx - 1) * sizeof(r->members[0]));
	sp.own = idx;
	sp.remap_from = idx + 1;
	return change(r, old, &old->members[idx], 0, k, &sp);
}

struct rs_ring *rs_ring_set_weight(const struct rs_ring *old, u32 idx,
				   u32 weight)
{
	struct splice sp = { .own = idx, .remap_from = U16_MAX };
	struct rs_ring *r;
	u32 from, to;

	if (idx >= old->nmembers)
		return ERR_PTR(-ENOENT);
	if (weight < 1 || weight > RINGSTEER_MAX_WEIGHT)
		return ERR_PTR(-ERANGE);
	from = old->members[idx].weight * old->vnodes;
	to = weight * old->vnodes;
	/* No overflow: to <= MAX_WEIGHT * MAX_VNODES, from <= npoints. */
	if (old->npoints - from + to > RINGSTEER_MAX_POINTS)
		return ERR_PTR(-E2BIG);

	r = ring_alloc(old, old->nmembers, old->npoints - from + to);
	if (!r)
		return ERR_PTR(-ENOMEM);
	memcpy(r->members, old->members, old->nmembers * sizeof(r->members[0]));
	r->members[idx].weight = weight;
	/* Growing adds the next vnodes, shrinking drops the last ones. */
	sp.sign = to >= from ? 1 : -1;
	return change(r, old, &old->members[idx], to >= from ? from : to,
		      to >= from ? to : from, &sp);
}

void rs_ring_free(struct rs_ring *r)
{
	if (!r)
		return;
	rs_memzero(&r->key, sizeof(r->key));
	rs_free(r);
}

int rs_ring_lookup(const struct rs_ring *r, u64 pos)
{
	const u64 *p = r->pos;
	u32 b, i, end;

	if (unlikely(!r->npoints))
		return -ENOENT;
	b = pos >> r->index_shift;
	i = r->index[b];
	end = r->index[b + 1];
	if (unlikely(end - i > RS_SCAN_MAX)) {
		while (i < end) {
			u32 mid = i + (end - i) / 2;

			if (p[mid] < pos)
				i = mid + 1;
			else
				end = mid;
		}
	} else {
		while (i < end && p[i] < pos)
			i++;
	}
	/* Past the bucket: the first point of a later one, or wrap. */
	if (i == r->npoints)
		i = 0;
	return r->owner[i];
}

/*
 * Number of positions each member owns: @arcs[nmembers] gets sum over its
 * points of (position - previous position) mod 2^64. The total is 2^64,
 * which does not fit: a member owning the whole ring gets U64_MAX.
 */
int rs_ring_arcs(const struct rs_ring *r, u64 *arcs)
{
	u32 i, n = r->npoints;

	memset(arcs, 0, r->nmembers * sizeof(*arcs));
	if (!n)
		return -ENOENT;
	if (r->pos[0] == r->pos[n - 1]) {
		arcs[r->owner[0]] = U64_MAX;
		return 0;
	}
	for (i = 0; i < n; i++) {
		u64 a = r->pos[i] - r->pos[i ? i - 1 : n - 1];
		u64 *s = &arcs[r->owner[i]];

		*s = *s + a < *s ? U64_MAX : *s + a;
	}
	return 0;
}
