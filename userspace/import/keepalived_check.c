// SPDX-License-Identifier: GPL-2.0
/*
 * keepalived's checkers as ringsteer's (ringctl(8), HEALTH CHECK FILE
 * FORMAT): TCP_CHECK is check tcp, HTTP_GET check http, UDP_CHECK with
 * require_reply check udp, MISC_CHECK check exec; SSL_GET becomes check
 * exec running curl, since ringsteer's checker speaks no TLS. keepalived
 * probes every delay_loop, waits connect_timeout, and takes a server down
 * after retry + 1 failures and up after one success: interval, timeout,
 * fall and rise 1.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keepalived.h"

#define KV_MAX_MS	(3600U * 1000)

static int timer(struct imp_config *c, const struct kv_stmt *st, uint32_t *ms)
{
	double v;
	char *end;

	if (st->n != 2)
		return cli_error("import: %s:%u: %s wants one value", c->file, st->line, st->w[0]);
	v = strtod(st->w[1], &end);
	if (*end || v < 0.001 || v * 1000 > KV_MAX_MS)
		return imp_refuse(c, st->line, "%s %s: ringsteer's checker takes 1ms to 1h",
				  st->w[0], st->w[1]);
	*ms = (uint32_t)(v * 1000 + 0.5);
	return 0;
}

int kv_timing_word(struct imp_config *c, const struct kv_stmt *st, struct kv_timing *t)
{
	const char *w = st->w[0];
	char *end;

	if (!strcmp(w, "delay_loop")) {
		t->has_interval = true;
		return timer(c, st, &t->interval_ms);
	}
	if (!strcmp(w, "connect_timeout")) {
		t->has_timeout = true;
		return timer(c, st, &t->timeout_ms);
	}
	if (!strcmp(w, "retry") || !strcmp(w, "nb_get_retry")) {
		if (st->n != 2)
			return cli_error("import: %s:%u: retry wants one value", c->file, st->line);
		t->retry = strtoul(st->w[1], &end, 10);
		t->has_retry = true;
		if (*end || t->retry > 99)
			return imp_refuse(c, st->line, "retry %s: ringsteer's fall is 1..100 "
					  "(retry + 1)", st->w[1]);
		return 0;
	}
	if (!strcmp(w, "delay_before_retry")) {
		imp_note(c, NULL, st->line, "delay_before_retry: ringsteer probes again after "
			 "its interval, failed or not");
		return 0;
	}
	return 1;
}

static int copy_str(struct imp_config *c, const struct kv_stmt *st, char *out, size_t len)
{
	if (st->n != 2)
		return cli_error("import: %s:%u: %s wants one value", c->file, st->line, st->w[0]);
	if (strlen(st->w[1]) >= len || strpbrk(st->w[1], "#\n"))
		return imp_refuse(c, st->line, "%s: too long, or has a '#'", st->w[0]);
	strcpy(out, st->w[1]);
	return 0;
}

/* keepalived's hex: pairs of digits, a word's odd last digit is 0N. */
static int hex_bytes(struct imp_config *c, const struct kv_stmt *st, int from, char *out,
		     size_t len)
{
	size_t o = 0;
	int i;

	*out = '\0';
	for (i = from; i < st->n; i++) {
		const char *p = st->w[i];

		if (strspn(p, "0123456789abcdefABCDEF") != strlen(p))
			return imp_refuse(c, st->line, "%s '%s': ringsteer compares bytes, "
					  "without X wildcards", st->w[0], p);
		for (; *p; p += p[1] ? 2 : 1) {
			if (o + 5 > len)
				return imp_refuse(c, st->line, "%s: too long", st->w[0]);
			o += snprintf(out + o, len - o, "\\x%c%c", p[1] ? p[0] : '0',
				      p[1] ? p[1] : p[0]);
		}
	}
	return 0;
}

static int url_block(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *open,
		     struct kv_check *k)
{
	struct kv_stmt st;
	char *end;
	int err;

