// SPDX-License-Identifier: GPL-2.0
/*
 * etcd's v3 JSON gateway over libcurl; see etcd.h. The gateway speaks
 * the gRPC messages as JSON: keys and values in base64, 64-bit numbers
 * as strings, errors as {"error", "code", "message"} with gRPC's codes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <sodium.h>

#include "etcd.h"

/* gRPC status codes etcd answers with. */
#define GRPC_NOT_FOUND		5
#define GRPC_PERMISSION_DENIED	7
#define GRPC_OUT_OF_RANGE	11
#define GRPC_UNAVAILABLE	14
#define GRPC_UNAUTHENTICATED	16

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static size_t collect(char *data, size_t size, size_t n, void *userp)
{
	return buf_add(userp, data, size * n) ? 0 : size * n;
}

static char *b64_encode(const void *data, size_t len)
{
	size_t n = sodium_base64_encoded_len(len, sodium_base64_VARIANT_ORIGINAL);
	char *s = malloc(n);

	if (s)
		sodium_bin2base64(s, n, data, len, sodium_base64_VARIANT_ORIGINAL);
	return s;
}

/* NUL-terminated, *LEN without it; NULL if not base64 or out of memory. */
static char *b64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), cap = n / 4 * 3 + 3;
	char *p = malloc(cap + 1);

	if (!p)
		return NULL;
	if (sodium_base642bin((unsigned char *)p, cap, s, n, NULL, len, NULL,
			      sodium_base64_VARIANT_ORIGINAL)) {
		free(p);
		return NULL;
	}
	p[*len] = '\0';
	return p;
}

static void add_b64(json_object *o, const char *name, const void *data, size_t len)
{
	char *s = b64_encode(data, len);

	json_object_object_add(o, name, json_object_new_string(s ? s : ""));
	free(s);
}

/* The gateway writes int64 as strings; accept numbers too. 0 when absent. */
static int64_t get_i64(json_object *o, const char *name)
{
	json_object *v;

	if (!json_object_object_get_ex(o, name, &v))
		return 0;
	if (json_object_is_type(v, json_type_string))
		return strtoll(json_object_get_string(v), NULL, 10);
	return json_object_get_int64(v);
}

static void add_i64(json_object *o, const char *name, int64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%lld", (long long)v);
	json_object_object_add(o, name, json_object_new_string(s));
}

char *etcd_prefix_end(const char *prefix, size_t *len)
{
	size_t n = strlen(prefix);
	char *end = malloc(n + 1);

	if (!end)
		return NULL;
	memcpy(end, prefix, n + 1);
	while (n > 0) {
		if ((unsigned char)end[n - 1] < 0xff) {
			end[n - 1]++;
			*len = n;
			return end;
		}
		n--;
	}
	end[0] = '\0';
	*len = 1;
	return end;
}

static void add_range(json_object *o, const char *key, bool prefix)
{
	size_t n;
	char *end;

	add_b64(o, "key", key, strlen(key));
	if (!prefix)
		return;
	end = etcd_prefix_end(key, &n);
	if (end)
		add_b64(o, "range_end", end, n);
	free(end);
}

static int kv_of(json_object *o, struct etcd_kv *kv)
{
	json_object *k, *v;
	size_t len;

	memset(kv, 0, sizeof(*kv));
	if (!json_object_object_get_ex(o, "key", &k))
		return -EPROTO;
	kv->key = b64_decode(json_object_get_string(k), &len);
	if (json_object_object_get_ex(o, "value", &v))
		kv->value = b64_decode(json_object_get_string(v), &kv->value_len);
	else
		kv->value = calloc(1, 1);
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		return -EPROTO;
	}
	kv->create_revision = get_i64(o, "create_revision");
	kv->mod_revision = get_i64(o, "mod_revision");
	kv->version = get_i64(o, "version");
	kv->lease = get_i64(o, "lease");
	return 0;
}

