// SPDX-License-Identifier: GPL-2.0
/*
 * The status key's JSON (fleet_state.h), written and read with json-c
 * (the print layer's JSON writer is for ringctl's output).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <sodium.h>

#include "fleet_state.h"
#include "preview.h"

#define STATE_VERSION 1

void fl_key_id(char buf[FL_KEY_ID_LEN], const uint8_t key[RINGSTEER_KEY_LEN])
{
	static const char text[] = "ringsteer key id";
	unsigned char out[crypto_shorthash_siphash24_BYTES];
	int i;

	crypto_shorthash_siphash24(out, (const unsigned char *)text, sizeof(text) - 1, key);
	for (i = 0; i < 8; i++)
		snprintf(buf + 2 * i, 3, "%02x", out[i]);
}

static bool down(const struct rc_backend *b)
{
	return rc_backend_health(b) == RINGSTEER_HEALTH_DOWN;
}

int fl_state_services(struct fl_state *st, const struct rc_config *c)
{
	uint32_t i, k;

	st->s = calloc(c->ns ? c->ns : 1, sizeof(*st->s));
	if (!st->s)
		return -ENOMEM;
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];
		struct fl_service_state *o = &st->s[st->ns++];

		rc_service_name(o->name, s);
		print_fingerprint(o->fingerprint, s->fingerprint);
		o->backends = s->nb;
		o->down = calloc(s->nb ? s->nb : 1, sizeof(*o->down));
		if (!o->down)
			return -ENOMEM;
		for (k = 0; k < s->nb; k++)
			if (down(&s->b[k]))
				rc_endpoint_format(o->down[o->ndown++], &s->b[k].ep);
	}
	return 0;
}

static json_object *services_json(const struct fl_state *st)
{
	json_object *arr = json_object_new_array(), *o, *d;
	uint32_t i, k;

	for (i = 0; i < st->ns; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "service", json_object_new_string(st->s[i].name));
		json_object_object_add(o, "fingerprint",
				       json_object_new_string(st->s[i].fingerprint));
		json_object_object_add(o, "backends", json_object_new_int64(st->s[i].backends));
		d = json_object_new_array();
		for (k = 0; k < st->s[i].ndown; k++)
			json_object_array_add(d, json_object_new_string(st->s[i].down[k]));
		json_object_object_add(o, "down", d);
		json_object_array_add(arr, o);
	}
	return arr;
}

char *fl_state_json(const struct fl_state *st)
{
	json_object *o = json_object_new_object(), *e = NULL;
	char *text;

	json_object_object_add(o, "version", json_object_new_int(STATE_VERSION));
	json_object_object_add(o, "host", json_object_new_string(st->host));
	json_object_object_add(o, "revision", json_object_new_int64(st->revision));
	json_object_object_add(o, "updated", json_object_new_int64(st->updated));
	json_object_object_add(o, "key_id", json_object_new_string(st->key_id));
	json_object_object_add(o, "services", services_json(st));
	if (st->error_revision) {
		e = json_object_new_object();
		json_object_object_add(e, "revision", json_object_new_int64(st->error_revision));
		json_object_object_add(e, "message", json_object_new_string(st->error));
	}
	json_object_object_add(o, "error", e);
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

/* MEMBER of O as a string into BUF (LEN), or "" when absent. */
static bool get_str(json_object *o, const char *member, char *buf, size_t len)
{
	json_object *v;

	buf[0] = '\0';
	if (!json_object_object_get_ex(o, member, &v) || !json_object_is_type(v, json_type_string))
		return false;
	snprintf(buf, len, "%s", json_object_get_string(v));
	return true;
}

static int parse_service(json_object *o, struct fl_service_state *s, const char **why)
{
	json_object *d, *v;
	size_t k, n;

	if (!get_str(o, "service", s->name, sizeof(s->name)) ||
	    !get_str(o, "fingerprint", s->fingerprint, sizeof(s->fingerprint))) {
		*why = "a service without its name or fingerprint";
		return -EINVAL;
	}
	s->backends = json_object_object_get_ex(o, "backends", &v) ? json_object_get_int(v) : 0;
	n = json_object_object_get_ex(o, "down", &d) && json_object_is_type(d, json_type_array) ?
	    json_object_array_length(d) : 0;
	s->down = calloc(n ? n : 1, sizeof(*s->down));
	if (!s->down)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		snprintf(s->down[s->ndown++], RC_ENDPOINT_LEN, "%s",
			 json_object_get_string(json_object_array_get_idx(d, k)));
	return 0;
}

