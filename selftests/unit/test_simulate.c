// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl simulate" end to end: the flows mode prints the owner the ring
 * code computes (issue 4 compares it with the kernel), bad input prints
 * nothing on stdout, and -j output is well formed. Placement slots: the
 * owner the slots code computes, balance by rule and sampled at 10 to
 * 4,000 backends (all active, a fifth draining), collateral counted 0 on
 * every kind of change, C/L probes, and the side by side with the ring
 * and Maglev. Slot numbers given ("backend ADDR slots N,M", "add ... slots
 * N") are the table's, the others' picked around them.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ring_util.h"
#include "ringmath.h"
#include "slots.h"
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

/* The number after KEY, searched from the first ANCHOR on; NAN if none. */
static double num(const char *out, const char *anchor, const char *key)
{
	const char *a = anchor ? strstr(out, anchor) : out;
	char pat[64];

	if (!a)
		return NAN;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	a = strstr(a, pat);
	return a ? strtod(a + strlen(pat), NULL) : NAN;
}

/* simulate -j WORDS... (space separated), its output; NULL if it failed. */
static char *sim_json(const char *words)
{
	char buf[512], *argv[40], *save = NULL, *w, *out;
	int argc = 0;

	snprintf(buf, sizeof(buf), "simulate -j %s", words);
	for (w = strtok_r(buf, " ", &save); w && argc < 39; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (run(&out, (const char *const *)argv)) {
		free(out);
		return NULL;
	}
	return out;
}

static u32 capacity_for(u32 n)
{
	u32 c = 2;

	while (c < n)
		c *= 2;
	return c;
}

/*
 * Balance at N backends, a fifth of them draining or none: by rule
 * every active backend's share is its weight's to within 1% (exactly, up
 * to the scan); on the 1,000,000 sampled flows its count is within the
 * sampling floor. The floor checked is 1 + 3 sqrt(N/F) up to 100
 * backends; beyond, the largest of N binomial counts is itself above 3
 * deviations (3.1 at 1,000, 3.5 at 4,000), a perfect placement's
 * too (hash mod N on the same flows, printed beside it), so there it is
 * 1 + 4.5 sqrt(N/F).
 */
static void balance(struct __test_metadata *_metadata, u32 n, bool fifth)
{
	char words[128], *out;
	double live, floor, pm, mod, probes, cap = capacity_for(n);

	snprintf(words, sizeof(words), "backends %u placement slots capacity %u draining %u",
		 n, (u32)cap, fifth ? n / 5 : 0);
	out = sim_json(words);
	ASSERT_NE(NULL, out) TH_LOG("%s", words);
	live = num(out, NULL, "slots_live");
	ASSERT_EQ(n - (fifth ? n / 5 : 0), live);
	EXPECT_LE(num(out, "\"rule\"", "max_ratio"), 1.01);
	EXPECT_GE(num(out, "\"rule\"", "min_ratio"), 0.99);
	pm = num(out, "\"sampled\"", "peak_mean");
	mod = num(out, "\"sampled_mod_n\"", "peak_mean");
	probes = num(out, "\"sampled\"", "probes_mean");
	floor = 1 + (live <= 100 ? 3 : 4.5) * sqrt(live / 1e6);
	printf("# %4u backends%s in %5u slots: sampled peak/mean %.4f (hash mod N %.4f, floor %.4f), %.3f probes (C/L %.3f)\n",
	       n, fifth ? ", a fifth draining," : "", (u32)cap, pm, mod, floor, probes,
	       cap / live);
	fflush(stdout);	/* the harness's child leaves by _exit() */
	EXPECT_LE(pm, floor);
	EXPECT_LE(fabs(probes - cap / live), 0.02 * cap / live);
	free(out);
}

TEST(slots_balance_10) { balance(_metadata, 10, false); }
TEST(slots_balance_100) { balance(_metadata, 100, false); }
TEST(slots_balance_1000) { balance(_metadata, 1000, false); }
TEST(slots_balance_4000) { balance(_metadata, 4000, false); }
TEST(slots_balance_10_fifth_draining) { balance(_metadata, 10, true); }
TEST(slots_balance_100_fifth_draining) { balance(_metadata, 100, true); }
TEST(slots_balance_1000_fifth_draining) { balance(_metadata, 1000, true); }
TEST(slots_balance_4000_fifth_draining) { balance(_metadata, 4000, true); }

/* Half the slot space held: two probes a lookup on average. */
TEST(slots_probes_at_half_capacity)
{
	char *out = sim_json("backends 512 placement slots capacity 1024");

	ASSERT_NE(NULL, out);
	EXPECT_LE(fabs(num(out, "\"sampled\"", "probes_mean") - 2), 0.04);
	EXPECT_EQ(0, num(out, "\"sampled\"", "scans"));
	free(out);
}

/*
 * The sweep over capacities: the default runs from the slots held to
 * 65,536; probes follow C/L until the 256th; and where the space is so
 * sparse that the scan answers (800 slots of 32,768 and 65,536), its
 * flows all reach the slot after the one gap: peak/mean is the rule's
 * bound 1 + L (1 - L/C)^256, not 1, and the sample finds it.
 */
TEST(slots_sweep_capacity)
{
	char *out = sim_json("backends 800 placement slots capacity 1024 sweep"), *row;
	double bound, sampled;

	ASSERT_NE(NULL, out);
	row = strstr(out, "\"sweep\":[{\"capacity\":1024,");
	ASSERT_NE(NULL, row);
	EXPECT_EQ(NULL, strstr(out, "\"capacity\":512,"));
	EXPECT_NE(NULL, strstr(row, "\"capacity\":65536,"));
	EXPECT_LE(fabs(num(row, NULL, "probes_mean") - 1024.0 / 800), 0.02);
	EXPECT_LE(num(row, NULL, "peak_mean_max"), 1.0001);
	row = strstr(out, "\"capacity\":65536,");
	bound = num(row, NULL, "peak_mean_max");
	sampled = num(row, "\"sampled\"", "peak_mean");
	printf("# 800 slots of 65,536: peak/mean %.3f sampled, %.3f by rule with the scan\n",
	       sampled, bound);
	fflush(stdout);
	EXPECT_GT(bound, 30);
	EXPECT_LE(fabs(sampled / bound - 1), 0.05);
	EXPECT_EQ(257, num(row, "\"sampled\"", "probes_max"));
	free(out);
}

/*
 * Every kind of change on a slots service of 200 backends, weights 1 to
 * 3, a fifth draining: the sampled flows that move between two backends
 * neither of which is the changed one are counted, and there are none;
 * the rule's move is the ideal one, and the sampled move is within four
 * deviations of it.
 */
TEST(slots_changes_have_no_collateral)
{
	/* The draining fifth: the fifth, tenth ... given (10.0.0.3, .8, .13 ...). */
	static const char *const changes[] = {
		"add 10.0.9.1:80@2", "remove 10.0.0.7:80", "drain 10.0.0.10:80",
		"weight 10.0.0.11:80 3", "weight 10.0.1.9:80 1",
	};
	char words[256], *out;
	unsigned int i;

	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		double moved, ideal, sampled, sd;

		snprintf(words, sizeof(words),
			 "backend 10.0.1.2:80@2 backend 10.0.1.9:80@3 backends 198 "
			 "placement slots capacity 512 draining 40 %s compare", changes[i]);
		out = sim_json(words);
		ASSERT_NE(NULL, out) TH_LOG("%s", words);
		moved = num(out, "\"change\"", "moved");
		ideal = num(out, "\"change\"", "ideal");
		sampled = num(out, "\"sampled\":{\"flows\":1000000,\"moved\"", "moved");
		EXPECT_EQ(0, num(out, "\"change\"", "collateral")) TH_LOG("%s", changes[i]);
		EXPECT_EQ(0, num(out, "\"sampled\":{\"flows\":1000000,\"moved\"", "collateral"))
			TH_LOG("%s", changes[i]);
		EXPECT_LE(fabs(moved - ideal), 1e-9) TH_LOG("%s: %f %f", changes[i], moved, ideal);
		sd = sqrt(moved * (1 - moved) * 1e6);
		EXPECT_LE(fabs(sampled - moved * 1e6), 4 * sd + 1) TH_LOG("%s: %f", changes[i], sampled);
		/* The ring's and the slots' collateral in compare: none either. */
		EXPECT_EQ(0, num(out, "\"placement\":\"ring\"", "collateral"));
		EXPECT_EQ(0, num(out, "\"placement\":\"slots\"", "collateral"));
		printf("# %-22s moved %.4f%% (ideal %.4f%%), sampled %.0f, collateral 0; Maglev's %.0f\n",
		       changes[i], 100 * moved, 100 * ideal, sampled,
		       num(out, "\"placement\":\"maglev\"", "collateral"));
		fflush(stdout);
		free(out);
	}
}

/* The flows mode of a slots service: the kernel's slots code's owner. */
TEST(slots_flows_match_table)
{
	enum { NFLOWS = 3000, NB = 40 };
	char path[] = "/tmp/rs_flowsXXXXXX", *out, *line, *save = NULL;
	char want[RC_ENDPOINT_LEN], want2[RC_ENDPOINT_LEN];
	const char *args[] = {
		"simulate", "backends", "40", "placement", "slots", "capacity", "64",
		"add", "10.0.0.100:80@3", "flows", path, NULL,
	};
	struct rs_slot_holder h[NB + 3];
	struct rs_member m[NB + 1];
	struct rs_slots *t, *t2;
	struct rs_ring *r, *r2;
	struct rs_flow f;
	struct rs_key k;
	int fd = mkstemp(path), i;
	FILE *fp;

	ASSERT_LE(0, fd);
	fp = fdopen(fd, "w");
	for (i = 0; i < NFLOWS; i++)
		fprintf(fp, "192.0.2.%d:%d 198.51.100.1:443 tcp\n", i % 250, 1000 + i);
	fclose(fp);
	ASSERT_EQ(0, run(&out, args));
	unlink(path);
	/* Members in identity order are the backends' order here; slot i each. */
	for (i = 0; i < NB; i++) {
		ASSERT_EQ(0, parse_member("10.0.0.1:80", &m[i]));
		m[i].addr[3] += i;
		h[i] = (struct rs_slot_holder){ (u32)i, (u16)i };
	}
	ASSERT_EQ(0, parse_member("10.0.0.100:80@3", &m[NB]));
	r = rs_ring_build(test_key, m, NB, 1);
	r2 = rs_ring_build(test_key, m, NB + 1, 1);
	for (i = 0; i < 3; i++)
		h[NB + i] = (struct rs_slot_holder){ (u32)(NB + i), NB };
	t = rs_slots_build(6, h, NB);
	t2 = rs_slots_build(6, h, NB + 3);
	ASSERT_FALSE(IS_ERR(t2));
	rs_key_init(&k, test_key);
	line = strtok_r(out, "\n", &save);
	for (i = 0; i < NFLOWS; i++, line = strtok_r(NULL, "\n", &save)) {
		char fl[80], *sp;
		const char *why;
		u64 pos;

		ASSERT_NE(NULL, line);
		snprintf(fl, sizeof(fl), "192.0.2.%d:%d 198.51.100.1:443 tcp", i % 250, 1000 + i);
		ASSERT_EQ(0, parse_flow_line(fl, &f, &why));
		pos = rs_flow_position(&k, &f, RINGSTEER_HASH_FLOW);
		sim_member_format(want, &r->members[rs_slots_lookup(t, pos)]);
		sim_member_format(want2, &r2->members[rs_slots_lookup(t2, pos)]);
		sp = strrchr(line, ' ');
		ASSERT_STREQ(want2, sp + 1);
		*sp = '\0';
		ASSERT_STREQ(want, strrchr(line, ' ') + 1);
	}
	rs_ring_free(r);
	rs_ring_free(r2);
	rs_slots_free(t);
	rs_slots_free(t2);
	free(out);
}

TEST(slots_bad_input_prints_nothing)
{
	static const char *const bad[][10] = {
		{ "simulate", "backends", "2", "capacity", "8", NULL },
		{ "simulate", "backends", "2", "placement", "slots", "capacity", "6", NULL },
		{ "simulate", "backends", "300", "placement", "slots", NULL },
		{ "simulate", "backends", "2", "placement", "slots", "sweep", "100", NULL },
		{ "simulate", "backends", "2", "placement", "slots", "need-vnodes", "1.1", NULL },
		{ "simulate", "backends", "2", "draining", "2", NULL },
		{ "simulate", "backends", "5", "draining", "1", "drain", "10.0.0.5:80", NULL },
		{ "simulate", "backends", "2", "placement", "hash", NULL },
		{ "simulate", "backends", "2", "samples", "10", NULL },
	};
	char *out, *err;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_GT(0, run2(&out, &err, bad[i])) TH_LOG("case %u", i);
		EXPECT_STREQ("", out);
		EXPECT_EQ(0, strncmp(err, "ringctl: simulate: ", 19)) TH_LOG("case %u: %s", i, err);
		free(out);
		free(err);
	}
}

