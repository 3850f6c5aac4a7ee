/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the packet path reads: services, their backends and the published
 * snapshot of each ring, and the per-CPU counters it bumps.
 *
 * RCU rules. The packet path takes no lock: it finds a service in the RCU
 * hash table of struct rs_services and reads one immutable snapshot,
 * struct rs_steer, through svc->steer. Writers hold the namespace mutex
 * (rs_net->lock, netns.h); they build a new snapshot aside, publish it with
 * one pointer swap and free the old one, and anything unlinked, only after
 * a grace period. Fields marked "writer" are read and written only under
 * that mutex; the rest is immutable while readers can reach the object.
 */
#ifndef _RINGSTEER_STEER_H
#define _RINGSTEER_STEER_H

#include <linux/hashtable.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/xarray.h>
#include <linux/netfilter.h>

#include "chain_hops.h"
#include "ring.h"
#include "slots.h"

struct dst_entry;
struct rs_flow_table;
struct rs_tally;
struct rs_tally_block;

struct rs_counter {
	u64_stats_t count;
	struct u64_stats_sync syncp;
};

/*
 * A backend's connections: TCP established (ipvsadm's ActiveConn), the
 * others that can still carry data (TCP opening or half closed, UDP), and
 * TCP entries past both FINs (with the others, ipvsadm's InActConn).
 */
struct rs_ct_conns {
	u64 established;
	u64 other;
	u64 closed;
};

/*
 * A backend's settings, as a request gives them (struct rs_change) and the
 * backend keeps them: parsed from and put to the backend nest in one place
 * (conf.c), written in one (rs_backend_set_conf()).
 */
struct rs_backend_conf {
	u32 weight;			/* also in ring form, member.weight */
	u8 state;			/* enum ringsteer_backend_state */
	u8 health;			/* enum ringsteer_backend_health */
	u8 on_down;			/* enum ringsteer_backend_on_down */
};

/*
 * The first 64 bytes are what a new flow reads of its backend, in one
 * cache line (kmalloc-192 objects start on 64-byte boundaries): the
 * address NAT rewrites to or the tunnel sends to, the id the flow table
 * records, where its per-CPU entries are, the tunnel's route, and the
 * settings a flow table hit checks. With 4,000 backends each new flow
 * finds its backend cold, and each line more is a miss more: a per-CPU
 * part of the backend's own (its counter, the tunnel's per-CPU route
 * cache) cost the tunnel 3 to 4.5 points of its new-flow rate there.
 * With lockdep a seqcount carries a map and the line overflows.
 */
struct rs_backend {
	struct rs_member member;	/* identity and weight, in ring form */
	/* forward tunnel: in rs_services->ids; READ_ONCE() in the packet path */
	u32 id;
	/*
	 * forward tunnel: the route to the backend, one for every CPU, as
	 * IPVS keeps one a destination (struct ip_vs_dest_dst), and the
	 * source address it picked (route.c has the rules). route_seq
	 * makes the pair, and the IPv6 cookie and source below, one read;
	 * tied to route_lock, so that lockdep sees its writers hold it.
	 */
	seqcount_spinlock_t route_seq;
	struct dst_entry *route;
	__be32 route_saddr;
	u8 tally_idx;			/* in tally, below */
	/*
	 * Writer; the flow table reads state, health and on_down without
	 * the lock (rs_backend_cached()), so they are written with
	 * WRITE_ONCE() by rs_backend_set_conf() only.
	 */
	struct rs_backend_conf conf;
	/* Its entries in the service's per-CPU blocks (tally.h). */
	struct rs_tally __percpu *tally;
	/* The packet path reads nothing below but an IPv6 route's part. */
	u32 route_cookie;		/* IPv6: rt6_get_cookie() */
	struct in6_addr route_saddr6;
	spinlock_t route_lock;		/* serialises route's writers */
	/* The route replaced last, released once route_gp has passed. */
	struct dst_entry *route_old;
	unsigned long route_gp;
	/*
	 * forward tunnel: in rs_services->tun_backends while on the
	 * service's list, RCU (whose ICMP errors the hook believes).
	 */
	struct hlist_node addr_node;
	struct rs_tally_block *tally_block;
	struct list_head node;		/* writer: svc->backends, identity order */
	u64 share;			/* writer: ring positions owned */
	/*
	 * writer: placement slots, the slots held, ascending (as many as
	 * the weight); the snapshot's table has them while on the ring.
	 */
	u16 *slots;
	u16 nslots;
	bool counted;			/* writer: conns holds a count (ct_count.h) */
	struct rs_ct_conns conns;	/* writer: at the namespace's last count */
	struct rcu_head rcu;
};

