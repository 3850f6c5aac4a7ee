// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl import (userspace/import/) over the files of selftests/import/:
 * ipvsadm-save -n output written by hand and taken from a VM, Debian's
 * keepalived samples and files of our own. Each imports, read back by
 * restore's and health run's own readers with the weights, forwarding and
 * checks of its source, or fails naming its line; --lenient turns the
 * refusals into warnings. Run from the top of the tree (make unit).
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "cli.h"
#include "parse.h"
#include "health/health_conf.h"
#include "import/import.h"

#define DIR "selftests/import/"

struct run {
	int ret;
	char *out;
	char err[4096];
};

static void run_file(struct run *r, const char *format, FILE *in, const char *name,
		     bool lenient, bool health)
{
	struct imp_config c = { .file = name, .lenient = lenient };
	size_t len = 0;
	FILE *out = open_memstream(&r->out, &len);

	capture();
	r->ret = imp_run(&c, format, in, health, out);
	strcpy(r->err, captured());
	fclose(out);
	imp_config_free(&c);
}

static void run_path(struct run *r, const char *format, const char *path, bool lenient,
		     bool health)
{
	FILE *in = fopen(path, "r");

	if (!in) {
		r->ret = -errno;
		r->out = NULL;
		snprintf(r->err, sizeof(r->err), "cannot open %s", path);
		return;
	}
	run_file(r, format, in, path, lenient, health);
	fclose(in);
}

static void run_text(struct run *r, const char *format, const char *text, bool lenient)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	run_file(r, format, in, "t", lenient, false);
	fclose(in);
}

/* The configuration printed, read back by restore's reader. */
static int read_back(const struct run *r, struct rc_config *c)
{
	FILE *f = fmemopen(r->out, strlen(r->out), "r");
	int ret = parse_config(f, "test", "out", c);

	fclose(f);
	return ret;
}

static int read_back_health(const struct run *r, struct hc_config *c)
{
	FILE *f = fmemopen(r->out, strlen(r->out), "r");
	int ret = hc_conf_parse(f, "test", "out", c);

	fclose(f);
	return ret;
}

static const struct rc_backend *backend(const struct rc_service *s, const char *ep)
{
	struct rc_endpoint e;
	const char *why;
	bool bare;
	uint32_t i;

	if (rc_endpoint_parse_bare(ep, &e, &bare, &why))
		return NULL;
	for (i = 0; i < s->nb; i++)
		if (!memcmp(s->b[i].ep.addr, e.addr, sizeof(e.addr)) &&
		    (bare || s->b[i].ep.port == e.port))
			return &s->b[i];
	return NULL;
}

TEST(ipvsadm_nat_weights)
{
	struct rc_config c;
	struct run r;

	run_path(&r, "ipvsadm", DIR "ipvsadm/nat_weights.save", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(2, c.ns);
	EXPECT_EQ(RINGSTEER_FORWARD_NAT, rc_service_forward(&c.s[0]));
	EXPECT_EQ(RINGSTEER_HASH_FLOW, rc_service_hash(&c.s[0]));
	ASSERT_EQ(3, c.s[0].nb);
	EXPECT_EQ(1, rc_backend_weight(backend(&c.s[0], "10.1.0.1:8080")));
	EXPECT_EQ(3, rc_backend_weight(backend(&c.s[0], "10.1.0.2:8080")));
	/* IPVS's weight 0 takes no new connections and keeps the old: draining. */
	EXPECT_EQ(RINGSTEER_STATE_DRAINING, rc_backend_state(backend(&c.s[0], "10.1.0.3:8080")));
	/* sh and -p: the client address. */
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, rc_service_hash(&c.s[1]));
	EXPECT_EQ(IPPROTO_UDP, c.s[1].proto);
	EXPECT_EQ(2, rc_backend_weight(backend(&c.s[1], "[2001:db8:1::1]:5353")));
	EXPECT_NE(NULL, strstr(r.out, "balancing becomes hashing"));
	rc_config_free(&c);
	free(r.out);
}

