// SPDX-License-Identifier: GPL-2.0
/*
 * forward tunnel's flow table, after Katran's LRU: a packet whose flow is
 * in the table goes to the backend recorded there, whatever the ring says
 * now, so a flow stays on the backend it started on across ring changes
 * (backends added, weights, drains, vnodes, hash mode, key); a packet
 * that misses is steered by the ring and recorded.
 *
 * One table for all CPUs, not one a CPU as Katran's. Without RSS or RPS
 * (veth, a single-queue NIC, a host that spreads softirqs by the sending
 * process) a flow's packets reach the hook on any CPU: with a table a CPU,
 * a CPU that never saw the flow missed and sent it where the ring says
 * now, and a CPU that did not see a reused tuple's new SYN kept the old
 * connection's entry and sent the new one's data to the old backend
 * (selftests/tunnel_cpus.sh sends a SYN on one CPU and the data on the
 * other). Invalidating the other CPUs' entries on a SYN would cost every
 * SYN a bucket on every CPU, and still leave the first case. So a flow has
 * one entry, in a bucket of RS_FT_WAYS ways chosen by its hash, which any
 * CPU reads and writes. The cost, against the per-CPU table's (the tunnel
 * should stay near plain routing): a hit reads the bucket under
 * its sequence count (no store, no atomic); a new entry, a confirmation
 * and the refresh of an entry's time (at most every RS_FT_TOUCH) take the
 * bucket's lock, a cmpxchg on a line no other flow's packet writes more
 * often. An entry is one cache line, so CPUs that refresh different flows
 * never write the same line. The memory is what it was, a block of
 * flow_table_entries a CPU, each on its CPU's node; only a flow no longer
 * belongs to the block of the CPU that sees it.
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
 * Confirmed and established. A new entry is tentative. It is confirmed by
 * a packet of its flow at least RS_FT_CONFIRM after it was recorded: a
 * time span, which a blind sender cannot give as cheaply as a second
 * packet (its entry must outlive its own flood's recycling of tentative
 * ways for that long, within the flood budget below). A confirmed entry
 * with a packet in the last RS_FT_ACTIVE is established.
 *
 * A SYN follows the ring every load balancer agrees on (Katran's rule), so
 * a client that reuses a source port after a ring change starts where any
 * other load balancer would send it, and its entry is rewritten with the
 * ring's choice, always, even above the flood threshold: a rewrite of the
 * flow's own way is no new entry. Except an established entry whose
 * backend is still on the ring (active and up): a SYN goes to that
 * backend, and leaves the entry alone. A spoofed SYN with a victim's
 * tuple then reaches the victim's own backend, which answers a SYN on an
 * established connection with a challenge ACK (RFC 5961); moved, it would
 * have taken the connection with it. The client's FIN or RST ends the
 * establishment (touch()). What remains: a real client that reuses the
 * tuple of a connection it never closed, with a packet less than
 * RS_FT_ACTIVE ago, starts on that connection's backend, not on the
 * ring's (it works through this load balancer, it breaks if ECMP moves it
 * to another); a connection idle for RS_FT_ACTIVE, or on a draining or down backend,
 * can still be moved by a spoofed SYN that knows its tuple.
 *
 * Capacity: flow_table_entries a CPU (module parameter, rounded up to
 * fill the block allocated; flow_table_entries_userns for a namespace
 * whose user namespace is not the host's), in buckets of RS_FT_WAYS. Past
 * capacity, or for a flow whose packets reach another load balancer, the
 * packet misses and the ring decides: the flow stays where it is unless
 * the ring changed since it started, and then it moves (a TCP connection
 * gets a reset from the new backend), exactly as without the table.
 *
 * Under a flood. A miss only ever takes an empty or tentative way of its
 * bucket, and at most RS_FT_WAYS - 1 ways of a bucket are confirmed: a
 * confirmation beyond that makes the bucket's least recently used
 * confirmed entry tentative again (it still serves its flow until a miss
 * takes its way), unless that entry is established: then the new one
 * stays tentative. So packets that each start a flow of their own
 * (spoofed SYNs, UDP or ACKs from random sources, two packets a tuple)
 * recycle the tentative ways and never evict an established flow. Above
 * flood_threshold new entries and confirmations a second on a CPU
 * (Katran's is_under_flood()), neither is recorded: the flood costs no
 * table writes but its own ways', and is counted.
 *
 * No allocation in the packet path, and no lock but a bucket's, held by
 * the packet path alone for a few stores with BHs off (rs_tun_hook()).
 */

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "flowtab.h"

