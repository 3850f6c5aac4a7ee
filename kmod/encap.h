/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward tunnel's encapsulation (encap.c), below the hooks that call it
 * (tunnel.c).
 */
#ifndef _RINGSTEER_ENCAP_H
#define _RINGSTEER_ENCAP_H

#include "steer.h"

struct net;
struct sk_buff;

/* GUE's outer source ports: 49152..65535, from the flow's hash. */
#define RS_GUE_SPORT_MIN 0xc000

/* A packet bound for a backend, as the hook read it (encap.c sends it). */
struct rs_tun_pkt {
	struct rs_flow flow;
	u64 hash;		/* the flow's keyed hash, hash mode flow */
	bool icmp;		/* an ICMP error quoting the flow */
	struct rs_icmp_limit __percpu *icmp_limit;	/* the namespace's */
	/* chain: the hops its GUE header carries (chain_hops.h) */
	u8 nhops;
	u8 hops[RS_CHAIN_HOPS_ROOM];
};

/*
 * Encapsulate @skb to @b as @steer says and send it, or answer it (ICMP
 * fragmentation needed, packet too big: at most icmp_rate a second on a
 * CPU in the namespace; time exceeded: within the kernel's ICMP limits;
 * from the address routing picks towards the client) or drop it; the skb
 * is consumed either way. Its source was
 * checked to be remote unicast (tunnel.c). Softirq, under
 * rcu_read_lock().
 */
void rs_tun_xmit4(struct net *net, struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, struct rs_backend *b,
		  const struct rs_tun_pkt *p);
void rs_tun_xmit6(struct net *net, struct sk_buff *skb, struct rs_service *svc,
		  const struct rs_steer *steer, struct rs_backend *b,
		  const struct rs_tun_pkt *p);

#endif /* _RINGSTEER_ENCAP_H */
