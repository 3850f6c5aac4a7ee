// SPDX-License-Identifier: GPL-2.0
/* ringsteer attributes in and out; see nl_ops.h. */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl_ops.h"
#include "settings.h"

#define DUMP_RETRIES 8

/* Attribute builders. */

/* The settings of OBJ that P (struct rc_service or rc_backend) has. */
static void put_settings(struct nlmsghdr *nlh, enum rc_obj obj, const void *p)
{
	const struct rc_setting *r;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj != obj || !rc_setting_given(r, p))
			continue;
		if (r->type == RC_T_PORT)
			mnl_attr_put_u16(nlh, r->attr, htons(rc_setting_get(r, p)));
		else
			mnl_attr_put_u32(nlh, r->attr, rc_setting_get(r, p));
	}
}

static void put_service_id(struct nlmsghdr *nlh, const struct rc_service *s,
			   bool settings)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, RINGSTEER_A_SERVICE);

	mnl_attr_put_u16(nlh, RINGSTEER_SERVICE_A_FAMILY, s->vip.family);
	mnl_attr_put(nlh, RINGSTEER_SERVICE_A_ADDR, rc_addr_len(s->vip.family),
		     s->vip.addr);
	mnl_attr_put_u16(nlh, RINGSTEER_SERVICE_A_PORT, htons(s->vip.port));
	mnl_attr_put_u8(nlh, RINGSTEER_SERVICE_A_PROTO, s->proto);
	if (settings)
		put_settings(nlh, RC_OBJ_SERVICE, s);
	/* Only restore's last set of a chained service gives them. */
	if (settings && s->has_kept) {
		mnl_attr_put_u32(nlh, RINGSTEER_SERVICE_A_KEPT_RINGS, s->kept_rings);
		mnl_attr_put(nlh, RINGSTEER_SERVICE_A_KEPT, s->nkept * sizeof(s->kept[0]),
			     s->kept);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* The settings only when given (b->has): NEW and SET. */
static void put_backend(struct nlmsghdr *nlh, const struct rc_backend *b)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, RINGSTEER_A_BACKEND);

	mnl_attr_put_u16(nlh, RINGSTEER_BACKEND_A_FAMILY, b->ep.family);
	mnl_attr_put(nlh, RINGSTEER_BACKEND_A_ADDR, rc_addr_len(b->ep.family),
		     b->ep.addr);
	mnl_attr_put_u16(nlh, RINGSTEER_BACKEND_A_PORT, htons(b->ep.port));
	put_settings(nlh, RC_OBJ_BACKEND, b);
	if (b->nslots)
		mnl_attr_put(nlh, RINGSTEER_BACKEND_A_SLOTS, b->nslots * sizeof(*b->slots),
			     b->slots);
	mnl_attr_nest_end(nlh, nest);
}

static void put_flags(struct nlmsghdr *nlh, uint32_t flags)
{
	if (flags)
		mnl_attr_put_u32(nlh, RINGSTEER_A_FLAGS, flags);
}

/* Attribute parsers: a table of attributes by type, lengths checked on use. */

struct table {
	const struct nlattr **tb;
	unsigned int max;
};

static int table_cb(const struct nlattr *attr, void *data)
{
	struct table *t = data;
	unsigned int type = mnl_attr_get_type(attr);

	/* Newer kernels may add attributes: skip what we do not know. */
	if (type <= t->max)
		t->tb[type] = attr;
	return MNL_CB_OK;
}

static int parse_nested(const struct nlattr *nest, const struct nlattr **tb,
			unsigned int max)
{
	struct table t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse_nested(nest, table_cb, &t) < 0 ? -EPROTO : 0;
}

static int parse_msg(const struct nlmsghdr *nlh, const struct nlattr **tb,
		     unsigned int max)
{
	struct table t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse(nlh, GENL_HDRLEN, table_cb, &t) < 0 ? -EPROTO : 0;
}

