// SPDX-License-Identifier: GPL-2.0
/*
 * restore's plan (userspace/lib/restore_plan.c): from the live
 * configuration and the file's, only the operations that differ, in an
 * order that keeps every service and backend the two share, adds before
 * it deletes, and builds new services at one vnode first. Checked by hand on small cases and, on
 * random pairs, by replaying the plan on a copy of the live configuration.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <netinet/in.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "restore_plan.h"
#include "settings.h"

static struct rc_service *svc(struct rc_config *c, const char *vip, uint8_t proto)
{
	struct rc_service s = { .proto = proto };
	const char *why;

	rc_endpoint_parse(vip, &s.vip, &why);
	return rc_config_add_service(c, &s);
}

/* A backend as the kernel reports it: weight and state always given. */
static void be(struct rc_service *s, const char *ep, uint32_t w, uint32_t st)
{
	struct rc_backend b = { .weight = w, .state = st,
				.has = RC_HAS_WEIGHT | RC_HAS_STATE };
	const char *why;

	rc_endpoint_parse(ep, &b.ep, &why);
	rc_service_add_backend(s, &b);
}

static void settings(struct rc_service *s, uint32_t vnodes, uint32_t hash)
{
	s->vnodes = vnodes;
	s->hash = hash;
	s->has = RC_HAS_VNODES | RC_HAS_HASH;
}

static int port_of(const struct rc_op *op)
{
	return op->b.ep.port;
}

TEST(same_configuration_no_operations)
{
	struct rc_config live = { .has_key = true }, want = { .has_key = true };
	struct rc_service *s;
	struct rc_plan p;

	s = svc(&live, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, RINGSTEER_DEFAULT_VNODES, RINGSTEER_HASH_FLOW);
	be(s, "10.1.0.1:8080", 1, RINGSTEER_STATE_ACTIVE);
	be(s, "10.1.0.2:8080", 2, RINGSTEER_STATE_DRAINING);
	/* The file leaves defaults implicit. */
	s = svc(&want, "10.0.0.1:80", IPPROTO_TCP);
	be(s, "10.1.0.1:8080", 1, 0);
	s->b[0].has = 0;
	be(s, "10.1.0.2:8080", 2, RINGSTEER_STATE_DRAINING);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	EXPECT_EQ(0, p.n);
	rc_plan_free(&p);
	/* A different key is the one change; no key in the file keeps it. */
	want.key[0] = 1;
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(1, p.n);
	EXPECT_EQ(RC_OP_KEY_SET, p.ops[0].kind);
	EXPECT_EQ(1, p.ops[0].key[0]);
	rc_plan_free(&p);
	want.has_key = false;
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	EXPECT_EQ(0, p.n);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

/* The VM scenario's change: b1 re-weighted, b4 added, b3 deleted. */
TEST(backends_added_changed_deleted)
{
	struct rc_config live = { 0 }, want = { 0 };
	struct rc_service *s;
	struct rc_plan p;

	s = svc(&live, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, 40, RINGSTEER_HASH_FLOW);
	be(s, "10.2.1.2:1", 1, RINGSTEER_STATE_ACTIVE);
	be(s, "10.2.2.2:2", 1, RINGSTEER_STATE_ACTIVE);
	be(s, "10.2.3.2:3", 1, RINGSTEER_STATE_ACTIVE);
	s = svc(&want, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, 40, RINGSTEER_HASH_FLOW);
	be(s, "10.2.1.2:1", 3, RINGSTEER_STATE_ACTIVE);
	be(s, "10.2.2.2:2", 1, RINGSTEER_STATE_ACTIVE);
	be(s, "10.2.4.2:4", 1, RINGSTEER_STATE_ACTIVE);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, RINGSTEER_F_KEEP_FLOWS, &p));
	ASSERT_EQ(3, p.n);
	EXPECT_EQ(RC_OP_BACKEND_NEW, p.ops[0].kind);
	EXPECT_EQ(4, port_of(&p.ops[0]));
	EXPECT_EQ(RC_OP_BACKEND_SET, p.ops[1].kind);
	EXPECT_EQ(1, port_of(&p.ops[1]));
	/* Only what changed is sent. */
	EXPECT_EQ(RC_HAS_WEIGHT, p.ops[1].b.has);
	EXPECT_EQ(3, p.ops[1].b.weight);
	EXPECT_EQ(RC_OP_BACKEND_DEL, p.ops[2].kind);
	EXPECT_EQ(3, port_of(&p.ops[2]));
	EXPECT_EQ(RINGSTEER_F_KEEP_FLOWS, p.ops[2].flags);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