	if (*k->path)
		return imp_refuse(c, open->line, "a second url: ringsteer's http check asks one "
				  "path") ?: kv_skip(c, kf, open);
	strcpy(k->path, "/");
	while (!(err = kv_next(c, kf, &st)) && !st.close) {
		if (!st.n || st.open)
			return cli_error("import: %s:%u: url: want its keywords and '}'", c->file,
					 st.n ? st.line : open->line);
		if (!strcmp(st.w[0], "path")) {
			err = copy_str(c, &st, k->path, sizeof(k->path));
		} else if (!strcmp(st.w[0], "virtualhost")) {
			err = copy_str(c, &st, k->host, sizeof(k->host));
		} else if (!strcmp(st.w[0], "status_code")) {
			k->status = st.n == 2 ? strtoul(st.w[1], &end, 10) : 0;
			if (st.n != 2 || *end || k->status < 100 || k->status > 599)
				err = imp_refuse(c, st.line, "status_code %s%s: ringsteer's http check "
						 "wants one code", st.n > 1 ? st.w[1] : "",
						 st.n > 2 ? " ..." : "");
		} else if (!strcmp(st.w[0], "digest")) {
			err = imp_refuse(c, st.line, "digest: ringsteer's http check reads the "
					 "status code, not the body");
		} else if (!strncmp(st.w[0], "regex", 5)) {
			err = imp_refuse(c, st.line, "%s: ringsteer's http check reads the status "
					 "code, not the body", st.w[0]);
		} else {
			err = imp_refuse(c, st.line, "url: unknown keyword '%s'", st.w[0]);
		}
		if (err)
			return err;
	}
	return err;
}

static int misc_word(struct imp_config *c, const struct kv_stmt *st, struct kv_check *k)
{
	if (!strcmp(st->w[0], "misc_path"))
		return copy_str(c, st, k->command, sizeof(k->command));
	if (!strcmp(st->w[0], "misc_timeout")) {
		k->t.has_timeout = true;
		return timer(c, st, &k->t.timeout_ms);
	}
	if (!strcmp(st->w[0], "misc_dynamic"))
		return imp_refuse(c, st->line, "misc_dynamic: ringsteer's checker sets health, "
				  "never weights");
	if (!strcmp(st->w[0], "user"))
		return imp_refuse(c, st->line, "user: ringsteer's checker runs commands as itself "
				  "(see its systemd unit's User=)");
	return 1;
}

static int udp_word(struct imp_config *c, const struct kv_stmt *st, struct kv_check *k)
{
	if (!strcmp(st->w[0], "payload"))
		return hex_bytes(c, st, 1, k->send, sizeof(k->send));
	if (!strcmp(st->w[0], "require_reply")) {
		k->reply = true;
		return hex_bytes(c, st, 1, k->expect, sizeof(k->expect));
	}
	if (!strcmp(st->w[0], "min_reply_length") || !strcmp(st->w[0], "max_reply_length"))
		return imp_refuse(c, st->line, "%s: ringsteer's udp check compares the reply's "
				  "first bytes only", st->w[0]);
	return 1;
}

static int http_word(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *st,
		     struct kv_check *k)
{
	if (!strcmp(st->w[0], "url") && st->open)
		return url_block(c, kf, st, k);
	if (!strcmp(st->w[0], "enable_sni") && k->kind == KV_SSL) {
		k->sni = true;
		return 0;
	}
	if (!strcmp(st->w[0], "http_protocol") || !strcmp(st->w[0], "fast_recovery")) {
		imp_note(c, NULL, st->line, "%s: ringsteer's check sends HTTP/1.0 and probes "
			 "at its interval", st->w[0]);
		return 0;
	}
	return 1;
}

static int common_word(struct imp_config *c, const struct kv_stmt *st, struct kv_check *k)
{
	const char *w = st->w[0];
	struct rc_endpoint ep;
	const char *why;
	char *end;
	bool bare;

	if (!strcmp(w, "connect_port")) {
		k->port = st->n == 2 ? strtoul(st->w[1], &end, 10) : 0;
		if (st->n != 2 || *end || !k->port)
			return cli_error("import: %s:%u: connect_port: want 1..65535", c->file,
					 st->line);
		return 0;
	}
	if (!strcmp(w, "connect_ip")) {
		if (st->n != 2 || rc_endpoint_parse_bare(st->w[1], &ep, &bare, &why) || !bare)
			return cli_error("import: %s:%u: connect_ip: want an address", c->file,
					 st->line);
		rc_addr_format(k->address, &ep);
		return 0;
	}
	if (!strcmp(w, "bindto") || !strcmp(w, "bind_if") || !strcmp(w, "bind_port") ||
	    !strcmp(w, "fwmark"))
		return imp_refuse(c, st->line, "%s: ringsteer's checker probes from the host's "
				  "own address and routes", w);
	if (!strcmp(w, "alpha") || !strcmp(w, "log_all_failures") || !strcmp(w, "warmup")) {
		imp_note(c, NULL, st->line, "%s: no ringsteer equivalent needed", w);
		return 0;
	}
	return kv_timing_word(c, st, &k->t);
}

