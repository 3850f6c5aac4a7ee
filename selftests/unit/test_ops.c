// SPDX-License-Identifier: GPL-2.0
/*
 * The pure parts of ringctl's operations commands: plan's computation
 * against the shared ring code, the Prometheus formatter, offline
 * fingerprints, the parsing of plan and "drain ... wait", and show's
 * namespace line and fields.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "backend_drain.h"
#include "cmd.h"
#include "endpoint.h"
#include "parse.h"
#include "preview.h"
#include "print.h"
#include "show_print.h"
#include "stats_prom.h"

/* The harness has no tolerance comparison. */
#define EXPECT_NEAR(a, b, eps) EXPECT_TRUE(fabs((double)(a) - (double)(b)) <= (eps))

static const uint8_t key[RINGSTEER_KEY_LEN] = {
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

static struct rc_endpoint ep(const char *s)
{
	struct rc_endpoint e;
	const char *why;

	if (rc_endpoint_parse(s, &e, &why))
		abort();
	return e;
}

static void add(struct rc_service *s, const char *e, uint32_t weight,
		uint32_t state, uint64_t est, uint64_t other)
{
	struct rc_backend b = {
		.ep = ep(e), .weight = weight, .state = state,
		.has = RC_HAS_WEIGHT | RC_HAS_STATE, .has_conns = true,
		.conns_established = est, .conns_other = other,
	};

	if (!rc_service_add_backend(s, &b))
		abort();
}

/* VIP 10.0.0.1:80 tcp, vnodes 256, backends 10.1.0.1..N:80. */
static void three(struct rc_service *s, uint32_t n)
{
	char buf[32];
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->vip = ep("10.0.0.1:80");
	s->proto = 6;
	s->vnodes = 256;
	s->has = RC_HAS_VNODES;
	for (i = 1; i <= n; i++) {
		snprintf(buf, sizeof(buf), "10.1.0.%u:80", i);
		add(s, buf, 1, RINGSTEER_STATE_ACTIVE, 10 * i, i);
	}
}

static double share_of(const struct rc_service *s, const char *who)
{
	struct rc_endpoint e = ep(who);
	struct rs_member m;
	struct rs_ring *r;
	u64 arcs[64];
	int idx;

	r = rc_service_ring(key, s);
	if (IS_ERR(r) || rs_ring_arcs(r, arcs))
		abort();
	rc_member_of(&m, &e, 1);
	idx = rs_ring_find_member(r, &m);
	rs_ring_free(r);
	return idx < 0 ? 0 : arcs[idx] / 18446744073709551616.0;
}

static const struct rc_preview_backend *find(const struct rc_preview *p, const char *who)
{
	struct rc_endpoint e = ep(who);
	uint32_t i;

	for (i = 0; i < p->nb; i++)
		if (!rc_endpoint_cmp(&p->b[i].ep, &e))
			return &p->b[i];
	return NULL;
}

TEST(plan_add_moves_exactly_the_new_share)
{
	struct rc_service a, b;
	struct rc_endpoint x = ep("10.1.0.4:80");
	struct rc_preview p;
	double left = 0, expect_conns = 0;
	uint32_t i;

	three(&a, 3);
	three(&b, 3);
	add(&b, "10.1.0.4:80", 1, RINGSTEER_STATE_ACTIVE, 0, 0);
	ASSERT_EQ(0, rc_preview_compute(key, &a, key, &b, &x, NULL, &p));
	/* Only the new backend gains: what moves is exactly its share. */
	EXPECT_EQ(p.moved, share_of(&b, "10.1.0.4:80"));
	EXPECT_GT(p.moved, 0.1);
	EXPECT_LT(p.moved, 0.45);
	EXPECT_EQ(0, p.collateral_exact);
	EXPECT_EQ(0.0, p.collateral);
	EXPECT_FALSE(p.expected);
	ASSERT_EQ(4, p.nb);
	EXPECT_NEAR(p.moved, find(&p, "10.1.0.4:80")->arrives, 1e-15);
	for (i = 0; i < 3; i++) {
		left += p.b[i].leaves;
		EXPECT_EQ(0.0, p.b[i].arrives);
		expect_conns += p.b[i].conns * p.b[i].leaves / p.b[i].share_before;
	}
	EXPECT_NEAR(p.moved, left, 1e-12);
	/* Connections in the moving part: an estimate, per backend's arc. */
	EXPECT_FALSE(p.conns_exact);
	EXPECT_NEAR(expect_conns, p.conns_moving, 1e-9);
	EXPECT_EQ(11, find(&p, "10.1.0.1:80")->conns);
	rc_preview_free(&p);
	rc_service_free(&a);
	rc_service_free(&b);
}

TEST(plan_del_and_drain_move_the_backends_share_and_connections)
{
	struct rc_endpoint x = ep("10.1.0.2:80");
	struct rc_service a, b;
	struct rc_preview p;
	int drain;

	for (drain = 0; drain < 2; drain++) {
		three(&a, 3);
		three(&b, 3);
		if (drain)
			b.b[1].state = RINGSTEER_STATE_DRAINING;
		else
			b.b[1] = b.b[--b.nb];
		ASSERT_EQ(0, rc_preview_compute(key, &a, key, &b, &x, NULL, &p));
		EXPECT_EQ(p.moved, share_of(&a, "10.1.0.2:80"));
		EXPECT_EQ(0, p.collateral_exact);
		/* All 22 of its connections, exactly, and nobody else's. */
		EXPECT_TRUE(p.conns_exact);
		EXPECT_EQ(22.0, p.conns_moving);
		EXPECT_EQ(22.0, find(&p, "10.1.0.2:80")->conns_moving);
		EXPECT_EQ(!drain, find(&p, "10.1.0.2:80")->gone);
		rc_preview_free(&p);
		rc_service_free(&a);
		rc_service_free(&b);
	}
}

TEST(plan_key_change_is_an_expectation)
{
	uint8_t key2[RINGSTEER_KEY_LEN] = { 1 };
	struct rc_service a;
	struct rc_preview p;

	three(&a, 3);
	ASSERT_EQ(0, rc_preview_compute(key, &a, key2, &a, NULL, NULL, &p));
	EXPECT_TRUE(p.expected);
	/* About 1 - 3 * (1/3)^2 = 2/3 of the flows change backend. */
	EXPECT_NEAR(2.0 / 3, p.moved, 0.05);
	rc_preview_free(&p);
	/* The same key and backends: nothing moves, exactly. */
	ASSERT_EQ(0, rc_preview_compute(key, &a, key, &a, NULL, NULL, &p));
	EXPECT_EQ(0.0, p.moved);
	EXPECT_EQ(0.0, p.conns_moving);
	rc_preview_free(&p);
	rc_service_free(&a);
}

TEST(prometheus_escapes_label_values)
{
	char buf[64];

	EXPECT_STREQ("a\\\\b\\\"c\\nd", print_prom_escape(buf, sizeof(buf), "a\\b\"c\nd"));
	/* Cut to fit, never in the middle of an escape. */
	EXPECT_STREQ("ab", print_prom_escape(buf, 4, "ab\"c"));
	EXPECT_STREQ("10.0.0.1", print_prom_escape(buf, sizeof(buf), "10.0.0.1"));
}

static void prom(struct rc_config *c, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);

	rc_config_sort(c);
	print_prom(f, c);
	fclose(f);
}

