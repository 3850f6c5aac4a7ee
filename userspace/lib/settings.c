// SPDX-License-Identifier: GPL-2.0
/*
 * The settings table; see settings.h. Rows are in the order every output
 * writes them (save, show -j, monitor), each object's together.
 */

#include <stdio.h>
#include <string.h>

#include "settings.h"

#define SVC(f) .obj = RC_OBJ_SERVICE, .off = offsetof(struct rc_service, f)
#define BE(f) .obj = RC_OBJ_BACKEND, .off = offsetof(struct rc_backend, f)
#define ON_DOWN_WANT "keep or reset (a backend's also service)"

const struct rc_setting rc_settings[] = {
	[RC_SET_VNODES] = {
		"vnodes", "vnodes", SVC(vnodes), .attr = RINGSTEER_SERVICE_A_VNODES,
		.min = 1, .max = RINGSTEER_MAX_VNODES, .def = RINGSTEER_DEFAULT_VNODES,
		.has = RC_HAS_VNODES, .ops = RC_SOP_ADD | RC_SOP_SET,
		/* A slots service's ring has a point a slot: the kernel refuses it. */
		.flags = RC_SF_SHOW_QUIET, .parent = RC_SET_PLACEMENT,
		.parent_value = RINGSTEER_PLACEMENT_RING,
	},
	[RC_SET_HASH] = {
		"hash", "hash", SVC(hash), .attr = RINGSTEER_SERVICE_A_HASH,
		.names = &rc_enum_hash_mode, .def = RINGSTEER_HASH_FLOW,
		.has = RC_HAS_HASH, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SHOW_QUIET, .parent = RC_NO_PARENT,
	},
	[RC_SET_ON_DOWN] = {
		"on-down", "on_down", SVC(on_down), .attr = RINGSTEER_SERVICE_A_ON_DOWN,
		.names = &rc_enum_on_down, .def = RINGSTEER_ON_DOWN_KEEP,
		.has = RC_HAS_ON_DOWN, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SHOW_QUIET, .parent = RC_NO_PARENT, .want = ON_DOWN_WANT,
	},
	[RC_SET_FORWARD] = {
		"forward", "forward", SVC(forward), .attr = RINGSTEER_SERVICE_A_FORWARD,
		.names = &rc_enum_forward_mode, .def = RINGSTEER_FORWARD_NAT,
		.has = RC_HAS_FORWARD, .ops = RC_SOP_ADD | RC_SOP_SET,
		/* A NAT service's line is what it was before forward existed. */
		.flags = RC_SF_FIXED | RC_SF_QUIET_DEFAULT, .parent = RC_NO_PARENT,
	},
	[RC_SET_ENCAP] = {
		"encap", "encap", SVC(encap), .attr = RINGSTEER_SERVICE_A_ENCAP,
		.names = &rc_enum_encap, .def = RINGSTEER_ENCAP_IPIP,
		.has = RC_HAS_ENCAP, .ops = RC_SOP_ADD | RC_SOP_SET,
		.parent = RC_SET_FORWARD, .parent_value = RINGSTEER_FORWARD_TUNNEL,
	},
	[RC_SET_ENCAP_PORT] = {
		"port", "encap_port", SVC(encap_port), .attr = RINGSTEER_SERVICE_A_ENCAP_PORT,
		.type = RC_T_PORT, .min = 1, .max = 65535, .def = RINGSTEER_DEFAULT_GUE_PORT,
		.has = RC_HAS_ENCAP_PORT, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SUB, .parent = RC_SET_ENCAP, .parent_value = RINGSTEER_ENCAP_GUE,
	},
	[RC_SET_PLACEMENT] = {
		"placement", "placement", SVC(placement), .attr = RINGSTEER_SERVICE_A_PLACEMENT,
		.names = &rc_enum_placement, .def = RINGSTEER_PLACEMENT_RING,
		.has = RC_HAS_PLACEMENT, .ops = RC_SOP_ADD | RC_SOP_SET,
		/* A ring service's line is what it was before placement existed. */
		.flags = RC_SF_FIXED | RC_SF_QUIET_DEFAULT, .parent = RC_NO_PARENT,
	},
	[RC_SET_CAPACITY] = {
		"capacity", "capacity", SVC(capacity), .attr = RINGSTEER_SERVICE_A_CAPACITY,
		.min = RINGSTEER_MIN_CAPACITY, .max = RINGSTEER_MAX_CAPACITY,
		.def = RINGSTEER_DEFAULT_CAPACITY,
		.has = RC_HAS_CAPACITY, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SUB, .parent = RC_SET_PLACEMENT,
		.parent_value = RINGSTEER_PLACEMENT_SLOTS,
		/* The range is the table's; the kernel also wants a power of two. */
		.want = "a power of two, 2..65536",
	},
	[RC_SET_CHAIN] = {
		"chain", "chain", SVC(chain), .attr = RINGSTEER_SERVICE_A_CHAIN,
		.min = 1, .max = RINGSTEER_MAX_CHAIN, .def = 1,
		.has = RC_HAS_CHAIN, .ops = RC_SOP_ADD | RC_SOP_SET,
		/* Off, the default, is not written: older files read alike. */
		.flags = RC_SF_SUB | RC_SF_QUIET_DEFAULT, .parent = RC_SET_ENCAP,
		.parent_value = RINGSTEER_ENCAP_GUE,
	},
	[RC_SET_WEIGHT] = {
		"weight", "weight", BE(weight), .attr = RINGSTEER_BACKEND_A_WEIGHT,
		.min = 1, .max = RINGSTEER_MAX_WEIGHT, .def = 1,
		.has = RC_HAS_WEIGHT, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SHOW_QUIET, .parent = RC_NO_PARENT,
	},
	[RC_SET_STATE] = {
		"state", "state", BE(state), .attr = RINGSTEER_BACKEND_A_STATE,
		.names = &rc_enum_backend_state, .def = RINGSTEER_STATE_ACTIVE,
		.has = RC_HAS_STATE, .ops = RC_SOP_ADD | RC_SOP_SET,
		.flags = RC_SF_SHOW_QUIET, .parent = RC_NO_PARENT,
	},
	[RC_SET_HEALTH] = {
		"health", "health", BE(health), .attr = RINGSTEER_BACKEND_A_HEALTH,
		.names = &rc_enum_backend_health, .def = RINGSTEER_HEALTH_UP,
		.has = RC_HAS_HEALTH, .ops = RC_SOP_SET,
		.flags = RC_SF_CHECKER | RC_SF_SHOW_QUIET, .parent = RC_NO_PARENT,
	},
	[RC_SET_BACKEND_ON_DOWN] = {
		"on-down", "on_down", BE(on_down), .attr = RINGSTEER_BACKEND_A_ON_DOWN,
		.names = &rc_enum_backend_on_down, .def = RINGSTEER_BACKEND_ON_DOWN_SERVICE,
		.has = RC_HAS_ON_DOWN, .ops = RC_SOP_ADD | RC_SOP_SET,
		/* The service's, the default, is not written: older files read alike. */
		.flags = RC_SF_QUIET_DEFAULT, .parent = RC_NO_PARENT, .want = ON_DOWN_WANT,
	},
};

