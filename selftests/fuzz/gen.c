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
	uint8_t cmd;
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
	uint64_t pts, per;

	if (!s || !v || v > (vnodes ? RINGSTEER_MAX_VNODES : RINGSTEER_MAX_WEIGHT))
		return v;
	per = m_vnodes(s, FZ_SET(s, VNODES));
	pts = vnodes ? fz_m_points(s, v) :
	      fz_m_points(s, per) - (b && m_on_ring(b) ? FZ_SET(b, WEIGHT) * per : 0) + v * per;
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

/*
 * A capacity: a power of two, mostly up to 256 (every change of a slots
 * service rebuilds its table whole, TCG is slow), now and then none or
 * past the maximum. Of an existing slots service S, often half, the same
 * or double its own: half refused while a slot above it is held (ERANGE).
 */
static uint32_t g_capacity(struct gen *g, const struct m_svc *s)
{
	static const uint32_t bad[] = { 0, 1, 3, 96, 65535, 65537, 131072, UINT32_MAX };
	uint32_t bits = 1 + fz_below(g->r, fz_chance(g->r, 800) ? 8 : 16);

	if (fz_chance(g->r, 60))
		return PICK(g->r, bad);
	if (s && m_slots(s) && fz_chance(g->r, 300))
		return FZ_SET(s, CAPACITY) >> (fz_chance(g->r, 500) ? 1 : 0) << fz_below(g->r, 2);
	return 1U << bits;
}

/*
 * PLACEMENT and CAPACITY: a third of new services placement slots, most
 * of them with a capacity; a set mostly repeats the placement, now and
 * then switches it (always refused) or gives one past the enum. A
 * capacity now and then on a ring service (EINVAL).
 */
static void g_placement(struct gen *g, const struct m_svc *s, bool new)
{
	uint32_t placement = s && !new ? FZ_SET(s, PLACEMENT) : RINGSTEER_PLACEMENT_RING;

	if (fz_chance(g->r, new ? 350 : 60)) {
		if (new)
			placement = RINGSTEER_PLACEMENT_SLOTS;
		else if (fz_chance(g->r, 300))
			placement = !placement;
		g_u32(g, RINGSTEER_SERVICE_A_PLACEMENT, fz_chance(g->r, 20) ?
		      RINGSTEER_PLACEMENT_MAX + 1 + fz_below(g->r, 3) : placement);
	}
	if (placement == RINGSTEER_PLACEMENT_SLOTS ? fz_chance(g->r, new ? 700 : 150) :
	    fz_chance(g->r, 10))
		g_u32(g, RINGSTEER_SERVICE_A_CAPACITY, g_capacity(g, s));
}

static void g_service(struct gen *g, const struct target *t, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_SERVICE | NLA_F_NESTED);

	g_ep(g, t, true);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 700))
			g_u32(g, RINGSTEER_SERVICE_A_VNODES, g_value(g, true, s, NULL));
		/* Those that bound the ring's size or how it forwards, apart. */
		g_settings(g, RC_OBJ_SERVICE, B(RC_SET_VNODES) | B(RC_SET_FORWARD) |
			   B(RC_SET_ENCAP) | B(RC_SET_ENCAP_PORT) | B(RC_SET_PLACEMENT) |
			   B(RC_SET_CAPACITY), 300);
		g_forward(g, s);
		g_placement(g, s, g->cmd == RINGSTEER_CMD_SERVICE_NEW);
		/* Kept rings equal to the current one, now and then (chain_kept.c). */
		if (fz_chance(g->r, 30)) {
			g_u32(g, RINGSTEER_SERVICE_A_KEPT_RINGS, fz_below(g->r, RINGSTEER_MAX_CHAIN));
			if (fz_chance(g->r, 900))
				g_attr(g, RINGSTEER_SERVICE_A_KEPT, NULL, 0);
		}
	}
	g_misplaced(g, false);
	fz_nest_end(&g->f->req, nest);
}

/*
 * N slots of slots service S for backend B (NULL: a new one) into V, in
 * random order: B's own, now and then, then free ones (held by no other
 * backend) from a random start with an odd stride, which visits every
 * slot of a power-of-two space once. Past the free ones, slots past the
 * capacity (ERANGE).
 */
