// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's forward and encap settings: the keywords of service add and
 * set, the configuration file (round trip, bad lines with their line and a
 * clear message, nothing parsed), what show, show -j and fingerprint print
 * beside the ring, and restore's plan when they change. A tunnel service's
 * backends by their address alone: in the file, as save writes them, in
 * restore's plan, and against the service's mode on the command line.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "parse.h"
#include "print.h"
#include "show_print.h"
#include "restore_plan.h"

/* A service line, parsed with stderr captured into errbuf. */
static int quiet_service(const char *line, struct rc_service *s, uint64_t allowed)
{
	char buf[256], *argv[16], *save, *w;
	struct parse_args a;
	int argc = 0, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 16; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	capture();
	ret = parse_service_args("test", argc, argv, allowed, s, &a);
	if (!ret && (allowed & PARSE_KW_FORWARD))
		ret = parse_check_new_service("test", s);
	captured();
	return ret;
}

#define ADD (PARSE_KW_PROTO | PARSE_KW_VNODES | PARSE_KW_HASH | PARSE_KW_FORWARD | \
	     PARSE_KW_ENCAP)

static int parse_text(const char *text, struct rc_config *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	capture();
	ret = parse_config(f, "test", "conf", c);
	captured();
	fclose(f);
	return ret;
}

static char *print_text(const struct rc_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print_config(f, c);
	fclose(f);
	return text;
}

TEST(keywords)
{
	struct rc_service s;

	ASSERT_EQ(0, quiet_service("10.0.0.1:80 forward tunnel", &s, ADD)) TH_LOG("%s", errbuf);
	EXPECT_EQ(RC_HAS_FORWARD, s.has);
	EXPECT_EQ(RINGSTEER_FORWARD_TUNNEL, rc_service_forward(&s));
	EXPECT_EQ(RINGSTEER_ENCAP_IPIP, rc_service_encap(&s));
	EXPECT_EQ(RINGSTEER_DEFAULT_GUE_PORT, rc_service_encap_port(&s));

	ASSERT_EQ(0, quiet_service("10.0.0.1:80 encap gue port 7000 forward tunnel proto udp",
				   &s, ADD)) TH_LOG("%s", errbuf);
	EXPECT_EQ(RC_HAS_FORWARD | RC_HAS_ENCAP | RC_HAS_ENCAP_PORT, s.has);
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, s.encap);
	EXPECT_EQ(7000, s.encap_port);
	EXPECT_EQ(IPPROTO_UDP, s.proto);

	/* "port" is optional after gue; the next keyword follows at once. */
	ASSERT_EQ(0, quiet_service("10.0.0.1:80 forward tunnel encap gue vnodes 8", &s, ADD));
	EXPECT_EQ(RC_HAS_FORWARD | RC_HAS_ENCAP | RC_HAS_VNODES, s.has);
	EXPECT_EQ(8, s.vnodes);

	ASSERT_EQ(0, quiet_service("10.0.0.1:80 forward nat", &s, ADD));
	EXPECT_EQ(RINGSTEER_FORWARD_NAT, rc_service_forward(&s));
	/* A default service is NAT, as before forward existed. */
	ASSERT_EQ(0, quiet_service("10.0.0.1:80", &s, ADD));
	EXPECT_EQ(RINGSTEER_FORWARD_NAT, rc_service_forward(&s));
}

