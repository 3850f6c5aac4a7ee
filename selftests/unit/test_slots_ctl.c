// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's side of placement slots: "slots N[,N...]" parses sorted and
 * checked, the lowest free slots are what "backend add" picks, a file's
 * slots survive save and restore, and the fingerprint (the code the
 * kernel runs, ring_fingerprint.c) changes with the slots and the
 * placement; monitor prints an announced backend's slots and a service's
 * placement.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "ring_util.h"
#include "slots.h"
#include "parse.h"
#include "print.h"
#include "restore_plan.h"
#include "nl_ops.h"
#include "cli.h"
#include "cmd.h"
#include "change.h"

/* "backend add VIP BACKEND WORDS..." as backend.c parses it. */
static int parse_add(const char *words, struct rc_backend *b)
{
	char buf[256], *argv[16], *save = NULL, *w;
	struct rc_service s;
	struct parse_args a;
	int argc = 0, ret;

	snprintf(buf, sizeof(buf), "10.0.0.1:80 10.0.1.1:80 %s", words);
	for (w = strtok_r(buf, " ", &save); w && argc < 16; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	capture();
	ret = parse_backend_args("backend add", argc, argv,
				 PARSE_KW_PROTO | PARSE_KW_SLOTS |
				 parse_settings_kw(RC_OBJ_BACKEND, RC_SOP_ADD), &s, b, &a);
	captured();
	return ret;
}

TEST(slots_parse_sorted_and_checked)
{
	struct rc_backend b;

	ASSERT_EQ(0, parse_add("slots 9,1,5", &b));
	ASSERT_EQ(3, b.nslots);
	EXPECT_EQ(1, b.slots[0]);
	EXPECT_EQ(5, b.slots[1]);
	EXPECT_EQ(9, b.slots[2]);
	free(b.slots);
	ASSERT_EQ(0, parse_add("slots 17 weight 1", &b));
	ASSERT_EQ(1, b.nslots);
	EXPECT_EQ(17, b.slots[0]);
	free(b.slots);
	ASSERT_EQ(0, parse_add("weight 2", &b));
	EXPECT_EQ(0, b.nslots);
	EXPECT_EQ(NULL, b.slots);

	EXPECT_EQ(-EINVAL, parse_add("slots 3,3", &b));
	EXPECT_NE(NULL, strstr(errbuf, "given twice")) TH_LOG("%s", errbuf);
	EXPECT_NE(0, parse_add("slots 65536", &b));
	EXPECT_NE(0, parse_add("slots 1,,2", &b));
	EXPECT_NE(0, parse_add("slots x", &b));
	EXPECT_NE(0, parse_add("slots", &b));
}

/* An empty placement slots service of capacity CAP. */
static void slots_service(struct rc_service *s, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	s->vip.family = AF_INET;
	s->vip.port = 80;
	s->proto = IPPROTO_TCP;
	rc_setting_put(&rc_settings[RC_SET_PLACEMENT], s, RINGSTEER_PLACEMENT_SLOTS);
	rc_setting_put(&rc_settings[RC_SET_CAPACITY], s, cap);
}

static bool hold(struct rc_service *s, uint8_t last, uint16_t *slots, uint16_t n)
{
	struct rc_backend b = { .ep = { .family = AF_INET, .addr = { 10, 0, 1, last },
					.port = 80 } };

	b.slots = slots;
	b.nslots = n;
	return rc_service_add_backend(s, &b);
}

TEST(lowest_free_slots)
{
	uint16_t a[] = { 0, 2 }, b[] = { 1, 6 }, out[4];
	struct rc_service s;

	slots_service(&s, 8);
	ASSERT_EQ(0, rc_service_free_slots(&s, 3, out));
	EXPECT_EQ(0, out[0]);
	ASSERT_TRUE(hold(&s, 1, a, 2));
	ASSERT_TRUE(hold(&s, 2, b, 2));
	/* The copies are the service's: the callers' arrays may go. */
	a[0] = 7;
	ASSERT_EQ(0, rc_service_free_slots(&s, 4, out));
	EXPECT_EQ(3, out[0]);
	EXPECT_EQ(4, out[1]);
	EXPECT_EQ(5, out[2]);
	EXPECT_EQ(7, out[3]);
	EXPECT_EQ(-ENOSPC, rc_service_free_slots(&s, 5, out));
	rc_service_free(&s);
}

TEST(weight_change_keeps_lowest_and_adds_free)
{
	uint16_t a[] = { 2, 5, 9 }, other[] = { 0, 3 }, out[5];
	struct rc_service s;

	slots_service(&s, 16);
	ASSERT_TRUE(hold(&s, 1, a, 3));
	ASSERT_TRUE(hold(&s, 2, other, 2));
	/* Lower: its highest go. */
	ASSERT_EQ(0, rc_backend_pick_slots(&s, &s.b[0], 2, out));
	EXPECT_EQ(2, out[0]);
	EXPECT_EQ(5, out[1]);
	/* Higher: the lowest free join, the result sorted. */
	ASSERT_EQ(0, rc_backend_pick_slots(&s, &s.b[0], 5, out));
	EXPECT_EQ(1, out[0]);
	EXPECT_EQ(2, out[1]);
	EXPECT_EQ(4, out[2]);
	EXPECT_EQ(5, out[3]);
	EXPECT_EQ(9, out[4]);
	/* A new backend: the lowest free only. */
	ASSERT_EQ(0, rc_backend_pick_slots(&s, NULL, 2, out));
	EXPECT_EQ(1, out[0]);
	EXPECT_EQ(4, out[1]);
	rc_service_free(&s);
}

TEST(save_and_restore_keep_slots)
{
	static const char conf[] =
		"service 10.0.0.1:80 proto tcp placement slots capacity 64\n"
		"backend 10.0.1.1:80 weight 2 slots 3,40\n"
		"backend 10.0.1.2:80 slots 7\n";
	struct rc_config c = { 0 }, again = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = fmemopen((void *)conf, strlen(conf), "r");
	capture();
	ret = parse_config(f, "restore", "conf", &c);
	captured();
	ASSERT_EQ(0, ret) TH_LOG("%s", errbuf);
	fclose(f);
	ASSERT_EQ(1, c.ns);
	EXPECT_EQ(RINGSTEER_PLACEMENT_SLOTS, rc_service_placement(&c.s[0]));
	EXPECT_EQ(64, rc_service_capacity(&c.s[0]));
	ASSERT_EQ(2, c.s[0].nb);
	ASSERT_EQ(2, c.s[0].b[0].nslots);
	EXPECT_EQ(40, c.s[0].b[0].slots[1]);

	f = open_memstream(&text, &len);
	print_config(f, &c);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "placement slots capacity 64")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, " slots 3,40\n")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, " slots 7\n")) TH_LOG("%s", text);

	f = fmemopen(text, strlen(text), "r");
	capture();
	ret = parse_config(f, "restore", "saved", &again);
	captured();
	ASSERT_EQ(0, ret) TH_LOG("%s\n%s", errbuf, text);
	fclose(f);
	ASSERT_EQ(2, again.s[0].nb);
	ASSERT_EQ(1, again.s[0].b[1].nslots);
	EXPECT_EQ(7, again.s[0].b[1].slots[0]);
	free(text);
	rc_config_free(&c);
	rc_config_free(&again);
}

