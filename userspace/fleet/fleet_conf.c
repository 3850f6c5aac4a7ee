// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet file, one statement a line as ringsteer's other files:
 *
 *	endpoints https://10.0.0.1:2379 https://10.0.0.2:2379
 *	prefix /ringsteer/fleet1
 *	host lb1				# default: the hostname
 *	tls ca FILE [cert FILE key FILE]	# https: CA, client certificate
 *	user NAME password-file FILE		# etcd's user/password auth
 *	key-file /etc/ringsteer/siphash.key	# the SipHash key, mode 0600
 *	timeout 2s				# of one etcd request
 *	lease-ttl 10s				# of the status key's lease
 *	stale-timeout 30s			# cut off from etcd: run on-stale
 *	status-interval 5s			# the kernel re-read for the status
 *	on-stale birdc disable vip_www
 *	on-fresh birdc enable vip_www
 *	health-quorum 51%			# apply the checkers' fleet verdict
 *	health-max-down 50%			# the fleet-wide guard
 *
 * health-quorum turns on the fleet's health in the agent (fleet_health.h):
 * without it the agent never touches health and each host's checker
 * decides alone, as before. Both must be the same on every host, so that
 * every agent decides alike.
 * endpoints and prefix are required, each statement at most once. A
 * command is the rest of its line, its words joined by single blanks.
 * The files named are read while parsing, so a bad one is reported with
 * the line that names it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fleet_conf.h"
#include "fleet_health.h"
#include "lines.h"
#include "parse.h"

#define MAX_TIMER_MS (24U * 3600 * 1000)

struct state {
	struct fl_conf *c;
	unsigned int seen;	/* bit per statement */
};

int fl_read_key(const char *path, uint8_t key[RINGSTEER_KEY_LEN], const char **why)
{
	char line[128] = "";
	struct stat st;
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f) {
		err = -errno;
		*why = strerror(errno);
		return err;
	}
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
		*why = "readable or writable by others than its owner (chmod 600)";
		err = -EPERM;
	} else if (!fgets(line, sizeof(line), f) ||
		   (line[strcspn(line, "\r\n")] = '\0', parse_key(line, key))) {
		*why = "want 32 hex digits on its first line";
		err = -EINVAL;
	}
	fclose(f);
	return err;
}

/* The first line of PATH, without its newline. */
static int read_secret(const char *ctx, const char *path, char **out)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	ssize_t n;

	if (!f)
		return cli_error("%s: password file %s: %s", ctx, path, strerror(errno));
	n = getline(&line, &len, f);
	fclose(f);
	if (n <= 0) {
		free(line);
		return cli_error("%s: password file %s is empty", ctx, path);
	}
	line[strcspn(line, "\r\n")] = '\0';
	*out = line;
	return 0;
}

static int endpoints_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	int i;

	if (argc < 2)
		return cli_error("%s: want 'endpoints URL...'", ctx);
	if (argc - 1 > ETCD_MAX_ENDPOINTS)
		return cli_error("%s: more than %d endpoints", ctx, ETCD_MAX_ENDPOINTS);
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "http://", 7) && strncmp(argv[i], "https://", 8))
			return cli_error("%s: endpoint '%s' is not http://HOST:PORT or https://HOST:PORT",
					 ctx, argv[i]);
		c->endpoint[i - 1] = strdup(argv[i]);
		if (!c->endpoint[i - 1])
			return cli_error("%s: out of memory", ctx);
		c->etcd.endpoints[i - 1] = c->endpoint[i - 1];
		c->etcd.nendpoints = i;
	}
	return 0;
}

static int prefix_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	size_t n;

	if (argc != 2)
		return cli_error("%s: want 'prefix /PATH'", ctx);
	n = strlen(argv[1]);
	if (argv[1][0] != '/' || n < 2 || argv[1][n - 1] == '/' || n >= sizeof(c->prefix))
		return cli_error("%s: prefix '%s': want /PATH, not ending in '/', under %zu characters",
				 ctx, argv[1], sizeof(c->prefix));
	memcpy(c->prefix, argv[1], n + 1);
	return 0;
}

