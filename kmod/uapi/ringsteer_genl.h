/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	kmod/uapi/ringsteer.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_RINGSTEER_H
#define _UAPI_LINUX_RINGSTEER_H

#define RINGSTEER_GENL_NAME	"ringsteer"
#define RINGSTEER_GENL_VERSION	1

#define RINGSTEER_KEY_LEN		16
#define RINGSTEER_MAX_BACKENDS		4096
#define RINGSTEER_MAX_WEIGHT		1000
#define RINGSTEER_MAX_VNODES		4096
#define RINGSTEER_DEFAULT_VNODES	256
#define RINGSTEER_MAX_POINTS		1048576
#define RINGSTEER_MAX_SERVICES		256

/**
 * enum ringsteer_hash_mode - What a flow's ring position is hashed from.
 * @RINGSTEER_HASH_FLOW: Family, protocol, both addresses and both ports.
 * @RINGSTEER_HASH_SOURCE: Family and client address only (client affinity).
 */
enum ringsteer_hash_mode {
	RINGSTEER_HASH_FLOW,
	RINGSTEER_HASH_SOURCE,

	/* private: */
	__RINGSTEER_HASH_MAX,
	RINGSTEER_HASH_MAX = (__RINGSTEER_HASH_MAX - 1)
};

#define RINGSTEER_DEFAULT_GUE_PORT	6080

/**
 * enum ringsteer_forward_mode - How a service's packets reach the backend the
 *   ring picks.
 * @RINGSTEER_FORWARD_NAT: The first packet of a flow is DNATed through
 *   conntrack and nf_nat; later packets follow the conntrack entry, replies
 *   come back through the host.
 * @RINGSTEER_FORWARD_TUNNEL: Every packet is encapsulated to the backend
 *   (encap) before conntrack sees it, and the backend replies to the client
 *   directly; the host keeps no conntrack state for the service.
 */
enum ringsteer_forward_mode {
	RINGSTEER_FORWARD_NAT,
	RINGSTEER_FORWARD_TUNNEL,

	/* private: */
	__RINGSTEER_FORWARD_MAX,
	RINGSTEER_FORWARD_MAX = (__RINGSTEER_FORWARD_MAX - 1)
};

/**
 * enum ringsteer_encap - The encapsulation of forward tunnel.
 * @RINGSTEER_ENCAP_IPIP: IPv4 in IPv4 (IPPROTO_IPIP), IPv6 in IPv6
 *   (IPPROTO_IPV6).
 * @RINGSTEER_ENCAP_GUE: The same inside UDP to encap-port with a 4-byte GUE
 *   header (version 0, proto the inner protocol), as "ip fou add port N gue"
 *   decapsulates; the UDP source port comes from the flow's keyed hash.
 */
enum ringsteer_encap {
	RINGSTEER_ENCAP_IPIP,
	RINGSTEER_ENCAP_GUE,

	/* private: */
	__RINGSTEER_ENCAP_MAX,
	RINGSTEER_ENCAP_MAX = (__RINGSTEER_ENCAP_MAX - 1)
};

/**
 * enum ringsteer_placement - How a service's flows are placed on its backends
 *   (uapi/ringsteer.h, "Ring placement" and "Slot placement").
 * @RINGSTEER_PLACEMENT_RING: Each backend owns weight * vnodes points of the
 *   consistent hashing ring (the default).
 * @RINGSTEER_PLACEMENT_SLOTS: Each backend holds weight numbered slots of a
 *   slot space of capacity positions; a flow takes the first live slot of its
 *   own probe sequence. Balance within sampling noise, and a change moves only
 *   the flows of the backend it changes.
 */
enum ringsteer_placement {
	RINGSTEER_PLACEMENT_RING,
	RINGSTEER_PLACEMENT_SLOTS,

	/* private: */
	__RINGSTEER_PLACEMENT_MAX,
	RINGSTEER_PLACEMENT_MAX = (__RINGSTEER_PLACEMENT_MAX - 1)
};

#define RINGSTEER_MIN_CAPACITY		2
#define RINGSTEER_MAX_CAPACITY		65536
#define RINGSTEER_DEFAULT_CAPACITY	256

