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
 * idle, RS_FT_IDLE without a packet). Down in a service with on-down
 * reset, though, a backend has no valid entry: its flows move, as a NAT
 * service's conntrack entries are deleted, and the ring's choice
 * overwrites their entries (rs_backend_cached()).
 *
 * A SYN never reads the table (Katran's rule): it follows the ring every
 * load balancer agrees on, so a client that reuses a source port after a
 * ring change starts where any other load balancer would send it, and its
 * entry is overwritten with the ring's choice.
 *
 * Capacity: each CPU has flow_table_entries entries (module parameter,
 * rounded up to fill the block allocated; flow_table_entries_userns for a
 * namespace whose user namespace is not the host's), in buckets of
 * RS_FT_WAYS. Past capacity, or for a flow whose packets reach another CPU
 * or another load balancer, the packet misses and the ring decides: the
 * flow stays where it is unless the ring changed since it started, and
 * then it moves (a TCP connection gets a reset from the new backend),
 * exactly as without the table.
 *
 * Under a flood. A miss only ever takes an empty or tentative way of its
 * bucket: a new entry is tentative until a second packet of its flow
 * finds it, and at most RS_FT_WAYS - 1 ways of a bucket are confirmed (a
 * confirmation beyond that makes the bucket's least recently used
 * confirmed entry tentative again; it still serves its flow until a miss
 * takes its way). So packets that each start a flow of their own (spoofed
 * SYNs, UDP or ACKs from random sources) recycle the tentative ways and
 * never evict a flow that has seen two packets. Above flood_threshold new
 * entries a second on a CPU (Katran's is_under_flood()), misses are not
 * recorded at all: the flood costs no table writes, and is counted.
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

/*
 * Any user namespace's root may add a tunnel service: a namespace the host
 * did not create gets a small table, so that a container costs the host
 * what a few of its backends would.
 */
static unsigned int flow_table_entries_userns = 1024;
module_param(flow_table_entries_userns, uint, 0644);
MODULE_PARM_DESC(flow_table_entries_userns,
		 "flow_table_entries for a namespace owned by a user namespace other than the initial one (default 1024, 64 KiB a CPU; 0: no table)");

static unsigned int flood_threshold = 125000;
module_param(flood_threshold, uint, 0644);
MODULE_PARM_DESC(flood_threshold,
		 "new flows a second on one CPU of a namespace above which forward tunnel's misses are no longer recorded in the flow table (default 125000, Katran's; 0: always recorded)");

struct rs_ft_entry {
	const struct rs_service *svc;	/* NULL: empty */
	struct rs_backend *b;		/* valid while ids maps id to it */
	union nf_inet_addr saddr;
	__be16 sport;
	bool confirmed;			/* a second packet found it */
	u32 id;
	unsigned long used;		/* jiffies of its last packet */
};

/* Each CPU's count of the entries it recorded in the current second. */
struct rs_ft_rate {
	unsigned long second;		/* jiffies the count started */
	u32 recorded;
};

struct rs_flow_table {
	struct rcu_head rcu;
	u32 nbuckets;
	u32 seed;
	struct rs_ft_rate __percpu *rate;
	struct rs_ft_entry *cpu[];	/* [nr_cpu_ids] */
};

/*
 * The allocator hands out, and charges, whole blocks (16384 entries of 48
 * bytes take a 1 MiB block): the buckets fill the block, so the table
 * holds at least @n entries and the memory paid for them. Past what
 * kmalloc serves (KMALLOC_MAX_SIZE), kvmalloc's vmalloc takes pages, not
 * a power of two of them: rounding up to one would nearly double it.
 */
static u32 buckets_for(u32 n)
{
	size_t size = array_size(roundup(n, RS_FT_WAYS), sizeof(struct rs_ft_entry));

	size = size <= KMALLOC_MAX_SIZE ? kmalloc_size_roundup(size) : PAGE_ALIGN(size);
	return size / (RS_FT_WAYS * sizeof(struct rs_ft_entry));
}

static u32 entries_wanted(const struct net *net)
{
	u32 n = net->user_ns == &init_user_ns ? READ_ONCE(flow_table_entries) :
						READ_ONCE(flow_table_entries_userns);

	return min(n, RS_FT_MAX_ENTRIES);
}

struct rs_flow_table *rs_ft_alloc(const struct net *net)
{
	u32 n = entries_wanted(net);
	struct rs_flow_table *ft;
	int cpu;

	if (!n)
		return NULL;
	ft = kzalloc(struct_size(ft, cpu, nr_cpu_ids), GFP_KERNEL_ACCOUNT);
	if (!ft)
		return ERR_PTR(-ENOMEM);
	ft->nbuckets = buckets_for(n);
	ft->seed = get_random_u32();
	ft->rate = alloc_percpu_gfp(struct rs_ft_rate, GFP_KERNEL_ACCOUNT);
	if (!ft->rate)
		goto nomem;
	for_each_possible_cpu(cpu) {
		ft->cpu[cpu] = kvzalloc_node(array_size(ft->nbuckets * RS_FT_WAYS,
							sizeof(struct rs_ft_entry)),
					     GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!ft->cpu[cpu])
			goto nomem;
	}
	return ft;

nomem:
	rs_ft_free(ft);
	return ERR_PTR(-ENOMEM);
}

void rs_ft_free(struct rs_flow_table *ft)
{
	int cpu;

	if (IS_ERR_OR_NULL(ft))
		return;
	for_each_possible_cpu(cpu)
		kvfree(ft->cpu[cpu]);
	free_percpu(ft->rate);
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

static bool valid(struct rs_services *s, const struct rs_ft_entry *e)
{
	const struct rs_backend *b = xa_load(&s->ids, e->id);

	if (b != e->b || time_after(jiffies, e->used + RS_FT_IDLE))
		return false;
	return rs_backend_cached(e->svc, b);
}

/*
 * @e's flow sent its second packet: it is confirmed, and if that leaves
 * no tentative way in the bucket, the least recently used other confirmed
 * entry becomes tentative (it keeps serving its flow until a miss takes
 * its way).
 */
static void confirm(struct rs_ft_entry *bkt, struct rs_ft_entry *e)
{
	struct rs_ft_entry *lru = NULL;
	int i;

	if (e->confirmed)
		return;
	e->confirmed = true;
	for (i = 0; i < RS_FT_WAYS; i++) {
		if (bkt + i == e)
			continue;
		if (!bkt[i].svc || !bkt[i].confirmed)
			return;
		if (!lru || time_before(bkt[i].used, lru->used))
			lru = bkt + i;
	}
	lru->confirmed = false;
}

/* The way a miss may take: an empty one, else the oldest tentative one. */
static struct rs_ft_entry *victim(struct rs_ft_entry *bkt)
{
	struct rs_ft_entry *v = NULL;
	int i;

	for (i = 0; i < RS_FT_WAYS; i++) {
		if (!bkt[i].svc)
			return bkt + i;
		if (!bkt[i].confirmed && (!v || time_before(bkt[i].used, v->used)))
			v = bkt + i;
	}
	return v;
}

struct rs_backend *rs_ft_get(struct rs_services *s,
			     const struct rs_service *svc,
			     const union nf_inet_addr *saddr, __be16 sport,
			     bool syn, struct rs_ft_entry **slot)
{
	const struct rs_flow_table *ft = rcu_dereference(s->ft);
	struct rs_ft_entry *bkt, *e;
	int i;

	*slot = NULL;
	if (!ft)
		return NULL;
	bkt = bucket(ft, svc, saddr, sport);
	for (i = 0, e = bkt; i < RS_FT_WAYS; i++, e++) {
		if (e->svc != svc || e->sport != sport ||
		    !ipv6_addr_equal(&e->saddr.in6, &saddr->in6))
			continue;
		/* The flow's own way, rewritten for a SYN or a dead entry. */
		*slot = e;
		if (syn || !valid(s, e))
			return NULL;
		e->used = jiffies;
		confirm(bkt, e);
		return e->b;
	}
	*slot = victim(bkt);
	return NULL;
}

/* Whether this CPU may record one more entry this second. */
static bool below_flood(const struct rs_flow_table *ft)
{
	struct rs_ft_rate *r = this_cpu_ptr(ft->rate);
	u32 limit = READ_ONCE(flood_threshold);

	if (time_after_eq(jiffies, r->second + HZ)) {
		r->second = jiffies;
		r->recorded = 0;
	}
	if (limit && r->recorded >= limit)
		return false;
	r->recorded++;
	return true;
}

bool rs_ft_put(struct rs_services *s, struct rs_ft_entry *slot,
	       const struct rs_service *svc, const union nf_inet_addr *saddr,
	       __be16 sport, struct rs_backend *b)
{
	const struct rs_flow_table *ft = rcu_dereference(s->ft);

	if (!slot || !ft)
		return true;
	if (!below_flood(ft))
		return false;
	slot->svc = svc;
	slot->b = b;
	slot->id = READ_ONCE(b->id);
	slot->saddr = *saddr;
	slot->sport = sport;
	slot->confirmed = false;
	slot->used = jiffies;
	return true;
}

int rs_ft_id_alloc(struct rs_services *s, struct rs_backend *b)
{
	u32 id;
	int err = xa_alloc_cyclic(&s->ids, &id, b, xa_limit_32b,
				  &s->next_id, GFP_KERNEL_ACCOUNT);

	if (err < 0)
		return err;
	WRITE_ONCE(b->id, id);
	return 0;
}

void rs_ft_id_free(struct rs_services *s, struct rs_backend *b)
{
	if (b->id)
		xa_erase(&s->ids, b->id);
	WRITE_ONCE(b->id, 0);
}
