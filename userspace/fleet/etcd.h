/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The etcd layer (prefix etcd_): a small client of etcd's v3 API through
 * its JSON gateway (etcd 3.4: /v3/kv/range, /v3/kv/put, /v3/watch,
 * /v3/lease/..., /v3/auth/authenticate), over libcurl for HTTP and TLS,
 * json-c for JSON and libsodium for the gateway's base64 keys and values
 * (doc/fleet.md says why). Endpoints are tried in turn: a request that
 * cannot reach one goes to the next. Nothing is printed: every function
 * returns 0 or -errno, with etcd's or curl's message in e->err:
 *
 *   -ECONNREFUSED, -ETIMEDOUT, -EIO  no endpoint answered (transport)
 *   -EAGAIN   every endpoint that answered is unavailable (no leader)
 *   -EACCES   authentication or permission refused
 *   -ENOENT   no such lease
 *   -ESTALE   the revision asked for was compacted
 *   -EPROTO   an answer that is not what the API says
 *   -EINVAL   any other error etcd returned
 */
#ifndef RINGCTL_ETCD_H
#define RINGCTL_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETCD_MAX_ENDPOINTS 16
#define ETCD_ERR_LEN 256

/* Where etcd is and who we are; strings are the caller's. */
struct etcd_conf {
	const char *endpoints[ETCD_MAX_ENDPOINTS];	/* http(s)://HOST:PORT */
	unsigned int nendpoints;
	const char *cacert;		/* CA bundle for https, NULL: system's */
	const char *cert, *cert_key;	/* TLS client certificate, or NULL */
	const char *user, *password;	/* etcd auth, or NULL */
	uint32_t timeout_ms;		/* of one request (not of a watch) */
};

struct etcd {
	const struct etcd_conf *conf;
	void *curl;			/* CURL *, reused between requests */
	unsigned int cur;		/* the endpoint that answered last */
	/*
	 * Of the endpoints the last request tried, how many gave no sign of
	 * life: no answer, no refused connection, no handshake (a timeout, no
	 * route). 0 after a failed request means every endpoint's host was
	 * reached and none served: etcd is down for every client alike, this
	 * host is not cut off from it. 0 after a request that succeeded.
	 */
	unsigned int silent;
	bool fresh;			/* a transfer failed: no kept connection next */
	char *token;			/* from authenticate, or NULL */
	char err[ETCD_ERR_LEN];
};

struct etcd_kv {
	char *key;
	char *value;			/* NUL-terminated; value_len without it */
	size_t value_len;
	int64_t create_revision, mod_revision, version, lease;
};

/* A range's answer: its keys, and the store's revision it was read at. */
struct etcd_kvs {
	struct etcd_kv *kv;
	size_t n;
	int64_t revision;
};

int etcd_open(struct etcd *e, const struct etcd_conf *c);
void etcd_close(struct etcd *e);

/* KEY, or with PREFIX every key starting with it (sorted by key). */
int etcd_range(struct etcd *e, const char *key, bool prefix, struct etcd_kvs *out);
void etcd_kvs_free(struct etcd_kvs *kvs);
/* KEY = VALUE (LEN bytes), under LEASE unless 0; *REVISION (may be NULL) the put's. */
int etcd_put(struct etcd *e, const char *key, const char *value, size_t len,
	     int64_t lease, int64_t *revision);
int etcd_delete(struct etcd *e, const char *key, bool prefix);

/* A lease of TTL_S seconds: its ID. */
int etcd_lease_grant(struct etcd *e, int64_t ttl_s, int64_t *id);
/* One keep-alive of lease ID: its TTL again, or -ENOENT when it expired. */
int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl);
int etcd_lease_revoke(struct etcd *e, int64_t id);

enum etcd_event_type { ETCD_PUT, ETCD_DELETE };

struct etcd_event {
	enum etcd_event_type type;
	struct etcd_kv kv;
};

/* Called for each event of a watch, in revision order; nonzero stops the poll. */
typedef int (*etcd_event_cb)(const struct etcd_event *ev, void *data);

/*
 * A watch is a stream that stays open (one HTTP request whose answer
 * never ends), read without blocking by etcd_watch_poll(): the caller's
 * loop keeps its timers.
 */
struct etcd_watch {
	struct etcd *e;
	void *multi, *easy;		/* CURLM *, CURL * */
	void *headers;			/* struct curl_slist * */
	char *body;
	char *buf;			/* what arrived, not yet a whole line */
	size_t len, cap;
	bool created;			/* etcd confirmed the watch */
	int64_t revision;		/* header revision of the last message */
	int64_t compact_revision;	/* set with -ESTALE */
	int error;			/* a message's error, to return */
	etcd_event_cb cb;
	void *data;
};

/* Watch KEY (or the PREFIX) from revision START (0: from now). */
int etcd_watch_start(struct etcd *e, struct etcd_watch *w, const char *key, bool prefix,
		     int64_t start, etcd_event_cb cb, void *data);
/*
 * Wait up to TIMEOUT_MS for the stream, passing each event to the
 * callback. 0 while the watch goes on; the callback's nonzero return;
 * -ESTALE when START was compacted (w->compact_revision is the oldest
 * revision left: read the whole key again); -ECONNRESET when the stream
 * ended (etcd stopped, the network); another -errno on errors.
 */
int etcd_watch_poll(struct etcd_watch *w, int timeout_ms);
void etcd_watch_stop(struct etcd_watch *w);

/*
 * The end of the range of every key starting with PREFIX, as etcd
 * wants it: the prefix with its last byte below 0xff incremented
 * (malloc()ed; "\0" for every key when none is).
 */
char *etcd_prefix_end(const char *prefix, size_t *len);

#endif /* RINGCTL_ETCD_H */
