// SPDX-License-Identifier: GPL-2.0
/*
 * Every row of the settings table (settings.h) at a value other than its
 * default, walked one by one: its keyword parses back to the same value
 * from what print_settings() writes; it is read from the attribute the
 * kernel puts; the requests that take it and its type are the spec's; save writes it (but the checker's
 * health) and restore reads it back; show -j has it under its JSON name;
 * monitor names it in a set's line, text and JSON; restore's plan
 * changes it (a fixed one by re-creating the service, health never).
 * A setting missing from any of them fails here, so a new row is covered
 * without a new test. The enum words come from the spec (enums-gen.c).
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"
#include "parse.h"
#include "print.h"
#include "restore_plan.h"
#include "settings.h"
#include "show_print.h"

/*
 * The requests' shapes as the spec gives them, the fuzzer's view of
 * kmod/uapi/ringsteer.yaml (tools/ynl/fuzz-spec-gen.py), through the
 * header msg.c includes it by.
 */
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#include "../fuzz/spec.h"

/* A value of R other than its default: its last word, or a number. */
static uint32_t other_value(const struct rc_setting *r)
{
	if (r->names)
		return r->names->e[r->names->e[r->names->n - 1].value == r->def ?
				   0 : r->names->n - 1].value;
	return r->def == r->max ? r->min : r->max;
}

/*
 * A service with one backend, every setting at its default but R at V and
 * R's parents at the values R needs.
 */
static void build(struct rc_config *c, const struct rc_setting *r, uint32_t v)
{
	struct rc_service s = { .vip = { .family = AF_INET, .addr = { 10, 0, 0, 1 }, .port = 80 },
				.proto = IPPROTO_TCP };
	struct rc_backend b = { .ep = { .family = AF_INET, .addr = { 10, 0, 0, 2 }, .port = 80 } };
	void *p = r->obj == RC_OBJ_SERVICE ? (void *)&s : (void *)&b;
	const struct rc_setting *up;

	memset(c, 0, sizeof(*c));
	rc_setting_put(r, p, v);
	for (up = r; up->parent != RC_NO_PARENT; up = &rc_settings[up->parent])
		rc_setting_put(&rc_settings[up->parent], p, up->parent_value);
	rc_config_add_service(c, &s);
	rc_service_add_backend(&c->s[0], &b);
}

static void *obj_of(struct rc_config *c, const struct rc_setting *r)
{
	return r->obj == RC_OBJ_SERVICE ? (void *)&c->s[0] : (void *)&c->s[0].b[0];
}

/* " word value": how every text output names R at V. */
static void words(char *buf, size_t len, const struct rc_setting *r, uint32_t v)
{
	char num[16];

	snprintf(buf, len, " %s %s", r->word, rc_setting_format(r, v, num, sizeof(num)));
}

static char *captured_output(FILE *f, char **text)
{
	fclose(f);
	return *text;
}

TEST(every_row_parses_back_from_its_words)
{
	unsigned int k, ops = RC_SOP_ADD | RC_SOP_SET;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		char line[256], *argv[32], *save, *w;
		struct rc_service s, svc;
		struct rc_backend b;
		struct rc_config c;
		struct parse_args a;
		int argc = 0, ret;

		build(&c, r, v);
		snprintf(line, sizeof(line), r->obj == RC_OBJ_SERVICE ? "10.0.0.1:80" :
			 "10.0.0.1:80 10.0.0.2:80");
		print_settings(line + strlen(line), sizeof(line) - strlen(line), r->obj,
			       obj_of(&c, r), PRINT_SET_SETS);
		for (w = strtok_r(line, " ", &save); w && argc < 32; w = strtok_r(NULL, " ", &save))
			argv[argc++] = w;
		capture();
		if (r->obj == RC_OBJ_SERVICE)
			ret = parse_service_args("t", argc, argv,
						 parse_settings_kw(RC_OBJ_SERVICE, ops), &s, &a);
		else
			ret = parse_backend_args("t", argc, argv,
						 parse_settings_kw(RC_OBJ_BACKEND, ops), &svc, &b, &a);
		captured();
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", r->word, errbuf);
		EXPECT_TRUE(rc_setting_given(r, r->obj == RC_OBJ_SERVICE ? (void *)&s : &b))
			TH_LOG("%s not given", r->word);
		EXPECT_EQ(v, rc_setting_value(r, r->obj == RC_OBJ_SERVICE ? (void *)&s : &b))
			TH_LOG("%s", r->word);
		rc_config_free(&c);
	}
}

