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

#define RINGSTEER_GENL_NAME		"ringsteer"
#define RINGSTEER_GENL_VERSION		1

#define RINGSTEER_KEY_LEN		16

#define RINGSTEER_MAX_BACKENDS		4096
#define RINGSTEER_MAX_WEIGHT		1000
#define RINGSTEER_MAX_VNODES		4096
#define RINGSTEER_DEFAULT_VNODES	256
#define RINGSTEER_MAX_POINTS		(1024U * 1024U)

/* Sizes of the canonical byte strings hashed above. */
#define RINGSTEER_ID_LEN		19
#define RINGSTEER_VNODE_LEN		23
#define RINGSTEER_FLOW_LEN		38
#define RINGSTEER_SOURCE_LEN		17

enum ringsteer_hash_mode {
	RINGSTEER_HASH_FLOW,
	RINGSTEER_HASH_SOURCE,
	__RINGSTEER_HASH_LAST
};

#define RINGSTEER_HASH_MAX (__RINGSTEER_HASH_LAST - 1)

/*
 * Generic netlink API
 * -------------------
 *
 * Family RINGSTEER_GENL_NAME, version RINGSTEER_GENL_VERSION. All state is
 * per network namespace: a request acts on the namespace of the socket it
 * is sent on. Commands that change state, and those that reveal the key or
 * what it implies (KEY_GET, LOOKUP), need CAP_NET_ADMIN in the user
 * namespace owning the network namespace; the rest need nothing.
 *
 * Attributes are validated strictly: unknown attributes, wrong lengths and
 * out-of-range values are rejected. Every rejection carries an errno and an
 * extended ack message (and the offending attribute where there is one),
 * and a rejected request changes nothing.
 *
 * Addresses are NLA_BINARY of 4 (AF_INET) or 16 (AF_INET6) bytes in network
 * order and must match the FAMILY attribute beside them; ports are NLA_BE16
 * and never 0. A backend has the same family as its service.
 *
 * RINGSTEER_CMD_SERVICE_NEW: create a service (EEXIST if it exists).
 *   RINGSTEER_A_SERVICE: NLA_NESTED
 *     RINGSTEER_SERVICE_A_FAMILY: NLA_U16, AF_INET or AF_INET6 (required)
 *     RINGSTEER_SERVICE_A_ADDR: NLA_BINARY, the virtual IP (required)
 *     RINGSTEER_SERVICE_A_PORT: NLA_BE16 (required)
 *     RINGSTEER_SERVICE_A_PROTO: NLA_U8, IPPROTO_TCP or IPPROTO_UDP
 *                                (required)
 *     RINGSTEER_SERVICE_A_VNODES: NLA_U32, virtual nodes per unit of
 *                                 weight, 1 .. RINGSTEER_MAX_VNODES;
 *                                 default RINGSTEER_DEFAULT_VNODES
 *     RINGSTEER_SERVICE_A_HASH: NLA_U32, enum ringsteer_hash_mode;
 *                               default RINGSTEER_HASH_FLOW
 *
 * RINGSTEER_CMD_SERVICE_SET: change VNODES and/or HASH of a service. This
 *   re-places every point: new flows may move between all backends.
 *   Established flows stay where they are. Same nest as SERVICE_NEW; the
 *   service is named by FAMILY, ADDR, PORT, PROTO.
 *
 * RINGSTEER_CMD_SERVICE_DEL: delete a service and its backends. Conntrack
 *   entries steered by it are deleted too, unless RINGSTEER_A_FLAGS has
 *   RINGSTEER_F_KEEP_FLOWS.
 *   RINGSTEER_A_SERVICE: FAMILY, ADDR, PORT, PROTO
 *   RINGSTEER_A_FLAGS: NLA_U32, RINGSTEER_F_* (optional)
 *
 * RINGSTEER_CMD_SERVICE_GET: one service (doit, named as for DEL) or all
 *   services of the namespace (dump). Each reply message carries
 *   RINGSTEER_A_SERVICE with every attribute of SERVICE_NEW plus:
 *     RINGSTEER_SERVICE_A_BACKENDS: NLA_U32, backends configured
 *     RINGSTEER_SERVICE_A_ACTIVE: NLA_U32, backends owning points
 *     RINGSTEER_SERVICE_A_POINTS: NLA_U32, points in the ring
 *     RINGSTEER_SERVICE_A_RING_BYTES: NLA_U64, memory of the ring
 *     RINGSTEER_SERVICE_A_FLOWS: NLA_U64, new flows steered
 *     RINGSTEER_SERVICE_A_NO_BACKEND: NLA_U64, new flows dropped because
 *                                     no backend was active
 *
 * RINGSTEER_CMD_BACKEND_NEW: add a backend to a service (EEXIST if there).
 *   RINGSTEER_A_SERVICE: FAMILY, ADDR, PORT, PROTO
 *   RINGSTEER_A_BACKEND: NLA_NESTED
 *     RINGSTEER_BACKEND_A_FAMILY: NLA_U16 (required, = service family)
 *     RINGSTEER_BACKEND_A_ADDR: NLA_BINARY (required)
 *     RINGSTEER_BACKEND_A_PORT: NLA_BE16 (required)
 *     RINGSTEER_BACKEND_A_WEIGHT: NLA_U32, 1 .. RINGSTEER_MAX_WEIGHT;
 *                                 default 1
 *     RINGSTEER_BACKEND_A_STATE: NLA_U32, enum ringsteer_backend_state;
 *                                default RINGSTEER_STATE_ACTIVE
 *
 * RINGSTEER_CMD_BACKEND_SET: change WEIGHT and/or STATE of a backend
 *   (named by FAMILY, ADDR, PORT) of a service. Draining takes the
 *   backend's points out of the ring: its established flows keep going,
 *   no new flow reaches it. Setting it active again restores the exact
 *   previous mapping.
 *
 * RINGSTEER_CMD_BACKEND_DEL: remove a backend. Its conntrack entries in
 *   this service are deleted, so the next packet of each such flow is
 *   steered afresh (to the ring successor), unless RINGSTEER_A_FLAGS has
 *   RINGSTEER_F_KEEP_FLOWS.
 *   RINGSTEER_A_SERVICE, RINGSTEER_A_BACKEND (FAMILY, ADDR, PORT),
 *   RINGSTEER_A_FLAGS (optional)
 *
 * RINGSTEER_CMD_BACKEND_GET: the backends of the service in
 *   RINGSTEER_A_SERVICE (dump; a doit also names one RINGSTEER_A_BACKEND).
 *   Each reply message carries RINGSTEER_A_SERVICE (FAMILY, ADDR, PORT,
 *   PROTO) and RINGSTEER_A_BACKEND with every attribute of BACKEND_NEW
 *   plus:
 *     RINGSTEER_BACKEND_A_FLOWS: NLA_U64, new flows steered to it
 *     RINGSTEER_BACKEND_A_SHARE: NLA_U64, ring positions it owns (its share
 *                                of the hash space is SHARE / 2^64; a sole
 *                                owner reports 2^64 - 1); 0 if draining
 *   Backends are dumped in identity order (see "Point order").
 *
 * RINGSTEER_CMD_LOOKUP: which backend a new flow would be steered to now.
 *   Request:
 *     RINGSTEER_A_SERVICE: FAMILY, ADDR, PORT, PROTO
 *     RINGSTEER_A_FLOW: NLA_NESTED
 *       RINGSTEER_FLOW_A_ADDR: NLA_BINARY, client address (required)
 *       RINGSTEER_FLOW_A_PORT: NLA_BE16, client port (required)
 *   Reply: RINGSTEER_A_SERVICE (FAMILY, ADDR, PORT, PROTO),
 *     RINGSTEER_A_POSITION: NLA_U64, the flow's position on the ring,
 *     RINGSTEER_A_BACKEND (FAMILY, ADDR, PORT, WEIGHT, STATE).
 *   ENOENT with "no active backend" if the ring is empty.
 *
 * RINGSTEER_CMD_KEY_SET: set the namespace's SipHash key and re-place every
 *   service's ring with it (established flows stay).
 *   RINGSTEER_A_KEY: NLA_BINARY, exactly RINGSTEER_KEY_LEN bytes
 * RINGSTEER_CMD_KEY_GET: reply carries RINGSTEER_A_KEY. A new namespace
 *   starts with a random key; hosts that must agree set the same key.
 *
 * RINGSTEER_CMD_FLUSH: delete every service of the namespace (conntrack
 *   entries as for SERVICE_DEL; RINGSTEER_A_FLAGS optional).
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
 * Errors: EINVAL for a missing attribute, an address length that does not
 * match its family, a non-unicast address, port 0, a backend family that
 * differs from the service's, or a SET with nothing to change; ERANGE for
 * a value or binary length outside its policy; EAFNOSUPPORT for a family
 * other than AF_INET/AF_INET6; EPROTONOSUPPORT for a protocol other than
 * TCP/UDP; ENOENT for an unknown service or backend, or a LOOKUP in a ring
 * with no active backend; EEXIST for a duplicate; E2BIG for the limits
 * below; EPERM without CAP_NET_ADMIN where it is needed.
 *
 * Limits per namespace: RINGSTEER_MAX_SERVICES services; per service
 * RINGSTEER_MAX_BACKENDS backends, active or draining, and the point limits
 * of "Ring placement". Exceeding one is E2BIG.
 */