TEST(keywords_rejected)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "10.0.0.1:80 forward dsr", "forward 'dsr' is not valid (nat or tunnel)" },
		{ "10.0.0.1:80 forward", "'forward' needs a value" },
		{ "10.0.0.1:80 forward tunnel encap gre", "encap 'gre' is not valid (ipip or gue)" },
		{ "10.0.0.1:80 forward tunnel encap ipip port 6080", "'port' applies to encap gue only" },
		{ "10.0.0.1:80 forward tunnel encap gue port 0", "out of range (1..65535)" },
		{ "10.0.0.1:80 forward tunnel encap gue port 65536", "out of range (1..65535)" },
		{ "10.0.0.1:80 forward tunnel encap gue port", "missing encap gue port" },
		{ "10.0.0.1:80 forward tunnel encap gue port x", "is not valid" },
		{ "10.0.0.1:80 encap gue", "encap applies to forward tunnel only" },
		{ "10.0.0.1:80 forward nat encap ipip", "encap applies to forward tunnel only" },
		{ "10.0.0.1:80 forward tunnel forward nat", "given twice" },
		{ "10.0.0.1:80 port 80", "unexpected argument 'port'" },
	};
	struct rc_service s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_NE(0, quiet_service(bad[i].line, &s, ADD)) TH_LOG("accepted: %s", bad[i].line);
		EXPECT_NE(NULL, strstr(errbuf, bad[i].why))
			TH_LOG("%s: got '%s', want '%s'", bad[i].line, errbuf, bad[i].why);
	}
	/* service del takes neither. */
	EXPECT_NE(0, quiet_service("10.0.0.1:80 forward tunnel", &s,
				   PARSE_KW_PROTO | PARSE_KW_KEEP_FLOWS));
	EXPECT_NE(NULL, strstr(errbuf, "unexpected argument 'forward'"));
}

/* As save writes it: a tunnel service's backends as their addresses alone. */
static const char tunnel_conf[] =
	"# ringsteer configuration (ringctl save); 'ringctl restore' reads it\n"
	"service 10.0.0.1:80 proto tcp vnodes 256 hash flow on-down keep\n"
	"\tbackend 10.1.0.1:8080 weight 1 state active\n"
	"service 10.0.0.2:80 proto tcp vnodes 64 hash flow on-down reset forward tunnel encap ipip\n"
	"\tbackend 10.1.0.1 weight 1 state active\n"
	"\tbackend 10.1.0.2 weight 2 state draining\n"
	"service 10.0.0.2:53 proto udp vnodes 256 hash source on-down keep forward tunnel encap gue port 6080\n"
	"\tbackend 10.1.0.3 weight 1 state active\n"
	"service [fd00::1]:443 proto tcp vnodes 256 hash flow on-down reset forward tunnel encap gue port 7777\n"
	"\tbackend fd02::1 weight 1 state active\n";

TEST(config_round_trip)
{
	struct rc_config c;
	char *text;

	ASSERT_EQ(0, parse_text(tunnel_conf, &c)) TH_LOG("%s", errbuf);
	ASSERT_EQ(4, c.ns);
	EXPECT_EQ(RINGSTEER_FORWARD_NAT, rc_service_forward(&c.s[0]));
	EXPECT_EQ(RINGSTEER_FORWARD_TUNNEL, rc_service_forward(&c.s[1]));
	EXPECT_EQ(RINGSTEER_ENCAP_IPIP, rc_service_encap(&c.s[1]));
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, rc_service_encap(&c.s[2]));
	EXPECT_EQ(7777, rc_service_encap_port(&c.s[3]));
	EXPECT_EQ(RINGSTEER_ON_DOWN_KEEP, rc_service_on_down(&c.s[0]));
	EXPECT_EQ(RINGSTEER_ON_DOWN_RESET, rc_service_on_down(&c.s[1]));
	EXPECT_EQ(RINGSTEER_ON_DOWN_RESET, rc_service_on_down(&c.s[3]));
	/* The backends' port is the VIP's. */
	EXPECT_EQ(80, c.s[1].b[1].ep.port);
	EXPECT_EQ(53, c.s[2].b[0].ep.port);
	EXPECT_EQ(443, c.s[3].b[0].ep.port);
	text = print_text(&c);
	EXPECT_STREQ(tunnel_conf, text);
	free(text);
	rc_config_free(&c);
}

/*
 * Every way a file may name a tunnel service's backend: its address alone
 * (IPv6 with or without brackets) or with the VIP's port. save writes the
 * address alone.
 */