TEST(every_row_but_health_is_saved_and_restored)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		char *text = NULL, want[64];
		struct rc_config c, back;
		size_t len = 0;
		FILE *f;
		int ret;

		build(&c, r, v);
		f = open_memstream(&text, &len);
		print_config(f, &c);
		captured_output(f, &text);
		words(want, sizeof(want), r, v);
		if (r->flags & RC_SF_CHECKER) {
			EXPECT_EQ(NULL, strstr(text, want)) TH_LOG("%s saved:\n%s", r->word, text);
		} else {
			EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s not saved:\n%s", r->word, text);
			f = fmemopen(text, len, "r");
			capture();
			ret = parse_config(f, "t", "saved", &back);
			captured();
			fclose(f);
			ASSERT_EQ(0, ret) TH_LOG("%s: %s", r->word, errbuf);
			EXPECT_EQ(v, rc_setting_value(r, obj_of(&back, r))) TH_LOG("%s", r->word);
			rc_config_free(&back);
		}
		free(text);
		rc_config_free(&c);
	}
}

TEST(every_row_is_in_show_json)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		char *text = NULL, want[64];
		struct rc_config c;
		size_t len = 0;
		FILE *f;

		build(&c, r, v);
		f = open_memstream(&text, &len);
		print_show_json(f, &c);
		captured_output(f, &text);
		if (r->names)
			snprintf(want, sizeof(want), "\"%s\":\"%s\"", r->json,
				 rc_enum_name(r->names, v));
		else
			snprintf(want, sizeof(want), "\"%s\":%u", r->json, v);
		EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s not in %s", want, text);
		free(text);
		rc_config_free(&c);
	}
}

/* A set's announcement of the object, printed as monitor prints it. */
static char *monitor_line(const struct rc_setting *r, struct rc_config *c, bool json)
{
	struct rc_event ev = { .has_service = true };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ev.s = c->s[0];
	ev.s.b = NULL;
	ev.s.nb = ev.s.capb = 0;
	ev.cmd = RINGSTEER_CMD_SERVICE_SET;
	if (r->obj == RC_OBJ_BACKEND) {
		ev.s.has = 0;
		ev.b = c->s[0].b[0];
		ev.has_backend = true;
		ev.cmd = RINGSTEER_CMD_BACKEND_SET;
	}
	cli_json = json;
	cmd_monitor_print(f, &ev, "set");
	cli_json = false;
	return captured_output(f, &text);
}

TEST(every_row_is_in_monitors_set_lines)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		char *text, want[64];
		struct rc_config c;

		build(&c, r, v);
		text = monitor_line(r, &c, false);
		words(want, sizeof(want), r, v);
		EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s not in %s", want, text);
		free(text);
		text = monitor_line(r, &c, true);
		snprintf(want, sizeof(want), "\"%s\":", r->json);
		EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s not in %s", want, text);
		free(text);
		rc_config_free(&c);
	}
}

/* The operation of PLAN that carries R, or NULL. */
static const struct rc_op *op_with(const struct rc_plan *p, const struct rc_setting *r,
				   enum rc_op_kind kind)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->ops[i].kind == kind &&
		    rc_setting_given(r, r->obj == RC_OBJ_SERVICE ? (void *)&p->ops[i].s :
				     (void *)&p->ops[i].b))
			return &p->ops[i];
	return NULL;
}