static const struct {
	const char *name;
	enum kv_check_kind kind;
	const char *refused;
} checkers[] = {
	{ "TCP_CHECK", KV_TCP, NULL }, { "HTTP_GET", KV_HTTP, NULL },
	{ "SSL_GET", KV_SSL, NULL }, { "MISC_CHECK", KV_MISC, NULL },
	{ "UDP_CHECK", KV_UDP, NULL },
	{ "SMTP_CHECK", KV_NONE, "no SMTP probe: a MISC_CHECK script, or TCP_CHECK, can do" },
	{ "DNS_CHECK", KV_NONE, "no DNS probe: UDP_CHECK with a query as payload can do" },
	{ "PING_CHECK", KV_NONE, "no ICMP probe: it shows the host, not the service" },
	{ "BFD_CHECK", KV_NONE, "no BFD probe" },
	{ "FILE_CHECK", KV_NONE, "no file watch: a MISC_CHECK reading the file can do" },
};

int kv_check_block(struct imp_config *c, struct kv_file *kf, const struct kv_stmt *open,
		   struct kv_check *k)
{
	struct kv_stmt st;
	size_t i;
	int err;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < sizeof(checkers) / sizeof(checkers[0]); i++)
		if (!strcmp(open->w[0], checkers[i].name))
			break;
	if (i == sizeof(checkers) / sizeof(checkers[0]) || checkers[i].refused)
		return imp_refuse(c, open->line, "%s: %s", open->w[0],
				  i < sizeof(checkers) / sizeof(checkers[0]) ?
				  checkers[i].refused : "unknown block") ?: kv_skip(c, kf, open);
	k->line = open->line;
	while (!(err = kv_next(c, kf, &st)) && !st.close) {
		if (!st.n)
			return cli_error("import: %s:%u: %s block never closed", c->file,
					 open->line, open->w[0]);
		err = 1;
		if (checkers[i].kind == KV_HTTP || checkers[i].kind == KV_SSL)
			err = http_word(c, kf, &st, k);
		else if (checkers[i].kind == KV_MISC)
			err = misc_word(c, &st, k);
		else if (checkers[i].kind == KV_UDP)
			err = udp_word(c, &st, k);
		if (err > 0 && !st.open)
			err = common_word(c, &st, k);
		if (err > 0)
			err = imp_refuse(c, st.line, "%s: unknown keyword '%s'", open->w[0],
					 st.w[0]) ?: kv_skip(c, kf, &st);
		if (err)
			return err;
	}
	if (!err && checkers[i].kind == KV_MISC && !*k->command)
		return cli_error("import: %s:%u: MISC_CHECK without misc_path", c->file, open->line);
	if (checkers[i].kind == KV_HTTP || checkers[i].kind == KV_SSL)
		strcpy(k->path, *k->path ? k->path : "/");
	/* Left out with --lenient: kind stays KV_NONE. */
	if (!err && checkers[i].kind == KV_UDP && !k->reply)
		return imp_refuse(c, open->line, "UDP_CHECK without require_reply passes when no "
				  "ICMP error comes back; ringsteer's udp check wants a reply");
	k->kind = checkers[i].kind;
	return err;
}

/* "6s" or "1500ms". */
static const char *dur(char buf[24], uint32_t ms)
{
	if (ms % 1000)
		snprintf(buf, 24, "%ums", ms);
	else
		snprintf(buf, 24, "%us", ms / 1000);
	return buf;
}

static uint32_t pick(bool a, uint32_t av, bool b, uint32_t bv, bool c, uint32_t cv, uint32_t def)
{
	return a ? av : b ? bv : c ? cv : def;
}

/*
 * curl in place of SSL_GET: the status code compared by the shell. The
 * backend's address and port come from the checker's environment.
 */