static void g_free_slots(struct gen *g, const struct m_svc *s, const struct m_be *b,
			 uint16_t *v, uint32_t n)
{
	static uint8_t taken[RINGSTEER_MAX_CAPACITY / 8];
	uint32_t cap = FZ_SET(s, CAPACITY), x = fz_below(g->r, cap);
	uint32_t step = 2 * fz_below(g->r, cap / 2) + 1, i, j, k = 0;
	bool own = b && fz_chance(g->r, 500);

	memset(taken, 0, (cap + 7) / 8);
	for (i = 0; i < s->nb; i++)
		for (j = 0; j < s->b[i].nslots; j++)
			taken[s->b[i].slots[j] / 8] |= 1U << (s->b[i].slots[j] % 8);
	/* Its own are taken too, but may be given again. */
	for (j = 0; own && j < b->nslots && k < n; j++)
		v[k++] = b->slots[j];
	for (i = 0; i < cap && k < n; i++, x = (x + step) & (cap - 1))
		if (!(taken[x / 8] & (1U << (x % 8))))
			v[k++] = x;
	for (i = 0; k < n; i++)
		v[k++] = cap + i < 65536 ? cap + i : 65535;
	/* In any order: the kernel sorts them. */
	for (i = n - 1; i > 0; i--) {
		j = fz_below(g->r, i + 1);
		x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

/*
 * SLOTS of a backend request in S for B: on a ring service now and then
 * (EINVAL); on a slots service mostly, as many as the weight sent (W, or
 * -1), else one to four, now and then one too many or few. A few are
 * bad: one repeated, one past the capacity, one another backend holds,
 * none, an odd length, more than max-weight.
 */
static void g_slots(struct gen *g, const struct m_svc *s, const struct m_be *b, int64_t w)
{
	static uint16_t v[RINGSTEER_MAX_WEIGHT + 2];
	uint32_t n, len, i, j;

	if (!s || !m_slots(s)) {
		if (!fz_chance(g->r, 20))
			return;
		n = 1 + fz_below(g->r, 3);
		for (i = 0; i < n; i++)
			v[i] = fz_below(g->r, 8);
		g_attr(g, RINGSTEER_BACKEND_A_SLOTS, v, 2 * n);
		return;
	}
	/* A new backend must bring them; a set without them keeps its own. */
	if (!fz_chance(g->r, g->cmd == RINGSTEER_CMD_BACKEND_NEW ? 950 : w >= 0 ? 800 : 400))
		return;
	n = w > 0 && w <= RINGSTEER_MAX_WEIGHT && fz_chance(g->r, 900) ? w :
	    1 + fz_below(g->r, 4);
	if (fz_chance(g->r, 30))
		n += n > 1 && fz_chance(g->r, 500) ? -1 : 1;
	g_free_slots(g, s, b, v, n);
	len = 2 * n;
	switch (fz_chance(g->r, 150) ? fz_below(g->r, 6) : 6) {
	case 0:	/* one repeated */
		v[fz_below(g->r, n)] = v[fz_below(g->r, n)];
		if (n == 1)
			v[n++] = v[0], len += 2;
		break;
	case 1:	/* one past the capacity */
		if (FZ_SET(s, CAPACITY) < 65536)
			v[fz_below(g->r, n)] = FZ_SET(s, CAPACITY) +
				fz_below(g->r, 65536 - FZ_SET(s, CAPACITY));
		break;
	case 2:	/* one another backend holds */
		i = fz_below(g->r, s->nb + 1);
		if (i < s->nb && &s->b[i] != b && s->b[i].nslots)
			v[fz_below(g->r, n)] = s->b[i].slots[fz_below(g->r, s->b[i].nslots)];
		break;
	case 3:
		len = 0;
		break;
	case 4:
		len = 2 * n - 1;
		break;
	case 5:	/* more than max-weight */
		for (j = 0; j <= RINGSTEER_MAX_WEIGHT; j++)
			v[j] = j;
		len = 2 * (RINGSTEER_MAX_WEIGHT + 1);
		break;
	}
	g_attr(g, RINGSTEER_BACKEND_A_SLOTS, v, len);
}

static void g_backend(struct gen *g, const struct target *svc, struct m_svc *s,
		      bool conf, unsigned int conf_permille)
{
	struct target t;
	struct m_be *b = pick_be(g, svc, s, &t, g->known_be);
	uint32_t nest = fz_nest_start(&g->f->req, RINGSTEER_A_BACKEND | NLA_F_NESTED);
	int64_t w = -1;

	g_ep(g, &t, false);
	if (conf || fz_chance(g->r, conf_permille)) {
		if (fz_chance(g->r, 600)) {
			w = g_value(g, false, s, b);
			g_u32(g, RINGSTEER_BACKEND_A_WEIGHT, w);
		}
		/* health among them: backend-set's only, backend-new's policy refuses it. */
		g_settings(g, RC_OBJ_BACKEND, B(RC_SET_WEIGHT), 330);
		g_slots(g, s, b, w);
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

/*
 * A chain nest: a port (now and then 0 or none), a last-resort and a
 * max-hops in their ranges mostly, at their edges and past them now and
 * then.
 */
static void g_chain(struct gen *g)
{
	static const uint16_t ports[] = { 6080, 19523, 1, 65535 };
	struct fz_buf *b = &g->f->req;
	uint32_t nest = fz_nest_start(b, RINGSTEER_A_CHAIN);
	uint16_t port = fz_chance(g->r, 30) ? 0 : htons(PICK(g->r, ports));
	uint8_t v;

	if (!fz_chance(g->r, 30))
		g_attr(g, RINGSTEER_CHAIN_A_PORT, &port, sizeof(port));
	if (fz_chance(g->r, 400)) {
		v = fz_chance(g->r, 50) ? 2 + fz_below(g->r, 254) : fz_below(g->r, 2);
		g_attr(g, RINGSTEER_CHAIN_A_LAST_RESORT, &v, 1);
	}
	if (fz_chance(g->r, 400)) {
		v = fz_chance(g->r, 80) ? fz_below(g->r, 256) : 1 + fz_below(g->r, 7);
		g_attr(g, RINGSTEER_CHAIN_A_MAX_HOPS, &v, 1);
	}
	g_misplaced(g, false);
	fz_nest_end(b, nest);
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
	g->cmd = cmd;
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
	case RINGSTEER_CMD_CHAIN_SET:
		if (!fz_chance(g->r, 20))
			g_chain(g);
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
	[RINGSTEER_CMD_CHAIN_SET] = { 60, 60 },
	[RINGSTEER_CMD_CHAIN_DEL] = { 15, 15 },
	[RINGSTEER_CMD_CHAIN_GET] = { 50, 50 },
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