TEST(config_bare_backends)
{
	static const char forms[] =
		"service 10.0.0.1:80 on-down keep\n"
		"  backend 10.1.0.1:8080\n"
		"service 10.0.0.2:80 vnodes 64 on-down reset forward tunnel\n"
		"  backend 10.2.0.21:80\n"
		"  backend 10.2.0.22 weight 2 state draining on-down keep\n"
		"service [fd00::1]:443 forward tunnel encap gue\n"
		"  backend [fd02::2]\n"
		"  backend fd02::3\n";
	static const char *const lines[] = {
		"\tbackend 10.1.0.1:8080 weight 1 state active\n",
		"\tbackend 10.2.0.21 weight 1 state active\n",
		"\tbackend 10.2.0.22 weight 2 state draining on-down keep\n",
		"\tbackend fd02::2 weight 1 state active\n",
		"\tbackend fd02::3 weight 1 state active\n",
	};
	struct rc_config c, again;
	char *text, *text2;
	uint32_t i, k;

	ASSERT_EQ(0, parse_text(forms, &c)) TH_LOG("%s", errbuf);
	ASSERT_EQ(3, c.ns);
	EXPECT_EQ(8080, c.s[0].b[0].ep.port);
	for (i = 1; i < c.ns; i++) {
		ASSERT_EQ(2, c.s[i].nb);
		for (k = 0; k < c.s[i].nb; k++)
			EXPECT_EQ(c.s[i].vip.port, c.s[i].b[k].ep.port);
	}
	text = print_text(&c);
	ASSERT_NE(NULL, text);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		EXPECT_NE(NULL, strstr(text, lines[i])) TH_LOG("save wrote no line %u of lines[]", i);
	/* What save wrote, restore reads back to the same configuration. */
	ASSERT_EQ(0, parse_text(text, &again)) TH_LOG("%s", errbuf);
	text2 = print_text(&again);
	ASSERT_NE(NULL, text2);
	EXPECT_STREQ(text, text2);
	free(text);
	free(text2);
	rc_config_free(&c);
	rc_config_free(&again);
}

/*
 * The command line's check once the service's forward mode is read from
 * the kernel (backend.c, plan.c): an address alone is a tunnel's only.
 */
TEST(bare_backend_needs_forward_tunnel)
{
	char *words[] = { "10.0.0.1:80", "10.2.0.21" };
	struct rc_service s;
	struct rc_backend b;
	struct parse_args a;

	capture();
	ASSERT_EQ(0, parse_backend_args("backend del", 2, words, 0, &s, &b, &a));
	EXPECT_EQ(0, parse_check_bare_backend("backend del", &b, RINGSTEER_FORWARD_TUNNEL));
	EXPECT_STREQ("", captured());
	capture();
	EXPECT_EQ(-EINVAL, parse_check_bare_backend("backend del", &b, RINGSTEER_FORWARD_NAT));
	captured();
	EXPECT_NE(NULL, strstr(errbuf, "backend del: bad backend '10.2.0.21': missing ':PORT'"))
		TH_LOG("%s", errbuf);
	EXPECT_NE(NULL, strstr(errbuf, "forward tunnel")) TH_LOG("%s", errbuf);
}

TEST(config_bad_lines)
{
	static const struct {
		const char *text, *line, *what;
	} bad[] = {
		{ "service 10.0.0.1:80 forward tunnel\nbackend 10.1.0.1:8080\n", "conf:2:",
		  "forward tunnel cannot translate ports, give the VIP's port 80" },
		{ "service 10.0.0.1:80 encap gue\n", "conf:1:",
		  "encap applies to forward tunnel only" },
		{ "service 10.0.0.1:80 forward tunnel encap ipip port 1\n", "conf:1:",
		  "'port' applies to encap gue only" },
		{ "service 10.0.0.1:80\nservice 10.0.0.2:80 forward tunel\n", "conf:2:",
		  "forward 'tunel' is not valid" },
		/* A NAT service must be told where to send: an address alone is not enough. */
		{ "service 10.0.0.1:80\nbackend 10.1.0.1\n", "conf:2:",
		  "bad backend '10.1.0.1': missing ':PORT'" },
		{ "service [fd00::1]:80 forward nat\nbackend fd02::2\n", "conf:2:",
		  "bad backend 'fd02::2': missing ':PORT'" },
		{ "service 10.0.0.1:80 forward tunnel\nbackend [fd02::2]\n", "conf:2:",
		  "different address families" },
		/* The two forms name one backend. */
		{ "service 10.0.0.1:80 forward tunnel\nbackend 10.1.0.1\nbackend 10.1.0.1:80\n",
		  "conf:3:", "backend 10.1.0.1:80 given twice" },
		{ "service 10.0.0.1:80 forward tunnel\nbackend 10.0.0.1\n", "conf:2:",
		  "own VIP and port" },
		{ "service 10.0.0.1:80 forward tunnel\nbackend 10.1.0\n", "conf:2:",
		  "bad IPv4 address" },
	};
	struct rc_config c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse_text(bad[i].text, &c)) TH_LOG("accepted: %s", bad[i].text);
		EXPECT_EQ(0, c.ns);
		EXPECT_NE(NULL, strstr(errbuf, bad[i].line)) TH_LOG("%s", errbuf);
		EXPECT_NE(NULL, strstr(errbuf, bad[i].what)) TH_LOG("%s", errbuf);
	}
}

