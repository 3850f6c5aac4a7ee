// SPDX-License-Identifier: GPL-2.0
/*
 * What IPVS's words become in ringsteer's (import.h): one place decides
 * for both readers, so that "-s wrr" and "lb_algo wrr" get the same note
 * and "-g" and "lvs_method DR" the same refusal.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model.h"
#include "import.h"

static struct imp_note *note_push(struct imp_note **v, uint32_t *n)
{
	struct imp_note *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return NULL;
	*v = nv;
	return &nv[(*n)++];
}

/* A note said once: the same of every real server is one comment. */
static void vnote(struct imp_config *c, struct imp_service *s, unsigned int line,
		  const char *fmt, va_list ap)
{
	struct imp_note **v = s ? &s->notes : &c->notes;
	uint32_t i, *nv = s ? &s->nnotes : &c->nnotes;
	struct imp_note *n;
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		return;
	for (i = 0; i < *nv; i++)
		if ((*v)[i].line == line && (*v)[i].text && !strcmp((*v)[i].text, text)) {
			free(text);
			return;
		}
	n = note_push(v, nv);
	if (!n) {
		free(text);
		return;
	}
	n->line = line;
	n->text = text;
}

void imp_move_note(struct imp_config *c, uint32_t i, struct imp_service *s)
{
	struct imp_note *n = note_push(&s->notes, &s->nnotes);

	if (n)
		*n = c->notes[i];
	else
		free(c->notes[i].text);
	memmove(&c->notes[i], &c->notes[i + 1], (c->nnotes - i - 1) * sizeof(c->notes[0]));
	c->nnotes--;
}

void imp_note(struct imp_config *c, struct imp_service *s, unsigned int line,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(c, s, line, fmt, ap);
	va_end(ap);
}

int imp_refuse(struct imp_config *c, unsigned int line, const char *fmt, ...)
{
	char msg[CLI_ERROR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->lenient)
		return cli_error("import: %s:%u: %s", c->file, line, msg);
	fprintf(stderr, "ringctl: import: %s:%u: warning: %s (left out: --lenient)\n",
		c->file, line, msg);
	imp_note(c, c->cur, line, "left out: %s", msg);
	c->warnings++;
	return 0;
}

struct imp_service *imp_service_find(struct imp_config *c,
				     const struct rc_endpoint *vip, uint8_t proto)
{
	uint32_t i;

	for (i = 0; i < c->ns; i++)
		if (c->s[i].proto == proto && !rc_endpoint_cmp(&c->s[i].vip, vip))
			return &c->s[i];
	return NULL;
}

/*
 * A service refused with --lenient is kept, marked dropped, so that the
 * lines after it that belong to it find it and are left out with it.
 */
int imp_service_add(struct imp_config *c, unsigned int line, const struct rc_endpoint *vip,
		    uint8_t proto, struct imp_service **out)
{
	char ep[RC_ENDPOINT_LEN];
	struct imp_service *s, *ns;
	const char *why;
	int err = 0;

	rc_endpoint_format(ep, vip);
	s = imp_service_find(c, vip, proto);
	if (s)
		return cli_error("import: %s:%u: virtual service %s %s already defined at line %u",
				 c->file, line, ep, rc_proto_name(proto), s->line);
	ns = realloc(c->s, (c->ns + 1) * sizeof(*ns));
	if (!ns)
		return cli_error("import: out of memory");
	c->s = ns;
	s = &ns[c->ns++];
	memset(s, 0, sizeof(*s));
	s->vip = *vip;
	s->proto = proto;
	s->line = line;
	c->cur = s;
	why = rc_endpoint_unusable(vip);
	if (why || !vip->port) {
		err = imp_refuse(c, line, "virtual service %s: %s", ep,
				 why ?: "port 0 (every port): a ringsteer service is one VIP:PORT");
		s->dropped = true;
	}
	*out = s;
	return err;
}

/*
 * IPVS's schedulers. The hashing ones keep a client's flows on one server
 * as ringsteer does; the balancing ones pick by counts or turns, which a
 * hash cannot, so they become a ring with a note; the ones whose point is
 * a destination address or an order of servers have no ring equivalent.
 */
static const struct {
	const char *name;
	bool hashes;		/* sh, mh: the source address, or with -port the flow */
	const char *refused;	/* why, or NULL when it maps */
} schedulers[] = {
	{ "mh", true, NULL }, { "sh", true, NULL },
	{ "rr", false, NULL }, { "wrr", false, NULL }, { "lc", false, NULL },
	{ "wlc", false, NULL }, { "sed", false, NULL }, { "nq", false, NULL },
	{ "twos", false, NULL },
	{ "dh", false, "hashes the destination address (for caches behind a firewall mark); "
		       "a ringsteer service has one destination, its VIP" },
	{ "lblc", false, "picks by destination address locality; a ringsteer service has one "
			 "destination, its VIP" },
	{ "lblcr", false, "picks by destination address locality; a ringsteer service has one "
			  "destination, its VIP" },
	{ "fo", false, "sends everything to the heaviest available server (failover); "
		       "ringsteer spreads flows over every active backend" },
	{ "ovf", false, "fills the heaviest server up to its weight in connections first; "
			"ringsteer spreads flows over every active backend" },
};

