// SPDX-License-Identifier: GPL-2.0
/* Services and backends in memory; see model.h. */

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "model.h"

static void *grow(void *p, uint32_t n, uint32_t *cap, size_t size)
{
	uint32_t ncap;

	if (n < *cap)
		return p;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(p, (size_t)ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

struct rc_service *rc_config_add_service(struct rc_config *c, const struct rc_service *s)
{
	struct rc_service *n, *arr = grow(c->s, c->ns, &c->caps, sizeof(*c->s));

	if (!arr)
		return NULL;
	c->s = arr;
	n = &c->s[c->ns++];
	*n = *s;
	n->b = NULL;
	n->nb = n->capb = 0;
	return n;
}

struct rc_backend *rc_service_add_backend(struct rc_service *s, const struct rc_backend *b)
{
	struct rc_backend *arr = grow(s->b, s->nb, &s->capb, sizeof(*s->b));

	if (!arr)
		return NULL;
	s->b = arr;
	s->b[s->nb] = *b;
	if (b->nslots) {
		s->b[s->nb].slots = malloc(b->nslots * sizeof(*b->slots));
		if (!s->b[s->nb].slots)
			return NULL;
		memcpy(s->b[s->nb].slots, b->slots, b->nslots * sizeof(*b->slots));
	}
	return &s->b[s->nb++];
}

int rc_service_cmp(const struct rc_service *a, const struct rc_service *b)
{
	int c = rc_endpoint_cmp(&a->vip, &b->vip);

	if (c)
		return c;
	return a->proto == b->proto ? 0 : a->proto < b->proto ? -1 : 1;
}

struct rc_service *rc_config_find_service(const struct rc_config *c,
					  const struct rc_service *id)
{
	uint32_t i;

	for (i = 0; i < c->ns; i++)
		if (!rc_service_cmp(&c->s[i], id))
			return (struct rc_service *)&c->s[i];
	return NULL;
}

struct rc_backend *rc_service_find_backend(const struct rc_service *s,
					   const struct rc_endpoint *ep)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (!rc_endpoint_cmp(&s->b[i].ep, ep))
			return (struct rc_backend *)&s->b[i];
	return NULL;
}

static int svc_cmp(const void *a, const void *b)
{
	return rc_service_cmp(a, b);
}

static int be_cmp(const void *a, const void *b)
{
	return rc_endpoint_cmp(&((const struct rc_backend *)a)->ep,
			       &((const struct rc_backend *)b)->ep);
}

void rc_config_sort(struct rc_config *c)
{
	uint32_t i;

	if (c->ns)
		qsort(c->s, c->ns, sizeof(*c->s), svc_cmp);
	for (i = 0; i < c->ns; i++)
		if (c->s[i].nb)
			qsort(c->s[i].b, c->s[i].nb, sizeof(*c->s[i].b), be_cmp);
}

void rc_service_free(struct rc_service *s)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		free(s->b[i].slots);
	free(s->b);
	s->b = NULL;
	s->nb = s->capb = 0;
}

void rc_config_free(struct rc_config *c)
{
	uint32_t i;

	for (i = 0; i < c->ns; i++)
		rc_service_free(&c->s[i]);
	free(c->s);
	memset(c, 0, sizeof(*c));
}

const char *rc_proto_name(uint8_t proto)
{
	return proto == IPPROTO_UDP ? "udp" : proto == IPPROTO_TCP ? "tcp" : "?";
}

const char *rc_family_name(uint8_t family)
{
	return family == AF_INET6 ? "inet6" : "inet";
}

const char *rc_service_name(char buf[RC_SERVICE_NAME_LEN], const struct rc_service *s)
{
	char ep[RC_ENDPOINT_LEN];

	rc_endpoint_format(ep, &s->vip);
	snprintf(buf, RC_SERVICE_NAME_LEN, "%s %s", ep, rc_proto_name(s->proto));
	return buf;
}

void rc_key_format(char buf[2 * RINGSTEER_KEY_LEN + 1],
		   const uint8_t key[RINGSTEER_KEY_LEN])
{
	int i;

	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		sprintf(buf + 2 * i, "%02x", key[i]);
}

static int cmp_u16(const void *a, const void *b)
{
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

int rc_slots_sort(uint16_t *slots, uint32_t n)
{
	uint32_t i;

	qsort(slots, n, sizeof(*slots), cmp_u16);
	for (i = 1; i < n; i++)
		if (slots[i] == slots[i - 1])
			return -EEXIST;
	return 0;
}
