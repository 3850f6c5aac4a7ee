// SPDX-License-Identifier: GPL-2.0
/*
 * The health checker's state machine (userspace/health/health_fsm.c), driven by
 * a fake clock and fake probe results against a fake kernel that takes
 * every change: rise and fall, the start-up quiet period, hold-down, flap
 * damping, the max-down and last-one guards with their quorum events, the
 * self-check freeze, the operator's drain, a restart that finds downs in
 * the kernel, backends the kernel adds and removes, and the jitter.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "health/health_fsm.h"

#define MAXB 8

struct world {
	struct hc_config c;
	struct hc_state st;
	struct rc_service ks;
	struct rc_backend kb[MAXB];
	uint64_t now;
	int gone;
	/* The last decision's actions. */
	struct hc_action a[16];
	int n;
};

static void count_gone(struct hc_be *b, void *data)
{
	((struct world *)data)->gone++;
}

static int setup(struct world *w, const char *conf, int nb)
{
	char text[1024];
	FILE *f;
	int i, err;

	memset(w, 0, sizeof(*w));
	snprintf(text, sizeof(text), "service 10.0.0.1:80\n%s", conf);
	f = fmemopen(text, strlen(text), "r");
	err = hc_conf_parse(f, "test", "t.conf", &w->c);
	fclose(f);
	if (err)
		return err;
	err = hc_state_init(&w->st, &w->c);
	if (err)
		return err;
	w->ks = w->c.s[0].id;
	w->ks.b = w->kb;
	w->ks.nb = nb;
	for (i = 0; i < MAXB; i++) {
		w->kb[i].ep = w->ks.vip;
		w->kb[i].ep.addr[2] = 1;
		w->kb[i].ep.addr[3] = i + 1;
		w->kb[i].state = RINGSTEER_STATE_ACTIVE;
		w->kb[i].has = RC_HAS_STATE;
	}
	w->now = 1000000;
	return hc_sync(&w->st.s[0], &w->ks, w->now, count_gone, w);
}

static void teardown_world(struct world *w)
{
	hc_state_free(&w->st);
	hc_conf_free(&w->c);
}

static struct hc_be *be(struct world *w, int i)
{
	return w->st.s[0].b[i];
}

/* One probe of every backend: bit i of FAIL fails backend i. */
static void round_of(struct world *w, unsigned int fail)
{
	uint32_t i;

	for (i = 0; i < w->st.s[0].nb; i++)
		hc_result(&be(w, i)->t, !(fail & 1U << i), "fake", w->now);
}

static void self_result(struct world *w, int i, bool ok)
{
	hc_result(&w->st.self[i], ok, "fake", w->now);
}

/* Decide at the current time; the fake kernel takes every change. */
static int decide(struct world *w)
{
	int k;

	hc_update(&w->st);
	w->n = hc_decide(&w->st, &w->st.s[0], w->now, w->a, 16);
	for (k = 0; k < w->n; k++)
		if (w->a[k].act == HC_ACT_DOWN || w->a[k].act == HC_ACT_UP)
			hc_applied(w->a[k].b, w->a[k].act, w->now);
	return w->n;
}

/* ROUNDS probe rounds, INTERVAL ms apart, each decided. */
static int rounds(struct world *w, int n, unsigned int fail, uint64_t interval)
{
	int total = 0;

	while (n--) {
		w->now += interval;
		round_of(w, fail);
		total += decide(w);
	}
	return total;
}

static int downs(struct world *w)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < w->st.s[0].nb; i++)
		n += be(w, i)->health == RINGSTEER_HEALTH_DOWN;
	return n;
}

#define CHECK "check tcp interval 1s timeout 1s rise 3 fall 2 jitter 0%\n"

