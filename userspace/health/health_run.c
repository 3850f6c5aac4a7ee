// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's loop: one epoll set with every probe in flight and a
 * signalfd, woken at the nearest deadline (a probe to start or to time
 * out, the next kernel read, the watchdog). The decisions are
 * health_fsm.c's; here they meet the kernel (health_kernel.c), the
 * probes (health_probe.c) and the service manager (health_notify.c).
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "health_run.h"
#include "health_fleet.h"
#include "health_kernel.h"
#include "health_probe.h"
#include "health_notify.h"
#include "sd_notify.h"

/* How often the kernel's view is read besides before each change. */
#define REFRESH_MS	1000
/* How long an on-quorum-* command may run. */
#define QUORUM_CMD_MS	60000
#define MAX_ACTIONS	64

/* A probe in flight, or a quorum command, as the epoll data. */
struct slot {
	struct hc_probe p;
	struct hc_target *t;	/* NULL for a quorum command */
	const struct hc_svc *s;	/* NULL for a self-check */
	const struct hc_be *b;
	int self;		/* index of the self-check, or -1 */
	struct hc_check qc;	/* a quorum command's "check" */
	struct slot *next;	/* quorum commands running */
	char env[6][RC_SERVICE_NAME_LEN + 24];
	char *envp[7];
};

struct run {
	struct hc_config *conf;
	struct hc_state st;
	struct hc_kernel k;
	struct sd_notify n;
	struct hc_fleet fleet;
	int ep, sigfd;
	uint64_t next_refresh, next_watchdog;
	bool view_ok, ready;
	struct slot *quorum;
	char status[256];
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t rnd(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)now_ms() * 2654435761U;
	return v;
}

/* "service 10.0.0.1:80 tcp backend 10.1.0.1:80" or "self-check 2". */
static const char *slot_name(char *buf, size_t len, const struct slot *sl)
{
	char name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN];

	if (!sl->s) {
		snprintf(buf, len, "self-check at line %u", sl->p.c ? sl->p.c->line : 0);
		return buf;
	}
	rc_service_name(name, &sl->s->conf->id);
	if (!sl->b) {
		snprintf(buf, len, "service %s", name);
		return buf;
	}
	rc_endpoint_format(be, &sl->b->ep);
	snprintf(buf, len, "service %s backend %s", name, be);
	return buf;
}

static void set_env(struct slot *sl, int i, const char *name, const char *v)
{
	snprintf(sl->env[i], sizeof(sl->env[i]), "%s=%s", name, v);
	sl->envp[i] = sl->env[i];
}

static void backend_env(struct slot *sl)
{
	char buf[RC_ENDPOINT_LEN];
	int i = 0;

	if (sl->s) {
		rc_endpoint_format(buf, &sl->s->conf->id.vip);
		set_env(sl, i++, "RINGSTEER_SERVICE", buf);
		set_env(sl, i++, "RINGSTEER_PROTO", rc_proto_name(sl->s->conf->id.proto));
	}
	if (sl->b) {
		rc_endpoint_format(buf, &sl->b->ep);
		set_env(sl, i++, "RINGSTEER_BACKEND", buf);
		rc_addr_format(buf, &sl->b->to);
		set_env(sl, i++, "RINGSTEER_ADDR", buf);
		snprintf(buf, sizeof(buf), "%u", sl->b->to.port);
		set_env(sl, i++, "RINGSTEER_PORT", buf);
	}
	sl->envp[i] = NULL;
}

static void finish(struct run *r, struct slot *sl, int res, uint64_t now)
{
	char name[160];

	if (!sl->t) {
		if (res == HC_PROBE_FAIL)
			hc_log("%s: %s command failed: %s", slot_name(name, sizeof(name), sl),
			       sl->qc.command, sl->p.why);
		return;
	}
	hc_result(sl->t, res == HC_PROBE_OK, sl->p.why, now);
	sl->t->probe = NULL;
	(void)r;
}

static void drop_quorum(struct run *r, struct slot *sl)
{
	struct slot **pp;

	for (pp = &r->quorum; *pp; pp = &(*pp)->next)
		if (*pp == sl) {
			*pp = sl->next;
			break;
		}
	free(sl);
}