#define RS_FT_WAYS 4
#define RS_FT_IDLE (300 * HZ)
/* A packet this long after the first confirms a flow. */
#define RS_FT_CONFIRM HZ
/* A confirmed flow with a packet this recent is established. */
#define RS_FT_ACTIVE (30 * HZ)
/* How stale an entry's time may be: a hit writes at most this often. */
#define RS_FT_TOUCH (HZ / 4)
#define RS_FT_MAX_ENTRIES BIT(24)

static unsigned int flow_table_entries = 16384;
module_param(flow_table_entries, uint, 0644);
MODULE_PARM_DESC(flow_table_entries,
		 "forward tunnel flow table entries per CPU and namespace (at least: rounded up to fill the memory block they take), 64 bytes each, taken when a namespace's first tunnel service is added; 0: no table (default 16384: 1 MiB)");

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
		 "new flows and confirmations a second on one CPU of a namespace above which forward tunnel's flow table records neither (default 125000, Katran's; 0: always recorded)");

/*
 * One cache line. The times are jiffies; used is refreshed at most every
 * RS_FT_TOUCH. seq is the bucket's in its first way, unused in the others.
 */
struct rs_ft_entry {
	const struct rs_service *svc;	/* NULL: empty */
	struct rs_backend *b;		/* valid while ids maps id to it */
	union nf_inet_addr saddr;
	__be16 sport;
	bool confirmed;			/* a packet RS_FT_CONFIRM after born */
	u32 id;
	u32 seq;			/* odd: a writer holds the bucket */
	unsigned long born;		/* recorded */
	unsigned long used;		/* its last packet */
} ____cacheline_aligned_in_smp;

/* Each CPU's count of the entries it recorded in the current second. */
struct rs_ft_rate {
	unsigned long second;		/* jiffies the count started */
	u32 recorded;
};

struct rs_flow_table {
	struct rcu_head rcu;
	u32 nbuckets;			/* a block's */
	u32 nblocks;
	u32 seed;
	struct rs_ft_rate __percpu *rate;
	struct rs_ft_entry *block[];	/* [nblocks], buckets of RS_FT_WAYS */
};

/*
 * The allocator hands out, and charges, whole blocks (16384 entries of 64
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
	ft = kzalloc(struct_size(ft, block, num_possible_cpus()), GFP_KERNEL_ACCOUNT);
	if (!ft)
		return ERR_PTR(-ENOMEM);
	ft->nbuckets = buckets_for(n);
	ft->seed = get_random_u32();
	ft->rate = alloc_percpu_gfp(struct rs_ft_rate, GFP_KERNEL_ACCOUNT);
	if (!ft->rate)
		goto nomem;
	/* Spread over the nodes as the CPUs are: a flow's block is its hash's. */
	for_each_possible_cpu(cpu) {
		ft->block[ft->nblocks] = kvzalloc_node(array_size(ft->nbuckets * RS_FT_WAYS,
								  sizeof(struct rs_ft_entry)),
						       GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!ft->block[ft->nblocks])
			goto nomem;
		ft->nblocks++;
	}
	return ft;

nomem:
	rs_ft_free(ft);
	return ERR_PTR(-ENOMEM);
}

void rs_ft_free(struct rs_flow_table *ft)
{
	u32 i;

	if (IS_ERR_OR_NULL(ft))
		return;
	for (i = 0; i < ft->nblocks; i++)
		kvfree(ft->block[i]);
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

	/* The high bits pick the block, the product's high bits its bucket. */
	return ft->block[reciprocal_scale(h, ft->nblocks)] +
	       reciprocal_scale(__hash_32(h), ft->nbuckets) * RS_FT_WAYS;
}

