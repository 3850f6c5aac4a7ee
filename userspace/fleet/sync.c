// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl sync run FILE [dry-run]: the fleet agent (sync check FILE reads
 * the file only). It reads
 * PREFIX/config from etcd and applies it with restore's diff, then
 * watches it from the next revision and applies each new one; publishes
 * PREFIX/status/HOST under a lease (fleet_state.h) and registers
 * PREFIX/members/HOST, so that a dead agent shows as missing. What it
 * never does: flush, or change the kernel when etcd is away. Without
 * etcd it keeps the last configuration and retries with back-off; after
 * stale-timeout without etcd it is stale, and when no etcd host has
 * answered for that long either (this host is cut off, while the others
 * may go on) it runs on-stale, and on-fresh once it has resynced. When
 * every etcd host answers but none serves (stopped, no leader), etcd is
 * down for every LB alike: all keep the same revision and still agree,
 * and withdrawing them all would be an outage bought with nothing, so
 * on-stale is held. A compacted revision means a full read; several writers are
 * ordered by etcd's revision, and the agent applies the newest.
 *
 * With health-quorum it also watches PREFIX/health/, the checkers' votes,
 * and gives every backend the fleet's verdict (fleet_health.h), decided
 * from the votes at the revision it holds, so that every agent changes a
 * backend's health at the same revision.
 */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../cmd.h"
#include "etcd.h"
#include "fleet_conf.h"
#include "fleet_health.h"
#include "fleet_state.h"
#include "sd_notify.h"
#include "sync_apply.h"

#define BACKOFF_MIN_MS	500
#define POLL_MAX_MS	500

