// SPDX-License-Identifier: GPL-2.0
/* Minimal streaming JSON writer; see json.h. */

#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Comma and key before a value. */
static void prefix(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj_begin(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_obj_end(struct json *j)
{
	close_(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_arr_end(struct json *j)
{
	close_(j, ']');
}

void json_str(struct json *j, const char *key, const char *v)
{
	prefix(j, key);
	put_string(j->f, v);
}

void json_u64(struct json *j, const char *key, unsigned long long v)
{
	prefix(j, key);
	fprintf(j->f, "%llu", v);
}

void json_s64(struct json *j, const char *key, long long v)
{
	prefix(j, key);
	fprintf(j->f, "%lld", v);
}

void json_double(struct json *j, const char *key, double v)
{
	prefix(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.12g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	j->depth = 0;
	j->first[0] = true;
}
