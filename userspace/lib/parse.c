// SPDX-License-Identifier: GPL-2.0
/* The parse layer: words and lines to model structs; see parse.h. */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "cli.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *v)
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

int parse_proto(const char *s, uint8_t *proto)
{
	if (!strcmp(s, "tcp"))
		*proto = IPPROTO_TCP;
	else if (!strcmp(s, "udp"))
		*proto = IPPROTO_UDP;
	else
		return -EINVAL;
	return 0;
}

int parse_hash(const char *s, uint32_t *hash)
{
	if (!strcmp(s, "flow"))
		*hash = RINGSTEER_HASH_FLOW;
	else if (!strcmp(s, "source"))
		*hash = RINGSTEER_HASH_SOURCE;
	else
		return -EINVAL;
	return 0;
}

int parse_state(const char *s, uint32_t *state)
{
	if (!strcmp(s, "active"))
		*state = RINGSTEER_STATE_ACTIVE;
	else if (!strcmp(s, "draining"))
		*state = RINGSTEER_STATE_DRAINING;
	else
		return -EINVAL;
	return 0;
}

int parse_health(const char *s, uint32_t *health)
{
	if (!strcmp(s, "up"))
		*health = RINGSTEER_HEALTH_UP;
	else if (!strcmp(s, "down"))
		*health = RINGSTEER_HEALTH_DOWN;
	else
		return -EINVAL;
	return 0;
}

int parse_forward(const char *s, uint32_t *forward)
{
	if (!strcmp(s, "nat"))
		*forward = RINGSTEER_FORWARD_NAT;
	else if (!strcmp(s, "tunnel"))
		*forward = RINGSTEER_FORWARD_TUNNEL;
	else
		return -EINVAL;
	return 0;
}

int parse_encap(const char *s, uint32_t *encap)
{
	if (!strcmp(s, "ipip"))
		*encap = RINGSTEER_ENCAP_IPIP;
	else if (!strcmp(s, "gue"))
		*encap = RINGSTEER_ENCAP_GUE;
	else
		return -EINVAL;
	return 0;
}

int parse_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_key(const char *s, uint8_t key[RINGSTEER_KEY_LEN])
{
	uint8_t k[RINGSTEER_KEY_LEN];
	int i, hi, lo;

	if (strlen(s) != 2 * RINGSTEER_KEY_LEN)
		return -EINVAL;
	for (i = 0; i < RINGSTEER_KEY_LEN; i++) {
		hi = parse_hexval(s[2 * i]);
		lo = parse_hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		k[i] = hi << 4 | lo;
	}
	memcpy(key, k, sizeof(k));
	return 0;
}

/* With BARE, an address alone is taken too: then *BARE and port 0. */
static int endpoint_arg(const char *ctx, const char *what, const char *s,
			struct rc_endpoint *ep, bool *bare)
{
	const char *why;

	if (!s) {
		cli_error("%s: missing %s (ADDR:PORT or [ADDR]:PORT%s)", ctx, what,
			  bare ? "; ADDR alone for forward tunnel" : "");
		return -EINVAL;
	}
	if (bare ? rc_endpoint_parse_bare(s, ep, bare, &why) : rc_endpoint_parse(s, ep, &why)) {
		cli_error("%s: bad %s '%s': %s", ctx, what, s, why);
		return -EINVAL;
	}
	if (!ep->port && !(bare && *bare)) {
		cli_error("%s: bad %s '%s': port 0 is not allowed", ctx, what, s);
		return -EINVAL;
	}
	return 0;
}

int parse_endpoint_arg(const char *ctx, const char *what, const char *s,
			  struct rc_endpoint *ep)
{
	return endpoint_arg(ctx, what, s, ep, NULL);
}

/* A VIP or backend address the kernel would refuse, refused here first. */
static int usable(const char *ctx, const char *what, const char *s,
		  const struct rc_endpoint *ep)
{
	const char *why = rc_endpoint_unusable(ep);

	if (!why)
		return 0;
	cli_error("%s: bad %s '%s': %s", ctx, what, s, why);
	return -EINVAL;
}

