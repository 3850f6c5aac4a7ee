// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl show rate [INTERVAL]: new flows per second per service and
 * backend, from two readings of the counters INTERVAL seconds apart, as
 * "ipvsadm --rate" shows them.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"
#include "print.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sample(struct rc_config *c, double *t)
{
	struct nl_conn nl;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, c, NULL, false);
	*t = now();
	if (err)
		cli_nl_error(err, nl.ext_msg, "show rate");
	nl_close(&nl);
	return err ? -1 : 0;
}

/* Counters start at 0 when a service or backend is added. */
static double rate(uint64_t then, uint64_t now_v, bool had, double dt)
{
	return ((double)now_v - (had ? (double)then : 0)) / dt;
}

static void print_text(struct rc_config *a, const struct rc_config *b, double dt)
{
	char ep[RC_ENDPOINT_LEN];
	uint32_t i, k;

	printf("Prot %-21s %12s %12s\n", "VIP:Port", "NewFlows/s", "NoBackend/s");
	printf("  -> %-21s %12s\n", "Backend:Port", "NewFlows/s");
	for (i = 0; i < b->ns; i++) {
		const struct rc_service *s = &b->s[i];
		struct rc_service *old = rc_config_find_service(a, s);

		rc_endpoint_format(ep, &s->vip);
		printf("%-4s %-21s %12.1f %12.1f\n", s->proto == IPPROTO_UDP ? "UDP" : "TCP",
		       ep, rate(old ? old->flows : 0, s->flows, old, dt),
		       rate(old ? old->no_backend : 0, s->no_backend, old, dt));
		for (k = 0; k < s->nb; k++) {
			struct rc_backend *ob = old ? rc_service_find_backend(old, &s->b[k].ep) : NULL;

			rc_endpoint_format(ep, &s->b[k].ep);
			printf("  -> %-21s %12.1f\n", ep,
			       rate(ob ? ob->flows : 0, s->b[k].flows, ob, dt));
		}
	}
}

static void print_json(struct rc_config *a, const struct rc_config *b, double dt)
{
	char addr[RC_ADDR_LEN];
	struct json j;
	uint32_t i, k;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_double(&j, "interval", dt);
	json_arr_begin(&j, "services");
	for (i = 0; i < b->ns; i++) {
		const struct rc_service *s = &b->s[i];
		struct rc_service *old = rc_config_find_service(a, s);

		json_obj_begin(&j, NULL);
		print_service_id_json(&j, s, false);
		json_double(&j, "flows_per_second",
			    rate(old ? old->flows : 0, s->flows, old, dt));
		json_double(&j, "no_backend_per_second",
			    rate(old ? old->no_backend : 0, s->no_backend, old, dt));
		json_arr_begin(&j, "backends");
		for (k = 0; k < s->nb; k++) {
			struct rc_backend *ob = old ? rc_service_find_backend(old, &s->b[k].ep) : NULL;

			json_obj_begin(&j, NULL);
			rc_addr_format(addr, &s->b[k].ep);
			json_str(&j, "addr", addr);
			json_u64(&j, "port", s->b[k].ep.port);
			json_double(&j, "flows_per_second",
				    rate(ob ? ob->flows : 0, s->b[k].flows, ob, dt));
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

void cmd_show_rate_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl show rate [-j] [INTERVAL]   (also: show --rate)\n"
"\n"
"Shows new flows per second per service and backend over INTERVAL seconds\n"
"(default 1), from two readings of the counters.\n");
}

int cmd_show_rate(int argc, char **argv)
{
	struct rc_config a, b;
	uint32_t interval = 1;
	struct timespec ts;
	double ta, tb;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			cmd_show_rate_usage(stdout);
			return 0;
		}
		if (cli_is_json(argv[i]))
			cli_json = true;
		else if (parse_u32(argv[i], 1, 3600, &interval))
			return cli_error("show rate: bad interval '%s' (want 1..3600 seconds)",
				      argv[i]);
	}
	err = sample(&a, &ta);
	if (err)
		return err;
	ts.tv_sec = interval;
	ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	err = sample(&b, &tb);
	if (err) {
		rc_config_free(&a);
		return err;
	}
	if (cli_json)
		print_json(&a, &b, tb - ta);
	else
		print_text(&a, &b, tb - ta);
	rc_config_free(&a);
	rc_config_free(&b);
	return 0;
}
