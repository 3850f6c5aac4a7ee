// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's parsing layer, which runs before any netlink I/O: endpoints,
 * keywords, numbers and keys, and the save/restore file format (round
 * trip, and bad lines rejected with their line number).
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "parse.h"
#include "print.h"
#include "endpoint.h"

static int ep_arg(const char *s, struct rc_endpoint *ep)
{
	int ret;

	capture();
	ret = parse_endpoint_arg("test", "service", s, ep);
	captured();
	return ret;
}

TEST(endpoint_ipv4)
{
	struct rc_endpoint ep;
	char buf[RC_ENDPOINT_LEN];

	ASSERT_EQ(0, ep_arg("10.0.0.1:80", &ep));
	ASSERT_EQ(AF_INET, ep.family);
	ASSERT_EQ(80, ep.port);
	ASSERT_EQ(10, ep.addr[0]);
	ASSERT_EQ(1, ep.addr[3]);
	ASSERT_EQ(0, ep.addr[4]);	/* IPv4 padding stays zero */
	rc_endpoint_format(buf, &ep);
	ASSERT_STREQ("10.0.0.1:80", buf);
	ASSERT_EQ(0, ep_arg("255.255.255.255:65535", &ep));
	ASSERT_EQ(65535, ep.port);
}

TEST(endpoint_ipv6)
{
	struct rc_endpoint ep;
	char buf[RC_ENDPOINT_LEN], addr[RC_ADDR_LEN];

	ASSERT_EQ(0, ep_arg("[2001:DB8::1]:443", &ep));
	ASSERT_EQ(AF_INET6, ep.family);
	ASSERT_EQ(443, ep.port);
	rc_endpoint_format(buf, &ep);
	ASSERT_STREQ("[2001:db8::1]:443", buf);
	rc_addr_format(addr, &ep);
	ASSERT_STREQ("2001:db8::1", addr);
	ASSERT_EQ(0, ep_arg("[::]:1", &ep));
}

TEST(endpoint_rejects)
{
	static const char *const bad[] = {
		"10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:99999999999999999999",
		"10.0.0.1", "10.0.0.1:", "10.0.0.1:80x", "10.0.0.1:-1",
		"10.0.0.1: 80", "10.0.0.256:80", "10.0.0:80", "host:80", ":80",
		"", "[2001:db8::1:80", "2001:db8::1]:80", "2001:db8::1:80",
		"[2001:db8::1]80", "[2001:db8::1]", "[10.0.0.1]:80", "[::1]:0",
		"[::g]:80", " 10.0.0.1:80",
	};
	struct rc_endpoint ep;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *s = bad[i] ? bad[i] : "";

		EXPECT_EQ(-EINVAL, ep_arg(s, &ep)) TH_LOG("accepted '%s'", s);
	}
	EXPECT_EQ(-EINVAL, ep_arg(NULL, &ep));
}

TEST(endpoint_messages)
{
	struct rc_endpoint ep;

	capture();
	parse_endpoint_arg("service add", "service", "[2001:db8::1:80", &ep);
	ASSERT_NE(NULL, strstr(captured(), "missing ']'"));
	capture();
	parse_endpoint_arg("service add", "service", "10.0.0.1:0", &ep);
	ASSERT_NE(NULL, strstr(captured(), "port 0"));
	capture();
	parse_endpoint_arg("service add", "service", "10.0.0.1:65536", &ep);
	ASSERT_NE(NULL, strstr(captured(), "out of range"));
	capture();
	parse_endpoint_arg("service add", "service", "2001:db8::1:80", &ep);
	ASSERT_NE(NULL, strstr(captured(), "brackets"));
}

/* Port 0 stays legal for the simulator's flows (protocols without ports). */
TEST(endpoint_port0_for_flows)
{
	struct rc_endpoint ep;
	const char *why;

	ASSERT_EQ(0, rc_endpoint_parse("10.0.0.1:0", &ep, &why));
	ASSERT_EQ(0, ep.port);
}

/*
 * A forward tunnel service's backend may be its address alone: "fd02::2"
 * and "[fd02::2]" too, and without brackets all of it is the address.
 */
