// SPDX-License-Identifier: GPL-2.0
/*
 * The generator: requests for every command, mostly naming what the model
 * holds, a quarter with attributes dropped, renumbered, resized, repeated
 * or misplaced, some with bytes no attribute writer would produce.
 */

#include "fuzz.h"

/* What a request is about: a service or backend identity. */
struct target {
	uint16_t family;
	uint8_t addr[16];
	uint16_t port;
	uint8_t proto;
};

struct gen {
	struct fuzz *f;
	struct fz_rng *r;
	bool mut;	/* this request gets bad attributes */
	unsigned int known_be;	/* permille: target a backend the model has */
	bool mutated;
};

static bool gm(struct gen *g, unsigned int permille)
{
	if (!g->mut || !fz_chance(g->r, permille))
		return false;
	g->mutated = true;
	return true;
}

#define PICK(r, a) ((a)[fz_below(r, sizeof(a) / sizeof((a)[0]))])

/* One attribute, perhaps dropped, renumbered, flagged, resized or repeated. */
static void g_attr(struct gen *g, uint16_t type, const void *v, uint32_t n)
{
	static const uint8_t lens[] = { 0, 1, 2, 3, 5, 8, 15, 17, 20 };
	uint8_t junk[24];
	uint32_t i;

	if (gm(g, 25))
		return;
	if (gm(g, 20))
		type = fz_below(g->r, 16);
	if (gm(g, 5))
		type = NLA_TYPE_MASK - fz_below(g->r, 4);
	if (gm(g, 15))
		type |= NLA_F_NESTED;
	if (gm(g, 15))
		type |= NLA_F_NET_BYTEORDER;
	if (gm(g, 30)) {
		uint32_t m = PICK(g->r, lens);

		for (i = 0; i < m; i++)
			junk[i] = i < n ? ((const uint8_t *)v)[i] : fz_next(g->r);
		v = junk;
		n = m;
	}
	fz_attr(&g->f->req, type, v, n);
	if (gm(g, 20))
		fz_attr(&g->f->req, type, v, n);
}

static void g_u32(struct gen *g, uint16_t type, uint32_t v)
{
	g_attr(g, type, &v, 4);
}

static void pool_addr(struct target *t, uint16_t family, uint8_t net, uint32_t i)
{
	memset(t->addr, 0, 16);
	t->family = family;
	if (family == AF_INET) {
		t->addr[0] = 10;
		t->addr[2] = net;
		t->addr[3] = i;
	} else {
		t->addr[0] = 0xfd;
		t->addr[1] = net;
		t->addr[15] = i;
	}
}

/* A service: mostly one the model has, else one of the small pool. */
static struct m_svc *pick_svc(struct gen *g, struct target *t, unsigned int known)
{
	static const uint16_t ports[] = { 80, 65535 };
	struct fz_model *m = &g->f->m;
	struct m_svc *s;

	if (m->ns && fz_chance(g->r, known)) {
		s = &m->s[fz_below(g->r, m->ns)];
		t->family = s->family;
		memcpy(t->addr, s->addr, 16);
		t->port = s->port;
		t->proto = s->proto;
		return s;
	}
	pool_addr(t, fz_chance(g->r, 500) ? AF_INET : AF_INET6, 0, 1 + fz_below(g->r, 3));
	t->port = PICK(g->r, ports);
	t->proto = fz_chance(g->r, 500) ? IPPROTO_TCP : IPPROTO_UDP;
	return NULL;
}

static struct m_be *pick_be(struct gen *g, const struct target *svc,
			    struct m_svc *s, struct target *t, unsigned int known)
{
	static const uint16_t ports[] = { 8080, 1, 65535 };
	struct m_be *b;