/* What forward tunnel counts, per service and CPU (tunnel.c). */
enum rs_tun_stat {
	RS_TUN_PACKETS,
	RS_TUN_TABLE_HITS,
	RS_TUN_TABLE_MISSES,
	RS_TUN_NONSYN_MISSES,
	RS_TUN_TOO_BIG,
	RS_TUN_FRAGMENTS,
	RS_TUN_ENCAP_ERRORS,
	RS_TUN_MARTIANS,	/* dropped: not a remote unicast source */
	RS_TUN_NOT_HOST,	/* dropped: a frame to another link address */
	RS_TUN_ICMP_LIMITED,	/* too big not sent: icmp_rate */
	RS_TUN_FLOOD_SKIPPED,	/* misses not recorded: flood_threshold */
	RS_TUN_NSTATS
};

struct rs_tun_stats {
	u64_stats_t v[RS_TUN_NSTATS];
	struct u64_stats_sync syncp;
};

/* How a service forwards: readers take it from the snapshot. */
struct rs_forward {
	u8 mode;			/* enum ringsteer_forward_mode */
	u8 encap;			/* enum ringsteer_encap */
	__be16 encap_port;		/* the backends' GUE port */
	/* encap gue: placements kept, the current included; 1 is off */
	u8 chain;
};

/*
 * A service's settings, as a request gives them (struct rs_change) and the
 * service keeps them: parsed from and put to the service nest in one place
 * (conf.c), written in one (rs_service_set_conf()). Readers use the
 * snapshot's hash and fwd; the flow table reads on_down without the lock.
 */
struct rs_service_conf {
	u32 vnodes;
	u8 hash;			/* enum ringsteer_hash_mode */
	u8 on_down;			/* enum ringsteer_on_down */
	u8 placement;			/* enum ringsteer_placement */
	struct rs_forward fwd;
	u32 capacity;			/* placement slots: positions, 2^b */
};

/* What readers see of a service: immutable once published. */
struct rs_steer {
	struct rcu_head rcu;
	struct rs_ring *ring;
	/* placement slots: what lookups read; the ring is its members' index */
	struct rs_slots *slots;
	u8 hash;			/* enum ringsteer_hash_mode */
	struct rs_forward fwd;
	bool has_fingerprint;		/* writer: computed when first asked */
	u64 fingerprint;		/* writer */
	/*
	 * chain: the rings the last ring changes replaced, newest first,
	 * under ring's key and hash; the hook reads them for hops only
	 * (chain_hops.h). A ring passes from one snapshot to the next that
	 * keeps it, so owns says which of ring (bit 0) and kept[i] (bit
	 * i + 1) this snapshot frees: writer, read once readers are gone.
	 */
	u8 nkept;
	u8 owns;
	struct rs_ring *kept[RS_CHAIN_MAX_HOPS];
	struct rs_backend *owner[];	/* [ring->nmembers], by member index */
};

#define RS_OWNS_RING		1U
#define RS_OWNS_KEPT(i)		(2U << (i))

struct rs_service {
	struct hlist_node hnode;	/* rs_services->table, RCU */
	struct hlist_node vip_node;	/* forward tunnel: ->tun_vips, RCU */
	struct list_head node;		/* writer: rs_services->list */
	union nf_inet_addr vip;
	__be16 port;
	u8 family;			/* AF_INET or AF_INET6 */
	u8 proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	struct rs_service_conf conf;	/* writer, but see its comment */
	u32 nbackends;			/* writer */
	u32 generation;			/* writer: rings published */
	struct list_head backends;	/* writer */
	struct list_head tallies;	/* writer: rs_tally_block, tally.h */
	struct rs_steer __rcu *steer;
	struct rs_counter __percpu *new_flows;
	struct rs_counter __percpu *no_backend;
	struct rs_tun_stats __percpu *tun_stats;
	struct rcu_head rcu;
};

/*
 * The "fragmentation needed" / "packet too big" errors forward tunnel
 * sends on one CPU in one namespace, a second (encap.c): the kernel
 * exempts them from its own limits. Per CPU, read and written with bottom
 * halves off (tunnel.c), so no lock: no answer is refused because another
 * CPU answers at the same time.
 */
struct rs_icmp_limit {
	unsigned long second;		/* jiffies the count started */
	u32 sent;
};