#define RINGSTEER_MAX_SERVICES		256
#define RINGSTEER_MCGRP_CONFIG		"config"

enum ringsteer_cmd {
	RINGSTEER_CMD_UNSPEC,
	RINGSTEER_CMD_SERVICE_NEW,
	RINGSTEER_CMD_SERVICE_SET,
	RINGSTEER_CMD_SERVICE_DEL,
	RINGSTEER_CMD_SERVICE_GET,
	RINGSTEER_CMD_BACKEND_NEW,
	RINGSTEER_CMD_BACKEND_SET,
	RINGSTEER_CMD_BACKEND_DEL,
	RINGSTEER_CMD_BACKEND_GET,
	RINGSTEER_CMD_LOOKUP,
	RINGSTEER_CMD_KEY_SET,
	RINGSTEER_CMD_KEY_GET,
	RINGSTEER_CMD_FLUSH,
	RINGSTEER_CMD_NET_GET,
	__RINGSTEER_CMD_LAST
};

#define RINGSTEER_CMD_MAX (__RINGSTEER_CMD_LAST - 1)

enum ringsteer_attr {
	RINGSTEER_A_UNSPEC,
	RINGSTEER_A_SERVICE,
	RINGSTEER_A_BACKEND,
	RINGSTEER_A_FLOW,
	RINGSTEER_A_KEY,
	RINGSTEER_A_FLAGS,
	RINGSTEER_A_POSITION,
	RINGSTEER_A_PAD,
	RINGSTEER_A_NET,
	__RINGSTEER_A_LAST
};

