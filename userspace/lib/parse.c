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

int parse_duration(const char *s, uint32_t max_ms, uint32_t *ms)
{
	unsigned long long v, mul = 1000;
	char *e;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (!strcmp(e, "ms"))
		mul = 1;
	else if (!strcmp(e, "m"))
		mul = 60 * 1000;
	else if (!strcmp(e, "h"))
		mul = 3600 * 1000;
	else if (*e && strcmp(e, "s"))
		return -EINVAL;
	if (errno || v > max_ms || v * mul > max_ms)
		return -ERANGE;
	*ms = v * mul;
	return 0;
}

int parse_percent(const char *s, uint32_t *pct)
{
	char buf[8];
	size_t n = s ? strlen(s) : 0;

	if (n < 2 || n >= sizeof(buf) || s[n - 1] != '%')
		return -EINVAL;
	memcpy(buf, s, n - 1);
	buf[n - 1] = '\0';
	return parse_u32(buf, 0, 100, pct);
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

/* Keywords other than settings'. */
static const struct {
	const char *name;
	uint64_t kw;
	bool has_value;
} keywords[] = {
	{ "proto", PARSE_KW_PROTO, true },
	{ "force", PARSE_KW_FORCE, false },
	{ "keep-flows", PARSE_KW_KEEP_FLOWS, false },
	{ "count", PARSE_KW_COUNT, true },
	{ "slots", PARSE_KW_SLOTS, true },
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

uint64_t parse_settings_kw(enum rc_obj obj, unsigned int ops)
{
	uint64_t kw = 0;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj == obj && (rc_settings[i].ops & ops))
			kw |= PARSE_KW_SETTING(i);
	return kw;
}

/* What a message about R's value wants: "flow or source", "1..4096". */
static const char *want_of(const struct rc_setting *r, char *buf, size_t len)
{
	if (r->want)
		return r->want;
	if (r->names)
		return rc_enum_words(r->names, buf, len);
	snprintf(buf, len, "%u..%u", r->min, r->max);
	return buf;
}

/* V for setting R, named WHAT in messages. */
static int setting_value(const char *ctx, const struct rc_setting *r, const char *what,
			 const char *v, uint32_t *out)
{
	const struct rc_setting *twin = rc_setting_twin(r);
	char want[96];
	uint32_t x;
	int err;

	if (!r->names)
		err = parse_u32(v, r->min, r->max, out);
	else
		err = rc_enum_parse(r->names, v, out);
	if (!err)
		return 0;
	/* "on-down service" of a service: a backend's word. */
	if (r->names && twin && twin->names && !rc_enum_parse(twin->names, v, &x)) {
		cli_error("%s: %s %s applies to %ss only (give %s)", ctx, r->word, v,
			  twin->obj == RC_OBJ_SERVICE ? "service" : "backend",
			  rc_enum_words(r->names, want, sizeof(want)));
		return -EINVAL;
	}
	return parse_bad_value(ctx, what, v, err, want_of(r, want, sizeof(want)));
}

int parse_slots(const char *ctx, const char *v, uint16_t **slots, uint16_t *nslots)
{
	char *copy = strdup(v), *tok, *save = NULL;
	uint32_t n = 1, x;
	const char *p;
	int err = 0;

	for (p = v; *p; p++)
		n += *p == ',';
	free(*slots);
	*nslots = 0;
	*slots = n <= RINGSTEER_MAX_WEIGHT ? malloc(n * sizeof(**slots)) : NULL;
	if (!copy || !*slots) {
		free(copy);
		return parse_bad_value(ctx, "slots", v, -ERANGE, "1..1000 slot numbers, N[,N...]");
	}
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		err = parse_u32(tok, 0, RINGSTEER_MAX_CAPACITY - 1, &x);
		if (!err)
			(*slots)[(*nslots)++] = x;
	}
	free(copy);
	if (err || *nslots != n)
		return parse_bad_value(ctx, "slots", v, err ?: -EINVAL,
				       "slot numbers 0..65535, N[,N...]");
	if (rc_slots_sort(*slots, *nslots)) {
		cli_error("%s: slots '%s': a slot given twice", ctx, v);
		return -EINVAL;
	}
	return 0;
}

