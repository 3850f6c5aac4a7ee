// SPDX-License-Identifier: GPL-2.0
/*
 * The health checker's configuration file (userspace/health/health_conf.c):
 * every statement read into its fields, defaults, where backends are
 * probed, and bad lines rejected with the file name and line number and
 * nothing kept.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "health/health_conf.h"
#include "parse.h"

static int parse(const char *text, struct hc_config *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	capture();
	ret = hc_conf_parse(f, "health run", "hc.conf", c);
	captured();
	fclose(f);
	return ret;
}

static const char good[] =
	"# a checker for two services\n"
	"self-check tcp 10.0.0.254:22 interval 1s fall 2\n"
	"self-check exec timeout 2s command ping -c1 -W1 10.0.0.254\n"
	"service 10.0.0.1:80\n"
	"\tcheck http path /health status 204 host example.org interval 3s timeout 1500ms rise 3 fall 2 jitter 20%\n"
	"\tbackend 10.1.0.1:80 address 10.2.0.1 port 9000\n"
	"\tbackend 10.1.0.2:80 port 8080\n"
	"\tguard max-down 25%\n"
	"\thold-down 10s\n"
	"\tdamping flaps 3 within 5m stable 2m\n"
	"\ton-quorum-loss birdc disable vip1\n"
	"\ton-quorum-gain birdc   enable vip1\n"
	"service [fd00::1]:53 proto udp\n"
	"\tcheck udp send \\x00\\x01\\sa\\n expect \\x00 port 5353\n";

TEST(good_file)
{
	struct hc_config c;
	const struct hc_service_conf *s;

	ASSERT_EQ(0, parse(good, &c));
	ASSERT_EQ(2, c.ns);
	ASSERT_EQ(2, c.nself);
	ASSERT_EQ(HC_TCP, c.self[0].check.kind);
	ASSERT_EQ(22, c.self[0].target.port);
	ASSERT_EQ(1000, c.self[0].check.interval_ms);
	ASSERT_EQ(2, c.self[0].check.fall);
	ASSERT_EQ(HC_EXEC, c.self[1].check.kind);
	ASSERT_STREQ("ping -c1 -W1 10.0.0.254", c.self[1].check.command);
	ASSERT_EQ(3, c.self[1].check.line);

	s = &c.s[0];
	ASSERT_EQ(4, s->line);
	ASSERT_EQ(80, s->id.vip.port);
	ASSERT_EQ(HC_HTTP, s->check.kind);
	ASSERT_STREQ("/health", s->check.path);
	ASSERT_STREQ("example.org", s->check.host);
	ASSERT_EQ(204, s->check.status);
	ASSERT_EQ(3000, s->check.interval_ms);
	ASSERT_EQ(1500, s->check.timeout_ms);
	ASSERT_EQ(3, s->check.rise);
	ASSERT_EQ(2, s->check.fall);
	ASSERT_EQ(20, s->check.jitter_pct);
	ASSERT_EQ(2, s->nov);
	ASSERT_EQ(25, s->max_down_pct);
	ASSERT_EQ(10000, s->hold_down_ms);
	ASSERT_EQ(3, s->flaps);
	ASSERT_EQ(300000, s->within_ms);
	ASSERT_EQ(120000, s->stable_ms);
	ASSERT_STREQ("birdc disable vip1", s->on_loss);
	/* A command's words are joined by one blank. */
	ASSERT_STREQ("birdc enable vip1", s->on_gain);

	s = &c.s[1];
	ASSERT_EQ(AF_INET6, s->id.vip.family);
	ASSERT_EQ(IPPROTO_UDP, s->id.proto);
	ASSERT_EQ(HC_UDP, s->check.kind);
	ASSERT_EQ(5, s->check.send_len);
	ASSERT_EQ(0, memcmp(s->check.send, "\x00\x01 a\n", 5));
	ASSERT_EQ(1, s->check.expect_len);
	ASSERT_EQ(5353, s->check.port);
	/* Defaults. */
	ASSERT_EQ(HC_DEF_INTERVAL_MS, s->check.interval_ms);
	ASSERT_EQ(HC_DEF_RISE, s->check.rise);
	ASSERT_EQ(HC_DEF_FALL, s->check.fall);
	ASSERT_EQ(HC_DEF_MAX_DOWN_PCT, s->max_down_pct);
	ASSERT_EQ(0, s->hold_down_ms);
	ASSERT_EQ(0, s->flaps);
	ASSERT_EQ(NULL, s->on_loss);
	hc_conf_free(&c);
}

