/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RINGSTEER_HOOK_H
#define _RINGSTEER_HOOK_H

struct net;

/*
 * Register or remove the NAT lookup hooks (and the conntrack they need) in
 * one namespace. Called under rs_net->lock when its first service appears
 * and after its last one goes, so namespaces without services pay nothing.
 */
int rs_hooks_register(struct net *net);
void rs_hooks_unregister(struct net *net);

#endif /* _RINGSTEER_HOOK_H */