/* Start SL's probe; a result at once (it could not start) is recorded. */
static void launch(struct run *r, struct slot *sl, const struct rc_endpoint *to,
		   uint64_t now)
{
	struct epoll_event ev = { .data.ptr = sl };
	const struct hc_check *c = sl->t ? sl->p.c : &sl->qc;
	int res = hc_probe_start(&sl->p, c, to, sl->envp, now);

	if (res == HC_PROBE_PENDING) {
		ev.events = sl->p.events;
		if (!epoll_ctl(r->ep, EPOLL_CTL_ADD, sl->p.fd, &ev)) {
			sl->p.epfd = r->ep;
			return;
		}
		snprintf(sl->p.why, sizeof(sl->p.why), "epoll: %s", strerror(errno));
		hc_probe_cancel(&sl->p);
		res = HC_PROBE_FAIL;
	}
	finish(r, sl, res, now);
	if (sl->t)
		free(sl);
	else
		drop_quorum(r, sl);
}

static void start_probe(struct run *r, struct hc_target *t, const struct hc_check *c,
			const struct hc_svc *s, const struct hc_be *b, int self,
			const struct rc_endpoint *to, uint64_t now)
{
	struct slot *sl = calloc(1, sizeof(*sl));

	t->next_ms = hc_next_probe(c, now, rnd());
	if (!sl) {
		hc_result(t, false, "out of memory", now);
		return;
	}
	sl->t = t;
	sl->s = s;
	sl->b = b;
	sl->self = self;
	sl->p.c = c;
	backend_env(sl);
	t->probe = sl;
	launch(r, sl, to, now);
}

static void run_quorum_cmd(struct run *r, const struct hc_svc *s, bool loss, uint64_t now)
{
	const char *cmd = loss ? s->conf->on_loss : s->conf->on_gain;
	struct slot *sl;

	if (!cmd)
		return;
	sl = calloc(1, sizeof(*sl));
	if (!sl) {
		hc_log("out of memory running %s", cmd);
		return;
	}
	sl->s = s;
	sl->self = -1;
	sl->qc.kind = HC_EXEC;
	sl->qc.timeout_ms = QUORUM_CMD_MS;
	sl->qc.command = (char *)cmd;
	sl->qc.line = s->conf->line;
	backend_env(sl);
	/* Two slots are free after the service's variables. */
	set_env(sl, 2, "RINGSTEER_EVENT", loss ? "quorum-loss" : "quorum-gain");
	sl->envp[3] = NULL;
	sl->next = r->quorum;
	r->quorum = sl;
	launch(r, sl, NULL, now);
}

static void gone_target(struct hc_target *t)
{
	struct slot *sl = t->probe;

	if (!sl)
		return;
	hc_probe_cancel(&sl->p);
	free(sl);
	t->probe = NULL;
}

static void gone(struct hc_be *b, void *data)
{
	(void)data;
	gone_target(&b->t);
}

static void refresh(struct run *r, uint64_t now)
{
	int err = hc_kernel_read(&r->k, &r->st, now, gone, r);

	r->next_refresh = now + REFRESH_MS;
	if (err && r->view_ok)
		hc_log("reading the kernel's configuration: %s%s%s (no change until it works)",
		       strerror(-err), *r->k.nl.ext_msg ? ": " : "", r->k.nl.ext_msg);
	r->view_ok = !err;
	if (!err)
		hc_log_presence(&r->st);
}

static void start_due(struct run *r, uint64_t now)
{
	const struct hc_config *conf = r->conf;
	uint32_t i, k;

	for (i = 0; i < conf->nself; i++)
		if (!r->st.self[i].probe && r->st.self[i].next_ms <= now)
			start_probe(r, &r->st.self[i], &conf->self[i].check, NULL, NULL, i,
				    &conf->self[i].target, now);
	for (i = 0; i < conf->ns; i++) {
		struct hc_svc *s = &r->st.s[i];

		for (k = 0; k < s->nb; k++) {
			struct hc_be *b = s->b[k];

			if (!b->t.probe && b->t.next_ms <= now)
				start_probe(r, &b->t, &conf->s[i].check, s, b, -1, &b->to, now);
		}
	}
}

static void expire(struct run *r, struct slot *sl, uint64_t now)
{
	if (!sl || sl->p.deadline > now)
		return;
	hc_probe_cancel(&sl->p);
	snprintf(sl->p.why, sizeof(sl->p.why), "no answer within %ums",
		 sl->p.c ? sl->p.c->timeout_ms : sl->qc.timeout_ms);
	finish(r, sl, HC_PROBE_FAIL, now);
	if (sl->t)
		free(sl);
	else
		drop_quorum(r, sl);
}