/*
 * The side by side at 100 backends: four placements on the same flows,
 * the ring's peak/mean the exact one simulate prints without compare.
 */
TEST(compare_json)
{
	char *out = sim_json("backends 100 compare"), *plain;
	const char *args[] = { "simulate", "-j", "backends", "100", NULL };

	ASSERT_NE(NULL, out);
	ASSERT_TRUE(json_shape_ok(out));
	EXPECT_NE(NULL, strstr(out, "\"placement\":\"mod-n\",\"buckets\":100,"));
	EXPECT_NE(NULL, strstr(out, "\"placement\":\"maglev\",\"table_size\":65537,"));
	ASSERT_EQ(0, run(&plain, args));
	EXPECT_EQ(num(plain, "\"skew\"", "peak_mean"),
		  num(out, "\"placement\":\"ring\"", "peak_mean"));
	free(plain);
	free(out);
	/* Draining backends leave the ring: 8 of 10 own arcs. */
	out = sim_json("backends 10 draining 2");
	ASSERT_NE(NULL, out);
	EXPECT_EQ(8, num(out, NULL, "backends"));
	EXPECT_EQ(2, num(out, NULL, "draining"));
	EXPECT_EQ(NULL, strstr(out, "\"10.0.0.5:80\""));
	EXPECT_EQ(NULL, strstr(out, "\"10.0.0.10:80\""));
	free(out);
}