static const struct {
	const char *name;
	unsigned int kw;
	bool has_value;
} keywords[] = {
	{ "proto", PARSE_KW_PROTO, true },
	{ "vnodes", PARSE_KW_VNODES, true },
	{ "hash", PARSE_KW_HASH, true },
	{ "weight", PARSE_KW_WEIGHT, true },
	{ "state", PARSE_KW_STATE, true },
	{ "health", PARSE_KW_HEALTH, true },
	{ "force", PARSE_KW_FORCE, false },
	{ "on-down", PARSE_KW_ON_DOWN, true },
	{ "keep-flows", PARSE_KW_KEEP_FLOWS, false },
	{ "count", PARSE_KW_COUNT, true },
	{ "forward", PARSE_KW_FORWARD, true },
	{ "encap", PARSE_KW_ENCAP, true },
	{ "-j", PARSE_KW_JSON, false },
	{ "--json", PARSE_KW_JSON, false },
};

int parse_bad_value(const char *ctx, const char *what, const char *v, int err,
		    const char *want)
{
	if (!v)
		cli_error("%s: missing %s (%s)", ctx, what, want);
	else
		cli_error("%s: %s '%s' %s (%s)", ctx, what, v,
			  err == -ERANGE ? "out of range" : "is not valid", want);
	return err;
}

static int parse_value(const char *ctx, unsigned int kw, const char *name,
		       const char *v, struct parse_args *a)
{
	int err;

	switch (kw) {
	case PARSE_KW_PROTO:
		if (parse_proto(v, &a->proto))
			return parse_bad_value(ctx, name, v, -EINVAL, "tcp or udp");
		break;
	case PARSE_KW_VNODES:
		err = parse_u32(v, 1, RINGSTEER_MAX_VNODES, &a->vnodes);
		if (err)
			return parse_bad_value(ctx, name, v, err, "1.." STR(RINGSTEER_MAX_VNODES));
		break;
	case PARSE_KW_HASH:
		if (parse_hash(v, &a->hash))
			return parse_bad_value(ctx, name, v, -EINVAL, "flow or source");
		break;
	case PARSE_KW_WEIGHT:
		err = parse_u32(v, 1, RINGSTEER_MAX_WEIGHT, &a->weight);
		if (err)
			return parse_bad_value(ctx, name, v, err, "1.." STR(RINGSTEER_MAX_WEIGHT));
		break;
	case PARSE_KW_STATE:
		if (parse_state(v, &a->state))
			return parse_bad_value(ctx, name, v, -EINVAL, "active or draining");
		break;
	case PARSE_KW_HEALTH:
		if (parse_health(v, &a->health))
			return parse_bad_value(ctx, name, v, -EINVAL, "up or down");
		break;
	case PARSE_KW_ON_DOWN:
		a->on_down_service = !strcmp(v ?: "", "service");
		if (!strcmp(v ?: "", "keep"))
			a->on_down = RINGSTEER_ON_DOWN_KEEP;
		else if (!strcmp(v ?: "", "reset"))
			a->on_down = RINGSTEER_ON_DOWN_RESET;
		else if (!a->on_down_service)
			return parse_bad_value(ctx, name, v, -EINVAL,
					       "keep or reset (a backend's also service)");
		break;
	case PARSE_KW_FORWARD:
		if (parse_forward(v, &a->forward))
			return parse_bad_value(ctx, name, v, -EINVAL, "nat or tunnel");
		break;
	case PARSE_KW_ENCAP:
		if (parse_encap(v, &a->encap))
			return parse_bad_value(ctx, name, v, -EINVAL, "ipip or gue");
		break;
	case PARSE_KW_COUNT:
		err = parse_u32(v, 1, UINT32_MAX, &a->count);
		if (err)
			return parse_bad_value(ctx, name, v, err, "1 or more");
		break;
	}
	return 0;
}