TEST(probe_target)
{
	struct hc_config c;
	struct rc_endpoint be, to;
	const char *why;
	char buf[RC_ENDPOINT_LEN];

	ASSERT_EQ(0, parse(good, &c));
	/* Address and port overridden. */
	ASSERT_EQ(0, rc_endpoint_parse("10.1.0.1:80", &be, &why));
	hc_conf_target(&c.s[0], &be, &to);
	rc_endpoint_format(buf, &to);
	ASSERT_STREQ("10.2.0.1:9000", buf);
	/* The port only. */
	ASSERT_EQ(0, rc_endpoint_parse("10.1.0.2:80", &be, &why));
	hc_conf_target(&c.s[0], &be, &to);
	rc_endpoint_format(buf, &to);
	ASSERT_STREQ("10.1.0.2:8080", buf);
	/* No override: the backend itself. */
	ASSERT_EQ(0, rc_endpoint_parse("10.1.0.3:80", &be, &why));
	hc_conf_target(&c.s[0], &be, &to);
	rc_endpoint_format(buf, &to);
	ASSERT_STREQ("10.1.0.3:80", buf);
	/* The check's port for every backend. */
	ASSERT_EQ(0, rc_endpoint_parse("[fd00::10]:53", &be, &why));
	hc_conf_target(&c.s[1], &be, &to);
	rc_endpoint_format(buf, &to);
	ASSERT_STREQ("[fd00::10]:5353", buf);
	hc_conf_free(&c);
}

/* Each bad file: the message names the file and the line, and c is empty. */
static const struct {
	const char *text, *msg;
} bad[] = {
	{ "check tcp\n", "hc.conf:1: 'check' before any service line" },
	{ "service 10.0.0.1:80\n\tcheck tcpp\n", "hc.conf:2: check 'tcpp' is not valid" },
	{ "service 10.0.0.1:80\n", "hc.conf:1: service 10.0.0.1:80 tcp has no check line" },
	{ "# only a comment\n", "hc.conf: no service to check" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tcheck tcp\n",
	  "hc.conf:3: second check for the service (first at line 2)" },
	{ "service 10.0.0.1:80\n\tcheck tcp interval 1s timeout 2s\n",
	  "hc.conf:2: timeout 2000ms is longer than the interval 1000ms" },
	{ "service 10.0.0.1:80\n\tcheck tcp interval 50ms\n",
	  "hc.conf:2: interval '50ms' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp rise 0\n", "hc.conf:2: rise '0' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp fall\n", "hc.conf:2: missing fall" },
	{ "service 10.0.0.1:80\n\tcheck tcp path /x\n",
	  "hc.conf:2: 'path' is not an option of tcp checks" },
	{ "service 10.0.0.1:80\n\tcheck http path x\n", "hc.conf:2: path 'x' is not valid" },
	{ "service 10.0.0.1:80\n\tcheck http status 700\n", "hc.conf:2: status '700' out of range" },
	{ "service 10.0.0.1:80\n\tcheck http rise 2 rise 3\n", "hc.conf:2: 'rise' given twice" },
	{ "service 10.0.0.1:80\n\tcheck http bogus 1\n", "hc.conf:2: unknown check option 'bogus'" },
	{ "service 10.0.0.1:80\n\tcheck tcp jitter 60%\n", "hc.conf:2: jitter '60%' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp jitter 10\n", "hc.conf:2: jitter '10' is not valid" },
	{ "service 10.0.0.1:80\n\tcheck udp\n", "hc.conf:2: a udp check needs 'send BYTES'" },
	{ "service 10.0.0.1:80 proto udp\n\tcheck udp send \\q\n", "hc.conf:2: send '\\q' is not valid" },
	{ "service 10.0.0.1:80\n\tcheck exec timeout 1s\n",
	  "hc.conf:2: an exec check needs 'command WORDS...'" },
	{ "service 10.0.0.1:80\n\tcheck exec command\n", "hc.conf:2: missing command" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tbackend 10.1.0.1:80\n",
	  "hc.conf:3: backend 10.1.0.1:80 overrides nothing" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tbackend [fd00::1]:80 port 1\n",
	  "hc.conf:3: backend [fd00::1]:80 is not of the service's address family" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tbackend 10.1.0.1:80 port 1\n\tbackend 10.1.0.1:80 port 2\n",
	  "hc.conf:4: backend 10.1.0.1:80 already given at line 3" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tbackend 10.1.0.1:80 address nowhere\n",
	  "hc.conf:3: address 'nowhere' is not valid" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tbackend 10.1.0.1:80 port 1 port 2\n",
	  "hc.conf:3: unexpected 'port'" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tguard max-down 101%\n",
	  "hc.conf:3: max-down '101%' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tguard min-up 1\n",
	  "hc.conf:3: want 'guard max-down PCT%'" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\thold-down 25h\n", "hc.conf:3: hold-down '25h' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tdamping flaps 3 within 5m\n",
	  "hc.conf:3: want 'damping flaps N within DURATION stable DURATION'" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tdamping flaps 0 within 5m stable 1m\n",
	  "hc.conf:3: flaps '0' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tdamping flaps 2 within 0s stable 1m\n",
	  "hc.conf:3: within '0s' out of range" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\ton-quorum-loss\n", "hc.conf:3: on-quorum-loss needs a command" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\ton-quorum-gain a\n\ton-quorum-gain b\n",
	  "hc.conf:4: on-quorum-gain given twice" },
	{ "service 10.0.0.1:80\n\tcheck tcp\nservice 10.0.0.1:80\n",
	  "hc.conf:3: service 10.0.0.1:80 tcp already defined at line 1" },
	{ "service 127.0.0.1:80\n", "hc.conf:1: bad service '127.0.0.1:80'" },
	{ "self-check tcp\n", "hc.conf:1: missing self-check target" },
	{ "self-check exec command x\nfrobnicate\n", "hc.conf:2: unknown statement 'frobnicate'" },
	{ "service 10.0.0.1:80\n\tcheck tcp\n\tcheck tcp\n\tcheck tcp\n", "hc.conf:3:" },
};