/**
 * enum ringsteer_backend_state - Whether a backend owns points on the ring.
 * @RINGSTEER_STATE_ACTIVE: The backend owns its points on the ring.
 * @RINGSTEER_STATE_DRAINING: The backend owns no points: no new flow reaches
 *   it, its established flows go on. Active again restores the exact previous
 *   mapping.
 */
enum ringsteer_backend_state {
	RINGSTEER_STATE_ACTIVE,
	RINGSTEER_STATE_DRAINING,

	/* private: */
	__RINGSTEER_STATE_MAX,
	RINGSTEER_STATE_MAX = (__RINGSTEER_STATE_MAX - 1)
};

/**
 * enum ringsteer_backend_health - What a health checker last found, apart from
 *   the operator's state: a backend is on the ring exactly when it is active
 *   and up.
 * @RINGSTEER_HEALTH_UP: The backend serves (every backend starts up).
 * @RINGSTEER_HEALTH_DOWN: The backend failed its checks: it owns no points, as
 *   if draining, and its established flows go on. Up again (and active)
 *   restores the exact previous mapping.
 */
enum ringsteer_backend_health {
	RINGSTEER_HEALTH_UP,
	RINGSTEER_HEALTH_DOWN,

	/* private: */
	__RINGSTEER_HEALTH_MAX,
	RINGSTEER_HEALTH_MAX = (__RINGSTEER_HEALTH_MAX - 1)
};

/**
 * enum ringsteer_on_down - What a backend marked down does with its
 *   established connections, unless the backend has an on-down of its own
 *   (backend-on-down).
 * @RINGSTEER_ON_DOWN_KEEP: They go on, as after a drain: a backend that failed
 *   a check may still serve them (the default).
 * @RINGSTEER_ON_DOWN_RESET: Their conntrack entries are deleted, as by
 *   backend-del: the next packet of each is steered afresh (a TCP connection
 *   resets), for backends whose failure loses them anyway.
 */
enum ringsteer_on_down {
	RINGSTEER_ON_DOWN_KEEP,
	RINGSTEER_ON_DOWN_RESET,

	/* private: */
	__RINGSTEER_ON_DOWN_MAX,
	RINGSTEER_ON_DOWN_MAX = (__RINGSTEER_ON_DOWN_MAX - 1)
};

/**
 * enum ringsteer_backend_on_down - One backend's own on-down, over its
 *   service's: a service that keeps a down backend's connections may still
 *   reset those of one backend whose failure loses them anyway, and the other
 *   way round.
 * @RINGSTEER_BACKEND_ON_DOWN_SERVICE: As the service's on-down says (the
 *   default).
 * @RINGSTEER_BACKEND_ON_DOWN_KEEP: They go on, whatever the service's on-down.
 * @RINGSTEER_BACKEND_ON_DOWN_RESET: Their conntrack entries are deleted,
 *   whatever the service's on-down.
 */
enum ringsteer_backend_on_down {
	RINGSTEER_BACKEND_ON_DOWN_SERVICE,
	RINGSTEER_BACKEND_ON_DOWN_KEEP,
	RINGSTEER_BACKEND_ON_DOWN_RESET,

	/* private: */
	__RINGSTEER_BACKEND_ON_DOWN_MAX,
	RINGSTEER_BACKEND_ON_DOWN_MAX = (__RINGSTEER_BACKEND_ON_DOWN_MAX - 1)
};

/**
 * enum ringsteer_flags - Options: keep-flows of service-del, backend-del and
 *   flush; conns of backend-get; force of backend-set. A flag a command gives
 *   no meaning to is rejected.
 * @RINGSTEER_F_KEEP_FLOWS: On delete or flush, keep the conntrack entries
 *   steered by what is deleted (by default they are deleted, so their next
 *   packets are steered afresh).
 * @RINGSTEER_F_CONNS: On backend-get, count each backend's live connections
 *   (conns-established, conns-other, conns-closed): one walk of the
 *   namespace's conntrack table per request or dump, never any per-packet
 *   work.
 * @RINGSTEER_F_FORCE: On backend-set, mark down even the last backend of the
 *   service that is active and up (EBUSY without it), emptying its ring.
 */
