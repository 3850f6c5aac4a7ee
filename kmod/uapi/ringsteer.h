/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ringsteer: steer new connections to backends by consistent hashing.
 *
 * Ring placement (normative)
 * --------------------------
 *
 * This section defines, byte for byte, which backend owns a flow. The
 * kernel module and "ringctl simulate" run the same code (kmod/ring.c) and
 * any other implementation must reproduce it exactly.
 *
 * Hash. H(m) is SipHash-2-4 of the byte string m under the service's
 * 128-bit key (RINGSTEER_KEY_LEN bytes k[0..15]). The key words are
 * k0 = le64(k[0..7]) and k1 = le64(k[8..15]), as in the SipHash paper; the
 * 64-bit result is read as an unsigned integer (the reference
 * implementation's 8 output bytes taken little-endian; the kernel's
 * siphash() return value). Positions are unsigned 64-bit integers; the
 * ring is the circle 0 .. 2^64 - 1.
 *
 * Family byte. 4 for IPv4 (AF_INET), 6 for IPv6 (AF_INET6). Any other
 * family is rejected.
 *
 * Address bytes, always 16: an IPv6 address as its 16 network-order
 * bytes; an IPv4 address as its 4 network-order bytes followed by 12 zero
 * bytes (not the ::ffff:0:0/96 mapped form).
 *
 * Backend identity, 19 bytes:
 *
 *	ID = [family u8][address 16][port be16]
 *
 * Virtual nodes. A backend of weight w in a service with v virtual nodes
 * per unit of weight has n = w * v points. Point i (0 <= i < n) is at
 *
 *	P(i) = H(ID || be32(i))			(23 bytes hashed)
 *
 * Raising the weight adds points n .. n' - 1 and lowering it removes the
 * highest-numbered points, so a weight change only moves flows to or from
 * that backend.
 *
 * Flow position, from the first packet of the connection:
 *
 *	RINGSTEER_HASH_FLOW:   F = H([family u8][l4 proto u8][saddr 16]
 *				     [daddr 16][sport be16][dport be16])
 *							(38 bytes hashed)
 *	RINGSTEER_HASH_SOURCE: F = H([family u8][saddr 16])	(17 bytes)
 *
 * Addresses use the 16-byte form above; ports are the transport ports as
 * on the wire (zero for protocols without ports).
 *
 * Point order. Points are sorted by position, and equal positions by
 * backend identity (memcmp of the 19 ID bytes); equal positions of the same
 * backend are indistinguishable. The sorted point list therefore depends
 * only on the key, v and the set of (backend, weight) pairs, never on the
 * order in which backends were added.
 *
 * Owner. The owner of a flow is the backend of the first point in that
 * order whose position is >= F; if there is none, the first point (the
 * ring wraps). Point i thus owns the positions in (P_prev, P_i], and the
 * first point also owns everything above the last point. An empty ring
 * (no active backend) owns nothing: lookups fail with ENOENT.
 *
 * Only active backends own points. Draining a backend removes its points
 * (as if it were deleted from the ring); its established connections are
 * kept by the connection tracking, not by the ring.
 *
 * Limits, per service (violations are rejected, nothing changes):
 *   - at most RINGSTEER_MAX_BACKENDS backends in the ring (E2BIG);
 *   - weight 1 .. RINGSTEER_MAX_WEIGHT; weight 0 is not a ring weight, use
 *     drain or delete instead (ERANGE);
 *   - virtual nodes per unit of weight 1 .. RINGSTEER_MAX_VNODES (ERANGE);
 *   - sum of w * v over all backends <= RINGSTEER_MAX_POINTS (E2BIG);
 *   - a backend identity appears at most once (EEXIST);
 *   - family other than 4/6, or nonzero IPv4 padding (EINVAL).
 * A ring takes about 12 bytes a point: an 8-byte position, a 2-byte owner
 * and 2 to 4 bytes of lookup index; 12 MiB at RINGSTEER_MAX_POINTS.
 *
 * Slot placement (normative)
 * --------------------------
 *
 * A service may place flows by slots instead of by the ring. Its slot
 * space has capacity C = 2^b positions, 1 <= b <= 16. Each backend holds
 * as many distinct slot numbers 0 .. C - 1 as its weight; no slot is held
 * by two backends of the service. The slots of backends on the ring
 * (active and up) are live; a draining or down backend's are not, as its
 * points leave the ring, and it keeps them for when it returns.
 *
 * Probes. The flow position F is computed as for the ring. For
 * i = 0, 1, 2, ... the i-th probe is
 *
 *	x_i = mix(F + (i + 1) * 0x9e3779b97f4a7c15)	(mod 2^64)
 *	s_i = x_i >> (64 - b)				(the top b bits)
 *
 * where mix(z) is SplitMix64's output function, on unsigned 64-bit
 * integers with wrapping multiplication:
 *
 *	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
 *	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
 *	mix(z) = z ^ (z >> 31)
 *
 * Owner. The owner of a flow is the backend holding the first live slot
 * among s_0 .. s_255. If none of those 256 probes is live, it is the
 * backend holding the first live slot of s_0, s_0 + 1, ..., C - 1, 0, 1,
 * ... (the scan). No live slot: lookups fail with ENOENT.
 *
 * Each flow's order of preference over the slot space is thus fixed by F
 * alone, and its owner depends only on which slots are live: adding,
 * removing, draining or reweighting a backend moves only flows to or from
 * that backend's slots, and two hosts with the same slots agree whatever
 * the order of their changes. Every live slot owns 1/L of the flows (L
 * live slots) up to the scan's share, which is at most (1 - L/C)^256: a
 * slot space at least an eighth full leaves the scan under one flow in
 * 10^14.
 *
 * Cost. A lookup computes at most 256 probes; with L live slots of C it
 * stops after (C/L) * (1 - (1 - L/C)^256) of them on average: about C/L
 * while C/L is well under 256 (1.28 at 800 of 1,024), less where the cap
 * binds (202 at L = 2, C = 1024). When none of them is live the scan
 * reads at most 3 + C/4096 (rounded up) words of the table, 19 at
 * C = 65536, whatever the slots held (the implementation keeps a bit for
 * each 64 slots). So a lookup is bounded by 256 probes and 19 word reads
 * however few slots are live, draining and down backends' included; the
 * capacity is the operator's to keep at most eight times the slots held,
 * where the average is 8 probes or fewer.
 *
 * Slot choice (normative for ringctl, "plan" and "simulate"). The kernel
 * holds the slots each request gives and chooses none. ringctl chooses
 * by one rule, so that what a host holds can be reproduced:
 *   - slots given ("slots N,..."): exactly those. Where several backends
 *     are placed at once ("simulate"), those with slots given hold them
 *     first, then the others pick, in the order given;
 *   - a backend added with weight w and no slots takes the w lowest slot
 *     numbers no backend of the service holds (a draining or down
 *     backend's slots are held: it keeps them);
 *   - a weight raised from w to w' without slots keeps the w slots and
 *     adds the w' - w lowest free; a weight lowered to w' keeps the w'
 *     lowest slots held and gives up the highest.
 * Where order matters: the owner depends only on the live slots, but a
 * pick depends on the slots held when it is made. The same backends added
 * without slots in another order, or after other deletes and weight
 * changes, hold other slots and place flows differently. Hosts agree when
 * they are given the same slots (as "ringctl save" writes them and
 * "restore" sends them, picking none), or make the same changes in the
 * same order from the same slots.
 */
#ifndef _UAPI_RINGSTEER_H
#define _UAPI_RINGSTEER_H

#include <linux/types.h>

/*
 * The netlink constants and enums (RINGSTEER_KEY_LEN, RINGSTEER_MAX_*,
 * enum ringsteer_hash_mode, the commands and attributes) are generated from
 * ringsteer.yaml, which documents every command and attribute.
 */
#include "ringsteer_genl.h"

/*
 * Connection counts (BACKEND_GET with RINGSTEER_F_CONNS) walk the host's
 * conntrack table: a namespace's is walked again no sooner than this many
 * times the last walk's duration after that walk started; requests in
 * between are answered with the counts of the last walk.
 */
#define RINGSTEER_CONNS_GAP		10

/*
 * One record of a chained service's kept rings (service attribute kept):
 * a backend on kept ring "ring" (0 the newest) with "weight", or, with
 * weight 0, a backend of the current ring that kept ring lacks. A kept
 * ring is the current ring's members with its records applied, so that
 * a ring one change old is one record.
 */
struct ringsteer_kept_member {
	__u8 ring;
	__u8 family;		/* the service's */
	__be16 port;
	__u32 weight;		/* 0 .. RINGSTEER_MAX_WEIGHT */
	__u8 addr[16];		/* IPv4: 4 bytes, then 12 zero bytes */
};

/* Records a service-set may give for all its kept rings together. */
#define RINGSTEER_MAX_KEPT_RECORDS	64

/* Sizes of the canonical byte strings hashed above. */
#define RINGSTEER_ID_LEN		19
#define RINGSTEER_VNODE_LEN		23
#define RINGSTEER_FLOW_LEN		38
#define RINGSTEER_SOURCE_LEN		17

/*
 * The generic netlink API (family RINGSTEER_GENL_NAME) is specified in
 * ringsteer.yaml: every command with the attributes its request takes,
 * nests included, and what it answers and announces; every attribute with
 * its type, range and meaning; permissions, errors, limits and
 * notifications in the family's doc. This header keeps only what no netlink
 * spec can say: the placement rules above.
 */

#endif /* _UAPI_RINGSTEER_H */