static int host_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	if (argc != 2)
		return cli_error("%s: want 'host NAME'", ctx);
	if (strlen(argv[1]) >= sizeof(c->host) ||
	    strspn(argv[1], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_") !=
	    strlen(argv[1]))
		return cli_error("%s: host '%s': want letters, digits, '.', '-' or '_', under %zu",
				 ctx, argv[1], sizeof(c->host));
	strcpy(c->host, argv[1]);
	return 0;
}

/* "tls [ca FILE] [cert FILE key FILE]", any order. */
static int tls_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	char **to;
	int i;

	for (i = 1; i < argc; i += 2) {
		to = !strcmp(argv[i], "ca") ? &c->cacert : !strcmp(argv[i], "cert") ? &c->cert :
		     !strcmp(argv[i], "key") ? &c->cert_key : NULL;
		if (!to || i + 1 >= argc)
			return cli_error("%s: want 'tls [ca FILE] [cert FILE key FILE]'", ctx);
		if (*to)
			return cli_error("%s: tls %s given twice", ctx, argv[i]);
		if (access(argv[i + 1], R_OK))
			return cli_error("%s: tls %s %s: %s", ctx, argv[i], argv[i + 1],
					 strerror(errno));
		*to = strdup(argv[i + 1]);
	}
	if (argc < 3 || !c->cert != !c->cert_key)
		return cli_error("%s: tls: a client 'cert' goes with its 'key'", ctx);
	return 0;
}

static int user_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	if (argc != 4 || strcmp(argv[2], "password-file"))
		return cli_error("%s: want 'user NAME password-file FILE'", ctx);
	c->user = strdup(argv[1]);
	return read_secret(ctx, argv[3], &c->password);
}

static int key_file_line(const char *ctx, int argc, char **argv, struct fl_conf *c)
{
	const char *why;

	if (argc != 2)
		return cli_error("%s: want 'key-file FILE'", ctx);
	if (fl_read_key(argv[1], c->key, &why))
		return cli_error("%s: key-file %s: %s", ctx, argv[1], why);
	c->has_key = true;
	c->key_file = strdup(argv[1]);
	return 0;
}

static int timer_line(const char *ctx, int argc, char **argv, uint32_t min_ms, uint32_t *ms)
{
	char want[64];

	int err;

	if (argc != 2)
		return cli_error("%s: want '%s DURATION'", ctx, argv[0]);
	err = parse_duration(argv[1], MAX_TIMER_MS, ms);
	if (!err && *ms < min_ms)
		err = -ERANGE;
	if (!err)
		return 0;
	snprintf(want, sizeof(want), "a duration of %ums to 24h, e.g. 10s", min_ms);
	return parse_bad_value(ctx, argv[0], argv[1], err, want);
}

static int command_line(const char *ctx, int argc, char **argv, char **cmd)
{
	if (argc < 2)
		return cli_error("%s: %s wants a command", ctx, argv[0]);
	*cmd = parse_join(argc - 1, argv + 1);
	return *cmd ? 0 : cli_error("%s: out of memory", ctx);
}

static int percent_line(const char *ctx, int argc, char **argv, uint32_t min, uint32_t *pct)
{
	int err;

	if (argc != 2)
		return cli_error("%s: want '%s PERCENT%%'", ctx, argv[0]);
	err = parse_percent(argv[1], pct);
	if (!err && *pct < min)
		err = -ERANGE;
	return err ? parse_bad_value(ctx, argv[0], argv[1], err, min ? "1% to 100%" : "0% to 100%") : 0;
}

static const char *const statements[] = {
	"endpoints", "prefix", "host", "tls", "user", "key-file", "timeout",
	"lease-ttl", "stale-timeout", "status-interval", "on-stale", "on-fresh",
	"health-quorum", "health-max-down",
};

