/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's votes in etcd (prefix hc_fleet_), when its file has a
 * "fleet FILE" line: under a lease of its own it keeps
 * PREFIX/health/HOST/live and one "down" key for each backend it sees
 * down (fleet_health.h), and the agents apply the fleet's verdict. While
 * it holds etcd the checker changes no health itself; without etcd it
 * falls back to its own verdicts, as without the line.
 */
#ifndef RINGCTL_HEALTH_FLEET_H
#define RINGCTL_HEALTH_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "../fleet/etcd.h"
#include "../fleet/fleet_conf.h"
#include "health_fsm.h"

struct hc_fleet {
	bool on;			/* the file named a fleet file */
	struct fl_conf c;
	struct etcd e;
	int64_t lease;
	bool connected;
	uint64_t next_ms;		/* the next keep-alive or retry */
	uint64_t backoff;
	char root[FL_PREFIX_LEN + 16];			/* PREFIX/health/ */
	char base[FL_PREFIX_LEN + FL_HOST_LEN + 16];	/* PREFIX/health/HOST/ */
};

/* PATH NULL: off. -errno with the message printed. */
int hc_fleet_open(struct hc_fleet *f, const char *path);
/* Connect, keep the lease, publish the votes of ST that changed. */
void hc_fleet_tick(struct hc_fleet *f, struct hc_state *st, uint64_t now);
/* Whether the agents decide (the checker's own changes are off). */
bool hc_fleet_connected(const struct hc_fleet *f);
void hc_fleet_close(struct hc_fleet *f);

#endif /* RINGCTL_HEALTH_FLEET_H */