	if (s && s->nb && fz_chance(g->r, known)) {
		b = &s->b[fz_below(g->r, s->nb)];
		t->family = s->family;
		memcpy(t->addr, b->addr, 16);
		t->port = b->port;
		return b;
	}
	/* The VIP itself: a backend may not be its own service. */
	if (fz_chance(g->r, 10)) {
		*t = *svc;
		return NULL;
	}
	pool_addr(t, fz_chance(g->r, 970) ? svc->family :
		  svc->family == AF_INET ? AF_INET6 : AF_INET, 1,
		  1 + fz_below(g->r, 12));
	t->port = PICK(g->r, ports);
	/* A tunnel service's backends have its port, but now and then. */
	if (s && FZ_SET(s, FORWARD) == RINGSTEER_FORWARD_TUNNEL && fz_chance(g->r, 900))
		t->port = svc->port;
	return NULL;
}

/* FAMILY, ADDR, PORT (and PROTO) of T, sometimes at a boundary. */
static void g_ep(struct gen *g, const struct target *t, bool service)
{
	static const uint16_t fams[] = { 0, 1, 3, AF_INET, AF_INET6, 0xffff };
	static const uint8_t lens[] = { 0, 4, 16, 17, 5, 15 };
	static const uint16_t ports[] = { 0, 1, 65535 };
	static const uint8_t protos[] = { 0, 1, IPPROTO_SCTP, 255, IPPROTO_TCP, IPPROTO_UDP };
	struct fz_rng *r = g->r;
	uint16_t fam = t->family, port = htons(t->port);
	uint8_t addr[17] = { 0 }, alen = fz_m_alen(t->family), proto = t->proto;
	uint32_t i;

	memcpy(addr, t->addr, 16);
	if (fz_chance(r, 15))
		fam = PICK(r, fams);
	if (fz_chance(r, 15)) {
		alen = PICK(r, lens);
		for (i = 0; i < alen; i++)
			addr[i] = fz_chance(r, 500) ? addr[i] : fz_next(r);
	}
	if (fz_chance(r, 10)) {
		static const uint8_t bad4[][4] = { { 0 }, { 224, 0, 0, 1 },
			{ 255, 255, 255, 255 }, { 239, 255, 255, 250 }, { 127, 0, 0, 1 },
			{ 127, 255, 9, 1 }, { 169, 254, 1, 1 } };
		static const uint8_t bad6[][16] = { { 0 }, { [15] = 1 },
			{ 0xff, 2, [15] = 1 }, { 0xfe, 0x80, [15] = 1 },
			{ 0xfe, 0xbf, [15] = 9 }, { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 } };

		memset(addr, 0, sizeof(addr));
		if (alen == 4)
			memcpy(addr, PICK(r, bad4), 4);
		else
			memcpy(addr, PICK(r, bad6), 16);
	}
	if (fz_chance(r, 15))
		port = htons(PICK(r, ports));
	if (fz_chance(r, 15))
		proto = PICK(r, protos);
	g_attr(g, RINGSTEER_SERVICE_A_FAMILY, &fam, 2);
	g_attr(g, RINGSTEER_SERVICE_A_ADDR, addr, alen);
	g_attr(g, RINGSTEER_SERVICE_A_PORT, &port, 2);
	if (service)
		g_attr(g, RINGSTEER_SERVICE_A_PROTO, &proto, 1);
}

/*
 * Vnodes or weight: small, or a boundary value. Accepted values that
 * would make S's ring larger than POINT_BUDGET become small: every ring
 * change costs time linear in its points, and TCG is slow.
 */
