// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace state: creation and teardown, the decision to register the
 * NAT hooks, and the services whose flows outlived them. See netns.h for
 * the locking rules.
 */

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "netns.h"
#include "nlmsg.h"
#include "service.h"

unsigned int rs_net_id __read_mostly;

/*
 * Every change may come from an unprivileged user in their own user and
 * network namespace: the rings and slot tables one namespace may hold are
 * bounded here (a table counts a point a slot of its capacity, commit.c),
 * and charged to its memory cgroup where they are allocated.
 */
static unsigned int max_points_per_netns = 4 * RINGSTEER_MAX_POINTS;
module_param(max_points_per_netns, uint, 0644);
MODULE_PARM_DESC(max_points_per_netns,
		 "ring points all services of one network namespace may hold, about 12 bytes each, a slots service's capacity included (default 4194304)");

u64 rs_net_points_max(void)
{
	return READ_ONCE(max_points_per_netns);
}

/*
 * Each service deleted with keep-flows keeps a record, and a target in the
 * walk that counts kept flows, until its last flow ends: bounded too.
 */
static unsigned int max_kept_per_netns = 1024;
module_param(max_kept_per_netns, uint, 0644);
MODULE_PARM_DESC(max_kept_per_netns,
		 "services deleted with keep-flows whose flows one network namespace may keep at once (default 1024)");

u32 rs_net_kept_max(void)
{
	return READ_ONCE(max_kept_per_netns);
}

u32 rs_net_kept(struct rs_net *rn)
{
	return rn->nkept;
}

/*
 * Next to the ring budget: backends cost
 * no point while draining, but each has per-CPU entries (tally.h: 10
 * bytes a CPU, its new-flow counter and a tunnel's next outer IP ID), so
 * a namespace's backends are bounded on their own. The default holds
 * 65,536: 80 MiB on a 128-CPU host, 1.25 MiB on 2 CPUs.
 */
static unsigned int max_backends_per_netns = 16 * RINGSTEER_MAX_BACKENDS;
module_param(max_backends_per_netns, uint, 0644);
MODULE_PARM_DESC(max_backends_per_netns,
		 "backends all services of one network namespace may have, draining ones included (default 65536)");

u32 rs_net_backends_max(void)
{
	return READ_ONCE(max_backends_per_netns);
}

u32 rs_net_backends(const struct rs_net *rn)
{
	const struct rs_service *svc;
	u32 n = 0;

	list_for_each_entry(svc, &rn->services.list, node)
		n += svc->nbackends;
	return n;
}

/*
 * The NAT hooks and conntrack are imposed on a namespace only while it has
 * a NAT service or kept flows, the tunnel hooks (and defragmentation) only
 * while it has a tunnel service: other namespaces pay nothing, and a
 * namespace of tunnel services only never gets conntrack or nf_nat.
 */
int rs_net_hooks_get(struct rs_net *rn, const struct rs_forward *fwd)
{
	if (rs_tunnel(fwd))
		return rs_tun_hooks_register(rn->net, &rn->tun_hooks, &rn->services);
	return rs_hooks_register(rn->net, &rn->hooks, &rn->services);
}

void rs_net_hooks_put(struct rs_net *rn)
{
	const struct rs_services *s = &rn->services;

	if (s->count == s->ntunnel && list_empty(&rn->retired))
		rs_hooks_unregister(rn->net, &rn->hooks);
	if (!s->ntunnel)
		rs_tun_hooks_unregister(rn->net, &rn->tun_hooks, &rn->services);
}

struct rs_retired *rs_retired_alloc(const struct rs_service *svc)
{
	struct rs_retired *r = kmalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (r) {
		rs_ct_target_service(&r->flows, svc);
		r->flows.kind = RS_CT_COUNT;
	}
	return r;
}

void rs_net_retire(struct rs_net *rn, struct rs_retired *r)
{
	list_add_tail(&r->node, &rn->retired);
	rn->nkept++;
	rs_sweep_kept(&rn->sweep);
}

static void forget_one(struct rs_net *rn, struct rs_retired *r)
{
	list_del(&r->node);
	rn->nkept--;
	kfree(r);
}

/* A service is back: its hooks cover the kept flows again. */
void rs_net_unretire(struct rs_net *rn, const struct rs_service *svc)
{
	struct rs_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rn->retired, node) {
		if (r->flows.family == svc->family &&
		    r->flows.proto == svc->proto &&
		    r->flows.port == svc->port &&
		    rs_addr_equal(svc->family, &r->flows.vip, &svc->vip))
			forget_one(rn, r);
	}
}

