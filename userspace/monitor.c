// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl monitor: print configuration changes as the kernel announces
 * them (uapi "Notifications"), like "ip monitor" or "nft monitor". Each
 * text line is a ringctl command that would make the same change.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

struct monitor {
	uint32_t left;		/* events still to print; 0: no limit */
	struct json j;
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
"exits after N changes.\n");
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
};

static void print_text(const struct rc_event *ev, const char *verb)
{
	char vip[RC_ENDPOINT_LEN], be[RC_ENDPOINT_LEN];

	fputs(verb, stdout);
	if (ev->has_service) {
		rc_endpoint_format(vip, &ev->s.vip);
		printf(" %s", vip);
	}
	if (ev->has_backend) {
		rc_endpoint_format(be, &ev->b.ep);
		printf(" %s", be);
	}
	if (ev->has_service)
		printf(" proto %s", rc_proto_name(ev->s.proto));
	if (ev->s.has & RC_HAS_VNODES)
		printf(" vnodes %u hash %s", ev->s.vnodes, rc_hash_name(ev->s.hash));
	if (ev->has_backend && ev->cmd != RINGSTEER_CMD_BACKEND_DEL)
		printf(" weight %u state %s", ev->b.weight,
		       rc_state_name(ev->b.state));
	putchar('\n');
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
		rc_addr_format(addr, &ev->s.vip);
		json_str(j, "family", rc_family_name(ev->s.vip.family));
		json_str(j, "vip", addr);
		json_u64(j, "port", ev->s.vip.port);
		json_str(j, "proto", rc_proto_name(ev->s.proto));
		if (ev->s.has & RC_HAS_VNODES) {
			json_u64(j, "vnodes", ev->s.vnodes);
			json_str(j, "hash", rc_hash_name(ev->s.hash));
		}
		json_obj_end(j);
	}
	if (ev->has_backend) {
		json_obj_begin(j, "backend");
		rc_addr_format(addr, &ev->b.ep);
		json_str(j, "addr", addr);
		json_u64(j, "port", ev->b.ep.port);
		json_u64(j, "weight", ev->b.weight);
		json_str(j, "state", rc_state_name(ev->b.state));
		json_obj_end(j);
	}
	json_obj_end(j);
	json_finish(j);
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct monitor *m = data;
	struct rc_event ev;

	if (nl_event_parse(nlh, &ev) || ev.cmd >= sizeof(verbs) / sizeof(verbs[0]) ||
	    !verbs[ev.cmd]) {
		cli_error("monitor: ignoring a notification this ringctl does not understand");
		return MNL_CB_OK;
	}
	if (cli_json)
		print_json(&m->j, &ev, verbs[ev.cmd]);
	else
		print_text(&ev, verbs[ev.cmd]);
	/* Whoever reads us may be waiting for this very line. */
	if (fflush(stdout) == EOF)
		return MNL_CB_ERROR;
	if (m->left && !--m->left)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor m = { 0 };
	struct parse_args a;
	struct nl_conn nl;
	int err;

	err = parse_keywords("monitor", argc - 1, argv + 1,
			     PARSE_KW_COUNT | PARSE_KW_JSON, &a);
	if (err)
		return err;
	m.left = a.count;
	json_init(&m.j, stdout);
	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_listen(&nl, event_cb, &m);
	nl_close(&nl);
	if (err == -EOPNOTSUPP)
		return cli_error("monitor: this ringsteer module announces no changes");
	if (err)
		return cli_nl_error(err, "", "monitor");
	return 0;
}