static uint32_t g_value(struct gen *g, bool vnodes, const struct m_svc *s,
			const struct m_be *b)
{
	static const uint32_t vb[] = { 0, 1, 1024, 4096, 4097, UINT32_MAX };
	static const uint32_t wb[] = { 0, 1, 1000, 1001, UINT32_MAX };
	uint32_t v = fz_chance(g->r, 30) ? (vnodes ? PICK(g->r, vb) : PICK(g->r, wb)) :
		     vnodes ? 1 + fz_below(g->r, fz_chance(g->r, 200) ? 512 : 32) :
		     1 + fz_below(g->r, 4);
	uint64_t pts;

	if (!s || !v || v > (vnodes ? RINGSTEER_MAX_VNODES : RINGSTEER_MAX_WEIGHT))
		return v;
	pts = vnodes ? fz_m_points(s, v) :
	      fz_m_points(s, FZ_SET(s, VNODES)) - (b && m_on_ring(b) ? FZ_SET(b, WEIGHT) * FZ_SET(s, VNODES) : 0) +
	      (uint64_t)v * FZ_SET(s, VNODES);
	/* Over the limit is fine: the kernel refuses before hashing. */
	return pts > POINT_BUDGET && pts <= RINGSTEER_MAX_POINTS ? 1 : v;
}

static void g_flags_attr(struct gen *g, unsigned int permille)
{
	/* Each flag alone, meant for one command or another; then junk. */
	static const uint32_t one[] = { 0, RINGSTEER_F_KEEP_FLOWS, RINGSTEER_F_CONNS,
					RINGSTEER_F_FORCE };
	static const uint32_t bad[] = { 3, 8, UINT32_MAX };

	if (fz_chance(g->r, permille))
		g_u32(g, RINGSTEER_A_FLAGS, fz_chance(g->r, 30) ? PICK(g->r, bad) :
			PICK(g->r, one));
}

/* Attributes placed where they do not belong. */
static void g_misplaced(struct gen *g, bool top)
{
	uint8_t junk[20];
	uint32_t n = fz_below(g->r, sizeof(junk) + 1), i;
	uint16_t type = 1 + fz_below(g->r, top ? 9 : 15);

	if (!gm(g, 60))
		return;
	for (i = 0; i < n; i++)
		junk[i] = fz_next(g->r);
	if (fz_chance(g->r, 300)) {
		uint32_t nest = fz_nest_start(&g->f->req, type | NLA_F_NESTED);

		g_attr(g, 1 + fz_below(g->r, 6), junk, n);
		fz_nest_end(&g->f->req, nest);
		return;
	}
	g_attr(g, type, junk, n);
}

/* FORWARD mostly as it is or tunnel, ENCAP and ENCAP_PORT now and then. */
static void g_forward(struct gen *g, const struct m_svc *s)
{
	static const uint16_t ports[] = { 6080, 0, 65535 };
	uint16_t port = htons(PICK(g->r, ports));

	if (fz_chance(g->r, 300))
		g_u32(g, RINGSTEER_SERVICE_A_FORWARD,
		      fz_chance(g->r, 30) ? 2 + fz_below(g->r, 3) :
		      s && fz_chance(g->r, 900) ? FZ_SET(s, FORWARD) : fz_below(g->r, 2));
	if (fz_chance(g->r, 200))
		g_u32(g, RINGSTEER_SERVICE_A_ENCAP,
		      fz_chance(g->r, 30) ? 2 + fz_below(g->r, 3) : fz_below(g->r, 2));
	if (fz_chance(g->r, 100))
		g_attr(g, RINGSTEER_SERVICE_A_ENCAP_PORT, &port, 2);
}

/*
 * A setting of ringctl's table with no generator of its own: one of its
 * words' values, now and then one past them; a number in its range, now
 * and then at or past a bound.
 */
static void g_setting(struct gen *g, const struct rc_setting *r)
{
	const uint32_t bounds[] = { 0, r->min, r->max, r->max + 1, UINT32_MAX };
	uint32_t n = r->names ? r->names->n : r->max - r->min + 1, v;
	uint16_t port;

	if (!n || n > 64)
		n = 64;

	if (fz_chance(g->r, 30))
		v = r->names ? n + fz_below(g->r, 3) : PICK(g->r, bounds);
	else
		v = (r->names ? 0 : r->min) + fz_below(g->r, n);
	if (r->type != RC_T_PORT)
		return g_u32(g, r->attr, v);
	port = htons(v);
	g_attr(g, r->attr, &port, 2);
}

