// SPDX-License-Identifier: GPL-2.0
/*
 * The etcd layer (userspace/fleet/etcd.c) against a real etcd, started by
 * selftests/etcd/fleet.sh, which passes its endpoint in RS_ETCD_ENDPOINT:
 * range and prefix range, put and its revision, leases (grant, put under
 * one, keep-alive, revoke takes the key), a watch from a past revision
 * (events in order, deletes), a compacted revision (-ESTALE and the oldest
 * revision left), and an endpoint that refuses passed over for the next,
 * with the silent ones (no sign of life: no route, or a timeout before
 * the handshake, RS_ETCD_SILENT) counted apart.
 * Each test works under its own key prefix.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fleet/etcd.h"

static struct etcd_conf conf;

static void open_etcd(struct __test_metadata *_metadata, struct etcd *e)
{
	const char *ep = getenv("RS_ETCD_ENDPOINT");

	ASSERT_NE(NULL, ep);
	memset(&conf, 0, sizeof(conf));
	conf.endpoints[0] = ep;
	conf.nendpoints = 1;
	conf.timeout_ms = 2000;
	ASSERT_EQ(0, etcd_open(e, &conf));
}

TEST(put_range_prefix)
{
	struct etcd_kvs kvs;
	struct etcd e;
	int64_t r1, r2;

	open_etcd(_metadata, &e);
	ASSERT_EQ(0, etcd_put(&e, "/t1/a", "one", 3, 0, &r1));
	ASSERT_EQ(0, etcd_put(&e, "/t1/b", "two\0bytes", 9, 0, &r2));
	ASSERT_EQ(0, etcd_put(&e, "/t1x", "out", 3, 0, NULL));
	ASSERT_GT(r2, r1);

	ASSERT_EQ(0, etcd_range(&e, "/t1/a", false, &kvs));
	ASSERT_EQ(1, kvs.n);
	ASSERT_STREQ("/t1/a", kvs.kv[0].key);
	ASSERT_STREQ("one", kvs.kv[0].value);
	ASSERT_EQ(r1, kvs.kv[0].mod_revision);
	ASSERT_GE(kvs.revision, r2);
	etcd_kvs_free(&kvs);

	/* The prefix "/t1/" takes a and b, not /t1x; values are bytes. */
	ASSERT_EQ(0, etcd_range(&e, "/t1/", true, &kvs));
	ASSERT_EQ(2, kvs.n);
	ASSERT_STREQ("/t1/b", kvs.kv[1].key);
	ASSERT_EQ(9, kvs.kv[1].value_len);
	ASSERT_EQ(0, memcmp(kvs.kv[1].value, "two\0bytes", 9));
	etcd_kvs_free(&kvs);

	ASSERT_EQ(0, etcd_range(&e, "/t1/none", false, &kvs));
	ASSERT_EQ(0, kvs.n);
	etcd_kvs_free(&kvs);

	ASSERT_EQ(0, etcd_delete(&e, "/t1/", true));
	ASSERT_EQ(0, etcd_range(&e, "/t1/", true, &kvs));
	ASSERT_EQ(0, kvs.n);
	etcd_kvs_free(&kvs);
	etcd_close(&e);
}

TEST(prefix_end)
{
	size_t n;
	char *end = etcd_prefix_end("/a/", &n);

	ASSERT_EQ(3, n);
	ASSERT_EQ(0, memcmp(end, "/a0", 3));
	free(end);
	end = etcd_prefix_end("a\xff", &n);
	ASSERT_EQ(1, n);
	ASSERT_EQ('b', end[0]);
	free(end);
}