static int plain_value(const char *ctx, uint64_t kw, const char *name,
		       const char *v, struct parse_args *a)
{
	int err;

	if (kw == PARSE_KW_SLOTS)
		return parse_slots(ctx, v, &a->slots, &a->nslots);
	if (kw == PARSE_KW_PROTO && parse_proto(v, &a->proto))
		return parse_bad_value(ctx, name, v, -EINVAL, "tcp or udp");
	if (kw == PARSE_KW_COUNT) {
		err = parse_u32(v, 1, UINT32_MAX, &a->count);
		if (err)
			return parse_bad_value(ctx, name, v, err, "1 or more");
	}
	return 0;
}

/*
 * After setting P's value, at @argv[*i + 1]: a setting that goes with it
 * ("encap gue port N"), if one is allowed and given: 1 if one was, 0 if
 * none.
 */
static int one_sub(const char *ctx, int argc, char **argv, int *i,
		   uint64_t allowed, unsigned int p, struct parse_args *a)
{
	const struct rc_setting *r, *up = &rc_settings[p];
	char what[64];
	unsigned int k;
	int err;

	if (*i + 1 >= argc)
		return 0;
	for (k = 0; k < rc_nsettings; k++) {
		r = &rc_settings[k];
		if ((r->flags & RC_SF_SUB) && r->parent == (int)p &&
		    (allowed & PARSE_KW_SETTING(k)) && !strcmp(argv[*i + 1], r->word))
			break;
	}
	if (k == rc_nsettings)
		return 0;
	if (a->val[p] != r->parent_value) {
		cli_error("%s: '%s' applies to %s %s only", ctx, r->word, up->word,
			  rc_enum_name(up->names, r->parent_value));
		return -EINVAL;
	}
	*i += 2;
	snprintf(what, sizeof(what), "%s %s %s", up->word,
		 rc_enum_name(up->names, r->parent_value), r->word);
	a->seen |= PARSE_KW_SETTING(k);
	err = setting_value(ctx, r, what, *i < argc ? argv[*i] : NULL, &a->val[k]);
	return err ? err : 1;
}

/* Every setting that goes with P's value, in any order ("encap gue port N chain K"). */
static int sub_setting(const char *ctx, int argc, char **argv, int *i,
		       uint64_t allowed, unsigned int p, struct parse_args *a)
{
	int ret;

	do
		ret = one_sub(ctx, argc, argv, i, allowed, p, a);
	while (ret > 0);
	return ret;
}

/* The row of the setting WORD among ALLOWED, or -1. */
static int setting_of(const char *word, uint64_t allowed)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++)
		if (!(rc_settings[k].flags & RC_SF_SUB) && (allowed & PARSE_KW_SETTING(k)) &&
		    !strcmp(word, rc_settings[k].word))
			return k;
	return -1;
}

/* The bit of keyword WORD among ALLOWED, 0 if none; *VALUE if it takes one. */
static uint64_t keyword_of(const char *word, uint64_t allowed, bool *value)
{
	int row = setting_of(word, allowed);
	size_t k;

	*value = true;
	if (row >= 0)
		return PARSE_KW_SETTING(row);
	for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (!strcmp(word, keywords[k].name) && (allowed & keywords[k].kw)) {
			*value = keywords[k].has_value;
			return keywords[k].kw;
		}
	return 0;
}

/* The value of keyword KW, argv[*i] (and what goes with it). */
static int keyword_value(const char *ctx, int argc, char **argv, int *i,
			 uint64_t allowed, uint64_t kw, struct parse_args *a)
{
	int row = setting_of(argv[*i], allowed);
	int err;

	if (row < 0 || kw != PARSE_KW_SETTING(row))
		return plain_value(ctx, kw, argv[*i], argv[*i + 1], a) ?: (++*i, 0);
	err = setting_value(ctx, &rc_settings[row], argv[*i], argv[*i + 1], &a->val[row]);
	if (err)
		return err;
	++*i;
	return sub_setting(ctx, argc, argv, i, allowed, row, a);
}

