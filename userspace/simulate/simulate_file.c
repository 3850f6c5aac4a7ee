// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate file FILE [service VIP:PORT] [proto P]: one service of a
 * configuration file (the format of save and restore) as simulate's
 * backends: the file's key, vnodes, hash, placement and capacity, and each
 * backend's weight, slots and state (draining or down: off the ring, its
 * slots kept but not live). A word given on the command line wins over
 * the file's, so that one file answers "what if" questions: the same
 * backends as a ring, at another capacity, under another key.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "preview.h"
#include "settings.h"
#include "sim_report.h"

#define CTX "simulate"

int sim_kw_file(struct sim *s, int argc, char **argv)
{
	if (argc < 2)
		return parse_bad_value(CTX, "file", NULL, -EINVAL, "a configuration file, or -");
	s->file = argv[1];
	return 2;
}

int sim_kw_service(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_endpoint_arg(CTX, "service", argv[1], &s->file_vip);

	if (argc < 2)
		return parse_bad_value(CTX, "service", NULL, err, "VIP:PORT");
	if (err)
		return err;
	s->file_vip_given = true;
	return 2;
}

int sim_kw_proto(struct sim *s, int argc, char **argv)
{
	if (argc < 2 || parse_proto(argv[1], &s->file_proto))
		return parse_bad_value(CTX, "proto", argc < 2 ? NULL : argv[1], -EINVAL,
				       "tcp or udp");
	return 2;
}

/* The one service of C that 'service' and 'proto' name, or NULL, printed. */
static const struct rc_service *pick(const struct sim *s, const struct rc_config *c)
{
	const struct rc_service *found = NULL;
	char vip[RC_ENDPOINT_LEN];
	u32 i, n = 0;

	for (i = 0; i < c->ns; i++) {
		if (s->file_vip_given && rc_endpoint_cmp(&c->s[i].vip, &s->file_vip))
			continue;
		if (s->file_proto && c->s[i].proto != s->file_proto)
			continue;
		found = &c->s[i];
		n++;
	}
	if (n == 1)
		return found;
	if (!n) {
		cli_error(CTX ": %s has no such service", s->file);
		return NULL;
	}
	rc_endpoint_format(vip, &found->vip);
	cli_error(CTX ": %s has %u services%s%s: name one with 'service VIP:PORT [proto P]'",
		  s->file, n, s->file_vip_given ? " at " : "", s->file_vip_given ? vip : "");
	return NULL;
}

/* The service's settings where the command line gave none. */
static void settings(struct sim *s, const struct rc_config *c, const struct rc_service *svc)
{
	if (!(s->set & SIM_SET_KEY) && c->has_key)
		memcpy(s->key, c->key, sizeof(s->key));
	if (!(s->set & SIM_SET_VNODES))
		s->vnodes = rc_setting_value(&rc_settings[RC_SET_VNODES], svc);
	if (!(s->set & SIM_SET_HASH))
		s->mode = rc_setting_value(&rc_settings[RC_SET_HASH], svc);
	if (!(s->set & SIM_SET_PLACEMENT))
		s->placement = rc_service_placement(svc);
	if (!s->capacity_given && rc_service_placement(svc) == RINGSTEER_PLACEMENT_SLOTS)
		s->capacity = rc_service_capacity(svc);
	if (!s->chain)
		s->chain = rc_service_chain(svc);
}

/* The service's backends: weights, slots (for a slots simulation), states. */
static int backends(struct sim *s, const struct rc_service *svc)
{
	bool slots = s->placement == RINGSTEER_PLACEMENT_SLOTS || s->compare;
	u32 i;

	s->all = calloc(svc->nb ?: 1, sizeof(*s->all));
	s->given = calloc(svc->nb ?: 1, sizeof(*s->given));
	s->off = calloc(svc->nb ?: 1, sizeof(*s->off));
	if (!s->all || !s->given || !s->off)
		return cli_error(CTX ": out of memory");
	for (i = 0; i < svc->nb; i++, s->nall++) {
		const struct rc_backend *b = &svc->b[i];

		rc_member_of(&s->all[i], &b->ep, rc_setting_value(&rc_settings[RC_SET_WEIGHT], b));
		s->off[i] = !rc_backend_on_ring(b);
		s->ndraining += s->off[i];
		if (!slots || !b->nslots)
			continue;
		s->given[i].slots = malloc(b->nslots * sizeof(*b->slots));
		if (!s->given[i].slots)
			return cli_error(CTX ": out of memory");
		memcpy(s->given[i].slots, b->slots, b->nslots * sizeof(*b->slots));
		s->given[i].n = b->nslots;
	}
	return 0;
}

int sim_file_load(struct sim *s)
{
	const struct rc_service *svc;
	struct rc_config c;
	FILE *f;
	int err;

	if (!s->file) {
		if (s->file_vip_given || s->file_proto)
			return cli_error(CTX ": service and proto name a service of 'file FILE'");
		return 0;
	}
	if (s->nall)
		return cli_error(CTX ": the file gives the backends: no 'backend' or 'backends' with it");
	if (s->ndraining)
		return cli_error(CTX ": the file gives the backends' states: no 'draining' with it");
	if (!strcmp(s->file, "-") && s->flows_path && !strcmp(s->flows_path, "-"))
		return cli_error(CTX ": file and flows cannot both be standard input");
	f = strcmp(s->file, "-") ? fopen(s->file, "r") : stdin;
	if (!f)
		return cli_error(CTX ": %s: %s", s->file, strerror(errno));
	err = parse_config(f, CTX, s->file, &c);
	if (f != stdin)
		fclose(f);
	if (err)
		return err;
	svc = pick(s, &c);
	err = -EINVAL;
	if (svc) {
		settings(s, &c, svc);
		err = backends(s, svc);
	}
	rc_config_free(&c);
	return err;
}