TEST(endpoint_bare_forms)
{
	static const struct {
		const char *s;
		int family;
		const char *addr;
		unsigned int port;
		bool bare;
	} good[] = {
		{ "10.2.0.21", AF_INET, "10.2.0.21", 0, true },
		{ "fd02::2", AF_INET6, "fd02::2", 0, true },
		{ "[fd02::2]", AF_INET6, "fd02::2", 0, true },
		{ "[FD02::2]", AF_INET6, "fd02::2", 0, true },
		{ "fd02::2:80", AF_INET6, "fd02::2:80", 0, true },
		{ "10.2.0.21:80", AF_INET, "10.2.0.21", 80, false },
		{ "[fd02::2]:443", AF_INET6, "fd02::2", 443, false },
	};
	static const struct {
		const char *s, *why;
	} bad[] = {
		{ "10.2.0.256", "bad IPv4 address" },
		{ "host", "bad IPv4 address" },
		{ "", "bad IPv4 address" },
		{ "fd02::g", "bad IPv6 address" },
		{ "[]", "bad IPv6 address" },
		{ "[10.2.0.21]", "bad IPv6 address" },
		{ "fd02::2]:80", "bad IPv6 address" },
		{ "[fd02::2", "missing ']'" },
		{ "[fd02::2]x", "missing ':PORT' after ']'" },
		{ "10.2.0.21:", "missing port" },
	};
	char addr[RC_ADDR_LEN];
	struct rc_endpoint ep;
	const char *why;
	bool bare;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ASSERT_EQ(0, rc_endpoint_parse_bare(good[i].s, &ep, &bare, &why))
			TH_LOG("%s: %s", good[i].s, why);
		EXPECT_EQ(good[i].family, ep.family) TH_LOG("%s", good[i].s);
		rc_addr_format(addr, &ep);
		EXPECT_STREQ(good[i].addr, addr);
		EXPECT_EQ(good[i].port, ep.port) TH_LOG("%s", good[i].s);
		EXPECT_EQ(good[i].bare, bare) TH_LOG("%s", good[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = "";
		EXPECT_EQ(-EINVAL, rc_endpoint_parse_bare(bad[i].s, &ep, &bare, &why))
			TH_LOG("accepted '%s'", bad[i].s);
		EXPECT_NE(NULL, strstr(why, bad[i].why))
			TH_LOG("'%s': got '%s', want '%s'", bad[i].s, why, bad[i].why);
	}
}

TEST(endpoint_order)
{
	struct rc_endpoint a, b;

	ASSERT_EQ(0, ep_arg("10.0.0.1:80", &a));
	ASSERT_EQ(0, ep_arg("10.0.0.1:81", &b));
	ASSERT_GT(0, rc_endpoint_cmp(&a, &b));
	ASSERT_EQ(0, ep_arg("[::1]:1", &b));
	ASSERT_GT(0, rc_endpoint_cmp(&a, &b));	/* family 4 before 6 */
	ASSERT_EQ(0, ep_arg("9.255.255.255:65535", &b));
	ASSERT_LT(0, rc_endpoint_cmp(&a, &b));
	ASSERT_EQ(0, rc_endpoint_cmp(&a, &a));
}

/*
 * Addresses that cannot be a VIP or a backend, as the kernel refuses them
 * (uapi "Addresses"): refused before any request, naming what they are.
 */
TEST(endpoint_unusable_for_services)
{
	static const struct {
		const char *ep, *what;
	} bad[] = {
		{ "0.0.0.0:80", "unspecified" }, { "[::]:80", "unspecified" },
		{ "127.0.0.1:80", "loopback" }, { "127.255.255.254:80", "loopback" },
		{ "[::1]:80", "loopback" },
		{ "169.254.0.1:80", "link-local" }, { "[fe80::1]:80", "link-local" },
		{ "[febf:ffff::1]:80", "link-local" },
		{ "224.0.0.1:80", "multicast" }, { "239.255.255.255:80", "multicast" },
		{ "[ff02::1]:80", "multicast" },
		{ "255.255.255.255:80", "broadcast" },
		{ "[::ffff:10.0.0.1]:80", "IPv4-mapped" },
	};
	static const char *const good[] = {
		"1.0.0.0:80", "126.255.255.255:80", "128.0.0.1:80", "169.253.255.255:80",
		"169.255.0.1:80", "223.255.255.255:80", "240.0.0.1:80", "255.255.255.254:80",
		"[::2]:80", "[fec0::1]:80", "[fe7f::1]:80", "[::fffe:a00:1]:80",
		"[2001:db8::1]:80",
	};
	struct rc_service s;
	struct rc_backend bk;
	struct parse_args a;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *svc[] = { (char *)bad[i].ep };
		char *be[] = { strchr(bad[i].ep, '[') ? "[2001:db8::1]:80" : "10.0.0.1:80",
			       (char *)bad[i].ep };

		capture();
		ret = parse_service_args("service add", 1, svc, 0, &s, &a);
		EXPECT_NE(NULL, strstr(captured(), bad[i].what)) TH_LOG("%s: %s", bad[i].ep, errbuf);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("service %s accepted", bad[i].ep);
		capture();
		ret = parse_backend_args("backend add", 2, be, 0, &s, &bk, &a);
		EXPECT_NE(NULL, strstr(captured(), bad[i].what)) TH_LOG("%s: %s", bad[i].ep, errbuf);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("backend %s accepted", bad[i].ep);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *svc[] = { (char *)good[i] };

		capture();
		ret = parse_service_args("service add", 1, svc, 0, &s, &a);
		captured();
		EXPECT_EQ(0, ret) TH_LOG("service %s refused: %s", good[i], errbuf);
	}
	/* A flow's source may be anything (lookup, simulate). */
	EXPECT_EQ(0, ep_arg("127.0.0.1:1000", &s.vip));
}