/* A config line, parsed into a fresh config; 0 or the error (in errbuf). */
static int parse_conf_text(const char *text, struct rc_config *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	memset(c, 0, sizeof(*c));
	capture();
	ret = parse_config(f, "restore", "conf", c);
	captured();
	fclose(f);
	return ret;
}

/*
 * vnodes means nothing to a slots service (its ring has a point a slot):
 * refused in a file and on the command line, never written by save, even
 * when the kernel reports the service's vnodes.
 */
TEST(vnodes_refused_for_slots)
{
	char buf[128], *argv[8], *save = NULL, *w, *text = NULL;
	struct rc_config c;
	struct rc_service s;
	struct parse_args a;
	int argc = 0, ret;
	size_t len = 0;
	FILE *f;

	ret = parse_conf_text("service 10.0.0.1:80 proto tcp vnodes 256 placement slots capacity 64\n", &c);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(errbuf, "vnodes applies to placement ring only")) TH_LOG("%s", errbuf);
	rc_config_free(&c);
	ASSERT_EQ(0, parse_conf_text("service 10.0.0.1:80 vnodes 7\n", &c)) TH_LOG("%s", errbuf);
	EXPECT_EQ(7, rc_service_vnodes(&c.s[0]));
	rc_config_free(&c);

	snprintf(buf, sizeof(buf), "10.0.0.1:80 placement slots vnodes 4");
	for (w = strtok_r(buf, " ", &save); w && argc < 8; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	capture();
	ret = parse_service_args("service add", argc, argv,
				 parse_settings_kw(RC_OBJ_SERVICE, RC_SOP_ADD), &s, &a) ?:
	      parse_check_new_service("service add", &s);
	captured();
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(errbuf, "service add: vnodes applies to placement ring only"))
		TH_LOG("%s", errbuf);

	/* As show and save read a live slots service: vnodes reported. */
	ASSERT_EQ(0, parse_conf_text("service 10.0.0.1:80 placement slots capacity 64\n", &c));
	rc_setting_put(&rc_settings[RC_SET_VNODES], &c.s[0], RINGSTEER_DEFAULT_VNODES);
	EXPECT_EQ(1, rc_service_vnodes(&c.s[0]));
	f = open_memstream(&text, &len);
	print_config(f, &c);
	fclose(f);
	EXPECT_EQ(NULL, strstr(text, "vnodes")) TH_LOG("%s", text);
	free(text);
	rc_config_free(&c);
}