static bool len_is(const struct nlattr *a, unsigned int len)
{
	return a && mnl_attr_get_payload_len(a) == len;
}

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a)
		return 0;
	if (!len_is(a, 4))
		return -EPROTO;
	*v = mnl_attr_get_u32(a);
	return 0;
}

static int get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a)
		return 0;
	if (!len_is(a, 8))
		return -EPROTO;
	*v = mnl_attr_get_u64(a);
	return 0;
}

static int get_endpoint(const struct nlattr *fam, const struct nlattr *addr,
			const struct nlattr *port, struct rc_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (!len_is(fam, 2) || !len_is(port, 2) || !addr)
		return -EPROTO;
	ep->family = mnl_attr_get_u16(fam);
	if ((ep->family != AF_INET && ep->family != AF_INET6) ||
	    !len_is(addr, rc_addr_len(ep->family)))
		return -EPROTO;
	memcpy(ep->addr, mnl_attr_get_payload(addr), rc_addr_len(ep->family));
	ep->port = ntohs(mnl_attr_get_u16(port));
	return 0;
}

static int get_u16_be(const struct nlattr *a, uint16_t *v)
{
	if (!a)
		return 0;
	if (!len_is(a, 2))
		return -EPROTO;
	*v = ntohs(mnl_attr_get_u16(a));
	return 0;
}

static const struct {
	unsigned int attr;
	size_t off;
} tunnel_stats[] = {
	{ RINGSTEER_SERVICE_A_PACKETS, offsetof(struct rc_service, packets) },
	{ RINGSTEER_SERVICE_A_TABLE_HITS, offsetof(struct rc_service, table_hits) },
	{ RINGSTEER_SERVICE_A_TABLE_MISSES, offsetof(struct rc_service, table_misses) },
	{ RINGSTEER_SERVICE_A_NONSYN_MISSES, offsetof(struct rc_service, nonsyn_misses) },
	{ RINGSTEER_SERVICE_A_TOO_BIG, offsetof(struct rc_service, too_big) },
	{ RINGSTEER_SERVICE_A_FRAGMENTS, offsetof(struct rc_service, fragments) },
	{ RINGSTEER_SERVICE_A_ENCAP_ERRORS, offsetof(struct rc_service, encap_errors) },
	{ RINGSTEER_SERVICE_A_MARTIANS, offsetof(struct rc_service, martians) },
	{ RINGSTEER_SERVICE_A_NOT_HOST, offsetof(struct rc_service, not_host) },
	{ RINGSTEER_SERVICE_A_ICMP_LIMITED, offsetof(struct rc_service, icmp_limited) },
	{ RINGSTEER_SERVICE_A_FLOOD_SKIPPED, offsetof(struct rc_service, flood_skipped) },
};

/* The settings of OBJ that TB has into P (struct rc_service or rc_backend). */
static int get_settings(const struct nlattr **tb, enum rc_obj obj, void *p)
{
	const struct rc_setting *r;
	unsigned int i;
	uint16_t v16 = 0;
	uint32_t v = 0;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj != obj || !tb[r->attr])
			continue;
		if (r->type == RC_T_PORT ? get_u16_be(tb[r->attr], &v16) :
		    get_u32(tb[r->attr], &v))
			return -EPROTO;
		rc_setting_put(r, p, r->type == RC_T_PORT ? v16 : v);
	}
	return 0;
}

/* forward tunnel's counters. */
static int get_tunnel_stats(const struct nlattr **tb, struct rc_service *s)
{
	size_t i;

	s->has_tunnel_stats = tb[RINGSTEER_SERVICE_A_PACKETS];
	for (i = 0; i < sizeof(tunnel_stats) / sizeof(tunnel_stats[0]); i++)
		if (get_u64(tb[tunnel_stats[i].attr],
			    (uint64_t *)((char *)s + tunnel_stats[i].off)))
			return -EPROTO;
	return 0;
}