TEST(prometheus_output_is_stable_and_complete)
{
	struct rc_config c1 = { 0 }, c2 = { 0 };
	struct rc_service s;
	char *o1 = NULL, *o2 = NULL, *p;
	size_t l1, l2;
	int help = 0;

	three(&s, 2);
	s.flows = 42;
	rc_service_add_backend(rc_config_add_service(&c1, &s), &s.b[1]);
	rc_service_add_backend(&c1.s[0], &s.b[0]);
	rc_service_add_backend(rc_config_add_service(&c2, &s), &s.b[0]);
	rc_service_add_backend(&c2.s[0], &s.b[1]);
	prom(&c1, &o1, &l1);
	prom(&c2, &o2, &l2);
	/* The order of configuration does not show. */
	EXPECT_STREQ(o1, o2);
	EXPECT_TRUE(!!strstr(o1, "# TYPE ringsteer_service_new_flows_total counter\n"
				   "ringsteer_service_new_flows_total{vip=\"10.0.0.1\",port=\"80\",proto=\"tcp\"} 42\n"));
	EXPECT_TRUE(!!strstr(o1, "ringsteer_backend_connections{vip=\"10.0.0.1\",port=\"80\",proto=\"tcp\",backend=\"10.1.0.2:80\",state=\"established\"} 20\n"
				   "ringsteer_backend_connections{vip=\"10.0.0.1\",port=\"80\",proto=\"tcp\",backend=\"10.1.0.2:80\",state=\"other\"} 2\n"));
	EXPECT_TRUE(!!strstr(o1, "ringsteer_backend_active{vip=\"10.0.0.1\",port=\"80\",proto=\"tcp\",backend=\"10.1.0.1:80\"} 1\n"));
	/* Backends sorted: .1 before .2 in every metric. */
	EXPECT_TRUE(strstr(o1, "backend=\"10.1.0.1:80\"} 1") <
		    strstr(o1, "backend=\"10.1.0.2:80\"} 1"));
	for (p = o1; (p = strstr(p, "# HELP ringsteer_backend_weight ")); p++)
		help++;
	EXPECT_EQ(1, help);
	free(o1);
	free(o2);
	rc_config_free(&c1);
	rc_config_free(&c2);
	rc_service_free(&s);
}

