// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet file (userspace/fleet/fleet_conf.c) and the status key
 * (userspace/fleet/fleet_state.c): every statement read, defaults, bad lines
 * rejected with the file's name and line number and nothing kept, the
 * key file's mode; the status JSON read back as written, refused when it
 * is not a status, and the fingerprints a configuration gives with a
 * load balancer's downs.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "fleet/fleet_conf.h"
#include "fleet/fleet_health.h"
#include "fleet/fleet_state.h"
#include "parse.h"
#include "preview.h"

static char dir[] = "/tmp/test_fleet_conf.XXXXXX";
static char keyfile[64], passfile[64];
static const char keyhex[] = "00112233445566778899aabbccddeeff";

static void files(void)
{
	FILE *f;

	if (keyfile[0])
		return;
	if (!mkdtemp(dir))
		abort();
	snprintf(keyfile, sizeof(keyfile), "%s/key", dir);
	snprintf(passfile, sizeof(passfile), "%s/pass", dir);
	f = fopen(keyfile, "w");
	fprintf(f, "%s\n", keyhex);
	fclose(f);
	chmod(keyfile, 0600);
	f = fopen(passfile, "w");
	fprintf(f, "s3cret\n");
	fclose(f);
}

static int parse(const char *text, struct fl_conf *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	capture();
	ret = fl_conf_parse(f, "sync", "fleet.conf", c);
	captured();
	fclose(f);
	return ret;
}

TEST(good_file)
{
	struct fl_conf c;
	char text[1024], key[FL_PREFIX_LEN + 80];

	files();
	snprintf(text, sizeof(text),
		 "# the fleet\n"
		 "endpoints https://10.0.0.1:2379 http://10.0.0.2:2379\n"
		 "prefix /ringsteer/f1\n"
		 "host lb-1.example\n"
		 "tls ca %s cert %s key %s\n"
		 "user lb password-file %s\n"
		 "key-file %s\n"
		 "timeout 500ms\nlease-ttl 6s\nstale-timeout 1m\nstatus-interval 2s\n"
		 "on-stale birdc   disable vip\n"
		 "on-fresh birdc enable vip\n",
		 keyfile, keyfile, passfile, passfile, keyfile);
	ASSERT_EQ(0, parse(text, &c));
	ASSERT_EQ(2, c.etcd.nendpoints);
	ASSERT_STREQ("http://10.0.0.2:2379", c.etcd.endpoints[1]);
	ASSERT_STREQ("/ringsteer/f1", c.prefix);
	ASSERT_STREQ("lb-1.example", c.host);
	ASSERT_STREQ(keyfile, c.etcd.cacert);
	ASSERT_STREQ(passfile, c.etcd.cert_key);
	ASSERT_STREQ("lb", c.etcd.user);
	ASSERT_STREQ("s3cret", c.etcd.password);
	ASSERT_TRUE(c.has_key);
	ASSERT_EQ(0x00, c.key[0]);
	ASSERT_EQ(0xff, c.key[15]);
	ASSERT_EQ(500, c.etcd.timeout_ms);
	ASSERT_EQ(6000, c.lease_ttl_ms);
	ASSERT_EQ(60000, c.stale_ms);
	ASSERT_EQ(2000, c.status_ms);
	ASSERT_STREQ("birdc disable vip", c.on_stale);
	ASSERT_STREQ("birdc enable vip", c.on_fresh);
	ASSERT_STREQ("/ringsteer/f1/config", fl_key(key, sizeof(key), &c, "config"));
	fl_conf_free(&c);
}

TEST(defaults)
{
	struct fl_conf c;
	char host[FL_HOST_LEN] = "";

	ASSERT_EQ(0, parse("endpoints http://127.0.0.1:2379\nprefix /r\n", &c));
	gethostname(host, sizeof(host) - 1);
	ASSERT_STREQ(host, c.host);
	ASSERT_FALSE(c.has_key);
	ASSERT_EQ(NULL, c.etcd.user);
	ASSERT_EQ(FL_DEF_TIMEOUT_MS, c.etcd.timeout_ms);
	ASSERT_EQ(FL_DEF_LEASE_TTL_MS, c.lease_ttl_ms);
	ASSERT_EQ(FL_DEF_STALE_MS, c.stale_ms);
	ASSERT_EQ(NULL, c.on_stale);
	/* No health-quorum: the agent never touches health. */
	ASSERT_FALSE(c.fleet_health);
	fl_conf_free(&c);
}