TEST(lease)
{
	struct etcd_kvs kvs;
	int64_t id, ttl;
	struct etcd e;

	open_etcd(_metadata, &e);
	ASSERT_EQ(0, etcd_lease_grant(&e, 30, &id));
	ASSERT_NE(0, id);
	ASSERT_EQ(0, etcd_put(&e, "/t2/status", "x", 1, id, NULL));
	ASSERT_EQ(0, etcd_lease_keepalive(&e, id, &ttl));
	ASSERT_GT(ttl, 20);
	ASSERT_LE(ttl, 30);
	ASSERT_EQ(0, etcd_range(&e, "/t2/status", false, &kvs));
	ASSERT_EQ(1, kvs.n);
	ASSERT_EQ(id, kvs.kv[0].lease);
	etcd_kvs_free(&kvs);

	/* Revoked: the key goes with it, and the lease is unknown. */
	ASSERT_EQ(0, etcd_lease_revoke(&e, id));
	ASSERT_EQ(0, etcd_range(&e, "/t2/status", false, &kvs));
	ASSERT_EQ(0, kvs.n);
	etcd_kvs_free(&kvs);
	ASSERT_EQ(-ENOENT, etcd_lease_keepalive(&e, id, &ttl));
	/* A put under a lease that is gone is refused. */
	ASSERT_EQ(-ENOENT, etcd_put(&e, "/t2/status", "x", 1, id, NULL));
	etcd_close(&e);
}

TEST(lease_expires)
{
	struct etcd_kvs kvs;
	int64_t id, ttl;
	struct etcd e;

	open_etcd(_metadata, &e);
	ASSERT_EQ(0, etcd_lease_grant(&e, 2, &id));
	ASSERT_EQ(0, etcd_put(&e, "/t5/status", "x", 1, id, NULL));
	sleep(4);
	ASSERT_EQ(-ENOENT, etcd_lease_keepalive(&e, id, &ttl));
	ASSERT_EQ(0, etcd_range(&e, "/t5/status", false, &kvs));
	ASSERT_EQ(0, kvs.n);
	etcd_kvs_free(&kvs);
	etcd_close(&e);
}

struct seen {
	int n;
	int64_t rev[8];
	char value[8][16];
	enum etcd_event_type type[8];
};

static int record(const struct etcd_event *ev, void *data)
{
	struct seen *s = data;

	if (s->n < 8) {
		s->rev[s->n] = ev->kv.mod_revision;
		s->type[s->n] = ev->type;
		snprintf(s->value[s->n], sizeof(s->value[0]), "%s", ev->kv.value);
	}
	s->n++;
	return 0;
}

static int poll_until(struct etcd_watch *w, struct seen *s, int n)
{
	int i, err = 0;

	for (i = 0; !err && s->n < n && i < 40; i++)
		err = etcd_watch_poll(w, 100);
	return err;
}

TEST(watch_from_revision)
{
	struct etcd_watch w;
	struct seen s = { 0 };
	struct etcd e;
	int64_t r1, r2, r3, r4;

	open_etcd(_metadata, &e);
	ASSERT_EQ(0, etcd_put(&e, "/t3/config", "v1", 2, 0, &r1));
	ASSERT_EQ(0, etcd_put(&e, "/t3/config", "v2", 2, 0, &r2));
	ASSERT_EQ(0, etcd_put(&e, "/t3/other", "no", 2, 0, NULL));
	/* From r2: v2 is replayed, v1 is not, /t3/other is another key. */
	ASSERT_EQ(0, etcd_watch_start(&e, &w, "/t3/config", false, r2, record, &s));
	ASSERT_EQ(0, poll_until(&w, &s, 1));
	ASSERT_EQ(1, s.n);
	ASSERT_EQ(r2, s.rev[0]);
	ASSERT_STREQ("v2", s.value[0]);
	ASSERT_TRUE(w.created);

	ASSERT_EQ(0, etcd_put(&e, "/t3/config", "v3", 2, 0, &r3));
	ASSERT_EQ(0, etcd_delete(&e, "/t3/config", false));
	ASSERT_EQ(0, poll_until(&w, &s, 3));
	ASSERT_EQ(3, s.n);
	ASSERT_EQ(r3, s.rev[1]);
	ASSERT_EQ(ETCD_PUT, s.type[1]);
	ASSERT_EQ(ETCD_DELETE, s.type[2]);
	ASSERT_GT(s.rev[2], r3);
	etcd_watch_stop(&w);

	/* A prefix watch sees both keys. */
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, etcd_put(&e, "/t3/x", "4", 1, 0, &r4));
	ASSERT_EQ(0, etcd_watch_start(&e, &w, "/t3/", true, r4, record, &s));
	ASSERT_EQ(0, etcd_put(&e, "/t3/y", "5", 1, 0, NULL));
	ASSERT_EQ(0, poll_until(&w, &s, 2));
	ASSERT_EQ(2, s.n);
	ASSERT_STREQ("4", s.value[0]);
	ASSERT_STREQ("5", s.value[1]);
	etcd_watch_stop(&w);
	etcd_close(&e);
}