TEST(fingerprint_ignores_order_and_sees_changes)
{
	struct rc_config c1 = { 0 }, c2 = { 0 };
	struct rc_service s;

	three(&s, 3);
	memcpy(c1.key, key, sizeof(key));
	memcpy(c2.key, key, sizeof(key));
	rc_config_add_service(&c1, &s);
	rc_config_add_service(&c2, &s);
	rc_service_add_backend(&c1.s[0], &s.b[0]);
	rc_service_add_backend(&c1.s[0], &s.b[1]);
	rc_service_add_backend(&c1.s[0], &s.b[2]);
	rc_service_add_backend(&c2.s[0], &s.b[2]);
	rc_service_add_backend(&c2.s[0], &s.b[0]);
	rc_service_add_backend(&c2.s[0], &s.b[1]);
	ASSERT_EQ(0, rc_config_fingerprints(&c1));
	ASSERT_EQ(0, rc_config_fingerprints(&c2));
	EXPECT_EQ(c1.s[0].fingerprint, c2.s[0].fingerprint);
	c2.s[0].b[0].weight = 2;
	ASSERT_EQ(0, rc_config_fingerprints(&c2));
	EXPECT_NE(c1.s[0].fingerprint, c2.s[0].fingerprint);
	c2.s[0].b[0].weight = 1;
	c2.s[0].b[1].state = RINGSTEER_STATE_DRAINING;
	ASSERT_EQ(0, rc_config_fingerprints(&c2));
	EXPECT_NE(c1.s[0].fingerprint, c2.s[0].fingerprint);
	/* The same ring hashing other fields of a flow maps flows otherwise. */
	c2.s[0].b[1].state = RINGSTEER_STATE_ACTIVE;
	ASSERT_EQ(0, rc_config_fingerprints(&c2));
	EXPECT_EQ(c1.s[0].fingerprint, c2.s[0].fingerprint);
	c2.s[0].hash = RINGSTEER_HASH_SOURCE;
	c2.s[0].has |= RC_HAS_HASH;
	ASSERT_EQ(0, rc_config_fingerprints(&c2));
	EXPECT_NE(c1.s[0].fingerprint, c2.s[0].fingerprint);
	rc_config_free(&c1);
	rc_config_free(&c2);
	rc_service_free(&s);
}