TEST(rise_and_fall)
{
	struct world w;

	ASSERT_EQ(0, setup(&w, CHECK, 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	ASSERT_TRUE(w.st.started);
	/* One failure is not enough, the second is. */
	ASSERT_EQ(0, rounds(&w, 1, 1, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 1, 1000));
	ASSERT_EQ(HC_ACT_DOWN, w.a[0].act);
	ASSERT_EQ(be(&w, 0), w.a[0].b);
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 0)->health);
	/* Down it stays while failing. */
	ASSERT_EQ(0, rounds(&w, 5, 1, 1000));
	/* Two good probes are not enough, the third is. */
	ASSERT_EQ(0, rounds(&w, 2, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(HC_ACT_UP, w.a[0].act);
	ASSERT_EQ(0, downs(&w));
	/* A failure between good ones starts the count again. */
	ASSERT_EQ(0, rounds(&w, 1, 2, 1000));
	ASSERT_EQ(0, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(0, rounds(&w, 1, 2, 1000));
	ASSERT_EQ(0, downs(&w));
	teardown_world(&w);
}

TEST(quiet_until_every_backend_probed)
{
	struct world w;
	int i;

	ASSERT_EQ(0, setup(&w, CHECK, 3));
	/* Backends 0 and 1 fail from the first probe; 2 is never probed. */
	for (i = 0; i < 5; i++) {
		w.now += 1000;
		hc_result(&be(&w, 0)->t, false, "x", w.now);
		hc_result(&be(&w, 1)->t, false, "x", w.now);
		ASSERT_FALSE(hc_update(&w.st));
		ASSERT_EQ(0, hc_decide(&w.st, &w.st.s[0], w.now, w.a, 16));
	}
	ASSERT_FALSE(w.st.started);
	/* Two probes of backend 2 (max(rise, fall) is 3): still quiet. */
	hc_result(&be(&w, 2)->t, true, NULL, w.now);
	hc_result(&be(&w, 2)->t, true, NULL, w.now);
	ASSERT_FALSE(hc_update(&w.st));
	hc_result(&be(&w, 2)->t, true, NULL, w.now);
	/* The quiet period ends once, and then 0 goes (1 would be 2 of 3). */
	ASSERT_TRUE(hc_update(&w.st));
	ASSERT_FALSE(hc_update(&w.st));
	ASSERT_EQ(2, hc_decide(&w.st, &w.st.s[0], w.now, w.a, 16));
	ASSERT_EQ(HC_ACT_DOWN, w.a[0].act);
	ASSERT_EQ(be(&w, 0), w.a[0].b);
	ASSERT_EQ(HC_ACT_QUORUM_LOSS, w.a[1].act);
	teardown_world(&w);
}

TEST(hold_down)
{
	struct world w;

	ASSERT_EQ(0, setup(&w, CHECK "hold-down 10s\n", 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 2, 1, 1000));
	/* Good again at once: rise is met after 3 s, the hold-down is 10 s. */
	ASSERT_EQ(0, rounds(&w, 9, 0, 1000));
	ASSERT_EQ(1, downs(&w));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(HC_ACT_UP, w.a[0].act);
	/* And after coming up, a fall waits 10 s too. */
	ASSERT_EQ(0, rounds(&w, 9, 1, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 1, 1000));
	ASSERT_EQ(HC_ACT_DOWN, w.a[0].act);
	/* Other backends have their own hold-down: 1 falls at once. */
	ASSERT_EQ(1, rounds(&w, 2, 2 | 1, 1000));
	ASSERT_EQ(be(&w, 1), w.a[0].b);
	teardown_world(&w);
}

TEST(flap_damping)
{
	struct world w;
	int i, n = 0;

	/* Two downs within 5 min: then up only after 30 s of good probes. */
	ASSERT_EQ(0, setup(&w, CHECK "damping flaps 2 within 5m stable 30s\n", 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 2, 1, 1000));
	/* The first down is no flap yet: rise brings it up. */
	ASSERT_EQ(1, rounds(&w, 3, 0, 1000));
	ASSERT_FALSE(hc_damped(&w.st.s[0], be(&w, 0), w.now));
	ASSERT_EQ(1, rounds(&w, 2, 1, 1000));
	ASSERT_TRUE(hc_damped(&w.st.s[0], be(&w, 0), w.now));
	/* Good from now on: 3 probes would do, 30 s from the first are needed. */
	for (i = 0; i < 30; i++)
		n += rounds(&w, 1, 0, 1000);
	ASSERT_EQ(0, n);
	ASSERT_EQ(1, downs(&w));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(HC_ACT_UP, w.a[0].act);
	/* A failure restarts the stable time, even without a fall. */
	ASSERT_EQ(1, rounds(&w, 2, 1, 1000));
	ASSERT_EQ(0, rounds(&w, 20, 0, 1000));
	ASSERT_EQ(0, rounds(&w, 1, 1, 1000));
	ASSERT_EQ(0, rounds(&w, 30, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	/* Once the downs are older than the window, rise is enough again. */
	w.now += 300000;
	ASSERT_EQ(1, rounds(&w, 2, 1, 1000));
	ASSERT_FALSE(hc_damped(&w.st.s[0], be(&w, 0), w.now));
	ASSERT_EQ(1, rounds(&w, 3, 0, 1000));
	teardown_world(&w);
}

TEST(max_down_fraction_and_quorum)
{
	struct world w;
	int k, nd = 0;

	ASSERT_EQ(0, setup(&w, CHECK, 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	/* Three of four fail at once: two go down (50%), the quorum is lost. */
	rounds(&w, 1, 7, 1000);
	ASSERT_EQ(3, rounds(&w, 1, 7, 1000));
	for (k = 0; k < w.n; k++)
		nd += w.a[k].act == HC_ACT_DOWN;
	ASSERT_EQ(2, nd);
	ASSERT_EQ(HC_ACT_QUORUM_LOSS, w.a[2].act);
	ASSERT_EQ(2, downs(&w));
	ASSERT_TRUE(be(&w, 2)->blocked);
	ASSERT_TRUE(w.st.s[0].quorum_lost);
	/* Lost once, not again each round. */
	ASSERT_EQ(0, rounds(&w, 3, 7, 1000));
	ASSERT_EQ(RINGSTEER_HEALTH_UP, be(&w, 2)->health);
	/* Backend 2 recovers: no down is refused any more, quorum regained. */
	ASSERT_EQ(1, rounds(&w, 1, 3, 1000));
	ASSERT_EQ(HC_ACT_QUORUM_GAIN, w.a[0].act);
	ASSERT_FALSE(w.st.s[0].quorum_lost);
	/* 25% allows one of four. */
	teardown_world(&w);
	ASSERT_EQ(0, setup(&w, CHECK "guard max-down 25%\n", 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	rounds(&w, 2, 3, 1000);
	ASSERT_EQ(1, downs(&w));
	ASSERT_TRUE(w.st.s[0].quorum_lost);
	teardown_world(&w);
}

TEST(last_one_never)
{
	struct world w;

	/* Even 100% keeps one: of two, one may go. */
	ASSERT_EQ(0, setup(&w, CHECK "guard max-down 100%\n", 2));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	rounds(&w, 2, 3, 1000);
	ASSERT_EQ(1, downs(&w));
	ASSERT_EQ(RINGSTEER_HEALTH_UP, be(&w, 1)->health);
	ASSERT_TRUE(w.st.s[0].quorum_lost);
	ASSERT_EQ(0, rounds(&w, 10, 3, 1000));
	ASSERT_EQ(1, downs(&w));
	teardown_world(&w);
	/* A single backend never goes down. */
	ASSERT_EQ(0, setup(&w, CHECK "guard max-down 100%\n", 1));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	rounds(&w, 5, 1, 1000);
	ASSERT_EQ(0, downs(&w));
	ASSERT_TRUE(w.st.s[0].quorum_lost);
	teardown_world(&w);
}

TEST(self_check_freezes)
{
	struct world w;
	int i;

	ASSERT_EQ(0, setup(&w, CHECK, 4));
	/* A self-check, parsed as a second file would give it. */
	w.c.nself = 1;
	w.c.self[0].check = w.c.s[0].check;
	for (i = 0; i < 3; i++) {
		self_result(&w, 0, true);
		rounds(&w, 1, 0, 1000);
	}
	ASSERT_TRUE(w.st.started);
	ASSERT_FALSE(w.st.frozen);
	/* The self-check fails as the backends do: nothing changes. */
	for (i = 0; i < 5; i++) {
		self_result(&w, 0, false);
		ASSERT_EQ(0, rounds(&w, 1, 1, 1000));
	}
	ASSERT_TRUE(w.st.frozen);
	ASSERT_EQ(0, downs(&w));
	ASSERT_TRUE(be(&w, 0)->held);
	ASSERT_FALSE(be(&w, 1)->held);
	/* Nor the other way: a down backend that recovers stays down. */
	be(&w, 1)->health = RINGSTEER_HEALTH_DOWN;
	for (i = 0; i < 5; i++) {
		self_result(&w, 0, i < 2);
		ASSERT_EQ(0, rounds(&w, 1, 1, 1000));
	}
	/* Back after rise good self-checks: 0 goes down, 1 comes up. */
	self_result(&w, 0, true);
	self_result(&w, 0, true);
	self_result(&w, 0, true);
	ASSERT_EQ(2, rounds(&w, 1, 1, 1000));
	ASSERT_FALSE(w.st.frozen);
	ASSERT_FALSE(be(&w, 0)->held);
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 0)->health);
	ASSERT_EQ(RINGSTEER_HEALTH_UP, be(&w, 1)->health);
	teardown_world(&w);
}

TEST(self_check_unknown_keeps_quiet)
{
	struct world w;

	ASSERT_EQ(0, setup(&w, CHECK, 2));
	w.c.nself = 1;
	w.c.self[0].check = w.c.s[0].check;
	ASSERT_EQ(0, rounds(&w, 6, 1, 1000));
	ASSERT_FALSE(w.st.started);
	teardown_world(&w);
}

TEST(draining_is_the_operators)
{
	struct world w;

	/* Backend 3 is drained; 3 active, 50%: one of them may go down. */
	ASSERT_EQ(0, setup(&w, CHECK, 4));
	w.kb[3].state = RINGSTEER_STATE_DRAINING;
	ASSERT_EQ(0, hc_sync(&w.st.s[0], &w.ks, w.now, count_gone, &w));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	/* The drained one's health follows its probes, outside the guard. */
	rounds(&w, 2, 8 | 1, 1000);
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 3)->health);
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 0)->health);
	/* A second active one would be 2 of 3. */
	rounds(&w, 2, 8 | 2 | 1, 1000);
	ASSERT_EQ(RINGSTEER_HEALTH_UP, be(&w, 1)->health);
	/* No action ever names a state: it stays draining. */
	ASSERT_EQ(RINGSTEER_STATE_DRAINING, be(&w, 3)->state);
	teardown_world(&w);
}

TEST(restart_keeps_the_kernels_downs)
{
	struct world w;

	/* The kernel says backend 1 is down when the checker starts. */
	ASSERT_EQ(0, setup(&w, CHECK, 0));
	w.ks.nb = 4;
	w.kb[1].health = RINGSTEER_HEALTH_DOWN;
	w.kb[1].has |= RC_HAS_HEALTH;
	ASSERT_EQ(0, hc_sync(&w.st.s[0], &w.ks, w.now, count_gone, &w));
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 1)->health);
	/* Found so, not changed: no hold-down from it. */
	ASSERT_FALSE(be(&w, 1)->changed);
	/* Failing: it stays down, nothing invented for the others. */
	ASSERT_EQ(0, rounds(&w, 4, 2, 1000));
	ASSERT_EQ(1, downs(&w));
	/* Good: up after rise probes, not before. */
	ASSERT_EQ(0, rounds(&w, 2, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(HC_ACT_UP, w.a[0].act);
	ASSERT_EQ(be(&w, 1), w.a[0].b);
	teardown_world(&w);
}

TEST(health_changed_behind_our_back)
{
	struct world w;

	/* Someone marks backend 2 down in the kernel: the checker sees it. */
	ASSERT_EQ(0, setup(&w, CHECK "hold-down 5s\n", 4));
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	w.kb[2].health = RINGSTEER_HEALTH_DOWN;
	w.kb[2].has |= RC_HAS_HEALTH;
	ASSERT_EQ(0, hc_sync(&w.st.s[0], &w.ks, w.now, count_gone, &w));
	ASSERT_EQ(RINGSTEER_HEALTH_DOWN, be(&w, 2)->health);
	ASSERT_TRUE(be(&w, 2)->changed);
	/* Its probes are good: up again, but only after the hold-down. */
	ASSERT_EQ(0, rounds(&w, 4, 0, 1000));
	ASSERT_EQ(1, rounds(&w, 1, 0, 1000));
	ASSERT_EQ(HC_ACT_UP, w.a[0].act);
	teardown_world(&w);
}

TEST(kernel_changes)
{
	struct world w;

	ASSERT_EQ(0, setup(&w, CHECK "hold-down 5s\n", 3));
	ASSERT_EQ(3, w.st.s[0].nb);
	ASSERT_EQ(0, rounds(&w, 3, 0, 1000));
	/* The kernel loses backend 1 and gains a fourth. */
	w.kb[1] = w.kb[2];
	w.kb[2].ep.addr[3] = 9;
	ASSERT_EQ(0, hc_sync(&w.st.s[0], &w.ks, w.now, count_gone, &w));
	ASSERT_EQ(1, w.gone);
	ASSERT_EQ(3, w.st.s[0].nb);
	ASSERT_EQ(0, be(&w, 2)->t.probes);
	/* The new one is probed from scratch before it can change. */
	w.now += 1000;
	hc_result(&be(&w, 0)->t, true, NULL, w.now);
	hc_result(&be(&w, 1)->t, true, NULL, w.now);
	hc_result(&be(&w, 2)->t, false, "x", w.now);
	hc_result(&be(&w, 2)->t, false, "x", w.now);
	ASSERT_EQ(0, decide(&w));
	hc_result(&be(&w, 2)->t, false, "x", w.now);
	ASSERT_EQ(1, decide(&w));
	/* The service vanishes: nothing to decide, every backend gone. */
	ASSERT_EQ(0, hc_sync(&w.st.s[0], NULL, w.now, count_gone, &w));
	ASSERT_EQ(4, w.gone);
	ASSERT_FALSE(w.st.s[0].present);
	ASSERT_EQ(0, decide(&w));
	teardown_world(&w);
}

TEST(jitter_bounds)
{
	struct hc_check c = { .interval_ms = 1000, .jitter_pct = 10 };
	uint32_t r;
	uint64_t t, lo = ~0ULL, hi = 0;

	for (r = 0; r < 1000; r++) {
		t = hc_next_probe(&c, 5000, r);
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	ASSERT_EQ(5900, lo);
	ASSERT_EQ(6100, hi);
	c.jitter_pct = 0;
	ASSERT_EQ(6000, hc_next_probe(&c, 5000, 12345));
}

TEST_HARNESS_MAIN