TEST(every_row_is_compared_by_restore)
{
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		struct rc_config live, want;
		const struct rc_op *op;
		struct rc_plan p;

		build(&want, r, v);
		/* The same but R at its default: its parents too if it is fixed. */
		build(&live, r, v);
		rc_setting_put(r, obj_of(&live, r), r->def);
		ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
		if (r->flags & RC_SF_CHECKER) {
			EXPECT_EQ(0, p.n) TH_LOG("%s restored", r->word);
		} else if (r->flags & RC_SF_FIXED) {
			op = op_with(&p, r, RC_OP_SERVICE_NEW);
			ASSERT_NE(NULL, op) TH_LOG("%s: no service re-created", r->word);
			EXPECT_EQ(v, rc_setting_value(r, &op->s));
		} else {
			op = op_with(&p, r, r->obj == RC_OBJ_SERVICE ? RC_OP_SERVICE_SET :
				     RC_OP_BACKEND_SET);
			ASSERT_NE(NULL, op) TH_LOG("%s: restore does not set it", r->word);
			EXPECT_EQ(v, rc_setting_value(r, r->obj == RC_OBJ_SERVICE ?
						      (void *)&op->s : (void *)&op->b));
		}
		rc_plan_free(&p);
		rc_config_free(&live);
		rc_config_free(&want);
	}
}

/* Row R (and its parents) at its value in P, as the kernel puts it. */
static void put_row(struct nlmsghdr *nlh, const struct rc_setting *r, const void *p)
{
	const struct rc_setting *up;

	for (up = r; ; up = &rc_settings[up->parent]) {
		if (up->type == RC_T_PORT)
			mnl_attr_put_u16(nlh, up->attr, htons(rc_setting_value(up, p)));
		else
			mnl_attr_put_u32(nlh, up->attr, rc_setting_value(up, p));
		if (up->parent == RC_NO_PARENT)
			break;
	}
}

/* FAMILY, ADDR and PORT, the attributes at FIRST and the next two. */
static void put_id(struct nlmsghdr *nlh, unsigned int first, const struct rc_endpoint *ep)
{
	mnl_attr_put_u16(nlh, first, ep->family);
	mnl_attr_put(nlh, first + 1, 4, ep->addr);
	mnl_attr_put_u16(nlh, first + 2, htons(ep->port));
}

