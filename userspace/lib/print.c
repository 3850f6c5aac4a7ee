// SPDX-License-Identifier: GPL-2.0
/* The print layer; see print.h. */

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "print.h"
#include "settings.h"

#define TWO64 18446744073709551616.0

double print_share(uint64_t share)
{
	return share / TWO64;
}

const char *print_fingerprint(char buf[PRINT_FINGERPRINT_LEN], uint64_t fp)
{
	snprintf(buf, PRINT_FINGERPRINT_LEN, "%016llx", (unsigned long long)fp);
	return buf;
}

/*
 * Whether P's setting R is written: as HOW says, in every case only where
 * it means something (encap of forward tunnel).
 */
static bool shown(const struct rc_setting *r, const void *p, unsigned int how)
{
	const struct rc_setting *root = r;
	bool sets = (how & PRINT_SET_SETS) && (r->ops & RC_SOP_SET) &&
		    !(r->flags & RC_SF_FIXED);

	while (root->parent != RC_NO_PARENT)
		root = &rc_settings[root->parent];
	if (((how & PRINT_SET_PRESENT) && !rc_setting_given(root, p)) ||
	    ((how & PRINT_SET_FORWARD) && !rc_setting_under(r, RC_SET_FORWARD)) ||
	    !rc_setting_applies(r, p))
		return false;
	if (how & PRINT_SET_JSON)
		return true;
	if (((how & PRINT_SET_SHOW) && (r->flags & RC_SF_SHOW_QUIET)) ||
	    ((r->flags & RC_SF_CHECKER) && !sets))
		return false;
	return !(r->flags & RC_SF_QUIET_DEFAULT) || sets ||
	       rc_setting_value(r, p) != r->def;
}

size_t print_settings(char *buf, size_t len, enum rc_obj obj, const void *p,
		      unsigned int how)
{
	const struct rc_setting *r;
	size_t at = 0;
	unsigned int i;
	char num[16];

	buf[0] = '\0';
	for (i = 0; i < rc_nsettings && at < len; i++) {
		r = &rc_settings[i];
		if (r->obj == obj && shown(r, p, how & ~PRINT_SET_JSON))
			at += snprintf(buf + at, len - at, " %s %s", r->word,
				       rc_setting_format(r, rc_setting_value(r, p), num,
							 sizeof(num)));
	}
	return at < len ? at : len - 1;
}

void print_slots_text(FILE *f, const struct rc_backend *b)
{
	uint16_t i;

	for (i = 0; i < b->nslots; i++)
		fprintf(f, "%s%u", i ? "," : " slots ", b->slots[i]);
}

void print_settings_text(FILE *f, enum rc_obj obj, const void *p, unsigned int how)
{
	char buf[256];

	print_settings(buf, sizeof(buf), obj, p, how);
	fputs(buf, f);
	/* The backend's list, after its settings: not part of a forward line. */
	if (obj == RC_OBJ_BACKEND && !(how & PRINT_SET_FORWARD))
		print_slots_text(f, p);
}

void print_settings_json(struct json *j, enum rc_obj obj, const void *p,
			 unsigned int how)
{
	const struct rc_setting *r;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj != obj || !shown(r, p, how | PRINT_SET_JSON))
			continue;
		if (r->names)
			json_str(j, r->json, rc_enum_name(r->names, rc_setting_value(r, p)));
		else
			json_u64(j, r->json, rc_setting_value(r, p));
	}
	if (obj == RC_OBJ_BACKEND && ((const struct rc_backend *)p)->nslots) {
		const struct rc_backend *b = p;

		json_arr_begin(j, "slots");
		for (i = 0; i < b->nslots; i++)
			json_u64(j, NULL, b->slots[i]);
		json_arr_end(j);
	}
}

void print_forward_text(FILE *f, const struct rc_service *s)
{
	print_settings_text(f, RC_OBJ_SERVICE, s, PRINT_SET_FORWARD);
}

void print_forward_json(struct json *j, const struct rc_service *s)
{
	print_settings_json(j, RC_OBJ_SERVICE, s, PRINT_SET_FORWARD);
}

void print_service_id_json(struct json *j, const struct rc_service *s, bool family)
{
	char addr[RC_ADDR_LEN];

	if (family)
		json_str(j, "family", rc_family_name(s->vip.family));
	rc_addr_format(addr, &s->vip);
	json_str(j, "vip", addr);
	json_u64(j, "port", s->vip.port);
	json_str(j, "proto", rc_proto_name(s->proto));
}