TEST(ipvsadm_tunnel)
{
	struct rc_config c;
	struct run r;

	run_path(&r, "ipvsadm", DIR "ipvsadm/tunnel.save", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(2, c.ns);
	EXPECT_EQ(RINGSTEER_FORWARD_TUNNEL, rc_service_forward(&c.s[0]));
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, rc_service_encap(&c.s[0]));
	EXPECT_EQ(6080, rc_service_encap_port(&c.s[0]));
	/* mh with mh-port hashes the whole flow. */
	EXPECT_EQ(RINGSTEER_HASH_FLOW, rc_service_hash(&c.s[0]));
	EXPECT_EQ(2, rc_backend_weight(backend(&c.s[0], "10.1.0.5")));
	EXPECT_EQ(RINGSTEER_FORWARD_TUNNEL, rc_service_forward(&c.s[1]));
	EXPECT_EQ(RINGSTEER_ENCAP_IPIP, rc_service_encap(&c.s[1]));
	EXPECT_EQ(AF_INET6, c.s[1].vip.family);
	EXPECT_EQ(2, c.s[1].nb);
	rc_config_free(&c);
	free(r.out);
}

TEST(ipvsadm_big_weights_divided)
{
	struct rc_config c;
	struct run r;

	run_path(&r, "ipvsadm", DIR "ipvsadm/big_weights.save", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	EXPECT_EQ(1, rc_backend_weight(&c.s[0].b[0]));
	EXPECT_EQ(2, rc_backend_weight(&c.s[0].b[1]));
	EXPECT_EQ(3, rc_backend_weight(&c.s[0].b[2]));
	EXPECT_NE(NULL, strstr(r.out, "divided by 2000"));
	rc_config_free(&c);
	free(r.out);
}

/* Real ipvsadm 1.31 output (6.12 guest): refused at its first flag, taken with --lenient. */
TEST(ipvsadm_real_output)
{
	struct rc_config c;
	struct run r;

	run_path(&r, "ipvsadm", DIR "ipvsadm/vm-6.12-probe.save", false, false);
	EXPECT_EQ(-EINVAL, r.ret);
	EXPECT_NE(NULL, strstr(r.err, "vm-6.12-probe.save:5: scheduler flag 'flag-1'")) TH_LOG("%s", r.err);
	EXPECT_EQ(0, strlen(r.out));
	free(r.out);
	run_path(&r, "ipvsadm", DIR "ipvsadm/vm-6.12-probe.save", true, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, ":11: warning: direct routing (-g)"));
	EXPECT_NE(NULL, strstr(r.err, ":14: warning: firewall-mark service 7"));
	EXPECT_NE(NULL, strstr(r.err, ":6: warning: --tun-type gre"));
	ASSERT_EQ(0, read_back(&r, &c));
	/* 192.0.2.10:80, .12:80, .13:80, the UDP one (its ipip server only), the IPv6 one. */
	ASSERT_EQ(5, c.ns);
	EXPECT_EQ(1, c.s[3].nb);
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, rc_service_hash(&c.s[4]));
	rc_config_free(&c);
	free(r.out);
}

/*
 * The rules import_ipvs.sh gives ipvsadm, as ipvsadm-save -n printed them
 * in the 6.12 guest: every server, weight and way of forwarding comes over.
 */