/* etcd's {"error", "code", "message"} as -errno, the message in e->err. */
static int grpc_error(struct etcd *e, json_object *o)
{
	json_object *m;
	int code = (int)get_i64(o, "code");

	if (!json_object_object_get_ex(o, "message", &m) &&
	    !json_object_object_get_ex(o, "error", &m))
		return 0;
	snprintf(e->err, sizeof(e->err), "%s", json_object_get_string(m));
	switch (code) {
	case GRPC_NOT_FOUND:
		return -ENOENT;
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
		return -EACCES;
	case GRPC_OUT_OF_RANGE:
		return -ESTALE;
	case GRPC_UNAVAILABLE:
		return -EAGAIN;
	}
	return -EINVAL;
}

static int curl_errno(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

/* What every request of E shares: TLS, and the token's header. */
static struct curl_slist *setup(struct etcd *e, CURL *c, const char *path,
				const char *body)
{
	const struct etcd_conf *cf = e->conf;
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[512], auth[1024];

	snprintf(url, sizeof(url), "%s%s", cf->endpoints[e->cur], path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)cf->timeout_ms);
	if (cf->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, cf->cacert);
	if (cf->cert)
		curl_easy_setopt(c, CURLOPT_SSLCERT, cf->cert);
	if (cf->cert_key)
		curl_easy_setopt(c, CURLOPT_SSLKEY, cf->cert_key);
	if (e->token && strcmp(path, "/v3/auth/authenticate")) {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		h = curl_slist_append(h, auth);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	return h;
}

/*
 * Whether a failed transfer still heard from the endpoint's host: it
 * refused the connection (its host is up, its etcd is not) or completed
 * the handshake (its etcd took the request and did not answer in time).
 * A timeout before the handshake, or no route, is silence: from here it
 * cannot be told from a partition.
 */
static bool host_answered(CURL *c, CURLcode rc)
{
	curl_off_t connect_us = 0;
	long os_errno = 0, connects = 0;

	/*
	 * The handle keeps the errno of its last failed connect whatever came
	 * after (a timeout sets none): read it only for a connect that failed.
	 */
	if (rc == CURLE_COULDNT_CONNECT &&
	    curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK &&
	    os_errno == ECONNREFUSED)
		return true;
	/* A kept connection proves nothing of now: only a handshake of this transfer. */
	return curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK &&
	       connects > 0 &&
	       curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
	       connect_us > 0;
}

/* POST BODY to PATH at the current endpoint; the answer's JSON in *OUT. */
static int post_once(struct etcd *e, const char *path, const char *body, json_object **out)
{
	CURL *c = e->curl;
	struct buf b = { 0 };
	struct curl_slist *h;
	CURLcode rc;
	int err;

	curl_easy_reset(c);
	h = setup(e, c, path, body);
	if (e->fresh)
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
	e->fresh = false;
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)e->conf->timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(c);
	curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		snprintf(e->err, sizeof(e->err), "%s: %s", e->conf->endpoints[e->cur],
			 curl_easy_strerror(rc));
		free(b.p);
		if (!host_answered(c, rc))
			e->silent++;
		/* The next try here starts from a handshake, which tells silence apart. */
		e->fresh = true;
		return curl_errno(rc);
	}
	*out = b.p ? json_tokener_parse(b.p) : NULL;
	if (!*out) {
		snprintf(e->err, sizeof(e->err), "%s: an answer that is not JSON",
			 e->conf->endpoints[e->cur]);
		free(b.p);
		return -EPROTO;
	}
	free(b.p);
	err = grpc_error(e, *out);
	if (err) {
		json_object_put(*out);
		*out = NULL;
	}
	return err;
}

/* A transport error, or a member that cannot serve (no leader): not etcd's answer. */
static bool unserved(int err)
{
	return err == -ECONNREFUSED || err == -ETIMEDOUT || err == -EIO || err == -EAGAIN;
}

