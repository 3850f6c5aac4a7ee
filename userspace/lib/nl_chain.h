/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The owner chain's backend mode over netlink: chain-set, chain-del and
 * chain-get (kmod/uapi/ringsteer.yaml), on a connection of nl.h.
 */
#ifndef RINGCTL_NL_CHAIN_H
#define RINGCTL_NL_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "uapi/ringsteer.h"
#include "nl.h"

/* The counters, in the attributes' order (ACCEPTED_SYN first). */
#define RC_CHAIN_NSTATS \
	(RINGSTEER_CHAIN_A_XMIT_ERRORS - RINGSTEER_CHAIN_A_ACCEPTED_SYN + 1)

struct rc_chain {
	bool on;
	uint16_t port;			/* host order */
	uint8_t last_resort;		/* enum ringsteer_chain_last_resort */
	uint8_t max_hops;
	uint64_t stats[RC_CHAIN_NSTATS];
};

/* The counters' names as the spec spells them ("accepted-syn" ...). */
extern const char *const rc_chain_stat_names[RC_CHAIN_NSTATS];

/* Turn on or change; last_resort < 0 and max_hops 0 are not sent. */
int nl_chain_set(struct nl_conn *nl, uint16_t port, int last_resort,
		 uint8_t max_hops);
int nl_chain_del(struct nl_conn *nl);
int nl_chain_get(struct nl_conn *nl, struct rc_chain *c);

#endif /* RINGCTL_NL_CHAIN_H */
