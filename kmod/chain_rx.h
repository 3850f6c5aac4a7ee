/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The owner chain's backend mode (chain_rx.c): one namespace's LOCAL_IN
 * hooks that judge every GUE packet carrying hops before fou decapsulates
 * it, its settings and its counters. doc/fleet.md, "Owner chain (second
 * chance)", says what is accepted and what is forwarded.
 *
 * Locking: rs_net->lock (a mutex) is held to turn the mode on or off or
 * change it; the settings are single words the hooks read with READ_ONCE()
 * and the writer sets with WRITE_ONCE(), so a change needs no new object.
 * The hooks run under rcu_read_lock(); the object is freed a grace period
 * after its hooks are unregistered.
 */
#ifndef _RINGSTEER_CHAIN_RX_H
#define _RINGSTEER_CHAIN_RX_H

#include <linux/netfilter.h>
#include <linux/u64_stats_sync.h>

#include "uapi/ringsteer.h"

/* In the order of the chain nest's counter attributes (chain_nl.c). */
enum rs_chain_stat {
	RS_CH_ACCEPTED_SYN,
	RS_CH_ACCEPTED_SOCKET,
	RS_CH_ACCEPTED_COOKIE,
	RS_CH_FORWARDED,
	RS_CH_LAST_RESORT_ACCEPTS,
	RS_CH_LAST_RESORT_DROPS,
	RS_CH_PASSED,
	RS_CH_MALFORMED,
	RS_CH_HOP_COUNT,
	RS_CH_HOP_SELF,
	RS_CH_HOP_BROADCAST,
	RS_CH_HOP_MULTICAST,
	RS_CH_HOP_LOCAL,
	RS_CH_TTL_EXCEEDED,
	RS_CH_XMIT_ERRORS,
	RS_CH_NSTATS
};

struct rs_chain_stats {
	u64_stats_t v[RS_CH_NSTATS];
	struct u64_stats_sync syncp;
};

struct rs_chain_rx {
	struct nf_hook_ops ops[2];	/* IPv4, IPv6 LOCAL_IN; priv: this */
	__be16 port;			/* the GUE port; READ_ONCE */
	u8 last_resort;			/* enum ringsteer_chain_last_resort */
	u8 max_hops;
	struct rs_chain_stats __percpu *stats;
	struct rcu_head rcu;
};

/* The settings of a chain-set; 0 or NONE: keep (default when new). */
struct rs_chain_conf {
	__be16 port;
	int last_resort;		/* -1: not given */
	u8 max_hops;
};

struct net;

/* rs_net->lock held. Turns the mode on in @net, or changes it. */
int rs_chain_rx_set(struct net *net, struct rs_chain_rx **slot,
		    const struct rs_chain_conf *conf);
/* rs_net->lock held. Off; what the hooks read goes after a grace period. */
void rs_chain_rx_del(struct net *net, struct rs_chain_rx **slot);
u64 rs_chain_rx_stat(const struct rs_chain_rx *cr, enum rs_chain_stat which);

#endif /* _RINGSTEER_CHAIN_RX_H */