static int parse_object(json_object *o, struct fl_state *st, const char **why)
{
	json_object *v, *svcs;
	size_t i, n;
	int err = 0;

	if (!json_object_object_get_ex(o, "version", &v) || json_object_get_int(v) != STATE_VERSION) {
		*why = "not a status of version 1";
		return -EINVAL;
	}
	get_str(o, "host", st->host, sizeof(st->host));
	get_str(o, "key_id", st->key_id, sizeof(st->key_id));
	st->revision = json_object_object_get_ex(o, "revision", &v) ? json_object_get_int64(v) : 0;
	st->updated = json_object_object_get_ex(o, "updated", &v) ? json_object_get_int64(v) : 0;
	if (json_object_object_get_ex(o, "error", &v) && json_object_is_type(v, json_type_object)) {
		get_str(v, "message", st->error, sizeof(st->error));
		st->error_revision = json_object_object_get_ex(v, "revision", &svcs) ?
				     json_object_get_int64(svcs) : -1;
	}
	if (!json_object_object_get_ex(o, "services", &svcs) ||
	    !json_object_is_type(svcs, json_type_array)) {
		*why = "no services array";
		return -EINVAL;
	}
	n = json_object_array_length(svcs);
	st->s = calloc(n ? n : 1, sizeof(*st->s));
	if (!st->s)
		return -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		err = parse_service(json_object_array_get_idx(svcs, i), &st->s[st->ns], why);
		st->ns++;
	}
	return err;
}

int fl_state_parse(const char *text, struct fl_state *st, const char **why)
{
	json_object *o = json_tokener_parse(text);
	int err;

	memset(st, 0, sizeof(*st));
	*why = "out of memory";
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		*why = "not a JSON object";
		return -EINVAL;
	}
	err = parse_object(o, st, why);
	json_object_put(o);
	if (err)
		fl_state_free(st);
	return err;
}

void fl_state_free(struct fl_state *st)
{
	uint32_t i;

	for (i = 0; i < st->ns; i++)
		free(st->s[i].down);
	free(st->s);
	st->s = NULL;
	st->ns = 0;
}

bool fl_state_same_rings(const struct fl_state *a, const struct fl_state *b)
{
	uint32_t i;

	if (a->ns != b->ns)
		return false;
	for (i = 0; i < a->ns; i++)
		if (strcmp(a->s[i].name, b->s[i].name) ||
		    strcmp(a->s[i].fingerprint, b->s[i].fingerprint))
			return false;
	return true;
}

/* The service of LB named as S, or NULL. */
static const struct fl_service_state *lb_service(const struct fl_state *lb,
						 const struct rc_service *s)
{
	char name[RC_SERVICE_NAME_LEN];
	uint32_t i;

	rc_service_name(name, s);
	for (i = 0; i < lb->ns; i++)
		if (!strcmp(lb->s[i].name, name))
			return &lb->s[i];
	return NULL;
}

/* C's services with LB's downs marked down, into *OUT (a copy). */
static int copy_with_downs(const struct rc_config *c, const struct fl_state *lb,
			   struct rc_config *out)
{
	char ep[RC_ENDPOINT_LEN];
	const struct fl_service_state *ls;
	struct rc_backend b;
	struct rc_service *s;
	uint32_t i, k, d;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->ns; i++) {
		s = rc_config_add_service(out, &c->s[i]);
		if (!s)
			return -ENOMEM;
		ls = lb_service(lb, &c->s[i]);
		for (k = 0; k < c->s[i].nb; k++) {
			b = c->s[i].b[k];
			rc_endpoint_format(ep, &b.ep);
			for (d = 0; ls && d < ls->ndown; d++)
				if (!strcmp(ls->down[d], ep)) {
					b.health = RINGSTEER_HEALTH_DOWN;
					b.has |= RC_HAS_HEALTH;
				}
			if (!rc_service_add_backend(s, &b))
				return -ENOMEM;
		}
	}
	return 0;
}

int fl_state_expected(const struct rc_config *c, const uint8_t key[RINGSTEER_KEY_LEN],
		      const struct fl_state *lb, struct fl_state *exp)
{
	struct rc_config copy;
	int err;

	memset(exp, 0, sizeof(*exp));
	err = copy_with_downs(c, lb, &copy);
	if (!err) {
		memcpy(copy.key, key, RINGSTEER_KEY_LEN);
		copy.has_key = true;
		rc_config_sort(&copy);
		err = rc_config_fingerprints(&copy) ?: fl_state_services(exp, &copy);
	}
	rc_config_free(&copy);
	return err;
}
