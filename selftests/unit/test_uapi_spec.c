// SPDX-License-Identifier: GPL-2.0
/*
 * The YNL spec (kmod/uapi/ringsteer.yaml) and the uapi header agree on
 * every command, attribute, enum, constant and type, and the ops flagged
 * admin are those the module registers so. The comparison is done by
 * uapi_spec.py; the mutation tests prove that it fails when they differ.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SELF "selftests/unit/test_uapi_spec.c"
#define SKIP_STATUS 4

/* The source tree, from this file's path as the compiler saw it. */
static const char *root(void)
{
	static char buf[4096];
	size_t len = strlen(__FILE__) - strlen(SELF);

	if (strlen(__FILE__) < strlen(SELF) || strcmp(__FILE__ + len, SELF))
		return ".";
	if (!len)
		return ".";
	snprintf(buf, sizeof(buf), "%.*s", (int)len, __FILE__);
	return buf;
}

/* Runs uapi_spec.py with ARGS; its exit status, or -1. */
static int spec(const char *args)
{
	char cmd[8192];
	int st;

	snprintf(cmd, sizeof(cmd), "python3 %s/selftests/unit/uapi_spec.py %s 2>&1",
		 root(), args);
	fflush(stdout);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, len + 1);
	if (buf && fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/*
 * A scratch copy of the yaml with the first FROM replaced by TO; runs the
 * checker on it and returns its exit status (-2 if FROM is not there).
 */
static int mutated(const char *from, const char *to, const char *checks)
{
	char path[] = "/tmp/rs_uapi_specXXXXXX", yaml[4096], args[8192];
	char *text, *at;
	FILE *f;
	int fd, ret;

	snprintf(yaml, sizeof(yaml), "%s/kmod/uapi/ringsteer.yaml", root());
	text = slurp(yaml);
	if (!text)
		return -1;
	at = strstr(text, from);
	if (!at) {
		free(text);
		return -2;
	}
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		free(text);
		return -1;
	}
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	fclose(f);
	free(text);
	snprintf(args, sizeof(args), "--yaml %s %s", path, checks);
	ret = spec(args);
	unlink(path);
	return ret;
}

#define CHECK(name)					\
TEST(name)						\
{							\
	int st = spec(#name);				\
							\
	if (st == SKIP_STATUS)				\
		SKIP(return, "python3-yaml missing");	\
	ASSERT_EQ(0, st);				\
}

CHECK(consts)
CHECK(enums)
CHECK(attrs)
CHECK(ops)
CHECK(types)
CHECK(refs)
CHECK(mcgrps)
CHECK(admin)

/* Each mutation must be caught: the checks above can fail. */
#define MUTATION(name, from, to, checks)			\
TEST(catches_##name)						\
{								\
	int st = mutated(from, to, checks);			\
								\
	if (st == SKIP_STATUS)					\
		SKIP(return, "python3-yaml missing");		\
	ASSERT_NE(-2, st) TH_LOG("'%s' not in the yaml", from);	\
	ASSERT_EQ(1, st);					\
}

MUTATION(renamed_attribute, "name: vnodes\n", "name: vnode-count\n", "attrs")
MUTATION(renamed_op, "name: key-get\n", "name: key-read\n", "ops")
MUTATION(renamed_enum_entry, "name: draining\n", "name: drain\n", "enums")
MUTATION(wrong_const, "value: 4096\n", "value: 4095\n", "consts")
MUTATION(wrong_type, "name: proto\n        type: u8\n",
	 "name: proto\n        type: u16\n", "types")
MUTATION(little_endian_port, "byte-order: big-endian\n", "byte-order: little-endian\n",
	 "types")
MUTATION(dangling_nest, "nested-attributes: flow\n", "nested-attributes: flows\n",
	 "refs")
MUTATION(renamed_mcgrp, "      name: config\n", "      name: changes\n", "mcgrps")
MUTATION(admin_dropped, "      flags: [ uns-admin-perm ]\n", "", "admin")

TEST_HARNESS_MAIN