TEST(backend_equal_to_its_vip)
{
	char *same[] = { "10.0.0.1:80", "10.0.0.1:80" };
	char *same6[] = { "[2001:db8::1]:443", "[2001:db8::1]:443" };
	char *port[] = { "10.0.0.1:80", "10.0.0.1:8080" };
	struct rc_service s;
	struct rc_backend b;
	struct parse_args a;
	int ret;

	capture();
	ret = parse_backend_args("backend add", 2, same, 0, &s, &b, &a);
	EXPECT_NE(NULL, strstr(captured(), "VIP")) TH_LOG("%s", errbuf);
	EXPECT_EQ(-EINVAL, ret);
	capture();
	ret = parse_backend_args("backend add", 2, same6, 0, &s, &b, &a);
	EXPECT_NE(NULL, strstr(captured(), "VIP")) TH_LOG("%s", errbuf);
	EXPECT_EQ(-EINVAL, ret);
	/* The VIP's address on another port is a backend like any other. */
	capture();
	ret = parse_backend_args("backend add", 2, port, 0, &s, &b, &a);
	captured();
	EXPECT_EQ(0, ret) TH_LOG("%s", errbuf);
}

TEST(numbers)
{
	uint32_t v = 7;

	ASSERT_EQ(0, parse_u32("1", 1, RINGSTEER_MAX_WEIGHT, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, parse_u32("1000", 1, RINGSTEER_MAX_WEIGHT, &v));
	ASSERT_EQ(1000, v);
	ASSERT_EQ(-ERANGE, parse_u32("0", 1, RINGSTEER_MAX_WEIGHT, &v));
	ASSERT_EQ(-ERANGE, parse_u32("1001", 1, RINGSTEER_MAX_WEIGHT, &v));
	ASSERT_EQ(-ERANGE, parse_u32("99999999999999999999", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32("-1", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32("+1", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32("1.5", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32("", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32("ten", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse_u32(NULL, 1, 10, &v));
	ASSERT_EQ(1000, v);	/* untouched by failures */
}

TEST(keys)
{
	uint8_t key[RINGSTEER_KEY_LEN];
	char hex[2 * RINGSTEER_KEY_LEN + 1];

	ASSERT_EQ(0, parse_key("00112233445566778899AABBccddeeff", key));
	ASSERT_EQ(0x00, key[0]);
	ASSERT_EQ(0xaa, key[10]);
	ASSERT_EQ(0xff, key[15]);
	rc_key_format(hex, key);
	ASSERT_STREQ("00112233445566778899aabbccddeeff", hex);
	ASSERT_EQ(-EINVAL, parse_key("00112233445566778899aabbccddeef", key));
	ASSERT_EQ(-EINVAL, parse_key("00112233445566778899aabbccddeeff0", key));
	ASSERT_EQ(-EINVAL, parse_key("0011223344556677889gaabbccddeeff", key));
	ASSERT_EQ(-EINVAL, parse_key("0x112233445566778899aabbccddeeff", key));
	ASSERT_EQ(-EINVAL, parse_key("", key));
	ASSERT_EQ(0xff, key[15]);
}

static int kw(uint64_t allowed, struct parse_args *a, const char *const *words)
{
	char *argv[32];
	int argc = 0, ret;

	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	capture();
	ret = parse_keywords("test", argc, argv, allowed, a);
	captured();
	return ret;
}

#define ALL (PARSE_KW_PROTO | PARSE_KW_VNODES | PARSE_KW_HASH | PARSE_KW_WEIGHT | \
	     PARSE_KW_STATE | PARSE_KW_KEEP_FLOWS)

TEST(keywords_any_order)
{
	const char *const w1[] = { "hash", "source", "proto", "udp", "vnodes", "9", NULL };
	const char *const w2[] = { "vnodes", "9", "hash", "source", "proto", "udp", NULL };
	const char *const none[] = { NULL };
	struct parse_args a, b;

	ASSERT_EQ(0, kw(ALL, &a, w1));
	ASSERT_EQ(0, kw(ALL, &b, w2));
	ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
	ASSERT_EQ(IPPROTO_UDP, a.proto);
	ASSERT_EQ(9, a.val[RC_SET_VNODES]);
	ASSERT_EQ(RINGSTEER_HASH_SOURCE, a.val[RC_SET_HASH]);
	ASSERT_EQ(PARSE_KW_PROTO | PARSE_KW_VNODES | PARSE_KW_HASH, a.seen);
	ASSERT_EQ(0, kw(ALL, &a, none));
	ASSERT_EQ(IPPROTO_TCP, a.proto);	/* the default */
	ASSERT_EQ(0, a.seen);
}

TEST(keywords_rejects)
{
	const char *const unknown[] = { "weigth", "2", NULL };
	const char *const twice[] = { "weight", "2", "weight", "3", NULL };
	const char *const novalue[] = { "weight", NULL };
	const char *const notallowed[] = { "vnodes", "4", NULL };
	const char *const w0[] = { "weight", "0", NULL };
	const char *const wbig[] = { "weight", "1001", NULL };
	const char *const wnan[] = { "weight", "x", NULL };
	const char *const state[] = { "state", "drain", NULL };
	const char *const proto[] = { "proto", "sctp", NULL };
	const char *const hash[] = { "hash", "random", NULL };
	const char *const v0[] = { "vnodes", "0", NULL };
	const char *const vbig[] = { "vnodes", "4097", NULL };
	struct parse_args a;

	ASSERT_EQ(-EINVAL, kw(ALL, &a, unknown));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, twice));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, novalue));
	ASSERT_EQ(-EINVAL, kw(PARSE_KW_WEIGHT, &a, notallowed));
	ASSERT_EQ(-ERANGE, kw(ALL, &a, w0));
	ASSERT_EQ(-ERANGE, kw(ALL, &a, wbig));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, wnan));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, state));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, proto));
	ASSERT_EQ(-EINVAL, kw(ALL, &a, hash));
	ASSERT_EQ(-ERANGE, kw(ALL, &a, v0));
	ASSERT_EQ(-ERANGE, kw(ALL, &a, vbig));
}

