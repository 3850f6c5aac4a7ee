// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl monitor: print configuration changes as the kernel announces
 * them (uapi "Notifications"), like "ip monitor" or "nft monitor". Each
 * text line is a ringctl command that would make the same change.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"
#include "monitor_drainwatch.h"
#include "pace.h"
#include "print.h"

struct monitor {
	uint32_t left;		/* events still to print; 0: no limit */
	bool stop;		/* the last of them is printed */
	int err;		/* of the drain watch, from a callback */
	struct cmd_drainwatch watch;
};

void cmd_monitor_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl monitor [-j] [count N]\n"
"\n"
"Prints every change made to services, backends and the key of this\n"
"network namespace, by anyone, as it happens: one line per change, in the\n"
"form of the ringctl command that makes it ('key set' without the key,\n"
"which is never announced). With -j, one JSON object per line. 'count N'\n"
"exits after N changes.\n"
"\n"
"It also prints 'drained VIP BACKEND proto P' when a draining backend's\n"
"last connection has ended (counted as in 'show', by the kernel, once\n"
"one of the backend's connections ends, at most once a second; every\n"
"10 s for connections conntrack announces no end of). A backend already\n"
"drained when monitor starts is not reported.\n");
}

static const char *const verbs[] = {
	[RINGSTEER_CMD_SERVICE_NEW] = "service add",
	[RINGSTEER_CMD_SERVICE_SET] = "service set",
	[RINGSTEER_CMD_SERVICE_DEL] = "service del",
	[RINGSTEER_CMD_BACKEND_NEW] = "backend add",
	[RINGSTEER_CMD_BACKEND_SET] = "backend set",
	[RINGSTEER_CMD_BACKEND_DEL] = "backend del",
	[RINGSTEER_CMD_KEY_SET] = "key set",
	[RINGSTEER_CMD_FLUSH] = "flush",
	[RINGSTEER_CMD_CHAIN_SET] = "backend-mode set",
	[RINGSTEER_CMD_CHAIN_DEL] = "backend-mode off",
};

static void print_text(FILE *f, const struct rc_event *ev, const char *verb)
{
	char vip[RC_ENDPOINT_LEN], be[RC_ENDPOINT_LEN];
	unsigned int how = PRINT_SET_PRESENT;

	if (ev->cmd == RINGSTEER_CMD_SERVICE_SET || ev->cmd == RINGSTEER_CMD_BACKEND_SET)
		how |= PRINT_SET_SETS;
	fputs(verb, f);
	if (ev->has_service) {
		rc_endpoint_format(vip, &ev->s.vip);
		fprintf(f, " %s", vip);
	}
	if (ev->has_backend) {
		rc_endpoint_format(be, &ev->b.ep);
		fprintf(f, " %s", be);
	}
	if (ev->has_service)
		fprintf(f, " proto %s", rc_proto_name(ev->s.proto));
	/*
	 * As save writes them, but that a set's line names every setting
	 * the set takes, so that replaying it undoes an own on-down too.
	 * The kernel announces a backend's settings with its delete too.
	 */
	print_settings_text(f, RC_OBJ_SERVICE, &ev->s, how);
	if (ev->has_backend && ev->cmd != RINGSTEER_CMD_BACKEND_DEL)
		print_settings_text(f, RC_OBJ_BACKEND, &ev->b, how);
	fputc('\n', f);
}

