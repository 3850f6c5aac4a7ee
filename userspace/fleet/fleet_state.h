/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status key PREFIX/status/HOST (prefix fl_): written by "ringctl
 * sync" under its lease, read by "ringctl fleet status". One JSON object
 * (doc/fleet.md has the schema):
 *
 *   {"version":1, "host":"lb1", "revision":42, "updated":1764850000,
 *    "key_id":"9a0c...", "services":[{"service":"192.0.2.10:80 tcp",
 *    "fingerprint":"...", "backends":3, "down":["10.1.0.2:8080"]}],
 *    "error":null | {"revision":43, "message":"..."}}
 *
 * revision is the mod_revision of PREFIX/config the kernel holds (0:
 * none yet); fingerprints are the kernel's, health included; down lists
 * the backends the health checker marked down, so that fleet status can
 * compute what the configuration gives with them down; key_id names the
 * local SipHash key without revealing it (fl_key_id()).
 */
#ifndef RINGCTL_FLEET_STATE_H
#define RINGCTL_FLEET_STATE_H

#include <stdint.h>

#include "fleet_conf.h"
#include "model.h"
#include "print.h"

#define FL_KEY_ID_LEN	17
#define FL_ERROR_LEN	512

struct fl_service_state {
	char name[RC_SERVICE_NAME_LEN];		/* "VIP:PORT PROTO" */
	char fingerprint[PRINT_FINGERPRINT_LEN];
	uint32_t backends;
	char (*down)[RC_ENDPOINT_LEN];
	uint32_t ndown;
};

struct fl_state {
	char host[FL_HOST_LEN];
	int64_t revision;
	int64_t updated;			/* Unix time, seconds */
	char key_id[FL_KEY_ID_LEN];		/* "" when not known */
	struct fl_service_state *s;
	uint32_t ns;
	int64_t error_revision;			/* 0: no error */
	char error[FL_ERROR_LEN];
};

/*
 * 16 hex digits of SipHash-2-4 of a fixed text under KEY: equal keys give
 * equal ids, and the id no more reveals the key than a ring does.
 */
void fl_key_id(char buf[FL_KEY_ID_LEN], const uint8_t key[RINGSTEER_KEY_LEN]);

/* C's services (sorted, fingerprints set) and their downs into ST's. */
int fl_state_services(struct fl_state *st, const struct rc_config *c);
/* ST as one line of JSON (malloc()ed), or NULL when out of memory. */
char *fl_state_json(const struct fl_state *st);
/* TEXT into *ST: 0, or -EINVAL with *WHY saying what is wrong. */
int fl_state_parse(const char *text, struct fl_state *st, const char **why);
void fl_state_free(struct fl_state *st);

/* Whether A and B have the same services with the same fingerprints. */
bool fl_state_same_rings(const struct fl_state *a, const struct fl_state *b);
/*
 * What configuration C gives under KEY with LB's down backends down: its
 * services and fingerprints into *EXP (its other fields zero). A down the
 * configuration does not have is ignored. 0 or -errno.
 */
int fl_state_expected(const struct rc_config *c, const uint8_t key[RINGSTEER_KEY_LEN],
		      const struct fl_state *lb, struct fl_state *exp);

#endif /* RINGCTL_FLEET_STATE_H */
