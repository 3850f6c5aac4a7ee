// SPDX-License-Identifier: GPL-2.0
/*
 * keepalived.conf's words and blocks (keepalived.h): blanks separate
 * words, '!' and '#' start comments, "..." is one word, '{' and '}' are
 * words of their own wherever they stand. A statement is the words of one
 * line up to a brace; a '{' after them, on that line or the next, opens
 * its block.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keepalived.h"

struct kv_tok {
	char *s;
	unsigned int line;
};

struct kv_file {
	char *buf;
	struct kv_tok *t;
	size_t n, cap, pos;
};

static int push_tok(struct kv_file *kf, char *s, unsigned int line)
{
	if (kf->n == kf->cap) {
		size_t cap = kf->cap ? 2 * kf->cap : 256;
		struct kv_tok *t = realloc(kf->t, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		kf->t = t;
		kf->cap = cap;
	}
	kf->t[kf->n].s = s;
	kf->t[kf->n++].line = line;
	return 0;
}

/*
 * Split BUF in place into words: every word ends in a NUL written over
 * the blank, quote or comment after it; a brace is a word of its own
 * (kept in the token as a static string since its byte may end the word
 * before it).
 */
static int tokenize(struct imp_config *c, struct kv_file *kf)
{
	unsigned int line = 1;
	char *p = kf->buf;
	int err = 0;

	while (*p && !err) {
		if (*p == '\n') {
			line++;
			*p++ = '\0';
		} else if (*p == ' ' || *p == '\t' || *p == '\r') {
			*p++ = '\0';
		} else if (*p == '!' || *p == '#') {
			while (*p && *p != '\n')
				*p++ = '\0';
		} else if (*p == '{' || *p == '}') {
			err = push_tok(kf, *p == '{' ? "{" : "}", line);
			*p++ = '\0';
		} else if (*p == '"') {
			char *end = strchr(p + 1, '"');

			if (!end || memchr(p + 1, '\n', end - p - 1))
				return cli_error("import: %s:%u: unterminated quote", c->file, line);
			err = push_tok(kf, p + 1, line);
			*p = *end = '\0';
			p = end + 1;
		} else {
			err = push_tok(kf, p, line);
			while (*p && !strchr(" \t\r\n{}!#\"", *p))
				p++;
		}
	}
	return err ? cli_error("import: out of memory") : 0;
}

int kv_next(struct imp_config *c, struct kv_file *kf, struct kv_stmt *st)
{
	unsigned int line;

	memset(st, 0, sizeof(*st));
	if (kf->pos == kf->n)
		return 0;
	st->line = line = kf->t[kf->pos].line;
	if (!strcmp(kf->t[kf->pos].s, "}")) {
		kf->pos++;
		st->close = true;
		return 0;
	}
	if (!strcmp(kf->t[kf->pos].s, "{"))
		return cli_error("import: %s:%u: '{' opens no block", c->file, line);
	while (kf->pos < kf->n && kf->t[kf->pos].line == line &&
	       strcmp(kf->t[kf->pos].s, "{") && strcmp(kf->t[kf->pos].s, "}")) {
		if (st->n == KV_MAX_WORDS)
			return cli_error("import: %s:%u: more than %d words", c->file, line,
					 KV_MAX_WORDS);
		st->w[st->n++] = kf->t[kf->pos++].s;
	}
	/* Its block may open on the same line or on the next one. */
	if (kf->pos < kf->n && !strcmp(kf->t[kf->pos].s, "{")) {
		st->open = true;
		kf->pos++;
	}
	return 0;
}

int kv_skip(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *st)
{
	unsigned int depth = 1;

	if (!st->open)
		return 0;
	for (; kf->pos < kf->n; kf->pos++) {
		if (!strcmp(kf->t[kf->pos].s, "{"))
			depth++;
		else if (!strcmp(kf->t[kf->pos].s, "}") && !--depth) {
			kf->pos++;
			return 0;
		}
	}
	return cli_error("import: %s:%u: block of '%s' never closed", c->file, st->line,
			 st->w[0]);
}

static int read_all(FILE *f, char **buf)
{
	size_t len = 0, cap = 0, n;
	char *b = NULL, *nb;

	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		n = fread(b + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		free(b);
		return -EIO;
	}
	b[len] = '\0';
	*buf = b;
	return 0;
}

struct kv_file *kv_open(struct imp_config *c, FILE *f)
{
	struct kv_file *kf = calloc(1, sizeof(*kf));
	int err;

	if (!kf) {
		cli_error("import: out of memory");
		return NULL;
	}
	err = read_all(f, &kf->buf);
	if (err)
		cli_error("import: %s: %s", c->file, strerror(-err));
	else
		err = tokenize(c, kf);
	if (err) {
		kv_close(kf);
		return NULL;
	}
	return kf;
}

void kv_close(struct kv_file *kf)
{
	if (!kf)
		return;
	free(kf->t);
	free(kf->buf);
	free(kf);
}