TEST(health_quorum)
{
	struct fl_conf c;

	ASSERT_EQ(0, parse("endpoints http://127.0.0.1:2379\nprefix /r\nhealth-quorum 67%\n", &c));
	ASSERT_TRUE(c.fleet_health);
	ASSERT_EQ(67, c.quorum_pct);
	ASSERT_EQ(FH_DEF_MAX_DOWN_PCT, c.max_down_pct);
	fl_conf_free(&c);
	ASSERT_EQ(0, parse("endpoints http://127.0.0.1:2379\nprefix /r\nhealth-max-down 0%\n", &c));
	ASSERT_FALSE(c.fleet_health);
	ASSERT_EQ(0, c.max_down_pct);
	fl_conf_free(&c);
	ASSERT_EQ(-EINVAL, parse("endpoints http://127.0.0.1:2379\nprefix /r\nhealth-quorum 0%\n", &c));
	ASSERT_EQ(-EINVAL, parse("endpoints http://127.0.0.1:2379\nprefix /r\nhealth-quorum 101%\n", &c));
	ASSERT_EQ(-EINVAL, parse("endpoints http://127.0.0.1:2379\nprefix /r\nhealth-quorum\n", &c));
}

/* Each bad line: the error names the file, its line and what is wrong. */
TEST(bad_lines)
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "endpoints 10.0.0.1:2379", "fleet.conf:3: endpoint '10.0.0.1:2379' is not" },
		{ "endpoints", "fleet.conf:3: want 'endpoints URL...'" },
		{ "prefix /r/", "fleet.conf:3: prefix '/r/'" },
		{ "prefix r", "fleet.conf:3: prefix 'r'" },
		{ "host a/b", "fleet.conf:3: host 'a/b'" },
		{ "tls cert /etc/hostname", "fleet.conf:3: tls: a client 'cert' goes with its 'key'" },
		{ "tls ca /nonexistent", "fleet.conf:3: tls ca /nonexistent: No such file" },
		{ "tls bogus x", "fleet.conf:3: want 'tls [ca FILE]" },
		{ "user lb", "fleet.conf:3: want 'user NAME password-file FILE'" },
		{ "user lb password-file /nonexistent", "fleet.conf:3: password file /nonexistent" },
		{ "key-file /nonexistent", "fleet.conf:3: key-file /nonexistent: No such file" },
		{ "lease-ttl 1s", "fleet.conf:3: lease-ttl '1s' out of range (a duration of 2000ms" },
		{ "stale-timeout 5x", "fleet.conf:3: stale-timeout '5x' is not valid (a duration" },
		{ "lease-ttl", "fleet.conf:3: want 'lease-ttl DURATION'" },
		{ "on-stale", "fleet.conf:3: on-stale wants a command" },
		{ "prefix /again", "fleet.conf:4: prefix given twice" },
		{ "watch everything", "fleet.conf:3: unknown statement 'watch'" },
	};
	char text[512];
	const char *err;
	struct fl_conf c;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "endpoints http://127.0.0.1:2379\ntimeout 1s\n%s\nprefix /r\n",
			 bad[i].line);
		if (!strncmp(bad[i].line, "endpoints", 9))
			snprintf(text, sizeof(text), "prefix /r\nhost a\n%s\n", bad[i].line);
		f = fmemopen(text, strlen(text), "r");
		capture();
		ASSERT_EQ(-EINVAL, fl_conf_parse(f, "sync", "fleet.conf", &c));
		err = captured();
		fclose(f);
		if (!strstr(err, bad[i].msg))
			TH_LOG("line '%s': got '%s'", bad[i].line, err);
		ASSERT_NE(NULL, strstr(err, bad[i].msg));
		ASSERT_EQ(0, c.etcd.nendpoints);
	}
}

TEST(missing_statements)
{
	struct fl_conf c;
	const char *err;
	FILE *f = fmemopen("prefix /r\n", 10, "r");

	capture();
	ASSERT_EQ(-EINVAL, fl_conf_parse(f, "sync", "fleet.conf", &c));
	err = captured();
	fclose(f);
	ASSERT_NE(NULL, strstr(err, "fleet.conf: no 'endpoints' line"));
	ASSERT_EQ(-EINVAL, parse("endpoints http://a:1\n", &c));
}

/* A key file others can read is refused: the key is the fleet's secret. */
TEST(key_file_mode)
{
	uint8_t key[RINGSTEER_KEY_LEN];
	const char *why;
	char path[80];
	FILE *f;

	files();
	ASSERT_EQ(0, fl_read_key(keyfile, key, &why));
	snprintf(path, sizeof(path), "%s/open", dir);
	f = fopen(path, "w");
	fprintf(f, "%s\n", keyhex);
	fclose(f);
	chmod(path, 0644);
	ASSERT_EQ(-EPERM, fl_read_key(path, key, &why));
	ASSERT_NE(NULL, strstr(why, "chmod 600"));
	f = fopen(path, "w");
	fprintf(f, "0011\n");
	fclose(f);
	chmod(path, 0600);
	ASSERT_EQ(-EINVAL, fl_read_key(path, key, &why));
	unlink(path);
}

static const char config[] =
	"service 192.0.2.10:80\n"
	"\tbackend 10.1.0.1:8080\n"
	"\tbackend 10.1.0.2:8080 weight 2\n"
	"service 192.0.2.20:443 forward tunnel\n"
	"\tbackend 10.1.0.4\n";

