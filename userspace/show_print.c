// SPDX-License-Identifier: GPL-2.0
/* What "ringctl show" prints, text and -j; see show_print.h. */

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "print.h"
#include "settings.h"
#include "show_print.h"

static void human_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	double d = v;
	int u = 0;

	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f %s", d, units[u]);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
}

/* 1234567 as "1.2M": the header line's counts, read at a glance. */
static void human_count(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "", "k", "M", "G", "T" };
	double d = v;
	int u = 0;

	while (d >= 1000 && u < 4) {
		d /= 1000;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f%s", d, units[u]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

void print_net_text(FILE *f, const struct rc_net *n)
{
	char pts[24], max[24];

	human_count(pts, sizeof(pts), n->points);
	human_count(max, sizeof(max), n->points_max);
	fprintf(f, "namespace: %u service%s, %s of %s ring points, ",
		n->services, n->services == 1 ? "" : "s", pts, max);
	if (n->has_backends) {
		human_count(pts, sizeof(pts), n->backends);
		human_count(max, sizeof(max), n->backends_max);
		fprintf(f, "%s of %s backends, ", pts, max);
	}
	fprintf(f, "hooks %s, ", n->hooks ? "on" : "off");
	if (n->tunnel_hooks)
		fprintf(f, "tunnel hooks on, ");
	if (n->flow_table_entries)
		fprintf(f, "flow table %u entries a CPU, ", n->flow_table_entries);
	if (n->unserved_drops)
		fprintf(f, "%llu unserved dropped, ", (unsigned long long)n->unserved_drops);
	if (n->kept)
		fprintf(f, "%u service%s kept flows", n->kept, n->kept == 1 ? "'s" : "s'");
	else
		fprintf(f, "no kept flows");
	fprintf(f, ", generation %u\n", n->generation);
}

/* forward tunnel's counters; the dropped ones only once there are any. */
static void print_tunnel_text(FILE *f, const struct rc_service *s)
{
	fprintf(f, "     tunnel: packets %llu table hits %llu misses %llu non-SYN misses %llu too big %llu fragments %llu encap errors %llu\n",
		(unsigned long long)s->packets, (unsigned long long)s->table_hits,
		(unsigned long long)s->table_misses,
		(unsigned long long)s->nonsyn_misses,
		(unsigned long long)s->too_big, (unsigned long long)s->fragments,
		(unsigned long long)s->encap_errors);
	if (s->martians || s->not_host || s->icmp_limited || s->flood_skipped)
		fprintf(f, "     dropped: martian sources %llu not for this host %llu ICMP limited %llu; flood: not recorded %llu\n",
			(unsigned long long)s->martians, (unsigned long long)s->not_host,
			(unsigned long long)s->icmp_limited,
			(unsigned long long)s->flood_skipped);
}

/* forward tunnel's counters, as in the spec, in one object. */
static void print_tunnel_json(struct json *j, const struct rc_service *s)
{
	json_obj_begin(j, "tunnel");
	json_u64(j, "packets", s->packets);
	json_u64(j, "table_hits", s->table_hits);
	json_u64(j, "table_misses", s->table_misses);
	json_u64(j, "nonsyn_misses", s->nonsyn_misses);
	json_u64(j, "too_big", s->too_big);
	json_u64(j, "fragments", s->fragments);
	json_u64(j, "encap_errors", s->encap_errors);
	json_u64(j, "martians", s->martians);
	json_u64(j, "not_host", s->not_host);
	json_u64(j, "icmp_limited", s->icmp_limited);
	json_u64(j, "flood_skipped", s->flood_skipped);
	json_obj_end(j);
}

static void net_json(struct json *j, const struct rc_net *n)
{
	json_bool(j, "hooks", n->hooks);
	json_bool(j, "tunnel_hooks", n->tunnel_hooks);
	json_u64(j, "flow_table_entries", n->flow_table_entries);
	json_u64(j, "unserved_drops", n->unserved_drops);
	json_u64(j, "points", n->points);
	json_u64(j, "points_max", n->points_max);
	if (n->has_backends) {
		json_u64(j, "backends", n->backends);
		json_u64(j, "backends_max", n->backends_max);
	}
	json_u64(j, "kept", n->kept);
	json_u64(j, "generation", n->generation);
}

static void backend_json(struct json *j, const struct rc_backend *b)
{
	char addr[RC_ADDR_LEN];

	json_obj_begin(j, NULL);
	rc_addr_format(addr, &b->ep);
	json_str(j, "addr", addr);
	json_u64(j, "port", b->ep.port);
	print_settings_json(j, RC_OBJ_BACKEND, b, 0);
	json_u64(j, "flows", b->flows);
	/* %.12g: shares of 2^64 need more than six digits. */
	json_double(j, "share", print_share(b->share));
	if (b->has_conns) {
		json_u64(j, "conns_established", b->conns_established);
		json_u64(j, "conns_other", b->conns_other);
		json_u64(j, "conns_closed", b->conns_closed);
	}
	json_obj_end(j);
}

static void service_json(struct json *j, const struct rc_service *s)
{
	char fp[PRINT_FINGERPRINT_LEN];
	uint32_t k;

	json_obj_begin(j, NULL);
	print_service_id_json(j, s, true);
	print_settings_json(j, RC_OBJ_SERVICE, s, 0);
	json_u64(j, "backends_configured", s->nconfigured);
	json_u64(j, "backends_active", s->nactive);
	json_u64(j, "points", s->points);
	json_u64(j, "ring_bytes", s->ring_bytes);
	json_u64(j, "flows", s->flows);
	json_u64(j, "no_backend", s->no_backend);
	if (s->has_tunnel_stats)
		print_tunnel_json(j, s);
	if (s->has_fingerprint) {
		json_u64(j, "generation", s->generation);
		json_str(j, "fingerprint", print_fingerprint(fp, s->fingerprint));
	}
	json_arr_begin(j, "backends");
	for (k = 0; k < s->nb; k++)
		backend_json(j, &s->b[k]);
	json_arr_end(j);
	json_obj_end(j);
}

void print_show_json(FILE *f, const struct rc_config *c)
{
	struct json j;
	uint32_t i;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	if (c->has_net)
		net_json(&j, &c->net);
	if (c->conns_unavailable)
		json_str(&j, "conns_unavailable", c->conns_unavailable);
	json_arr_begin(&j, "services");
	for (i = 0; i < c->ns; i++)
		service_json(&j, &c->s[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* The width of the address column: the longest VIP or backend, at least 21. */
static int column_width(const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN];
	int w = 21, len;
	uint32_t i, k;

	for (i = 0; i < c->ns; i++) {
		rc_endpoint_format(ep, &c->s[i].vip);
		len = strlen(ep);
		w = len > w ? len : w;
		for (k = 0; k < c->s[i].nb; k++) {
			rc_endpoint_format(ep, &c->s[i].b[k].ep);
			len = strlen(ep);
			w = len > w ? len : w;
		}
	}
	return w;
}

static void backend_text(FILE *f, const struct rc_backend *b, int w)
{
	char ep[RC_ENDPOINT_LEN], set[256];

	rc_endpoint_format(ep, &b->ep);
	fprintf(f, "  -> %-*s %-8s %-6s %6u %7.2f%% %10llu", w, ep,
		rc_enum_name(&rc_enum_backend_state, b->state),
		rc_enum_name(&rc_enum_backend_health, rc_backend_health(b)),
		b->weight,
		100 * print_share(b->share), (unsigned long long)b->flows);
	if (b->has_conns)
		fprintf(f, " %10llu %10llu %10llu",
			(unsigned long long)b->conns_established,
			(unsigned long long)b->conns_other,
			(unsigned long long)b->conns_closed);
	/*
	 * Last, and only when set, after the connection columns even where
	 * they are empty: they never stand under one of them.
	 */
	if (print_settings(set, sizeof(set), RC_OBJ_BACKEND, b, PRINT_SET_SHOW) || b->nslots)
		fprintf(f, "%*s%s", b->has_conns ? 0 : 3 * 11, "", set);
	print_slots_text(f, b);
	fputc('\n', f);
}

static void service_text(FILE *f, const struct rc_service *s, int w)
{
	char ep[RC_ENDPOINT_LEN], counts[24], ring[24], proto[8];
	char fp[PRINT_FINGERPRINT_LEN];
	uint32_t k;

	rc_endpoint_format(ep, &s->vip);
	snprintf(counts, sizeof(counts), "%u/%u", s->nactive, s->nconfigured);
	human_bytes(ring, sizeof(ring), s->ring_bytes);
	snprintf(proto, sizeof(proto), "%s", rc_proto_name(s->proto));
	for (k = 0; proto[k]; k++)
		proto[k] -= proto[k] >= 'a' && proto[k] <= 'z' ? 'a' - 'A' : 0;
	fprintf(f, "%-4s %-*s %-6s %6u %8s %8u %10s %10llu %10llu", proto,
		w, ep, rc_enum_name(&rc_enum_hash_mode, s->hash), rc_service_vnodes(s), counts,
		s->points, ring, (unsigned long long)s->flows,
		(unsigned long long)s->no_backend);
	if (s->has_fingerprint)
		fprintf(f, " %5u %s", s->generation, print_fingerprint(fp, s->fingerprint));
	print_settings_text(f, RC_OBJ_SERVICE, s, PRINT_SET_SHOW);
	fputc('\n', f);
	if (s->has_tunnel_stats)
		print_tunnel_text(f, s);
	for (k = 0; k < s->nb; k++)
		backend_text(f, &s->b[k], w);
}

void print_show_text(FILE *f, const struct rc_config *c)
{
	int w = column_width(c);
	uint32_t i;

	if (c->has_net)
		print_net_text(f, &c->net);
	if (c->conns_unavailable)
		fprintf(f, "connections: not counted (%s)\n", c->conns_unavailable);
	fprintf(f, "Prot %-*s %-6s %6s %8s %8s %10s %10s %10s %5s %s\n", w,
		"VIP:Port", "Hash", "Vnodes", "Backends", "Points", "Ring", "Flows",
		"NoBackend", "Gen", "Fingerprint");
	fprintf(f, "  -> %-*s %-8s %-6s %6s %8s %10s %10s %10s %10s\n", w, "Backend:Port",
		"State", "Health", "Weight", "Share", "Flows", "Estab", "Other", "Closed");
	for (i = 0; i < c->ns; i++)
		service_text(f, &c->s[i], w);
}
