// SPDX-License-Identifier: GPL-2.0
/*
 * forward tunnel's flow table, after Katran's per-CPU LRU: a packet whose
 * flow is in its CPU's table goes to the backend recorded there, whatever
 * the ring says now, so a flow stays on the backend it started on across
 * ring changes (backends added, weights, drains, vnodes, hash mode, key);
 * a packet that misses is steered by the ring and recorded.
 *
 * Rules. An entry names its backend by pointer and id; it is valid only
 * while the namespace's id table (rs_services->ids, RCU) still maps that
 * id to that pointer, so a deleted backend's entries are dead the moment
 * it is unlinked, and its memory is never read through them. A draining
 * or down backend's entries stay valid (its established flows go on until
 * idle, RS_FT_IDLE without a packet); a TCP SYN reuses an entry only while
 * its backend is active and up (the ring's rule), so a new connection
 * never starts on a draining or down one. Down in a service with on-down
 * reset, though, a backend has no valid entry: its flows move, as a NAT
 * service's conntrack entries are deleted, and the ring's choice
 * overwrites their entries (rs_backend_cached()).
 *
 * Capacity: each CPU has flow_table_entries entries (module parameter,
 * rounded up to fill the block allocated),
 * in buckets of RS_FT_WAYS; a new flow replaces the least recently used
 * entry of its bucket. Past capacity, or for a flow whose packets reach
 * another CPU or another load balancer, the packet misses and the ring
 * decides: the flow stays where it is unless the ring changed since it
 * started, and then it moves (a TCP connection gets a reset from the new
 * backend), exactly as without the table.
 *
 * No allocation and no lock in the packet path: an entry is read and
 * written only by its CPU, in softirq (PRE_ROUTING), which cannot nest.
 */

#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "flowtab.h"

#define RS_FT_WAYS 4
#define RS_FT_IDLE (300 * HZ)
#define RS_FT_MAX_ENTRIES BIT(24)

static unsigned int flow_table_entries = 16384;
module_param(flow_table_entries, uint, 0644);
MODULE_PARM_DESC(flow_table_entries,
		 "forward tunnel flow table entries per CPU and namespace (at least: rounded up to fill the memory block they take), 48 bytes each, taken when a namespace's first tunnel service is added; 0: no table (default 16384, that is 21844 in 1 MiB)");

struct rs_ft_entry {
	const struct rs_service *svc;	/* NULL: empty */
	struct rs_backend *b;		/* valid while ids maps id to it */
	union nf_inet_addr saddr;
	__be16 sport;
	u32 id;
	unsigned long used;		/* jiffies of its last packet */
};

struct rs_flow_table {
	struct rcu_head rcu;
	u32 nbuckets;
	u32 seed;
	struct rs_ft_entry *cpu[];	/* [nr_cpu_ids] */
};

struct rs_flow_table *rs_ft_alloc(void)
{
	u32 n = min(READ_ONCE(flow_table_entries), RS_FT_MAX_ENTRIES);
	struct rs_flow_table *ft;
	int cpu;

	if (n < RS_FT_WAYS)
		return NULL;
	ft = kzalloc(struct_size(ft, cpu, nr_cpu_ids), GFP_KERNEL_ACCOUNT);
	if (!ft)
		return ERR_PTR(-ENOMEM);
	/*
	 * The allocator hands out, and charges, whole blocks (16384 entries
	 * of 48 bytes take a 1 MiB block): the buckets fill the block, so
	 * the table holds at least n entries and the memory paid for them.
	 */
	ft->nbuckets = kmalloc_size_roundup(array_size(n, sizeof(struct rs_ft_entry))) /
		       (RS_FT_WAYS * sizeof(struct rs_ft_entry));
	ft->seed = get_random_u32();
	for_each_possible_cpu(cpu) {
		ft->cpu[cpu] = kvzalloc_node(array_size(ft->nbuckets * RS_FT_WAYS,
							sizeof(struct rs_ft_entry)),
					     GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!ft->cpu[cpu]) {
			rs_ft_free(ft);
			return ERR_PTR(-ENOMEM);
		}
	}
	return ft;
}

void rs_ft_free(struct rs_flow_table *ft)
{
	int cpu;

	if (IS_ERR_OR_NULL(ft))
		return;
	for_each_possible_cpu(cpu)
		kvfree(ft->cpu[cpu]);
	kfree(ft);
}

u32 rs_ft_entries(const struct rs_flow_table *ft)
{
	return ft ? ft->nbuckets * RS_FT_WAYS : 0;
}

static void ft_free_rcu(struct rcu_head *head)
{
	rs_ft_free(container_of(head, struct rs_flow_table, rcu));
}

void rs_ft_free_rcu(struct rs_flow_table *ft)
{
	if (!IS_ERR_OR_NULL(ft))
		call_rcu(&ft->rcu, ft_free_rcu);
}

static struct rs_ft_entry *bucket(const struct rs_flow_table *ft,
				  const struct rs_service *svc,
				  const union nf_inet_addr *saddr, __be16 sport)
{
	u32 h = jhash2(saddr->all, 4, ft->seed ^ (__force u16)sport ^
		       (u32)(unsigned long)svc);

	return ft->cpu[smp_processor_id()] + reciprocal_scale(h, ft->nbuckets) * RS_FT_WAYS;
}

static bool valid(struct rs_services *s, const struct rs_ft_entry *e,
		  bool syn)
{
	const struct rs_backend *b = xa_load(&s->ids, e->id);

	if (b != e->b || time_after(jiffies, e->used + RS_FT_IDLE))
		return false;
	return rs_backend_cached(e->svc, b, syn);
}

struct rs_backend *rs_ft_get(struct rs_services *s,
			     const struct rs_service *svc,
			     const union nf_inet_addr *saddr, __be16 sport,
			     bool syn, struct rs_ft_entry **slot)
{
	const struct rs_flow_table *ft = rcu_dereference(s->ft);
	struct rs_ft_entry *e, *lru;
	int i;

	*slot = NULL;
	if (!ft)
		return NULL;
	e = bucket(ft, svc, saddr, sport);
	lru = e;
	for (i = 0; i < RS_FT_WAYS; i++, e++) {
		if (e->svc == svc && e->sport == sport &&
		    ipv6_addr_equal(&e->saddr.in6, &saddr->in6)) {
			*slot = e;
			if (!valid(s, e, syn))
				return NULL;
			e->used = jiffies;
			return e->b;
		}
		if (lru->svc && (!e->svc || time_before(e->used, lru->used)))
			lru = e;
	}
	*slot = lru;
	return NULL;
}

void rs_ft_put(struct rs_ft_entry *slot, const struct rs_service *svc,
	       const union nf_inet_addr *saddr, __be16 sport,
	       struct rs_backend *b)
{
	if (!slot)
		return;
	slot->svc = svc;
	slot->b = b;
	slot->id = b->id;
	slot->saddr = *saddr;
	slot->sport = sport;
	slot->used = jiffies;
}

int rs_ft_id_alloc(struct rs_services *s, struct rs_backend *b)
{
	int err = xa_alloc_cyclic(&s->ids, &b->id, b, xa_limit_32b,
				  &s->next_id, GFP_KERNEL_ACCOUNT);

	return err < 0 ? err : 0;
}

void rs_ft_id_free(struct rs_services *s, struct rs_backend *b)
{
	if (b->id)
		xa_erase(&s->ids, b->id);
	b->id = 0;
}