const unsigned int rc_nsettings = sizeof(rc_settings) / sizeof(rc_settings[0]);

_Static_assert(sizeof(rc_settings) / sizeof(rc_settings[0]) <= RC_SETTINGS_MAX,
	       "rc_settings[] outgrew RC_SETTINGS_MAX (and parse.h's keyword bits)");

static unsigned int *has_of(const struct rc_setting *r, const void *p)
{
	if (r->obj == RC_OBJ_SERVICE)
		return &((struct rc_service *)p)->has;
	return &((struct rc_backend *)p)->has;
}

uint32_t rc_setting_get(const struct rc_setting *r, const void *p)
{
	const char *f = (const char *)p + r->off;
	uint16_t v16;
	uint32_t v;

	if (r->type == RC_T_PORT) {
		memcpy(&v16, f, sizeof(v16));
		return v16;
	}
	memcpy(&v, f, sizeof(v));
	return v;
}

void rc_setting_put(const struct rc_setting *r, void *p, uint32_t v)
{
	char *f = (char *)p + r->off;
	uint16_t v16 = v;

	if (r->type == RC_T_PORT)
		memcpy(f, &v16, sizeof(v16));
	else
		memcpy(f, &v, sizeof(v));
	*has_of(r, p) |= r->has;
}

bool rc_setting_given(const struct rc_setting *r, const void *p)
{
	return *has_of(r, p) & r->has;
}