/* Every setting of OBJ but those SPECIAL names, each with chance PERMILLE. */
static void g_settings(struct gen *g, enum rc_obj obj, uint32_t special, unsigned int permille)
{
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj == obj && !(special & B(i)) && fz_chance(g->r, permille))
			g_setting(g, &rc_settings[i]);
}

static void g_service(struct gen *g, const struct target *t, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_SERVICE | NLA_F_NESTED);

	g_ep(g, t, true);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 700))
			g_u32(g, RINGSTEER_SERVICE_A_VNODES, g_value(g, true, s, NULL));
		/*
		 * Those that bound the ring's size or how it forwards, apart;
		 * placement and capacity not yet: the model does not know a
		 * slots service's rules (a power-of-two capacity, backends
		 * that bring their slots).
		 */
		g_settings(g, RC_OBJ_SERVICE, B(RC_SET_VNODES) | B(RC_SET_FORWARD) |
			   B(RC_SET_ENCAP) | B(RC_SET_ENCAP_PORT) | B(RC_SET_PLACEMENT) |
			   B(RC_SET_CAPACITY), 300);
		g_forward(g, s);
	}
	g_misplaced(g, false);
	fz_nest_end(&g->f->req, nest);
}

static void g_backend(struct gen *g, const struct target *svc, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	struct target t;
	struct m_be *b = pick_be(g, svc, s, &t, g->known_be);
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_BACKEND | NLA_F_NESTED);

	g_ep(g, &t, false);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 600))
			g_u32(g, RINGSTEER_BACKEND_A_WEIGHT, g_value(g, false, s, b));
		/* health among them: backend-set's only, backend-new's policy refuses it. */
		g_settings(g, RC_OBJ_BACKEND, B(RC_SET_WEIGHT), 330);
	}
	g_misplaced(g, false);
	fz_nest_end(&g->f->req, nest);
}

static void g_flow(struct gen *g, const struct target *svc)
{
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_FLOW | NLA_F_NESTED);
	uint16_t port = htons(fz_chance(g->r, 20) ? 0 : 1 + fz_below(g->r, 65535));
	uint8_t addr[16];
	uint32_t i, n = fz_m_alen(svc->family);

	if (fz_chance(g->r, 20))
		n = n == 4 ? 16 : 4;
	for (i = 0; i < 16; i++)
		addr[i] = fz_next(g->r);
	g_attr(g, RINGSTEER_FLOW_A_ADDR, addr, n);
	g_attr(g, RINGSTEER_FLOW_A_PORT, &port, 2);
	fz_nest_end(&g->f->req, nest);
}

/* Three keys, so that setting the key often leaves it as it was. */
static void g_key(struct gen *g)
{
	uint8_t key[RINGSTEER_KEY_LEN + 1];
	uint32_t i, n = fz_chance(g->r, 30) ? 15 + 2 * fz_below(g->r, 2) : 16;
	uint8_t k = fz_below(g->r, 3);

	for (i = 0; i < sizeof(key); i++)
		key[i] = k * 17 + i;
	g_attr(g, RINGSTEER_A_KEY, key, n);
}

static uint16_t g_nlflags(struct gen *g, uint8_t cmd)
{
	static const uint16_t extra[] = { NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC,
					  NLM_F_APPEND, NLM_F_ECHO, NLM_F_MULTI };
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;

	if (fz_admin_cmd(cmd) ? fz_chance(g->r, 15) : fz_chance(g->r, 400))
		flags |= NLM_F_DUMP;
	if (fz_chance(g->r, 20))
		flags |= PICK(g->r, extra);
	if (fz_chance(g->r, 3))
		flags &= ~NLM_F_REQUEST;
	return flags;
}