/* After "encap gue": an optional "port N", at @argv[*i + 1]. */
static int encap_port(const char *ctx, int argc, char **argv, int *i,
		      struct parse_args *a)
{
	uint32_t port;
	int err;

	if (*i + 1 >= argc || strcmp(argv[*i + 1], "port"))
		return 0;
	if (a->encap != RINGSTEER_ENCAP_GUE) {
		cli_error("%s: 'port' applies to encap gue only", ctx);
		return -EINVAL;
	}
	*i += 2;
	err = parse_u32(*i < argc ? argv[*i] : NULL, 1, 65535, &port);
	if (err)
		return parse_bad_value(ctx, "encap gue port", *i < argc ? argv[*i] : NULL,
				       err, "1..65535");
	a->has_encap_port = true;
	a->encap_port = port;
	return 0;
}

int parse_keywords(const char *ctx, int argc, char **argv,
		      unsigned int allowed, struct parse_args *a)
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
			cli_error("%s: unexpected argument '%s'", ctx, argv[i]);
			return -EINVAL;
		}
		if (a->seen & keywords[k].kw) {
			cli_error("%s: '%s' given twice", ctx, argv[i]);
			return -EINVAL;
		}
		a->seen |= keywords[k].kw;
		if (keywords[k].kw == PARSE_KW_JSON)
			cli_json = true;
		if (!keywords[k].has_value)
			continue;
		if (i + 1 >= argc) {
			cli_error("%s: '%s' needs a value", ctx, argv[i]);
			return -EINVAL;
		}
		err = parse_value(ctx, keywords[k].kw, argv[i], argv[i + 1], a);
		if (err)
			return err;
		i++;
		if (keywords[k].kw == PARSE_KW_ENCAP) {
			err = encap_port(ctx, argc, argv, &i, a);
			if (err)
				return err;
		}
	}
	return 0;
}

int parse_service_args(const char *ctx, int argc, char **argv,
			  unsigned int allowed, struct rc_service *s,
			  struct parse_args *a)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = parse_endpoint_arg(ctx, "service", argc > 0 ? argv[0] : NULL,
				    &s->vip) ?:
	      usable(ctx, "service", argv[0], &s->vip);
	if (err)
		return err;
	err = parse_keywords(ctx, argc - 1, argv + 1, allowed, a);
	if (err)
		return err;
	s->proto = a->proto;
	if (a->seen & PARSE_KW_VNODES) {
		s->vnodes = a->vnodes;
		s->has |= RC_HAS_VNODES;
	}
	if (a->seen & PARSE_KW_HASH) {
		s->hash = a->hash;
		s->has |= RC_HAS_HASH;
	}
	if (a->on_down_service) {
		cli_error("%s: on-down service applies to backends only (give keep or reset)", ctx);
		return -EINVAL;
	}
	if (a->seen & PARSE_KW_ON_DOWN) {
		s->on_down = a->on_down;
		s->has |= RC_HAS_ON_DOWN;
	}
	if (a->seen & PARSE_KW_FORWARD) {
		s->forward = a->forward;
		s->has |= RC_HAS_FORWARD;
	}
	if (a->seen & PARSE_KW_ENCAP) {
		s->encap = a->encap;
		s->has |= RC_HAS_ENCAP;
	}
	if (a->has_encap_port) {
		s->encap_port = a->encap_port;
		s->has |= RC_HAS_ENCAP_PORT;
	}
	if ((s->has & RC_HAS_ENCAP) && (s->has & RC_HAS_FORWARD) &&
	    s->forward != RINGSTEER_FORWARD_TUNNEL) {
		cli_error("%s: encap applies to forward tunnel only", ctx);
		return -EINVAL;
	}
	return 0;
}

int parse_check_new_service(const char *ctx, const struct rc_service *s)
{
	if ((s->has & RC_HAS_ENCAP) && rc_service_forward(s) != RINGSTEER_FORWARD_TUNNEL) {
		cli_error("%s: encap applies to forward tunnel only (give forward tunnel)", ctx);
		return -EINVAL;
	}
	return 0;
}