/* A chained service's kept rings, as records (chain_kept.h). */
static int get_kept(const struct nlattr *const *tb, struct rc_service *s)
{
	const struct nlattr *a = tb[RINGSTEER_SERVICE_A_KEPT];
	uint16_t len;

	if (!tb[RINGSTEER_SERVICE_A_KEPT_RINGS])
		return 0;
	if (get_u32(tb[RINGSTEER_SERVICE_A_KEPT_RINGS], &s->kept_rings) || !a)
		return -EPROTO;
	len = mnl_attr_get_payload_len(a);
	if (len % sizeof(s->kept[0]) || len / sizeof(s->kept[0]) > RC_KEPT_MAX)
		return -EPROTO;
	s->nkept = len / sizeof(s->kept[0]);
	memcpy(s->kept, mnl_attr_get_payload(a), len);
	s->has_kept = true;
	return 0;
}

static int get_service(const struct nlattr *nest, struct rc_service *s)
{
	const struct nlattr *tb[RINGSTEER_SERVICE_A_MAX + 1];
	int err;

	memset(s, 0, sizeof(*s));
	if (!nest || parse_nested(nest, tb, RINGSTEER_SERVICE_A_MAX))
		return -EPROTO;
	err = get_endpoint(tb[RINGSTEER_SERVICE_A_FAMILY], tb[RINGSTEER_SERVICE_A_ADDR],
			   tb[RINGSTEER_SERVICE_A_PORT], &s->vip);
	if (err || !len_is(tb[RINGSTEER_SERVICE_A_PROTO], 1))
		return -EPROTO;
	s->proto = mnl_attr_get_u8(tb[RINGSTEER_SERVICE_A_PROTO]);
	if (get_settings(tb, RC_OBJ_SERVICE, s) ||
	    get_u32(tb[RINGSTEER_SERVICE_A_BACKENDS], &s->nconfigured) ||
	    get_u32(tb[RINGSTEER_SERVICE_A_ACTIVE], &s->nactive) ||
	    get_u32(tb[RINGSTEER_SERVICE_A_POINTS], &s->points) ||
	    get_u64(tb[RINGSTEER_SERVICE_A_RING_BYTES], &s->ring_bytes) ||
	    get_u64(tb[RINGSTEER_SERVICE_A_FLOWS], &s->flows) ||
	    get_u64(tb[RINGSTEER_SERVICE_A_NO_BACKEND], &s->no_backend) ||
	    get_u32(tb[RINGSTEER_SERVICE_A_GENERATION], &s->generation) ||
	    get_u64(tb[RINGSTEER_SERVICE_A_FINGERPRINT], &s->fingerprint) ||
	    get_tunnel_stats(tb, s))
		return -EPROTO;
	s->has_fingerprint = tb[RINGSTEER_SERVICE_A_FINGERPRINT];
	return get_kept(tb, s);
}

/* The backend's slots (a copy, its to free), if the kernel reports them. */
static int get_slots(const struct nlattr *a, struct rc_backend *b)
{
	uint16_t len;

	if (!a)
		return 0;
	len = mnl_attr_get_payload_len(a);
	if (!len || len % sizeof(*b->slots) || len / sizeof(*b->slots) > RINGSTEER_MAX_WEIGHT)
		return -EPROTO;
	b->slots = malloc(len);
	if (!b->slots)
		return -ENOMEM;
	memcpy(b->slots, mnl_attr_get_payload(a), len);
	b->nslots = len / sizeof(*b->slots);
	return 0;
}