static void expire_all(struct run *r, uint64_t now)
{
	struct slot *q, *next;
	uint32_t i, k;

	for (i = 0; i < r->conf->nself; i++)
		expire(r, r->st.self[i].probe, now);
	for (i = 0; i < r->conf->ns; i++)
		for (k = 0; k < r->st.s[i].nb; k++)
			expire(r, r->st.s[i].b[k]->t.probe, now);
	for (q = r->quorum; q; q = next) {
		next = q->next;
		expire(r, q, now);
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t target_deadline(const struct hc_target *t)
{
	return t->probe ? ((struct slot *)t->probe)->p.deadline : t->next_ms;
}

static uint64_t min_deadline(struct run *r)
{
	uint64_t d = r->next_refresh;
	struct slot *q;
	uint32_t i, k;

	if (r->n.watchdog_ms)
		d = min_u64(d, r->next_watchdog);
	if (r->fleet.on)
		d = min_u64(d, r->fleet.next_ms);
	for (i = 0; i < r->conf->nself; i++)
		d = min_u64(d, target_deadline(&r->st.self[i]));
	for (i = 0; i < r->conf->ns; i++)
		for (k = 0; k < r->st.s[i].nb; k++)
			d = min_u64(d, target_deadline(&r->st.s[i].b[k]->t));
	for (q = r->quorum; q; q = q->next)
		d = min_u64(d, q->p.deadline);
	return d;
}

static void on_event(struct run *r, struct slot *sl, uint32_t events, uint64_t now)
{
	struct epoll_event ev = { .data.ptr = sl };
	uint32_t before = sl->p.events;
	int res = hc_probe_event(&sl->p, events);

	if (res == HC_PROBE_PENDING) {
		ev.events = sl->p.events;
		if (before != sl->p.events)
			epoll_ctl(r->ep, EPOLL_CTL_MOD, sl->p.fd, &ev);
		return;
	}
	finish(r, sl, res, now);
	if (sl->t)
		free(sl);
	else
		drop_quorum(r, sl);
}

static void do_actions(struct run *r, struct hc_action *a, int n, bool quorum,
		       uint64_t now)
{
	char name[RC_SERVICE_NAME_LEN];
	int k;

	for (k = 0; k < n; k++) {
		bool loss = a[k].act == HC_ACT_QUORUM_LOSS;

		if (a[k].act == HC_ACT_DOWN || a[k].act == HC_ACT_UP) {
			/* Voting in etcd: the agents apply the fleet's verdict. */
			if (!quorum && !hc_fleet_connected(&r->fleet))
				hc_kernel_apply(&r->k, &a[k], now);
			continue;
		}
		if (!quorum)
			continue;
		hc_log("service %s: quorum %s", rc_service_name(name, &a[k].s->conf->id),
		       loss ? "lost: a guard keeps failing backends up" : "regained");
		run_quorum_cmd(r, a[k].s, loss, now);
	}
}

static bool has_change(const struct hc_action *a, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (a[k].act == HC_ACT_DOWN || a[k].act == HC_ACT_UP)
			return true;
	return false;
}

/* Changes wanted and not made, once each time they start. */
static void log_refusals(const struct hc_svc *s)
{
	char name[RC_SERVICE_NAME_LEN], be[RC_ENDPOINT_LEN];
	uint32_t i;

	for (i = 0; i < s->nb; i++) {
		struct hc_be *b = s->b[i];

		rc_service_name(name, &s->conf->id);
		rc_endpoint_format(be, &b->ep);
		if (b->blocked && !b->said_blocked)
			hc_log("service %s backend %s: kept up after %u failed probes (%s): max-down %u%% or the last one",
			       name, be, b->t.fail_streak, b->t.why, s->conf->max_down_pct);
		if (b->held && !b->said_held)
			hc_log("service %s backend %s: %s held: a self-check fails", name, be,
			       b->health == RINGSTEER_HEALTH_UP ? "down" : "up");
		b->said_blocked = b->blocked;
		b->said_held = b->held;
	}
}

/* Decide; if a change is due, read the kernel again and decide on that. */
static void act(struct run *r, uint64_t now)
{
	struct hc_action a[MAX_ACTIONS];
	uint32_t i;
	int n;

	for (i = 0; i < r->conf->ns && r->view_ok; i++) {
		struct hc_svc *s = &r->st.s[i];

		n = hc_decide(&r->st, s, now, a, MAX_ACTIONS);
		log_refusals(s);
		do_actions(r, a, n, true, now);
		if (!has_change(a, n))
			continue;
		/* Changes go on the kernel's latest word, not a second-old one. */
		if (r->next_refresh != now + REFRESH_MS) {
			refresh(r, now);
			if (!r->view_ok)
				return;
			n = hc_decide(&r->st, s, now, a, MAX_ACTIONS);
			do_actions(r, a, n, true, now);
		}
		do_actions(r, a, n, false, now);
	}
}

static void status(struct run *r)
{
	char text[256], msg[300];

	hc_status_text(text, sizeof(text), &r->st, r->view_ok);
	if (!strcmp(text, r->status))
		return;
	strcpy(r->status, text);
	sd_notify_status(msg, sizeof(msg), text);
	sd_notify_send(&r->n, msg);
}

static int setup(struct run *r)
{
	sigset_t set;
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->sigfd < 0 || r->ep < 0 || epoll_ctl(r->ep, EPOLL_CTL_ADD, r->sigfd, &ev))
		return cli_error("health: %s", strerror(errno));
	err = sd_notify_open(&r->n, getenv("NOTIFY_SOCKET"), getenv("WATCHDOG_USEC"),
			     getenv("WATCHDOG_PID"), getpid());
	if (err)
		hc_log("NOTIFY_SOCKET: %s (not telling the service manager)", strerror(-err));
	return 0;
}

/* A signal: true to stop. */
static bool on_signal(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			hc_log("SIGHUP ignored: restart the checker to read its file again");
			continue;
		}
		return true;
	}
	return false;
}