TEST(restore_sets_moved_slots)
{
	uint16_t was[] = { 3 }, now[] = { 5 };
	struct rc_config live = { 0 }, want = { 0 };
	struct rc_service s;
	struct rc_plan p;

	slots_service(&s, 16);
	ASSERT_NE(NULL, rc_config_add_service(&live, &s));
	ASSERT_NE(NULL, rc_config_add_service(&want, &s));
	ASSERT_TRUE(hold(&live.s[0], 1, was, 1));
	ASSERT_TRUE(hold(&want.s[0], 1, now, 1));
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(1, p.n);
	EXPECT_EQ(RC_OP_BACKEND_SET, p.ops[0].kind);
	ASSERT_EQ(1, p.ops[0].b.nslots);
	EXPECT_EQ(5, p.ops[0].b.slots[0]);
	rc_plan_free(&p);
	/* The same slots: nothing to do. */
	ASSERT_EQ(0, rc_plan_restore(&want, &want, 0, &p));
	EXPECT_EQ(0, p.n);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

/* The fingerprint of a slots table over RING with member 0 at S0, member 1 at S1. */
static u64 slots_fp(const struct rs_ring *ring, u64 ring_fp, u32 s0, u32 s1)
{
	struct rs_slot_holder h[] = { { s0, 0 }, { s1, 1 } };
	struct rs_slots *t = rs_slots_build(4, h, 2);
	u64 fp = 0;

	if (IS_ERR(t) || rs_slots_fingerprint(t, ring_fp, &fp))
		fp = 0;
	if (!IS_ERR(t))
		rs_slots_free(t);
	return fp;
}

TEST(fingerprint_covers_slots_and_placement)
{
	struct rs_member m[2];
	struct rs_ring *ring;
	u64 ring_fp, a, b, c;

	memset(m, 0, sizeof(m));
	m[0].family = m[1].family = AF_INET;
	m[0].addr[0] = m[1].addr[0] = 10;
	m[0].addr[3] = 1;
	m[1].addr[3] = 2;
	m[0].port = m[1].port = htons(80);
	m[0].weight = m[1].weight = 1;
	ring = rs_ring_build(test_key, m, 2, 1);
	ASSERT_FALSE(IS_ERR(ring));
	ASSERT_EQ(0, rs_ring_fingerprint(ring, RINGSTEER_HASH_FLOW, &ring_fp));
	a = slots_fp(ring, ring_fp, 0, 1);
	b = slots_fp(ring, ring_fp, 0, 2);
	c = slots_fp(ring, ring_fp, 1, 0);
	ASSERT_NE(0, a);
	EXPECT_NE(ring_fp, a);		/* placement slots is not the ring */
	EXPECT_NE(a, b);		/* a slot moved */
	EXPECT_NE(a, c);		/* two backends swapped slots */
	EXPECT_EQ(a, slots_fp(ring, ring_fp, 0, 1));
	rs_ring_free(ring);
}

/* An announcement as the kernel builds it (rs_notify_build()). */
static struct nlmsghdr *event_msg(char *buf, uint8_t cmd, bool slots_service,
				  const uint16_t *slots, uint16_t n)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	static const uint8_t vip[4] = { 10, 0, 0, 1 }, be[4] = { 10, 0, 1, 1 };
	struct nlattr *nest;

	g->cmd = cmd;
	nest = mnl_attr_nest_start(nlh, RINGSTEER_A_SERVICE);
	mnl_attr_put_u16(nlh, RINGSTEER_SERVICE_A_FAMILY, AF_INET);
	mnl_attr_put(nlh, RINGSTEER_SERVICE_A_ADDR, 4, vip);
	mnl_attr_put_u16(nlh, RINGSTEER_SERVICE_A_PORT, htons(80));
	mnl_attr_put_u8(nlh, RINGSTEER_SERVICE_A_PROTO, IPPROTO_TCP);
	if (slots_service) {
		mnl_attr_put_u32(nlh, RINGSTEER_SERVICE_A_PLACEMENT, RINGSTEER_PLACEMENT_SLOTS);
		mnl_attr_put_u32(nlh, RINGSTEER_SERVICE_A_CAPACITY, 64);
	}
	mnl_attr_nest_end(nlh, nest);
	if (!n)
		return nlh;
	nest = mnl_attr_nest_start(nlh, RINGSTEER_A_BACKEND);
	mnl_attr_put_u16(nlh, RINGSTEER_BACKEND_A_FAMILY, AF_INET);
	mnl_attr_put(nlh, RINGSTEER_BACKEND_A_ADDR, 4, be);
	mnl_attr_put_u16(nlh, RINGSTEER_BACKEND_A_PORT, htons(80));
	mnl_attr_put_u32(nlh, RINGSTEER_BACKEND_A_WEIGHT, n);
	mnl_attr_put(nlh, RINGSTEER_BACKEND_A_SLOTS, n * sizeof(*slots), slots);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* What monitor prints for NLH, as text or -j. */
static char *monitor_print(const struct nlmsghdr *nlh, const char *verb, bool json)
{
	struct rc_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (nl_event_parse(nlh, &ev))
		return NULL;
	f = open_memstream(&text, &len);
	cli_json = json;
	cmd_monitor_print(f, &ev, verb);
	cli_json = false;
	fclose(f);
	nl_event_free(&ev);
	return text;
}

TEST(monitor_prints_slots_and_placement)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], *text;
	static const uint16_t slots[] = { 3, 17 };
	struct nlmsghdr *nlh;

	nlh = event_msg(buf, RINGSTEER_CMD_BACKEND_NEW, false, slots, 2);
	text = monitor_print(nlh, "backend add", false);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("backend add 10.0.0.1:80 10.0.1.1:80 proto tcp weight 2 slots 3,17\n",
		     text);
	free(text);
	text = monitor_print(nlh, "backend add", true);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"slots\":[3,17]")) TH_LOG("%s", text);
	free(text);

	nlh = event_msg(buf, RINGSTEER_CMD_SERVICE_NEW, true, NULL, 0);
	text = monitor_print(nlh, "service add", false);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, " placement slots capacity 64")) TH_LOG("%s", text);
	free(text);
	text = monitor_print(nlh, "service add", true);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"placement\":\"slots\",\"capacity\":64"))
		TH_LOG("%s", text);
	free(text);
}

TEST_HARNESS_MAIN