static int ssl_command(const struct imp_service *s, const struct kv_check *k, uint32_t timeout,
		       const char *vhost, char *out, size_t len)
{
	const char *addr = s->vip.family == AF_INET6 ? "[$RINGSTEER_ADDR]" : "$RINGSTEER_ADDR";
	char t[24];
	int n;

	snprintf(t, sizeof(t), "%u.%03u", timeout / 1000, timeout % 1000);
	if (*vhost && k->sni)
		n = snprintf(out, len, "command test \"$(curl -gsk -o /dev/null -w %%{http_code} "
			     "-m %s --connect-to %s:$RINGSTEER_PORT:%s:$RINGSTEER_PORT "
			     "https://%s:$RINGSTEER_PORT%s)\" = %u", t, vhost, addr, vhost,
			     k->path, k->status ?: 200);
	else
		n = snprintf(out, len, "command test \"$(curl -gsk -o /dev/null -w %%{http_code} "
			     "-m %s%s%s https://%s:$RINGSTEER_PORT%s)\" = %u", t,
			     *vhost ? " -H Host:" : "", vhost, addr, k->path, k->status ?: 200);
	return n < 0 || (size_t)n >= len ? -E2BIG : 0;
}

int kv_check_text(struct imp_config *c, struct imp_service *s, const struct kv_check *k,
		  const struct kv_timing *rs, const struct kv_timing *vs, const char *vhost,
		  char *out, size_t len)
{
	uint32_t interval, timeout, retry;
	char a[24], b[24], cmd[IMP_CHECK_LEN];
	const char *host = *k->host ? k->host : vhost;
	int n = 0;

	/* keepalived's defaults: delay_loop 60 s, connect_timeout 5 s, retry 1 (MISC 0). */
	interval = pick(k->t.has_interval, k->t.interval_ms, rs->has_interval, rs->interval_ms,
			vs->has_interval, vs->interval_ms, 60000);
	timeout = pick(k->t.has_timeout, k->t.timeout_ms, rs->has_timeout, rs->timeout_ms,
		       vs->has_timeout, vs->timeout_ms, k->kind == KV_MISC ? interval : 5000);
	retry = pick(k->t.has_retry, k->t.retry, rs->has_retry, rs->retry, vs->has_retry,
		     vs->retry, k->kind == KV_MISC ? 0 : 1);
	if (timeout > interval) {
		imp_note(c, s, k->line, "timeout %s over the interval %s: ringsteer waits at most "
			 "the interval", dur(a, timeout), dur(b, interval));
		timeout = interval;
	}
	if ((k->kind == KV_HTTP || k->kind == KV_SSL) && !k->status)
		imp_note(c, s, k->line, "no status_code: keepalived took any 2xx, ringsteer "
			 "wants 200");
	switch (k->kind) {
	case KV_TCP:
		n = snprintf(out, len, "tcp");
		break;
	case KV_HTTP:
		n = snprintf(out, len, "http path %s status %u%s%s", k->path, k->status ?: 200,
			     *host ? " host " : "", host);
		break;
	case KV_UDP:
		n = snprintf(out, len, "udp send %s%s%s", *k->send ? k->send : "\\x00",
			     *k->expect ? " expect " : "", k->expect);
		break;
	case KV_SSL:
	case KV_MISC:
		n = snprintf(out, len, "exec");
		break;
	case KV_NONE:
		return 0;
	}
	n += snprintf(out + n, len - n, " interval %s timeout %s rise 1 fall %u",
		      dur(a, interval), dur(b, timeout), retry + 1);
	if (k->kind == KV_SSL) {
		imp_note(c, s, k->line, "SSL_GET: ringsteer's checker speaks no TLS; the check "
			 "runs curl (the curl package), certificates unchecked as SSL_GET does");
		if (ssl_command(s, k, timeout, host, cmd, sizeof(cmd)))
			return imp_refuse(c, k->line, "SSL_GET: its command is too long");
		n += snprintf(out + n, len - n, " %s", cmd);
	} else if (k->kind == KV_MISC) {
		n += snprintf(out + n, len - n, " command %s", k->command);
	}
	if ((size_t)n >= len)
		return imp_refuse(c, k->line, "check too long");
	return 0;
}