TEST(service_and_backend_args)
{
	char *svc[] = { "[2001:db8::1]:443", "vnodes", "100", "proto", "udp" };
	char *be[] = { "10.0.0.1:80", "10.1.0.1:8080", "state", "draining", "weight", "3" };
	char *mixed[] = { "10.0.0.1:80", "[::1]:80" };
	char *bad[] = { "10.0.0.1:80", "10.1.0.1:0" };
	char *missing[] = { "10.0.0.1:80" };
	struct rc_service s;
	struct rc_backend b;
	struct parse_args a;
	int ret;

	capture();
	ret = parse_service_args("t", 5, svc, PARSE_KW_PROTO | PARSE_KW_VNODES | PARSE_KW_HASH,
				    &s, &a);
	captured();
	ASSERT_EQ(0, ret);
	ASSERT_EQ(AF_INET6, s.vip.family);
	ASSERT_EQ(IPPROTO_UDP, s.proto);
	ASSERT_EQ(RC_HAS_VNODES, s.has);
	ASSERT_EQ(100, s.vnodes);

	capture();
	ret = parse_backend_args("t", 6, be, PARSE_KW_PROTO | PARSE_KW_WEIGHT | PARSE_KW_STATE,
				    &s, &b, &a);
	captured();
	ASSERT_EQ(0, ret);
	ASSERT_EQ(IPPROTO_TCP, s.proto);
	ASSERT_EQ(8080, b.ep.port);
	ASSERT_EQ(RC_HAS_WEIGHT | RC_HAS_STATE, b.has);
	ASSERT_EQ(3, b.weight);
	ASSERT_EQ(RINGSTEER_STATE_DRAINING, b.state);

	capture();
	ret = parse_backend_args("t", 2, mixed, PARSE_KW_PROTO, &s, &b, &a);
	ASSERT_NE(NULL, strstr(captured(), "address families"));
	ASSERT_EQ(-EINVAL, ret);
	capture();
	ASSERT_EQ(-EINVAL, parse_backend_args("t", 2, bad, PARSE_KW_PROTO, &s, &b, &a));
	captured();
	capture();
	ASSERT_EQ(-EINVAL, parse_backend_args("t", 1, missing, PARSE_KW_PROTO, &s, &b, &a));
	ASSERT_NE(NULL, strstr(captured(), "missing backend"));
	/* Keywords that set state are not accepted where they mean nothing. */
	capture();
	ASSERT_EQ(-EINVAL, parse_backend_args("t", 6, be, PARSE_KW_PROTO, &s, &b, &a));
	captured();
}