int parse_check_bare_backend(const char *ctx, const struct rc_backend *b,
			     uint32_t forward)
{
	char addr[RC_ADDR_LEN];

	if (forward == RINGSTEER_FORWARD_TUNNEL)
		return 0;
	rc_addr_format(addr, &b->ep);
	cli_error("%s: bad backend '%s': missing ':PORT' (only a forward tunnel service's backends may be an address alone)",
		  ctx, addr);
	return -EINVAL;
}

int parse_backend_of(const char *ctx, int argc, char **argv, unsigned int allowed,
		     const struct rc_service *s, struct rc_backend *b,
		     struct parse_args *a)
{
	char vip[RC_ENDPOINT_LEN];
	bool bare = false;
	int err;

	memset(b, 0, sizeof(*b));
	err = endpoint_arg(ctx, "backend", argc > 0 ? argv[0] : NULL, &b->ep, &bare);
	if (err)
		return err;
	/* Forward tunnel cannot translate ports: an address alone has the VIP's. */
	if (bare)
		b->ep.port = s->vip.port;
	if (b->ep.family != s->vip.family) {
		rc_endpoint_format(vip, &s->vip);
		cli_error("%s: backend %s and service %s are of different address families",
			  ctx, argv[0], vip);
		return -EINVAL;
	}
	err = usable(ctx, "backend", argv[0], &b->ep);
	if (err)
		return err;
	if (!rc_endpoint_cmp(&b->ep, &s->vip)) {
		cli_error("%s: backend %s is the service's own VIP and port", ctx, argv[0]);
		return -EINVAL;
	}
	err = parse_keywords(ctx, argc - 1, argv + 1, allowed, a);
	if (err)
		return err;
	a->bare = bare;
	if (a->seen & PARSE_KW_WEIGHT) {
		b->weight = a->weight;
		b->has |= RC_HAS_WEIGHT;
	}
	if (a->seen & PARSE_KW_STATE) {
		b->state = a->state;
		b->has |= RC_HAS_STATE;
	}
	if (a->seen & PARSE_KW_HEALTH) {
		b->health = a->health;
		b->has |= RC_HAS_HEALTH;
	}
	if (a->seen & PARSE_KW_ON_DOWN) {
		b->on_down = a->on_down_service ? RINGSTEER_BACKEND_ON_DOWN_SERVICE :
			     a->on_down == RINGSTEER_ON_DOWN_RESET ?
			     RINGSTEER_BACKEND_ON_DOWN_RESET : RINGSTEER_BACKEND_ON_DOWN_KEEP;
		b->has |= RC_HAS_ON_DOWN;
	}
	return 0;
}

int parse_backend_args(const char *ctx, int argc, char **argv,
		       unsigned int allowed, struct rc_service *s,
		       struct rc_backend *b, struct parse_args *a)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = parse_endpoint_arg(ctx, "service", argc > 0 ? argv[0] : NULL,
				 &s->vip);
	if (err)
		return err;
	err = parse_backend_of(ctx, argc - 1, argv + 1, allowed, s, b, a);
	if (err)
		return err;
	s->proto = a->proto;
	return 0;
}

int parse_wire_endpoint(const char *s, u8 *family, u8 addr[16], __be16 *port)
{
	struct rc_endpoint ep;
	const char *why;

	if (rc_endpoint_parse(s, &ep, &why)) {
		memset(addr, 0, 16);
		return -EINVAL;
	}
	*family = ep.family;
	memcpy(addr, ep.addr, 16);
	*port = htons(ep.port);
	return 0;
}

int parse_member(const char *s, struct rs_member *m)
{
	char buf[RC_ENDPOINT_LEN + 16];
	const char *at = strchr(s, '@');
	uint32_t w = 1;
	int err;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if (at) {
		buf[at - s] = '\0';
		err = parse_u32(at + 1, 1, RINGSTEER_MAX_WEIGHT, &w);
		if (err)
			return err;
	}
	memset(m, 0, sizeof(*m));
	m->weight = w;
	return parse_wire_endpoint(buf, &m->family, m->addr, &m->port);
}