TEST(bad_lines)
{
	struct hc_config c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fmemopen((void *)bad[i].text, strlen(bad[i].text), "r");
		int ret;

		capture();
		ret = hc_conf_parse(f, "health run", "hc.conf", &c);
		captured();
		fclose(f);
		EXPECT_EQ(-EINVAL, ret) {
			TH_LOG("accepted: %s", bad[i].text);
		}
		EXPECT_NE(NULL, strstr(errbuf, bad[i].msg)) {
			TH_LOG("for %s want '%s', got '%s'", bad[i].text, bad[i].msg, errbuf);
		}
		/* Only the first error is printed. */
		EXPECT_EQ(1, strchr(errbuf, '\n') && !strchr(strchr(errbuf, '\n') + 1, '\n'));
		EXPECT_EQ(0, c.ns);
		EXPECT_EQ(NULL, c.s);
	}
}

TEST(durations)
{
	uint32_t ms;

	ASSERT_EQ(0, parse_duration("2", 10000, &ms));
	ASSERT_EQ(2000, ms);
	ASSERT_EQ(0, parse_duration("250ms", 10000, &ms));
	ASSERT_EQ(250, ms);
	ASSERT_EQ(0, parse_duration("5m", 3600000, &ms));
	ASSERT_EQ(300000, ms);
	ASSERT_EQ(0, parse_duration("1h", 3600000, &ms));
	ASSERT_EQ(3600000, ms);
	ASSERT_EQ(-ERANGE, parse_duration("2h", 3600000, &ms));
	ASSERT_EQ(-ERANGE, parse_duration("99999999999999999999", 3600000, &ms));
	ASSERT_EQ(-EINVAL, parse_duration("1d", 3600000, &ms));
	ASSERT_EQ(-EINVAL, parse_duration("-1s", 3600000, &ms));
	ASSERT_EQ(-EINVAL, parse_duration("s", 3600000, &ms));
	ASSERT_EQ(-EINVAL, parse_duration(NULL, 3600000, &ms));
}

TEST(percent_and_payload)
{
	uint8_t out[4];
	uint32_t pct;
	size_t len;

	ASSERT_EQ(0, parse_percent("0%", &pct));
	ASSERT_EQ(0, pct);
	ASSERT_EQ(0, parse_percent("100%", &pct));
	ASSERT_EQ(100, pct);
	ASSERT_EQ(-ERANGE, parse_percent("101%", &pct));
	ASSERT_EQ(-EINVAL, parse_percent("%", &pct));
	ASSERT_EQ(-EINVAL, parse_percent("50", &pct));
	ASSERT_EQ(0, hc_parse_payload("a\\\\\\t\\xfF", out, sizeof(out), &len));
	ASSERT_EQ(4, len);
	ASSERT_EQ(0, memcmp(out, "a\\\t\xff", 4));
	ASSERT_EQ(-ERANGE, hc_parse_payload("abcde", out, sizeof(out), &len));
	ASSERT_EQ(-EINVAL, hc_parse_payload("\\x1", out, sizeof(out), &len));
	ASSERT_EQ(-EINVAL, hc_parse_payload("ab\\", out, sizeof(out), &len));
}

TEST_HARNESS_MAIN