static int get_backend(const struct nlattr *nest, struct rc_backend *b)
{
	const struct nlattr *tb[RINGSTEER_BACKEND_A_MAX + 1];
	int err;

	memset(b, 0, sizeof(*b));
	if (!nest || parse_nested(nest, tb, RINGSTEER_BACKEND_A_MAX))
		return -EPROTO;
	err = get_endpoint(tb[RINGSTEER_BACKEND_A_FAMILY], tb[RINGSTEER_BACKEND_A_ADDR],
			   tb[RINGSTEER_BACKEND_A_PORT], &b->ep);
	if (err)
		return err;
	if (get_settings(tb, RC_OBJ_BACKEND, b) ||
	    get_u64(tb[RINGSTEER_BACKEND_A_FLOWS], &b->flows) ||
	    get_u64(tb[RINGSTEER_BACKEND_A_SHARE], &b->share) ||
	    get_u64(tb[RINGSTEER_BACKEND_A_CONNS_ESTABLISHED], &b->conns_established) ||
	    get_u64(tb[RINGSTEER_BACKEND_A_CONNS_OTHER], &b->conns_other) ||
	    get_u64(tb[RINGSTEER_BACKEND_A_CONNS_CLOSED], &b->conns_closed))
		return -EPROTO;
	b->has_conns = tb[RINGSTEER_BACKEND_A_CONNS_ESTABLISHED] &&
		       tb[RINGSTEER_BACKEND_A_CONNS_OTHER];
	return get_slots(tb[RINGSTEER_BACKEND_A_SLOTS], b);
}

/* Requests. */

static int simple(struct nl_conn *nl, uint8_t cmd, const struct rc_service *s,
		  bool settings, const struct rc_backend *b, uint32_t flags)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, cmd, 0);

	if (s)
		put_service_id(nlh, s, settings);
	if (b)
		put_backend(nlh, b);
	put_flags(nlh, flags);
	return nl_request(nl, nlh, NULL, NULL);
}

bool nl_no_wait;

/* The walk of a change's reply, or of a walked notification. */
static int walk_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	uint64_t walk = 0, *max = data;

	/* Unreadable: no walk to wait for, as from an older kernel. */
	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    get_u64(tb[RINGSTEER_A_WALK], &walk))
		return MNL_CB_OK;
	if (walk > *max)
		*max = walk;
	return MNL_CB_OK;
}

/*
 * Until the namespace's walk-done reaches WALK: read after joining the
 * walks group on a socket of its own (notifications would mix with the
 * replies of NL's), then again each second and after each notification,
 * so that one lost to a full buffer or to the kernel's memory only makes
 * the wait up to a second longer.
 */
int nl_walk_wait(struct nl_conn *nl, uint64_t walk)
{
	struct nl_conn ev;
	uint64_t seen = 0;
	struct rc_net n;
	int err;

	err = nl_open(&ev);
	if (err)
		return err;
	err = nl_join_walks(&ev);
	while (!err) {
		err = nl_net_get(nl, &n);
		if (err || n.walk_done >= walk)
			break;
		err = nl_readable(&ev, 1000);
		if (err > 0) {
			err = nl_read_events(&ev, walk_cb, &seen);
			/* Lost notifications: net-get tells. */
			err = err == -ENOBUFS || err >= 0 ? 0 : err;
		}
		if (!err && seen >= walk)
			break;
	}
	nl_close(&ev);
	return err;
}

/* A change that may delete conntrack entries, and with WAIT the wait. */
static int change(struct nl_conn *nl, uint8_t cmd, const struct rc_service *s,
		  const struct rc_backend *b, uint32_t flags, bool wait)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, cmd, 0);
	uint64_t walk = 0;
	int err;

	if (s)
		put_service_id(nlh, s, false);
	if (b)
		put_backend(nlh, b);
	put_flags(nlh, flags);
	err = nl_request(nl, nlh, walk_cb, &walk);
	if (err || !walk || !wait || nl_no_wait)
		return err;
	return nl_walk_wait(nl, walk);
}

static int deleting(struct nl_conn *nl, uint8_t cmd, const struct rc_service *s,
		    const struct rc_backend *b, uint32_t flags)
{
	return change(nl, cmd, s, b, flags, true);
}

int nl_service_new(struct nl_conn *nl, const struct rc_service *s)
{
	return simple(nl, RINGSTEER_CMD_SERVICE_NEW, s, true, NULL, 0);
}

int nl_service_set(struct nl_conn *nl, const struct rc_service *s)
{
	return simple(nl, RINGSTEER_CMD_SERVICE_SET, s, true, NULL, 0);
}

int nl_service_del(struct nl_conn *nl, const struct rc_service *s, uint32_t flags)
{
	return deleting(nl, RINGSTEER_CMD_SERVICE_DEL, s, NULL, flags);
}

