/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The print layer's JSON writer (prefix json_) for -j output: one compact
 * line per document, keys in the order written. Inside objects pass a key, inside
 * arrays and at the top level pass NULL.
 */
#ifndef RINGCTL_JSON_H
#define RINGCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, unsigned long long v);
void json_s64(struct json *j, const char *key, long long v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline; all objects must be closed. */
void json_finish(struct json *j);

#endif /* RINGCTL_JSON_H */