static void teardown(struct run *r)
{
	uint32_t i, k;

	/* The kernel stays as it is: a stopped checker changes nothing. */
	for (i = 0; i < r->conf->nself; i++)
		gone_target(&r->st.self[i]);
	for (i = 0; i < r->conf->ns; i++)
		for (k = 0; k < r->st.s[i].nb; k++)
			gone(r->st.s[i].b[k], r);
	while (r->quorum)
		drop_quorum(r, r->quorum);
	sd_notify_send(&r->n, "STOPPING=1");
	sd_notify_close(&r->n);
	close(r->ep);
	close(r->sigfd);
}

static int loop(struct run *r)
{
	struct epoll_event evs[64];
	uint64_t now, d;
	int i, n;

	for (;;) {
		now = now_ms();
		expire_all(r, now);
		if (now >= r->next_refresh)
			refresh(r, now);
		start_due(r, now);
		if (hc_update(&r->st))
			hc_log("every backend probed enough times: acting on results from now on");
		hc_fleet_tick(&r->fleet, &r->st, now);
		act(r, now);
		if (r->st.started && !r->ready) {
			r->ready = true;
			sd_notify_send(&r->n, "READY=1");
		}
		if (r->n.watchdog_ms && now >= r->next_watchdog) {
			sd_notify_send(&r->n, "WATCHDOG=1");
			r->next_watchdog = now + r->n.watchdog_ms / 2;
		}
		status(r);
		d = min_deadline(r);
		n = epoll_wait(r->ep, evs, 64, d > now ? (int)(d - now) : 0);
		if (n < 0 && errno != EINTR)
			return cli_error("health: epoll_wait: %s", strerror(errno));
		now = now_ms();
		for (i = 0; i < n; i++) {
			if (!evs[i].data.ptr) {
				if (on_signal(r))
					return 0;
				continue;
			}
			on_event(r, evs[i].data.ptr, evs[i].events, now);
		}
	}
}

int hc_run_start(const struct hc_state *st)
{
	uint32_t ns = st->conf->ns, missing = hc_missing(st);

	/*
	 * Some missing is boot ordering or a service on its way, picked up
	 * when it appears; all of them is a wrong file or namespace, and a
	 * checker that checks nothing must not look like one that works.
	 */
	if (missing == ns) {
		cli_error("health run: none of the file's %u services is in the kernel (ringctl show lists those it has): nothing to check",
			  ns);
		return -ENOENT;
	}
	if (missing)
		hc_log("checking %u of %u services from the kernel's health as it is; %u not in the kernel, checked once they appear",
		       ns - missing, ns, missing);
	else
		hc_log("checking %u services from the kernel's health as it is", ns);
	return 0;
}

int hc_run(struct hc_config *conf)
{
	struct run r = { .conf = conf };
	int err;

	err = hc_state_init(&r.st, conf);
	if (err)
		return cli_error("health: out of memory");
	err = hc_kernel_open(&r.k, &r.st);
	if (!err)
		err = hc_fleet_open(&r.fleet, conf->fleet);
	if (!err)
		err = setup(&r);
	if (!err) {
		refresh(&r, now_ms());
		if (!r.view_ok)
			err = -EIO;
	}
	if (!err)
		err = hc_run_start(&r.st);
	if (!err) {
		err = loop(&r);
		teardown(&r);
	}
	hc_fleet_close(&r.fleet);
	hc_kernel_close(&r.k);
	hc_state_free(&r.st);
	return err;
}
