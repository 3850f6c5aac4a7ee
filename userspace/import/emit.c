// SPDX-License-Identifier: GPL-2.0
/*
 * The imported model printed as ringsteer's files: the configuration of
 * "ringctl restore" (ringctl(8), CONFIGURATION FILE FORMAT) and the
 * checker's file of "ringctl health run" (HEALTH CHECK FILE FORMAT).
 * Notes become comments above what they are about, so that the reason
 * for every choice stays in the file the operator keeps.
 */

#include <netinet/in.h>

#include "model.h"
#include "import.h"

static void print_notes(FILE *f, const char *file, const struct imp_note *n, uint32_t nn)
{
	uint32_t i;

	for (i = 0; i < nn; i++)
		if (n[i].text)
			fprintf(f, "# %s:%u: %s\n", file, n[i].line, n[i].text);
}

static void print_backend(FILE *f, const struct imp_service *s, const struct imp_backend *b)
{
	char ep[RC_ENDPOINT_LEN];

	/* A tunnel's backend has the VIP's port: its address says it all. */
	if (s->forward == IMP_FWD_TUNNEL)
		rc_addr_format(ep, &b->ep);
	else
		rc_endpoint_format(ep, &b->ep);
	if (!b->weight) {
		fprintf(f, "\tbackend %s state draining\t# weight 0 (quiesced) at line %u\n", ep,
			b->line);
		return;
	}
	fprintf(f, "\tbackend %s weight %u\n", ep, b->weight / s->wdiv);
}

static void print_service(FILE *f, const char *file, const struct imp_service *s)
{
	char ep[RC_ENDPOINT_LEN];
	uint32_t i;

	rc_endpoint_format(ep, &s->vip);
	fputc('\n', f);
	print_notes(f, file, s->notes, s->nnotes);
	if (s->dropped) {
		fprintf(f, "# %s:%u: service %s proto %s left out\n", file, s->line, ep,
			rc_proto_name(s->proto));
		return;
	}
	fprintf(f, "service %s proto %s vnodes %u hash %s", ep, rc_proto_name(s->proto),
		s->vnodes, s->hash_source ? "source" : "flow");
	if (s->forward == IMP_FWD_TUNNEL && s->encap == IMP_ENCAP_GUE)
		fprintf(f, " forward tunnel encap gue port %u", s->encap_port);
	else if (s->forward == IMP_FWD_TUNNEL)
		fprintf(f, " forward tunnel encap ipip");
	fputc('\n', f);
	for (i = 0; i < s->nb; i++)
		print_backend(f, s, &s->b[i]);
}

void imp_emit_config(FILE *f, const struct imp_config *c)
{
	uint32_t i;

	fprintf(f, "# ringsteer configuration imported from %s by 'ringctl import';\n"
		"# 'ringctl restore' reads it. No key line: restore keeps the current key.\n",
		c->file);
	print_notes(f, c->file, c->notes, c->nnotes);
	for (i = 0; i < c->ns; i++)
		print_service(f, c->file, &c->s[i]);
}

void imp_emit_health(FILE *f, const struct imp_config *c)
{
	char ep[RC_ENDPOINT_LEN];
	uint32_t i, k;

	fprintf(f, "# ringsteer health checks imported from %s by 'ringctl import';\n"
		"# 'ringctl health run' reads it.\n", c->file);
	for (i = 0; i < c->ns; i++) {
		const struct imp_service *s = &c->s[i];

		if (s->dropped || !s->check)
			continue;
		rc_endpoint_format(ep, &s->vip);
		fprintf(f, "\nservice %s proto %s\n\tcheck %s\n", ep, rc_proto_name(s->proto),
			s->check->check);
		for (k = 0; k < s->nb; k++) {
			if (!*s->b[k].probe)
				continue;
			rc_endpoint_format(ep, &s->b[k].ep);
			fprintf(f, "\tbackend %s%s\n", ep, s->b[k].probe);
		}
	}
}