/* Compaction as an operator does it, with etcdctl. */
static int compact(const char *endpoint, int64_t rev)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "ETCDCTL_API=3 etcdctl --endpoints %s compact %lld >/dev/null", endpoint,
		 (long long)rev);
	return system(cmd);
}

TEST(watch_compacted)
{
	struct etcd_watch w;
	struct seen s = { 0 };
	struct etcd e;
	int64_t r1, r2;
	int i, err = 0;

	open_etcd(_metadata, &e);
	ASSERT_EQ(0, etcd_put(&e, "/t4/config", "v1", 2, 0, &r1));
	ASSERT_EQ(0, etcd_put(&e, "/t4/config", "v2", 2, 0, &r2));
	ASSERT_EQ(0, compact(conf.endpoints[0], r2));
	ASSERT_EQ(0, etcd_watch_start(&e, &w, "/t4/config", false, r1, record, &s));
	for (i = 0; !err && i < 40; i++)
		err = etcd_watch_poll(&w, 100);
	ASSERT_EQ(-ESTALE, err);
	ASSERT_EQ(r2, w.compact_revision);
	ASSERT_EQ(0, s.n);
	ASSERT_NE(NULL, strstr(e.err, "compacted"));
	etcd_watch_stop(&w);
	etcd_close(&e);
}

TEST(endpoint_failover)
{
	struct etcd_kvs kvs;
	struct etcd e;

	open_etcd(_metadata, &e);
	/* A port nobody listens on first: the request goes to the next. */
	conf.endpoints[1] = conf.endpoints[0];
	conf.endpoints[0] = "http://127.0.0.1:9";
	conf.nendpoints = 2;
	ASSERT_EQ(0, etcd_range(&e, "/t6", false, &kvs));
	ASSERT_EQ(1, e.cur);
	etcd_kvs_free(&kvs);
	/* None answering: a transport error, said as such. */
	conf.endpoints[1] = "http://127.0.0.1:9";
	ASSERT_EQ(-ECONNREFUSED, etcd_range(&e, "/t6", false, &kvs));
	ASSERT_NE(NULL, strstr(e.err, "127.0.0.1:9"));
	/* Both refused: their hosts answered, etcd is down, not this host cut off. */
	ASSERT_EQ(0, e.silent);
	/*
	 * An address this namespace has no route to (it has only lo): silence,
	 * which cannot be told from a partition.
	 */
	conf.endpoints[0] = "http://192.0.2.1:2379";
	ASSERT_NE(0, etcd_range(&e, "/t6", false, &kvs));
	ASSERT_EQ(1, e.silent);
	/*
	 * One whose packets vanish (dropped by a rule): a timeout
	 * before the handshake is silence too, even right after a refusal
	 * (whose errno the handle still holds).
	 */
	conf.endpoints[0] = "http://127.0.0.1:9";
	conf.endpoints[1] = getenv("RS_ETCD_SILENT");
	conf.timeout_ms = 300;
	e.cur = 0;
	ASSERT_NE(NULL, conf.endpoints[1]);
	ASSERT_EQ(-ETIMEDOUT, etcd_range(&e, "/t6", false, &kvs));
	ASSERT_EQ(1, e.silent);
	conf.timeout_ms = 2000;
	/* One that serves: no silence counted, whatever came before it. */
	conf.endpoints[1] = getenv("RS_ETCD_ENDPOINT");
	e.cur = 0;
	ASSERT_EQ(0, etcd_range(&e, "/t6", false, &kvs));
	ASSERT_EQ(0, e.silent);
	etcd_kvs_free(&kvs);
	etcd_close(&e);
}

TEST_HARNESS_MAIN
