// SPDX-License-Identifier: GPL-2.0
/* Test-only ring entry points, see ring_test.h. */
#include "ring_test.h"

u64 (*rs_test_vnode_pos)(const struct rs_member *m, u32 vnode);
bool rs_test_fp_serialise;

static u64 (*hook)(const struct rs_member *m, u32 vnode, void *arg);
static void *hook_arg;

static u64 hooked_pos(const struct rs_member *m, u32 vnode)
{
	return hook(m, vnode, hook_arg);
}

struct rs_ring *rs_ring_build_hooked(const struct rs_member *m, u32 n,
				     u32 vnodes_per_weight,
				     u64 (*vnode_pos)(const struct rs_member *m,
						      u32 vnode, void *arg),
				     void *arg)
{
	static const u8 zero_key[RINGSTEER_KEY_LEN];

	hook = vnode_pos;
	hook_arg = arg;
	rs_test_vnode_pos = vnode_pos ? hooked_pos : NULL;
	return rs_ring_build(zero_key, m, n, vnodes_per_weight);
}

int rs_ring_lookup_bsearch(const struct rs_ring *r, u64 pos)
{
	u32 lo = 0, hi = r->npoints;

	if (!r->npoints)
		return -ENOENT;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (r->pos[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return r->owner[lo == r->npoints ? 0 : lo];
}