static int quiet_backend(int argc, char **argv, struct rc_service *s, struct rc_backend *b,
			 struct parse_args *a)
{
	int ret;

	capture();
	ret = parse_backend_args("t", argc, argv,
				 PARSE_KW_PROTO | PARSE_KW_WEIGHT | PARSE_KW_KEEP_FLOWS, s, b, a);
	captured();
	return ret;
}

/*
 * backend add/set/drain/activate/del take a backend's address alone, with
 * the VIP's port, and say so (a->bare) for the check against the service's
 * forward mode; a port given is kept (the kernel judges a tunnel's), and
 * the service itself always has its port.
 */
TEST(backend_bare_address)
{
	static const struct {
		int argc;
		char *argv[4];
		int family;
		unsigned int port;
		bool bare;
		uint32_t weight;	/* the keywords after it are read as ever */
		uint8_t proto;
	} good[] = {
		{ 4, { "10.0.0.1:80", "10.2.0.21", "weight", "2" }, AF_INET, 80, true, 2, IPPROTO_TCP },
		{ 4, { "[fd00::1]:443", "fd02::2", "proto", "udp" }, AF_INET6, 443, true, 0,
		  IPPROTO_UDP },
		{ 3, { "[fd00::1]:443", "[fd02::2]", "keep-flows" }, AF_INET6, 443, true, 0,
		  IPPROTO_TCP },
		{ 2, { "10.0.0.1:80", "10.2.0.21:8080" }, AF_INET, 8080, false, 0, IPPROTO_TCP },
	};
	static const struct {
		char *argv[2];
		const char *why;
	} bad[] = {
		{ { "10.0.0.1:80", "fd02::2" }, "different address families" },
		{ { "10.0.0.1:80", "10.0.0.1" }, "own VIP and port" },
		{ { "10.0.0.1:80", "127.0.0.1" }, "loopback" },
		{ { "10.0.0.1:80", "10.2.0.256" }, "bad backend '10.2.0.256': bad IPv4 address" },
		{ { "10.0.0.1", "10.2.0.21" }, "bad service '10.0.0.1': missing ':PORT'" },
	};
	struct rc_service s;
	struct rc_backend b;
	struct parse_args a;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char **argv = (char **)good[i].argv;

		ASSERT_EQ(0, quiet_backend(good[i].argc, argv, &s, &b, &a))
			TH_LOG("%s %s: %s", argv[0], argv[1], errbuf);
		EXPECT_EQ(good[i].family, b.ep.family) TH_LOG("%s", argv[1]);
		EXPECT_EQ(good[i].port, b.ep.port) TH_LOG("%s", argv[1]);
		EXPECT_EQ(good[i].bare, a.bare) TH_LOG("%s", argv[1]);
		EXPECT_EQ(good[i].weight, b.weight) TH_LOG("%s", argv[1]);
		EXPECT_EQ(good[i].proto, s.proto) TH_LOG("%s", argv[1]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, quiet_backend(2, (char **)bad[i].argv, &s, &b, &a))
			TH_LOG("accepted %s %s", bad[i].argv[0], bad[i].argv[1]);
		EXPECT_NE(NULL, strstr(errbuf, bad[i].why))
			TH_LOG("got '%s', want '%s'", errbuf, bad[i].why);
	}
}

