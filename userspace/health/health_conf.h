/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration of "ringctl health run FILE" (prefix hc_), read by
 * hc_conf_parse() (format in health_conf.c): what to probe, how often,
 * and the guards. Only parsing here; the state machine is health_fsm.h.
 */
#ifndef RINGCTL_HEALTH_CONF_H
#define RINGCTL_HEALTH_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define HC_MAX_SELF	8
#define HC_MAX_FLAPS	32
#define HC_PAYLOAD_LEN	256
#define HC_TEXT_LEN	256

enum hc_kind { HC_TCP, HC_HTTP, HC_UDP, HC_EXEC };

/* How one target is probed, and how many results make a verdict. */
struct hc_check {
	enum hc_kind kind;
	uint32_t interval_ms;
	uint32_t timeout_ms;
	uint32_t rise, fall;
	uint32_t jitter_pct;	/* each interval drawn from +-jitter% */
	uint16_t port;		/* probe port for every backend, 0: its own */
	/* http */
	char path[HC_TEXT_LEN];
	char host[HC_TEXT_LEN];	/* "": the probed address */
	uint32_t status;
	/* udp: send, then expect a reply starting with expect (any if empty) */
	uint8_t send[HC_PAYLOAD_LEN];
	size_t send_len;
	uint8_t expect[HC_PAYLOAD_LEN];
	size_t expect_len;
	/* exec: run by /bin/sh -c, killed at the timeout; 0 exit is success */
	char *command;
	unsigned int line;
};

/* "backend BE:PORT [address A] [port P]": where BE is really probed. */
struct hc_override {
	struct rc_endpoint be;
	bool has_addr;
	struct rc_endpoint addr;	/* address only (port unused) */
	uint16_t port;			/* 0: the check's, else the backend's */
	unsigned int line;
};

struct hc_service_conf {
	struct rc_service id;		/* vip and proto; no backends */
	bool has_check;
	struct hc_check check;
	struct hc_override *ov;
	uint32_t nov;
	uint32_t max_down_pct;
	uint32_t hold_down_ms;
	uint32_t flaps;			/* 0: no damping */
	uint32_t within_ms, stable_ms;
	char *on_loss, *on_gain;	/* /bin/sh -c commands, or NULL */
	unsigned int line;
};

/* "self-check KIND [ADDR:PORT] ...": the checker's own view of the network. */
struct hc_self {
	struct hc_check check;
	struct rc_endpoint target;	/* unused by exec */
};

struct hc_config {
	struct hc_service_conf *s;
	uint32_t ns;
	struct hc_self self[HC_MAX_SELF];
	uint32_t nself;
	char *fleet;			/* "fleet FILE": vote in etcd, or NULL */
};

/* Defaults of a check and of a service's guards. */
#define HC_DEF_INTERVAL_MS	2000
#define HC_DEF_TIMEOUT_MS	1000
#define HC_DEF_RISE		2
#define HC_DEF_FALL		3
#define HC_DEF_JITTER_PCT	10
#define HC_DEF_MAX_DOWN_PCT	50

/*
 * Parse and check all of F (NAME for messages) into *c. On error prints
 * "ringctl: CTX: NAME:LINE: what", returns -EINVAL and *c is empty.
 */
int hc_conf_parse(FILE *f, const char *ctx, const char *name, struct hc_config *c);
/* The same for the file at PATH. */
int hc_conf_read(const char *path, const char *ctx, struct hc_config *c);
void hc_conf_free(struct hc_config *c);

const char *hc_kind_name(enum hc_kind kind);
/* Where backend BE of S is probed (override, the check's port, its own). */
void hc_conf_target(const struct hc_service_conf *s, const struct rc_endpoint *be,
		    struct rc_endpoint *to);

/*
 * C-like escapes (\n \r \t \s for space \\ \xHH) into at most MAX bytes:
 * -EINVAL or -ERANGE. (Durations and percents: parse_duration(),
 * parse_percent() of parse.h.)
 */
int hc_parse_payload(const char *s, uint8_t *out, size_t max, size_t *len);

#endif /* RINGCTL_HEALTH_CONF_H */