/* The services of one namespace. */
struct rs_services {
	DECLARE_HASHTABLE(table, 8);	/* by (vip, port, proto), RCU */
	/*
	 * Forward tunnel services by VIP alone, RCU: what reaches a tunnel
	 * VIP and is not steered is dropped unless the host owns the VIP
	 * (tunnel.c), and this finds them whatever the port.
	 */
	DECLARE_HASHTABLE(tun_vips, 6);
	/*
	 * Forward tunnel backends by address, RCU (writers under the
	 * mutex): an ICMP error about an outer packet is believed only if
	 * it quotes one of them (tunnel.c). One entry a service's backend.
	 */
	DECLARE_HASHTABLE(tun_backends, 8);
	struct list_head list;		/* writer: creation order */
	u32 count;			/* writer */
	u32 ntunnel;			/* writer: of them forward tunnel */
	u64 npoints;			/* writer: ring points of them all */
	/*
	 * forward tunnel: its backends by id (RCU readers, writers under the
	 * mutex), by which flow table entries are revalidated; the table.
	 */
	struct xarray ids;
	u32 next_id;			/* writer */
	struct rs_flow_table __rcu *ft;
	/* Packets to a tunnel VIP not steered and dropped (tunnel.c). */
	struct rs_counter __percpu *unserved;
	struct rs_icmp_limit __percpu *icmp_limit;
};

/* rcu_read_lock() held. */
struct rs_service *rs_services_find_rcu(const struct rs_services *services,
					u8 family, const union nf_inet_addr *vip,
					__be16 port, u8 proto);
struct rs_backend *rs_steer_pick(const struct rs_steer *steer,
				 const struct rs_flow *flow, u64 *pos);

u32 rs_service_hash(u8 family, const union nf_inet_addr *vip, __be16 port,
		    u8 proto);
u32 rs_vip_hash(u8 family, const union nf_inet_addr *vip);
/* Whether a forward tunnel service has @vip, whatever its port. */
bool rs_tun_vip_rcu(const struct rs_services *services, u8 family,
		    const union nf_inet_addr *vip);
/* Whether @addr is a forward tunnel service's backend, whatever the port. */
bool rs_tun_backend_rcu(const struct rs_services *services, u8 family,
			const union nf_inet_addr *addr);

static inline size_t rs_addr_len(u8 family)
{
	return family == AF_INET ? sizeof(struct in_addr) : sizeof(struct in6_addr);
}

/*
 * A flow as the ring hashes it, from the client's side of its first
 * packet: the hook fills it from conntrack's tuple, LOOKUP from a request.
 */
void rs_flow_init(struct rs_flow *flow, u8 family, u8 proto,
		  const union nf_inet_addr *saddr, __be16 sport,
		  const union nf_inet_addr *daddr, __be16 dport);
bool rs_addr_equal(u8 family, const union nf_inet_addr *a,
		   const union nf_inet_addr *b);

struct rs_counter __percpu *rs_counter_alloc(void);
void rs_counter_inc(struct rs_counter __percpu *c);
u64 rs_counter_sum(struct rs_counter __percpu *c);

struct rs_tun_stats __percpu *rs_tun_stats_alloc(void);
/* Softirq (PRE_ROUTING) only. */
void rs_tun_stats_add(struct rs_tun_stats __percpu *s, enum rs_tun_stat a,
		      enum rs_tun_stat b);
u64 rs_tun_stats_sum(struct rs_tun_stats __percpu *s, enum rs_tun_stat which);

/*
 * Whether a backend's connections go when it is marked down: its own
 * on-down, else its service's.
 */
static inline bool rs_resets_on_down(u8 svc_on_down, u8 backend_on_down)
{
	if (backend_on_down != RINGSTEER_BACKEND_ON_DOWN_SERVICE)
		return backend_on_down == RINGSTEER_BACKEND_ON_DOWN_RESET;
	return svc_on_down == RINGSTEER_ON_DOWN_RESET;
}

/*
 * Whether a flow table entry naming @b still holds for a packet of @svc
 * (flowtab.c), with the ring's rule for flows under way (commit.c's
 * on_ring()): on an active or draining backend, and on a down one unless
 * it resets on down. (A SYN never reads the table: it follows the ring.)
 * Read without the lock: the writers use WRITE_ONCE(), and write a
 * backend's on_down before its health.
 */
static inline bool rs_backend_cached(const struct rs_service *svc,
				     const struct rs_backend *b)
{
	if (READ_ONCE(b->conf.health) == RINGSTEER_HEALTH_UP)
		return true;
	/* Pairs with the smp_wmb() in rs_backend_set_conf(). */
	smp_rmb();
	return !rs_resets_on_down(READ_ONCE(svc->conf.on_down),
				  READ_ONCE(b->conf.on_down));
}

static inline bool rs_tunnel(const struct rs_forward *fwd)
{
	return fwd->mode == RINGSTEER_FORWARD_TUNNEL;
}

#endif /* _RINGSTEER_STEER_H */