/*
 * A bucket's lock: its first way's seq, odd while a writer holds it. Only
 * the packet path takes it, with BHs off, for a few stores and no call
 * that could wait: a writer that finds it held waits for those, as a
 * reader that finds it odd or moved reads again (a seqcount's rule).
 */
static u32 bkt_lock(struct rs_ft_entry *bkt)
{
	u32 s;

	for (;;) {
		s = READ_ONCE(bkt->seq);
		if (!(s & 1) && try_cmpxchg(&bkt->seq, &s, s + 1))
			return s + 1;
		cpu_relax();
	}
}

static void bkt_unlock(struct rs_ft_entry *bkt, u32 s)
{
	/* The entry's stores before the even count (pairs with bkt_read()). */
	smp_store_release(&bkt->seq, s + 1);
}

static int way_of(const struct rs_ft_entry *bkt, const struct rs_service *svc,
		  const union nf_inet_addr *saddr, __be16 sport)
{
	int i;

	for (i = 0; i < RS_FT_WAYS; i++)
		if (bkt[i].svc == svc && bkt[i].sport == sport &&
		    ipv6_addr_equal(&bkt[i].saddr.in6, &saddr->in6))
			return i;
	return -1;
}

/* A copy of the flow's entry, taken whole: false if it has none. */
static bool bkt_read(const struct rs_ft_entry *bkt, const struct rs_service *svc,
		     const union nf_inet_addr *saddr, __be16 sport,
		     struct rs_ft_entry *e)
{
	int i = -1;
	u32 s;

	do {
		/* The count before the ways (pairs with bkt_unlock()). */
		s = smp_load_acquire(&bkt->seq);
		if (s & 1) {
			cpu_relax();
			continue;
		}
		i = way_of(bkt, svc, saddr, sport);
		if (i >= 0)
			*e = bkt[i];
		/* The ways before the count again (pairs with bkt_lock()'s cmpxchg). */
		smp_rmb();
	} while ((s & 1) || READ_ONCE(bkt->seq) != s);
	return i >= 0;
}

static bool valid(struct rs_services *s, const struct rs_ft_entry *e,
		  unsigned long now)
{
	const struct rs_backend *b = xa_load(&s->ids, e->id);

	if (b != e->b || time_after(now, e->used + RS_FT_IDLE))
		return false;
	return rs_backend_cached(e->svc, b);
}

static bool established(const struct rs_ft_entry *e, unsigned long now)
{
	return e->confirmed && time_before(now, e->used + RS_FT_ACTIVE);
}

/* A SYN leaves an established entry alone while its backend is on the ring. */
static bool keeps_syn(const struct rs_ft_entry *e, unsigned long now)
{
	return established(e, now) &&
	       READ_ONCE(e->b->conf.state) == RINGSTEER_STATE_ACTIVE &&
	       READ_ONCE(e->b->conf.health) == RINGSTEER_HEALTH_UP;
}

/*
 * Whether this CPU may record one more entry or confirmation this second;
 * @force: a rewrite of a flow's own way, counted but never refused.
 */
static bool below_flood(const struct rs_flow_table *ft, bool force)
{
	struct rs_ft_rate *r = this_cpu_ptr(ft->rate);
	u32 limit = READ_ONCE(flood_threshold);

	if (time_after_eq(jiffies, r->second + HZ)) {
		r->second = jiffies;
		r->recorded = 0;
	}
	if (!force && limit && r->recorded >= limit)
		return false;
	r->recorded++;
	return true;
}

/*
 * Bucket locked: @e's flow has lived RS_FT_CONFIRM. It is confirmed within
 * the flood budget, and if that leaves no tentative way, the least
 * recently used other confirmed entry becomes tentative (it keeps serving
 * its flow until a miss takes its way); if that one is established, @e
 * stays tentative instead.
 */