static void print_json(struct json *j, const struct rc_event *ev,
		       const char *verb)
{
	char addr[RC_ADDR_LEN], event[32];
	size_t i;

	snprintf(event, sizeof(event), "%s", verb);
	for (i = 0; event[i]; i++)
		if (event[i] == ' ')
			event[i] = '-';
	json_obj_begin(j, NULL);
	json_str(j, "event", event);
	if (ev->has_service) {
		json_obj_begin(j, "service");
		print_service_id_json(j, &ev->s, true);
		print_settings_json(j, RC_OBJ_SERVICE, &ev->s, PRINT_SET_PRESENT);
		json_obj_end(j);
	}
	if (ev->has_backend) {
		json_obj_begin(j, "backend");
		rc_addr_format(addr, &ev->b.ep);
		json_str(j, "addr", addr);
		json_u64(j, "port", ev->b.ep.port);
		print_settings_json(j, RC_OBJ_BACKEND, &ev->b, PRINT_SET_PRESENT);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_finish(j);
}

void cmd_monitor_print(FILE *f, const struct rc_event *ev, const char *verb)
{
	struct json j;

	if (!cli_json) {
		print_text(f, ev, verb);
		return;
	}
	json_init(&j, f);
	print_json(&j, ev, verb);
}

/* After each line: flush it, and count it against "count N". */
static int printed(struct monitor *m)
{
	/* Whoever reads us may be waiting for this very line. */
	if (fflush(stdout) == EOF)
		return MNL_CB_ERROR;
	if (m->left && !--m->left) {
		m->stop = true;
		return MNL_CB_STOP;
	}
	return MNL_CB_OK;
}

static void drained_cb(const struct rc_service *s, const struct rc_backend *b,
		       void *data)
{
	struct rc_event ev = { .has_service = true, .has_backend = true };
	struct monitor *m = data;

	if (m->stop)
		return;
	ev.s = *s;
	ev.b.ep = b->ep;
	cmd_monitor_print(stdout, &ev, "drained");
	if (printed(m) == MNL_CB_ERROR)
		m->err = -errno;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct monitor *m = data;
	struct rc_event ev;
	int ret;

	ret = nl_event_parse(nlh, &ev);
	if (!ret && (ev.cmd >= sizeof(verbs) / sizeof(verbs[0]) || !verbs[ev.cmd])) {
		nl_event_free(&ev);
		ret = -EPROTO;
	}
	if (ret) {
		cli_error("monitor: ignoring a notification this ringctl does not understand");
		return MNL_CB_OK;
	}
	cmd_monitor_print(stdout, &ev, verbs[ev.cmd]);
	ret = printed(m);
	if (ret == MNL_CB_OK)
		m->err = cmd_drainwatch_event(&m->watch, &ev, drained_cb, m);
	nl_event_free(&ev);
	return m->err ? MNL_CB_ERROR : m->stop ? MNL_CB_STOP : ret;
}

/*
 * Connection ends come from ctnetlink; without them (no CAP_NET_ADMIN, no
 * ctnetlink, or events switched off) draining backends are counted once a
 * second instead.
 */
static bool open_ct(struct nl_ct *ct)
{
	FILE *f = fopen("/proc/sys/net/netfilter/nf_conntrack_events", "r");
	const char *why = "no conntrack events here";
	int events = 2;

	/* No such file: a kernel without CONFIG_NF_CONNTRACK_EVENTS. */
	if (!f) {
		why = "this kernel has no conntrack events";
		events = 0;
	} else {
		if (fscanf(f, "%d", &events) != 1)
			events = 2;
		fclose(f);
		if (!events)
			why = "net.netfilter.nf_conntrack_events is 0";
	}
	if (events && !nl_ct_open(ct))
		return true;
	fprintf(stderr, "ringctl: monitor: %s; draining backends are counted once a second\n",
		why);
	return false;
}

static int watch(struct monitor *m, struct nl_conn *nl, struct nl_ct *ct)
{
	struct pollfd fds[2] = {
		{ .fd = mnl_socket_get_fd(nl->sock), .events = POLLIN },
		{ .fd = ct->sock ? nl_ct_fd(ct) : -1, .events = POLLIN },
	};
	int err;

	while (!m->stop && !m->err) {
		if (poll(fds, 2, cmd_drainwatch_timeout(&m->watch, pace_monotonic())) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (fds[0].revents) {
			err = nl_read_events(nl, event_cb, m);
			if (m->err || err <= 0)
				return m->err ?: err;
		}
		if (fds[1].revents) {
			err = nl_ct_read(ct, cmd_drainwatch_ended, &m->watch);
			if (err == -ENOBUFS)
				cmd_drainwatch_lost(&m->watch);
			else if (err)
				return err;
		}
		err = cmd_drainwatch_count(&m->watch, pace_monotonic(), drained_cb, m);
		if (err)
			return err;
	}
	return m->err;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor m = { 0 };
	struct nl_conn nl, query;
	struct nl_ct ct = { 0 };
	struct parse_args a;
	int err;

	err = parse_keywords("monitor", argc - 1, argv + 1,
			     PARSE_KW_COUNT | PARSE_KW_JSON, &a);
	if (err)
		return err;
	m.left = a.count;
	err = cli_nl_open(&nl);
	if (err)
		return err;
	/* Joined first: a change after the initial read is announced. */
	err = nl_join(&nl);
	if (err) {
		nl_close(&nl);
		if (err == -EOPNOTSUPP)
			return cli_error("monitor: this ringsteer module announces no changes");
		return cli_nl_error(err, "", "monitor");
	}
	err = cli_nl_open(&query);
	if (err) {
		nl_close(&nl);
		return err;
	}
	err = cmd_drainwatch_init(&m.watch, &query, !open_ct(&ct));
	if (!err)
		err = watch(&m, &nl, &ct);
	cmd_drainwatch_free(&m.watch);
	nl_ct_close(&ct);
	nl_close(&query);
	nl_close(&nl);
	return err ? cli_nl_error(err, query.ext_msg, "monitor") : 0;
}
