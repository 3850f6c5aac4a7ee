// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl show: services and backends with their settings, ring sizes,
 * shares and counters, as an ipvsadm-like table or as JSON (-j).
 */

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "ringctl.h"
#include "rsnl.h"
#include "show.h"

#define TWO64 18446744073709551616.0

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl show [-j] [VIP:PORT [proto tcp|udp]]\n"
"       ringctl show rate [-j] [INTERVAL]   (also: show --rate)\n"
"\n"
"Shows every service of the network namespace (or the one named) with its\n"
"hash mode, virtual nodes per unit of weight, active/configured backends,\n"
"ring points and memory, new flows steered and dropped for want of an\n"
"active backend; then each backend with its weight, state, share of the\n"
"hash space, new flows steered to it and the connections it serves now\n"
"(TCP established, and the rest). Each service also shows its ring's\n"
"generation and fingerprint. -j prints one JSON object (see ringctl(8),\n"
"JSON OUTPUT). 'rate' shows new flows per second over INTERVAL seconds\n"
"(default 1).\n");
}

double rc_share(uint64_t share)
{
	return share / TWO64;
}

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

static void print_json(FILE *f, const struct rc_config *c)
{
	char addr[RC_ADDR_LEN], fp[RC_FINGERPRINT_LEN];
	struct json j;
	uint32_t i, k;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_arr_begin(&j, "services");
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "family", rc_family_name(s->vip.family));
		rc_addr_format(addr, &s->vip);
		json_str(&j, "vip", addr);
		json_u64(&j, "port", s->vip.port);
		json_str(&j, "proto", rc_proto_name(s->proto));
		json_u64(&j, "vnodes", s->vnodes);
		json_str(&j, "hash", rc_hash_name(s->hash));
		json_u64(&j, "backends_configured", s->nconfigured);
		json_u64(&j, "backends_active", s->nactive);
		json_u64(&j, "points", s->points);
		json_u64(&j, "ring_bytes", s->ring_bytes);
		json_u64(&j, "flows", s->flows);
		json_u64(&j, "no_backend", s->no_backend);
		if (s->has_fingerprint) {
			json_u64(&j, "generation", s->generation);
			json_str(&j, "fingerprint", rc_fingerprint_format(fp, s->fingerprint));
		}
		json_arr_begin(&j, "backends");
		for (k = 0; k < s->nb; k++) {
			const struct rc_backend *b = &s->b[k];

			json_obj_begin(&j, NULL);
			rc_addr_format(addr, &b->ep);
			json_str(&j, "addr", addr);
			json_u64(&j, "port", b->ep.port);
			json_u64(&j, "weight", b->weight);
			json_str(&j, "state", rc_state_name(b->state));
			json_u64(&j, "flows", b->flows);
			/* %.12g: shares of 2^64 need more than six digits. */
			json_double(&j, "share", rc_share(b->share));
			if (b->has_conns) {
				json_u64(&j, "conns_established", b->conns_established);
				json_u64(&j, "conns_other", b->conns_other);
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static void print_text(FILE *f, const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN], counts[24], ring[24], proto[8];
	char fp[RC_FINGERPRINT_LEN];
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
	fprintf(f, "Prot %-*s %-6s %6s %8s %8s %10s %10s %10s %5s %s\n", w,
		"VIP:Port", "Hash", "Vnodes", "Backends", "Points", "Ring", "Flows",
		"NoBackend", "Gen", "Fingerprint");
	fprintf(f, "  -> %-*s %-8s %6s %8s %10s %10s %10s\n", w, "Backend:Port",
		"State", "Weight", "Share", "Flows", "Estab", "Other");
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		rc_endpoint_format(ep, &s->vip);
		snprintf(counts, sizeof(counts), "%u/%u", s->nactive, s->nconfigured);
		human_bytes(ring, sizeof(ring), s->ring_bytes);
		snprintf(proto, sizeof(proto), "%s", rc_proto_name(s->proto));
		for (k = 0; proto[k]; k++)
			proto[k] -= proto[k] >= 'a' && proto[k] <= 'z' ? 'a' - 'A' : 0;
		fprintf(f, "%-4s %-*s %-6s %6u %8s %8u %10s %10llu %10llu", proto,
			w, ep, rc_hash_name(s->hash), s->vnodes, counts, s->points,
			ring, (unsigned long long)s->flows,
			(unsigned long long)s->no_backend);
		if (s->has_fingerprint)
			fprintf(f, " %5u %s", s->generation,
				rc_fingerprint_format(fp, s->fingerprint));
		fputc('\n', f);
		for (k = 0; k < s->nb; k++) {
			const struct rc_backend *b = &s->b[k];

			rc_endpoint_format(ep, &b->ep);
			fprintf(f, "  -> %-*s %-8s %6u %7.2f%% %10llu", w, ep,
				rc_state_name(b->state), b->weight,
				100 * rc_share(b->share), (unsigned long long)b->flows);
			if (b->has_conns)
				fprintf(f, " %10llu %10llu",
					(unsigned long long)b->conns_established,
					(unsigned long long)b->conns_other);
			fputc('\n', f);
		}
	}
}

void rc_show_print(FILE *f, const struct rc_config *c, bool json)
{
	if (json)
		print_json(f, c);
	else
		print_text(f, c);
}

int cmd_show(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service one;
	struct rc_config c;
	struct rc_args a;
	struct rs_nl nl;
	int err;

	argc--;
	argv++;
	rc_take_json(&argc, &argv);
	if (argc > 0 && (!strcmp(argv[0], "help") || !strcmp(argv[0], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 0 && (!strcmp(argv[0], "rate") || !strcmp(argv[0], "--rate")))
		return rc_show_rate(argc, argv);
	if (argc > 0) {
		if (rc_parse_service_args("show", argc, argv, RC_KW_PROTO | RC_KW_JSON,
					  &one, &a))
			return -1;
		if (a.seen & RC_KW_JSON)
			json_output = true;
	}
	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_config_get(&nl, &c, argc > 0 ? &one : NULL, false);
	if (!err) {
		err = rsnl_config_conns(&nl, &c);
		if (err)
			rc_config_free(&c);
	}
	if (err) {
		if (argc > 0)
			nl_errorf(err, nl.ext_msg, "show %s", rc_service_name(name, &one));
		else
			nl_errorf(err, nl.ext_msg, "show");
	}
	rs_nl_close(&nl);
	if (err)
		return -1;
	rc_show_print(stdout, &c, json_output);
	rc_config_free(&c);
	return 0;
}