static void confirm(const struct rs_flow_table *ft, struct rs_ft_entry *bkt,
		    struct rs_ft_entry *e, unsigned long now)
{
	struct rs_ft_entry *lru = NULL;
	int i;

	for (i = 0; i < RS_FT_WAYS; i++) {
		if (bkt + i == e)
			continue;
		if (!bkt[i].svc || !bkt[i].confirmed) {
			lru = NULL;
			break;
		}
		if (!lru || time_before(bkt[i].used, lru->used))
			lru = bkt + i;
	}
	if ((lru && established(lru, now)) || !below_flood(ft, false))
		return;
	if (lru)
		lru->confirmed = false;
	e->confirmed = true;
}

/*
 * A hit: refresh the entry's time (and confirm it when due), unless it
 * was refreshed less than RS_FT_TOUCH ago or has changed hands since @seen.
 * @end (the client's FIN or RST): the connection is closing, so its entry
 * is tentative again and counts its life anew. A client that reuses the
 * port once it has closed then starts where the ring says, as on every
 * other load balancer (fleet/ring_tunnel.sh); a spoofer that knows the
 * tuple could send the RST as well as the SYN, but then it could reset
 * the connection at its backend anyway.
 */
static void touch(const struct rs_flow_table *ft, struct rs_ft_entry *bkt,
		  const struct rs_ft_entry *seen, unsigned long now, bool end)
{
	struct rs_ft_entry *e;
	u32 s;
	int i;

	if (!end && time_before(now, seen->used + RS_FT_TOUCH))
		return;
	s = bkt_lock(bkt);
	i = way_of(bkt, seen->svc, &seen->saddr, seen->sport);
	e = i >= 0 ? bkt + i : NULL;
	if (e && e->b == seen->b && e->born == seen->born) {
		e->used = now;
		if (end) {
			e->confirmed = false;
			e->born = now;
		} else if (!e->confirmed && time_after_eq(now, e->born + RS_FT_CONFIRM)) {
			confirm(ft, bkt, e, now);
		}
	}
	bkt_unlock(bkt, s);
}

struct rs_backend *rs_ft_get(struct rs_services *s,
			     const struct rs_service *svc,
			     const union nf_inet_addr *saddr, __be16 sport,
			     enum rs_ft_pkt pkt, struct rs_ft_entry **bktp)
{
	const struct rs_flow_table *ft = rcu_dereference(s->ft);
	unsigned long now = jiffies;
	struct rs_ft_entry *bkt, e;

	*bktp = NULL;
	if (!ft)
		return NULL;
	bkt = bucket(ft, svc, saddr, sport);
	*bktp = bkt;
	if (!bkt_read(bkt, svc, saddr, sport, &e) || !valid(s, &e, now))
		return NULL;
	/* A SYN is no sign of life: it neither refreshes nor confirms. */
	if (pkt == RS_FT_SYN)
		return keeps_syn(&e, now) ? e.b : NULL;
	touch(ft, bkt, &e, now, pkt == RS_FT_END);
	return e.b;
}

/* The way a new entry may take: an empty one, else the oldest tentative one. */
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

bool rs_ft_put(struct rs_services *s, struct rs_ft_entry *bkt,
	       const struct rs_service *svc, const union nf_inet_addr *saddr,
	       __be16 sport, struct rs_backend *b)
{
	const struct rs_flow_table *ft = rcu_dereference(s->ft);
	struct rs_ft_entry *e;
	u32 seq;
	int i;

	if (!bkt || !ft)
		return true;
	seq = bkt_lock(bkt);
	i = way_of(bkt, svc, saddr, sport);
	/* The flow's own way is no new entry: rewritten whatever the rate. */
	e = i >= 0 ? bkt + i : victim(bkt);
	if (!e || !below_flood(ft, i >= 0)) {
		bkt_unlock(bkt, seq);
		return false;
	}
	e->svc = svc;
	e->b = b;
	e->id = READ_ONCE(b->id);
	e->saddr = *saddr;
	e->sport = sport;
	e->confirmed = false;
	e->born = jiffies;
	e->used = e->born;
	bkt_unlock(bkt, seq);
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