int parse_keywords(const char *ctx, int argc, char **argv,
		      uint64_t allowed, struct parse_args *a)
{
	uint64_t kw;
	bool value;
	int i, err;

	memset(a, 0, sizeof(*a));
	a->proto = IPPROTO_TCP;
	for (i = 0; i < argc; i++) {
		kw = keyword_of(argv[i], allowed, &value);
		if (!kw) {
			cli_error("%s: unexpected argument '%s'", ctx, argv[i]);
			return -EINVAL;
		}
		if (a->seen & kw) {
			cli_error("%s: '%s' given twice", ctx, argv[i]);
			return -EINVAL;
		}
		a->seen |= kw;
		if (kw == PARSE_KW_JSON)
			cli_json = true;
		if (!value)
			continue;
		if (i + 1 >= argc) {
			cli_error("%s: '%s' needs a value", ctx, argv[i]);
			return -EINVAL;
		}
		err = keyword_value(ctx, argc, argv, &i, allowed, kw, a);
		if (err)
			return err;
	}
	return 0;
}

/* The settings of OBJ in *a into P (a struct rc_service or rc_backend). */
static void put_settings(enum rc_obj obj, const struct parse_args *a, void *p)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++)
		if (rc_settings[k].obj == obj && (a->seen & PARSE_KW_SETTING(k)))
			rc_setting_put(&rc_settings[k], p, a->val[k]);
}

/*
 * A setting given with its parent at another value ("encap" with
 * "forward nat"); with NEW, also a parent left at its default.
 */
static int check_parents(const char *ctx, const struct rc_service *s, bool new)
{
	const struct rc_setting *r, *up;
	char give[64] = "";
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		r = &rc_settings[k];
		if (r->obj != RC_OBJ_SERVICE || r->parent == RC_NO_PARENT ||
		    (r->flags & RC_SF_SUB) || !rc_setting_given(r, s))
			continue;
		up = &rc_settings[r->parent];
		if ((!new && !rc_setting_given(up, s)) ||
		    rc_setting_value(up, s) == r->parent_value)
			continue;
		if (new)
			snprintf(give, sizeof(give), " (give %s %s)", up->word,
				 rc_enum_name(up->names, r->parent_value));
		cli_error("%s: %s applies to %s %s only%s", ctx, r->word, up->word,
			  rc_enum_name(up->names, r->parent_value), give);
		return -EINVAL;
	}
	return 0;
}

int parse_service_args(const char *ctx, int argc, char **argv,
			  uint64_t allowed, struct rc_service *s,
			  struct parse_args *a)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = parse_endpoint_arg(ctx, "service", argc > 0 ? argv[0] : NULL,
				    &s->vip) ?:
	      usable(ctx, "service", argv[0], &s->vip);
	if (err)
		return err;
	/* A service's words only, "on-down" included. */
	err = parse_keywords(ctx, argc - 1, argv + 1,
			     allowed & ~parse_settings_kw(RC_OBJ_BACKEND, ~0U), a);
	if (err)
		return err;
	s->proto = a->proto;
	put_settings(RC_OBJ_SERVICE, a, s);
	return check_parents(ctx, s, false);
}

int parse_check_new_service(const char *ctx, const struct rc_service *s)
{
	return check_parents(ctx, s, true);
}

int parse_check_bare_backend(const char *ctx, const struct rc_backend *b,
			     uint32_t forward)
{
	char addr[RC_ADDR_LEN];

	if (forward == RINGSTEER_FORWARD_TUNNEL)
		return 0;
	rc_addr_format(addr, &b->ep);
	cli_error("%s: bad backend '%s': missing ':PORT' (%s)", ctx, addr,
		  "only a forward tunnel service's backends may be an address alone");
	return -EINVAL;
}

int parse_backend_of(const char *ctx, int argc, char **argv, uint64_t allowed,
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
	err = parse_keywords(ctx, argc - 1, argv + 1,
			     allowed & ~parse_settings_kw(RC_OBJ_SERVICE, ~0U), a);
	if (err)
		return err;
	a->bare = bare;
	put_settings(RC_OBJ_BACKEND, a, b);
	b->slots = a->slots;
	b->nslots = a->nslots;
	a->slots = NULL;
	a->nslots = 0;
	return 0;
}

int parse_backend_args(const char *ctx, int argc, char **argv,
		       uint64_t allowed, struct rc_service *s,
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
	argc = parse_split(buf, argv, 4);
	return parse_flow_words(argc < 0 ? 4 : argc, argv, f, why);
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