enum ringsteer_flags {
	RINGSTEER_F_KEEP_FLOWS = 1,
	RINGSTEER_F_CONNS = 2,
	RINGSTEER_F_FORCE = 4,

	/* private: */
	RINGSTEER_F_MASK = 7,
};

#define RINGSTEER_CHAIN_MAX_HOPS		7
#define RINGSTEER_DEFAULT_CHAIN_MAX_HOPS	3
#define RINGSTEER_MAX_CHAIN			4

/**
 * enum ringsteer_chain_last_resort - What the backend mode does with a packet
 *   no hop is left for and that no local socket claims (doc/fleet.md, "Owner
 *   chain").
 * @RINGSTEER_LAST_RESORT_ACCEPT: Passed to the local stack, which answers a
 *   TCP segment with a reset, as glb-redirect does (the default).
 * @RINGSTEER_LAST_RESORT_DROP: Dropped; the client's retransmissions find no
 *   answer.
 */
enum ringsteer_chain_last_resort {
	RINGSTEER_LAST_RESORT_ACCEPT,
	RINGSTEER_LAST_RESORT_DROP,

	/* private: */
	__RINGSTEER_LAST_RESORT_MAX,
	RINGSTEER_LAST_RESORT_MAX = (__RINGSTEER_LAST_RESORT_MAX - 1)
};

enum ringsteer_attr {
	RINGSTEER_A_SERVICE = 1,
	RINGSTEER_A_BACKEND,
	RINGSTEER_A_FLOW,
	RINGSTEER_A_KEY,
	RINGSTEER_A_FLAGS,
	RINGSTEER_A_POSITION,
	RINGSTEER_A_PAD,
	RINGSTEER_A_NET,
	RINGSTEER_A_WALK,
	RINGSTEER_A_CHAIN,
	RINGSTEER_A_HOPS,

	__RINGSTEER_A_LAST,
	RINGSTEER_A_MAX = (__RINGSTEER_A_LAST - 1)
};

enum ringsteer_service_attr {
	RINGSTEER_SERVICE_A_FAMILY = 1,
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
	RINGSTEER_SERVICE_A_ON_DOWN,
	RINGSTEER_SERVICE_A_FORWARD,
	RINGSTEER_SERVICE_A_ENCAP,
	RINGSTEER_SERVICE_A_ENCAP_PORT,
	RINGSTEER_SERVICE_A_PACKETS,
	RINGSTEER_SERVICE_A_TABLE_HITS,
	RINGSTEER_SERVICE_A_TABLE_MISSES,
	RINGSTEER_SERVICE_A_NONSYN_MISSES,
	RINGSTEER_SERVICE_A_TOO_BIG,
	RINGSTEER_SERVICE_A_FRAGMENTS,
	RINGSTEER_SERVICE_A_ENCAP_ERRORS,
	RINGSTEER_SERVICE_A_MARTIANS,
	RINGSTEER_SERVICE_A_NOT_HOST,
	RINGSTEER_SERVICE_A_ICMP_LIMITED,
	RINGSTEER_SERVICE_A_FLOOD_SKIPPED,
	RINGSTEER_SERVICE_A_PLACEMENT,
	RINGSTEER_SERVICE_A_CAPACITY,
	RINGSTEER_SERVICE_A_CHAIN,
	RINGSTEER_SERVICE_A_KEPT_RINGS,
	RINGSTEER_SERVICE_A_KEPT,

	__RINGSTEER_SERVICE_A_LAST,
	RINGSTEER_SERVICE_A_MAX = (__RINGSTEER_SERVICE_A_LAST - 1)
};

enum ringsteer_backend_attr {
	RINGSTEER_BACKEND_A_FAMILY = 1,
	RINGSTEER_BACKEND_A_ADDR,
	RINGSTEER_BACKEND_A_PORT,
	RINGSTEER_BACKEND_A_WEIGHT,
	RINGSTEER_BACKEND_A_STATE,
	RINGSTEER_BACKEND_A_HEALTH,
	RINGSTEER_BACKEND_A_FLOWS,
	RINGSTEER_BACKEND_A_SHARE,
	RINGSTEER_BACKEND_A_PAD,
	RINGSTEER_BACKEND_A_CONNS_ESTABLISHED,
	RINGSTEER_BACKEND_A_CONNS_OTHER,
	RINGSTEER_BACKEND_A_CONNS_CLOSED,
	RINGSTEER_BACKEND_A_ON_DOWN,
	RINGSTEER_BACKEND_A_SLOTS,

