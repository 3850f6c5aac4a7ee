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

/* Sizes of the canonical byte strings hashed above. */
#define RINGSTEER_ID_LEN		19
#define RINGSTEER_VNODE_LEN		23
#define RINGSTEER_FLOW_LEN		38
#define RINGSTEER_SOURCE_LEN		17

/*
 * Generic netlink API
 * -------------------
 *
 * Family RINGSTEER_GENL_NAME, version RINGSTEER_GENL_VERSION. ringsteer.yaml
 * (YNL) is its specification: every command, the attributes each takes and
 * returns, and their types and ranges. A request that carries an attribute
 * its command does not take, in a nest or at the top level, is rejected.
 *
 * All state is per network namespace: a request acts on the namespace of
 * the socket it is sent on. Commands that change state, and those that
 * reveal the key or what it implies (KEY_GET, LOOKUP), need CAP_NET_ADMIN
 * in the user namespace owning the network namespace, and so does
 * BACKEND_GET with flag RINGSTEER_F_CONNS (counting walks the host's whole
 * conntrack table: EPERM without it, once the request's attributes are
 * valid); the rest need nothing. Counts are at most RINGSTEER_CONNS_GAP
 * times a walk's duration old.
 *
 * Attributes are validated strictly: unknown attributes, attributes the
 * command does not take, wrong lengths and out-of-range values are
 * rejected, and so is a nonzero reserved field of the genetlink header.
 * Every rejection carries an errno and an extended ack message (and the
 * offending attribute where there is one), and a rejected request changes
 * nothing.
 *
 * Addresses are 4 (AF_INET) or 16 (AF_INET6) bytes in network order and
 * must match the FAMILY attribute beside them; ports are big-endian u16 and
 * never 0. A backend has the same family as its service. A VIP or backend
 * address must reach one host other than through the loopback: the
 * unspecified address (0.0.0.0, ::), loopback (127.0.0.0/8, ::1),
 * link-local (169.254.0.0/16, fe80::/10), multicast (224.0.0.0/4,
 * ff00::/8) and limited broadcast (255.255.255.255) addresses are refused,
 * and so are IPv4-mapped IPv6 addresses (::ffff:0:0/96: use AF_INET) and a
 * backend equal to its service's VIP and port (DNAT to itself).
 *
 * Dumps are consistent: if the configuration changes while a dump spans
 * several messages, the dump is flagged NLM_F_DUMP_INTR and should be
 * retried.
 *
 * Notifications: every successful change is announced to the multicast
 * group RINGSTEER_MCGRP_CONFIG, in the namespace where it happened, as a
 * message with the command that made it:
 *   SERVICE_NEW, SERVICE_SET, SERVICE_DEL: RINGSTEER_A_SERVICE (FAMILY,
 *     ADDR, PORT, PROTO, VNODES, HASH);
 *   BACKEND_NEW, BACKEND_SET, BACKEND_DEL: RINGSTEER_A_SERVICE (FAMILY,
 *     ADDR, PORT, PROTO) and RINGSTEER_A_BACKEND (FAMILY, ADDR, PORT,
 *     WEIGHT, STATE, after the change);
 *   KEY_SET and FLUSH: no attribute (the key itself is never announced).
 * Counters are not announced.
 *
 * Errors: EINVAL for a missing attribute, an attribute the command does not
 * take, an address length that does not match its family, an address
 * refused above, a backend equal to its VIP and port, port 0, a backend
 * family that differs from the service's, or a SET with nothing to
 * change; ERANGE for a value or binary length outside its policy;
 * EAFNOSUPPORT for a family other than AF_INET/AF_INET6;
 * EPROTONOSUPPORT for a protocol other than TCP/UDP; ENOENT for an unknown
 * service or backend, or a LOOKUP in a ring with no active backend; EEXIST
 * for a duplicate; E2BIG for the limits below; EPERM without CAP_NET_ADMIN
 * where it is needed.
 *
 * Limits per namespace: RINGSTEER_MAX_SERVICES services; per service
 * RINGSTEER_MAX_BACKENDS backends, active or draining, and the point limits
 * of "Ring placement". Exceeding one is E2BIG.
 */

#endif /* _UAPI_RINGSTEER_H */