static char *out;
static size_t outlen;

static char *show(const struct rc_config *c, bool json)
{
	FILE *f = open_memstream(&out, &outlen);

	if (json)
		print_show_json(f, c);
	else
		print_show_text(f, c);
	fclose(f);
	return out;
}

TEST(show_prints_forward_and_counters)
{
	struct rc_config c = { 0 };
	struct rc_service s = { .proto = IPPROTO_TCP, .vnodes = 256,
				.forward = RINGSTEER_FORWARD_TUNNEL,
				.encap = RINGSTEER_ENCAP_GUE, .encap_port = 6080,
				.has = RC_HAS_FORWARD | RC_HAS_ENCAP | RC_HAS_ENCAP_PORT,
				.has_tunnel_stats = true, .packets = 10, .table_misses = 9,
				.nonsyn_misses = 4, .too_big = 1, .fragments = 2,
				.encap_errors = 3, .martians = 5, .not_host = 6,
				.icmp_limited = 7, .flood_skipped = 8 };
	const char *why;
	char *o, *nat;

	rc_endpoint_parse("10.0.0.1:80", &s.vip, &why);
	rc_config_add_service(&c, &s);
	s.forward = RINGSTEER_FORWARD_NAT;
	s.has = RC_HAS_FORWARD;
	s.has_tunnel_stats = false;
	rc_endpoint_parse("10.0.0.2:80", &s.vip, &why);
	rc_config_add_service(&c, &s);

	o = show(&c, false);
	EXPECT_NE(NULL, strstr(o, " forward tunnel encap gue port 6080\n")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "tunnel: packets 10 table hits 0 misses 9 non-SYN misses 4 "
			       "too big 1 fragments 2 encap errors 3\n")) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "     dropped: martian sources 5 not for this host 6 "
			       "ICMP limited 7; flood: not recorded 8\n")) TH_LOG("%s", o);
	/* The NAT service's line names no forward mode, as before. */
	EXPECT_EQ(NULL, strstr(o, "forward nat")) TH_LOG("%s", o);
	free(o);

	o = show(&c, true);
	EXPECT_NE(NULL, strstr(o, "\"forward\":\"tunnel\",\"encap\":\"gue\",\"encap_port\":6080"))
		TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(o, "\"tunnel\":{\"packets\":10,\"table_hits\":0,"
			       "\"table_misses\":9,\"nonsyn_misses\":4,\"too_big\":1,"
			       "\"fragments\":2,\"encap_errors\":3,\"martians\":5,"
			       "\"not_host\":6,\"icmp_limited\":7,\"flood_skipped\":8}"))
		TH_LOG("%s", o);
	/* The NAT service says forward nat, and nothing of an encapsulation. */
	nat = strstr(o, "\"vip\":\"10.0.0.2\"");
	ASSERT_NE(NULL, nat) TH_LOG("%s", o);
	EXPECT_NE(NULL, strstr(nat, "\"forward\":\"nat\",")) TH_LOG("%s", o);
	EXPECT_EQ(NULL, strstr(nat, "encap")) TH_LOG("%s", o);
	free(o);
	rc_config_free(&c);
}

