/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A service's and a backend's settings (struct rs_service_conf and
 * struct rs_backend_conf, steer.h): their defaults, how a request's nest
 * gives them, how a message carries them and how a change writes them.
 * A new setting is a field there and a line in each function here, and
 * whatever reads it; the spec and the files generated from it give its
 * attribute and policy.
 */
#ifndef _RINGSTEER_CONF_H
#define _RINGSTEER_CONF_H

#include <net/netlink.h>

#include "steer.h"

/*
 * The settings of the nest's attributes @tb (validated by the command's
 * policy) over @svc's, or a new service's defaults if @svc is NULL. A
 * set (@svc given) that gives none is refused, with its message on @nest.
 */
int rs_service_conf_parse(struct nlattr *const *tb, const struct nlattr *nest,
			  const struct rs_service *svc,
			  struct rs_service_conf *conf,
			  struct netlink_ext_ack *extack);
/* The same for a backend: over @b's, or a new backend's defaults. */
int rs_backend_conf_parse(struct nlattr *const *tb, const struct nlattr *nest,
			  const struct rs_backend *b,
			  struct rs_backend_conf *conf,
			  struct netlink_ext_ack *extack);

/* Into a service or backend nest; -EMSGSIZE when @skb is full. */
int rs_service_conf_put(struct sk_buff *skb, const struct rs_service_conf *conf);
int rs_backend_conf_put(struct sk_buff *skb, const struct rs_backend_conf *conf);

/* rs_net->lock held: the settings a change prepared, in place. */
void rs_service_set_conf(struct rs_service *svc,
			 const struct rs_service_conf *conf);
void rs_backend_set_conf(struct rs_backend *b,
			 const struct rs_backend_conf *conf);

#endif /* _RINGSTEER_CONF_H */