TEST(services_added_changed_deleted)
{
	struct rc_config live = { 0 }, want = { .has_key = true };
	struct rc_service *s;
	struct rc_plan p;
	size_t i;

	s = svc(&live, "10.0.0.1:80", IPPROTO_UDP);	/* deleted */
	settings(s, 8, RINGSTEER_HASH_FLOW);
	be(s, "10.2.1.2:1", 1, RINGSTEER_STATE_ACTIVE);
	s = svc(&live, "10.0.0.1:80", IPPROTO_TCP);	/* hash changed */
	settings(s, 8, RINGSTEER_HASH_FLOW);
	be(s, "10.2.1.2:1", 1, RINGSTEER_STATE_ACTIVE);
	s = svc(&want, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, 8, RINGSTEER_HASH_SOURCE);
	be(s, "10.2.1.2:1", 1, RINGSTEER_STATE_ACTIVE);
	s = svc(&want, "[fd00::1]:80", IPPROTO_TCP);	/* new, staged */
	settings(s, 50, RINGSTEER_HASH_FLOW);
	s->line = 7;
	be(s, "[fd02::1]:1", 1, RINGSTEER_STATE_ACTIVE);
	be(s, "[fd02::2]:2", 2, RINGSTEER_STATE_DRAINING);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(7, p.n);
	i = 0;
	EXPECT_EQ(RC_OP_KEY_SET, p.ops[i++].kind);
	EXPECT_EQ(RC_OP_SERVICE_NEW, p.ops[i].kind);
	EXPECT_EQ(1, p.ops[i].s.vnodes);
	EXPECT_EQ(RINGSTEER_HASH_FLOW, p.ops[i].s.hash);
	EXPECT_EQ(7, p.ops[i++].s.line);
	EXPECT_EQ(RC_OP_BACKEND_NEW, p.ops[i++].kind);
	EXPECT_EQ(RC_OP_BACKEND_NEW, p.ops[i].kind);
	EXPECT_EQ(RINGSTEER_STATE_DRAINING, p.ops[i++].b.state);
	EXPECT_EQ(RC_OP_SERVICE_SET, p.ops[i].kind);
	EXPECT_EQ(RC_HAS_VNODES, p.ops[i].s.has);
	EXPECT_EQ(50, p.ops[i++].s.vnodes);
	EXPECT_EQ(RC_OP_SERVICE_SET, p.ops[i].kind);
	EXPECT_EQ(RC_HAS_HASH, p.ops[i].s.has);
	EXPECT_EQ(IPPROTO_TCP, p.ops[i++].s.proto);
	EXPECT_EQ(RC_OP_SERVICE_DEL, p.ops[i].kind);
	EXPECT_EQ(IPPROTO_UDP, p.ops[i++].s.proto);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

/* Adding first would pass the point limit for a moment: delete first. */
TEST(deletes_first_at_the_point_limit)
{
	struct rc_config live = { 0 }, want = { 0 };
	struct rc_service *s;
	struct rc_plan p;

	s = svc(&live, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, RINGSTEER_MAX_VNODES, RINGSTEER_HASH_FLOW);
	be(s, "10.2.1.2:1", RINGSTEER_MAX_POINTS / RINGSTEER_MAX_VNODES, RINGSTEER_STATE_ACTIVE);
	s = svc(&want, "10.0.0.1:80", IPPROTO_TCP);
	settings(s, RINGSTEER_MAX_VNODES, RINGSTEER_HASH_FLOW);
	be(s, "10.2.2.2:2", RINGSTEER_MAX_POINTS / RINGSTEER_MAX_VNODES, RINGSTEER_STATE_ACTIVE);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(2, p.n);
	EXPECT_EQ(RC_OP_BACKEND_DEL, p.ops[0].kind);
	EXPECT_EQ(RC_OP_BACKEND_NEW, p.ops[1].kind);
	rc_plan_free(&p);
	/* Within the limit the add comes first. */
	want.s[0].b[0].weight = live.s[0].b[0].weight = 1;
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(2, p.n);
	EXPECT_EQ(RC_OP_BACKEND_NEW, p.ops[0].kind);
	EXPECT_EQ(RC_OP_BACKEND_DEL, p.ops[1].kind);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

/* Replays OP on C as the kernel would; -1 if the kernel would refuse it. */
static int replay(struct rc_config *c, const struct rc_op *op)
{
	struct rc_service *s = rc_config_find_service(c, &op->s);
	struct rc_backend *b = s ? rc_service_find_backend(s, &op->b.ep) : NULL;

	switch (op->kind) {
	case RC_OP_KEY_SET:
		memcpy(c->key, op->key, sizeof(c->key));
		c->has_key = true;
		return 0;
	case RC_OP_SERVICE_NEW:
		if (s || !rc_config_add_service(c, &op->s))
			return -1;
		s = &c->s[c->ns - 1];
		s->vnodes = rc_service_vnodes(&op->s);
		s->hash = rc_service_hash(&op->s);
		s->on_down = rc_service_on_down(&op->s);
		s->forward = rc_service_forward(&op->s);
		s->encap = rc_service_encap(&op->s);
		s->encap_port = rc_service_encap_port(&op->s);
		s->has = RC_HAS_VNODES | RC_HAS_HASH | RC_HAS_ON_DOWN | RC_HAS_FORWARD |
			 RC_HAS_ENCAP | RC_HAS_ENCAP_PORT;
		return 0;
	case RC_OP_SERVICE_SET:
		if (!s || !op->s.has)
			return -1;
		s->vnodes = op->s.has & RC_HAS_VNODES ? op->s.vnodes : s->vnodes;
		s->hash = op->s.has & RC_HAS_HASH ? op->s.hash : s->hash;
		s->on_down = op->s.has & RC_HAS_ON_DOWN ? op->s.on_down : s->on_down;
		/* The kernel's rules: forward as it is, a port only for gue. */
		if ((op->s.has & RC_HAS_FORWARD) && op->s.forward != s->forward)
			return -1;
		if ((op->s.has & (RC_HAS_ENCAP | RC_HAS_ENCAP_PORT)) &&
		    s->forward != RINGSTEER_FORWARD_TUNNEL)
			return -1;
		s->encap = op->s.has & RC_HAS_ENCAP ? op->s.encap : s->encap;
		if ((op->s.has & RC_HAS_ENCAP_PORT) && s->encap != RINGSTEER_ENCAP_GUE)
			return -1;
		s->encap_port = op->s.has & RC_HAS_ENCAP_PORT ? op->s.encap_port : s->encap_port;
		s->has |= op->s.has & (RC_HAS_ON_DOWN | RC_HAS_ENCAP | RC_HAS_ENCAP_PORT);
		return 0;
	case RC_OP_SERVICE_DEL:
		if (!s)
			return -1;
		rc_service_free(s);
		*s = c->s[--c->ns];
		return 0;
	case RC_OP_BACKEND_NEW:
		if (!s || b || !rc_service_add_backend(s, &op->b))
			return -1;
		b = &s->b[s->nb - 1];
		b->weight = rc_backend_weight(&op->b);
		b->state = rc_backend_state(&op->b);
		b->on_down = rc_backend_on_down(&op->b);
		b->has = RC_HAS_WEIGHT | RC_HAS_STATE | RC_HAS_ON_DOWN;
		return 0;
	case RC_OP_BACKEND_SET:
		if (!b || !op->b.has)
			return -1;
		b->weight = op->b.has & RC_HAS_WEIGHT ? op->b.weight : b->weight;
		b->state = op->b.has & RC_HAS_STATE ? op->b.state : b->state;
		b->on_down = op->b.has & RC_HAS_ON_DOWN ? op->b.on_down : b->on_down;
		b->has |= op->b.has & RC_HAS_ON_DOWN;
		return 0;
	case RC_OP_BACKEND_DEL:
		if (!b)
			return -1;
		*b = s->b[--s->nb];
		return 0;
	}
	return -1;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A few services and backends from small pools, so that pairs overlap. */
static void random_config(struct rc_config *c, uint64_t *x)
{
	static const char *const vips[] = { "10.0.0.1:80", "10.0.0.2:80", "10.0.0.1:443" };
	char ep[32];
	struct rc_service *s;
	uint32_t i, k;

	memset(c, 0, sizeof(*c));
	c->has_key = rnd(x) % 2;
	c->key[0] = rnd(x) % 2;
	for (i = 0; i < 6; i++) {
		if (rnd(x) % 2)
			continue;
		s = svc(c, vips[i % 3], i < 3 ? IPPROTO_TCP : IPPROTO_UDP);
		settings(s, 1 + rnd(x) % 3, rnd(x) % 2 ? RINGSTEER_HASH_FLOW : RINGSTEER_HASH_SOURCE);
		s->on_down = rnd(x) % 2 ? RINGSTEER_ON_DOWN_KEEP : RINGSTEER_ON_DOWN_RESET;
		s->has |= RC_HAS_ON_DOWN;
		/* One VIP is forward tunnel in every configuration. */
		if (i % 3 == 1) {
			s->forward = RINGSTEER_FORWARD_TUNNEL;
			s->encap = rnd(x) % 2 ? RINGSTEER_ENCAP_IPIP : RINGSTEER_ENCAP_GUE;
			s->has |= RC_HAS_FORWARD | RC_HAS_ENCAP;
			if (s->encap == RINGSTEER_ENCAP_GUE) {
				s->encap_port = rnd(x) % 2 ? RINGSTEER_DEFAULT_GUE_PORT : 7000;
				s->has |= RC_HAS_ENCAP_PORT;
			}
		}
		for (k = 0; k < 6; k++) {
			if (rnd(x) % 2)
				continue;
			snprintf(ep, sizeof(ep), "10.2.%u.2:8080", k);
			be(s, ep, 1 + rnd(x) % 3, rnd(x) % 4 ? RINGSTEER_STATE_ACTIVE
							     : RINGSTEER_STATE_DRAINING);
			/* Absent (the service's), or one of the three. */
			if (rnd(x) % 2) {
				s->b[s->nb - 1].on_down = rnd(x) % (RINGSTEER_BACKEND_ON_DOWN_MAX + 1);
				s->b[s->nb - 1].has |= RC_HAS_ON_DOWN;
			}
		}
	}
}

static bool same_settings(const struct rc_config *a, struct rc_config *b)
{
	struct rc_service *s;
	struct rc_backend *x;
	uint32_t i, k, nb = 0;

	if (a->ns != b->ns)
		return false;
	for (i = 0; i < a->ns; i++) {
		s = rc_config_find_service(b, &a->s[i]);
		if (!s || s->nb != a->s[i].nb || s->vnodes != a->s[i].vnodes ||
		    s->hash != a->s[i].hash ||
		    rc_service_on_down(s) != rc_service_on_down(&a->s[i]) ||
		    rc_service_forward(s) != rc_service_forward(&a->s[i]))
			return false;
		if (rc_service_forward(s) == RINGSTEER_FORWARD_TUNNEL &&
		    (rc_service_encap(s) != rc_service_encap(&a->s[i]) ||
		     (rc_service_encap(s) == RINGSTEER_ENCAP_GUE &&
		      rc_service_encap_port(s) != rc_service_encap_port(&a->s[i]))))
			return false;
		for (k = 0; k < a->s[i].nb; k++, nb++) {
			x = rc_service_find_backend(s, &a->s[i].b[k].ep);
			if (!x || x->weight != a->s[i].b[k].weight ||
			    x->state != a->s[i].b[k].state ||
			    rc_backend_on_down(x) != rc_backend_on_down(&a->s[i].b[k]))
				return false;
		}
	}
	return true;
}

/*
 * Random pairs: the plan replays without a refusal, ends at the file's
 * configuration, never deletes what both have, never leaves no service
 * while both have one, and never empties a service both have that the
 * file gives backends.
 */
TEST(random_pairs_replay_to_the_file)
{
	struct rc_config live, want, c;
	struct rc_service *s;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	struct rc_plan p;
	unsigned int round;
	size_t i;

	for (round = 0; round < 2000; round++) {
		random_config(&live, &x);
		random_config(&want, &x);
		ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
		memset(&c, 0, sizeof(c));
		c.has_key = live.has_key;
		memcpy(c.key, live.key, sizeof(c.key));
		for (i = 0; i < live.ns; i++) {
			s = rc_config_add_service(&c, &live.s[i]);
			ASSERT_NE(NULL, s);
			for (uint32_t k = 0; k < live.s[i].nb; k++)
				ASSERT_NE(NULL, rc_service_add_backend(s, &live.s[i].b[k]));
		}
		for (i = 0; i < p.n; i++) {
			const struct rc_op *op = &p.ops[i];
			const struct rc_service *w = rc_config_find_service(&want, &op->s);

			ASSERT_EQ(0, replay(&c, op))
				TH_LOG("round %u op %zu (%s) refused", round, i, rc_op_name(op->kind));
			if (op->kind == RC_OP_SERVICE_DEL)
				ASSERT_EQ(NULL, w);
			if (op->kind == RC_OP_BACKEND_DEL)
				ASSERT_TRUE(!w || !rc_service_find_backend(w, &op->b.ep));
			if (live.ns && want.ns)
				ASSERT_LT(0, c.ns) TH_LOG("round %u: no service after op %zu", round, i);
			s = rc_config_find_service(&c, &op->s);
			if (w && w->nb && s && rc_config_find_service(&live, &op->s))
				ASSERT_LT(0, s->nb) TH_LOG("round %u: kept service emptied", round);
		}
		ASSERT_TRUE(same_settings(&want, &c)) TH_LOG("round %u", round);
		if (want.has_key)
			ASSERT_EQ(want.key[0], c.key[0]);
		rc_plan_free(&p);
		/* Applied, nothing is left to do. */
		ASSERT_EQ(0, rc_plan_restore(&c, &want, 0, &p));
		ASSERT_EQ(0, p.n);
		rc_plan_free(&p);
		rc_config_free(&c);
		rc_config_free(&live);
		rc_config_free(&want);
	}
}

TEST_HARNESS_MAIN
