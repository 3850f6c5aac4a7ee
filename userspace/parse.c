// SPDX-License-Identifier: GPL-2.0
/* Command line words to model structs; see parse.h. */

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "ringctl.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int rc_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	unsigned long long x;
	char *e;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (*e)
		return -EINVAL;
	if (errno || x < min || x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int rc_parse_proto(const char *s, uint8_t *proto)
{
	if (!strcmp(s, "tcp"))
		*proto = IPPROTO_TCP;
	else if (!strcmp(s, "udp"))
		*proto = IPPROTO_UDP;
	else
		return -EINVAL;
	return 0;
}

int rc_parse_hash(const char *s, uint32_t *hash)
{
	if (!strcmp(s, "flow"))
		*hash = RINGSTEER_HASH_FLOW;
	else if (!strcmp(s, "source"))
		*hash = RINGSTEER_HASH_SOURCE;
	else
		return -EINVAL;
	return 0;
}

int rc_parse_state(const char *s, uint32_t *state)
{
	if (!strcmp(s, "active"))
		*state = RINGSTEER_STATE_ACTIVE;
	else if (!strcmp(s, "draining"))
		*state = RINGSTEER_STATE_DRAINING;
	else
		return -EINVAL;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rc_parse_key(const char *s, uint8_t key[RINGSTEER_KEY_LEN])
{
	uint8_t k[RINGSTEER_KEY_LEN];
	int i, hi, lo;

	if (strlen(s) != 2 * RINGSTEER_KEY_LEN)
		return -EINVAL;
	for (i = 0; i < RINGSTEER_KEY_LEN; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		k[i] = hi << 4 | lo;
	}
	memcpy(key, k, sizeof(k));
	return 0;
}

void rc_format_key(char buf[2 * RINGSTEER_KEY_LEN + 1],
		   const uint8_t key[RINGSTEER_KEY_LEN])
{
	int i;

	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		sprintf(buf + 2 * i, "%02x", key[i]);
}

int rc_parse_endpoint_arg(const char *ctx, const char *what, const char *s,
			  struct rc_endpoint *ep)
{
	const char *why;

	if (!s) {
		errorf("%s: missing %s (ADDR:PORT or [ADDR]:PORT)", ctx, what);
		return -EINVAL;
	}
	if (rc_endpoint_parse(s, ep, &why)) {
		errorf("%s: bad %s '%s': %s", ctx, what, s, why);
		return -EINVAL;
	}
	if (!ep->port) {
		errorf("%s: bad %s '%s': port 0 is not allowed", ctx, what, s);
		return -EINVAL;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned int kw;
	bool has_value;
} keywords[] = {
	{ "proto", RC_KW_PROTO, true },
	{ "vnodes", RC_KW_VNODES, true },
	{ "hash", RC_KW_HASH, true },
	{ "weight", RC_KW_WEIGHT, true },
	{ "state", RC_KW_STATE, true },
	{ "keep-flows", RC_KW_KEEP_FLOWS, false },
	{ "-j", RC_KW_JSON, false },
	{ "--json", RC_KW_JSON, false },
};

static int bad_value(const char *ctx, const char *kw, const char *v, int err,
		     const char *want)
{
	errorf("%s: %s '%s' %s (%s)", ctx, kw, v,
	       err == -ERANGE ? "out of range" : "is not valid", want);
	return err;
}

static int parse_value(const char *ctx, unsigned int kw, const char *name,
		       const char *v, struct rc_args *a)
{
	int err;

	switch (kw) {
	case RC_KW_PROTO:
		if (rc_parse_proto(v, &a->proto))
			return bad_value(ctx, name, v, -EINVAL, "tcp or udp");
		break;
	case RC_KW_VNODES:
		err = rc_parse_u32(v, 1, RINGSTEER_MAX_VNODES, &a->vnodes);
		if (err)
			return bad_value(ctx, name, v, err, "1.." STR(RINGSTEER_MAX_VNODES));
		break;
	case RC_KW_HASH:
		if (rc_parse_hash(v, &a->hash))
			return bad_value(ctx, name, v, -EINVAL, "flow or source");
		break;
	case RC_KW_WEIGHT:
		err = rc_parse_u32(v, 1, RINGSTEER_MAX_WEIGHT, &a->weight);
		if (err)
			return bad_value(ctx, name, v, err, "1.." STR(RINGSTEER_MAX_WEIGHT));
		break;
	case RC_KW_STATE:
		if (rc_parse_state(v, &a->state))
			return bad_value(ctx, name, v, -EINVAL, "active or draining");
		break;
	}
	return 0;
}

int rc_parse_keywords(const char *ctx, int argc, char **argv,
		      unsigned int allowed, struct rc_args *a)
{
	size_t k;
	int i, err;

	memset(a, 0, sizeof(*a));
	a->proto = IPPROTO_TCP;
	for (i = 0; i < argc; i++) {
		for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			if (!strcmp(argv[i], keywords[k].name))
				break;
		if (k == sizeof(keywords) / sizeof(keywords[0]) ||
		    !(allowed & keywords[k].kw)) {
			errorf("%s: unexpected argument '%s'", ctx, argv[i]);
			return -EINVAL;
		}
		if (a->seen & keywords[k].kw) {
			errorf("%s: '%s' given twice", ctx, argv[i]);
			return -EINVAL;
		}
		a->seen |= keywords[k].kw;
		if (!keywords[k].has_value)
			continue;
		if (i + 1 >= argc) {
			errorf("%s: '%s' needs a value", ctx, argv[i]);
			return -EINVAL;
		}
		err = parse_value(ctx, keywords[k].kw, argv[i], argv[i + 1], a);
		if (err)
			return err;
		i++;
	}
	return 0;
}

int rc_parse_service_args(const char *ctx, int argc, char **argv,
			  unsigned int allowed, struct rc_service *s,
			  struct rc_args *a)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = rc_parse_endpoint_arg(ctx, "service", argc > 0 ? argv[0] : NULL,
				    &s->vip);
	if (err)
		return err;
	err = rc_parse_keywords(ctx, argc - 1, argv + 1, allowed, a);
	if (err)
		return err;
	s->proto = a->proto;
	if (a->seen & RC_KW_VNODES) {
		s->vnodes = a->vnodes;
		s->has |= RC_HAS_VNODES;
	}
	if (a->seen & RC_KW_HASH) {
		s->hash = a->hash;
		s->has |= RC_HAS_HASH;
	}
	return 0;
}

int rc_parse_backend_args(const char *ctx, int argc, char **argv,
			  unsigned int allowed, struct rc_service *s,
			  struct rc_backend *b, struct rc_args *a)
{
	int err;

	memset(s, 0, sizeof(*s));
	memset(b, 0, sizeof(*b));
	err = rc_parse_endpoint_arg(ctx, "service", argc > 0 ? argv[0] : NULL,
				    &s->vip);
	if (err)
		return err;
	err = rc_parse_endpoint_arg(ctx, "backend", argc > 1 ? argv[1] : NULL,
				    &b->ep);
	if (err)
		return err;
	if (b->ep.family != s->vip.family) {
		errorf("%s: backend %s and service %s are of different address families",
		       ctx, argv[1], argv[0]);
		return -EINVAL;
	}
	err = rc_parse_keywords(ctx, argc - 2, argv + 2, allowed, a);
	if (err)
		return err;
	s->proto = a->proto;
	if (a->seen & RC_KW_WEIGHT) {
		b->weight = a->weight;
		b->has |= RC_HAS_WEIGHT;
	}
	if (a->seen & RC_KW_STATE) {
		b->state = a->state;
		b->has |= RC_HAS_STATE;
	}
	return 0;
}

bool rc_is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") || !strcmp(word, "--help");
}

bool rc_is_json(const char *word)
{
	return !strcmp(word, "-j") || !strcmp(word, "--json");
}

void rc_take_json(int *argc, char ***argv)
{
	while (*argc > 0 && rc_is_json((*argv)[0])) {
		json_output = true;
		(*argc)--;
		(*argv)++;
	}
}
