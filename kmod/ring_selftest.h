/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring's known-answer check (ring_selftest.c): the module refuses to
 * load, and the host tests fail, if this build's SipHash, byte layouts or
 * owners differ from the uapi's definition.
 */
#ifndef _RINGSTEER_RING_SELFTEST_H
#define _RINGSTEER_RING_SELFTEST_H

#include "ring_shim.h"

/* Known-answer check of hash, layouts and owners: 0 or -EINVAL. */
int rs_ring_selftest(void);

/*
 * SipHash-2-4 of the bytes 00 01 .. of length 0..63 under the key 00..0f, as
 * siphash() returns it: the reference vectors, kept once for the module's
 * check and the host tests.
 */
extern const u64 rs_siphash_vectors[64];

#endif /* _RINGSTEER_RING_SELFTEST_H */