/* Members .1 (slots 0,17), .2 (3,40), .3 (picked: 1), and after the add .9 (5). */
static struct rs_slots *given_table(bool after, struct rs_member *m)
{
	struct rs_slot_holder h[] = { { 0, 0 }, { 1, 2 }, { 3, 1 }, { 5, 3 }, { 17, 0 },
				      { 40, 1 } };
	struct rs_slot_holder hb[] = { { 0, 0 }, { 1, 2 }, { 3, 1 }, { 17, 0 }, { 40, 1 } };
	static const char *const eps[] = { "10.0.0.1:80@2", "10.0.0.2:80@2", "10.0.0.3:80",
					   "10.0.0.9:80" };
	int i;

	for (i = 0; i < 4; i++)
		parse_member(eps[i], &m[i]);
	return after ? rs_slots_build(6, h, 6) : rs_slots_build(6, hb, 5);
}

#define GIVEN_WORDS "placement slots capacity 64 backend 10.0.0.3:80 " \
	"backend 10.0.0.1:80 slots 17,0 backend 10.0.0.2:80@2 slots 40,3 add 10.0.0.9:80 slots 5"

TEST(slots_given_are_the_tables)
{
	enum { NFLOWS = 2000 };
	char path[] = "/tmp/rs_flowsXXXXXX", words[512], *out, *line, *save = NULL;
	char want[RC_ENDPOINT_LEN], want2[RC_ENDPOINT_LEN];
	struct rs_member m[4];
	struct rs_slots *t, *t2;
	struct rs_ring *r, *r2;
	struct rs_flow f;
	struct rs_key k;
	int fd = mkstemp(path), i;
	FILE *fp;

	ASSERT_LE(0, fd);
	fp = fdopen(fd, "w");
	for (i = 0; i < NFLOWS; i++)
		fprintf(fp, "192.0.2.%d:%d 198.51.100.1:443 tcp\n", i % 250, 1000 + i);
	fclose(fp);
	snprintf(words, sizeof(words), GIVEN_WORDS " flows %s", path);
	out = sim_json(words);
	unlink(path);
	ASSERT_NE(NULL, out);
	t = given_table(false, m);
	t2 = given_table(true, m);
	ASSERT_FALSE(IS_ERR(t));
	ASSERT_FALSE(IS_ERR(t2));
	r = rs_ring_build(test_key, m, 3, 1);
	r2 = rs_ring_build(test_key, m, 4, 1);
	rs_key_init(&k, test_key);
	line = strstr(out, "\"flows\":[");
	ASSERT_NE(NULL, line);
	for (i = 0; i < NFLOWS; i++) {
		char fl[80], *b;
		const char *why;
		u64 pos;

		snprintf(fl, sizeof(fl), "192.0.2.%d:%d 198.51.100.1:443 tcp", i % 250, 1000 + i);
		ASSERT_EQ(0, parse_flow_line(fl, &f, &why));
		pos = rs_flow_position(&k, &f, RINGSTEER_HASH_FLOW);
		sim_member_format(want, &r->members[rs_slots_lookup(t, pos)]);
		sim_member_format(want2, &r2->members[rs_slots_lookup(t2, pos)]);
		line = strstr(line, "\"backend\":\"");
		ASSERT_NE(NULL, line);
		b = line + strlen("\"backend\":\"");
		ASSERT_EQ(0, strncmp(b, want, strlen(want))) TH_LOG("flow %d: %.40s, want %s", i, b, want);
		line = strstr(line, "\"backend_after\":\"");
		ASSERT_NE(NULL, line);
		b = line + strlen("\"backend_after\":\"");
		ASSERT_EQ(0, strncmp(b, want2, strlen(want2))) TH_LOG("flow %d after: %.40s", i, b);
	}
	(void)save;
	free(out);
	rs_ring_free(r);
	rs_ring_free(r2);
	rs_slots_free(t);
	rs_slots_free(t2);

	/* The report names each backend's slots, those picked too. */
	out = sim_json(GIVEN_WORDS);
	ASSERT_NE(NULL, out);
	ASSERT_TRUE(json_shape_ok(out));
	EXPECT_NE(NULL, strstr(out, "\"backend\":\"10.0.0.1:80\",\"weight\":2,\"slots\":[0,17],"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"backend\":\"10.0.0.3:80\",\"weight\":1,\"slots\":[1],"));
	EXPECT_NE(NULL, strstr(out, "\"type\":\"add\",\"backend\":\"10.0.0.9:80\",\"weight\":1,\"slots\":[5],"));
	EXPECT_EQ(0, num(out, "\"change\"", "collateral"));
	free(out);
}

