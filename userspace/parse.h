/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line parsing layer: words to model structs, before any
 * netlink I/O. Errors are printed as "ringctl: CTX: what is wrong" and
 * returned as -EINVAL (bad syntax) or -ERANGE (number out of range).
 * The configuration file parser uses the same functions for its lines.
 */
#ifndef RINGCTL_PARSE_H
#define RINGCTL_PARSE_H

#include "model.h"

/* Keywords a command accepts, and those it was given. */
#define RC_KW_PROTO		(1U << 0)
#define RC_KW_VNODES		(1U << 1)
#define RC_KW_HASH		(1U << 2)
#define RC_KW_WEIGHT		(1U << 3)
#define RC_KW_STATE		(1U << 4)
#define RC_KW_KEEP_FLOWS	(1U << 5)
#define RC_KW_JSON		(1U << 6)

struct rc_args {
	unsigned int seen;	/* RC_KW_* */
	uint8_t proto;		/* IPPROTO_TCP unless "proto udp" */
	uint32_t vnodes;
	uint32_t hash;
	uint32_t weight;
	uint32_t state;
};

/* "help", "-h" or "--help". */
bool rc_is_help(const char *word);
/* "-j" or "--json". */
bool rc_is_json(const char *word);
/* Consume leading -j/--json words (setting json_output). */
void rc_take_json(int *argc, char ***argv);

int rc_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v);
int rc_parse_proto(const char *s, uint8_t *proto);
int rc_parse_hash(const char *s, uint32_t *hash);
int rc_parse_state(const char *s, uint32_t *state);
/* Exactly 2 * RINGSTEER_KEY_LEN hex digits, either case. */
int rc_parse_key(const char *s, uint8_t key[RINGSTEER_KEY_LEN]);
void rc_format_key(char buf[2 * RINGSTEER_KEY_LEN + 1],
		   const uint8_t key[RINGSTEER_KEY_LEN]);

/* An endpoint naming a service or backend: port 0 is rejected. */
int rc_parse_endpoint_arg(const char *ctx, const char *what, const char *s,
			  struct rc_endpoint *ep);

/* Keywords in ARGV, any order, each at most once, only those ALLOWED. */
int rc_parse_keywords(const char *ctx, int argc, char **argv,
		      unsigned int allowed, struct rc_args *a);

/*
 * "VIP:PORT [keywords]": the service (with RC_HAS_* for the settings
 * given) and the keywords seen in *a.
 */
int rc_parse_service_args(const char *ctx, int argc, char **argv,
			  unsigned int allowed, struct rc_service *s,
			  struct rc_args *a);
/* "VIP:PORT BACKEND:PORT [keywords]"; the families must agree. */
int rc_parse_backend_args(const char *ctx, int argc, char **argv,
			  unsigned int allowed, struct rc_service *s,
			  struct rc_backend *b, struct rc_args *a);

#endif /* RINGCTL_PARSE_H */
