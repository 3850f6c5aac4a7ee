// SPDX-License-Identifier: GPL-2.0
/*
 * "ringctl plan" of a placement slots service: the flows' backends before
 * and after are the slots table's (kmod/slots.c, built as
 * kmod/placement.c builds it), not a ring's; the moved share is the
 * rule's; a backend added or reweighted takes the slots "backend add" and
 * "set" would pick; collateral is counted over the flows and is 0; the
 * offline fingerprint is the kernel's.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "ring_util.h"
#include "slots.h"
#include "change.h"
#include "cmd.h"
#include "parse.h"
#include "preview.h"

#define NFLOWS 20000

/* 10.0.0.1:80 tcp, placement slots capacity 16: .1 holds 0,1; .2 holds 2; .3 holds 3. */
static void service(struct rc_service *s)
{
	static const uint16_t held[3][2] = { { 0, 1 }, { 2 }, { 3 } };
	static const uint16_t n[3] = { 2, 1, 1 };
	struct rc_backend b;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->vip = (struct rc_endpoint){ .family = AF_INET, .addr = { 10, 0, 0, 1 }, .port = 80 };
	s->proto = IPPROTO_TCP;
	rc_setting_put(&rc_settings[RC_SET_PLACEMENT], s, RINGSTEER_PLACEMENT_SLOTS);
	rc_setting_put(&rc_settings[RC_SET_CAPACITY], s, 16);
	for (i = 0; i < 3; i++) {
		memset(&b, 0, sizeof(b));
		b.ep = (struct rc_endpoint){ .family = AF_INET,
					     .addr = { 10, 0, 1, (u8)(i + 1) }, .port = 80 };
		b.weight = n[i];
		b.state = RINGSTEER_STATE_ACTIVE;
		b.has = RC_HAS_WEIGHT | RC_HAS_STATE;
		b.slots = (uint16_t *)held[i];
		b.nslots = n[i];
		if (!rc_service_add_backend(s, &b))
			abort();
	}
}

static void flows(struct rs_flow *f, uint32_t n)
{
	u64 seed = 41;
	uint32_t i;

	memset(f, 0, n * sizeof(*f));
	for (i = 0; i < n; i++) {
		u64 v = rnd_next(&seed);

		f[i].family = AF_INET;
		f[i].proto = IPPROTO_TCP;
		memcpy(f[i].saddr, &v, 4);
		f[i].sport = htons((u16)(v >> 40));
		f[i].daddr[0] = 10;
		f[i].daddr[3] = 1;
		f[i].dport = htons(80);
	}
}

/* The backend holding @pos's slot in a table of 16 built here from @h. */
static struct rc_endpoint direct_owner(const struct rs_slot_holder *h, u32 n, u64 pos)
{
	struct rs_slots *t = rs_slots_build(4, h, n);
	struct rc_endpoint e = { .family = AF_INET, .addr = { 10, 0, 1, 0 }, .port = 80 };
	int m = rs_slots_lookup(t, pos);

	/* Members in identity order: 10.0.1.1, .2, .3, .9. */
	e.addr[3] = m == 3 ? 9 : (u8)(m + 1);
	rs_slots_free(t);
	return e;
}

/*
 * Before the fix plan built the service's ring of 256 points a backend
 * and read every flow's backend off it: wrong for about two flows in
 * three here. Now both sides come from the slots table.
 */
