// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path's reads: find the service a new flow is addressed to and
 * the backend that owns its ring position, and count what happened. Runs
 * under rcu_read_lock() in softirq or process context: no lock, no
 * allocation, no sleeping. See steer.h for the RCU rules.
 */

#include <linux/jhash.h>
#include <net/ipv6.h>

#include "steer.h"

u32 rs_service_hash(u8 family, const union nf_inet_addr *vip, __be16 port,
		    u8 proto)
{
	u32 words = family == AF_INET ? 1 : 4;

	return jhash2(vip->all, words, ((u32)proto << 16) ^ (__force u16)port);
}

u32 rs_vip_hash(u8 family, const union nf_inet_addr *vip)
{
	return jhash2(vip->all, family == AF_INET ? 1 : 4, family);
}

bool rs_addr_equal(u8 family, const union nf_inet_addr *a,
		   const union nf_inet_addr *b)
{
	return family == AF_INET ? a->ip == b->ip : ipv6_addr_equal(&a->in6, &b->in6);
}

void rs_flow_init(struct rs_flow *flow, u8 family, u8 proto,
		  const union nf_inet_addr *saddr, __be16 sport,
		  const union nf_inet_addr *daddr, __be16 dport)
{
	memset(flow, 0, sizeof(*flow));
	flow->family = family;
	flow->proto = proto;
	memcpy(flow->saddr, saddr, rs_addr_len(family));
	memcpy(flow->daddr, daddr, rs_addr_len(family));
	flow->sport = sport;
	flow->dport = dport;
}

struct rs_service *rs_services_find_rcu(const struct rs_services *services,
					u8 family, const union nf_inet_addr *vip,
					__be16 port, u8 proto)
{
	struct rs_service *svc;

	hash_for_each_possible_rcu(services->table, svc, hnode,
				   rs_service_hash(family, vip, port, proto)) {
		if (svc->family == family && svc->port == port &&
		    svc->proto == proto && rs_addr_equal(family, &svc->vip, vip))
			return svc;
	}
	return NULL;
}

bool rs_tun_vip_rcu(const struct rs_services *services, u8 family,
		    const union nf_inet_addr *vip)
{
	struct rs_service *svc;

	hash_for_each_possible_rcu(services->tun_vips, svc, vip_node,
				   rs_vip_hash(family, vip)) {
		if (svc->family == family && rs_addr_equal(family, &svc->vip, vip))
			return true;
	}
	return false;
}

bool rs_tun_backend_rcu(const struct rs_services *services, u8 family,
			const union nf_inet_addr *addr)
{
	struct rs_backend *b;

	hash_for_each_possible_rcu(services->tun_backends, b, addr_node,
				   rs_vip_hash(family, addr)) {
		if (b->member.family == family &&
		    !memcmp(b->member.addr, addr, rs_addr_len(family)))
			return true;
	}
	return false;
}

struct rs_backend *rs_steer_pick(const struct rs_steer *steer,
				 const struct rs_flow *flow, u64 *pos)
{
	int idx;

	*pos = rs_flow_position(&steer->ring->key, flow, steer->hash);
	idx = steer->slots ? rs_slots_lookup(steer->slots, *pos) :
			     rs_ring_lookup(steer->ring, *pos);
	return idx < 0 ? NULL : READ_ONCE(steer->owner[idx]);
}

struct rs_counter __percpu *rs_counter_alloc(void)
{
	struct rs_counter __percpu *c;
	int cpu;

	c = alloc_percpu_gfp(struct rs_counter, GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(c, cpu)->syncp);
	return c;
}

/*
 * PRE_ROUTING runs in softirq, LOCAL_OUT in process context that may be
 * preempted or interrupted by that softirq on the same CPU: pin the CPU,
 * and use the irqsave writer so that 32-bit seqcounts cannot be torn by
 * the softirq (on 64-bit it costs nothing).
 */
void rs_counter_inc(struct rs_counter __percpu *c)
{
	struct rs_counter *pc = get_cpu_ptr(c);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&pc->syncp);
	u64_stats_inc(&pc->count);
	u64_stats_update_end_irqrestore(&pc->syncp, flags);
	put_cpu_ptr(c);
}

u64 rs_counter_sum(struct rs_counter __percpu *c)
{
	unsigned int start;
	u64 sum = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct rs_counter *pc = per_cpu_ptr(c, cpu);

		do {
			start = u64_stats_fetch_begin(&pc->syncp);
			v = u64_stats_read(&pc->count);
		} while (u64_stats_fetch_retry(&pc->syncp, start));
		sum += v;
	}
	return sum;
}

struct rs_tun_stats __percpu *rs_tun_stats_alloc(void)
{
	struct rs_tun_stats __percpu *s;
	int cpu;

	s = alloc_percpu_gfp(struct rs_tun_stats, GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(s, cpu)->syncp);
	return s;
}

/*
 * Two at once, as most packets count twice (packets and hit or miss);
 * @b == RS_TUN_NSTATS counts @a alone. Only the tunnel hook writes, in
 * softirq: no irqsave needed.
 */
void rs_tun_stats_add(struct rs_tun_stats __percpu *s, enum rs_tun_stat a,
		      enum rs_tun_stat b)
{
	struct rs_tun_stats *ps = this_cpu_ptr(s);

	u64_stats_update_begin(&ps->syncp);
	u64_stats_inc(&ps->v[a]);
	if (b < RS_TUN_NSTATS)
		u64_stats_inc(&ps->v[b]);
	u64_stats_update_end(&ps->syncp);
}

u64 rs_tun_stats_sum(struct rs_tun_stats __percpu *s, enum rs_tun_stat which)
{
	unsigned int start;
	u64 sum = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct rs_tun_stats *ps = per_cpu_ptr(s, cpu);

		do {
			start = u64_stats_fetch_begin(&ps->syncp);
			v = u64_stats_read(&ps->v[which]);
		} while (u64_stats_fetch_retry(&ps->syncp, start));
		sum += v;
	}
	return sum;
}