uint32_t rc_setting_value(const struct rc_setting *r, const void *p)
{
	return rc_setting_given(r, p) ? rc_setting_get(r, p) : r->def;
}

bool rc_setting_applies(const struct rc_setting *r, const void *p)
{
	const struct rc_setting *up;

	for (; r->parent != RC_NO_PARENT; r = up) {
		up = &rc_settings[r->parent];
		if (rc_setting_value(up, p) != r->parent_value)
			return false;
	}
	return true;
}

bool rc_setting_under(const struct rc_setting *r, int ancestor)
{
	for (;;) {
		if (r == &rc_settings[ancestor])
			return true;
		if (r->parent == RC_NO_PARENT)
			return false;
		r = &rc_settings[r->parent];
	}
}

const char *rc_setting_format(const struct rc_setting *r, uint32_t v, char *buf, size_t len)
{
	if (r->names)
		return rc_enum_name(r->names, v);
	snprintf(buf, len, "%u", v);
	return buf;
}

const struct rc_setting *rc_setting_twin(const struct rc_setting *r)
{
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj != r->obj && !strcmp(rc_settings[i].word, r->word))
			return &rc_settings[i];
	return NULL;
}

bool rc_settings_changed(enum rc_obj obj, const void *p)
{
	const struct rc_setting *r;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj == obj && (r->ops & RC_SOP_SET) && !(r->flags & RC_SF_FIXED) &&
		    rc_setting_given(r, p))
			return true;
	}
	return false;
}

/* "[word a|b]" or "[word N]", its RC_SF_SUB children inside. */
static size_t group(char *buf, size_t len, unsigned int row, unsigned int op)
{
	const struct rc_setting *r = &rc_settings[row];
	size_t n = snprintf(buf, len, "[%s ", r->word);
	unsigned int i;

	if (!r->names) {
		n += snprintf(buf + n, len - n, "N");
	} else {
		for (i = 0; i < r->names->n && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s", i ? "|" : "",
				      r->names->e[i].name);
	}
	for (i = 0; i < rc_nsettings && n < len; i++)
		if (rc_settings[i].parent == (int)row && (rc_settings[i].flags & RC_SF_SUB) &&
		    (rc_settings[i].ops & op)) {
			n += snprintf(buf + n, len - n, " ");
			if (n < len)
				n += group(buf + n, len - n, i, op);
		}
	if (n < len)
		n += snprintf(buf + n, len - n, "]");
	return n;
}

/*
 * A fixed row's words for a set: "[placement slots [capacity N]]" for each
 * of its values that a child a set may change follows. Returns the length.
 */
static size_t fixed_group(char *buf, size_t len, unsigned int row)
{
	const struct rc_setting *r = &rc_settings[row], *c;
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < rc_nsettings && n < len; i++) {
		c = &rc_settings[i];
		if (c->parent != (int)row || !(c->flags & RC_SF_SUB) || !(c->ops & RC_SOP_SET))
			continue;
		n += snprintf(buf + n, len - n, "%s[%s %s ", n ? " " : "", r->word,
			      rc_enum_name(r->names, c->parent_value));
		if (n < len)
			n += group(buf + n, len - n, i, RC_SOP_SET);
		if (n < len)
			n += snprintf(buf + n, len - n, "]");
	}
	return n;
}