static void forget_retired(struct rs_net *rn)
{
	struct rs_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rn->retired, node)
		forget_one(rn, r);
}

static u32 kept_targets(struct rs_sweep *s, struct rs_ct_target *t)
{
	struct rs_net *rn = container_of(s, struct rs_net, sweep);
	struct rs_retired *r;
	u32 i = 0;

	if (t) {
		list_for_each_entry(r, &rn->retired, node)
			t[i++] = r->flows;
	}
	return rn->nkept;
}

/* Records with no flow left go, and maybe the hooks with them. */
static void kept_counted(struct rs_sweep *s, const u64 *counts)
{
	struct rs_net *rn = container_of(s, struct rs_net, sweep);
	struct rs_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rn->retired, node) {
		if (!*counts++)
			forget_one(rn, r);
	}
	rs_net_hooks_put(rn);
}

static void walked(struct rs_sweep *s, u64 seq)
{
	rs_notify_walked(container_of(s, struct rs_net, sweep), seq);
}

static const struct rs_sweep_ops kept_flows = {
	.kept_targets = kept_targets,
	.kept_counted = kept_counted,
	.walked = walked,
};

static int __net_init rs_net_init(struct net *net)
{
	struct rs_net *rn = rs_net(net);

	mutex_init(&rn->lock);
	rs_services_init(&rn->services);
	rn->services.unserved = rs_counter_alloc();
	rn->services.icmp_limit = alloc_percpu_gfp(struct rs_icmp_limit,
						   GFP_KERNEL_ACCOUNT);
	if (!rn->services.unserved || !rn->services.icmp_limit) {
		free_percpu(rn->services.icmp_limit);
		free_percpu(rn->services.unserved);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&rn->retired);
	rs_sweep_init(&rn->sweep, net, &rn->lock, &kept_flows);
	rs_conns_init(&rn->conns, net, &rn->lock, &rn->services);
	get_random_bytes(rn->key, sizeof(rn->key));
	rn->net = net;
	return 0;
}

/*
 * Packets may be in the hook until a grace period after the hooks are
 * unregistered (nf_nat waits for them only when its last user of a family
 * goes). The core runs synchronize_rcu() between .pre_exit and .exit, so
 * the hooks go here and what they read goes in .exit.
 */
static void __net_exit rs_net_pre_exit(struct net *net)
{
	struct rs_net *rn = rs_net(net);

	mutex_lock(&rn->lock);
	rn->dying = true;
	rs_sweep_stop(&rn->sweep);
	rs_hooks_unregister(net, &rn->hooks);
	rs_tun_hooks_unregister(net, &rn->tun_hooks, &rn->services);
	rs_chain_rx_del(net, &rn->chain);
	mutex_unlock(&rn->lock);
	rs_sweep_sync(&rn->sweep);
}

/*
 * On rmmod, with the hooks gone, the module's DNAT entries would no longer
 * be translated where ringsteer was the only NAT user: clients would send
 * into the void until their connections time out. Delete them, so clients
 * see resets at once, as IPVS does on unload: every entry the hook marked,
 * whatever service, kept flows or queued walk it belonged to, in one walk
 * that needs no memory and so cannot be skipped. A namespace being
 * dismantled takes its conntrack table with it: nothing to do there.
 */
static void delete_flows(struct rs_net *rn)
{
	if (check_net(rn->net))
		rs_ct_delete_steered(rn->net);
}

static void __net_exit rs_net_exit(struct net *net)
{
	struct rs_net *rn = rs_net(net);
	struct rs_service *svc, *tmp;

	mutex_lock(&rn->lock);
	delete_flows(rn);
	/* A grace period has passed since the hooks went: free at once. */
	list_for_each_entry_safe(svc, tmp, &rn->services.list, node) {
		rs_service_unlink(&rn->services, svc);
		rs_service_free(svc);
	}
	forget_retired(rn);
	xa_destroy(&rn->services.ids);
	free_percpu(rn->services.unserved);
	free_percpu(rn->services.icmp_limit);
	rs_sweep_free(&rn->sweep);
	memzero_explicit(rn->key, sizeof(rn->key));
	mutex_unlock(&rn->lock);
}

static struct pernet_operations rs_net_ops = {
	.init = rs_net_init,
	.pre_exit = rs_net_pre_exit,
	.exit = rs_net_exit,
	.id = &rs_net_id,
	.size = sizeof(struct rs_net),
};

int __init rs_netns_init(void)
{
	return register_pernet_subsys(&rs_net_ops);
}

void rs_netns_uninit(void)
{
	unregister_pernet_subsys(&rs_net_ops);
	/* Every call_rcu() callback must run before the code goes. */
	rcu_barrier();
}
