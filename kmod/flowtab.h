/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward tunnel's flow table: it pins a flow to the backend it started
 * on across ring changes on this host (flowtab.c has the rules). The
 * table of a namespace is allocated with its tunnel hooks and freed after
 * them; one table for all CPUs, which the packet path alone reads and
 * writes, with BHs off (rs_tun_hook()), a writer holding the bucket's
 * lock for a few stores.
 */
#ifndef _RINGSTEER_FLOWTAB_H
#define _RINGSTEER_FLOWTAB_H

#include "steer.h"

struct net;
struct rs_flow_table;
struct rs_ft_entry;

/*
 * rs_net->lock held; NULL if the table is off (module parameter 0 for
 * @net: flow_table_entries, or flow_table_entries_userns for a namespace
 * the initial user namespace does not own).
 */
struct rs_flow_table *rs_ft_alloc(const struct net *net);
void rs_ft_free(struct rs_flow_table *ft);
/* A grace period later: for a table the packet path may still read. */
void rs_ft_free_rcu(struct rs_flow_table *ft);
/* Entries per CPU: under rcu_read_lock() or rs_net->lock; 0 for none. */
u32 rs_ft_entries(const struct rs_flow_table *ft);

/*
 * The backend @svc's flow from @saddr:@sport is pinned to, or NULL (a
 * miss); *@bkt is the bucket where rs_ft_put() may record the ring's
 * choice (NULL: nowhere). @pkt: RS_FT_SYN, a TCP SYN, misses (it follows
 * the ring) unless the entry is established and its backend on the ring;
 * RS_FT_END, a FIN or RST, hits but ends the entry's establishment.
 */
enum rs_ft_pkt { RS_FT_DATA, RS_FT_SYN, RS_FT_END };
struct rs_backend *rs_ft_get(struct rs_services *s,
			     const struct rs_service *svc,
			     const union nf_inet_addr *saddr, __be16 sport,
			     enum rs_ft_pkt pkt, struct rs_ft_entry **bkt);
/* False if the flood threshold kept it from being recorded. */
bool rs_ft_put(struct rs_services *s, struct rs_ft_entry *bkt,
	       const struct rs_service *svc, const union nf_inet_addr *saddr,
	       __be16 sport, struct rs_backend *b);

/* Backend ids, by which entries are revalidated: rs_net->lock held. */
int rs_ft_id_alloc(struct rs_services *s, struct rs_backend *b);
void rs_ft_id_free(struct rs_services *s, struct rs_backend *b);

#endif /* _RINGSTEER_FLOWTAB_H */
