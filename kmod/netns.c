// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace state: creation and teardown, the decision to register the
 * NAT hooks, and the services whose flows outlived them. See netns.h for
 * the locking rules.
 */

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "netns.h"
#include "service.h"

unsigned int rs_net_id __read_mostly;

/*
 * Every change may come from an unprivileged user in their own user and
 * network namespace: the rings one namespace may hold are bounded here,
 * and charged to its memory cgroup where they are allocated.
 */
static unsigned int max_points_per_netns = 4 * RINGSTEER_MAX_POINTS;
module_param(max_points_per_netns, uint, 0644);
MODULE_PARM_DESC(max_points_per_netns,
		 "ring points all services of one network namespace may hold, about 12 bytes each (default 4194304)");

u64 rs_net_points_max(void)
{
	return READ_ONCE(max_points_per_netns);
}

u32 rs_net_kept(struct rs_net *rn)
{
	struct rs_retired *r;
	u32 n = 0;

	list_for_each_entry(r, &rn->retired, node)
		n++;
	return n;
}

/* How often flows kept after a service delete are looked for. */
#define RS_RETIRED_POLL		(10 * HZ)

/*
 * Hooks and conntrack are imposed on a namespace only while it has a
 * service or kept flows: other namespaces pay nothing.
 */
int rs_net_hooks_get(struct rs_net *rn)
{
	return rs_hooks_register(rn->net, &rn->hooks, &rn->services);
}

void rs_net_hooks_put(struct rs_net *rn)
{
	if (!rn->services.count && list_empty(&rn->retired))
		rs_hooks_unregister(rn->net, &rn->hooks);
}

struct rs_retired *rs_retired_alloc(const struct rs_service *svc)
{
	struct rs_retired *r = kmalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (r)
		rs_ct_target_service(&r->flows, svc);
	return r;
}

void rs_net_retire(struct rs_net *rn, struct rs_retired *r)
{
	list_add_tail(&r->node, &rn->retired);
	if (!rn->dying)
		schedule_delayed_work(&rn->retired_work, RS_RETIRED_POLL);
}

/* A service is back: its hooks cover the kept flows again. */
void rs_net_unretire(struct rs_net *rn, const struct rs_service *svc)
{
	struct rs_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rn->retired, node) {
		if (r->flows.family == svc->family &&
		    r->flows.proto == svc->proto &&
		    r->flows.port == svc->port &&
		    rs_addr_equal(svc->family, &r->flows.vip, &svc->vip)) {
			list_del(&r->node);
			kfree(r);
		}
	}
}

static void forget_retired(struct rs_net *rn)
{
	struct rs_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rn->retired, node) {
		list_del(&r->node);
		kfree(r);
	}
}

/* Drop the services whose kept flows have all ended; one walk for all. */
static void retired_poll(struct work_struct *work)
{
	struct rs_net *rn = container_of(to_delayed_work(work), struct rs_net,
					 retired_work);
	struct rs_ct_target *targets;
	struct rs_retired *r, *tmp;
	u32 n = 0, i = 0;
	u64 *counts;

	mutex_lock(&rn->lock);
	n = rs_net_kept(rn);
	targets = kcalloc(n, sizeof(*targets), GFP_KERNEL_ACCOUNT);
	counts = kcalloc(n, sizeof(*counts), GFP_KERNEL_ACCOUNT);
	if (n && targets && counts) {
		list_for_each_entry(r, &rn->retired, node)
			targets[i++] = r->flows;
		rs_ct_count(rn->net, targets, n, counts);
		i = 0;
		list_for_each_entry_safe(r, tmp, &rn->retired, node) {
			if (!counts[i++]) {
				list_del(&r->node);
				kfree(r);
			}
		}
		rs_net_hooks_put(rn);
	}
	if (!list_empty(&rn->retired) && !rn->dying)
		schedule_delayed_work(&rn->retired_work, RS_RETIRED_POLL);
	mutex_unlock(&rn->lock);
	kfree(targets);
	kfree(counts);
}

static int __net_init rs_net_init(struct net *net)
{
	struct rs_net *rn = rs_net(net);

	mutex_init(&rn->lock);
	rs_services_init(&rn->services);
	INIT_LIST_HEAD(&rn->retired);
	INIT_DELAYED_WORK(&rn->retired_work, retired_poll);
	rs_conns_init(&rn->conns);
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
	rs_hooks_unregister(net, &rn->hooks);
	mutex_unlock(&rn->lock);
	cancel_delayed_work_sync(&rn->retired_work);
}

/*
 * On rmmod, with the hooks gone, the module's DNAT entries would no longer
 * be translated where ringsteer was the only NAT user: clients would send
 * into the void until their connections time out. Delete them, so clients
 * see resets at once, as IPVS does on unload. A namespace being dismantled
 * takes its conntrack table with it: nothing to do there.
 */
static void delete_flows(struct rs_net *rn)
{
	struct rs_ct_target *targets;
	struct rs_service *svc;
	struct rs_retired *r;
	u32 n = 0;

	if (!check_net(rn->net))
		return;
	n = rs_net_kept(rn);
	targets = kcalloc(rn->services.count + n, sizeof(*targets), GFP_KERNEL);
	if (!targets)
		return;
	n = 0;
	list_for_each_entry(svc, &rn->services.list, node)
		rs_ct_target_service(&targets[n++], svc);
	list_for_each_entry(r, &rn->retired, node)
		targets[n++] = r->flows;
	rs_ct_delete(rn->net, targets, n);
	kfree(targets);
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