/* Requests not served move on to the next endpoint, once round all of them. */
static int post_any(struct etcd *e, const char *path, const char *body, json_object **out)
{
	unsigned int tries;
	int err = -ECONNREFUSED;

	e->silent = 0;
	for (tries = 0; tries < e->conf->nendpoints; tries++) {
		err = post_once(e, path, body, out);
		if (!unserved(err))
			break;
		e->cur = (e->cur + 1) % e->conf->nendpoints;
	}
	/* Someone served, even with an error: etcd is there. */
	if (!unserved(err))
		e->silent = 0;
	return err;
}

static int authenticate(struct etcd *e)
{
	json_object *req = json_object_new_object(), *res = NULL, *t;
	int err;

	json_object_object_add(req, "name", json_object_new_string(e->conf->user));
	json_object_object_add(req, "password",
			       json_object_new_string(e->conf->password ? e->conf->password : ""));
	err = post_any(e, "/v3/auth/authenticate",
		       json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN), &res);
	json_object_put(req);
	if (err)
		return err;
	if (!json_object_object_get_ex(res, "token", &t)) {
		json_object_put(res);
		snprintf(e->err, sizeof(e->err), "authenticate: no token in the answer");
		return -EPROTO;
	}
	free(e->token);
	e->token = strdup(json_object_get_string(t));
	json_object_put(res);
	return e->token ? 0 : -ENOMEM;
}

/*
 * One request, REQ consumed. With a user, authenticate first, and again
 * once if the token was refused (tokens expire, etcd restarts).
 */
static int call(struct etcd *e, const char *path, json_object *req, json_object **out)
{
	const char *body = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	int err = 0, again;

	for (again = 0; again < 2; again++) {
		if (e->conf->user && !e->token)
			err = authenticate(e);
		if (!err)
			err = post_any(e, path, body, out);
		if (err != -EACCES || !e->conf->user || !e->token)
			break;
		free(e->token);
		e->token = NULL;
	}
	json_object_put(req);
	return err;
}

int etcd_open(struct etcd *e, const struct etcd_conf *c)
{
	static bool global;

	memset(e, 0, sizeof(*e));
	if (!c->nendpoints)
		return -EINVAL;
	if (!global) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) || sodium_init() < 0)
			return -ENOMEM;
		global = true;
	}
	e->conf = c;
	e->curl = curl_easy_init();
	return e->curl ? 0 : -ENOMEM;
}

void etcd_close(struct etcd *e)
{
	if (e->curl)
		curl_easy_cleanup(e->curl);
	free(e->token);
	e->curl = NULL;
	e->token = NULL;
}

void etcd_kvs_free(struct etcd_kvs *kvs)
{
	size_t i;

	for (i = 0; i < kvs->n; i++) {
		free(kvs->kv[i].key);
		free(kvs->kv[i].value);
	}
	free(kvs->kv);
	memset(kvs, 0, sizeof(*kvs));
}

static int64_t header_revision(json_object *o)
{
	json_object *h;

	return json_object_object_get_ex(o, "header", &h) ? get_i64(h, "revision") : 0;
}

int etcd_range(struct etcd *e, const char *key, bool prefix, struct etcd_kvs *out)
{
	json_object *req = json_object_new_object(), *res = NULL, *kvs;
	size_t i, n;
	int err;

	memset(out, 0, sizeof(*out));
	add_range(req, key, prefix);
	err = call(e, "/v3/kv/range", req, &res);
	if (err)
		return err;
	out->revision = header_revision(res);
	n = json_object_object_get_ex(res, "kvs", &kvs) ? json_object_array_length(kvs) : 0;
	out->kv = calloc(n ? n : 1, sizeof(*out->kv));
	if (!out->kv)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		err = kv_of(json_object_array_get_idx(kvs, i), &out->kv[i]);
		if (!err)
			out->n++;
	}
	json_object_put(res);
	if (err) {
		snprintf(e->err, sizeof(e->err), "range: a key that is not base64");
		etcd_kvs_free(out);
	}
	return err;
}