TEST(ipvsadm_real_scenario_output)
{
	const struct rc_service *s;
	struct rc_config c;
	struct run r;
	uint32_t i, nb = 0;

	run_path(&r, "ipvsadm", DIR "ipvsadm/vm-6.12-scenario.save", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ(0, strlen(r.err)) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(5, c.ns);
	for (i = 0; i < c.ns; i++)
		nb += c.s[i].nb;
	EXPECT_EQ(13, nb);
	s = &c.s[0];	/* -A -t 10.0.0.100:80 -s wrr */
	EXPECT_EQ(3, rc_backend_weight(backend(s, "10.2.2.2:8080")));
	EXPECT_EQ(RINGSTEER_STATE_DRAINING, rc_backend_state(backend(s, "10.2.3.2:8080")));
	s = &c.s[2];	/* -A -u 10.0.0.101:8080 -s rr, gue 6080 */
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, rc_service_encap(s));
	EXPECT_EQ(6080, rc_service_encap_port(s));
	s = &c.s[4];	/* -A -u [fd00::100]:80 -s sh -p 300 */
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, rc_service_hash(s));
	EXPECT_EQ(RINGSTEER_FORWARD_NAT, rc_service_forward(s));
	rc_config_free(&c);
	free(r.out);
}

static const struct {
	const char *text;
	const char *error;	/* after "t:" */
} ipvsadm_bad[] = {
	{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1:80 -g -w 1\n",
	  "2: direct routing (-g)" },
	{ "-A -f 3 -s rr\n", "1: firewall-mark service 3" },
	{ "-A -t 192.0.2.1:80 -s lblc\n", "1: scheduler lblc picks by destination" },
	{ "-A -t 192.0.2.1:80 -s fo\n", "1: scheduler fo sends everything" },
	{ "-A -t 192.0.2.1:80 -s foo\n", "1: unknown scheduler 'foo'" },
	{ "-A -t 192.0.2.1:http -s rr\n", "1: virtual service '192.0.2.1:http'" },
	{ "-A -t 192.0.2.1:80 -s rr --frob\n", "1: unknown ipvsadm option '--frob'" },
	{ "-A -t 192.0.2.1:80 -s rr\n\n-a -t 192.0.2.1:80 -r 10.0.0.1:80 -m -w 1\n"
	  "-a -t 192.0.2.1:80 -r 10.0.0.2 -i -w 1\n",
	  "4: tunnel ipip here but NAT at line 3" },
	{ "-A -t 192.0.2.1:80 -s rr -p 300 -M 255.255.0.0\n", "1: persistence granularity" },
	{ "-A -t 192.0.2.1:80 -s rr --pe sip\n", "1: persistence engine sip" },
	{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1:80 -m -w 1 -x 100\n",
	  "2: connection thresholds" },
	{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1:8080 -i -w 1\n",
	  "2: tunnelled real server 10.0.0.1:8080 with port 8080" },
	{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1:80 -m -w 70000\n",
	  "2: weight '70000'" },
	{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1:80 -m -w 1001\n"
	  "-a -t 192.0.2.1:80 -r 10.0.0.2:80 -m -w 3\n", "1: weights up to 1001" },
	{ "-a -t 192.0.2.1:80 -r 10.0.0.1:80 -m -w 1\n", "1: real server of 192.0.2.1:80" },
	{ "-A -t 192.0.2.1:80 -s rr\n-A -t 192.0.2.1:80 -s rr\n", "2: virtual service 192.0.2.1:80 tcp already" },
	{ "-E -t 192.0.2.1:80 -s rr\n", "1: unknown ipvsadm option '-E'" },
	{ "-A -u 192.0.2.1:53 -s rr\n-a -u 192.0.2.1:53 -r [2001:db8::1]:53 -m -w 1\n",
	  "2: real server [2001:db8::1]:53: not of the VIP's address family" },
};

TEST(ipvsadm_refusals_name_the_line)
{
	char want[256];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(ipvsadm_bad) / sizeof(ipvsadm_bad[0]); i++) {
		run_text(&r, "ipvsadm", ipvsadm_bad[i].text, false);
		snprintf(want, sizeof(want), "import: t:%s", ipvsadm_bad[i].error);
		EXPECT_EQ(-EINVAL, r.ret) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(r.err, want)) TH_LOG("case %zu: want '%s', got '%s'", i,
							    want, r.err);
		EXPECT_EQ(0, strlen(r.out)) TH_LOG("case %zu printed output", i);
		free(r.out);
	}
}

