// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration of "ringctl health run", in the one-statement-a-line
 * style of ringsteer's own file, read by the same line reader
 * (parse_lines(): '#' starts a comment, words split on blanks):
 *
 *	self-check tcp|http|udp ADDR:PORT [check options]
 *	self-check exec [check options] command WORDS...
 *	fleet /etc/ringsteer/fleet.conf		# vote in etcd (health_fleet.h)
 *	service VIP:PORT [proto tcp|udp]
 *		check tcp|http|udp|exec [check options]
 *		backend BE:PORT [address ADDR] [port P]
 *		guard max-down PCT%
 *		hold-down DURATION
 *		damping flaps N within DURATION stable DURATION
 *		on-quorum-loss WORDS...
 *		on-quorum-gain WORDS...
 *
 * Check options: interval D, timeout D, rise N, fall N, jitter PCT%,
 * port P; http: path /P, status N, host H; udp: send BYTES, expect BYTES;
 * exec: command WORDS... (last, the rest of the line). Durations are
 * "500ms", "2s", "5m", "1h" (a bare number is seconds). A statement
 * belongs to the service line above it; self-check lines are global. A
 * command (exec, on-quorum-*) is the rest of its line, its words joined by
 * one space, run by /bin/sh -c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "health_conf.h"
#include "lines.h"

#define MAX_INTERVAL_MS	(3600U * 1000)
#define MAX_HOLD_MS	(24U * 3600 * 1000)

const char *hc_kind_name(enum hc_kind kind)
{
	static const char *const names[] = {
		[HC_TCP] = "tcp", [HC_HTTP] = "http", [HC_UDP] = "udp", [HC_EXEC] = "exec",
	};

	return names[kind];
}

static int parse_kind(const char *s, enum hc_kind *kind)
{
	enum hc_kind k;

	for (k = HC_TCP; k <= HC_EXEC; k++)
		if (s && !strcmp(s, hc_kind_name(k))) {
			*kind = k;
			return 0;
		}
	return -EINVAL;
}

int hc_parse_payload(const char *s, uint8_t *out, size_t max, size_t *len)
{
	static const char plain[] = "nrts\\", real[] = "\n\r\t \\";
	const char *p;
	size_t n = 0;
	int hi, lo;

	for (; *s; s++) {
		uint8_t c = *s;

		if (c == '\\') {
			s++;
			p = *s ? strchr(plain, *s) : NULL;
			hi = *s == 'x' ? parse_hexval(s[1]) : -1;
			lo = hi >= 0 ? parse_hexval(s[2]) : -1;
			if (p) {
				c = real[p - plain];
			} else if (lo >= 0) {
				c = hi << 4 | lo;
				s += 2;
			} else {
				return -EINVAL;
			}
		}
		if (n == max)
			return -ERANGE;
		out[n++] = c;
	}
	*len = n;
	return 0;
}

/* Text for HTTP: printable, no blank (a word has none anyway). */
static int text_word(const char *s, char *out)
{
	const char *p;

	if (strlen(s) >= HC_TEXT_LEN)
		return -ERANGE;
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			return -EINVAL;
	strcpy(out, s);
	return 0;
}

enum opt {
	O_INTERVAL, O_TIMEOUT, O_RISE, O_FALL, O_JITTER, O_PORT,
	O_PATH, O_STATUS, O_HOST, O_SEND, O_EXPECT, O_COMMAND, O_NOPTS,
};