/* A backend's own on-down: service (the default), keep or reset. */
TEST(backend_on_down)
{
	char *reset[] = { "10.0.0.1:80", "10.1.0.1:80", "on-down", "reset" };
	char *follow[] = { "10.0.0.1:80", "10.1.0.1:80", "on-down", "service" };
	char *keep[] = { "10.0.0.1:80", "10.1.0.1:80", "on-down", "keep" };
	char *bad[] = { "10.0.0.1:80", "10.1.0.1:80", "on-down", "drop" };
	char *svc[] = { "10.0.0.1:80", "on-down", "service" };
	const uint64_t kws = PARSE_KW_PROTO | PARSE_KW_ON_DOWN;
	struct rc_service s;
	struct rc_backend b;
	struct parse_args a;

	capture();
	ASSERT_EQ(0, parse_backend_args("t", 4, reset, kws, &s, &b, &a));
	captured();
	ASSERT_EQ(RC_HAS_ON_DOWN, b.has);
	ASSERT_EQ(RINGSTEER_BACKEND_ON_DOWN_RESET, rc_backend_on_down(&b));
	capture();
	ASSERT_EQ(0, parse_backend_args("t", 4, keep, kws, &s, &b, &a));
	captured();
	ASSERT_EQ(RINGSTEER_BACKEND_ON_DOWN_KEEP, rc_backend_on_down(&b));
	/* Given, so that backend set can bring a backend back to its service's. */
	capture();
	ASSERT_EQ(0, parse_backend_args("t", 4, follow, kws, &s, &b, &a));
	captured();
	ASSERT_EQ(RC_HAS_ON_DOWN, b.has);
	ASSERT_EQ(RINGSTEER_BACKEND_ON_DOWN_SERVICE, rc_backend_on_down(&b));
	capture();
	ASSERT_EQ(-EINVAL, parse_backend_args("t", 4, bad, kws, &s, &b, &a));
	ASSERT_NE(NULL, strstr(captured(), "on-down 'drop' is not valid"));
	/* A service has no service to follow. */
	capture();
	ASSERT_EQ(-EINVAL, parse_service_args("t", 3, svc, kws, &s, &a));
	ASSERT_NE(NULL, strstr(captured(), "backends only"));
	/* Where it is not taken (backend drain), it is refused. */
	capture();
	ASSERT_EQ(-EINVAL, parse_backend_args("t", 4, reset, PARSE_KW_PROTO, &s, &b, &a));
	captured();
}

/* Parse TEXT as a configuration file; stderr in errbuf. */
static int parse_text(const char *text, struct rc_config *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	capture();
	ret = parse_config(f, "restore", "conf", c);
	captured();
	fclose(f);
	return ret;
}

