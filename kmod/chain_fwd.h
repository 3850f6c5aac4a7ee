/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The owner chain's backend mode, sending a packet on to its next hop
 * (chain_fwd.c), below the hook that judges it (chain_rx.c).
 */
#ifndef _RINGSTEER_CHAIN_FWD_H
#define _RINGSTEER_CHAIN_FWD_H

#include "chain_rx.h"

struct net;
struct sk_buff;

/*
 * Send @skb, an outer packet of @family with its GUE header @gue bytes
 * after the network header, on to @hop (an address of @family): outer
 * destination @hop, outer source the host's address it was sent to, next
 * hop index one further, TTL (hop limit) one less. RS_CH_FORWARDED when
 * it was sent (the skb is consumed), else the reason it must be dropped
 * (the caller drops it). LOCAL_IN, rcu_read_lock() held, BHs off.
 */
enum rs_chain_stat rs_chain_forward(struct net *net, struct sk_buff *skb,
				    u8 family, unsigned int gue, const u8 *hop);

#endif /* _RINGSTEER_CHAIN_FWD_H */
