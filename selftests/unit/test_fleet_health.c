// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet's health verdict (userspace/fleet/fleet_health.c): a backend goes
 * down when quorum% of the live checkers vote it down and not below;
 * votes of a checker that is not live do not count; no live checker
 * changes nothing; max-down and the last active backend hold fleet-wide,
 * in the same order whatever the order of the keys; a drained backend
 * is not counted by the guards.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <string.h>

#include "kselftest_harness.h"
#include "fleet/fleet_health.h"
#include "parse.h"

static const char conf3[] =
	"service 192.0.2.10:80\n"
	"\tbackend 10.1.0.1:8080\n"
	"\tbackend 10.1.0.2:8080\n"
	"\tbackend 10.1.0.3:8080\n"
	"\tbackend 10.1.0.4:8080\n";

static void load(struct __test_metadata *_metadata, struct rc_config *c, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, parse_config(f, "test", "config", c));
	fclose(f);
	rc_config_sort(c);
}

/* The health fh_decide() gave backend 10.1.0.N:8080: 1 down, 0 up. */
static int down(struct rc_config *c, int n)
{
	char want[32];
	uint32_t i;

	snprintf(want, sizeof(want), "10.1.0.%d", n);
	for (i = 0; i < c->s[0].nb; i++) {
		char ep[RC_ENDPOINT_LEN];

		rc_endpoint_format(ep, &c->s[0].b[i].ep);
		if (!strncmp(ep, want, strlen(want)))
			return (c->s[0].b[i].has & RC_HAS_HEALTH) &&
			       c->s[0].b[i].health == RINGSTEER_HEALTH_DOWN;
	}
	return -1;
}

TEST(vote_key)
{
	struct rc_config c;
	char k[128];

	load(_metadata, &c, conf3);
	ASSERT_EQ(0, fh_vote_key(k, sizeof(k), "lb1", &c.s[0], &c.s[0].b[1].ep));
	EXPECT_STREQ("lb1/tcp/192.0.2.10:80/10.1.0.2:8080", k);
	EXPECT_EQ(-1, fh_vote_key(k, 10, "lb1", &c.s[0], &c.s[0].b[1].ep));
	rc_config_free(&c);
}

TEST(quorum)
{
	char *keys[] = { "a/live", "b/live", "c/live",
			 "a/tcp/192.0.2.10:80/10.1.0.2:8080",
			 "b/tcp/192.0.2.10:80/10.1.0.2:8080",
			 "a/tcp/192.0.2.10:80/10.1.0.3:8080" };
	struct rc_config c;
	uint32_t blocked;

	load(_metadata, &c, conf3);
	/* 2 of 3 is 66%: down at 51%; 1 of 3 is 33%: not. */
	EXPECT_EQ(3, fh_decide(&c, keys, 6, 51, 50, &blocked));
	EXPECT_EQ(0, blocked);
	EXPECT_EQ(0, down(&c, 1));
	EXPECT_EQ(1, down(&c, 2));
	EXPECT_EQ(0, down(&c, 3));
	/* Everyone needed: 2 of 3 is not enough. */
	EXPECT_EQ(3, fh_decide(&c, keys, 6, 100, 50, NULL));
	EXPECT_EQ(0, down(&c, 2));
	/* Any one is enough at 33%. */
	EXPECT_EQ(3, fh_decide(&c, keys, 6, 33, 50, NULL));
	EXPECT_EQ(1, down(&c, 2));
	EXPECT_EQ(1, down(&c, 3));
	rc_config_free(&c);
}

TEST(dead_checker_votes_ignored)
{
	/* b's lease expired: its live key went, a stray vote stays. */
	char *keys[] = { "a/live", "c/live",
			 "a/tcp/192.0.2.10:80/10.1.0.2:8080",
			 "b/tcp/192.0.2.10:80/10.1.0.2:8080" };
	char *none[] = { "b/tcp/192.0.2.10:80/10.1.0.2:8080" };
	struct rc_config c;

	load(_metadata, &c, conf3);
	/* 1 of 2 live: 50% < 51%. */
	EXPECT_EQ(2, fh_decide(&c, keys, 4, 51, 50, NULL));
	EXPECT_EQ(0, down(&c, 2));
	/* No live checker: nothing set at all. */
	c.s[0].b[1].has = 0;
	EXPECT_EQ(0, fh_decide(&c, none, 1, 51, 50, NULL));
	EXPECT_EQ(0, c.s[0].b[1].has & RC_HAS_HEALTH);
	rc_config_free(&c);
}

TEST(guards)
{
	char *keys[] = { "a/live",
			 "a/tcp/192.0.2.10:80/10.1.0.4:8080",
			 "a/tcp/192.0.2.10:80/10.1.0.1:8080",
			 "a/tcp/192.0.2.10:80/10.1.0.3:8080",
			 "a/tcp/192.0.2.10:80/10.1.0.2:8080" };
	char *rev[] = { "a/tcp/192.0.2.10:80/10.1.0.2:8080",
			"a/tcp/192.0.2.10:80/10.1.0.3:8080",
			"a/tcp/192.0.2.10:80/10.1.0.1:8080",
			"a/tcp/192.0.2.10:80/10.1.0.4:8080", "a/live" };
	struct rc_config c;
	uint32_t blocked;

	load(_metadata, &c, conf3);
	/* All four down wanted: 50% lets two go, the lowest two by identity. */
	EXPECT_EQ(1, fh_decide(&c, keys, 5, 51, 50, &blocked));
	EXPECT_EQ(2, blocked);
	EXPECT_EQ(1, down(&c, 1));
	EXPECT_EQ(1, down(&c, 2));
	EXPECT_EQ(0, down(&c, 3));
	EXPECT_EQ(0, down(&c, 4));
	/* The same whatever the keys' order. */
	EXPECT_EQ(1, fh_decide(&c, rev, 5, 51, 50, &blocked));
	EXPECT_EQ(1, down(&c, 1));
	EXPECT_EQ(1, down(&c, 2));
	EXPECT_EQ(0, down(&c, 3));
	/* max-down 100%: still never the last one. */
	EXPECT_EQ(1, fh_decide(&c, keys, 5, 51, 100, &blocked));
	EXPECT_EQ(1, blocked);
	EXPECT_EQ(0, down(&c, 4));
	EXPECT_EQ(1, down(&c, 3));
	rc_config_free(&c);
}

TEST(drained_not_counted)
{
	char *keys[] = { "a/live", "a/tcp/192.0.2.10:80/10.1.0.1:8080",
			 "a/tcp/192.0.2.10:80/10.1.0.2:8080" };
	struct rc_config c;

	load(_metadata, &c,
	     "service 192.0.2.10:80\n"
	     "\tbackend 10.1.0.1:8080 state draining\n"
	     "\tbackend 10.1.0.2:8080\n"
	     "\tbackend 10.1.0.3:8080\n");
	/* The drained one goes down freely; of two active, one may (50%). */
	EXPECT_EQ(1, fh_decide(&c, keys, 3, 51, 50, NULL));
	EXPECT_EQ(1, down(&c, 1));
	EXPECT_EQ(1, down(&c, 2));
	EXPECT_EQ(0, down(&c, 3));
	rc_config_free(&c);
}

TEST_HARNESS_MAIN