/* Request CMD into f->req: the command's attributes, perhaps mangled. */
static void g_request(struct gen *g, uint8_t cmd, uint16_t flags)
{
	struct fuzz *f = g->f;
	bool dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	struct target t;
	struct m_svc *s = pick_svc(g, &t, cmd == RINGSTEER_CMD_SERVICE_NEW ? 150 : 800);
	uint8_t version = fz_chance(g->r, 10) ? fz_next(g->r) : RINGSTEER_GENL_VERSION;

	g->known_be = cmd == RINGSTEER_CMD_BACKEND_NEW ? 200 : 750;
	fz_begin(&f->req, f->family, flags, 0, cmd, version);
	switch (cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
	case RINGSTEER_CMD_SERVICE_SET:
		g_service(g, &t, s, true, 0);
		g_flags_attr(g, 10);
		break;
	case RINGSTEER_CMD_SERVICE_DEL:
		g_service(g, &t, s, false, 20);
		g_flags_attr(g, 500);
		break;
	case RINGSTEER_CMD_SERVICE_GET:
		if (!dump || fz_chance(g->r, 50))
			g_service(g, &t, s, false, 20);
		g_flags_attr(g, 10);
		break;
	case RINGSTEER_CMD_BACKEND_NEW:
	case RINGSTEER_CMD_BACKEND_SET:
		g_service(g, &t, s, false, 20);
		g_backend(g, &t, s, true, 0);
		/* SET's flag force: down even the last backend on the ring. */
		g_flags_attr(g, cmd == RINGSTEER_CMD_BACKEND_SET ? 200 : 10);
		break;
	case RINGSTEER_CMD_BACKEND_DEL:
	case RINGSTEER_CMD_BACKEND_GET:
		g_service(g, &t, s, false, 20);
		if (!dump || fz_chance(g->r, 50))
			g_backend(g, &t, s, false, 20);
		/* GET's flag conns: counted as root, EPERM as nobody. */
		g_flags_attr(g, cmd == RINGSTEER_CMD_BACKEND_DEL ? 500 : 150);
		break;
	case RINGSTEER_CMD_LOOKUP:
		g_service(g, &t, s, false, 20);
		g_flow(g, &t);
		break;
	case RINGSTEER_CMD_KEY_SET:
		g_key(g);
		break;
	case RINGSTEER_CMD_KEY_GET:
		if (fz_chance(g->r, 20))
			g_key(g);
		break;
	case RINGSTEER_CMD_FLUSH:
		g_flags_attr(g, 500);
		break;
	}
	g_misplaced(g, true);
	fz_end(&f->req);
}

/* Bytes the attribute writer would not produce. */
static void g_raw(struct gen *g)
{
	struct fz_buf *b = &g->f->req;
	struct fz_req q;
	uint32_t n, i;
	uint16_t v;

	switch (fz_below(g->r, 5)) {
	case 0:	/* truncated */
		b->len = NLMSG_HDRLEN + fz_below(g->r, b->len - NLMSG_HDRLEN);
		break;
	case 1:	/* a byte of the genetlink header or the attributes flipped */
		if (b->len > NLMSG_HDRLEN)
			b->p[NLMSG_HDRLEN + fz_below(g->r, b->len - NLMSG_HDRLEN)] ^=
				1 + fz_below(g->r, 255);
		break;
	case 2:	/* an attribute's length */
		fz_parse_request(&q, b->p, b->len, true);
		if (q.noffs) {
			v = fz_below(g->r, b->len + 8);
			memcpy(b->p + q.offs[fz_below(g->r, q.noffs)], &v, 2);
		}
		break;
	case 3:	/* trailing bytes */
		n = 1 + fz_below(g->r, 7);
		for (i = 0; i < n; i++)
			b->p[b->len++] = fz_next(g->r);
		break;
	default: /* oversized: one huge attribute */
		n = 1000 + fz_below(g->r, 30000);
		fz_attr_raw(b, fz_below(g->r, 8) | (fz_chance(g->r, 500) ? NLA_F_NESTED : 0),
			    NLA_HDRLEN + n, NULL, 0);
		memset(b->p + b->len, fz_next(g->r), n);
		b->len += n;
		fz_pad(b);
	}
	fz_end(b);
}