int etcd_put(struct etcd *e, const char *key, const char *value, size_t len,
	     int64_t lease, int64_t *revision)
{
	json_object *req = json_object_new_object(), *res = NULL;
	int err;

	add_b64(req, "key", key, strlen(key));
	add_b64(req, "value", value, len);
	if (lease)
		add_i64(req, "lease", lease);
	err = call(e, "/v3/kv/put", req, &res);
	if (err)
		return err;
	if (revision)
		*revision = header_revision(res);
	json_object_put(res);
	return 0;
}

int etcd_delete(struct etcd *e, const char *key, bool prefix)
{
	json_object *req = json_object_new_object(), *res = NULL;
	int err;

	add_range(req, key, prefix);
	err = call(e, "/v3/kv/deleterange", req, &res);
	json_object_put(res);
	return err;
}

int etcd_lease_grant(struct etcd *e, int64_t ttl_s, int64_t *id)
{
	json_object *req = json_object_new_object(), *res = NULL;
	int err;

	add_i64(req, "TTL", ttl_s);
	err = call(e, "/v3/lease/grant", req, &res);
	if (err)
		return err;
	*id = get_i64(res, "ID");
	json_object_put(res);
	if (!*id) {
		snprintf(e->err, sizeof(e->err), "lease grant: no ID in the answer");
		return -EPROTO;
	}
	return 0;
}

int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl)
{
	json_object *req = json_object_new_object(), *res = NULL, *r;
	int err;

	add_i64(req, "ID", id);
	err = call(e, "/v3/lease/keepalive", req, &res);
	if (err)
		return err;
	/* A stream of one message here: {"result": {...}}. */
	*ttl = json_object_object_get_ex(res, "result", &r) ? get_i64(r, "TTL") : 0;
	if (json_object_object_get_ex(res, "error", &r))
		err = grpc_error(e, r) ?: -EPROTO;
	json_object_put(res);
	if (!err && *ttl <= 0) {
		snprintf(e->err, sizeof(e->err), "lease %llx expired", (unsigned long long)id);
		err = -ENOENT;
	}
	return err;
}

int etcd_lease_revoke(struct etcd *e, int64_t id)
{
	json_object *req = json_object_new_object(), *res = NULL;
	int err;

	add_i64(req, "ID", id);
	err = call(e, "/v3/lease/revoke", req, &res);
	json_object_put(res);
	return err;
}

/* One line of the stream: {"result": {...}} or {"error": {...}}. */
static int watch_message(struct etcd_watch *w, json_object *o)
{
	struct etcd_event ev;
	json_object *r, *evs, *x, *t, *kv;
	size_t i, n;
	int err = 0;

	if (json_object_object_get_ex(o, "error", &r))
		return grpc_error(w->e, r) ?: -EPROTO;
	if (!json_object_object_get_ex(o, "result", &r))
		return grpc_error(w->e, o) ?: -EPROTO;
	w->revision = header_revision(r) ?: w->revision;
	if (json_object_object_get_ex(r, "created", &x) && json_object_get_boolean(x))
		w->created = true;
	w->compact_revision = get_i64(r, "compact_revision");
	if (w->compact_revision > 0) {
		snprintf(w->e->err, sizeof(w->e->err), "revision compacted: oldest is %lld",
			 (long long)w->compact_revision);
		return -ESTALE;
	}
	if (json_object_object_get_ex(r, "canceled", &x) && json_object_get_boolean(x)) {
		snprintf(w->e->err, sizeof(w->e->err), "watch canceled by etcd: %s",
			 json_object_object_get_ex(r, "cancel_reason", &x) ?
			 json_object_get_string(x) : "no reason given");
		return -ECONNRESET;
	}
	n = json_object_object_get_ex(r, "events", &evs) ? json_object_array_length(evs) : 0;
	for (i = 0; !err && i < n; i++) {
		x = json_object_array_get_idx(evs, i);
		if (!json_object_object_get_ex(x, "kv", &kv) || kv_of(kv, &ev.kv))
			return -EPROTO;
		ev.type = json_object_object_get_ex(x, "type", &t) &&
			  !strcmp(json_object_get_string(t), "DELETE") ? ETCD_DELETE : ETCD_PUT;
		err = w->cb(&ev, w->data);
		free(ev.kv.key);
		free(ev.kv.value);
	}
	return err;
}