static int sched_flags(struct imp_config *c, struct imp_service *s, unsigned int line,
		       const char *name, const char *flags)
{
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!flags)
		return 0;
	copy = strdup(flags);
	if (!copy)
		return cli_error("import: out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		const char *p = strchr(tok, '-');

		if (p && !strncmp(tok, name, p - tok) && strlen(name) == (size_t)(p - tok) &&
		    !strcmp(p, "-port")) {
			/* The source port too: the whole flow, as hash flow does. */
			s->hash_source = false;
		} else if (p && !strncmp(tok, name, p - tok) && !strcmp(p, "-fallback")) {
			imp_note(c, s, line, "%s: ringsteer always steers around a backend that is "
				 "down or draining; nothing to set", tok);
		} else {
			err = imp_refuse(c, line, "scheduler flag '%s' of %s: no ringsteer equivalent",
					 tok, name);
		}
	}
	free(copy);
	return err;
}

int imp_scheduler(struct imp_config *c, struct imp_service *s, unsigned int line,
		  const char *name, const char *flags)
{
	size_t i;

	for (i = 0; i < sizeof(schedulers) / sizeof(schedulers[0]); i++) {
		if (strcmp(name, schedulers[i].name))
			continue;
		if (schedulers[i].refused)
			return imp_refuse(c, line, "scheduler %s %s", name, schedulers[i].refused);
		if (schedulers[i].hashes) {
			/* mh and sh hash the source address unless told -port. */
			s->hash_source = true;
			imp_note(c, s, line, "scheduler %s: a consistent hash, as ringsteer's ring%s",
				 name, strcmp(name, "mh") ? "" : " (Maglev's even balance: "
				 "'placement slots' on the service line gives it too)");
		} else {
			imp_note(c, s, line, "scheduler %s: balancing becomes hashing: each new flow "
				 "goes to the backend its hash picks on the ring, in proportion to the "
				 "weights, whatever the servers' connection counts", name);
		}
		return sched_flags(c, s, line, name, flags);
	}
	return imp_refuse(c, line, "unknown scheduler '%s'", name);
}

/* A netmask (dotted, or a prefix length) that is the whole address. */
static bool mask_is_host(const char *m, uint8_t family)
{
	if (!m)
		return true;
	if (family == AF_INET)
		return !strcmp(m, "255.255.255.255") || !strcmp(m, "32");
	return !strcmp(m, "128") || !strcmp(m, "/128");
}

int imp_persistence(struct imp_config *c, struct imp_service *s, unsigned int line,
		    const char *netmask)
{
	if (!mask_is_host(netmask, s->vip.family))
		return imp_refuse(c, line, "persistence granularity %s: ringsteer's hash source "
				  "keeps each client address on its backend, not a whole network",
				  netmask);
	s->hash_source = true;
	imp_note(c, s, line, "persistence: hash source keeps every connection of a client "
		 "address on one backend, with no timeout, for as long as the backends do "
		 "not change");
	return 0;
}

static const char *fwd_name(enum imp_forward f, enum imp_encap e)
{
	if (f == IMP_FWD_NAT)
		return "NAT";
	return e == IMP_ENCAP_GUE ? "tunnel gue" : "tunnel ipip";
}

int imp_forward(struct imp_config *c, struct imp_service *s, unsigned int line,
		enum imp_forward fwd, enum imp_encap encap, uint16_t port)
{
	if (s->forward == IMP_FWD_UNSET) {
		s->forward = fwd;
		s->encap = encap;
		s->encap_port = port;
		s->forward_line = line;
		return 0;
	}
	if (s->forward != fwd || (fwd == IMP_FWD_TUNNEL &&
				  (s->encap != encap || s->encap_port != port)))
		return imp_refuse(c, line, "%s here but %s%s%.0u at line %u: a ringsteer service "
				  "forwards every backend alike", fwd_name(fwd, encap),
				  fwd_name(s->forward, s->encap),
				  s->encap == IMP_ENCAP_GUE ? " port " : "",
				  s->encap == IMP_ENCAP_GUE ? s->encap_port : 0, s->forward_line);
	return 0;
}

int imp_backend_add(struct imp_config *c, struct imp_service *s, unsigned int line,
		    const struct rc_endpoint *ep, uint32_t weight, struct imp_backend **out)
{
	char name[RC_ENDPOINT_LEN];
	struct imp_backend *b;
	const char *why = rc_endpoint_unusable(ep);
	uint32_t i;

	*out = NULL;
	rc_endpoint_format(name, ep);
	if (why || !ep->port || ep->family != s->vip.family)
		return imp_refuse(c, line, "real server %s: %s", name,
				  why ?: !ep->port ? "port 0" :
				  "not of the VIP's address family (a ringsteer service's backends are)");
	if (!rc_endpoint_cmp(ep, &s->vip))
		return imp_refuse(c, line, "real server %s is the virtual service itself", name);
	for (i = 0; i < s->nb; i++)
		if (!rc_endpoint_cmp(&s->b[i].ep, ep))
			return imp_refuse(c, line, "real server %s already given at line %u", name,
					  s->b[i].line);
	b = realloc(s->b, (s->nb + 1) * sizeof(*b));
	if (!b)
		return cli_error("import: out of memory");
	s->b = b;
	b = &b[s->nb++];
	memset(b, 0, sizeof(*b));
	b->ep = *ep;
	b->weight = weight;
	b->line = line;
	*out = b;
	return 0;
}