static int dispatch(const char *ctx, int argc, char **argv, struct fl_conf *c, int k)
{
	switch (k) {
	case 0: return endpoints_line(ctx, argc, argv, c);
	case 1: return prefix_line(ctx, argc, argv, c);
	case 2: return host_line(ctx, argc, argv, c);
	case 3: return tls_line(ctx, argc, argv, c);
	case 4: return user_line(ctx, argc, argv, c);
	case 5: return key_file_line(ctx, argc, argv, c);
	case 6: return timer_line(ctx, argc, argv, 100, &c->etcd.timeout_ms);
	/* etcd leases count in seconds; below 2 s one keep-alive late loses it. */
	case 7: return timer_line(ctx, argc, argv, 2000, &c->lease_ttl_ms);
	case 8: return timer_line(ctx, argc, argv, 1000, &c->stale_ms);
	case 9: return timer_line(ctx, argc, argv, 100, &c->status_ms);
	case 10: return command_line(ctx, argc, argv, &c->on_stale);
	case 11: return command_line(ctx, argc, argv, &c->on_fresh);
	case 12:
		c->fleet_health = true;
		return percent_line(ctx, argc, argv, 1, &c->quorum_pct);
	default: return percent_line(ctx, argc, argv, 0, &c->max_down_pct);
	}
}

static int parse_line(const char *ctx, int argc, char **argv, unsigned int lineno, void *data)
{
	struct state *s = data;
	unsigned int k;

	(void)lineno;
	for (k = 0; k < sizeof(statements) / sizeof(statements[0]); k++) {
		if (strcmp(argv[0], statements[k]))
			continue;
		if (s->seen & (1U << k))
			return cli_error("%s: %s given twice", ctx, argv[0]);
		s->seen |= 1U << k;
		return dispatch(ctx, argc, argv, s->c, k);
	}
	return cli_error("%s: unknown statement '%s' (want endpoints, prefix, host, tls, user, key-file, timeout, lease-ttl, stale-timeout, status-interval, on-stale, on-fresh, health-quorum or health-max-down)",
			 ctx, argv[0]);
}

int fl_conf_parse(FILE *f, const char *ctx, const char *name, struct fl_conf *c)
{
	struct state s = { .c = c };
	int err;

	memset(c, 0, sizeof(*c));
	c->etcd.timeout_ms = FL_DEF_TIMEOUT_MS;
	c->lease_ttl_ms = FL_DEF_LEASE_TTL_MS;
	c->stale_ms = FL_DEF_STALE_MS;
	c->status_ms = FL_DEF_STATUS_MS;
	c->quorum_pct = FH_DEF_QUORUM_PCT;
	c->max_down_pct = FH_DEF_MAX_DOWN_PCT;
	err = parse_lines(f, ctx, name, parse_line, &s);
	if (!err && !c->etcd.nendpoints)
		err = cli_error("%s: %s: no 'endpoints' line", ctx, name);
	if (!err && !c->prefix[0])
		err = cli_error("%s: %s: no 'prefix' line", ctx, name);
	if (!err && !c->host[0] && (gethostname(c->host, sizeof(c->host)) || !c->host[0]))
		err = cli_error("%s: %s: no 'host' line, and no hostname", ctx, name);
	if (err) {
		fl_conf_free(c);
		return -EINVAL;
	}
	c->host[sizeof(c->host) - 1] = '\0';
	c->etcd.cacert = c->cacert;
	c->etcd.cert = c->cert;
	c->etcd.cert_key = c->cert_key;
	c->etcd.user = c->user;
	c->etcd.password = c->password;
	return 0;
}

int fl_conf_read(const char *path, const char *ctx, struct fl_conf *c)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return cli_error("%s: %s: %s", ctx, path, strerror(errno));
	err = fl_conf_parse(f, ctx, f == stdin ? "<stdin>" : path, c);
	if (f != stdin)
		fclose(f);
	return err;
}

void fl_conf_free(struct fl_conf *c)
{
	unsigned int i;

	for (i = 0; i < ETCD_MAX_ENDPOINTS; i++)
		free(c->endpoint[i]);
	free(c->cacert);
	free(c->cert);
	free(c->cert_key);
	free(c->user);
	if (c->password)
		explicit_bzero(c->password, strlen(c->password));
	free(c->password);
	free(c->key_file);
	free(c->on_stale);
	free(c->on_fresh);
	explicit_bzero(c->key, sizeof(c->key));
	memset(c, 0, sizeof(*c));
}

const char *fl_key(char *buf, size_t len, const struct fl_conf *c, const char *what)
{
	snprintf(buf, len, "%s/%s", c->prefix, what);
	return buf;
}
