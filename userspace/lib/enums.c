// SPDX-License-Identifier: GPL-2.0
/* The spec's enum words, both ways; see enums.h. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enums.h"

const char *rc_enum_name(const struct rc_enum *t, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].value == v)
			return t->e[i].name;
	return "?";
}

int rc_enum_parse(const struct rc_enum *t, const char *s, uint32_t *v)
{
	unsigned int i;

	for (i = 0; s && i < t->n; i++)
		if (!strcmp(s, t->e[i].name)) {
			*v = t->e[i].value;
			return 0;
		}
	return -EINVAL;
}

const char *rc_enum_words(const struct rc_enum *t, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < t->n && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s",
			       !i ? "" : i + 1 == t->n ? " or " : ", ", t->e[i].name);
	return buf;
}