static void notes_free(struct imp_note *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

void imp_config_free(struct imp_config *c)
{
	uint32_t i;

	for (i = 0; i < c->ns; i++) {
		free(c->s[i].b);
		notes_free(c->s[i].notes, c->s[i].nnotes);
	}
	free(c->s);
	notes_free(c->notes, c->nnotes);
	c->s = NULL;
	c->notes = NULL;
	c->ns = c->nnotes = 0;
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * IPVS weights go to 65535, ringsteer's to RINGSTEER_MAX_WEIGHT: weights
 * with a common divisor are divided by it (the shares stay the same);
 * others are refused. Virtual nodes are lowered when the points would be
 * more than a service may have.
 */
static int finish_weights(struct imp_config *c, struct imp_service *s)
{
	uint32_t i, g = 0, max = 0, sum = 0;

	for (i = 0; i < s->nb; i++) {
		g = gcd(g, s->b[i].weight);
		if (s->b[i].weight > max)
			max = s->b[i].weight;
	}
	s->wdiv = 1;
	if (max > RINGSTEER_MAX_WEIGHT) {
		s->wdiv = g;
		s->dropped = max / g > RINGSTEER_MAX_WEIGHT;
		if (s->dropped)
			return imp_refuse(c, s->line, "weights up to %u: ringsteer's go to %u and "
					  "these have no common divisor that brings them there",
					  max, RINGSTEER_MAX_WEIGHT);
		imp_note(c, s, s->line, "weights divided by %u, their common divisor, to fit "
			 "ringsteer's 1..%u: the shares are the same", g, RINGSTEER_MAX_WEIGHT);
	}
	for (i = 0; i < s->nb; i++)
		sum += s->b[i].weight / s->wdiv;
	s->vnodes = IMP_DEF_VNODES;
	if ((uint64_t)sum * s->vnodes > RINGSTEER_MAX_POINTS) {
		s->vnodes = RINGSTEER_MAX_POINTS / sum;
		imp_note(c, s, s->line, "vnodes %u: the weights add up to %u, and a service has "
			 "at most %u points", s->vnodes, sum, RINGSTEER_MAX_POINTS);
	}
	return 0;
}

/* ringsteer checks every backend of a service alike (one check line). */
static int finish_checks(struct imp_config *c, struct imp_service *s)
{
	const struct imp_backend *first = NULL;
	uint32_t i;
	int err = 0;

	for (i = 0; i < s->nb && !err; i++) {
		const struct imp_backend *b = &s->b[i];

		if (!first) {
			first = b;
			continue;
		}
		if (!strcmp(b->check, first->check))
			continue;
		if (!*b->check)
			err = imp_refuse(c, b->line, "real server without a check, but the one at "
					 "line %u has one: ringsteer checks every backend of a "
					 "service alike", first->line);
		else if (!*first->check)
			err = imp_refuse(c, b->check_line, "check, but the real server at line %u "
					 "has none: ringsteer checks every backend of a service "
					 "alike", first->line);
		else
			err = imp_refuse(c, b->check_line, "check unlike the one at line %u: ringsteer "
					 "checks every backend of a service alike", first->check_line);
	}
	s->check = NULL;
	for (i = 0; i < s->nb; i++)
		if (*s->b[i].check) {
			s->check = &s->b[i];
			break;
		}
	return err;
}

/* Notes in the order of the lines they are about (stable). */
static void sort_notes(struct imp_note *v, uint32_t n)
{
	uint32_t i, k;

	for (i = 1; i < n; i++) {
		struct imp_note t = v[i];

		for (k = i; k > 0 && v[k - 1].line > t.line; k--)
			v[k] = v[k - 1];
		v[k] = t;
	}
}

int imp_finish(struct imp_config *c)
{
	uint32_t i, kept = 0, checked = 0;
	int err = 0;

	for (i = 0; i < c->ns && !err; i++) {
		c->cur = &c->s[i];
		if (c->s[i].dropped)
			continue;
		err = finish_weights(c, &c->s[i]);
		if (!err && c->s[i].dropped)
			continue;
		err = err ?: finish_checks(c, &c->s[i]);
		checked += !!c->s[i].check;
		kept++;
	}
	for (i = 0; i < c->ns; i++)
		sort_notes(c->s[i].notes, c->s[i].nnotes);
	c->checked = checked;
	if (!err && !kept)
		err = cli_error("import: %s: nothing left to import", c->file);
	return err;
}