TEST(plan_flows_follow_the_slots_table)
{
	static const struct rs_slot_holder before[] = { { 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 2 } };
	static const struct rs_slot_holder after[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 2 }, { 4, 3 },
	};
	static struct rs_flow f[NFLOWS];
	static struct rc_endpoint b1[NFLOWS], b2[NFLOWS];
	uint16_t four[] = { 4 };
	struct rc_backend nb = { .ep = { .family = AF_INET, .addr = { 10, 0, 1, 9 }, .port = 80 },
				 .weight = 1, .state = RINGSTEER_STATE_ACTIVE,
				 .has = RC_HAS_WEIGHT | RC_HAS_STATE, .slots = four, .nslots = 1 };
	struct rc_preview_flows fl = { .f = f, .n = NFLOWS, .before = b1, .after = b2 };
	struct rc_service a, b;
	struct rc_preview p;
	struct rs_key k;
	uint32_t i, moved = 0;

	service(&a);
	service(&b);
	ASSERT_NE(NULL, rc_service_add_backend(&b, &nb));
	flows(f, NFLOWS);
	rs_key_init(&k, test_key);
	ASSERT_EQ(0, rc_preview_compute(test_key, &a, test_key, &b, &nb.ep, &fl, &p));
	for (i = 0; i < NFLOWS; i++) {
		u64 pos = rs_flow_position(&k, &f[i], RINGSTEER_HASH_FLOW);
		struct rc_endpoint w1 = direct_owner(before, 4, pos);
		struct rc_endpoint w2 = direct_owner(after, 5, pos);

		ASSERT_EQ(0, rc_endpoint_cmp(&w1, &b1[i])) TH_LOG("flow %u before", i);
		ASSERT_EQ(0, rc_endpoint_cmp(&w2, &b2[i])) TH_LOG("flow %u after", i);
		/* Only to the new backend. */
		if (rc_endpoint_cmp(&b1[i], &b2[i])) {
			ASSERT_EQ(0, rc_endpoint_cmp(&nb.ep, &b2[i]));
			moved++;
		}
	}
	/* One new live slot of five: a fifth by rule, and about that sampled. */
	EXPECT_TRUE(fabs(p.moved - 0.2) < 1e-9) TH_LOG("moved %f", p.moved);
	EXPECT_TRUE(p.collateral == 0);
	EXPECT_TRUE(fabs(moved / (double)NFLOWS - 0.2) < 0.02) TH_LOG("%u moved", moved);
	rc_preview_free(&p);
	rc_service_free(&a);
	rc_service_free(&b);
}

static int plan(const char *line, const struct rc_service *live, struct rc_service *after,
		struct rc_preview_req *r)
{
	char buf[256], *argv[24], *save = NULL, *w;
	int argc = 0, err;

	snprintf(buf, sizeof(buf), "plan %s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 24; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	capture();
	err = cmd_plan_parse(argc, argv, r) ?: rc_change_apply("plan", r, live, after);
	captured();
	return err;
}

static const struct rc_backend *be(const struct rc_service *s, u8 last)
{
	struct rc_endpoint e = { .family = AF_INET, .addr = { 10, 0, 1, last }, .port = 80 };

	return rc_service_find_backend(s, &e);
}

TEST(plan_picks_slots_as_the_commands_do)
{
	struct rc_service live, after;
	struct rc_preview_req r;
	struct rc_preview p;
	const struct rc_backend *b;

	service(&live);
	ASSERT_EQ(0, plan("backend add 10.0.0.1:80 10.0.1.9:80 weight 2", &live, &after, &r));
	b = be(&after, 9);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(2, b->nslots);
	EXPECT_EQ(4, b->slots[0]);
	EXPECT_EQ(5, b->slots[1]);
	ASSERT_EQ(0, rc_preview_compute(test_key, &live, test_key, &after, &r.b.ep, NULL, &p));
	EXPECT_TRUE(p.by_rule);
	EXPECT_TRUE(fabs(p.moved - 2.0 / 6) < 1e-9) TH_LOG("moved %f", p.moved);
	EXPECT_TRUE(p.collateral == 0);
	rc_preview_free(&p);
	rc_service_free(&after);

	/* A higher weight keeps its slots and takes the lowest free. */
	ASSERT_EQ(0, plan("backend set 10.0.0.1:80 10.0.1.2:80 weight 3", &live, &after, &r));
	b = be(&after, 2);
	ASSERT_EQ(3, b->nslots);
	EXPECT_EQ(2, b->slots[0]);
	EXPECT_EQ(4, b->slots[1]);
	EXPECT_EQ(5, b->slots[2]);
	rc_service_free(&after);
	/*
	 * A lower one gives up its highest: slot 1's quarter of the flows
	 * spreads over the three live slots left, a third back to .1.
	 */
	ASSERT_EQ(0, plan("backend set 10.0.0.1:80 10.0.1.1:80 weight 1", &live, &after, &r));
	b = be(&after, 1);
	ASSERT_EQ(1, b->nslots);
	EXPECT_EQ(0, b->slots[0]);
	ASSERT_EQ(0, rc_preview_compute(test_key, &live, test_key, &after, &r.b.ep, NULL, &p));
	EXPECT_TRUE(fabs(p.moved - 0.25 * 2 / 3) < 1e-9) TH_LOG("moved %f", p.moved);
	EXPECT_TRUE(p.collateral == 0);
	rc_preview_free(&p);
	rc_service_free(&after);
	/* Slots given are taken as given, and checked as the kernel does. */
	ASSERT_EQ(0, plan("backend set 10.0.0.1:80 10.0.1.3:80 slots 9", &live, &after, &r));
	EXPECT_EQ(9, be(&after, 3)->slots[0]);
	rc_service_free(&after);
	EXPECT_NE(0, plan("backend add 10.0.0.1:80 10.0.1.9:80 slots 2", &live, &after, &r));
	EXPECT_NE(NULL, strstr(errbuf, "held by another backend")) TH_LOG("%s", errbuf);
	rc_service_free(&after);
	EXPECT_NE(0, plan("backend add 10.0.0.1:80 10.0.1.9:80 weight 20", &live, &after, &r));
	EXPECT_NE(NULL, strstr(errbuf, "fewer free slots")) TH_LOG("%s", errbuf);
	rc_service_free(&after);
	rc_service_free(&live);
}

/* Drain and delete move exactly the backend's live slots' flows. */
TEST(plan_drain_and_del_by_rule)
{
	static const char *const lines[] = {
		"backend drain 10.0.0.1:80 10.0.1.1:80",
		"backend del 10.0.0.1:80 10.0.1.1:80",
	};
	struct rc_service live, after;
	struct rc_preview_req r;
	struct rc_preview p;
	unsigned int i;

	service(&live);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, plan(lines[i], &live, &after, &r));
		ASSERT_EQ(0, rc_preview_compute(test_key, &live, test_key, &after, &r.b.ep, NULL,
						&p));
		EXPECT_TRUE(fabs(p.moved - 0.5) < 1e-9) TH_LOG("%s: %f", lines[i], p.moved);
		EXPECT_TRUE(p.collateral == 0);
		rc_preview_free(&p);
		rc_service_free(&after);
	}
	rc_service_free(&live);
}

