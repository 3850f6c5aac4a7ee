/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model (prefix rc_): what ringctl reads from and writes to the
 * kernel, services, backends and the key, as plain structs. The parse
 * layer (parse.h) fills them, the netlink layer (nl_ops.h) turns them into
 * attributes and back, the print layer (print.h) prints them.
 */
#ifndef RINGCTL_MODEL_H
#define RINGCTL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "uapi/ringsteer.h"
#include "endpoint.h"

/*
 * The settings of services and backends, each a row of rc_settings[]
 * (settings.h): its index there, and its bit in "has" of the model, set
 * when a request carries it (or the kernel reports it).
 */
enum {
	RC_SET_VNODES,
	RC_SET_HASH,
	RC_SET_ON_DOWN,
	RC_SET_FORWARD,
	RC_SET_ENCAP,
	RC_SET_ENCAP_PORT,
	RC_SET_PLACEMENT,
	RC_SET_CAPACITY,
	RC_SET_CHAIN,
	RC_SET_WEIGHT,
	RC_SET_STATE,
	RC_SET_HEALTH,
	RC_SET_BACKEND_ON_DOWN,
};

#define RC_HAS_VNODES	(1U << 0)
#define RC_HAS_HASH	(1U << 1)
#define RC_HAS_WEIGHT	(1U << 2)
#define RC_HAS_STATE	(1U << 3)
#define RC_HAS_HEALTH	(1U << 4)
#define RC_HAS_ON_DOWN	(1U << 5)
#define RC_HAS_FORWARD	(1U << 6)
#define RC_HAS_ENCAP	(1U << 7)
#define RC_HAS_ENCAP_PORT (1U << 8)
#define RC_HAS_PLACEMENT (1U << 9)
#define RC_HAS_CAPACITY	(1U << 10)
#define RC_HAS_CHAIN	(1U << 11)

/* Kept-ring records a service holds: the kernel's bound, and a ring per change since. */
#define RC_KEPT_MAX	(RINGSTEER_MAX_KEPT_RECORDS + 2 * RINGSTEER_MAX_CHAIN)

struct rc_backend {
	struct rc_endpoint ep;
	uint32_t weight;
	uint32_t state;		/* enum ringsteer_backend_state */
	/* enum ringsteer_backend_health: the checker's, never in a file. */
	uint32_t health;
	uint32_t on_down;	/* enum ringsteer_backend_on_down */
	/*
	 * placement slots: the slots it holds, ascending, NULL if none given.
	 * A list, not a row of rc_settings[]. A service's backends own theirs
	 * (rc_service_add_backend() copies, rc_service_free() frees); any
	 * other struct rc_backend holding them frees them itself.
	 */
	uint16_t *slots;
	uint16_t nslots;
	/* RC_HAS_WEIGHT, RC_HAS_STATE, RC_HAS_HEALTH, RC_HAS_ON_DOWN */
	unsigned int has;
	/* Reported by the kernel. */
	uint64_t flows;
	uint64_t share;		/* positions owned, of 2^64 */
	/* Connection tracking entries DNATed to it now (RINGSTEER_F_CONNS). */
	bool has_conns;
	uint64_t conns_established;
	uint64_t conns_other;	/* the rest that can still carry data */
	uint64_t conns_closed;	/* TCP past both FINs: not waited for */
};

struct rc_service {
	struct rc_endpoint vip;
	uint8_t proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	uint32_t vnodes;
	uint32_t hash;		/* enum ringsteer_hash_mode */
	uint32_t on_down;	/* enum ringsteer_on_down */
	uint32_t forward;	/* enum ringsteer_forward_mode */
	uint32_t encap;		/* enum ringsteer_encap, forward tunnel */
	uint16_t encap_port;	/* encap gue */
	uint32_t placement;	/* enum ringsteer_placement */
	uint32_t capacity;	/* placement slots: slot positions, 2^b */
	uint32_t chain;		/* encap gue: placements kept, 1 off */
	/*
	 * RC_HAS_VNODES, _HASH, _ON_DOWN, _FORWARD, _ENCAP, _ENCAP_PORT,
	 * _PLACEMENT, _CAPACITY, _CHAIN
	 */
	unsigned int has;
	/* Reported by the kernel. */
	uint32_t nconfigured;
	uint32_t nactive;
	uint32_t points;
	uint64_t ring_bytes;
	uint64_t flows;
	uint64_t no_backend;
	/* forward tunnel's counters (RINGSTEER_SERVICE_A_PACKETS ...). */
	bool has_tunnel_stats;
	uint64_t packets, table_hits, table_misses, nonsyn_misses;
	uint64_t too_big, fragments, encap_errors;
	uint64_t martians, not_host, icmp_limited, flood_skipped;
	bool has_fingerprint;	/* kernels before it report neither */
	uint32_t generation;	/* rings published for the service */
	uint64_t fingerprint;	/* rs_ring_fingerprint() of its ring */
	struct rc_backend *b;
	uint32_t nb, capb;
	/* Line of the configuration file it came from, 0 if none. */
	unsigned int line;
	/*
	 * chain above 1: the kept rings (service attributes kept-rings and
	 * kept, a file's "kept" lines), each as its records of difference
	 * from the current ring; has_kept when given or reported.
	 */
	bool has_kept;
	uint32_t kept_rings;
	uint32_t nkept;
	struct ringsteer_kept_member kept[RC_KEPT_MAX];
};