static const struct {
	const char *name;
	int kinds;	/* bit per enum hc_kind, 0 for all */
	const char *want;
} opts[O_NOPTS] = {
	[O_INTERVAL] = { "interval", 0, "100ms..1h" },
	[O_TIMEOUT] = { "timeout", 0, "10ms..1h, at most the interval" },
	[O_RISE] = { "rise", 0, "1..100" },
	[O_FALL] = { "fall", 0, "1..100" },
	[O_JITTER] = { "jitter", 0, "0%..50%" },
	[O_PORT] = { "port", 1 << HC_TCP | 1 << HC_HTTP | 1 << HC_UDP, "1..65535" },
	[O_PATH] = { "path", 1 << HC_HTTP, "/ and printable characters" },
	[O_STATUS] = { "status", 1 << HC_HTTP, "100..599" },
	[O_HOST] = { "host", 1 << HC_HTTP, "printable characters" },
	[O_SEND] = { "send", 1 << HC_UDP, "bytes, escapes \\n \\r \\t \\s \\\\ \\xHH" },
	[O_EXPECT] = { "expect", 1 << HC_UDP, "bytes, escapes \\n \\r \\t \\s \\\\ \\xHH" },
	[O_COMMAND] = { "command", 1 << HC_EXEC, "a command line" },
};

static int opt_value(enum opt o, const char *v, struct hc_check *c)
{
	uint32_t u;
	int err;

	switch (o) {
	case O_INTERVAL:
		err = parse_duration(v, MAX_INTERVAL_MS, &c->interval_ms);
		return err ?: c->interval_ms < 100 ? -ERANGE : 0;
	case O_TIMEOUT:
		err = parse_duration(v, MAX_INTERVAL_MS, &c->timeout_ms);
		return err ?: c->timeout_ms < 10 ? -ERANGE : 0;
	case O_RISE:
		return parse_u32(v, 1, 100, &c->rise);
	case O_FALL:
		return parse_u32(v, 1, 100, &c->fall);
	case O_JITTER:
		err = parse_percent(v, &c->jitter_pct);
		return err ?: c->jitter_pct > 50 ? -ERANGE : 0;
	case O_PORT:
		err = parse_u32(v, 1, 65535, &u);
		c->port = u;
		return err;
	case O_PATH:
		return v[0] != '/' ? -EINVAL : text_word(v, c->path);
	case O_STATUS:
		return parse_u32(v, 100, 599, &c->status);
	case O_HOST:
		return text_word(v, c->host);
	case O_SEND:
		return hc_parse_payload(v, c->send, sizeof(c->send), &c->send_len);
	case O_EXPECT:
		return hc_parse_payload(v, c->expect, sizeof(c->expect), &c->expect_len);
	default:
		return -EINVAL;
	}
}

static int check_opts(const char *ctx, int argc, char **argv, struct hc_check *c)
{
	unsigned int seen = 0;
	enum opt o;
	int i, err;

	for (i = 0; i < argc; i += 2) {
		for (o = 0; o < O_NOPTS; o++)
			if (!strcmp(argv[i], opts[o].name))
				break;
		if (o == O_NOPTS)
			return cli_error("%s: unknown check option '%s'", ctx, argv[i]);
		if (opts[o].kinds && !(opts[o].kinds & 1 << c->kind))
			return cli_error("%s: '%s' is not an option of %s checks", ctx,
					 argv[i], hc_kind_name(c->kind));
		if (seen & 1U << o)
			return cli_error("%s: '%s' given twice", ctx, argv[i]);
		seen |= 1U << o;
		if (o == O_COMMAND) {
			if (i + 1 == argc)
				return parse_bad_value(ctx, "command", NULL, -EINVAL,
						       opts[o].want);
			c->command = parse_join(argc - i - 1, argv + i + 1);
			return c->command ? 0 : cli_error("%s: out of memory", ctx);
		}
		if (i + 1 == argc)
			return parse_bad_value(ctx, argv[i], NULL, -EINVAL, opts[o].want);
		err = opt_value(o, argv[i + 1], c);
		if (err)
			return parse_bad_value(ctx, argv[i], argv[i + 1], err, opts[o].want);
	}
	return 0;
}

/* Whole-check rules, once its line is read. */
static int check_done(const char *ctx, struct hc_check *c)
{
	if (c->timeout_ms > c->interval_ms)
		return cli_error("%s: timeout %ums is longer than the interval %ums", ctx,
				 c->timeout_ms, c->interval_ms);
	if (c->kind == HC_EXEC && !c->command)
		return cli_error("%s: an exec check needs 'command WORDS...' (last)", ctx);
	if (c->kind == HC_UDP && !c->send_len)
		return cli_error("%s: a udp check needs 'send BYTES'", ctx);
	return 0;
}