#define MAX_WORDS 32

/* Split LINE in place into words; '#' starts a comment. -E2BIG if over MAX. */
static int split(char *line, char **argv, int max)
{
	char *save, *w;
	int argc = 0;

	line[strcspn(line, "#")] = '\0';
	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
	}
	return argc;
}

int parse_flow_words(int argc, char **argv, struct rs_flow *f, const char **why)
{
	uint32_t p;
	u8 fam2;

	memset(f, 0, sizeof(*f));
	*why = "want SRC:SPORT DST:DPORT PROTO";
	if (argc != 3)
		return -EINVAL;
	*why = "bad address";
	if (parse_wire_endpoint(argv[0], &f->family, f->saddr, &f->sport) ||
	    parse_wire_endpoint(argv[1], &fam2, f->daddr, &f->dport))
		return -EINVAL;
	*why = "source and destination families differ";
	if (fam2 != f->family)
		return -EINVAL;
	*why = "bad protocol";
	if (!strcmp(argv[2], "tcp"))
		f->proto = IPPROTO_TCP;
	else if (!strcmp(argv[2], "udp"))
		f->proto = IPPROTO_UDP;
	else if (!strcmp(argv[2], "sctp"))
		f->proto = IPPROTO_SCTP;
	else if (!parse_u32(argv[2], 0, 255, &p))
		f->proto = p;
	else
		return -EINVAL;
	return 0;
}

int parse_flow_line(const char *line, struct rs_flow *f, const char **why)
{
	char buf[512], *argv[4];
	int argc;

	if (strlen(line) >= sizeof(buf)) {
		*why = "line too long";
		return -EINVAL;
	}
	strcpy(buf, line);
	argc = split(buf, argv, 4);
	return parse_flow_words(argc < 0 ? 4 : argc, argv, f, why);
}

int parse_lines(FILE *f, const char *ctx, const char *name, parse_line_t cb,
		void *data)
{
	char lctx[512], *line = NULL, *argv[MAX_WORDS];
	unsigned int lineno = 0;
	size_t len = 0;
	int argc, ret = 0;

	while (!ret && getline(&line, &len, f) > 0) {
		lineno++;
		snprintf(lctx, sizeof(lctx), "%s: %s:%u", ctx, name, lineno);
		argc = split(line, argv, MAX_WORDS);
		if (argc < 0)
			ret = cli_error("%s: too many words", lctx);
		else if (argc > 0)
			ret = cb(lctx, argc, argv, lineno, data);
	}
	if (!ret && ferror(f))
		ret = cli_error("%s: %s: %s", ctx, name, strerror(errno));
	free(line);
	return ret;
}

int parse_file(const char *path, const char *ctx, parse_line_t cb, void *data)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return cli_error("%s: %s: %s", ctx, path, strerror(errno));
	err = parse_lines(f, ctx, f == stdin ? "<stdin>" : path, cb, data);
	if (f != stdin)
		fclose(f);
	return err;
}

struct flow_list {
	struct rs_flow *f;
	uint32_t n, cap;
};

static int flow_list_line(const char *ctx, int argc, char **argv, unsigned int lineno,
			  void *data)
{
	struct flow_list *l = data;
	struct rs_flow *nf;
	const char *why;

	(void)lineno;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		nf = realloc(l->f, l->cap * sizeof(*nf));
		if (!nf)
			return cli_error("%s: out of memory", ctx);
		l->f = nf;
	}
	if (parse_flow_words(argc, argv, &l->f[l->n], &why))
		return cli_error("%s: %s", ctx, why);
	l->n++;
	return 0;
}

int parse_flows_file(const char *path, const char *ctx, struct rs_flow **flows, uint32_t *n)
{
	struct flow_list l = { 0 };
	int err;

	err = parse_file(path, ctx, flow_list_line, &l);
	if (err) {
		free(l.f);
		return err;
	}
	*flows = l.f;
	*n = l.n;
	return 0;
}