TEST(slots_given_text_and_picked_change)
{
	const char *args[] = { "simulate", "placement", "slots", "capacity", "64", "backend",
			       "10.0.0.1:80", "slots", "0,2", "backend", "10.0.0.2:80", "shares",
			       "weight", "10.0.0.2:80", "3", NULL };
	char *out;

	ASSERT_EQ(0, run(&out, args));
	EXPECT_NE(NULL, strstr(out, "slots 0,2\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "slots 1\n")) TH_LOG("%s", out);
	/* Picked as "backend set ... weight 3" picks: it keeps 1, takes 3 and 4. */
	EXPECT_NE(NULL, strstr(out, "change: weight 10.0.0.2:80 weight 3 slots 1,3,4\n"))
		TH_LOG("%s", out);
	free(out);
}

TEST(slots_given_bad_input_prints_nothing)
{
	static const char *const bad[][16] = {
		/* A ring service has no slots. */
		{ "simulate", "backend", "10.0.0.1:80", "slots", "3", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3",
		  "backend", "10.0.0.2:80", "slots", "3", NULL },
		{ "simulate", "placement", "slots", "capacity", "64", "backend", "10.0.0.1:80",
		  "slots", "64", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80@2", "slots", "3", NULL },
		{ "simulate", "placement", "slots", "backends", "2", "slots", "3", NULL },
		{ "simulate", "placement", "slots", "slots", "3", "backends", "2", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3",
		  "slots", "4", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3,x", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3",
		  "add", "10.0.0.2:80", "slots", "3", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3",
		  "backend", "10.0.0.2:80", "drain", "10.0.0.1:80", "slots", "4", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "3",
		  "backend", "10.0.0.2:80", "weight", "10.0.0.2:80", "2", "slots", "4", NULL },
		{ "simulate", "placement", "slots", "backend", "10.0.0.1:80", "slots", "40",
		  "sweep", "16,64", NULL },
	};
	char *out, *err;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_GT(0, run2(&out, &err, bad[i])) TH_LOG("case %u", i);
		EXPECT_STREQ("", out) TH_LOG("case %u", i);
		EXPECT_EQ(0, strncmp(err, "ringctl: simulate: ", 19)) TH_LOG("case %u: %s", i, err);
		free(out);
		free(err);
	}
}

/*
 * Errors that name what is wrong: the backend whose slots do not fit (the
 * simulated service has no VIP to name), and a change of a draining
 * backend, which simulate does not take.
 */
TEST(slots_errors_name_the_backend)
{
	static const struct { const char *args[16]; const char *want; } cases[] = {
		{ { "simulate", "placement", "slots", "capacity", "4", "backend", "10.1.0.1:80@3",
		    "backend", "10.1.0.2:80", "weight", "10.1.0.2:80", "3", NULL },
		  "ringctl: simulate: backend 10.1.0.2:80: fewer free slots than its weight (capacity 4)\n" },
		{ { "simulate", "placement", "slots", "capacity", "4", "backend", "10.1.0.1:80@3",
		    "add", "10.1.0.3:80@2", NULL },
		  "ringctl: simulate: backend 10.1.0.3:80: fewer free slots than its weight (capacity 4)\n" },
		{ { "simulate", "placement", "slots", "capacity", "8", "backend", "10.1.0.1:80@3",
		    "backend", "10.1.0.2:80", "draining", "1", "weight", "10.1.0.2:80", "3", NULL },
		  "ringctl: simulate: 10.1.0.2:80 is draining: its weight cannot be changed here" },
	};
	char *out, *err;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_GT(0, run2(&out, &err, cases[i].args)) TH_LOG("case %u", i);
		EXPECT_STREQ("", out) TH_LOG("case %u", i);
		EXPECT_EQ(0, strncmp(err, cases[i].want, strlen(cases[i].want)))
			TH_LOG("case %u: %s", i, err);
		EXPECT_EQ(NULL, strstr(err, "0.0.0.0")) TH_LOG("case %u: %s", i, err);
		free(out);
		free(err);
	}
}

/* A configuration file (the format of save) with TEXT; its path in PATH. */
static void conf_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
}

