// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file of "ringctl save" and "ringctl restore", read by
 * parse_config() (parse layer) and written by print_config() (print
 * layer), kept together so that the two agree:
 *
 *	# comment
 *	key HEX32
 *	service VIP:PORT [proto tcp|udp] [vnodes N] [hash flow|source]
 *		[on-down keep|reset] [forward nat|tunnel]
 *		[encap ipip|gue [port N] [chain K]]
 *		backend ADDR:PORT|ADDR [weight W] [state active|draining]
 *		kept N
 *		kept RING ADDR:PORT weight W
 *
 * A backend line belongs to the service line above it; indentation is
 * free. The key line is optional (restore then keeps the current key).
 * A backend of a forward tunnel service has the service's port: it may
 * be given as its address alone ("10.1.0.1", "fd00::1" or "[fd00::1]"),
 * which is how saved files write it, or with that port. Saved files name
 * forward only for tunnel services: a NAT service's line is what it was
 * before forward existed.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "print.h"

static uint64_t active_points(const struct rc_service *s)
{
	uint64_t points = 0;
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (rc_backend_state(&s->b[i]) == RINGSTEER_STATE_ACTIVE)
			points += (uint64_t)rc_backend_weight(&s->b[i]) * rc_service_vnodes(s);
	return points;
}

static int key_line(const char *ctx, int argc, char **argv, struct rc_config *c)
{
	if (c->has_key)
		return cli_error("%s: key given twice", ctx);
	if (argc != 2 || parse_key(argv[1], c->key))
		return cli_error("%s: want 'key' and %d hex digits", ctx,
				 2 * RINGSTEER_KEY_LEN);
	c->has_key = true;
	return 0;
}

static int service_line(const char *ctx, int argc, char **argv,
			struct rc_config *c, unsigned int lineno)
{
	char name[RC_SERVICE_NAME_LEN];
	struct rc_service s, *dup;
	struct parse_args a;
	int err;

	err = parse_service_args(ctx, argc - 1, argv + 1,
				 PARSE_KW_PROTO | parse_settings_kw(RC_OBJ_SERVICE, RC_SOP_ADD),
				 &s, &a) ?:
	      parse_check_new_service(ctx, &s);
	if (err)
		return err;
	dup = rc_config_find_service(c, &s);
	if (dup)
		return cli_error("%s: service %s already defined at line %u", ctx,
				 rc_service_name(name, &s), dup->line);
	if (c->ns == RINGSTEER_MAX_SERVICES)
		return cli_error("%s: more than %u services", ctx, RINGSTEER_MAX_SERVICES);
	s.line = lineno;
	if (!rc_config_add_service(c, &s))
		return cli_error("%s: out of memory", ctx);
	return 0;
}

static int backend_line(const char *ctx, int argc, char **argv, struct rc_config *c)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	struct rc_service *cur;
	struct parse_args a;
	struct rc_backend b;
	int err;

	if (!c->ns)
		return cli_error("%s: backend before any service", ctx);
	cur = &c->s[c->ns - 1];
	err = parse_backend_of(ctx, argc - 1, argv + 1,
			       parse_settings_kw(RC_OBJ_BACKEND, RC_SOP_ADD) | PARSE_KW_SLOTS,
			       cur, &b, &a) ?:
	      (a.bare ? parse_check_bare_backend(ctx, &b, rc_service_forward(cur)) : 0);
	if (err)
		return err;
	rc_service_name(name, cur);
	if (rc_service_forward(cur) == RINGSTEER_FORWARD_TUNNEL && b.ep.port != cur->vip.port) {
		rc_endpoint_format(ep, &b.ep);
		return cli_error("%s: backend %s: forward tunnel cannot translate ports, give the VIP's port %u",
				 ctx, ep, cur->vip.port);
	}
	if (rc_service_find_backend(cur, &b.ep)) {
		rc_endpoint_format(ep, &b.ep);
		return cli_error("%s: backend %s given twice for service %s", ctx, ep, name);
	}
	if (cur->nb == RINGSTEER_MAX_BACKENDS)
		return cli_error("%s: more than %u backends in service %s", ctx,
				 RINGSTEER_MAX_BACKENDS, name);
	if (!rc_service_add_backend(cur, &b)) {
		free(b.slots);
		return cli_error("%s: out of memory", ctx);
	}
	free(b.slots);
	if (active_points(cur) > RINGSTEER_MAX_POINTS)
		return cli_error("%s: service %s would have more than %u ring points (weights x vnodes)",
				 ctx, name, RINGSTEER_MAX_POINTS);
	return 0;
}