/* Command weights (per 10000) while the configuration grows / shrinks. */
static const uint16_t cmd_weights[][2] = {
	[0] = { 50, 50 },			/* the unused command 0 */
	[RINGSTEER_CMD_SERVICE_NEW] = { 900, 300 },
	[RINGSTEER_CMD_SERVICE_SET] = { 600, 600 },
	[RINGSTEER_CMD_SERVICE_DEL] = { 20, 250 },
	[RINGSTEER_CMD_SERVICE_GET] = { 700, 700 },
	[RINGSTEER_CMD_BACKEND_NEW] = { 2600, 1200 },
	[RINGSTEER_CMD_BACKEND_SET] = { 1600, 1600 },
	[RINGSTEER_CMD_BACKEND_DEL] = { 300, 1600 },
	[RINGSTEER_CMD_BACKEND_GET] = { 900, 900 },
	[RINGSTEER_CMD_LOOKUP] = { 900, 900 },
	[RINGSTEER_CMD_KEY_SET] = { 80, 80 },
	[RINGSTEER_CMD_KEY_GET] = { 200, 200 },
	/* Rare: a flush empties what took thousands of requests to build. */
	[RINGSTEER_CMD_FLUSH] = { 1, 1 },
	[RINGSTEER_CMD_NET_GET] = { 50, 50 },
	[__RINGSTEER_CMD_LAST] = { 50, 50 },	/* unknown commands */
};

static uint8_t g_cmd(struct gen *g)
{
	uint32_t total = 0, x, i, n = sizeof(cmd_weights) / sizeof(cmd_weights[0]);

	for (i = 0; i < n; i++)
		total += cmd_weights[i][!g->f->grow];
	x = fz_below(g->r, total);
	for (i = 0; i < n; i++) {
		if (x < cmd_weights[i][!g->f->grow])
			break;
		x -= cmd_weights[i][!g->f->grow];
	}
	if (i == __RINGSTEER_CMD_LAST)
		return __RINGSTEER_CMD_LAST + fz_below(g->r, 256 - __RINGSTEER_CMD_LAST);
	return i;
}

/* A random request in f->req. */
void fz_g_random(struct fuzz *f)
{
	struct gen g = { .f = f, .r = &f->rng };
	uint8_t cmd = g_cmd(&g);

	g.mut = fz_chance(g.r, 250);
	g_request(&g, cmd, g_nlflags(&g, cmd));
	f->st.attr_mutated += g.mutated;
	if (fz_chance(g.r, 60)) {
		g_raw(&g);
		f->st.raw_mutated++;
	}
}

/* A well-formed dump of CMD (of service S's backends). */
void fz_request_dump(struct fuzz *f, uint8_t cmd, const struct m_svc *s)
{
	struct gen g = { .f = f, .r = &f->rng };
	struct target t = { .family = s ? s->family : 0 };
	uint32_t nest;

	fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, 0, cmd,
		 RINGSTEER_GENL_VERSION);
	if (s) {
		memcpy(t.addr, s->addr, 16);
		t.port = s->port;
		t.proto = s->proto;
		nest = fz_nest_start(&f->req, RINGSTEER_A_SERVICE | NLA_F_NESTED);
		g_attr(&g, RINGSTEER_SERVICE_A_FAMILY, &t.family, 2);
		g_attr(&g, RINGSTEER_SERVICE_A_ADDR, t.addr, fz_m_alen(t.family));
		t.port = htons(t.port);
		g_attr(&g, RINGSTEER_SERVICE_A_PORT, &t.port, 2);
		g_attr(&g, RINGSTEER_SERVICE_A_PROTO, &t.proto, 1);
		fz_nest_end(&f->req, nest);
	}
	fz_end(&f->req);
}