	__RINGSTEER_BACKEND_A_LAST,
	RINGSTEER_BACKEND_A_MAX = (__RINGSTEER_BACKEND_A_LAST - 1)
};

enum ringsteer_flow_attr {
	RINGSTEER_FLOW_A_ADDR = 1,
	RINGSTEER_FLOW_A_PORT,

	__RINGSTEER_FLOW_A_LAST,
	RINGSTEER_FLOW_A_MAX = (__RINGSTEER_FLOW_A_LAST - 1)
};

enum ringsteer_net_attr {
	RINGSTEER_NET_A_SERVICES = 1,
	RINGSTEER_NET_A_POINTS,
	RINGSTEER_NET_A_POINTS_MAX,
	RINGSTEER_NET_A_HOOKS,
	RINGSTEER_NET_A_KEPT,
	RINGSTEER_NET_A_GENERATION,
	RINGSTEER_NET_A_PAD,
	RINGSTEER_NET_A_BACKENDS,
	RINGSTEER_NET_A_BACKENDS_MAX,
	RINGSTEER_NET_A_TUNNEL_HOOKS,
	RINGSTEER_NET_A_FLOW_TABLE_ENTRIES,
	RINGSTEER_NET_A_UNSERVED_DROPS,
	RINGSTEER_NET_A_WALK_DONE,

	__RINGSTEER_NET_A_LAST,
	RINGSTEER_NET_A_MAX = (__RINGSTEER_NET_A_LAST - 1)
};

enum ringsteer_chain_attr {
	RINGSTEER_CHAIN_A_PORT = 1,
	RINGSTEER_CHAIN_A_LAST_RESORT,
	RINGSTEER_CHAIN_A_MAX_HOPS,
	RINGSTEER_CHAIN_A_PAD,
	RINGSTEER_CHAIN_A_ACCEPTED_SYN,
	RINGSTEER_CHAIN_A_ACCEPTED_SOCKET,
	RINGSTEER_CHAIN_A_ACCEPTED_COOKIE,
	RINGSTEER_CHAIN_A_FORWARDED,
	RINGSTEER_CHAIN_A_LAST_RESORT_ACCEPTS,
	RINGSTEER_CHAIN_A_LAST_RESORT_DROPS,
	RINGSTEER_CHAIN_A_PASSED,
	RINGSTEER_CHAIN_A_MALFORMED,
	RINGSTEER_CHAIN_A_HOP_COUNT,
	RINGSTEER_CHAIN_A_HOP_SELF,
	RINGSTEER_CHAIN_A_HOP_BROADCAST,
	RINGSTEER_CHAIN_A_HOP_MULTICAST,
	RINGSTEER_CHAIN_A_HOP_LOCAL,
	RINGSTEER_CHAIN_A_TTL_EXCEEDED,
	RINGSTEER_CHAIN_A_XMIT_ERRORS,

	__RINGSTEER_CHAIN_A_LAST,
	RINGSTEER_CHAIN_A_MAX = (__RINGSTEER_CHAIN_A_LAST - 1)
};

enum ringsteer_cmd {
	RINGSTEER_CMD_SERVICE_NEW = 1,
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
	RINGSTEER_CMD_WALKED,
	RINGSTEER_CMD_CHAIN_SET,
	RINGSTEER_CMD_CHAIN_DEL,
	RINGSTEER_CMD_CHAIN_GET,

	__RINGSTEER_CMD_LAST,
	RINGSTEER_CMD_MAX = (__RINGSTEER_CMD_LAST - 1)
};

#define RINGSTEER_MCGRP_CONFIG	"config"
#define RINGSTEER_MCGRP_WALKS	"walks"

#endif /* _UAPI_LINUX_RINGSTEER_H */