/* --lenient: the refused server is left out, the others stay, with a comment. */
TEST(ipvsadm_lenient_leaves_out)
{
	struct rc_config c;
	struct run r;

	run_text(&r, "ipvsadm", "-A -t 192.0.2.1:80 -s rr\n"
		 "-a -t 192.0.2.1:80 -r 10.0.0.1:80 -g -w 1\n"
		 "-a -t 192.0.2.1:80 -r 10.0.0.2:80 -m -w 4\n", true);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "t:2: warning: direct routing"));
	EXPECT_NE(NULL, strstr(r.err, "1 warning"));
	EXPECT_NE(NULL, strstr(r.out, "# t:2: left out: direct routing"));
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(1, c.s[0].nb);
	EXPECT_EQ(4, rc_backend_weight(&c.s[0].b[0]));
	rc_config_free(&c);
	free(r.out);
}

/*
 * Every keepalived file: its line of refusal without --lenient (0: it
 * imports; -1: it fails naming no line, having no virtual_server), and
 * whether it imports with --lenient.
 */
static const struct {
	const char *file;
	int strict_line;
	bool lenient_ok;
} kv_files[] = {
	{ "debian/keepalived.conf.HTTP_GET.port", 25, true },
	{ "debian/keepalived.conf.IPv6", 24, true },
	{ "debian/keepalived.conf.PING_CHECK", 23, true },
	{ "debian/keepalived.conf.SMTP_CHECK", 39, true },
	{ "debian/keepalived.conf.SSL_GET", 42, true },
	{ "debian/keepalived.conf.UDP_CHECK", 23, true },
	{ "debian/keepalived.conf.conditional_conf", 3, false },
	{ "debian/keepalived.conf.fwmark", 7, false },
	{ "debian/keepalived.conf.inhibit", 26, true },
	{ "debian/keepalived.conf.misc_check", 0, true },
	{ "debian/keepalived.conf.misc_check_arg", 0, true },
	{ "debian/keepalived.conf.quorum", 31, true },
	{ "debian/keepalived.conf.sample", 33, true },
	{ "debian/keepalived.conf.status_code", 26, true },
	{ "debian/keepalived.conf.track_interface", -1, false },
	{ "debian/keepalived.conf.virtual_server_group", 18, true },
	{ "debian/keepalived.conf.virtualhost", 27, true },
	{ "debian/keepalived.conf.vrrp", -1, false },
	{ "debian/keepalived.conf.vrrp.localcheck", -1, false },
	{ "debian/keepalived.conf.vrrp.lvs_syncd", 0, true },
	{ "debian/keepalived.conf.vrrp.routes", -1, false },
	{ "debian/keepalived.conf.vrrp.rules", -1, false },
	{ "debian/keepalived.conf.vrrp.scripts", -1, false },
	{ "debian/keepalived.conf.vrrp.static_ipaddress", -1, false },
	{ "debian/keepalived.conf.vrrp.sync", -1, false },
	{ "own/nat_http.conf", 0, true },
	{ "own/tunnel.conf", 0, true },
	{ "own/group.conf", 0, true },
	{ "own/direct_routing.conf", 10, true },
	{ "own/unknown_keyword.conf", 8, true },
};