struct sync {
	const struct fl_conf *c;
	struct etcd e;
	struct etcd_watch w;
	bool watching;
	struct sy_target t;
	struct sd_notify n;
	char config_key[FL_PREFIX_LEN + 80];
	int64_t applied;		/* mod_revision the kernel holds, 0: none */
	int64_t err_rev;		/* the revision refused, 0: none */
	char err[FL_ERROR_LEN];
	char said_err[ETCD_ERR_LEN];	/* the last failure logged */
	char *pending;			/* the newest revision a watch brought */
	size_t pending_len;
	int64_t pending_rev;
	int64_t lease;
	bool connected, stale, withdrawn, said_held, ready, dirty;
	bool silent_round;		/* the last unserved round met a silent host */
	uint64_t lost;			/* first unserved request since the last answer, 0: none */
	uint64_t reached;		/* last round every etcd host answered, if not served */
	uint64_t next_retry, backoff, next_keepalive, next_status, next_watchdog;
	/* Fleet health: PREFIX/health/'s votes and live keys, after the prefix. */
	struct etcd_watch hw;
	bool hwatching, health_dirty, said_no_checker;
	char health_key[FL_PREFIX_LEN + 16];
	char **hkeys;
	size_t nh;
	int64_t health_rev;		/* revision of the votes */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sy_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sy_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ringctl sync: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * WATCHDOG=1 when it is due. Called between etcd requests too: each may
 * block for a timeout per endpoint, and a resync makes several, so that
 * the watchdog measures one request, never a whole round of them.
 */
static void watchdog(struct sync *s)
{
	uint64_t now = now_ms();

	if (s->n.watchdog_ms && now >= s->next_watchdog) {
		sd_notify_send(&s->n, "WATCHDOG=1");
		s->next_watchdog = now + s->n.watchdog_ms / 2;
	}
}

/* CMD by /bin/sh -c, not waited for (reaped in the loop). */
static void run_command(const char *cmd, const char *event)
{
	pid_t pid;

	if (!cmd)
		return;
	sy_log("%s: running '%s'", event, cmd);
	pid = fork();
	if (pid < 0) {
		sy_log("%s: fork: %s", event, strerror(errno));
	} else if (pid == 0) {
		setsid();
		setenv("RINGSTEER_EVENT", event, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

static void apply(struct sync *s, const char *text, size_t len, int64_t rev)
{
	char name[sizeof(s->config_key) + 24];

	if (rev == s->applied || rev == s->err_rev)
		return;
	snprintf(name, sizeof(name), "%s@%lld", s->config_key, (long long)rev);
	if (sy_apply(&s->t, text, len, name, s->c->has_key ? s->c->key : NULL, rev)) {
		s->err_rev = rev;
		snprintf(s->err, sizeof(s->err), "%s", cli_last_error());
		sy_log("revision %lld refused, the kernel keeps revision %lld", (long long)rev,
		       (long long)s->applied);
	} else {
		s->applied = rev;
		s->health_dirty = true;	/* new backends get the fleet's verdict */
		s->err_rev = 0;
		s->err[0] = '\0';
		sy_log("revision %lld applied", (long long)rev);
	}
	s->dirty = true;
}

static void hkeys_free(struct sync *s)
{
	while (s->nh)
		free(s->hkeys[--s->nh]);
	free(s->hkeys);
	s->hkeys = NULL;
}

/* KEY (whole) set to VALUE, or gone when VALUE is NULL. */
static int hkey_set(struct sync *s, const char *key, const char *value)
{
	size_t plen = strlen(s->health_key), i;
	const char *rel = key + plen;
	bool keep = value && (!strcmp(value, "down") ||
			      (strlen(rel) > 5 && !strcmp(rel + strlen(rel) - 5, "/live")));
	char **n;

	if (strncmp(key, s->health_key, plen))
		return 0;
	for (i = 0; i < s->nh && strcmp(s->hkeys[i], rel); i++)
		;
	if (i < s->nh && !keep) {
		free(s->hkeys[i]);
		s->hkeys[i] = s->hkeys[--s->nh];
	} else if (i == s->nh && keep) {
		n = realloc(s->hkeys, (s->nh + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->hkeys = n;
		s->hkeys[s->nh] = strdup(rel);
		if (!s->hkeys[s->nh])
			return -ENOMEM;
		s->nh++;
	}
	s->health_dirty = true;
	return 0;
}

static void apply_health(struct sync *s);

static int on_health_event(const struct etcd_event *ev, void *data)
{
	struct sync *s = data;

	/*
	 * Decide at every revision, even when one read brings several: an
	 * agent that got them one by one decided at each, and the fleet
	 * changes a backend at the same revision everywhere.
	 */
	if (ev->kv.mod_revision != s->health_rev)
		apply_health(s);
	s->health_rev = ev->kv.mod_revision;
	return hkey_set(s, ev->kv.key, ev->type == ETCD_PUT ? ev->kv.value : NULL);
}

static int health_read(struct sync *s, int64_t *revision)
{
	struct etcd_kvs kvs;
	size_t i;
	int err;

	err = etcd_range(&s->e, s->health_key, true, &kvs);
	if (err)
		return err;
	hkeys_free(s);
	for (i = 0; i < kvs.n && !err; i++)
		err = hkey_set(s, kvs.kv[i].key, kvs.kv[i].value);
	*revision = kvs.revision;
	s->health_rev = kvs.revision;
	s->health_dirty = true;
	etcd_kvs_free(&kvs);
	return err;
}

/* The fleet's verdict on the backends the kernel has, what differs sent. */
static void apply_health(struct sync *s)
{
	struct rc_config want;
	uint32_t live, blocked;
	int n;

	if (!s->c->fleet_health || !s->health_dirty || !s->applied)
		return;
	s->health_dirty = false;
	if (sy_target_read(&s->t, &want))
		return;
	live = fh_decide(&want, s->hkeys, s->nh, s->c->quorum_pct, s->c->max_down_pct, &blocked);
	if (!live) {
		if (!s->said_no_checker)
			sy_log("health: no live checker in %s: the kernel's health kept", s->health_key);
		s->said_no_checker = true;
	} else {
		s->said_no_checker = false;
		n = sy_health(&s->t, &want, s->health_rev);
		if (n > 0)
			s->dirty = true;
		if (blocked)
			sy_log("health %lld: %u downs refused by max-down %u%% or the last backend",
			       (long long)s->health_rev, blocked, s->c->max_down_pct);
	}
	rc_config_free(&want);
}

/* The status from the kernel as it is now; put when it changed or DIRTY. */
static int publish(struct sync *s)
{
	char key[FL_PREFIX_LEN + 80 + FL_HOST_LEN];
	static char *last;
	struct rc_config live;
	struct fl_state st = { 0 };
	char *text;
	int err;

	err = sy_target_read(&s->t, &live);
	if (err)
		return 0;	/* the status waits for the kernel; etcd is fine */
	snprintf(st.host, sizeof(st.host), "%s", s->c->host);
	st.revision = s->applied;
	st.error_revision = s->err_rev;
	snprintf(st.error, sizeof(st.error), "%s", s->err);
	if (live.has_key)
		fl_key_id(st.key_id, live.key);
	err = fl_state_services(&st, &live);
	rc_config_free(&live);
	text = err ? NULL : fl_state_json(&st);
	/* Compared without the time, so that an idle agent writes nothing. */
	if (text && !s->dirty && last && !strcmp(text, last)) {
		free(text);
		fl_state_free(&st);
		return 0;
	}
	free(last);
	last = text;
	st.updated = time(NULL);
	text = text ? fl_state_json(&st) : NULL;
	fl_state_free(&st);
	if (!text)
		return -ENOMEM;
	snprintf(key, sizeof(key), "%s/status/%s", s->c->prefix, s->c->host);
	err = etcd_put(&s->e, key, text, strlen(text), s->lease, NULL);
	free(text);
	if (!err)
		s->dirty = false;
	return err;
}

static int full_read(struct sync *s, int64_t *revision)
{
	struct etcd_kvs kvs;
	int err;

	err = etcd_range(&s->e, s->config_key, false, &kvs);
	if (err)
		return err;
	*revision = kvs.revision;
	if (kvs.n)
		apply(s, kvs.kv[0].value, kvs.kv[0].value_len, kvs.kv[0].mod_revision);
	else if (!s->applied)
		sy_log("no configuration at %s yet", s->config_key);
	etcd_kvs_free(&kvs);
	return 0;
}

static int on_event(const struct etcd_event *ev, void *data)
{
	struct sync *s = data;

	if (ev->type == ETCD_DELETE) {
		/* No configuration is not an empty one: keep the kernel as it is. */
		s->err_rev = ev->kv.mod_revision;
		snprintf(s->err, sizeof(s->err), "%s deleted: the kernel keeps revision %lld",
			 s->config_key, (long long)s->applied);
		s->dirty = true;
		return 0;
	}
	free(s->pending);
	s->pending = malloc(ev->kv.value_len + 1);
	if (!s->pending)
		return -ENOMEM;
	memcpy(s->pending, ev->kv.value, ev->kv.value_len + 1);
	s->pending_len = ev->kv.value_len;
	s->pending_rev = ev->kv.mod_revision;
	return 0;
}

/* Lease, membership, a full read, the status, then the watch. */
static int resync(struct sync *s)
{
	char key[FL_PREFIX_LEN + 80 + FL_HOST_LEN];
	int64_t rev;
	int err;

	if (s->watching)
		etcd_watch_stop(&s->w);
	if (s->hwatching)
		etcd_watch_stop(&s->hw);
	s->watching = s->hwatching = false;
	snprintf(key, sizeof(key), "%s/members/%s", s->c->prefix, s->c->host);
	err = etcd_lease_grant(&s->e, (s->c->lease_ttl_ms + 999) / 1000, &s->lease);
	watchdog(s);
	err = err ?: etcd_put(&s->e, key, "", 0, 0, NULL);
	watchdog(s);
	err = err ?: full_read(s, &rev);
	watchdog(s);
	if (!err && s->c->fleet_health) {
		int64_t hrev;

		err = health_read(s, &hrev) ?:
		      etcd_watch_start(&s->e, &s->hw, s->health_key, true, hrev + 1,
				       on_health_event, s);
		s->hwatching = !err;
		apply_health(s);
		watchdog(s);
	}
	if (!err) {
		s->dirty = true;
		err = publish(s);
		watchdog(s);
		err = err ?: etcd_watch_start(&s->e, &s->w, s->config_key, false, rev + 1,
					      on_event, s);
	}
	if (err)
		return err;
	s->watching = true;
	s->connected = true;
	s->lost = 0;
	s->said_err[0] = '\0';
	s->backoff = 0;
	s->next_keepalive = now_ms() + s->c->lease_ttl_ms / 3;
	sy_log("in sync with %s at revision %lld", s->e.conf->endpoints[s->e.cur],
	       (long long)rev);
	s->stale = s->said_held = false;
	if (s->withdrawn) {
		s->withdrawn = false;
		run_command(s->c->on_fresh, "fresh");
	}
	return 0;
}

static void disconnect(struct sync *s, int err, const char *what)
{
	uint64_t jitter, now = now_ms();

	/* Once per outage and per new reason: the back-off retries say nothing new. */
	if (s->connected || strcmp(s->said_err, s->e.err))
		sy_log("%s: %s: %s; the kernel keeps revision %lld", what, strerror(-err), s->e.err,
		       (long long)s->applied);
	snprintf(s->said_err, sizeof(s->said_err), "%s", s->e.err);
	if (!s->lost)
		s->lost = now;
	s->silent_round = s->e.silent > 0;
	if (!s->silent_round)
		s->reached = now;
	if (s->watching)
		etcd_watch_stop(&s->w);
	if (s->hwatching)
		etcd_watch_stop(&s->hw);
	s->watching = s->hwatching = false;
	s->connected = false;
	/*
	 * Doubling, with a fifth of jitter so that a fleet does not come back
	 * all at once; at most a lease's time, so that an agent is back
	 * before the fleet has long seen it missing.
	 */
	s->backoff = s->backoff ? s->backoff * 2 : BACKOFF_MIN_MS;
	if (s->backoff > s->c->lease_ttl_ms)
		s->backoff = s->c->lease_ttl_ms;
	jitter = s->backoff / 5 ? (uint64_t)rand() % (s->backoff / 5) : 0;
	s->next_retry = now_ms() + s->backoff + jitter;
}

static void keepalive(struct sync *s, uint64_t now)
{
	int64_t ttl;
	int err;

	s->next_keepalive = now + s->c->lease_ttl_ms / 3;
	err = etcd_lease_keepalive(&s->e, s->lease, &ttl);
	if (err == -ENOENT) {
		/* Expired while we were away: a new one, and the status again. */
		sy_log("lease expired; granting a new one");
		err = resync(s);
	}
	if (err)
		disconnect(s, err, "keep-alive");
}

static void watch(struct sync *s, int timeout)
{
	int64_t rev;
	int err;

	int herr = 0;

	/* Two streams: neither waited on long, so that a vote waits at most 50 ms. */
	if (s->hwatching && timeout > 50)
		timeout = 50;
	err = etcd_watch_poll(&s->w, timeout);
	if (s->pending) {
		apply(s, s->pending, s->pending_len, s->pending_rev);
		free(s->pending);
		s->pending = NULL;
	}
	/* The votes after the configuration: a revision's new backends get them. */
	if (!err && s->hwatching)
		herr = etcd_watch_poll(&s->hw, timeout);
	if (herr) {
		/* A compacted or broken vote stream: resync reads the votes whole. */
		disconnect(s, herr, "health watch");
		return;
	}
	apply_health(s);
	/* A new revision (or its refusal) is published at once, not at the next tick. */
	if (!err && s->dirty && publish(s))
		err = -EIO;
	if (err == -ESTALE) {
		sy_log("watch: %s; reading %s whole", s->e.err, s->config_key);
		etcd_watch_stop(&s->w);
		s->watching = false;
		err = full_read(s, &rev) ?:
		      etcd_watch_start(&s->e, &s->w, s->config_key, false, rev + 1, on_event, s);
		s->watching = !err;
	}
	if (err)
		disconnect(s, err, "watch");
}

static void notify_status(struct sync *s)
{
	char msg[FL_ERROR_LEN + 128], text[FL_ERROR_LEN + 100];

	snprintf(text, sizeof(text), "revision %lld, etcd %s%s%s%s", (long long)s->applied,
		 s->connected ? "connected" : "unreachable",
		 s->withdrawn ? " (stale, cut off: on-stale ran)" :
		 s->stale && s->silent_round ? " (stale)" :
		 s->stale ? " (stale, etcd down everywhere: on-stale held)" : "",
		 s->err_rev ? ", refused: " : "", s->err_rev ? s->err : "");
	sd_notify_status(msg, sizeof(msg), text);
	sd_notify_send(&s->n, msg);
}

static uint64_t next_deadline(const struct sync *s)
{
	uint64_t d = s->connected ? s->next_keepalive : s->next_retry;

	if (s->next_status < d)
		d = s->next_status;
	if (s->n.watchdog_ms && s->next_watchdog < d)
		d = s->next_watchdog;
	return d;
}

/*
 * Only answers to requests count: a watch stream can stay open to a dead
 * peer. The clock starts at the first request etcd did not serve, not at
 * its last answer: an agent that asked nothing (its keep-alive not due,
 * stopped like a paused VM, busy applying) was not refused anything.
 * Stale after stale-timeout of that; cut off (on-stale) only when no
 * round reached every etcd host in that time either, and the last round
 * met silence, so that an agent stopped while etcd was down everywhere
 * does not withdraw on waking before it has asked again.
 */
static void stale_check(struct sync *s, uint64_t now)
{
	uint64_t heard = s->reached > s->lost ? s->reached : s->lost;

	if (!s->lost || now <= s->lost)
		return;
	if (!s->stale && now - s->lost >= s->c->stale_ms) {
		s->stale = true;
		sy_log("no etcd for %u ms: stale", s->c->stale_ms);
	}
	if (!s->stale || s->withdrawn)
		return;
	if (s->silent_round && now > heard && now - heard >= s->c->stale_ms) {
		s->withdrawn = true;
		sy_log("no etcd host answered for %u ms: cut off from the fleet", s->c->stale_ms);
		run_command(s->c->on_stale, "stale");
	} else if (!s->silent_round && !s->said_held) {
		s->said_held = true;
		sy_log("every etcd host answers and none serves (%s): etcd is down for every LB, which all keep revision %lld; on-stale held",
		       s->e.err, (long long)s->applied);
	}
}

static void timers(struct sync *s, uint64_t now)
{
	watchdog(s);
	if (!s->connected && now >= s->next_retry) {
		int err = resync(s);

		if (err)
			disconnect(s, err, "connecting");
	}
	watchdog(s);
	if (s->connected && now >= s->next_keepalive)
		keepalive(s, now);
	watchdog(s);
	if (now >= s->next_status) {
		s->next_status = now + s->c->status_ms;
		if (s->connected && publish(s))
			disconnect(s, -EIO, "status");
		notify_status(s);
	}
	stale_check(s, now);
	watchdog(s);
}

static void loop(struct sync *s)
{
	uint64_t now, d;
	int timeout;

	while (!stop) {
		timers(s, now_ms());
		if (!s->ready) {
			/* Ready once the first attempt is done, with etcd or without. */
			sd_notify_send(&s->n, "READY=1");
			s->ready = true;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		now = now_ms();
		d = next_deadline(s);
		timeout = d > now ? (int)(d - now) : 0;
		if (timeout > POLL_MAX_MS)
			timeout = POLL_MAX_MS;
		if (s->watching)
			watch(s, timeout);
		else if (timeout)
			usleep(timeout * 1000);
	}
}

static int run(const struct fl_conf *c, bool dry_run)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sync s = { .c = c };
	int err;

	snprintf(s.config_key, sizeof(s.config_key), "%s/config", c->prefix);
	snprintf(s.health_key, sizeof(s.health_key), "%s/health/", c->prefix);
	err = sy_target_open(&s.t, dry_run);
	if (err)
		return err;
	err = etcd_open(&s.e, &c->etcd);
	if (!err)
		err = sd_notify_open(&s.n, getenv("NOTIFY_SOCKET"), getenv("WATCHDOG_USEC"),
				     getenv("WATCHDOG_PID"), getpid());
	if (err) {
		sy_target_close(&s.t);
		return cli_nl_error(err, NULL, "sync: starting");
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	srand(getpid() ^ time(NULL));
	sy_log("%s: watching %s as %s%s", c->etcd.endpoints[0], s.config_key, c->host,
	       dry_run ? " (dry-run: the kernel is not touched)" : "");
	loop(&s);
	sd_notify_send(&s.n, "STOPPING=1");
	/* The status goes at once: the fleet sees this host missing, not stale. */
	if (s.connected && etcd_lease_revoke(&s.e, s.lease))
		sy_log("revoking the lease: %s", s.e.err);
	if (s.watching)
		etcd_watch_stop(&s.w);
	if (s.hwatching)
		etcd_watch_stop(&s.hw);
	hkeys_free(&s);
	free(s.pending);
	etcd_close(&s.e);
	sd_notify_close(&s.n);
	sy_target_close(&s.t);
	sy_log("stopped; the kernel keeps revision %lld", (long long)s.applied);
	return 0;
}

void cmd_sync_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl sync run FILE [dry-run]\n"
"       ringctl sync check FILE\n"
"\n"
"The fleet agent: applies the configuration at PREFIX/config in etcd (the\n"
"format of 'save', without a key line) with restore's diff, each new\n"
"revision as it comes, and publishes this host's status under a lease.\n"
"A revision that does not parse or apply changes nothing; without etcd the\n"
"kernel keeps what it has. FILE is the fleet file (ringctl(8), FLEET FILE\n"
"FORMAT). 'check' only reads FILE. 'dry-run' touches no kernel: it prints\n"
"the requests each revision would send.\n");
}

int cmd_sync(int argc, char **argv)
{
	bool check = argc > 1 && !strcmp(argv[1], "check");
	bool dry_run = false;
	struct fl_conf c;
	int err;

	if (argc < 2 || (!check && strcmp(argv[1], "run"))) {
		cmd_sync_usage(stderr);
		return cli_error("sync: want 'run FILE' or 'check FILE'");
	}
	argc--;
	argv++;
	if (argc < 2)
		return cli_error("sync: missing the fleet file");
	if (argc > 2 && !strcmp(argv[2], "dry-run") && !check)
		dry_run = true;
	else if (argc > 2)
		return cli_error("sync: unexpected argument '%s'", argv[2]);
	if (argc > 3)
		return cli_error("sync: unexpected argument '%s'", argv[3]);
	err = fl_conf_read(argv[1], "sync", &c);
	if (err)
		return err;
	if (check) {
		printf("%s: %u endpoints, prefix %s, host %s, %s\n", argv[1], c.etcd.nendpoints,
		       c.prefix, c.host, c.has_key ? "key-file read" : "no key-file: the kernel's key");
		fl_conf_free(&c);
		return 0;
	}
	err = run(&c, dry_run);
	fl_conf_free(&c);
	return err;
}