static int plan_parse(const char *line, struct rc_preview_req *r)
{
	char *words[16], *copy = strdup(line), *save = NULL, *w;
	int n = 0, ret, fd = dup(STDERR_FILENO);

	for (w = strtok_r(copy, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	/* Errors go to stderr: keep the KTAP output clean. */
	freopen("/dev/null", "w", stderr);
	ret = cmd_plan_parse(n, words, r);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	free(copy);
	return ret;
}

TEST(plan_parses_the_real_commands_arguments)
{
	struct rc_preview_req r;

	ASSERT_EQ(0, plan_parse("plan backend add 10.0.0.1:80 10.1.0.4:80 weight 2", &r));
	EXPECT_EQ(RC_PREVIEW_BACKEND_ADD, r.op);
	EXPECT_EQ(2, r.b.weight);
	ASSERT_EQ(0, plan_parse("plan backend del 10.0.0.1:80 10.1.0.4:80 keep-flows", &r));
	EXPECT_EQ(RC_PREVIEW_BACKEND_DEL, r.op);
	EXPECT_TRUE(r.keep_flows);
	ASSERT_EQ(0, plan_parse("plan service set 10.0.0.1:80 proto udp vnodes 64", &r));
	EXPECT_EQ(RC_PREVIEW_SERVICE_SET, r.op);
	EXPECT_EQ(64, r.s.vnodes);
	ASSERT_EQ(0, plan_parse("plan key set 00112233445566778899aabbccddeeff", &r));
	EXPECT_EQ(0x11, r.key[1]);
	EXPECT_EQ(-EINVAL, plan_parse("plan backend add 10.0.0.1:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan backend add 10.0.0.1:80 [::1]:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan backend drain 10.0.0.1:80 10.1.0.1:80 weight 2", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan backend set 10.0.0.1:80 10.1.0.1:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan backend frob 10.0.0.1:80 10.1.0.1:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan service add 10.0.0.1:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan service set 10.0.0.1:80", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan key set 0011", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan flush", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan", &r));
	ASSERT_EQ(0, plan_parse("plan flows f.txt backend drain 10.0.0.1:80 10.1.0.1:80", &r));
	EXPECT_EQ(RC_PREVIEW_BACKEND_DRAIN, r.op);
	/* plan_parse() frees the words: only that a path was taken. */
	EXPECT_TRUE(r.flows_path != NULL);
	ASSERT_EQ(0, plan_parse("plan backend add 10.0.0.1:80 10.1.0.4:80 flows - proto udp", &r));
	EXPECT_EQ(RC_PREVIEW_BACKEND_ADD, r.op);
	EXPECT_EQ(17, r.s.proto);
	EXPECT_TRUE(r.flows_path != NULL);
	EXPECT_EQ(-EINVAL, plan_parse("plan flows", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan flows f.txt", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan key set 00112233445566778899aabbccddeeff flows", &r));
	EXPECT_EQ(-EINVAL, plan_parse("plan flows a backend del 10.0.0.1:80 10.1.0.1:80 flows b", &r));
	/* A forward tunnel service's backend by its address alone (plan.c checks the mode). */
	ASSERT_EQ(0, plan_parse("plan backend drain 10.0.0.1:80 10.1.0.4", &r));
	EXPECT_EQ(RC_PREVIEW_BACKEND_DRAIN, r.op);
	EXPECT_EQ(80, r.b.ep.port);
	EXPECT_TRUE(r.bare);
	ASSERT_EQ(0, plan_parse("plan backend add [fd00::1]:443 [fd02::4] weight 3", &r));
	EXPECT_EQ(443, r.b.ep.port);
	EXPECT_EQ(3, r.b.weight);
	EXPECT_TRUE(r.bare);
	EXPECT_EQ(-EINVAL, plan_parse("plan backend del 10.0.0.1:80 fd02::4", &r));
	ASSERT_EQ(0, plan_parse("plan backend del 10.0.0.1:80 10.1.0.4:80", &r));
	EXPECT_FALSE(r.bare);
}

/*
 * plan's "flows" (rc_preview_compute()'s FL): each flow's owner before and
 * after is the ring's (the kernel's lookup), and adding a backend moves
 * flows only to it, about its share of them.
 */
TEST(plan_flows_move_only_to_the_added_backend)
{
	struct rc_endpoint before[2000], after[2000], be4 = ep("10.1.0.4:80");
	struct rs_flow f[2000];
	struct rc_preview_flows fl;
	struct rc_service a, b;
	struct rc_preview p;
	struct rs_ring *r;
	uint32_t i, moved = 0;
	const char *why;
	char line[80];
	int idx;

	three(&a, 3);
	three(&b, 3);
	add(&b, "10.1.0.4:80", 1, RINGSTEER_STATE_ACTIVE, 0, 0);
	for (i = 0; i < 2000; i++) {
		snprintf(line, sizeof(line), "10.9.%u.%u:%u 10.0.0.1:80 tcp", i / 250, i % 250 + 1,
			 20000 + i);
		ASSERT_EQ(0, parse_flow_line(line, &f[i], &why));
		ASSERT_TRUE(rc_flow_to_service(&f[i], &a));
	}
	fl = (struct rc_preview_flows){ .f = f, .n = 2000, .before = before, .after = after };
	ASSERT_EQ(0, rc_preview_compute(key, &a, key, &b, &be4, &fl, &p));
	rc_preview_free(&p);
	r = rc_service_ring(key, &a);
	ASSERT_FALSE(IS_ERR(r));
	for (i = 0; i < 2000; i++) {
		idx = rs_ring_lookup(r, rs_flow_position(&r->key, &f[i], RINGSTEER_HASH_FLOW));
		ASSERT_GE(idx, 0);
		EXPECT_EQ(ntohs(r->members[idx].port), before[i].port);
		EXPECT_EQ(0, memcmp(r->members[idx].addr, before[i].addr, 16));
		if (rc_endpoint_cmp(&before[i], &after[i])) {
			moved++;
			EXPECT_EQ(0, rc_endpoint_cmp(&after[i], &be4));
		}
	}
	rs_ring_free(r);
	/* About a quarter (its share); 2000 flows: within +-0.1. */
	EXPECT_GT(moved, 2000 * (share_of(&b, "10.1.0.4:80") - 0.1));
	EXPECT_LT(moved, 2000 * (share_of(&b, "10.1.0.4:80") + 0.1));
	/* Another port, protocol or address is not the service's flow. */
	ASSERT_EQ(0, parse_flow_line("10.9.0.1:1 10.0.0.1:81 tcp", &f[0], &why));
	EXPECT_FALSE(rc_flow_to_service(&f[0], &a));
	ASSERT_EQ(0, parse_flow_line("10.9.0.1:1 10.0.0.1:80 udp", &f[0], &why));
	EXPECT_FALSE(rc_flow_to_service(&f[0], &a));
	ASSERT_EQ(0, parse_flow_line("10.9.0.1:1 10.0.0.2:80 tcp", &f[0], &why));
	EXPECT_FALSE(rc_flow_to_service(&f[0], &a));
	rc_service_free(&a);
	rc_service_free(&b);
}

/* A drained backend owns no points after: its flows move, no other does. */
TEST(plan_flows_of_a_drained_backend_all_move)
{
	struct rc_endpoint before[500], after[500], be2 = ep("10.1.0.2:80");
	struct rc_preview_flows fl;
	struct rc_service a, b;
	struct rc_preview p;
	struct rs_flow f[500];
	uint32_t i, on2 = 0;
	const char *why;
	char line[80];

	three(&a, 3);
	three(&b, 3);
	b.b[1].state = RINGSTEER_STATE_DRAINING;
	for (i = 0; i < 500; i++) {
		snprintf(line, sizeof(line), "10.9.0.%u:%u 10.0.0.1:80 tcp", i % 250 + 1, 30000 + i);
		ASSERT_EQ(0, parse_flow_line(line, &f[i], &why));
	}
	fl = (struct rc_preview_flows){ .f = f, .n = 500, .before = before, .after = after };
	ASSERT_EQ(0, rc_preview_compute(key, &a, key, &b, &be2, &fl, &p));
	rc_preview_free(&p);
	for (i = 0; i < 500; i++) {
		bool was2 = !rc_endpoint_cmp(&before[i], &be2);

		on2 += was2;
		EXPECT_NE(0, rc_endpoint_cmp(&after[i], &be2));
		EXPECT_EQ(was2, rc_endpoint_cmp(&before[i], &after[i]) != 0);
	}
	EXPECT_GT(on2, 50);
	rc_service_free(&a);
	rc_service_free(&b);
}

static int wait_parse(const char *line, struct cmd_drain_wait *w)
{
	char *words[8], *copy = strdup(line), *save = NULL, *t;
	int n = 0, ret, fd = dup(STDERR_FILENO);

	for (t = strtok_r(copy, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
		words[n++] = t;
	freopen("/dev/null", "w", stderr);
	ret = cmd_drain_wait_parse(n, words, w);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	free(copy);
	return ret;
}

TEST(drain_wait_parses_timeout_and_delete)
{
	struct cmd_drain_wait w;

	ASSERT_EQ(0, wait_parse("wait", &w));
	EXPECT_TRUE(w.wait);
	EXPECT_EQ(0, w.timeout);
	EXPECT_FALSE(w.del);
	ASSERT_EQ(0, wait_parse("wait 5", &w));
	EXPECT_EQ(5, w.timeout);
	ASSERT_EQ(0, wait_parse("wait 30 delete", &w));
	EXPECT_EQ(30, w.timeout);
	EXPECT_TRUE(w.del);
	ASSERT_EQ(0, wait_parse("wait delete", &w));
	EXPECT_EQ(0, w.timeout);
	EXPECT_TRUE(w.del);
	EXPECT_EQ(-EINVAL, wait_parse("wait x", &w));
	EXPECT_EQ(-EINVAL, wait_parse("wait 0", &w));
	EXPECT_EQ(-EINVAL, wait_parse("wait 5 6", &w));
	EXPECT_EQ(-EINVAL, wait_parse("wait delete 5", &w));
	EXPECT_EQ(-EINVAL, wait_parse("sleep 5", &w));
}

/* O gets (malloc()ed) what CALL writes to the stream F. */
#define CAPTURE(o, f, call) do {				\
	size_t len_;						\
	FILE *f = open_memstream(&(o), &len_);			\
								\
	call;							\
	fclose(f);						\
} while (0)

/* The namespace's state heads show's table and JSON object, when known. */
TEST(show_prints_the_namespace_state)
{
	struct rc_config c = { 0 };
	const char *p;
	char *o;

	CAPTURE(o, f, print_show_json(f, &c));
	EXPECT_STREQ("{\"services\":[]}\n", o);
	free(o);

	c.has_net = true;
	c.net = (struct rc_net){ .services = 3, .points = 1234567,
				 .points_max = 4194304, .hooks = true, .kept = 1,
				 .generation = 17 };
	CAPTURE(o, f, print_show_json(f, &c));
	EXPECT_STREQ("{\"hooks\":true,\"tunnel_hooks\":false,\"flow_table_entries\":0,"
		     "\"unserved_drops\":0,\"points\":1234567,\"points_max\":4194304,"
		     "\"kept\":1,\"generation\":17,\"services\":[]}\n", o);
	free(o);

	CAPTURE(o, f, print_show_text(f, &c));
	p = "namespace: 3 services, 1.2M of 4.2M ring points, hooks on, "
	    "1 service's kept flows, generation 17\nProt ";
	EXPECT_EQ(0, strncmp(o, p, strlen(p)));
	free(o);

	c.net = (struct rc_net){ .services = 1, .points = 256, .points_max = 4194304 };
	CAPTURE(o, f, print_net_text(f, &c.net));
	EXPECT_STREQ("namespace: 1 service, 256 of 4.2M ring points, hooks off, "
		     "no kept flows, generation 0\n", o);
	free(o);

	/* The namespace's backends against their limit, where reported. */
	c.net = (struct rc_net){ .services = 1, .points = 256, .points_max = 4194304,
				 .has_backends = true, .backends = 3,
				 .backends_max = 65536 };
	CAPTURE(o, f, print_net_text(f, &c.net));
	EXPECT_STREQ("namespace: 1 service, 256 of 4.2M ring points, 3 of 65.5k backends, "
		     "hooks off, no kept flows, generation 0\n", o);
	free(o);
	CAPTURE(o, f, print_show_json(f, &c));
	EXPECT_STREQ("{\"hooks\":false,\"tunnel_hooks\":false,\"flow_table_entries\":0,"
		     "\"unserved_drops\":0,\"points\":256,\"points_max\":4194304,"
		     "\"backends\":3,\"backends_max\":65536,\"kept\":0,"
		     "\"generation\":0,\"services\":[]}\n", o);
	free(o);

	/* A tunnel namespace: its hooks and its flow table's size. */
	c.net = (struct rc_net){ .services = 1, .points = 256, .points_max = 4194304,
				 .tunnel_hooks = true, .flow_table_entries = 21844,
				 .unserved_drops = 9 };
	CAPTURE(o, f, print_net_text(f, &c.net));
	EXPECT_STREQ("namespace: 1 service, 256 of 4.2M ring points, hooks off, tunnel hooks on, "
		     "flow table 21844 entries a CPU, 9 unserved dropped, no kept flows, "
		     "generation 0\n", o);
	free(o);
	CAPTURE(o, f, print_show_json(f, &c));
	EXPECT_STREQ("{\"hooks\":false,\"tunnel_hooks\":true,\"flow_table_entries\":21844,"
		     "\"unserved_drops\":9,\"points\":256,\"points_max\":4194304,\"kept\":0,"
		     "\"generation\":0,\"services\":[]}\n", o);
	free(o);
}

/* Without CAP_NET_ADMIN, show has no counts and says why. */
TEST(show_without_counts_says_so)
{
	struct rc_config c = { 0 };
	struct rc_service s;
	char *o = NULL;
	size_t l;
	FILE *f;

	three(&s, 3);
	rc_config_add_service(&c, &s);
	rc_service_add_backend(&c.s[0], &s.b[0]);
	c.s[0].b[0].has_conns = false;
	c.conns_unavailable = "counting connections needs CAP_NET_ADMIN";
	f = open_memstream(&o, &l);
	print_show_json(f, &c);
	fclose(f);
	EXPECT_NE(NULL, strstr(o, "{\"conns_unavailable\":\"counting connections needs CAP_NET_ADMIN\",\"services\":["));
	EXPECT_EQ(NULL, strstr(o, "conns_established"));
	free(o);
	f = open_memstream(&o, &l);
	print_show_text(f, &c);
	fclose(f);
	EXPECT_EQ(0, strncmp(o, "connections: not counted (counting connections needs CAP_NET_ADMIN)\nProt ",
			     strlen("connections: not counted (counting connections needs CAP_NET_ADMIN)\nProt ")));
	free(o);
	/* With counts, neither. */
	c.conns_unavailable = NULL;
	c.s[0].b[0].has_conns = true;
	f = open_memstream(&o, &l);
	print_show_json(f, &c);
	fclose(f);
	EXPECT_EQ(NULL, strstr(o, "conns_unavailable"));
	EXPECT_NE(NULL, strstr(o, "\"conns_established\":"));
	free(o);
	rc_config_free(&c);
	rc_service_free(&s);
}

TEST_HARNESS_MAIN