/* Print WORD after column COL, wrapping under INDENT; returns the column. */
static size_t put_word(FILE *f, const char *word, size_t wlen, size_t col, size_t indent)
{
	if (col + 1 + wlen > 80 && col > indent) {
		fprintf(f, "\n%*s", (int)indent, "");
		col = indent;
	} else {
		fputc(' ', f);
		col++;
	}
	fprintf(f, "%.*s", (int)wlen, word);
	return col + wlen;
}

/* Each top-level word or bracketed group of S, in order. */
static size_t put_words(FILE *f, const char *s, size_t col, size_t indent)
{
	size_t len;
	int depth;

	while (*s) {
		while (*s == ' ')
			s++;
		for (len = 0, depth = 0; s[len] && (depth || s[len] != ' '); len++)
			depth += (s[len] == '[') - (s[len] == ']');
		if (len)
			col = put_word(f, s, len, col, indent);
		s += len;
	}
	return col;
}

void rc_settings_synopsis(FILE *f, const char *lead, const char *args, enum rc_obj obj,
			  unsigned int op, const char *extra)
{
	size_t indent = 27, col = strlen(lead);
	char buf[160];
	unsigned int i;

	fputs(lead, f);
	col = put_words(f, args, col, indent);
	for (i = 0; i < rc_nsettings; i++) {
		const struct rc_setting *r = &rc_settings[i];

		if (r->obj != obj || !(r->ops & op) || (r->flags & RC_SF_SUB))
			continue;
		if (op == RC_SOP_SET && (r->flags & RC_SF_FIXED)) {
			/* It stays, but what follows one of its words may change. */
			if (!fixed_group(buf, sizeof(buf), i))
				continue;
		} else {
			group(buf, sizeof(buf), i, op);
		}
		col = put_words(f, buf, col, indent);
	}
	put_words(f, extra, col, indent);
	fputc('\n', f);
}

/* As the kernel's rs_ring_vnodes(): a slots service's ring has a point a slot. */
uint32_t rc_service_vnodes(const struct rc_service *s)
{
	const struct rc_setting *r = &rc_settings[RC_SET_VNODES];

	return rc_setting_applies(r, s) ? rc_setting_value(r, s) : 1;
}

uint32_t rc_backend_weight(const struct rc_backend *b)
{
	return rc_setting_value(&rc_settings[RC_SET_WEIGHT], b);
}

uint32_t rc_service_hash(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_HASH], s);
}

uint32_t rc_backend_state(const struct rc_backend *b)
{
	return rc_setting_value(&rc_settings[RC_SET_STATE], b);
}

uint32_t rc_service_on_down(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_ON_DOWN], s);
}

uint32_t rc_backend_on_down(const struct rc_backend *b)
{
	return rc_setting_value(&rc_settings[RC_SET_BACKEND_ON_DOWN], b);
}

uint32_t rc_backend_health(const struct rc_backend *b)
{
	return rc_setting_value(&rc_settings[RC_SET_HEALTH], b);
}

bool rc_backend_on_ring(const struct rc_backend *b)
{
	return rc_backend_state(b) == RINGSTEER_STATE_ACTIVE &&
	       rc_backend_health(b) == RINGSTEER_HEALTH_UP;
}

uint32_t rc_service_forward(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_FORWARD], s);
}

uint32_t rc_service_encap(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_ENCAP], s);
}

uint16_t rc_service_encap_port(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_ENCAP_PORT], s);
}

uint32_t rc_service_placement(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_PLACEMENT], s);
}

uint32_t rc_service_capacity(const struct rc_service *s)
{
	return rc_setting_value(&rc_settings[RC_SET_CAPACITY], s);
}

uint32_t rc_service_chain(const struct rc_service *s)
{
	const struct rc_setting *r = &rc_settings[RC_SET_CHAIN];

	return rc_setting_applies(r, s) ? rc_setting_value(r, s) : 1;
}
