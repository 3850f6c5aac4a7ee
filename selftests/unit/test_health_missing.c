// SPDX-License-Identifier: GPL-2.0
/*
 * A health check file naming services the kernel does not have
 * (userspace/health/health_notify.c, health_run.c): each is named in the log
 * once when found missing and once when it appears, counted as unchecked
 * and named in the STATUS= text, and "health run" refuses to start when
 * the kernel has none of the file's services.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "health/health_fsm.h"
#include "health/health_notify.h"
#include "health/health_run.h"

/* Lines 1, 3 and 5. */
static const char three[] =
	"service 10.0.0.1:80\n"
	"  check tcp\n"
	"service 10.0.0.2:80\n"
	"  check tcp\n"
	"service 10.0.0.3:53 proto udp\n"
	"  check udp send x\n";

struct checker {
	struct hc_config c;
	struct hc_state st;
	struct rc_backend kb[2];
};

static int setup(struct checker *k, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	memset(k, 0, sizeof(*k));
	err = hc_conf_parse(f, "test", "t.conf", &k->c);
	fclose(f);
	return err ?: hc_state_init(&k->st, &k->c);
}

static void teardown_checker(struct checker *k)
{
	hc_state_free(&k->st);
	hc_conf_free(&k->c);
}

/* The kernel's view of service I: two backends, or none at all (!HAS). */
static int kernel_has(struct checker *k, uint32_t i, bool has)
{
	struct rc_service ks = k->c.s[i].id;
	int n;

	ks.b = k->kb;
	ks.nb = 2;
	for (n = 0; n < 2; n++) {
		k->kb[n].ep = ks.vip;
		k->kb[n].ep.addr[2] = 1;
		k->kb[n].ep.addr[3] = n + 1;
	}
	return hc_sync(&k->st.s[i], has ? &ks : NULL, 1000, NULL, NULL);
}

/* hc_log_presence(), its lines in errbuf: how many. */
static int logged(struct hc_state *st)
{
	const char *s;
	int n = 0;

	capture();
	hc_log_presence(st);
	for (s = captured(); *s; s++)
		n += *s == '\n';
	return n;
}

TEST(missing_services_logged_once_each)
{
	struct checker k;

	ASSERT_EQ(0, setup(&k, three));
	ASSERT_EQ(0, kernel_has(&k, 0, false));
	ASSERT_EQ(0, kernel_has(&k, 1, true));
	ASSERT_EQ(0, kernel_has(&k, 2, false));
	EXPECT_EQ(2, hc_missing(&k.st));
	/* At start: one line for each missing service, none for the other. */
	EXPECT_EQ(2, logged(&k.st)) TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "ringctl health: service 10.0.0.1:80 tcp (line 1): not in the kernel"))
		TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "ringctl health: service 10.0.0.3:53 udp (line 5): not in the kernel"))
		TH_LOG("%s", errbuf);
	EXPECT_EQ(NULL, strstr(errbuf, "10.0.0.2")) TH_LOG("%s", errbuf);
	/* Said once: the next reads are quiet. */
	EXPECT_EQ(0, logged(&k.st)) TH_LOG("%s", errbuf);
	/* It appears (boot ordering): picked up, and said. */
	ASSERT_EQ(0, kernel_has(&k, 0, true));
	EXPECT_EQ(1, hc_missing(&k.st));
	EXPECT_EQ(2, k.st.s[0].nb);
	EXPECT_EQ(1, logged(&k.st)) TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "service 10.0.0.1:80 tcp: now in the kernel: checking its 2 backends"))
		TH_LOG("%s", errbuf);
	/* One the kernel had goes: said too. */
	ASSERT_EQ(0, kernel_has(&k, 1, false));
	EXPECT_EQ(1, logged(&k.st)) TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "service 10.0.0.2:80 tcp (line 3): not in the kernel"))
		TH_LOG("%s", errbuf);
	teardown_checker(&k);
}

