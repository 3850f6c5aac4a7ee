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
 * enum ringsteer_flags - Options: keep-flows of service-del, backend-del and
 *   flush; conns of backend-get. A flag a command gives no meaning to is
 *   rejected.
 * @RINGSTEER_F_KEEP_FLOWS: On delete or flush, keep the conntrack entries
 *   steered by what is deleted (by default they are deleted, so their next
 *   packets are steered afresh).
 * @RINGSTEER_F_CONNS: On backend-get, count each backend's live connections
 *   (conns-established, conns-other): one walk of the namespace's conntrack
 *   table per request or dump, never any per-packet work.
 */
enum ringsteer_flags {
	RINGSTEER_F_KEEP_FLOWS = 1,
	RINGSTEER_F_CONNS = 2,

	/* private: */
	RINGSTEER_F_MASK = 3,
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

	__RINGSTEER_SERVICE_A_LAST,
	RINGSTEER_SERVICE_A_MAX = (__RINGSTEER_SERVICE_A_LAST - 1)
};

enum ringsteer_backend_attr {
	RINGSTEER_BACKEND_A_FAMILY = 1,
	RINGSTEER_BACKEND_A_ADDR,
	RINGSTEER_BACKEND_A_PORT,
	RINGSTEER_BACKEND_A_WEIGHT,
	RINGSTEER_BACKEND_A_STATE,
	RINGSTEER_BACKEND_A_FLOWS,
	RINGSTEER_BACKEND_A_SHARE,
	RINGSTEER_BACKEND_A_PAD,
	RINGSTEER_BACKEND_A_CONNS_ESTABLISHED,
	RINGSTEER_BACKEND_A_CONNS_OTHER,

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

	__RINGSTEER_NET_A_LAST,
	RINGSTEER_NET_A_MAX = (__RINGSTEER_NET_A_LAST - 1)
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

	__RINGSTEER_CMD_LAST,
	RINGSTEER_CMD_MAX = (__RINGSTEER_CMD_LAST - 1)
};

#define RINGSTEER_MCGRP_CONFIG	"config"

#endif /* _UAPI_LINUX_RINGSTEER_H */
