// SPDX-License-Identifier: GPL-2.0
/*
 * A chained service's kept rings in files and in restore's plan: "kept"
 * lines read back as written; a file's chain restored by one last
 * service-set after the changes, only where the ring changed or the
 * chain differs; a file's kept rings change its fingerprint.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "parse.h"
#include "preview.h"
#include "print.h"
#include "restore_plan.h"
#include "settings.h"

static const char file[] =
	"# ringsteer configuration (ringctl save); 'ringctl restore' reads it\n"
	"key 00112233445566778899aabbccddeeff\n"
	"service 10.0.0.1:80 proto tcp vnodes 256 hash flow on-down keep forward tunnel "
	"encap gue port 6080 chain 3\n"
	"\tbackend 10.1.0.1 weight 1 state active\n"
	"\tbackend 10.1.0.2 weight 1 state active\n"
	"\tkept 2\n"
	"\tkept 0 10.1.0.3:80 weight 1\n"
	"\tkept 1 10.1.0.2:80 weight 0\n"
	"\tkept 1 10.1.0.3:80 weight 2\n";

static int read_text(const char *text, struct rc_config *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	capture();
	ret = parse_config(f, "t", "file", c);
	captured();
	fclose(f);
	return ret;
}

TEST(kept_lines_read_back_as_written)
{
	struct rc_config c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, read_text(file, &c)) TH_LOG("%s", errbuf);
	ASSERT_TRUE(c.s[0].has_kept);
	EXPECT_EQ(2U, c.s[0].kept_rings);
	ASSERT_EQ(3U, c.s[0].nkept);
	EXPECT_EQ(1, c.s[0].kept[1].ring);
	EXPECT_EQ(0U, c.s[0].kept[1].weight);
	EXPECT_EQ(htons(80), c.s[0].kept[2].port);
	f = open_memstream(&text, &len);
	print_config(f, &c);
	fclose(f);
	EXPECT_STREQ(file, text);
	free(text);
	rc_config_free(&c);
}

TEST(kept_refused_without_chain)
{
	struct rc_config c;

	EXPECT_NE(0, read_text("service 10.0.0.1:80 forward tunnel encap gue\n"
			       "backend 10.1.0.1\nkept 1\n", &c));
	EXPECT_NE(0, read_text("service 10.0.0.1:80 forward tunnel encap gue chain 2\n"
			       "kept 2\n", &c));
	EXPECT_NE(0, read_text("service 10.0.0.1:80 forward tunnel encap gue chain 2\n"
			       "kept 0 10.1.0.3:80\n", &c));
}

/* The plan's last op gives the chain; a NEW op never carries it. */
TEST(plan_sets_the_chain_last)
{
	struct rc_config live = { 0 }, want;
	struct rc_plan p;
	uint32_t i;

	ASSERT_EQ(0, read_text(file, &want));
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_LT(1U, p.n);
	for (i = 0; i + 1 < p.n; i++)
		EXPECT_FALSE(p.ops[i].s.has_kept);
	EXPECT_EQ((int)RC_OP_SERVICE_SET, (int)p.ops[p.n - 1].kind);
	EXPECT_TRUE(p.ops[p.n - 1].s.has_kept);
	EXPECT_EQ(3U, p.ops[p.n - 1].s.nkept);
	rc_plan_free(&p);

	/* The same chain live and nothing else changes: no op. */
	ASSERT_EQ(0, read_text(file, &live));
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	EXPECT_EQ(0U, p.n);
	rc_plan_free(&p);

	/* Another chain live: one set. */
	live.s[0].kept[0].weight = 2;
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(1U, p.n);
	EXPECT_TRUE(p.ops[0].s.has_kept);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

TEST(kept_rings_in_the_fingerprint)
{
	struct rc_config c;
	u64 with, without, other;

	ASSERT_EQ(0, read_text(file, &c));
	ASSERT_EQ(0, rc_config_fingerprints(&c));
	with = c.s[0].fingerprint;
	c.s[0].kept[0].weight = 3;
	ASSERT_EQ(0, rc_config_fingerprints(&c));
	other = c.s[0].fingerprint;
	c.s[0].has_kept = false;
	ASSERT_EQ(0, rc_config_fingerprints(&c));
	without = c.s[0].fingerprint;
	EXPECT_NE(with, other);
	EXPECT_NE(with, without);
	rc_config_free(&c);
}

TEST_HARNESS_MAIN