/* The stream's messages come one a line. */
static size_t watch_data(char *data, size_t size, size_t n, void *userp)
{
	struct etcd_watch *w = userp;
	struct buf b = { w->buf, w->len, w->cap };
	json_object *o;
	char *nl;
	size_t used;

	if (buf_add(&b, data, size * n))
		return 0;
	w->buf = b.p;
	w->len = b.len;
	w->cap = b.cap;
	while (!w->error && (nl = memchr(w->buf, '\n', w->len))) {
		*nl = '\0';
		o = json_tokener_parse(w->buf);
		w->error = o ? watch_message(w, o) : -EPROTO;
		if (!o)
			snprintf(w->e->err, sizeof(w->e->err), "watch: a message that is not JSON");
		json_object_put(o);
		used = nl + 1 - w->buf;
		memmove(w->buf, nl + 1, w->len - used);
		w->len -= used;
	}
	/* Stop the transfer on an error: the caller starts a new watch. */
	return w->error ? 0 : size * n;
}

int etcd_watch_start(struct etcd *e, struct etcd_watch *w, const char *key, bool prefix,
		     int64_t start, etcd_event_cb cb, void *data)
{
	json_object *req = json_object_new_object(), *cr = json_object_new_object();
	int err = 0;

	memset(w, 0, sizeof(*w));
	w->e = e;
	w->cb = cb;
	w->data = data;
	add_range(cr, key, prefix);
	if (start > 0)
		add_i64(cr, "start_revision", start);
	json_object_object_add(req, "create_request", cr);
	w->body = strdup(json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	if (e->conf->user && !e->token)
		err = authenticate(e);
	w->multi = curl_multi_init();
	w->easy = curl_easy_init();
	if (!err && (!w->body || !w->multi || !w->easy))
		err = -ENOMEM;
	if (err) {
		etcd_watch_stop(w);
		return err;
	}
	w->headers = setup(e, w->easy, "/v3/watch", w->body);
	curl_easy_setopt(w->easy, CURLOPT_WRITEFUNCTION, watch_data);
	curl_easy_setopt(w->easy, CURLOPT_WRITEDATA, w);
	/* A peer gone without a word is noticed by TCP's keepalive. */
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPIDLE, 5L);
	curl_easy_setopt(w->easy, CURLOPT_TCP_KEEPINTVL, 2L);
	curl_multi_add_handle(w->multi, w->easy);
	return 0;
}

int etcd_watch_poll(struct etcd_watch *w, int timeout_ms)
{
	struct etcd *e = w->e;
	CURLMsg *m;
	int running, left;

	curl_multi_perform(w->multi, &running);
	if (!w->error && running)
		curl_multi_poll(w->multi, NULL, 0, timeout_ms, NULL);
	curl_multi_perform(w->multi, &running);
	if (w->error)
		return w->error;
	while ((m = curl_multi_info_read(w->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		if (m->data.result != CURLE_OK)
			snprintf(e->err, sizeof(e->err), "watch: %s: %s", e->conf->endpoints[e->cur],
				 curl_easy_strerror(m->data.result));
		else
			snprintf(e->err, sizeof(e->err), "watch: %s ended the stream",
				 e->conf->endpoints[e->cur]);
		/* The next watch tries the next endpoint. */
		e->cur = (e->cur + 1) % e->conf->nendpoints;
		w->error = -ECONNRESET;
		return w->error;
	}
	return 0;
}

void etcd_watch_stop(struct etcd_watch *w)
{
	if (w->multi && w->easy)
		curl_multi_remove_handle(w->multi, w->easy);
	if (w->easy)
		curl_easy_cleanup(w->easy);
	if (w->multi)
		curl_multi_cleanup(w->multi);
	curl_slist_free_all(w->headers);
	free(w->body);
	free(w->buf);
	memset(w, 0, sizeof(*w));
}