/*
 * Health is the checker's: a backend read from the kernel and sent back
 * (restore, drain) must not carry the health it had then.
 */
static struct rc_backend without_health(const struct rc_backend *b)
{
	struct rc_backend c = *b;

	c.has &= ~RC_HAS_HEALTH;
	return c;
}

int nl_backend_new(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b)
{
	struct rc_backend c = without_health(b);

	return simple(nl, RINGSTEER_CMD_BACKEND_NEW, s, false, &c, 0);
}

int nl_backend_set(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b)
{
	struct rc_backend c = without_health(b);

	return simple(nl, RINGSTEER_CMD_BACKEND_SET, s, false, &c, 0);
}

static int mark(struct nl_conn *nl, const struct rc_service *s,
		const struct rc_backend *b, uint32_t health, bool force, bool wait)
{
	struct rc_backend c = without_health(b);

	c.health = health;
	c.has |= RC_HAS_HEALTH;
	return change(nl, RINGSTEER_CMD_BACKEND_SET, s, &c,
		      force ? RINGSTEER_F_FORCE : 0, wait);
}

int nl_backend_health(struct nl_conn *nl, const struct rc_service *s,
		      const struct rc_backend *b, uint32_t h, bool force)
{
	return mark(nl, s, b, h, force, false);
}

int nl_backend_mark(struct nl_conn *nl, const struct rc_service *s,
		    const struct rc_backend *b, uint32_t h, bool force)
{
	return mark(nl, s, b, h, force, true);
}

int nl_backend_del(struct nl_conn *nl, const struct rc_service *s,
		     const struct rc_backend *b, uint32_t flags)
{
	/* backend-del's policy takes the identity only: no weight or state. */
	struct rc_backend id = { .ep = b->ep };

	return deleting(nl, RINGSTEER_CMD_BACKEND_DEL, s, &id, flags);
}

int nl_flush(struct nl_conn *nl, uint32_t flags)
{
	return deleting(nl, RINGSTEER_CMD_FLUSH, NULL, NULL, flags);
}

struct reply {
	int err;
	bool seen;
	struct rc_service *s;
	struct rc_backend *b;
	struct rc_lookup *lookup;
	uint8_t *key;
	struct rc_config *c;
	struct rc_net *net;
};

/* The hops, addresses of the backend's family, none when absent. */
static int get_hops(const struct nlattr *a, struct rc_lookup *v)
{
	size_t alen = rc_addr_len(v->b.ep.family);
	const uint8_t *p;
	size_t i, len;

	v->nhops = 0;
	if (!a)
		return 0;
	len = mnl_attr_get_payload_len(a);
	if (len % alen || len / alen > RINGSTEER_MAX_CHAIN - 1)
		return -EPROTO;
	p = mnl_attr_get_payload(a);
	for (i = 0; i < len / alen; i++) {
		memset(&v->hops[i], 0, sizeof(v->hops[i]));
		v->hops[i].family = v->b.ep.family;
		memcpy(v->hops[i].addr, p + i * alen, alen);
	}
	v->nhops = len / alen;
	return 0;
}

static int get_lookup(const struct nlmsghdr *nlh, struct rc_lookup *v)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	struct rc_backend *b = &v->b;

	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    get_backend(tb[RINGSTEER_A_BACKEND], b) ||
	    !len_is(tb[RINGSTEER_A_POSITION], 8))
		return -EPROTO;
	/* A lookup names the backend: its slots are not kept. */
	free(b->slots);
	b->slots = NULL;
	b->nslots = 0;
	v->position = mnl_attr_get_u64(tb[RINGSTEER_A_POSITION]);
	return get_hops(tb[RINGSTEER_A_HOPS], v);
}

static int lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply *r = data;

	r->err = get_lookup(nlh, r->lookup);
	r->seen = !r->err;
	return MNL_CB_OK;
}

