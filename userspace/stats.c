// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl stats --prometheus, and "show rate": the counters as a
 * monitoring system wants them. Metric names follow node_exporter's ipvs
 * collector where one exists (new flows as counters, connections now as a
 * gauge with a state label).
 */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "nl_ops.h"
#include "print.h"
#include "stats.h"

void cmd_stats_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl stats [--prometheus]\n"
"\n"
"Prints every service's and backend's counters, gauges and settings in\n"
"the Prometheus text format (the only format so far), for example for\n"
"node_exporter's textfile collector: see ringctl(8), STATISTICS.\n");
}

const char *rc_prom_escape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	for (; *src; src++) {
		const char *rep = *src == '\\' ? "\\\\" : *src == '"' ? "\\\"" :
				  *src == '\n' ? "\\n" : NULL;
		size_t n = rep ? 2 : 1;

		if (o + n >= len)
			break;
		if (rep)
			memcpy(dst + o, rep, 2);
		else
			dst[o] = *src;
		o += n;
	}
	if (len)
		dst[o] = '\0';
	return dst;
}

#define LABELS_LEN 256
#define BE_LABELS_LEN (2 * LABELS_LEN)

static void service_labels(char *buf, const struct rc_service *s)
{
	char addr[RC_ADDR_LEN], esc[2 * RC_ADDR_LEN];

	rc_addr_format(addr, &s->vip);
	snprintf(buf, LABELS_LEN, "vip=\"%s\",port=\"%u\",proto=\"%s\"",
		 rc_prom_escape(esc, sizeof(esc), addr), s->vip.port,
		 rc_proto_name(s->proto));
}

static void backend_labels(char *buf, const struct rc_service *s,
			   const struct rc_backend *b)
{
	char svc[LABELS_LEN], ep[RC_ENDPOINT_LEN], esc[2 * RC_ENDPOINT_LEN];

	service_labels(svc, s);
	rc_endpoint_format(ep, &b->ep);
	snprintf(buf, BE_LABELS_LEN, "%s,backend=\"%s\"", svc,
		 rc_prom_escape(esc, sizeof(esc), ep));
}

enum value {
	V_SVC_FLOWS, V_SVC_NO_BACKEND, V_SVC_POINTS, V_SVC_BACKENDS, V_SVC_ACTIVE,
	V_BE_FLOWS, V_BE_CONNS, V_BE_WEIGHT, V_BE_ACTIVE, V_BE_SHARE,
};

static const struct metric {
	const char *name, *type, *help;
	enum value v;
	bool backend;
} metrics[] = {
	{ "ringsteer_service_new_flows_total", "counter",
	  "New flows steered to a backend.", V_SVC_FLOWS, false },
	{ "ringsteer_service_no_backend_total", "counter",
	  "New flows dropped because no backend was active.", V_SVC_NO_BACKEND, false },
	{ "ringsteer_service_ring_points", "gauge",
	  "Points of the service's ring.", V_SVC_POINTS, false },
	{ "ringsteer_service_backends", "gauge",
	  "Backends configured.", V_SVC_BACKENDS, false },
	{ "ringsteer_service_backends_active", "gauge",
	  "Backends owning points (not draining).", V_SVC_ACTIVE, false },
	{ "ringsteer_backend_new_flows_total", "counter",
	  "New flows steered to the backend.", V_BE_FLOWS, true },
	{ "ringsteer_backend_connections", "gauge",
	  "Connection tracking entries DNATed to the backend now, TCP established or other.",
	  V_BE_CONNS, true },
	{ "ringsteer_backend_weight", "gauge", "Weight of the backend.", V_BE_WEIGHT, true },
	{ "ringsteer_backend_active", "gauge",
	  "1 if the backend takes new flows, 0 if draining.", V_BE_ACTIVE, true },
	{ "ringsteer_backend_share", "gauge",
	  "Fraction of the hash space the backend owns.", V_BE_SHARE, true },
};

static unsigned long long svc_value(const struct rc_service *s, enum value v)
{
	switch (v) {
	case V_SVC_FLOWS:
		return s->flows;
	case V_SVC_NO_BACKEND:
		return s->no_backend;
	case V_SVC_POINTS:
		return s->points;
	case V_SVC_BACKENDS:
		return s->nconfigured;
	default:
		return s->nactive;
	}
}

static void print_backend(FILE *f, const struct metric *m, const struct rc_service *s,
			  const struct rc_backend *b)
{
	char l[BE_LABELS_LEN];

	backend_labels(l, s, b);
	switch (m->v) {
	case V_BE_FLOWS:
		fprintf(f, "%s{%s} %llu\n", m->name, l, (unsigned long long)b->flows);
		break;
	case V_BE_CONNS:
		if (!b->has_conns)
			break;
		fprintf(f, "%s{%s,state=\"established\"} %llu\n", m->name, l,
			(unsigned long long)b->conns_established);
		fprintf(f, "%s{%s,state=\"other\"} %llu\n", m->name, l,
			(unsigned long long)b->conns_other);
		break;
	case V_BE_WEIGHT:
		fprintf(f, "%s{%s} %u\n", m->name, l, b->weight);
		break;
	case V_BE_ACTIVE:
		fprintf(f, "%s{%s} %d\n", m->name, l, b->state == RINGSTEER_STATE_ACTIVE);
		break;
	default:
		fprintf(f, "%s{%s} %.12g\n", m->name, l, print_share(b->share));
		break;
	}
}

void rc_prom_print(FILE *f, const struct rc_config *c)
{
	char l[LABELS_LEN];
	uint32_t i, k;
	size_t n;

	if (c->conns_unavailable)
		fprintf(f, "# ringsteer_backend_connections: not counted (%s)\n",
			c->conns_unavailable);
	/* All samples of a metric stay together, as the format requires. */
	for (n = 0; n < sizeof(metrics) / sizeof(metrics[0]); n++) {
		const struct metric *m = &metrics[n];

		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
			m->type);
		for (i = 0; i < c->ns; i++) {
			const struct rc_service *s = &c->s[i];

			if (!m->backend) {
				service_labels(l, s);
				fprintf(f, "%s{%s} %llu\n", m->name, l, svc_value(s, m->v));
				continue;
			}
			for (k = 0; k < s->nb; k++)
				print_backend(f, m, s, &s->b[k]);
		}
	}
}

static int read_config(struct rc_config *c, bool conns)
{
	struct nl_conn nl;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, c, NULL, false);
	if (!err && conns) {
		err = nl_config_conns(&nl, c);
		/* Without CAP_NET_ADMIN: every metric but the counts. */
		if (err == -EPERM) {
			c->conns_unavailable = "counting connections needs CAP_NET_ADMIN over this network namespace";
			err = 0;
		}
		if (err)
			rc_config_free(c);
	}
	if (err)
		cli_nl_error(err, nl.ext_msg, "reading the configuration");
	nl_close(&nl);
	return err ? -1 : 0;
}

int cmd_stats(int argc, char **argv)
{
	struct rc_config c;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			cmd_stats_usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--prometheus") && strcmp(argv[i], "prometheus")) {
			cmd_stats_usage(stderr);
			return cli_error("stats: unexpected argument '%s'", argv[i]);
		}
	}
	err = read_config(&c, true);
	if (err)
		return err;
	rc_prom_print(stdout, &c);
	rc_config_free(&c);
	return 0;
}
