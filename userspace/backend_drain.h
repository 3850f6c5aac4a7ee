/* SPDX-License-Identifier: GPL-2.0 */
/* ringctl backend drain ... wait: drain to completion (backend_drain.c). */
#ifndef RINGCTL_BACKEND_DRAIN_H
#define RINGCTL_BACKEND_DRAIN_H

#include "model.h"
#include "nl.h"

struct cmd_drain_wait {
	bool wait;
	uint32_t timeout;	/* seconds, 0: none */
	bool del;		/* delete the backend once drained */
};

/*
 * The words from "wait" on: "wait [TIMEOUT] [delete]". 0, or -EINVAL
 * after printing what is wrong.
 */
int cmd_drain_wait_parse(int argc, char **argv, struct cmd_drain_wait *w);

/*
 * Before the drain: whether the connections of service S, of forward mode
 * FORWARD (the kernel's), can be waited for. A forward tunnel service
 * keeps no conntrack entries, and the wait's count of 0 would say
 * "drained" while its flow table still sends the backend its flows. 0, or
 * -EINVAL after printing why not.
 */
int cmd_drain_wait_check(const struct rc_service *s, uint32_t forward);

/*
 * Show the backend's connections once a second until none is left (then
 * delete it if asked): 0, CLI_EXIT_TIMEOUT when the timeout passed first,
 * or -errno after printing an error.
 */
int cmd_drain_wait(struct nl_conn *nl, const struct rc_service *s,
		   const struct rc_backend *b, const struct cmd_drain_wait *w);

#endif /* RINGCTL_BACKEND_DRAIN_H */