static struct nlmsghdr *put_lookup(struct nl_conn *nl, void *buf,
				   const struct rc_service *s,
				   const struct rc_endpoint *src)
{
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_LOOKUP, 0);
	struct nlattr *nest;

	put_service_id(nlh, s, false);
	nest = mnl_attr_nest_start(nlh, RINGSTEER_A_FLOW);
	mnl_attr_put(nlh, RINGSTEER_FLOW_A_ADDR, rc_addr_len(src->family), src->addr);
	mnl_attr_put_u16(nlh, RINGSTEER_FLOW_A_PORT, htons(src->port));
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

int nl_lookup(struct nl_conn *nl, const struct rc_service *s,
	      struct rc_lookup *v)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = put_lookup(nl, buf, s, &v->src);
	struct reply r = { .lookup = v };
	int err;

	err = nl_request(nl, nlh, lookup_cb, &r);
	if (err)
		return err;
	return r.err ? r.err : r.seen ? 0 : -EPROTO;
}

struct many {
	const struct rc_service *s;
	struct rc_lookup *v;
};

static void many_build(struct nl_conn *nl, void *buf, size_t i, void *data)
{
	struct many *m = data;

	put_lookup(nl, buf, m->s, &m->v[i].src);
}

static int many_reply(const struct nlmsghdr *nlh, size_t i, void *data)
{
	struct many *m = data;

	return get_lookup(nlh, &m->v[i]);
}

int nl_lookup_many(struct nl_conn *nl, const struct rc_service *s,
		     struct rc_lookup *v, size_t n, size_t *failed)
{
	struct many m = { s, v };

	return nl_pipeline(nl, n, many_build, many_reply, &m, failed);
}

static int key_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	struct reply *r = data;

	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    !len_is(tb[RINGSTEER_A_KEY], RINGSTEER_KEY_LEN)) {
		r->err = -EPROTO;
		return MNL_CB_OK;
	}
	memcpy(r->key, mnl_attr_get_payload(tb[RINGSTEER_A_KEY]), RINGSTEER_KEY_LEN);
	r->seen = true;
	return MNL_CB_OK;
}

int nl_key_get(struct nl_conn *nl, uint8_t key[RINGSTEER_KEY_LEN])
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_KEY_GET, 0);
	struct reply r = { .key = key };
	int err;

	err = nl_request(nl, nlh, key_cb, &r);
	if (err)
		return err;
	return r.err ? r.err : r.seen ? 0 : -EPROTO;
}

int nl_key_set(struct nl_conn *nl, const uint8_t key[RINGSTEER_KEY_LEN])
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_KEY_SET, 0);

	mnl_attr_put(nlh, RINGSTEER_A_KEY, RINGSTEER_KEY_LEN, key);
	return nl_request(nl, nlh, NULL, NULL);
}

static int net_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	const struct nlattr *nt[RINGSTEER_NET_A_MAX + 1];
	struct reply *r = data;
	struct rc_net *n = r->net;
	const struct nlattr *hooks;

	r->err = -EPROTO;
	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) || !tb[RINGSTEER_A_NET] ||
	    parse_nested(tb[RINGSTEER_A_NET], nt, RINGSTEER_NET_A_MAX))
		return MNL_CB_OK;
	hooks = nt[RINGSTEER_NET_A_HOOKS];
	if (!nt[RINGSTEER_NET_A_SERVICES] || !nt[RINGSTEER_NET_A_POINTS] ||
	    !nt[RINGSTEER_NET_A_POINTS_MAX] || !len_is(hooks, 1) ||
	    get_u32(nt[RINGSTEER_NET_A_SERVICES], &n->services) ||
	    get_u64(nt[RINGSTEER_NET_A_POINTS], &n->points) ||
	    get_u64(nt[RINGSTEER_NET_A_POINTS_MAX], &n->points_max) ||
	    get_u32(nt[RINGSTEER_NET_A_KEPT], &n->kept) ||
	    get_u32(nt[RINGSTEER_NET_A_GENERATION], &n->generation) ||
	    get_u32(nt[RINGSTEER_NET_A_BACKENDS], &n->backends) ||
	    get_u32(nt[RINGSTEER_NET_A_BACKENDS_MAX], &n->backends_max))
		return MNL_CB_OK;
	n->has_backends = nt[RINGSTEER_NET_A_BACKENDS] && nt[RINGSTEER_NET_A_BACKENDS_MAX];
	n->hooks = mnl_attr_get_u8(hooks);
	n->tunnel_hooks = len_is(nt[RINGSTEER_NET_A_TUNNEL_HOOKS], 1) &&
			  mnl_attr_get_u8(nt[RINGSTEER_NET_A_TUNNEL_HOOKS]);
	if (get_u32(nt[RINGSTEER_NET_A_FLOW_TABLE_ENTRIES], &n->flow_table_entries) ||
	    get_u64(nt[RINGSTEER_NET_A_UNSERVED_DROPS], &n->unserved_drops) ||
	    get_u64(nt[RINGSTEER_NET_A_WALK_DONE], &n->walk_done))
		return MNL_CB_OK;
	r->err = 0;
	r->seen = true;
	return MNL_CB_OK;
}