TEST(keepalived_files_import_or_name_the_line)
{
	char path[256], want[320];
	struct rc_config c;
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(kv_files) / sizeof(kv_files[0]); i++) {
		snprintf(path, sizeof(path), DIR "keepalived/%s", kv_files[i].file);
		run_path(&r, "keepalived", path, false, false);
		if (!kv_files[i].strict_line) {
			EXPECT_EQ(0, r.ret) TH_LOG("%s: %s", path, r.err);
			if (!r.ret)
				EXPECT_EQ(0, read_back(&r, &c)) TH_LOG("%s", path);
			if (!r.ret)
				rc_config_free(&c);
		} else {
			if (kv_files[i].strict_line > 0)
				snprintf(want, sizeof(want), "%s:%d: ", path, kv_files[i].strict_line);
			else
				snprintf(want, sizeof(want), "%s: no virtual_server block", path);
			EXPECT_EQ(-EINVAL, r.ret) TH_LOG("%s", path);
			EXPECT_NE(NULL, strstr(r.err, want)) TH_LOG("want '%s', got '%s'", want,
								    r.err);
		}
		free(r.out);
		run_path(&r, "keepalived", path, true, false);
		EXPECT_EQ(kv_files[i].lenient_ok ? 0 : -EINVAL, r.ret) TH_LOG("%s --lenient: %s",
									  path, r.err);
		free(r.out);
	}
}

TEST(keepalived_nat_http)
{
	const struct hc_service_conf *s;
	struct rc_config c;
	struct hc_config h;
	struct run r;

	run_path(&r, "keepalived", DIR "keepalived/own/nat_http.conf", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(2, c.ns);
	EXPECT_EQ(3, rc_backend_weight(backend(&c.s[0], "10.1.0.2:8080")));
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, rc_service_hash(&c.s[1]));
	EXPECT_EQ(1, rc_backend_weight(backend(&c.s[1], "[2001:db8:1::2]:8443")));
	rc_config_free(&c);
	free(r.out);

	run_path(&r, "keepalived", DIR "keepalived/own/nat_http.conf", false, true);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back_health(&r, &h));
	ASSERT_EQ(2, h.ns);
	s = &h.s[0];
	EXPECT_EQ(HC_HTTP, s->check.kind);
	EXPECT_STREQ("/healthz", s->check.path);
	EXPECT_EQ(204, s->check.status);
	EXPECT_EQ(5000, s->check.interval_ms);
	EXPECT_EQ(2000, s->check.timeout_ms);
	/* One good probe brings a server up, retry + 1 failures take it down. */
	EXPECT_EQ(1, s->check.rise);
	EXPECT_EQ(3, s->check.fall);
	ASSERT_EQ(2, s->nov);
	EXPECT_EQ(9090, s->ov[0].port);
	EXPECT_EQ(9091, s->ov[1].port);
	EXPECT_EQ(HC_TCP, h.s[1].check.kind);
	EXPECT_EQ(3000, h.s[1].check.interval_ms);
	EXPECT_EQ(1500, h.s[1].check.timeout_ms);
	hc_conf_free(&h);
	free(r.out);
}

TEST(keepalived_tunnel_and_checks)
{
	struct rc_config c;
	struct hc_config h;
	struct run r;

	run_path(&r, "keepalived", DIR "keepalived/own/tunnel.conf", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(3, c.ns);
	EXPECT_EQ(RINGSTEER_ENCAP_GUE, rc_service_encap(&c.s[0]));
	EXPECT_EQ(6080, rc_service_encap_port(&c.s[0]));
	EXPECT_EQ(20, rc_backend_weight(backend(&c.s[0], "10.2.0.2")));
	EXPECT_EQ(RINGSTEER_ENCAP_IPIP, rc_service_encap(&c.s[1]));
	EXPECT_EQ(RINGSTEER_HASH_SOURCE, rc_service_hash(&c.s[1]));
	rc_config_free(&c);
	free(r.out);

	run_path(&r, "keepalived", DIR "keepalived/own/tunnel.conf", false, true);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back_health(&r, &h));
	ASSERT_EQ(3, h.ns);
	EXPECT_EQ(HC_UDP, h.s[0].check.kind);
	EXPECT_EQ(17, h.s[0].check.send_len);
	ASSERT_EQ(2, h.s[0].check.expect_len);
	EXPECT_EQ(0x01, h.s[0].check.expect[1]);
	EXPECT_EQ(HC_EXEC, h.s[1].check.kind);
	EXPECT_NE(NULL, strstr(h.s[1].check.command, "curl"));
	EXPECT_NE(NULL, strstr(h.s[1].check.command, "/status"));
	EXPECT_EQ(HC_EXEC, h.s[2].check.kind);
	EXPECT_STREQ("/usr/local/bin/smtp-ok --host 10.2.0.5", h.s[2].check.command);
	EXPECT_EQ(1, h.s[2].check.fall);	/* MISC_CHECK retries 0 by default */
	hc_conf_free(&h);
	free(r.out);
}

