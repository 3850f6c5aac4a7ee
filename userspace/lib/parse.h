/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parse layer (prefix parse_): command line words and files to model
 * structs, before any netlink I/O, for every command simulate included.
 * Functions taking a CTX print their errors as "ringctl: CTX: what is
 * wrong"; all return -EINVAL (bad syntax) or -ERANGE (number out of range).
 * The configuration file parser uses the same functions for its lines.
 */
#ifndef RINGCTL_PARSE_H
#define RINGCTL_PARSE_H

#include <stdint.h>
#include <stdio.h>

#include "lines.h"
#include "model.h"
#include "settings.h"
#include "ring.h"

/* Keywords a command accepts, and those it was given: 64 bits, 48 for settings. */
#define PARSE_KW_PROTO		(UINT64_C(1) << 0)
#define PARSE_KW_KEEP_FLOWS	(UINT64_C(1) << 5)
#define PARSE_KW_JSON		(UINT64_C(1) << 6)
#define PARSE_KW_COUNT		(UINT64_C(1) << 7)
#define PARSE_KW_FORCE		(UINT64_C(1) << 9)
/* A backend's slots, "slots N[,N...]": a list, not a setting. */
#define PARSE_KW_SLOTS		(UINT64_C(1) << 10)
/* The settings' keywords: a bit per row of rc_settings[] (settings.h). */
#define PARSE_KW_SETTING(i)	(UINT64_C(1) << (16 + (i)))
#define PARSE_KW_VNODES		PARSE_KW_SETTING(RC_SET_VNODES)
#define PARSE_KW_HASH		PARSE_KW_SETTING(RC_SET_HASH)
#define PARSE_KW_WEIGHT		PARSE_KW_SETTING(RC_SET_WEIGHT)
#define PARSE_KW_STATE		PARSE_KW_SETTING(RC_SET_STATE)
#define PARSE_KW_HEALTH		PARSE_KW_SETTING(RC_SET_HEALTH)
#define PARSE_KW_ON_DOWN	(PARSE_KW_SETTING(RC_SET_ON_DOWN) | \
				 PARSE_KW_SETTING(RC_SET_BACKEND_ON_DOWN))
#define PARSE_KW_FORWARD	PARSE_KW_SETTING(RC_SET_FORWARD)
/* "encap ipip|gue [port N]" */
#define PARSE_KW_ENCAP		(PARSE_KW_SETTING(RC_SET_ENCAP) | \
				 PARSE_KW_SETTING(RC_SET_ENCAP_PORT))

/* The keywords of OBJ's settings that one of OPS (RC_SOP_*) takes. */
uint64_t parse_settings_kw(enum rc_obj obj, unsigned int ops);

struct parse_args {
	uint64_t seen;		/* PARSE_KW_* */
	uint8_t proto;		/* IPPROTO_TCP unless "proto udp" */
	uint32_t count;
	/* Of each setting seen (PARSE_KW_SETTING(i)), by row of rc_settings[]. */
	uint32_t val[RC_SETTINGS_MAX];
	bool bare;		/* the backend without a port (parse_backend_of) */
	/* "slots": moved to the backend by parse_backend_of(), else freed. */
	uint16_t *slots;
	uint16_t nslots;
};

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v);
/*
 * "500ms", "2s", "5m", "1h" (a bare number is seconds) up to MAX_MS, and
 * "N%" up to 100%: -EINVAL or -ERANGE, nothing printed.
 */
int parse_duration(const char *s, uint32_t max_ms, uint32_t *ms);
int parse_percent(const char *s, uint32_t *pct);
/*
 * Print "ringctl: CTX: WHAT 'V' is not valid (WANT)", or "out of range"
 * for ERR -ERANGE, or "missing WHAT (WANT)" when V is NULL; returns ERR.
 */
int parse_bad_value(const char *ctx, const char *what, const char *v, int err,
		    const char *want);
int parse_proto(const char *s, uint8_t *proto);
/*
 * "17" or "0,5,9": slot numbers 0..65535, each once, sorted, into a new
 * *SLOTS (the old one freed; the caller frees the new). 0 or -errno,
 * printed.
 */