int nl_net_get(struct nl_conn *nl, struct rc_net *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_NET_GET, 0);
	struct reply r = { .net = n };
	int err;

	memset(n, 0, sizeof(*n));
	err = nl_request(nl, nlh, net_cb, &r);
	if (err)
		return err;
	return r.err ? r.err : r.seen ? 0 : -EPROTO;
}

/* Service replies: one (doit) into r->s, or each (dump) appended to r->c. */
static int service_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	struct reply *r = data;
	struct rc_service s;

	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    get_service(tb[RINGSTEER_A_SERVICE], &s)) {
		r->err = -EPROTO;
		return MNL_CB_OK;
	}
	if (r->c) {
		if (!rc_config_add_service(r->c, &s))
			r->err = -ENOMEM;
	} else {
		*r->s = s;
	}
	r->seen = true;
	return MNL_CB_OK;
}

int nl_service_get(struct nl_conn *nl, struct rc_service *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_SERVICE_GET, 0);
	struct rc_service got;
	struct reply r = { .s = &got };
	int err;

	put_service_id(nlh, s, false);
	err = nl_request(nl, nlh, service_cb, &r);
	if (err)
		return err;
	if (r.err || !r.seen)
		return r.err ? r.err : -EPROTO;
	got.line = s->line;
	rc_service_free(s);
	*s = got;
	return 0;
}

static int service_dump(struct nl_conn *nl, struct rc_config *c)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_SERVICE_GET,
					 NLM_F_DUMP);
	struct reply r = { .c = c };
	int err;

	err = nl_request(nl, nlh, service_cb, &r);
	return err ? err : r.err;
}

static int backend_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	struct reply *r = data;
	struct rc_backend b;

	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    get_backend(tb[RINGSTEER_A_BACKEND], &b)) {
		r->err = -EPROTO;
		return MNL_CB_OK;
	}
	if (!rc_service_add_backend(r->s, &b))
		r->err = -ENOMEM;
	free(b.slots);
	return MNL_CB_OK;
}

static int backend_dump(struct nl_conn *nl, struct rc_service *s)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_BACKEND_GET,
					 NLM_F_DUMP);
	struct reply r = { .s = s };
	int err;

	put_service_id(nlh, s, false);
	err = nl_request(nl, nlh, backend_cb, &r);
	return err ? err : r.err;
}

/* One attempt; -EAGAIN when the configuration changed under it. */
static int config_get_once(struct nl_conn *nl, struct rc_config *c,
			   const struct rc_service *one)
{
	uint32_t i;
	int err;

	if (one) {
		struct rc_service s = *one;

		s.b = NULL;
		s.nb = s.capb = 0;
		err = nl_service_get(nl, &s);
		if (err)
			return err;
		if (!rc_config_add_service(c, &s))
			return -ENOMEM;
	} else {
		err = service_dump(nl, c);
		if (err)
			return err;
		if (nl->dump_intr)
			return -EAGAIN;
	}
	for (i = 0; i < c->ns; i++) {
		err = backend_dump(nl, &c->s[i]);
		/* Deleted since the service dump: start over. */
		if (err == -ENOENT && !one)
			return -EAGAIN;
		if (err)
			return err;
		if (nl->dump_intr)
			return -EAGAIN;
	}
	return 0;
}