/* A capacity change reads every probe at another width: sampled. */
TEST(plan_capacity_is_sampled)
{
	struct rc_service live, after;
	struct rc_preview_req r;
	struct rc_preview p;

	service(&live);
	ASSERT_EQ(0, plan("service set 10.0.0.1:80 placement slots capacity 8", &live, &after, &r));
	ASSERT_EQ(0, rc_preview_compute(test_key, &live, test_key, &after, NULL, NULL, &p));
	EXPECT_TRUE(p.sampled);
	EXPECT_TRUE(p.moved > 0 && p.moved < 1) TH_LOG("moved %f", p.moved);
	rc_preview_free(&p);
	rc_service_free(&after);
	EXPECT_NE(0, plan("service set 10.0.0.1:80 placement slots capacity 2", &live, &after, &r));
	EXPECT_NE(NULL, strstr(errbuf, "beyond the new capacity")) TH_LOG("%s", errbuf);
	rc_service_free(&after);
	rc_service_free(&live);
}

/*
 * The kernel's fingerprint of a slots service (kmod/nlmsg.c): its ring,
 * of one point a slot, then the table over it. ringctl's offline one was
 * the ring's of vnodes points alone, blind to the slots.
 */
TEST(fingerprint_is_the_kernels)
{
	struct rs_slot_holder h[] = { { 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 2 } };
	struct rc_config c = { 0 };
	struct rs_member m[3];
	struct rs_slots *t;
	struct rs_ring *ring;
	struct rc_service s;
	u64 fp, first;
	uint32_t i;

	for (i = 0; i < 3; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		m[i].family = AF_INET;
		m[i].addr[0] = 10;
		m[i].addr[2] = 1;
		m[i].addr[3] = (u8)(i + 1);
		m[i].port = htons(80);
		m[i].weight = i ? 1 : 2;
	}
	ring = rs_ring_build(test_key, m, 3, 1);
	t = rs_slots_build(4, h, 4);
	ASSERT_FALSE(IS_ERR(ring));
	ASSERT_FALSE(IS_ERR(t));
	ASSERT_EQ(0, rs_ring_fingerprint(ring, RINGSTEER_HASH_FLOW, &fp));
	ASSERT_EQ(0, rs_slots_fingerprint(t, fp, &fp));
	rs_ring_free(ring);
	rs_slots_free(t);

	memcpy(c.key, test_key, sizeof(c.key));
	service(&s);
	ASSERT_NE(NULL, rc_config_add_service(&c, &s));
	for (i = 0; i < s.nb; i++)
		ASSERT_NE(NULL, rc_service_add_backend(&c.s[0], &s.b[i]));
	ASSERT_EQ(0, rc_config_fingerprints(&c));
	EXPECT_EQ(fp, c.s[0].fingerprint);
	first = c.s[0].fingerprint;
	c.s[0].b[2].slots[0] = 7;
	ASSERT_EQ(0, rc_config_fingerprints(&c));
	EXPECT_NE(first, c.s[0].fingerprint);
	rc_config_free(&c);
	rc_service_free(&s);
}

TEST_HARNESS_MAIN