/* One lookup: the client, and the kernel's answer. */
struct rc_lookup {
	struct rc_endpoint src;
	unsigned int line;	/* of a batch file, for messages */
	struct rc_backend b;
	uint64_t position;
	/* A chained service's hops (RINGSTEER_A_HOPS), newest first. */
	uint8_t nhops;
	struct rc_endpoint hops[RINGSTEER_MAX_CHAIN - 1];
};

/* The namespace's state (RINGSTEER_CMD_NET_GET). */
struct rc_net {
	uint32_t services;
	uint64_t points;	/* ring points of every service */
	uint64_t points_max;	/* the namespace's budget */
	bool hooks;		/* NAT hooks registered */
	uint32_t kept;		/* services gone whose kept flows hold the hooks */
	uint32_t generation;	/* configuration changes committed */
	bool has_backends;	/* modules before the backend limit: neither */
	uint32_t backends;	/* of every service, draining ones too */
	uint32_t backends_max;	/* the namespace's limit */
	bool tunnel_hooks;	/* tunnel hooks registered */
	uint32_t flow_table_entries;	/* per CPU; 0: no table */
	uint64_t unserved_drops;	/* to a tunnel VIP, not steered */
	uint64_t walk_done;	/* the last delete's conntrack walk that ran */
};

struct rc_config {
	bool has_key;
	uint8_t key[RINGSTEER_KEY_LEN];
	/* Read by "show"; kernels before NET_GET report none. */
	bool has_net;
	struct rc_net net;
	/* Why show has no connection counts (no CAP_NET_ADMIN), or NULL. */
	const char *conns_unavailable;
	struct rc_service *s;
	uint32_t ns, caps;
};

/* Append a copy (a service's backends not copied); NULL when out of memory. */
struct rc_service *rc_config_add_service(struct rc_config *c, const struct rc_service *s);
struct rc_backend *rc_service_add_backend(struct rc_service *s, const struct rc_backend *b);
/* Like strchr(), const in and not out: the caller knows what it may change. */
struct rc_service *rc_config_find_service(const struct rc_config *c,
					  const struct rc_service *id);
struct rc_backend *rc_service_find_backend(const struct rc_service *s,
					   const struct rc_endpoint *ep);
/* Services by family, address, port, protocol; backends by identity. */
void rc_config_sort(struct rc_config *c);
int rc_service_cmp(const struct rc_service *a, const struct rc_service *b);
void rc_service_free(struct rc_service *s);
void rc_config_free(struct rc_config *c);

/*
 * Names used on the command line, in files and in JSON; the settings'
 * are the spec's (rc_enum_name(), enums.h).
 */
const char *rc_proto_name(uint8_t proto);
const char *rc_family_name(uint8_t family);
/* Sort SLOTS[N] ascending; -EEXIST if one is there twice. */
int rc_slots_sort(uint16_t *slots, uint32_t n);

#define RC_SERVICE_NAME_LEN 64
/* "10.0.0.1:80 tcp", for messages. */
const char *rc_service_name(char buf[RC_SERVICE_NAME_LEN], const struct rc_service *s);
/* 2 * RINGSTEER_KEY_LEN lowercase hex digits. */
void rc_key_format(char buf[2 * RINGSTEER_KEY_LEN + 1],
		   const uint8_t key[RINGSTEER_KEY_LEN]);

#endif /* RINGCTL_MODEL_H */