int parse_slots(const char *ctx, const char *v, uint16_t **slots, uint16_t *nslots);
/* The value of one hex digit, either case; -1 if C is none. */
int parse_hexval(char c);
/* Exactly 2 * RINGSTEER_KEY_LEN hex digits, either case. */
int parse_key(const char *s, uint8_t key[RINGSTEER_KEY_LEN]);

/* An endpoint naming a service or backend: port 0 is rejected. */
int parse_endpoint_arg(const char *ctx, const char *what, const char *s,
			  struct rc_endpoint *ep);

/*
 * Keywords in ARGV, any order, each at most once, only those ALLOWED;
 * PARSE_KW_JSON (-j, --json) also sets cli_json.
 */
int parse_keywords(const char *ctx, int argc, char **argv,
		      uint64_t allowed, struct parse_args *a);

/*
 * "VIP:PORT [keywords]": the service (with RC_HAS_* for the settings
 * given) and the keywords seen in *a; "encap" with "forward nat" refused.
 */
int parse_service_args(const char *ctx, int argc, char **argv,
			  uint64_t allowed, struct rc_service *s,
			  struct parse_args *a);
/*
 * A service being created (add, a file's service line): encap only with
 * forward tunnel, as the kernel says.
 */
int parse_check_new_service(const char *ctx, const struct rc_service *s);
/*
 * "BACKEND:PORT [keywords]" of service *s (the families must agree), with
 * RC_HAS_WEIGHT, RC_HAS_STATE, RC_HAS_HEALTH and RC_HAS_ON_DOWN for the
 * settings given. BACKEND may be an address alone (rc_endpoint_parse_bare()):
 * it then has the VIP's port and a->bare is set, for the caller to check
 * with parse_check_bare_backend() once it knows the service's forward mode.
 */
int parse_backend_of(const char *ctx, int argc, char **argv, uint64_t allowed,
		     const struct rc_service *s, struct rc_backend *b,
		     struct parse_args *a);
/* "VIP:PORT BACKEND:PORT [keywords]"; the families must agree. */
int parse_backend_args(const char *ctx, int argc, char **argv,
			  uint64_t allowed, struct rc_service *s,
			  struct rc_backend *b, struct parse_args *a);
/*
 * A backend given without a port (a->bare) is a forward tunnel service's
 * only: tunneled packets keep the VIP's port, so a port says nothing there,
 * while a NAT service must be told where to send. 0, or -EINVAL after
 * "CTX: bad backend 'ADDR': missing ':PORT' ..." when FORWARD, the
 * service's mode from the file or the kernel, is not forward tunnel.
 */
int parse_check_bare_backend(const char *ctx, const struct rc_backend *b,
			     uint32_t forward);

/*
 * Parse and validate all of F (NAME for messages) into *c: syntax, ranges,
 * duplicates, families and the kernel's limits (format in cfgfile.c). On
 * error prints "ringctl: CTX: NAME:LINE: what" and returns -EINVAL (c is
 * then empty).
 */
int parse_config(FILE *f, const char *ctx, const char *name, struct rc_config *c);

/* For simulate's ring members and flows, in the kernel's ring types. */
/* "a.b.c.d:port" or "[v6]:port"; returns 0 or -EINVAL. */
int parse_wire_endpoint(const char *s, u8 *family, u8 addr[16], __be16 *port);
/* "ENDPOINT[@WEIGHT]", weight 1 if omitted. */
int parse_member(const char *s, struct rs_member *m);
/*
 * A flow line "SRC:SPORT DST:DPORT PROTO", PROTO tcp, udp, sctp or a
 * number; on error *why says what is wrong.
 */
int parse_flow_line(const char *line, struct rs_flow *f, const char **why);
/* The same, split into words. */
int parse_flow_words(int argc, char **argv, struct rs_flow *f, const char **why);
/*
 * Every flow line of the file at PATH ("-": standard input) into *FLOWS
 * (malloc()ed, *N of them; NULL when none); 0, or an error already
 * printed with CTX.
 */
int parse_flows_file(const char *path, const char *ctx, struct rs_flow **flows, uint32_t *n);

#endif /* RINGCTL_PARSE_H */