/*
 * "file FILE": the service's key, placement, capacity, weights, slots and
 * states are the file's, and the report is the one of the same words.
 */
TEST(slots_from_a_saved_file)
{
	static const char conf[] =
		"key 0f0e0d0c0b0a09080706050403020100\n"
		"service 10.9.9.9:80 proto udp\n"
		"\tbackend 10.0.0.7:80\n"
		"service 10.9.9.9:80 proto tcp placement slots capacity 64\n"
		"\tbackend 10.0.0.1:80 weight 2 slots 0,17\n"
		"\tbackend 10.0.0.2:80 weight 2 state active slots 3,40\n"
		"\tbackend 10.0.0.3:80 state draining slots 1\n"
		"\tbackend 10.0.0.4:80 state draining slots 9\n";
	char path[] = "/tmp/rs_confXXXXXX", words[512], *a;

	conf_file(path, conf);
	snprintf(words, sizeof(words), "file %s service 10.9.9.9:80 proto tcp shares add 10.0.0.9:80 slots 5",
		 path);
	a = sim_json(words);
	ASSERT_NE(NULL, a);
	/* Off the ring: .3 and .4 draining (not "draining 2", every second). */
	EXPECT_NE(NULL, strstr(a, "\"capacity\":64,\"backends\":4,\"draining\":2,\"slots_held\":6,"))
		TH_LOG("%s", a);
	EXPECT_NE(NULL, strstr(a, "\"key\":\"0f0e0d0c0b0a09080706050403020100\""));
	EXPECT_NE(NULL, strstr(a, "\"backend\":\"10.0.0.2:80\",\"weight\":2,\"slots\":[3,40],"));
	EXPECT_EQ(NULL, strstr(a, "\"backend\":\"10.0.0.3:80\"")) TH_LOG("draining .3 has a share");
	EXPECT_EQ(NULL, strstr(a, "\"backend\":\"10.0.0.4:80\"")) TH_LOG("draining .4 has a share");
	EXPECT_NE(NULL, strstr(a, "\"type\":\"add\",\"backend\":\"10.0.0.9:80\",\"weight\":1,\"slots\":[5],"));
	EXPECT_EQ(0, num(a, "\"change\"", "collateral"));
	free(a);
	/* The words given win over the file's: the same backends as a ring. */
	snprintf(words, sizeof(words), "file %s service 10.9.9.9:80 proto tcp placement ring vnodes 64",
		 path);
	a = sim_json(words);
	ASSERT_NE(NULL, a);
	EXPECT_NE(NULL, strstr(a, "\"vnodes\":64,\"backends\":2,")) TH_LOG("%s", a);
	free(a);
	unlink(path);
}

