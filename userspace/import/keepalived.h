/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keepalived.conf reader's parts: keepalived_words.c its words and
 * blocks, keepalived.c virtual_server and real_server, keepalived_check.c
 * the checkers.
 */
#ifndef RINGCTL_KEEPALIVED_H
#define RINGCTL_KEEPALIVED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "import.h"

#define KV_MAX_WORDS	32
#define KV_STR_LEN	256

/* One statement: the words of a line up to a brace. */
struct kv_stmt {
	char *w[KV_MAX_WORDS];
	int n;
	unsigned int line;
	bool open;		/* a block follows: '{' after the words */
	bool close;		/* the statement is a '}' */
};

struct kv_file;

/* F read whole and split into words; NULL (printed) on error. */
struct kv_file *kv_open(struct imp_config *c, FILE *f);
void kv_close(struct kv_file *kf);

/* The next statement; 0 at the end (st->n == 0 and !st->close), or -EINVAL. */
int kv_next(struct imp_config *c, struct kv_file *kf, struct kv_stmt *st);
/* Skip the block ST opened (nothing if it opened none). */
int kv_skip(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *st);

/* Timers a virtual server passes to its real servers and they to a checker. */
struct kv_timing {
	uint32_t interval_ms, timeout_ms, retry;
	bool has_interval, has_timeout, has_retry;
};

enum kv_check_kind { KV_NONE, KV_TCP, KV_HTTP, KV_SSL, KV_MISC, KV_UDP };

struct kv_check {
	enum kv_check_kind kind;
	unsigned int line;
	struct kv_timing t;
	char path[KV_STR_LEN], host[KV_STR_LEN], command[KV_STR_LEN];
	char send[KV_STR_LEN], expect[KV_STR_LEN];
	uint32_t status;	/* 0: keepalived's default, 200-299 */
	bool sni, reply;
	uint16_t port;		/* connect_port, or 0 */
	char address[RC_ADDR_LEN];	/* connect_ip, or "" */
};

/* A timer keyword (delay_loop, connect_timeout, retry, ...) into T: 1 if not one. */
int kv_timing_word(struct imp_config *c, const struct kv_stmt *st, struct kv_timing *t);
/* A checker block ST opened (HTTP_GET ...) into K; 0 with K->kind KV_NONE if left out. */
int kv_check_block(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *st,
		   struct kv_check *k);
/*
 * The words after "check" of ringsteer's checker for K, with timers from
 * K, else the real server's RS, else the virtual server's VS.
 */
int kv_check_text(struct imp_config *c, struct imp_service *s, const struct kv_check *k,
		  const struct kv_timing *rs, const struct kv_timing *vs, const char *vhost,
		  char *out, size_t len);

#endif /* RINGCTL_KEEPALIVED_H */