TEST(status_counts_and_names_the_missing)
{
	char text[256];
	struct checker k;

	ASSERT_EQ(0, setup(&k, three));
	ASSERT_EQ(0, kernel_has(&k, 0, false));
	ASSERT_EQ(0, kernel_has(&k, 1, true));
	ASSERT_EQ(0, kernel_has(&k, 2, false));
	hc_status_text(text, sizeof(text), &k.st, true);
	EXPECT_STREQ("3 services, 2 backends, 0 down, starting: probing every backend, "
		     "2 unchecked; not in the kernel: 10.0.0.1:80 tcp, 10.0.0.3:53 udp", text);
	/* Every one there: the line is as it always was. */
	ASSERT_EQ(0, kernel_has(&k, 0, true));
	ASSERT_EQ(0, kernel_has(&k, 2, true));
	k.st.started = true;
	hc_status_text(text, sizeof(text), &k.st, true);
	EXPECT_STREQ("3 services, 6 backends, 0 down", text);
	hc_status_text(text, sizeof(text), &k.st, false);
	EXPECT_STREQ("3 services, 6 backends, 0 down, cannot read the kernel", text);
	teardown_checker(&k);
}

/* Too many to name in one STATUS line: as many as fit, then how many more. */
TEST(status_of_many_missing_fits)
{
	static const char prefix[] =
		"40 services, 2 backends, 0 down, 39 unchecked; not in the kernel: "
		"[2001:db8::2]:8443 tcp, [2001:db8::3]:8443 tcp, ";
	char conf[4096], text[256], *end;
	struct checker k;
	size_t n = 0;
	int i;

	for (i = 1; i <= 40; i++)
		n += snprintf(conf + n, sizeof(conf) - n,
			      "service [2001:db8::%x]:8443\n  check tcp\n", i);
	ASSERT_EQ(0, setup(&k, conf));
	for (i = 0; i < 40; i++)
		ASSERT_EQ(0, kernel_has(&k, i, i == 0));
	k.st.started = true;
	hc_status_text(text, sizeof(text), &k.st, true);
	EXPECT_LT(strlen(text), sizeof(text) - 1) TH_LOG("%s", text);
	EXPECT_EQ(0, strncmp(text, prefix, strlen(prefix))) TH_LOG("%s", text);
	/* The last name whole, then the rest counted. */
	end = strrchr(text, ',');
	ASSERT_NE(NULL, end);
	EXPECT_EQ(0, strncmp(end, ", [2001:db8::", 13)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(end, ":8443 tcp and ")) TH_LOG("%s", text);
	EXPECT_STREQ(" more", text + strlen(text) - 5);
	teardown_checker(&k);
}

TEST(run_refuses_when_none_present)
{
	struct checker k;
	uint32_t i;

	ASSERT_EQ(0, setup(&k, three));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, kernel_has(&k, i, false));
	capture();
	EXPECT_EQ(-ENOENT, hc_run_start(&k.st));
	captured();
	EXPECT_NE(NULL, strstr(errbuf, "ringctl: health run: none of the file's 3 services is in the kernel"))
		TH_LOG("%s", errbuf);
	EXPECT_EQ(NULL, strstr(errbuf, "checking")) TH_LOG("%s", errbuf);

	/* One is enough to start; the start line says how many are checked. */
	ASSERT_EQ(0, kernel_has(&k, 2, true));
	capture();
	EXPECT_EQ(0, hc_run_start(&k.st));
	captured();
	EXPECT_NE(NULL, strstr(errbuf, "ringctl health: checking 1 of 3 services")) TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "2 not in the kernel")) TH_LOG("%s", errbuf);

	ASSERT_EQ(0, kernel_has(&k, 0, true));
	ASSERT_EQ(0, kernel_has(&k, 1, true));
	capture();
	EXPECT_EQ(0, hc_run_start(&k.st));
	captured();
	EXPECT_NE(NULL, strstr(errbuf, "ringctl health: checking 3 services from the kernel's health as it is\n"))
		TH_LOG("%s", errbuf);
	teardown_checker(&k);
}

TEST_HARNESS_MAIN