TEST(file_bad_input_prints_nothing)
{
	static const char conf[] =
		"service 10.9.9.9:80 proto udp\n"
		"\tbackend 10.0.0.7:80\n"
		"service 10.9.9.9:80 proto tcp\n"
		"\tbackend 10.0.0.1:80\n";
	char path[] = "/tmp/rs_confXXXXXX";
	const char *bad[][12] = {
		/* Two services: name one. */
		{ "simulate", "file", path, NULL },
		{ "simulate", "file", path, "service", "10.9.9.8:80", NULL },
		{ "simulate", "file", path, "service", "10.9.9.9:80", "backends", "3", NULL },
		{ "simulate", "file", path, "service", "10.9.9.9:80", "proto", "udp",
		  "draining", "1", NULL },
		{ "simulate", "backends", "3", "service", "10.9.9.9:80", NULL },
		{ "simulate", "file", "/nonexistent/x.conf", NULL },
	};
	char *out, *err;
	unsigned int i;

	conf_file(path, conf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_GT(0, run2(&out, &err, bad[i])) TH_LOG("case %u", i);
		EXPECT_STREQ("", out) TH_LOG("case %u", i);
		EXPECT_EQ(0, strncmp(err, "ringctl: simulate: ", 19)) TH_LOG("case %u: %s", i, err);
		free(out);
		free(err);
	}
	unlink(path);
}

TEST_HARNESS_MAIN