/*
 * "kept N": the service above keeps N rings; "kept RING ADDR:PORT weight
 * W": kept ring RING (0 the newest) differs from the current one in that
 * backend, W 0 for one it lacks (save writes them; chain_kept.h).
 */
static int kept_line(const char *ctx, int argc, char **argv, struct rc_config *c)
{
	struct rc_service *cur = c->ns ? &c->s[c->ns - 1] : NULL;
	struct ringsteer_kept_member *r;
	struct rc_endpoint ep;
	const char *why;
	uint32_t ring, w;

	if (!cur || rc_service_chain(cur) < 2)
		return cli_error("%s: kept needs a service with chain above 1 before it", ctx);
	if (argc == 2) {
		if (parse_u32(argv[1], 0, rc_service_chain(cur) - 1, &cur->kept_rings))
			return cli_error("%s: kept N: 0 .. chain - 1 rings", ctx);
		cur->has_kept = true;
		return 0;
	}
	if (argc != 5 || strcmp(argv[3], "weight") ||
	    parse_u32(argv[1], 0, RINGSTEER_MAX_CHAIN - 2, &ring) ||
	    rc_endpoint_parse(argv[2], &ep, &why) || ep.family != cur->vip.family ||
	    parse_u32(argv[4], 0, RINGSTEER_MAX_WEIGHT, &w))
		return cli_error("%s: want 'kept RING ADDR:PORT weight W' of the service's family", ctx);
	if (cur->nkept == RC_KEPT_MAX)
		return cli_error("%s: more than %u kept records", ctx, RC_KEPT_MAX);
	r = &cur->kept[cur->nkept++];
	memset(r, 0, sizeof(*r));
	r->ring = ring;
	r->family = ep.family;
	r->port = htons(ep.port);
	r->weight = w;
	memcpy(r->addr, ep.addr, sizeof(r->addr));
	return 0;
}

static int parse_line(const char *ctx, int argc, char **argv, unsigned int lineno,
		      void *data)
{
	struct rc_config *c = data;

	if (!strcmp(argv[0], "key"))
		return key_line(ctx, argc, argv, c);
	if (!strcmp(argv[0], "service"))
		return service_line(ctx, argc, argv, c, lineno);
	if (!strcmp(argv[0], "backend"))
		return backend_line(ctx, argc, argv, c);
	if (!strcmp(argv[0], "kept"))
		return kept_line(ctx, argc, argv, c);
	return cli_error("%s: unknown line '%s' (want key, service, backend or kept)", ctx,
			 argv[0]);
}

int parse_config(FILE *f, const char *ctx, const char *name, struct rc_config *c)
{
	memset(c, 0, sizeof(*c));
	if (parse_lines(f, ctx, name, parse_line, c)) {
		rc_config_free(c);
		return -EINVAL;
	}
	return 0;
}

/* A chained service's kept rings, after its backends (kept_line() reads them). */
static void print_kept(FILE *f, const struct rc_service *s)
{
	struct rc_endpoint ep = { 0 };
	char buf[RC_ENDPOINT_LEN];
	uint32_t i;

	if (!s->has_kept)
		return;
	fprintf(f, "\tkept %u\n", s->kept_rings);
	for (i = 0; i < s->nkept; i++) {
		const struct ringsteer_kept_member *r = &s->kept[i];

		ep.family = r->family;
		memcpy(ep.addr, r->addr, sizeof(ep.addr));
		ep.port = ntohs(r->port);
		rc_endpoint_format(buf, &ep);
		fprintf(f, "\tkept %u %s weight %u\n", r->ring, buf, r->weight);
	}
}

void print_config(FILE *f, const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN], key[2 * RINGSTEER_KEY_LEN + 1];
	uint32_t i, k;

	fprintf(f, "# ringsteer configuration (ringctl save); 'ringctl restore' reads it\n");
	if (c->has_key) {
		rc_key_format(key, c->key);
		fprintf(f, "key %s\n", key);
	}
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		rc_endpoint_format(ep, &s->vip);
		fprintf(f, "service %s proto %s", ep, rc_proto_name(s->proto));
		print_settings_text(f, RC_OBJ_SERVICE, s, 0);
		fputc('\n', f);
		for (k = 0; k < s->nb; k++) {
			const struct rc_backend *b = &s->b[k];

			/* Its port is the VIP's: the address says it all. */
			if (rc_service_forward(s) == RINGSTEER_FORWARD_TUNNEL)
				rc_addr_format(ep, &b->ep);
			else
				rc_endpoint_format(ep, &b->ep);
			fprintf(f, "\tbackend %s", ep);
			print_settings_text(f, RC_OBJ_BACKEND, b, 0);
			fputc('\n', f);
		}
		print_kept(f, s);
	}
}
