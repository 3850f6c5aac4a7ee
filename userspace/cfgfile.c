// SPDX-License-Identifier: GPL-2.0
/* The save/restore file format; see cfgfile.h. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfgfile.h"
#include "parse.h"
#include "ringctl.h"

#define MAX_WORDS 32

/* Split LINE in place into words; '#' starts a comment. -E2BIG if too many. */
static int split(char *line, char **argv)
{
	char *save, *w;
	int argc = 0;

	line[strcspn(line, "#")] = '\0';
	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == MAX_WORDS)
			return -E2BIG;
		argv[argc++] = w;
	}
	return argc;
}

static uint64_t active_points(const struct rc_service *s)
{
	uint64_t points = 0;
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (!(s->b[i].has & RC_HAS_STATE) || s->b[i].state == RINGSTEER_STATE_ACTIVE)
			points += (uint64_t)rc_backend_weight(&s->b[i]) * rc_service_vnodes(s);
	return points;
}

static int parse_line(const char *ctx, int argc, char **argv, struct rc_config *c,
		      unsigned int lineno, bool *have_key)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN];
	struct rc_service s, *cur, *dup;
	struct rc_backend b;
	struct rc_args a;

	if (!strcmp(argv[0], "key")) {
		if (*have_key)
			return errorf("%s: key given twice", ctx);
		if (argc != 2 || rc_parse_key(argv[1], c->key))
			return errorf("%s: want 'key' and %d hex digits", ctx,
				      2 * RINGSTEER_KEY_LEN);
		c->has_key = *have_key = true;
		return 0;
	}
	if (!strcmp(argv[0], "service")) {
		if (rc_parse_service_args(ctx, argc - 1, argv + 1,
					  RC_KW_PROTO | RC_KW_VNODES | RC_KW_HASH, &s, &a))
			return -1;
		dup = rc_config_find(c, &s);
		if (dup)
			return errorf("%s: service %s already defined at line %u", ctx,
				      rc_service_name(name, &s), dup->line);
		if (c->ns == RINGSTEER_MAX_SERVICES)
			return errorf("%s: more than %u services", ctx, RINGSTEER_MAX_SERVICES);
		s.line = lineno;
		if (!rc_config_add(c, &s))
			return errorf("%s: out of memory", ctx);
		return 0;
	}
	if (!strcmp(argv[0], "backend")) {
		if (!c->ns)
			return errorf("%s: backend before any service", ctx);
		cur = &c->s[c->ns - 1];
		memset(&b, 0, sizeof(b));
		if (rc_parse_endpoint_arg(ctx, "backend", argc > 1 ? argv[1] : NULL, &b.ep) ||
		    rc_parse_keywords(ctx, argc - 2, argv + 2, RC_KW_WEIGHT | RC_KW_STATE, &a))
			return -1;
		if (b.ep.family != cur->vip.family)
			return errorf("%s: backend %s is not of the address family of service %s",
				      ctx, argv[1], rc_service_name(name, cur));
		if (rc_service_find(cur, &b.ep)) {
			rc_endpoint_format(ep, &b.ep);
			return errorf("%s: backend %s given twice for service %s", ctx, ep,
				      rc_service_name(name, cur));
		}
		if (cur->nb == RINGSTEER_MAX_BACKENDS)
			return errorf("%s: more than %u backends in service %s", ctx,
				      RINGSTEER_MAX_BACKENDS, rc_service_name(name, cur));
		if (a.seen & RC_KW_WEIGHT) {
			b.weight = a.weight;
			b.has |= RC_HAS_WEIGHT;
		}
		if (a.seen & RC_KW_STATE) {
			b.state = a.state;
			b.has |= RC_HAS_STATE;
		}
		if (!rc_service_add(cur, &b))
			return errorf("%s: out of memory", ctx);
		if (active_points(cur) > RINGSTEER_MAX_POINTS)
			return errorf("%s: service %s would have more than %u ring points (weights x vnodes)",
				      ctx, rc_service_name(name, cur), RINGSTEER_MAX_POINTS);
		return 0;
	}
	return errorf("%s: unknown line '%s' (want key, service or backend)", ctx, argv[0]);
}

int rc_cfg_parse(FILE *f, const char *ctx, const char *name, struct rc_config *c)
{
	char lctx[512], *line = NULL, *argv[MAX_WORDS];
	unsigned int lineno = 0;
	bool have_key = false;
	size_t len = 0;
	int argc, ret = 0;

	memset(c, 0, sizeof(*c));
	while (getline(&line, &len, f) > 0) {
		lineno++;
		snprintf(lctx, sizeof(lctx), "%s: %s:%u", ctx, name, lineno);
		argc = split(line, argv);
		if (argc == 0)
			continue;
		if (argc < 0) {
			ret = errorf("%s: too many words", lctx);
			break;
		}
		ret = parse_line(lctx, argc, argv, c, lineno, &have_key);
		if (ret)
			break;
	}
	if (!ret && ferror(f))
		ret = errorf("%s: %s: %s", ctx, name, strerror(errno));
	free(line);
	if (ret) {
		rc_config_free(c);
		return -EINVAL;
	}
	return 0;
}

void rc_cfg_print(FILE *f, const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN], key[2 * RINGSTEER_KEY_LEN + 1];
	uint32_t i, k;

	fprintf(f, "# ringsteer configuration (ringctl save); 'ringctl restore' reads it\n");
	if (c->has_key) {
		rc_format_key(key, c->key);
		fprintf(f, "key %s\n", key);
	}
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		rc_endpoint_format(ep, &s->vip);
		fprintf(f, "service %s proto %s vnodes %u hash %s\n", ep,
			rc_proto_name(s->proto), rc_service_vnodes(s),
			rc_hash_name(s->has & RC_HAS_HASH ? s->hash : RINGSTEER_HASH_FLOW));
		for (k = 0; k < s->nb; k++) {
			const struct rc_backend *b = &s->b[k];

			rc_endpoint_format(ep, &b->ep);
			fprintf(f, "\tbackend %s weight %u state %s\n", ep,
				rc_backend_weight(b),
				rc_state_name(b->has & RC_HAS_STATE ? b->state
								    : RINGSTEER_STATE_ACTIVE));
		}
	}
}
