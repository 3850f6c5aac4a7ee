/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The print layer (prefix print_): model structs to text for people and
 * to JSON (-j) for scripts, the two kept apart, what more than one
 * command prints. What one command alone prints is beside it
 * (show_print.c, stats_prom.c, simulate_print.c). No parsing and no
 * netlink I/O here.
 */
#ifndef RINGCTL_PRINT_H
#define RINGCTL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"
#include "settings.h"

/* SHARE attribute (positions owned) as a fraction of the hash space. */
double print_share(uint64_t share);
#define PRINT_FINGERPRINT_LEN 17	/* 16 hex digits and a NUL */
/* A ring fingerprint as the 16 hex digits every output uses. */
const char *print_fingerprint(char buf[PRINT_FINGERPRINT_LEN], uint64_t fp);
/* What print_settings() writes (0: every setting, quiet defaults left out). */
#define PRINT_SET_PRESENT	(1U << 0)	/* only those given (an announcement) */
#define PRINT_SET_SHOW		(1U << 1)	/* show's line: no RC_SF_SHOW_QUIET */
#define PRINT_SET_SETS		(1U << 2)	/* a set's: what it changes, even default */
#define PRINT_SET_FORWARD	(1U << 3)	/* forward and what goes with it */
#define PRINT_SET_JSON		(1U << 4)	/* every one: print_settings_json() */
/*
 * " word value" for each setting of OBJ in P (struct rc_service or
 * rc_backend), in rc_settings[]'s order, as save writes them (its quiet
 * defaults and the checker's health left out) unless HOW says otherwise.
 * Returns the length written to BUF.
 */
size_t print_settings(char *buf, size_t len, enum rc_obj obj, const void *p,
		      unsigned int how);
void print_settings_text(FILE *f, enum rc_obj obj, const void *p, unsigned int how);
/* " slots 0,5,9" of a slots backend, nothing for another. */
void print_slots_text(FILE *f, const struct rc_backend *b);
struct json;
/* Each as a JSON member named row.json, defaults too; HOW as above. */
void print_settings_json(struct json *j, enum rc_obj obj, const void *p,
			 unsigned int how);
/*
 * " forward tunnel encap E [port N]" for a tunnel service, nothing for a
 * NAT one: show, fingerprint and the configuration file append it.
 */
void print_forward_text(FILE *f, const struct rc_service *s);
/* The same as JSON members ("forward", and "encap", "encap_port" of a tunnel). */
void print_forward_json(struct json *j, const struct rc_service *s);
/*
 * A service's identity as JSON members: "family" (when FAMILY), "vip",
 * "port", "proto", as every -j output names it.
 */
void print_service_id_json(struct json *j, const struct rc_service *s, bool family);
/* *c in the configuration file format (cfgfile.c), every setting explicit. */
void print_config(FILE *f, const struct rc_config *c);

#endif /* RINGCTL_PRINT_H */