static void add_service(struct rc_config *c, const char *vip, uint8_t proto,
			uint32_t vnodes, uint32_t hash)
{
	struct rc_service s = { .proto = proto, .vnodes = vnodes, .hash = hash,
				.has = RC_HAS_VNODES | RC_HAS_HASH };
	const char *why;

	rc_endpoint_parse(vip, &s.vip, &why);
	rc_config_add_service(c, &s);
}

static void add_backend(struct rc_config *c, const char *ep, uint32_t w, uint32_t st)
{
	struct rc_backend b = { .weight = w, .state = st,
				.has = RC_HAS_WEIGHT | RC_HAS_STATE };
	const char *why;

	rc_endpoint_parse(ep, &b.ep, &why);
	rc_service_add_backend(&c->s[c->ns - 1], &b);
}

TEST(config_round_trip)
{
	struct rc_config c = { .has_key = true }, d;
	char *text = NULL;
	size_t len = 0, i;
	uint32_t k;
	FILE *f;

	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		c.key[i] = 0xf0 + i;
	add_service(&c, "10.0.0.1:80", IPPROTO_TCP, 256, RINGSTEER_HASH_FLOW);
	add_backend(&c, "10.1.0.1:8080", 1, RINGSTEER_STATE_ACTIVE);
	add_backend(&c, "10.1.0.2:8080", 7, RINGSTEER_STATE_DRAINING);
	add_service(&c, "10.0.0.1:80", IPPROTO_UDP, 1, RINGSTEER_HASH_SOURCE);
	c.s[c.ns - 1].on_down = RINGSTEER_ON_DOWN_RESET;
	c.s[c.ns - 1].has |= RC_HAS_ON_DOWN;
	add_service(&c, "[2001:db8::1]:443", IPPROTO_TCP, 4096, RINGSTEER_HASH_SOURCE);
	add_backend(&c, "[2001:db8::10]:443", 256, RINGSTEER_STATE_ACTIVE);
	add_backend(&c, "[2001:db8::a00:1]:1", 1000, RINGSTEER_STATE_DRAINING);
	c.s[c.ns - 1].b[0].on_down = RINGSTEER_BACKEND_ON_DOWN_RESET;
	c.s[c.ns - 1].b[0].has |= RC_HAS_ON_DOWN;
	c.s[c.ns - 1].b[1].on_down = RINGSTEER_BACKEND_ON_DOWN_KEEP;
	c.s[c.ns - 1].b[1].has |= RC_HAS_ON_DOWN;

	f = open_memstream(&text, &len);
	print_config(f, &c);
	fclose(f);
	ASSERT_EQ(0, parse_text(text, &d)) TH_LOG("%s\n%s", errbuf, text);

	ASSERT_TRUE(d.has_key);
	ASSERT_EQ(0, memcmp(c.key, d.key, sizeof(c.key)));
	ASSERT_EQ(c.ns, d.ns);
	for (i = 0; i < c.ns; i++) {
		ASSERT_EQ(0, rc_service_cmp(&c.s[i], &d.s[i]));
		ASSERT_EQ(c.s[i].vnodes, d.s[i].vnodes);
		ASSERT_EQ(c.s[i].hash, d.s[i].hash);
		ASSERT_EQ(rc_service_on_down(&c.s[i]), d.s[i].on_down);
		ASSERT_EQ(RC_HAS_VNODES | RC_HAS_HASH | RC_HAS_ON_DOWN, d.s[i].has);
		ASSERT_EQ(c.s[i].nb, d.s[i].nb);
		for (k = 0; k < c.s[i].nb; k++) {
			ASSERT_EQ(0, rc_endpoint_cmp(&c.s[i].b[k].ep, &d.s[i].b[k].ep));
			ASSERT_EQ(c.s[i].b[k].weight, d.s[i].b[k].weight);
			ASSERT_EQ(c.s[i].b[k].state, d.s[i].b[k].state);
			ASSERT_EQ(rc_backend_on_down(&c.s[i].b[k]),
				  rc_backend_on_down(&d.s[i].b[k]));
		}
	}
	/* Printing the parsed result gives the same text again. */
	{
		char *text2 = NULL;
		size_t len2 = 0;

		f = open_memstream(&text2, &len2);
		print_config(f, &d);
		fclose(f);
		ASSERT_STREQ(text, text2);
		free(text2);
	}
	rc_config_free(&c);
	rc_config_free(&d);
	free(text);
}

