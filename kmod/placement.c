// SPDX-License-Identifier: GPL-2.0
/*
 * Slot placement's part of a change; see placement.h. Runs under the
 * namespace mutex, in process context: it may allocate and sleep. The
 * packet path reads only the table it builds (rs_slots_lookup()).
 */

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/netlink.h>

#include "compat.h"
#include "placement.h"

static int cmp_u16(const void *a, const void *b)
{
	return *(const u16 *)a - *(const u16 *)b;
}

/* Each slot of @s[@n], sorted, below @cap, once, and into @map. */
static int check_own(const u16 *s, u32 n, u32 cap, unsigned long *map,
		     struct netlink_ext_ack *extack)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (s[i] >= cap) {
			RS_ERR_MSG_FMT(extack, "a slot is beyond the service's capacity",
				       "slot %u is beyond the service's capacity", s[i]);
			return -ERANGE;
		}
		if (i && s[i] == s[i - 1]) {
			RS_ERR_MSG_FMT(extack, "a slot is given twice",
				       "slot %u is given twice", s[i]);
			return -EEXIST;
		}
		__set_bit(s[i], map);
	}
	return 0;
}

/* Whether a backend of @svc other than @b holds a slot of @map. */
static int check_others(const struct rs_service *svc, const struct rs_backend *b,
			const unsigned long *map, u32 cap,
			struct netlink_ext_ack *extack)
{
	const struct rs_backend *o;
	u32 i;

	list_for_each_entry(o, &svc->backends, node) {
		if (o == b)
			continue;
		for (i = 0; i < o->nslots; i++) {
			if (o->slots[i] < cap && test_bit(o->slots[i], map)) {
				RS_ERR_MSG_FMT(extack,
					       "a slot is held by another backend of the service",
					       "slot %u is held by another backend of the service",
					       o->slots[i]);
				return -EEXIST;
			}
		}
	}
	return 0;
}

/* The slots @attr gives, sorted and checked, into *@out (*@n of them). */
static int parse_slots(const struct rs_service *svc, const struct rs_backend *b,
		       const struct nlattr *attr, u16 **out, u16 *n,
		       struct netlink_ext_ack *extack)
{
	u32 cnt = nla_len(attr) / sizeof(u16), cap = svc->conf.capacity;
	unsigned long *map;
	u16 *s;
	int err;

	s = kvmalloc_array(cnt, sizeof(*s), GFP_KERNEL_ACCOUNT);
	map = bitmap_zalloc(cap, GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!s || !map)
		goto out;
	nla_memcpy(s, attr, cnt * sizeof(*s));
	sort(s, cnt, sizeof(*s), cmp_u16, NULL);
	err = check_own(s, cnt, cap, map, extack) ?:
	      check_others(svc, b, map, cap, extack);
	if (err) {
		NL_SET_BAD_ATTR(extack, attr);
		goto out;
	}
	*out = s;
	*n = cnt;
	s = NULL;
out:
	bitmap_free(map);
	kvfree(s);
	return err;
}

int rs_slots_prepare(const struct rs_service *svc, const struct rs_backend *b,
		     const struct nlattr *attr, u32 weight, u16 **slots,
		     u16 *nslots, struct netlink_ext_ack *extack)
{
	int err;

	*slots = NULL;
	*nslots = 0;
	if (svc->conf.placement != RINGSTEER_PLACEMENT_SLOTS) {
		if (!attr)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, attr, "slots apply to placement slots only");
		return -EINVAL;
	}
	if (!attr && !b) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a backend of a placement slots service needs its slots (ringctl picks free ones)");
		return -EINVAL;
	}
	if (!attr && weight == b->nslots)
		return 0;
	if (!attr) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a placement slots backend holds as many slots as its weight: give its slots");
		return -EINVAL;
	}
	err = parse_slots(svc, b, attr, slots, nslots, extack);
	if (err || *nslots == weight)
		return err;
	kvfree(*slots);
	*slots = NULL;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "a placement slots backend holds as many slots as its weight");
	return -EINVAL;
}

int rs_slots_check_capacity(const struct rs_service *svc,
			    const struct rs_service_conf *conf,
			    struct netlink_ext_ack *extack)
{
	const struct rs_backend *b;

	if (conf->placement != RINGSTEER_PLACEMENT_SLOTS)
		return 0;
	/* Sorted: the last is the highest. */
	list_for_each_entry(b, &svc->backends, node) {
		if (b->nslots && b->slots[b->nslots - 1] >= conf->capacity) {
			RS_ERR_MSG_FMT(extack,
				       "a backend holds a slot beyond the new capacity: move it first",
				       "slot %u is beyond the new capacity: move it first",
				       b->slots[b->nslots - 1]);
			return -ERANGE;
		}
	}
	return 0;
}

/*
 * The backend of @svc with @m's identity, searched from *@pos on: both
 * the list and the ring's members are in identity order, so one pass
 * over the list finds them all. NULL if none (a new backend).
 */
static const struct rs_backend *next_holder(const struct rs_service *svc,
					    const struct rs_backend **pos,
					    const struct rs_member *m)
{
	const struct rs_backend *o = *pos;
	int c;

	list_for_each_entry_from(o, &svc->backends, node) {
		c = rs_member_cmp(&o->member, m);
		if (c > 0)
			break;
		if (!c) {
			*pos = o;
			return o;
		}
	}
	*pos = o;
	return NULL;
}

static u32 add_holders(struct rs_slot_holder *h, u32 n, u32 room,
		       const u16 *s, u16 ns, u16 member)
{
	u16 i;

	for (i = 0; i < ns && n < room; i++) {
		h[n].slot = s[i];
		h[n++].member = member;
	}
	return n;
}

struct rs_slots *rs_slots_table(const struct rs_service *svc,
				const struct rs_service_conf *conf,
				const struct rs_ring *ring,
				const struct rs_backend *b, const u16 *slots,
				u16 n)
{
	const struct rs_backend *pos, *o;
	struct rs_slot_holder *h;
	struct rs_slots *table;
	u32 i, nh = 0;

	/* One point a slot (rs_ring_vnodes()): as many holders as points. */
	h = kvmalloc_array(max(ring->npoints, 1U), sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return ERR_PTR(-ENOMEM);
	pos = list_first_entry(&svc->backends, struct rs_backend, node);
	for (i = 0; i < ring->nmembers; i++) {
		const struct rs_member *m = &ring->members[i];

		if (b && slots && !rs_member_cmp(m, &b->member)) {
			nh = add_holders(h, nh, ring->npoints, slots, n, i);
			continue;
		}
		o = next_holder(svc, &pos, m);
		if (WARN_ON_ONCE(!o)) {
			kvfree(h);
			return ERR_PTR(-EINVAL);
		}
		nh = add_holders(h, nh, ring->npoints, o->slots, o->nslots, i);
	}
	table = rs_slots_build(ilog2(conf->capacity), h, nh);
	kvfree(h);
	return table;
}

u64 rs_slots_share(const struct rs_slots *table, u16 nslots)
{
	if (!table->live)
		return 0;
	if (nslots >= table->live)
		return U64_MAX;
	return mul_u64_u32_div(U64_MAX, nslots, table->live);
}