TEST(keepalived_group)
{
	struct rc_config c;
	struct run r;

	run_path(&r, "keepalived", DIR "keepalived/own/group.conf", false, false);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, read_back(&r, &c));
	ASSERT_EQ(4, c.ns);
	EXPECT_EQ(8080, c.s[3].vip.port);
	rc_config_free(&c);
	free(r.out);
}

static const struct {
	const char *text;
	const char *error;
} kv_bad[] = {
	{ "virtual_server 192.0.2.1 80 {\n  lb_algo rr\n  real_server 10.0.0.1 80 {\n"
	  "    weight 1\n    TCP_CHECK {\n    }\n  }\n  real_server 10.0.0.2 80 {\n  }\n}\n",
	  "8: real server without a check" },
	{ "virtual_server 192.0.2.1 80 {\n  real_server 10.0.0.1 80 {\n    HTTP_GET {\n"
	  "      url {\n        path /\n      }\n    }\n  }\n  real_server 10.0.0.2 80 {\n"
	  "    TCP_CHECK {\n    }\n  }\n}\n", "10: check unlike the one at line 3" },
	{ "virtual_server 192.0.2.1 80 {\n  protocol SCTP\n}\n", "2: protocol SCTP" },
	{ "virtual_server 192.0.2.1 80 {\n  lb_kind TUN type gre\n}\n", "2: tunnel type gre" },
	{ "virtual_server 192.0.2.1 80 {\n  lb_algo rr\n", "1: virtual_server block never closed" },
	{ "virtual_server 192.0.2.1 80 {\n}\n}\n", "3: '}' closes no block" },
	{ "include /etc/keepalived/conf.d/*.conf\n", "1: 'include'" },
	{ "frobnicate {\n}\n", "1: unknown keyword 'frobnicate'" },
	{ "virtual_server 192.0.2.1 80 {\n  real_server 10.0.0.1 80 {\n    notify_down /bin/x\n"
	  "  }\n}\n", "3: notify_down" },
	{ "virtual_server 192.0.2.1 80 {\n  real_server 10.0.0.1 80 {\n    MISC_CHECK {\n"
	  "      misc_path /bin/true\n      misc_dynamic\n    }\n  }\n}\n", "5: misc_dynamic" },
	{ "virtual_server 192.0.2.1 80 {\n  real_server 10.0.0.1 80 {\n    TCP_CHECK {\n"
	  "    }\n    TCP_CHECK {\n    }\n  }\n}\n", "5: a second checker" },
	{ "virtual_server 192.0.2.1 80 {\n  persistence_granularity 255.255.255.0\n"
	  "  persistence_timeout 60\n}\n", "3: persistence granularity 255.255.255.0" },
	{ "virtual_server 192.0.2.1 80 {\n  real_server 10.0.0.1 \"80\n", "2: unterminated quote" },
};

TEST(keepalived_refusals_name_the_line)
{
	char want[256];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(kv_bad) / sizeof(kv_bad[0]); i++) {
		FILE *in = fmemopen((void *)kv_bad[i].text, strlen(kv_bad[i].text), "r");

		run_file(&r, "keepalived", in, "k", false, false);
		fclose(in);
		snprintf(want, sizeof(want), "import: k:%s", kv_bad[i].error);
		EXPECT_EQ(-EINVAL, r.ret) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(r.err, want)) TH_LOG("case %zu: want '%s', got '%s'", i,
							    want, r.err);
		free(r.out);
	}
}

TEST_HARNESS_MAIN
