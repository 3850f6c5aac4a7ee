// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl simulate" end to end: the flows mode prints the owner the ring
 * code computes (issue 4 compares it with the kernel), bad input prints
 * nothing on stdout, and -j output is well formed.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ring_util.h"
#include "ringmath.h"
#include "cli.h"
#include "cmd.h"
#include "parse.h"

static char *slurp(FILE *f)
{
	long len = lseek(fileno(f), 0, SEEK_END);
	char *buf = calloc(1, len + 1);

	if (len > 0 && pread(fileno(f), buf, len, 0) != len)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* Runs cmd_simulate with stdout and stderr captured into strings. */
static int run2(char **out, char **err, const char *const *args)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int argc = 0, so, se, ret;
	char *argv[64];

	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	/* Each run is a fresh ringctl: no -j left over from the last one. */
	cli_json = false;
	fflush(stdout);
	fflush(stderr);
	so = dup(STDOUT_FILENO);
	se = dup(STDERR_FILENO);
	dup2(fileno(o), STDOUT_FILENO);
	dup2(fileno(e), STDERR_FILENO);
	ret = cmd_simulate(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, STDOUT_FILENO);
	dup2(se, STDERR_FILENO);
	close(so);
	close(se);
	*out = slurp(o);
	*err = slurp(e);
	return ret;
}

static int run(char **out, const char *const *args)
{
	char *err;
	int ret = run2(out, &err, args);

	free(err);
	return ret;
}

TEST(flows_match_ring)
{
	enum { NFLOWS = 2000, NB = 50 };
	char path[] = "/tmp/rs_flowsXXXXXX", *out, *line, *save = NULL;
	struct rs_member m[NB + 1];
	char want[RC_ENDPOINT_LEN];
	const char *args[] = {
		"simulate", "key", "00112233445566778899aabbccddeeff",
		"vnodes", "64", "backends", "50", "backend",
		"[2001:db8::1]:80@3", "flows", path, NULL,
	};
	static const u8 key[16] = {
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};
	struct rs_flow *f = calloc(NFLOWS, sizeof(*f));
	int fd = mkstemp(path), i;
	struct rs_ring *r;
	struct rs_key k;
	FILE *fp;
	u64 s = 5;

	ASSERT_LE(0, fd);
	fp = fdopen(fd, "w");
	for (i = 0; i < NB; i++) {
		ASSERT_EQ(0, parse_member("10.0.0.1:80", &m[i]));
		m[i].addr[3] += i;
	}
	ASSERT_EQ(0, parse_member("[2001:db8::1]:80@3", &m[NB]));
	for (i = 0; i < NFLOWS; i++) {
		char src[RC_ENDPOINT_LEN], dst[RC_ENDPOINT_LEN], pb[8];
		u64 v = rnd_next(&s);

		f[i].family = v & 1 ? AF_INET6 : AF_INET;
		f[i].proto = v & 2 ? IPPROTO_TCP : 47;
		memcpy(f[i].saddr, &v, 4);
		if (f[i].family == AF_INET6)
			memcpy(f[i].saddr + 4, &v, 8);
		f[i].daddr[0] = 100;
		f[i].sport = htons(v >> 48);
		f[i].dport = htons(443);
		sim_endpoint_format(src, f[i].family, f[i].saddr, f[i].sport);
		sim_endpoint_format(dst, f[i].family, f[i].daddr, f[i].dport);
		fprintf(fp, "%s %s %s\n", src, dst, sim_proto_name(f[i].proto, pb));
	}
	fclose(fp);

	ASSERT_EQ(0, run(&out, args));
	unlink(path);
	r = rs_ring_build(key, m, NB + 1, 64);
	ASSERT_FALSE(IS_ERR(r));
	rs_key_init(&k, key);
	line = strtok_r(out, "\n", &save);
	for (i = 0; i < NFLOWS; i++, line = strtok_r(NULL, "\n", &save)) {
		u64 pos = rs_flow_position(&k, &f[i], RINGSTEER_HASH_FLOW);

		ASSERT_NE(NULL, line);
		sim_member_format(want, &r->members[rs_ring_lookup(r, pos)]);
		ASSERT_STREQ(want, strrchr(line, ' ') + 1);
	}
	ASSERT_EQ(NULL, line);
	rs_ring_free(r);
	free(out);
	free(f);
}

TEST(bad_input_prints_nothing)
{
	static const char *const bad[][8] = {
		{ "simulate", NULL },
		{ "simulate", "backends", "0", NULL },
		{ "simulate", "backends", "2", "frob", NULL },
		{ "simulate", "backends", "2", "key", "abc", NULL },
		{ "simulate", "backends", "2", "remove", "10.9.9.9:80", NULL },
		{ "simulate", "backends", "2", "add", "10.0.0.1:80", NULL },
		{ "simulate", "backends", "1000", "vnodes", "2000", NULL },
		{ "simulate", "backends", "2", "flows", "/nonexistent", NULL },
	};
	char *out, *err;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_GT(0, run2(&out, &err, bad[i]))
			TH_LOG("case %u", i);
		EXPECT_STREQ("", out);
		EXPECT_EQ(0, strncmp(err, "ringctl: simulate: ", 19))
			TH_LOG("case %u: %s", i, err);
		free(out);
		free(err);
	}
}

/* Braces and brackets balance outside strings; one line. */
static bool json_shape_ok(const char *s)
{
	int depth = 0;
	bool str = false;

	if (*s != '{')
		return false;
	for (; *s && *s != '\n'; s++) {
		if (str) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				str = false;
		} else if (*s == '"') {
			str = true;
		} else if (*s == '{' || *s == '[') {
			depth++;
		} else if (*s == '}' || *s == ']') {
			if (--depth < 0)
				return false;
		}
	}
	return !depth && !str && s[0] == '\n' && !s[1];
}

TEST(json_and_text)
{
	const char *js[] = {
		"simulate", "-j", "backends", "8", "add", "10.0.0.9:80",
		"sweep", "1,128", "need-vnodes", "1.5", NULL,
	};
	const char *txt[] = {
		"simulate", "backends", "8", "add", "10.0.0.9:80", NULL,
	};
	char *out;

	ASSERT_EQ(0, run(&out, js));
	ASSERT_TRUE(json_shape_ok(out));
	ASSERT_NE(NULL, strstr(out, "\"collateral_positions\":0,"));
	ASSERT_NE(NULL, strstr(out, "\"mod_n\":{\"slots_before\":8,\"slots_after\":9,\"moved\":0.888888888889,\"exact\":true}"));
	free(out);
	ASSERT_EQ(0, run(&out, txt));
	ASSERT_NE(NULL, strstr(out, "(between other backends: 0 positions)"));
	ASSERT_NE(NULL, strstr(out, "88.8889% moved (8 -> 9 slots"));
	free(out);
}

TEST_HARNESS_MAIN