static void read_config(struct __test_metadata *_metadata, struct rc_config *c, bool key)
{
	FILE *f = fmemopen((void *)config, strlen(config), "r");

	ASSERT_EQ(0, parse_config(f, "test", "config", c));
	fclose(f);
	if (key) {
		ASSERT_EQ(0, parse_key(keyhex, c->key));
		c->has_key = true;
		rc_config_sort(c);
		ASSERT_EQ(0, rc_config_fingerprints(c));
	}
}

TEST(state_round_trip)
{
	struct fl_state st = { 0 }, back;
	struct rc_config c;
	const char *why;
	char *text;

	read_config(_metadata, &c, true);
	c.s[0].b[1].health = RINGSTEER_HEALTH_DOWN;
	c.s[0].b[1].has |= RC_HAS_HEALTH;
	strcpy(st.host, "lb1");
	st.revision = 42;
	st.updated = 1764850000;
	fl_key_id(st.key_id, c.key);
	st.error_revision = 43;
	strcpy(st.error, "sync: /r/config@43:2: \"quoted\"");
	ASSERT_EQ(0, fl_state_services(&st, &c));
	text = fl_state_json(&st);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, fl_state_parse(text, &back, &why));
	ASSERT_STREQ("lb1", back.host);
	ASSERT_EQ(42, back.revision);
	ASSERT_EQ(1764850000, back.updated);
	ASSERT_STREQ(st.key_id, back.key_id);
	ASSERT_EQ(43, back.error_revision);
	ASSERT_STREQ(st.error, back.error);
	ASSERT_EQ(2, back.ns);
	ASSERT_STREQ("192.0.2.10:80 tcp", back.s[0].name);
	ASSERT_EQ(1, back.s[0].ndown);
	ASSERT_STREQ("10.1.0.2:8080", back.s[0].down[0]);
	ASSERT_TRUE(fl_state_same_rings(&st, &back));
	free(text);
	fl_state_free(&back);
	fl_state_free(&st);
	rc_config_free(&c);
}

TEST(state_refused)
{
	struct fl_state st;
	const char *why;

	ASSERT_EQ(-EINVAL, fl_state_parse("not json", &st, &why));
	ASSERT_EQ(-EINVAL, fl_state_parse("{\"version\":2,\"services\":[]}", &st, &why));
	ASSERT_NE(NULL, strstr(why, "version 1"));
	ASSERT_EQ(-EINVAL, fl_state_parse("{\"version\":1}", &st, &why));
	ASSERT_EQ(-EINVAL, fl_state_parse("{\"version\":1,\"services\":[{\"service\":\"x\"}]}",
					  &st, &why));
	ASSERT_NE(NULL, strstr(why, "fingerprint"));
}

/*
 * What the configuration gives for a load balancer with a backend down is
 * what a kernel with that backend down reports: the ring without it.
 */
TEST(expected_with_downs)
{
	struct fl_state lb = { 0 }, exp;
	struct rc_config c, live;
	uint8_t key[RINGSTEER_KEY_LEN];

	ASSERT_EQ(0, parse_key(keyhex, key));
	read_config(_metadata, &c, false);
	read_config(_metadata, &live, true);
	live.s[0].b[0].health = RINGSTEER_HEALTH_DOWN;
	live.s[0].b[0].has |= RC_HAS_HEALTH;
	ASSERT_EQ(0, rc_config_fingerprints(&live));
	ASSERT_EQ(0, fl_state_services(&lb, &live));

	ASSERT_EQ(0, fl_state_expected(&c, key, &lb, &exp));
	ASSERT_TRUE(fl_state_same_rings(&exp, &lb));
	fl_state_free(&exp);

	/* Without the down, or under another key, they differ. */
	lb.s[0].ndown = 0;
	ASSERT_EQ(0, fl_state_expected(&c, key, &lb, &exp));
	ASSERT_FALSE(fl_state_same_rings(&exp, &lb));
	ASSERT_STREQ(exp.s[1].fingerprint, lb.s[1].fingerprint);
	fl_state_free(&exp);
	lb.s[0].ndown = 1;
	key[0] ^= 1;
	ASSERT_EQ(0, fl_state_expected(&c, key, &lb, &exp));
	ASSERT_FALSE(fl_state_same_rings(&exp, &lb));
	fl_state_free(&exp);
	fl_state_free(&lb);
	rc_config_free(&c);
	rc_config_free(&live);
}

TEST(key_id)
{
	uint8_t k1[RINGSTEER_KEY_LEN] = { 1 }, k2[RINGSTEER_KEY_LEN] = { 2 };
	char a[FL_KEY_ID_LEN], b[FL_KEY_ID_LEN], c[FL_KEY_ID_LEN];

	fl_key_id(a, k1);
	fl_key_id(b, k1);
	fl_key_id(c, k2);
	ASSERT_EQ(16, strlen(a));
	ASSERT_STREQ(a, b);
	ASSERT_STRNE(a, c);
}

TEST_HARNESS_MAIN