static int parse_check(const char *ctx, int argc, char **argv, bool self,
		       struct hc_check *c, struct rc_endpoint *target, unsigned int lineno)
{
	int err, first = 1;

	memset(c, 0, sizeof(*c));
	c->interval_ms = HC_DEF_INTERVAL_MS;
	c->timeout_ms = HC_DEF_TIMEOUT_MS;
	c->rise = HC_DEF_RISE;
	c->fall = HC_DEF_FALL;
	c->jitter_pct = HC_DEF_JITTER_PCT;
	c->status = 200;
	strcpy(c->path, "/");
	c->line = lineno;
	if (argc < 2 || parse_kind(argv[1], &c->kind))
		return parse_bad_value(ctx, "check", argc < 2 ? NULL : argv[1], -EINVAL,
				       "tcp, http, udp or exec");
	if (self && c->kind != HC_EXEC) {
		err = parse_endpoint_arg(ctx, "self-check target", argc > 2 ? argv[2] : NULL,
					 target);
		if (err)
			return err;
		first = 2;
	}
	return check_opts(ctx, argc - first - 1, argv + first + 1, c) ?:
	       check_done(ctx, c);
}

struct reader {
	struct hc_config *c;
	struct hc_service_conf *cur;
};

static int service_line(const char *ctx, int argc, char **argv, struct reader *r,
			unsigned int lineno)
{
	struct hc_service_conf *s;
	struct rc_service id;
	struct parse_args a;
	char name[RC_SERVICE_NAME_LEN];
	uint32_t i;
	int err;

	err = parse_service_args(ctx, argc - 1, argv + 1, PARSE_KW_PROTO, &id, &a);
	if (err)
		return err;
	for (i = 0; i < r->c->ns; i++)
		if (!rc_service_cmp(&r->c->s[i].id, &id))
			return cli_error("%s: service %s already defined at line %u", ctx,
					 rc_service_name(name, &id), r->c->s[i].line);
	if (r->c->ns == RINGSTEER_MAX_SERVICES)
		return cli_error("%s: more than %u services", ctx, RINGSTEER_MAX_SERVICES);
	s = realloc(r->c->s, (r->c->ns + 1) * sizeof(*s));
	if (!s)
		return cli_error("%s: out of memory", ctx);
	r->c->s = s;
	s = &s[r->c->ns++];
	r->cur = s;
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->line = lineno;
	s->max_down_pct = HC_DEF_MAX_DOWN_PCT;
	return 0;
}