#define RINGSTEER_A_MAX (__RINGSTEER_A_LAST - 1)

enum ringsteer_service_attr {
	RINGSTEER_SERVICE_A_UNSPEC,
	RINGSTEER_SERVICE_A_FAMILY,
	RINGSTEER_SERVICE_A_ADDR,
	RINGSTEER_SERVICE_A_PORT,
	RINGSTEER_SERVICE_A_PROTO,
	RINGSTEER_SERVICE_A_VNODES,
	RINGSTEER_SERVICE_A_HASH,
	RINGSTEER_SERVICE_A_BACKENDS,
	RINGSTEER_SERVICE_A_ACTIVE,
	RINGSTEER_SERVICE_A_POINTS,
	RINGSTEER_SERVICE_A_RING_BYTES,
	RINGSTEER_SERVICE_A_FLOWS,
	RINGSTEER_SERVICE_A_NO_BACKEND,
	RINGSTEER_SERVICE_A_PAD,
	RINGSTEER_SERVICE_A_GENERATION,
	RINGSTEER_SERVICE_A_FINGERPRINT,
	__RINGSTEER_SERVICE_A_LAST
};

#define RINGSTEER_SERVICE_A_MAX (__RINGSTEER_SERVICE_A_LAST - 1)

enum ringsteer_backend_attr {
	RINGSTEER_BACKEND_A_UNSPEC,
	RINGSTEER_BACKEND_A_FAMILY,
	RINGSTEER_BACKEND_A_ADDR,
	RINGSTEER_BACKEND_A_PORT,
	RINGSTEER_BACKEND_A_WEIGHT,
	RINGSTEER_BACKEND_A_STATE,
	RINGSTEER_BACKEND_A_FLOWS,
	RINGSTEER_BACKEND_A_SHARE,
	RINGSTEER_BACKEND_A_PAD,
	RINGSTEER_BACKEND_A_CONNS_ESTABLISHED,
	RINGSTEER_BACKEND_A_CONNS_OTHER,
	__RINGSTEER_BACKEND_A_LAST
};

#define RINGSTEER_BACKEND_A_MAX (__RINGSTEER_BACKEND_A_LAST - 1)

enum ringsteer_flow_attr {
	RINGSTEER_FLOW_A_UNSPEC,
	RINGSTEER_FLOW_A_ADDR,
	RINGSTEER_FLOW_A_PORT,
	__RINGSTEER_FLOW_A_LAST
};

#define RINGSTEER_FLOW_A_MAX (__RINGSTEER_FLOW_A_LAST - 1)

enum ringsteer_net_attr {
	RINGSTEER_NET_A_UNSPEC,
	RINGSTEER_NET_A_SERVICES,
	RINGSTEER_NET_A_POINTS,
	RINGSTEER_NET_A_POINTS_MAX,
	RINGSTEER_NET_A_HOOKS,
	RINGSTEER_NET_A_KEPT,
	RINGSTEER_NET_A_GENERATION,
	RINGSTEER_NET_A_PAD,
	__RINGSTEER_NET_A_LAST
};

#define RINGSTEER_NET_A_MAX (__RINGSTEER_NET_A_LAST - 1)

enum ringsteer_backend_state {
	RINGSTEER_STATE_ACTIVE,
	RINGSTEER_STATE_DRAINING,
	__RINGSTEER_STATE_LAST
};

#define RINGSTEER_STATE_MAX (__RINGSTEER_STATE_LAST - 1)

enum ringsteer_flags {
	RINGSTEER_F_KEEP_FLOWS = 1U << 0,
	RINGSTEER_F_CONNS = 1U << 1,
	__RINGSTEER_F_ALL = RINGSTEER_F_KEEP_FLOWS | RINGSTEER_F_CONNS
};

#endif /* _UAPI_RINGSTEER_H */
