/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring entry points for the unit tests and the benchmark only; neither the
 * module nor ringctl has them. The ring they link is built with
 * -DRS_TEST_HOOKS, which makes kmod/ring.c include this header.
 */
#ifndef _RINGSTEER_RING_TEST_H
#define _RINGSTEER_RING_TEST_H

#include "ring.h"

/*
 * When set, replaces H(ID || be32(vnode)) for every point the ring code
 * generates, in whole builds and in changes alike.
 */
extern u64 (*rs_test_vnode_pos)(const struct rs_member *m, u32 vnode);

/*
 * When set, rs_ring_fingerprint() serialises the positions and owners into
 * little-endian bytes, as on a big-endian host, instead of hashing them in
 * place.
 */
extern bool rs_test_fp_serialise;

/*
 * Builds a ring (zero key) whose positions come from @vnode_pos(m, vnode,
 * @arg), as do those of every ring built or changed after it: the hook is
 * process-wide, which is fine as the harness runs each test in a process
 * of its own.
 */
struct rs_ring *rs_ring_build_hooked(const struct rs_member *m, u32 n,
				     u32 vnodes_per_weight,
				     u64 (*vnode_pos)(const struct rs_member *m,
						      u32 vnode, void *arg),
				     void *arg);

/* rs_ring_lookup()'s answer by plain binary search over all points. */
int rs_ring_lookup_bsearch(const struct rs_ring *r, u64 pos);

#endif /* _RINGSTEER_RING_TEST_H */