int nl_config_get(struct nl_conn *nl, struct rc_config *c,
		    const struct rc_service *one, bool with_key)
{
	int err = -EAGAIN, tries;

	memset(c, 0, sizeof(*c));
	for (tries = 0; tries < DUMP_RETRIES && err == -EAGAIN; tries++) {
		rc_config_free(c);
		err = config_get_once(nl, c, one);
	}
	if (!err && with_key) {
		err = nl_key_get(nl, c->key);
		c->has_key = !err;
	}
	if (err) {
		rc_config_free(c);
		return err;
	}
	rc_config_sort(c);
	return 0;
}

/*
 * Connection counts of a dump or doit reply, merged into the backends. A
 * backend added while the kernel counted comes without them: left
 * without counts (has_conns false), not taken for none.
 */
static int conns_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];
	struct reply *r = data;
	struct rc_backend b, *have;

	if (parse_msg(nlh, tb, RINGSTEER_A_MAX) ||
	    get_backend(tb[RINGSTEER_A_BACKEND], &b)) {
		r->err = -EPROTO;
		return MNL_CB_OK;
	}
	free(b.slots);
	have = r->b ? r->b : rc_service_find_backend(r->s, &b.ep);
	/* Added since the backend dump: the next reading shows it. */
	if (have && !rc_endpoint_cmp(&have->ep, &b.ep)) {
		have->has_conns = b.has_conns;
		have->conns_established = b.has_conns ? b.conns_established : 0;
		have->conns_other = b.has_conns ? b.conns_other : 0;
		have->conns_closed = b.has_conns ? b.conns_closed : 0;
	}
	r->seen = true;
	return MNL_CB_OK;
}

int nl_conns_get(struct nl_conn *nl, struct rc_service *s, struct rc_backend *b)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_msg(nl, buf, RINGSTEER_CMD_BACKEND_GET,
				      b ? 0 : NLM_F_DUMP);
	struct reply r = { .s = s, .b = b };
	int err;

	put_service_id(nlh, s, false);
	if (b)
		put_backend(nlh, &(struct rc_backend){ .ep = b->ep });
	put_flags(nlh, RINGSTEER_F_CONNS);
	err = nl_request(nl, nlh, conns_cb, &r);
	if (err)
		return err;
	return r.err ? r.err : (b && !r.seen) ? -EPROTO : 0;
}

int nl_config_conns(struct nl_conn *nl, struct rc_config *c)
{
	uint32_t i;
	int err;

	for (i = 0; i < c->ns; i++) {
		err = nl_conns_get(nl, &c->s[i], NULL);
		if (err)
			return err;
	}
	return 0;
}

void nl_event_free(struct rc_event *ev)
{
	free(ev->b.slots);
	ev->b.slots = NULL;
	ev->b.nslots = 0;
}

int nl_event_parse(const struct nlmsghdr *nlh, struct rc_event *ev)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RINGSTEER_A_MAX + 1];

	memset(ev, 0, sizeof(*ev));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN ||
	    parse_msg(nlh, tb, RINGSTEER_A_MAX))
		return -EPROTO;
	ev->cmd = genl->cmd;
	if (tb[RINGSTEER_A_SERVICE]) {
		if (get_service(tb[RINGSTEER_A_SERVICE], &ev->s))
			return -EPROTO;
		ev->has_service = true;
	}
	if (tb[RINGSTEER_A_BACKEND]) {
		if (get_backend(tb[RINGSTEER_A_BACKEND], &ev->b)) {
			nl_event_free(ev);
			return -EPROTO;
		}
		ev->has_backend = true;
	}
	return 0;
}
