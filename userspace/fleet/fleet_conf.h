/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fleet file (prefix fl_) of "ringctl sync" and "ringctl fleet status":
 * where etcd is, the key prefix, credentials, this host's name, the local
 * SipHash key file and the agent's timers (format in fleet_conf.c). Only
 * parsing here; etcd I/O is lib/etcd.h, the status key fleet_state.h.
 */
#ifndef RINGCTL_FLEET_CONF_H
#define RINGCTL_FLEET_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "etcd.h"
#include "uapi/ringsteer.h"

#define FL_HOST_LEN	64
#define FL_PREFIX_LEN	256

#define FL_DEF_TIMEOUT_MS	2000
#define FL_DEF_LEASE_TTL_MS	10000
#define FL_DEF_STALE_MS		30000
#define FL_DEF_STATUS_MS	5000

struct fl_conf {
	/* etcd.endpoints and the TLS and auth strings point into this struct. */
	struct etcd_conf etcd;
	char *endpoint[ETCD_MAX_ENDPOINTS];
	char *cacert, *cert, *cert_key, *user, *password;
	char prefix[FL_PREFIX_LEN];	/* no trailing '/' */
	char host[FL_HOST_LEN];		/* "host", else the hostname */
	/* "key-file": the SipHash key, local to each host, never in etcd. */
	bool has_key;
	uint8_t key[RINGSTEER_KEY_LEN];
	char *key_file;
	uint32_t lease_ttl_ms;		/* of the status key's lease */
	uint32_t stale_ms;		/* without etcd this long: on-stale */
	uint32_t status_ms;		/* the kernel re-read for the status */
	char *on_stale, *on_fresh;	/* /bin/sh -c commands, or NULL */
	/* "health-quorum": the agent applies the fleet's health verdict. */
	bool fleet_health;
	uint32_t quorum_pct, max_down_pct;
};

/*
 * Parse and check all of F (NAME for messages) into *c, reading the
 * password and key files it names. On error prints "ringctl: CTX:
 * NAME:LINE: what" (or "CTX: NAME: what" for what is missing), returns
 * -EINVAL and *c is empty.
 */
int fl_conf_parse(FILE *f, const char *ctx, const char *name, struct fl_conf *c);
/* The same for the file at PATH. */
int fl_conf_read(const char *path, const char *ctx, struct fl_conf *c);
void fl_conf_free(struct fl_conf *c);

/* PREFIX/WHAT into BUF (FL_PREFIX_LEN + 80 bytes is always enough). */
const char *fl_key(char *buf, size_t len, const struct fl_conf *c, const char *what);

/*
 * The SipHash key from the first line of PATH (32 hex digits). The file
 * must be private (no group or other bits): -EPERM otherwise, -EINVAL for
 * a bad key, -errno when it cannot be read. WHY says which.
 */
int fl_read_key(const char *path, uint8_t key[RINGSTEER_KEY_LEN], const char **why);

#endif /* RINGCTL_FLEET_CONF_H */
