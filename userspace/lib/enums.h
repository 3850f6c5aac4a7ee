/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Part of the model (prefix rc_): the words of the spec's enums, both
 * ways. The tables themselves (rc_enum_hash_mode, rc_enum_on_down, ...)
 * are written from kmod/uapi/ringsteer.yaml into enums-gen.c by make gen:
 * the spec's entry names are ringctl's words.
 */
#ifndef RINGCTL_ENUMS_H
#define RINGCTL_ENUMS_H

#include <stddef.h>
#include <stdint.h>

struct rc_enum_entry {
	const char *name;
	uint32_t value;
};

struct rc_enum {
	const char *name;	/* the spec's, for messages */
	const struct rc_enum_entry *e;
	unsigned int n;
};

/* The word of V, or "?" for a value this ringctl does not know. */
const char *rc_enum_name(const struct rc_enum *t, uint32_t v);
/* *V for the word S: 0, or -EINVAL for no such word. */
int rc_enum_parse(const struct rc_enum *t, const char *s, uint32_t *v);
/* "a or b", "a, b or c": what a message says it wants. Returns BUF. */
const char *rc_enum_words(const struct rc_enum *t, char *buf, size_t len);

#endif /* RINGCTL_ENUMS_H */