static int parse_addr(const char *v, struct rc_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (inet_pton(AF_INET, v, ep->addr) == 1)
		ep->family = AF_INET;
	else if (inet_pton(AF_INET6, v, ep->addr) == 1)
		ep->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

static int backend_line(const char *ctx, int argc, char **argv, struct hc_service_conf *s,
			unsigned int lineno)
{
	struct hc_override o = { .line = lineno }, *n;
	uint32_t i, port;
	int k, err;

	err = parse_endpoint_arg(ctx, "backend", argc > 1 ? argv[1] : NULL, &o.be);
	if (err)
		return err;
	if (o.be.family != s->id.vip.family)
		return cli_error("%s: backend %s is not of the service's address family",
				 ctx, argv[1]);
	for (i = 0; i < s->nov; i++)
		if (!rc_endpoint_cmp(&s->ov[i].be, &o.be))
			return cli_error("%s: backend %s already given at line %u", ctx,
					 argv[1], s->ov[i].line);
	for (k = 2; k < argc; k += 2) {
		const char *v = k + 1 < argc ? argv[k + 1] : NULL;

		if (!strcmp(argv[k], "address") && !o.has_addr) {
			if (!v || parse_addr(v, &o.addr))
				return parse_bad_value(ctx, "address", v, -EINVAL,
						       "an IPv4 or IPv6 address");
			o.has_addr = true;
		} else if (!strcmp(argv[k], "port") && !o.port) {
			err = parse_u32(v, 1, 65535, &port);
			if (err)
				return parse_bad_value(ctx, "port", v, err, "1..65535");
			o.port = port;
		} else {
			return cli_error("%s: unexpected '%s' (want address ADDR, port P, each once)",
					 ctx, argv[k]);
		}
	}
	if (argc == 2)
		return cli_error("%s: backend %s overrides nothing (give address and/or port)",
				 ctx, argv[1]);
	n = realloc(s->ov, (s->nov + 1) * sizeof(*n));
	if (!n)
		return cli_error("%s: out of memory", ctx);
	s->ov = n;
	s->ov[s->nov++] = o;
	return 0;
}

/* "damping flaps N within D stable D", all three, in that order. */
static int damping_line(const char *ctx, int argc, char **argv, struct hc_service_conf *s)
{
	int err;

	if (argc != 7 || strcmp(argv[1], "flaps") || strcmp(argv[3], "within") ||
	    strcmp(argv[5], "stable"))
		return cli_error("%s: want 'damping flaps N within DURATION stable DURATION'",
				 ctx);
	err = parse_u32(argv[2], 1, HC_MAX_FLAPS, &s->flaps);
	if (err)
		return parse_bad_value(ctx, "flaps", argv[2], err, "1..32");
	err = parse_duration(argv[4], MAX_HOLD_MS, &s->within_ms);
	if (err || !s->within_ms)
		return parse_bad_value(ctx, "within", argv[4], err ?: -ERANGE, "1s..24h");
	err = parse_duration(argv[6], MAX_HOLD_MS, &s->stable_ms);
	if (err || !s->stable_ms)
		return parse_bad_value(ctx, "stable", argv[6], err ?: -ERANGE, "1s..24h");
	return 0;
}

static int command_line(const char *ctx, int argc, char **argv, char **cmd)
{
	if (*cmd)
		return cli_error("%s: %s given twice", ctx, argv[0]);
	if (argc < 2)
		return cli_error("%s: %s needs a command", ctx, argv[0]);
	*cmd = parse_join(argc - 1, argv + 1);
	return *cmd ? 0 : cli_error("%s: out of memory", ctx);
}

static int service_stmt(const char *ctx, int argc, char **argv, struct hc_service_conf *s,
			unsigned int lineno)
{
	int err;

	if (!strcmp(argv[0], "check")) {
		if (s->has_check)
			return cli_error("%s: second check for the service (first at line %u)",
					 ctx, s->check.line);
		err = parse_check(ctx, argc, argv, false, &s->check, NULL, lineno);
		s->has_check = !err;
		return err;
	}
	if (!strcmp(argv[0], "backend"))
		return backend_line(ctx, argc, argv, s, lineno);
	if (!strcmp(argv[0], "guard")) {
		if (argc != 3 || strcmp(argv[1], "max-down"))
			return cli_error("%s: want 'guard max-down PCT%%'", ctx);
		err = parse_percent(argv[2], &s->max_down_pct);
		return err ? parse_bad_value(ctx, "max-down", argv[2], err, "0%..100%") : 0;
	}
	if (!strcmp(argv[0], "hold-down")) {
		err = argc == 2 ? parse_duration(argv[1], MAX_HOLD_MS, &s->hold_down_ms)
				: -EINVAL;
		return err ? parse_bad_value(ctx, "hold-down", argc > 1 ? argv[1] : NULL, err,
					     "a duration up to 24h") : 0;
	}
	if (!strcmp(argv[0], "damping"))
		return damping_line(ctx, argc, argv, s);
	if (!strcmp(argv[0], "on-quorum-loss"))
		return command_line(ctx, argc, argv, &s->on_loss);
	return command_line(ctx, argc, argv, &s->on_gain);
}

static const char *const service_words[] = {
	"check", "backend", "guard", "hold-down", "damping", "on-quorum-loss",
	"on-quorum-gain", NULL,
};

static int parse_line(const char *ctx, int argc, char **argv, unsigned int lineno,
		      void *data)
{
	struct reader *r = data;
	struct hc_self *self;
	int i;

	if (!strcmp(argv[0], "service"))
		return service_line(ctx, argc, argv, r, lineno);
	if (!strcmp(argv[0], "fleet")) {
		if (argc != 2)
			return cli_error("%s: want 'fleet FILE'", ctx);
		if (r->c->fleet)
			return cli_error("%s: fleet given twice", ctx);
		/* Read by health.c's load(): fleet_conf.c reads durations from here. */
		r->c->fleet = strdup(argv[1]);
		return r->c->fleet ? 0 : cli_error("%s: out of memory", ctx);
	}
	if (!strcmp(argv[0], "self-check")) {
		if (r->c->nself == HC_MAX_SELF)
			return cli_error("%s: more than %u self-checks", ctx, HC_MAX_SELF);
		self = &r->c->self[r->c->nself];
		if (parse_check(ctx, argc, argv, true, &self->check, &self->target, lineno)) {
			free(self->check.command);
			return -EINVAL;
		}
		r->c->nself++;
		return 0;
	}
	for (i = 0; service_words[i]; i++)
		if (!strcmp(argv[0], service_words[i]))
			break;
	if (!service_words[i])
		return cli_error("%s: unknown statement '%s' (want service, self-check, fleet, check, backend, guard, hold-down, damping, on-quorum-loss or on-quorum-gain)",
				 ctx, argv[0]);
	if (!r->cur)
		return cli_error("%s: '%s' before any service line", ctx, argv[0]);
	return service_stmt(ctx, argc, argv, r->cur, lineno);
}

void hc_conf_free(struct hc_config *c)
{
	uint32_t i;

	for (i = 0; i < c->ns; i++) {
		free(c->s[i].check.command);
		free(c->s[i].ov);
		free(c->s[i].on_loss);
		free(c->s[i].on_gain);
	}
	for (i = 0; i < c->nself; i++)
		free(c->self[i].check.command);
	free(c->s);
	free(c->fleet);
	memset(c, 0, sizeof(*c));
}

int hc_conf_parse(FILE *f, const char *ctx, const char *name, struct hc_config *c)
{
	struct reader r = { .c = c };
	char name_buf[RC_SERVICE_NAME_LEN];
	uint32_t i;

	memset(c, 0, sizeof(*c));
	if (parse_lines(f, ctx, name, parse_line, &r))
		goto fail;
	if (!c->ns) {
		cli_error("%s: %s: no service to check", ctx, name);
		goto fail;
	}
	for (i = 0; i < c->ns; i++)
		if (!c->s[i].has_check) {
			cli_error("%s: %s:%u: service %s has no check line", ctx, name,
				  c->s[i].line, rc_service_name(name_buf, &c->s[i].id));
			goto fail;
		}
	return 0;
fail:
	/* The one the failing line was adding, if any, is freed too. */
	hc_conf_free(c);
	return -EINVAL;
}

int hc_conf_read(const char *path, const char *ctx, struct hc_config *c)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return cli_error("%s: %s: %s", ctx, path, strerror(errno));
	err = hc_conf_parse(f, ctx, path, c);
	fclose(f);
	return err;
}

void hc_conf_target(const struct hc_service_conf *s, const struct rc_endpoint *be,
		    struct rc_endpoint *to)
{
	uint32_t i;

	*to = *be;
	if (s->check.port)
		to->port = s->check.port;
	for (i = 0; i < s->nov; i++) {
		if (rc_endpoint_cmp(&s->ov[i].be, be))
			continue;
		if (s->ov[i].has_addr) {
			to->family = s->ov[i].addr.family;
			memcpy(to->addr, s->ov[i].addr.addr, sizeof(to->addr));
		}
		if (s->ov[i].port)
			to->port = s->ov[i].port;
	}
}