static struct rc_service *svc(struct rc_config *c, const char *vip, uint32_t forward,
			      uint32_t encap)
{
	struct rc_service s = { .proto = IPPROTO_TCP, .forward = forward, .encap = encap,
				.has = RC_HAS_FORWARD | RC_HAS_ENCAP };
	const char *why;

	rc_endpoint_parse(vip, &s.vip, &why);
	return rc_config_add_service(c, &s);
}

/* A new forward mode is a new service; a new encap is a set. */
TEST(restore_plan)
{
	struct rc_config live = { 0 }, want = { 0 };
	struct rc_plan p;

	svc(&live, "10.0.0.1:80", RINGSTEER_FORWARD_NAT, 0);
	svc(&live, "10.0.0.2:80", RINGSTEER_FORWARD_TUNNEL, RINGSTEER_ENCAP_IPIP);
	svc(&live, "10.0.0.3:80", RINGSTEER_FORWARD_TUNNEL, RINGSTEER_ENCAP_IPIP);
	svc(&want, "10.0.0.1:80", RINGSTEER_FORWARD_TUNNEL, RINGSTEER_ENCAP_IPIP);
	svc(&want, "10.0.0.2:80", RINGSTEER_FORWARD_TUNNEL, RINGSTEER_ENCAP_GUE);
	svc(&want, "10.0.0.3:80", RINGSTEER_FORWARD_TUNNEL, RINGSTEER_ENCAP_IPIP);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(3, p.n);
	EXPECT_EQ(RC_OP_SERVICE_DEL, p.ops[0].kind);
	EXPECT_EQ(RC_OP_SERVICE_NEW, p.ops[1].kind);
	EXPECT_EQ(RINGSTEER_FORWARD_TUNNEL, rc_service_forward(&p.ops[1].s));
	EXPECT_EQ(RC_OP_SERVICE_SET, p.ops[2].kind);
	/* The words that go with encap gue go with it: its port, its chain. */
	EXPECT_EQ(RC_HAS_ENCAP | RC_HAS_ENCAP_PORT | RC_HAS_CHAIN, p.ops[2].s.has);
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, p.ops[2].s.encap);
	EXPECT_EQ(2, p.ops[2].s.vip.addr[3]);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

/*
 * The kernel reports every backend with its port, a file may leave a
 * tunnel service's out: the same backends, so restore sends nothing.
 */
TEST(restore_plan_bare_and_explicit_alike)
{
	static const char live_text[] =
		"service 10.0.0.2:80 forward tunnel\n"
		"  backend 10.2.0.21:80 weight 1 state active\n"
		"  backend 10.2.0.22:80 weight 2 state active\n"
		"service [fd00::1]:443 forward tunnel\n"
		"  backend [fd02::2]:443\n";
	static const char want_text[] =
		"service 10.0.0.2:80 forward tunnel\n"
		"  backend 10.2.0.21\n"
		"  backend 10.2.0.22 weight 2\n"
		"service [fd00::1]:443 forward tunnel\n"
		"  backend fd02::2\n";
	struct rc_config live, want;
	struct rc_plan p;

	ASSERT_EQ(0, parse_text(live_text, &live)) TH_LOG("%s", errbuf);
	ASSERT_EQ(0, parse_text(want_text, &want)) TH_LOG("%s", errbuf);
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	EXPECT_EQ(0, p.n) TH_LOG("first: %s", rc_op_name(p.ops[0].kind));
	rc_plan_free(&p);
	/* A real change still shows, on the backend with the VIP's port. */
	want.s[0].b[1].weight = 3;
	ASSERT_EQ(0, rc_plan_restore(&live, &want, 0, &p));
	ASSERT_EQ(1, p.n);
	EXPECT_EQ(RC_OP_BACKEND_SET, p.ops[0].kind);
	EXPECT_EQ(80, p.ops[0].b.ep.port);
	EXPECT_EQ(22, p.ops[0].b.ep.addr[3]);
	rc_plan_free(&p);
	rc_config_free(&live);
	rc_config_free(&want);
}

TEST_HARNESS_MAIN