TEST(config_minimal_and_comments)
{
	struct rc_config c;

	ASSERT_EQ(0, parse_text("# nothing\n\n   \n", &c));
	ASSERT_FALSE(c.has_key);
	ASSERT_EQ(0, c.ns);
	ASSERT_EQ(0, parse_text("service 10.0.0.1:80 # web\nbackend 10.1.0.1:80\n"
				"\tbackend 10.1.0.2:80 weight 2\r\n", &c));
	ASSERT_EQ(1, c.ns);
	ASSERT_EQ(IPPROTO_TCP, c.s[0].proto);
	ASSERT_EQ(0, c.s[0].has);	/* kernel defaults apply */
	ASSERT_EQ(2, c.s[0].nb);
	ASSERT_EQ(1, c.s[0].line);
	ASSERT_EQ(2, c.s[0].b[1].weight);
	rc_config_free(&c);
}

/* Each bad file is rejected with a message naming its line. */
TEST(config_bad_lines)
{
	static const struct {
		const char *text;
		const char *line;
		const char *what;
	} bad[] = {
		{ "service 10.0.0.1:80\nbackend 10.1.0.1:80 weigth 2\n", "conf:2:", "weigth" },
		{ "backend 10.1.0.1:80\n", "conf:1:", "before any service" },
		{ "service 10.0.0.1:80\n\nservice 10.0.0.1:80 proto tcp\n", "conf:3:",
		  "already defined at line 1" },
		{ "service 10.0.0.1:80\nbackend 10.1.0.1:80\nbackend 10.1.0.1:80 weight 2\n",
		  "conf:3:", "twice" },
		{ "key 00112233445566778899aabbccddeeff\nkey 00112233445566778899aabbccddeeff\n",
		  "conf:2:", "twice" },
		{ "key 0011\n", "conf:1:", "hex digits" },
		{ "service 10.0.0.1:80\nbackend [::1]:80\n", "conf:2:", "address families" },
		{ "service 10.0.0.1:80 vnodes 4096\nbackend 10.1.0.1:80 weight 1000\n",
		  "conf:2:", "ring points" },
		{ "service 10.0.0.1:0\n", "conf:1:", "port 0" },
		{ "service 127.0.0.1:80\n", "conf:1:", "loopback" },
		{ "service 10.0.0.1:80\nbackend [::ffff:10.1.0.1]:80\n", "conf:2:",
		  "address families" },
		{ "service [2001:db8::1]:80\nbackend [::ffff:10.1.0.1]:80\n", "conf:2:",
		  "IPv4-mapped" },
		{ "service 10.0.0.1:80\nbackend 10.0.0.1:80\n", "conf:2:", "VIP" },
		{ "# ok\nservice 10.0.0.1:80 keep-flows\n", "conf:2:", "keep-flows" },
		{ "servic 10.0.0.1:80\n", "conf:1:", "unknown line" },
		{ "service 10.0.0.1:80\n backend 10.1.0.1:80 state gone\n", "conf:2:",
		  "state 'gone'" },
		{ "service\n", "conf:1:", "missing service" },
		{ "service 10.0.0.1:80 on-down service\n", "conf:1:", "backends only" },
		{ "service 10.0.0.1:80\nbackend 10.1.0.1:80 on-down never\n", "conf:2:",
		  "on-down 'never'" },
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

/* Draining backends own no points, so they do not count against the limit. */
TEST(config_points_limit_counts_active_only)
{
	struct rc_config c;

	ASSERT_EQ(0, parse_text("service 10.0.0.1:80 vnodes 4096\n"
				"backend 10.1.0.1:80 weight 256\n"
				"backend 10.1.0.2:80 weight 1000 state draining\n", &c));
	rc_config_free(&c);
	ASSERT_EQ(-EINVAL, parse_text("service 10.0.0.1:80 vnodes 4096\n"
				      "backend 10.1.0.1:80 weight 256\n"
				      "backend 10.1.0.2:80 weight 1\n", &c));
}

TEST_HARNESS_MAIN
