/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Part of the model (prefix rc_): every per-service and per-backend
 * setting as a row of one table, rc_settings[]. The parse layer reads
 * keywords with it, the netlink layer puts and gets attributes with it,
 * the print layer writes show, show -j, save and monitor with it, and
 * restore's plan compares with it, and the usage lines (and from them the
 * shell completion) list it, so a new setting is a field, a presence bit
 * and a row index in model.h and a row in settings.c, then its words in
 * ringctl.8. Counters and other values only the kernel reports are not
 * settings.
 */
#ifndef RINGCTL_SETTINGS_H
#define RINGCTL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "generated/enums-gen.h"
#include "model.h"

enum rc_obj { RC_OBJ_SERVICE, RC_OBJ_BACKEND };

/* How the model holds the value (the attribute's type follows). */
enum rc_stype {
	RC_T_U32,	/* uint32_t, NLA_U32 */
	RC_T_PORT,	/* uint16_t, a big-endian NLA_U16 */
};

/* The requests that take a setting (row.ops). */
#define RC_SOP_ADD	(1U << 0)	/* service or backend add, a file's line */
#define RC_SOP_SET	(1U << 1)

/* row.flags */
/* Written (save, show's line, an add's announcement) only when not the default. */
#define RC_SF_QUIET_DEFAULT	(1U << 0)
/* Fixed once created: a set may name it only as it is; restore re-creates. */
#define RC_SF_FIXED		(1U << 1)
/* The health checker's: never in a file, never restored, never in an add. */
#define RC_SF_CHECKER		(1U << 2)
/* Not appended to show's table line (it has a column, or is left to -j). */
#define RC_SF_SHOW_QUIET	(1U << 3)
/* A word that follows its parent's value ("encap gue port N") and goes with it. */
#define RC_SF_SUB		(1U << 4)

#define RC_NO_PARENT	(-1)

struct rc_setting {
	const char *word;	/* command line, files, text output */
	const char *json;	/* show -j, monitor -j */
	enum rc_obj obj;
	uint16_t attr;		/* RINGSTEER_SERVICE_A_* or RINGSTEER_BACKEND_A_* */
	enum rc_stype type;
	const struct rc_enum *names;	/* its words; NULL: a number */
	uint32_t min, max;	/* of a number */
	uint32_t def;		/* the kernel's default */
	unsigned int has;	/* RC_HAS_* */
	size_t off;		/* in struct rc_service or struct rc_backend */
	unsigned int ops;	/* RC_SOP_* */
	unsigned int flags;	/* RC_SF_* */
	/* It applies only while row PARENT (of the same object) is PARENT_VALUE. */
	int parent;
	uint32_t parent_value;
	/* What a bad value's message wants; NULL: the words, or MIN..MAX. */
	const char *want;
};

/* parse.h gives each a keyword bit of its 64, after 16 others. */
#define RC_SETTINGS_MAX 48
extern const struct rc_setting rc_settings[];
extern const unsigned int rc_nsettings;

/* The row's value in P (a struct rc_service or rc_backend), given or not. */
uint32_t rc_setting_get(const struct rc_setting *r, const void *p);
/* Set it, and its RC_HAS_* bit. */
void rc_setting_put(const struct rc_setting *r, void *p, uint32_t v);
bool rc_setting_given(const struct rc_setting *r, const void *p);
/* What the kernel has: the value given, else the default. */
uint32_t rc_setting_value(const struct rc_setting *r, const void *p);
/* Whether it means anything in P: its parents have their values there. */
bool rc_setting_applies(const struct rc_setting *r, const void *p);
/* Whether R is ANCESTOR or one of its children, grandchildren, ... */
bool rc_setting_under(const struct rc_setting *r, int ancestor);
/* "tunnel", "4096": the value as the text output and files write it. */
const char *rc_setting_format(const struct rc_setting *r, uint32_t v, char *buf, size_t len);
/* Whether P gives a setting of OBJ that a set changes (not just names). */
bool rc_settings_changed(enum rc_obj obj, const void *p);
/*
 * A usage line: LEAD ("Usage: ringctl service add"), ARGS, the settings of
 * OBJ that OP takes ("[vnodes N] [encap ipip|gue [port N]]"; a set leaves
 * out the fixed ones), then EXTRA, wrapped at 80 columns. Shells' completion
 * reads the settings from these lines: a new row needs no other edit there.
 */
void rc_settings_synopsis(FILE *f, const char *lead, const char *args, enum rc_obj obj,
			  unsigned int op, const char *extra);
/* The row of the same word for the other object (on-down), or NULL. */
const struct rc_setting *rc_setting_twin(const struct rc_setting *r);

/* Effective values: the request's, else the kernel's defaults (rc_settings[]). */
uint32_t rc_service_vnodes(const struct rc_service *s);
uint32_t rc_backend_weight(const struct rc_backend *b);
uint32_t rc_service_hash(const struct rc_service *s);
uint32_t rc_backend_state(const struct rc_backend *b);
uint32_t rc_service_on_down(const struct rc_service *s);
/* RINGSTEER_BACKEND_ON_DOWN_SERVICE unless RC_HAS_ON_DOWN says otherwise. */
uint32_t rc_backend_on_down(const struct rc_backend *b);
/* Up unless RC_HAS_HEALTH says down. */
uint32_t rc_backend_health(const struct rc_backend *b);
/* On the ring, as the kernel decides it: active and up. */
bool rc_backend_on_ring(const struct rc_backend *b);
uint32_t rc_service_forward(const struct rc_service *s);
uint32_t rc_service_placement(const struct rc_service *s);
uint32_t rc_service_capacity(const struct rc_service *s);
uint32_t rc_service_encap(const struct rc_service *s);
uint16_t rc_service_encap_port(const struct rc_service *s);
/* chain: 1 (off) unless an encap gue service gives more. */
uint32_t rc_service_chain(const struct rc_service *s);

#endif /* RINGCTL_SETTINGS_H */