TEST(every_row_is_read_from_the_kernels_attributes)
{
	_Static_assert(RINGSTEER_SERVICE_A_ADDR == RINGSTEER_SERVICE_A_FAMILY + 1 &&
		       RINGSTEER_SERVICE_A_PORT == RINGSTEER_SERVICE_A_FAMILY + 2 &&
		       RINGSTEER_BACKEND_A_ADDR == RINGSTEER_BACKEND_A_FAMILY + 1 &&
		       RINGSTEER_BACKEND_A_PORT == RINGSTEER_BACKEND_A_FAMILY + 2, "put_id()");
	unsigned int k;

	for (k = 0; k < rc_nsettings; k++) {
		const struct rc_setting *r = &rc_settings[k];
		uint32_t v = other_value(r);
		char buf[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct genlmsghdr *g;
		struct rc_event ev;
		struct nlattr *nest;
		struct rc_config c;

		build(&c, r, v);
		g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		g->cmd = RINGSTEER_CMD_BACKEND_SET;
		nest = mnl_attr_nest_start(nlh, RINGSTEER_A_SERVICE);
		put_id(nlh, RINGSTEER_SERVICE_A_FAMILY, &c.s[0].vip);
		mnl_attr_put_u8(nlh, RINGSTEER_SERVICE_A_PROTO, IPPROTO_TCP);
		if (r->obj == RC_OBJ_SERVICE)
			put_row(nlh, r, &c.s[0]);
		mnl_attr_nest_end(nlh, nest);
		nest = mnl_attr_nest_start(nlh, RINGSTEER_A_BACKEND);
		put_id(nlh, RINGSTEER_BACKEND_A_FAMILY, &c.s[0].b[0].ep);
		if (r->obj == RC_OBJ_BACKEND)
			put_row(nlh, r, &c.s[0].b[0]);
		mnl_attr_nest_end(nlh, nest);
		ASSERT_EQ(0, nl_event_parse(nlh, &ev)) TH_LOG("%s", r->word);
		EXPECT_TRUE(rc_setting_given(r, r->obj == RC_OBJ_SERVICE ? (void *)&ev.s : &ev.b))
			TH_LOG("%s not read", r->word);
		EXPECT_EQ(v, rc_setting_value(r, r->obj == RC_OBJ_SERVICE ? (void *)&ev.s : &ev.b))
			TH_LOG("%s", r->word);
		nl_event_free(&ev);
		rc_config_free(&c);
	}
}

/*
 * The table against the spec: what service-new, service-set, backend-new
 * and backend-set take beyond a service's or backend's name is exactly
 * the rows those requests take, each of the spec's type. A setting the
 * spec adds and the table lacks fails here.
 */
TEST(the_rows_are_the_specs_settings)
{
	static const struct {
		uint8_t cmd;
		enum rc_obj obj;
		unsigned int op;
	} reqs[] = {
		{ RINGSTEER_CMD_SERVICE_NEW, RC_OBJ_SERVICE, RC_SOP_ADD },
		{ RINGSTEER_CMD_SERVICE_SET, RC_OBJ_SERVICE, RC_SOP_SET },
		{ RINGSTEER_CMD_BACKEND_NEW, RC_OBJ_BACKEND, RC_SOP_ADD },
		{ RINGSTEER_CMD_BACKEND_SET, RC_OBJ_BACKEND, RC_SOP_SET },
	};
	const uint64_t svc_id = B(RINGSTEER_SERVICE_A_FAMILY) | B(RINGSTEER_SERVICE_A_ADDR) |
				B(RINGSTEER_SERVICE_A_PORT) | B(RINGSTEER_SERVICE_A_PROTO);
	const uint64_t be_id = B(RINGSTEER_BACKEND_A_FAMILY) | B(RINGSTEER_BACKEND_A_ADDR) |
			       B(RINGSTEER_BACKEND_A_PORT);
	/*
	 * Not rows: a backend's slots and a chained service's kept rings are
	 * lists, with code of their own.
	 */
	const uint64_t lists = B(RINGSTEER_BACKEND_A_SLOTS);
	const uint64_t svc_lists = B(RINGSTEER_SERVICE_A_KEPT_RINGS) | B(RINGSTEER_SERVICE_A_KEPT);
	unsigned int i, k, nest;
	uint64_t takes, rows;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		const struct fz_cmd_spec *spec = &fz_specs[reqs[i].cmd];

		takes = reqs[i].obj == RC_OBJ_SERVICE ? spec->svc & ~(svc_id | svc_lists) :
			spec->be & ~(be_id | lists);
		nest = reqs[i].obj == RC_OBJ_SERVICE ? RINGSTEER_A_SERVICE : RINGSTEER_A_BACKEND;
		rows = 0;
		for (k = 0; k < rc_nsettings; k++) {
			const struct rc_setting *r = &rc_settings[k];

			if (r->obj != reqs[i].obj || !(r->ops & reqs[i].op))
				continue;
			rows |= B(r->attr);
			EXPECT_EQ(r->type == RC_T_PORT ? K_BE16 : K_U32, fz_req_kind[nest][r->attr])
				TH_LOG("%s: not the spec's type", r->word);
		}
		EXPECT_EQ(takes, rows) TH_LOG("command %u: the spec's %#llx, the table's %#llx",
					      reqs[i].cmd, (unsigned long long)takes,
					      (unsigned long long)rows);
	}
}

/* The spec's words, both ways, and a clear message for a wrong one. */
TEST(enum_words_come_from_the_spec)
{
	char buf[64];
	uint32_t v;

	EXPECT_EQ(0, rc_enum_parse(&rc_enum_hash_mode, "source", &v));
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, v);
	EXPECT_EQ(-EINVAL, rc_enum_parse(&rc_enum_hash_mode, "Source", &v));
	EXPECT_STREQ("draining", rc_enum_name(&rc_enum_backend_state, RINGSTEER_STATE_DRAINING));
	EXPECT_STREQ("?", rc_enum_name(&rc_enum_backend_state, 99));
	EXPECT_STREQ("service, keep or reset",
		     rc_enum_words(&rc_enum_backend_on_down, buf, sizeof(buf)));
	EXPECT_STREQ("ipip or gue", rc_enum_words(&rc_enum_encap, buf, sizeof(buf)));
}

TEST_HARNESS_MAIN
