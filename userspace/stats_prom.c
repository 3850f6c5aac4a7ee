// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl stats": the counters in the text format of
 * Prometheus (node_exporter's textfile collector reads it). Metric names
 * follow node_exporter's ipvs collector where one exists (new flows as
 * counters, connections now as a gauge with a state label).
 */

#include <stdio.h>
#include <string.h>

#include "print.h"
#include "stats_prom.h"

const char *print_prom_escape(char *dst, size_t len, const char *src)
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
		 print_prom_escape(esc, sizeof(esc), addr), s->vip.port,
		 rc_proto_name(s->proto));
}

static void backend_labels(char *buf, const struct rc_service *s,
			   const struct rc_backend *b)
{
	char svc[LABELS_LEN], ep[RC_ENDPOINT_LEN], esc[2 * RC_ENDPOINT_LEN];

	service_labels(svc, s);
	rc_endpoint_format(ep, &b->ep);
	snprintf(buf, BE_LABELS_LEN, "%s,backend=\"%s\"", svc,
		 print_prom_escape(esc, sizeof(esc), ep));
}

enum value {
	V_SVC_FLOWS, V_SVC_NO_BACKEND, V_SVC_POINTS, V_SVC_BACKENDS, V_SVC_ACTIVE,
	/* forward tunnel services only */
	V_TUN_PACKETS, V_TUN_HITS, V_TUN_MISSES, V_TUN_NONSYN, V_TUN_TOO_BIG,
	V_TUN_FRAGMENTS, V_TUN_ENCAP_ERRORS, V_TUN_MARTIANS, V_TUN_NOT_HOST,
	V_TUN_ICMP_LIMITED, V_TUN_FLOOD_SKIPPED,
	V_BE_FLOWS, V_BE_CONNS, V_BE_WEIGHT, V_BE_ACTIVE, V_BE_UP, V_BE_SHARE,
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
	{ "ringsteer_tunnel_packets_total", "counter",
	  "Packets of a forward tunnel service encapsulated or dropped.", V_TUN_PACKETS, false },
	{ "ringsteer_tunnel_table_hits_total", "counter",
	  "Packets steered by the flow table.", V_TUN_HITS, false },
	{ "ringsteer_tunnel_table_misses_total", "counter",
	  "Packets steered by the ring, their flow not in the table.", V_TUN_MISSES, false },
	{ "ringsteer_tunnel_nonsyn_misses_total", "counter",
	  "TCP packets other than a SYN among the table misses.", V_TUN_NONSYN, false },
	{ "ringsteer_tunnel_too_big_total", "counter",
	  "Packets over the tunnel MTU, answered with ICMP.", V_TUN_TOO_BIG, false },
	{ "ringsteer_tunnel_fragments_total", "counter",
	  "Packets that arrived as fragments, reassembled.", V_TUN_FRAGMENTS, false },
	{ "ringsteer_tunnel_encap_errors_total", "counter",
	  "Packets dropped: not encapsulated or not routed to their backend.",
	  V_TUN_ENCAP_ERRORS, false },
	{ "ringsteer_tunnel_martians_total", "counter",
	  "Packets dropped: a source that is not remote unicast.", V_TUN_MARTIANS, false },
	{ "ringsteer_tunnel_not_host_total", "counter",
	  "Packets dropped: a frame to a link-layer broadcast, multicast or other address.",
	  V_TUN_NOT_HOST, false },
	{ "ringsteer_tunnel_icmp_limited_total", "counter",
	  "ICMP errors not sent, over the module's icmp_rate.", V_TUN_ICMP_LIMITED, false },
	{ "ringsteer_tunnel_flood_skipped_total", "counter",
	  "Table misses not recorded, over the module's flood_threshold.",
	  V_TUN_FLOOD_SKIPPED, false },
	{ "ringsteer_backend_new_flows_total", "counter",
	  "New flows steered to the backend.", V_BE_FLOWS, true },
	{ "ringsteer_backend_connections", "gauge",
	  "Connection tracking entries DNATed to the backend now: TCP established, other (can still carry data), closed (TCP past both FINs).",
	  V_BE_CONNS, true },
	{ "ringsteer_backend_weight", "gauge", "Weight of the backend.", V_BE_WEIGHT, true },
	{ "ringsteer_backend_active", "gauge",
	  "1 if the backend takes new flows, 0 if draining or down.", V_BE_ACTIVE, true },
	{ "ringsteer_backend_up", "gauge",
	  "1 if the backend's health is up (the checker's finding), 0 if down.", V_BE_UP, true },
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
	case V_TUN_PACKETS:
		return s->packets;
	case V_TUN_HITS:
		return s->table_hits;
	case V_TUN_MISSES:
		return s->table_misses;
	case V_TUN_NONSYN:
		return s->nonsyn_misses;
	case V_TUN_TOO_BIG:
		return s->too_big;
	case V_TUN_FRAGMENTS:
		return s->fragments;
	case V_TUN_ENCAP_ERRORS:
		return s->encap_errors;
	case V_TUN_MARTIANS:
		return s->martians;
	case V_TUN_NOT_HOST:
		return s->not_host;
	case V_TUN_ICMP_LIMITED:
		return s->icmp_limited;
	case V_TUN_FLOOD_SKIPPED:
		return s->flood_skipped;
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
		fprintf(f, "%s{%s,state=\"closed\"} %llu\n", m->name, l,
			(unsigned long long)b->conns_closed);
		break;
	case V_BE_WEIGHT:
		fprintf(f, "%s{%s} %u\n", m->name, l, b->weight);
		break;
	case V_BE_UP:
		fprintf(f, "%s{%s} %d\n", m->name, l,
			rc_backend_health(b) == RINGSTEER_HEALTH_UP);
		break;
	case V_BE_ACTIVE:
		fprintf(f, "%s{%s} %d\n", m->name, l, rc_backend_on_ring(b));
		break;
	default:
		fprintf(f, "%s{%s} %.12g\n", m->name, l, print_share(b->share));
		break;
	}
}

void print_prom(FILE *f, const struct rc_config *c)
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

			if (m->v >= V_TUN_PACKETS && m->v <= V_TUN_FLOOD_SKIPPED &&
			    !s->has_tunnel_stats)
				continue;
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
