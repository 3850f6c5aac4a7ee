// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's model of one namespace's configuration: what the uapi
 * header says services, backends and the key become after each acked
 * change, and which errnos a request may get.
 */

#include "fuzz.h"
#include "settings.h"

uint8_t fz_m_alen(uint16_t family)
{
	return family == AF_INET ? 4 : 16;
}

/*
 * The settings of OBJ (rows of ringctl's settings table) in SET: the
 * request E's where it gives one its OPS take, else OLD's (NULL: the
 * table's default). Returns whether one changed, leaving out WEAK (a row
 * whose change alone publishes no ring: see fz_m_apply()).
 */
static bool m_take(uint32_t *set, const uint32_t *old, enum rc_obj obj, unsigned int ops,
		   const struct fz_ep *e, int weak)
{
	const struct rc_setting *r;
	bool changed = false;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj != obj)
			continue;
		set[i] = old ? old[i] : r->def;
		if (!(r->ops & ops) || !(e->present & B(r->attr)) || set[i] == e->set[i])
			continue;
		set[i] = e->set[i];
		changed |= (int)i != weak;
	}
	return changed;
}

static bool usable(uint16_t family, const uint8_t *a)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };

	/*
	 * As the uapi's "Addresses" reads: unspecified (0.0.0.0 alone, as
	 * ipv4_is_zeronet() since Linux 5.3, or ::), loopback (127/8, ::1),
	 * link-local (169.254/16, fe80::/10), multicast (224/4, ff00::/8),
	 * the limited broadcast and IPv4-mapped IPv6 (::ffff:0:0/96) are
	 * refused.
	 */
	if (family == AF_INET)
		return memcmp(a, zero, 4) && a[0] != 127 && (a[0] != 169 || a[1] != 254) &&
		       (a[0] & 0xf0) != 0xe0 && memcmp(a, "\xff\xff\xff\xff", 4);
	return memcmp(a, zero, 16) && (memcmp(a, zero, 15) || a[15] != 1) &&
	       (a[0] != 0xfe || (a[1] & 0xc0) != 0x80) && a[0] != 0xff &&
	       memcmp(a, mapped, sizeof(mapped));
}

struct m_svc *fz_m_find_svc(struct fz_model *m, const struct fz_ep *e)
{
	uint32_t i;

	for (i = 0; i < m->ns; i++) {
		struct m_svc *s = &m->s[i];

		if (s->family == e->family && s->port == e->port &&
		    s->proto == e->proto && !memcmp(s->addr, e->addr, 16))
			return s;
	}
	return NULL;
}

struct m_be *fz_m_find_be(const struct m_svc *s, const struct fz_ep *e)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->b[i].port == e->port && !memcmp(s->b[i].addr, e->addr, 16))
			return &s->b[i];
	return NULL;
}

uint64_t fz_m_points(const struct m_svc *s, uint32_t vnodes)
{
	uint64_t n = 0;
	uint32_t i;

	vnodes = m_vnodes(s, vnodes);
	for (i = 0; i < s->nb; i++)
		if (m_on_ring(&s->b[i]))
			n += (uint64_t)FZ_SET(&s->b[i], WEIGHT) * vnodes;
	return n;
}

uint32_t fz_m_active(const struct m_svc *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->nb; i++)
		n += m_on_ring(&s->b[i]);
	return n;
}

bool fz_m_held(const struct m_svc *s, const struct m_be *b, uint32_t slot)
{
	uint32_t i, j;

	for (i = 0; i < s->nb; i++) {
		if (&s->b[i] == b)
			continue;
		for (j = 0; j < s->b[i].nslots; j++)
			if (s->b[i].slots[j] == slot)
				return true;
	}
	return false;
}

static void m_free_backends(struct m_svc *s)
{
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		free(s->b[i].slots);
	free(s->b);
}

void fz_m_free(struct fz_model *m)
{
	uint32_t i;

	for (i = 0; i < m->ns; i++)
		m_free_backends(&m->s[i]);
	m->ns = 0;
}

/* N slots (at least one) into B, copied from V. */
static void m_put_slots(struct m_be *b, const uint16_t *v, uint32_t n)
{
	b->slots = malloc((n + 1) * sizeof(*v));
	if (!b->slots)
		abort();
	memcpy(b->slots, v, n * sizeof(*v));
	b->nslots = n;
}

void fz_m_copy(struct fz_model *dst, const struct fz_model *src)
{
	uint32_t i, j;

	fz_m_free(dst);
	*dst = *src;
	for (i = 0; i < src->ns; i++) {
		dst->s[i].cap = src->s[i].nb;
		dst->s[i].b = malloc((src->s[i].nb + 1) * sizeof(struct m_be));
		if (!dst->s[i].b)
			abort();
		memcpy(dst->s[i].b, src->s[i].b, src->s[i].nb * sizeof(struct m_be));
		for (j = 0; j < src->s[i].nb; j++)
			if (src->s[i].b[j].slots)
				m_put_slots(&dst->s[i].b[j], src->s[i].b[j].slots,
					    src->s[i].b[j].nslots);
	}
}

/*
 * Errnos an endpoint nest's own values allow (uapi "Errors"). A family or
 * protocol outside the documented ones may also be refused by a policy
 * (EINVAL), as selftests/netlink_errors.sh accepts too.
 */
static uint32_t ep_errs(const struct fz_ep *e, bool service)
{
	uint32_t err = 0;

	if ((e->present & BE_ID) != BE_ID)
		err |= FZ_EINVAL;
	if (e->present & B(RINGSTEER_SERVICE_A_FAMILY)) {
		if (e->family != AF_INET && e->family != AF_INET6)
			err |= FZ_EAFNOSUPPORT | FZ_POLICY;
		else if ((e->present & B(RINGSTEER_SERVICE_A_ADDR)) &&
			 (e->alen != fz_m_alen(e->family) || !usable(e->family, e->addr)))
			err |= FZ_EINVAL;
	}
	if ((e->present & B(RINGSTEER_SERVICE_A_PORT)) && !e->port)
		err |= FZ_EINVAL;
	if (!service)
		return err;
	if (!(e->present & B(RINGSTEER_SERVICE_A_PROTO)))
		err |= FZ_EINVAL;
	else if (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP)
		err |= FZ_EPROTONOSUPPORT | FZ_POLICY;
	return err;
}

static int cmp_slot(const void *a, const void *b)
{
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

/* E's slots, sorted, into V; returns how many. */
static uint32_t sorted_slots(const struct fz_ep *e, uint16_t *v)
{
	uint32_t n = fz_nslots(e);

	memcpy(v, e->slots, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_slot);
	return n;
}

/*
 * The slots attribute's own length (uapi backend slots), read with the
 * backend's settings for any placement: none or an odd length EINVAL,
 * more numbers than max-weight ERANGE.
 */
static uint32_t slots_len_errs(const struct fz_ep *e)
{
	if (!(e->present & B(RINGSTEER_BACKEND_A_SLOTS)))
		return 0;
	if (!e->slots_len || e->slots_len % 2)
		return FZ_EINVAL;
	return e->slots_len / 2 > RINGSTEER_MAX_WEIGHT ? FZ_ERANGE : 0;
}

/* The weight backend B (NULL: a new one) has after request E. */
static uint32_t req_weight(const struct fz_ep *e, const struct m_be *b)
{
	if (e->present & B(RINGSTEER_BACKEND_A_WEIGHT))
		return FZ_SET(e, WEIGHT);
	/* Slots without weight set it to their count. */
	if ((e->present & B(RINGSTEER_BACKEND_A_SLOTS)) && !slots_len_errs(e))
		return e->slots_len / 2;
	return b ? FZ_SET(b, WEIGHT) : 1;
}

/*
 * Backend B of S (NULL: a new one) is to hold E's slots, or keep its own,
 * with weight W (kmod/placement.c, rs_slots_prepare()). Slots are refused
 * on a ring service; a slots service's new backend must bring them, and
 * a weight that is not its count of slots needs new ones. The slots are
 * judged in the kernel's order, so the errno is exact: sorted, the first
 * that is past the capacity (ERANGE) or repeats the one before (EEXIST:
 * slots past the capacity sort last, so a repeat among them is ERANGE),
 * then one another backend holds, draining and down ones included
 * (EEXIST), then a count other than W (EINVAL).
 */
static uint32_t slots_errs(const struct m_svc *s, const struct m_be *b,
			   const struct fz_ep *e, uint32_t w)
{
	bool given = e->present & B(RINGSTEER_BACKEND_A_SLOTS);
	uint32_t cap = FZ_SET(s, CAPACITY), n, i;
	uint16_t v[RINGSTEER_MAX_WEIGHT];

	if (!m_slots(s))
		return given ? FZ_EINVAL : 0;
	if (!given)
		return b && w == b->nslots ? 0 : FZ_EINVAL;
	/* Refused for its length already (slots_len_errs()). */
	if (slots_len_errs(e))
		return 0;
	n = sorted_slots(e, v);
	for (i = 0; i < n; i++) {
		if (v[i] >= cap)
			return FZ_ERANGE;
		if (i && v[i] == v[i - 1])
			return FZ_EEXIST;
	}
	for (i = 0; i < n; i++)
		if (fz_m_held(s, b, v[i]))
			return FZ_EEXIST;
	return n == w ? 0 : FZ_EINVAL;
}

/*
 * A backend request's errnos in S, in the order kmod/commit.c checks
 * them; the ring's points are charged last.
 */
static uint32_t predict_backend(const struct m_svc *s, const struct fz_req *q)
{
	const struct fz_ep *e = &q->be;
	const struct m_be *b = fz_m_find_be(s, e);
	uint32_t w = req_weight(e, b), v = m_vnodes(s, FZ_SET(s, VNODES));
	uint32_t st = e->present & B(RINGSTEER_BACKEND_A_STATE) ? FZ_SET(e, STATE) : 0;
	uint32_t h, err;
	uint64_t pts = fz_m_points(s, FZ_SET(s, VNODES));

	switch (q->cmd) {
	case RINGSTEER_CMD_BACKEND_NEW:
		if (b)
			return FZ_EEXIST;
		if (s->nb >= RINGSTEER_MAX_BACKENDS)
			return FZ_E2BIG;
		err = slots_errs(s, NULL, e, w);
		if (!err && st == RINGSTEER_STATE_ACTIVE &&
		    pts + (uint64_t)w * v > RINGSTEER_MAX_POINTS)
			err = FZ_E2BIG;
		return err;
	case RINGSTEER_CMD_BACKEND_SET:
		if (!b)
			return FZ_ENOENT;
		if (!(e->present & (fz_settings_mask(RC_OBJ_BACKEND, false) |
				    B(RINGSTEER_BACKEND_A_SLOTS))))
			return FZ_EINVAL;
		err = slots_errs(s, b, e, w);
		if (err)
			return err;
		st = e->present & B(RINGSTEER_BACKEND_A_STATE) ? FZ_SET(e, STATE) : FZ_SET(b, STATE);
		h = e->present & B(RINGSTEER_BACKEND_A_HEALTH) ? FZ_SET(e, HEALTH) : FZ_SET(b, HEALTH);
		/* The last backend on the ring goes down only with force. */
		if (h == RINGSTEER_HEALTH_DOWN && m_on_ring(b) && fz_m_active(s) == 1 &&
		    !(q->flags & RINGSTEER_F_FORCE))
			return FZ_EBUSY;
		if (m_on_ring(b))
			pts -= (uint64_t)FZ_SET(b, WEIGHT) * v;
		if (st == RINGSTEER_STATE_ACTIVE && h == RINGSTEER_HEALTH_UP &&
		    pts + (uint64_t)w * v > RINGSTEER_MAX_POINTS)
			return FZ_E2BIG;
		return 0;
	}
	return b ? 0 : FZ_ENOENT;
}

/*
 * FORWARD, ENCAP and ENCAP_PORT of a service-new (@s NULL) or service-set
 * of @s (uapi service-new, service-set): encap only with forward tunnel, a
 * port only with encap gue and never 0, forward never changed.
 */
static uint32_t fwd_errs(const struct m_svc *s, const struct fz_ep *e)
{
	uint32_t mode = s ? FZ_SET(s, FORWARD) : RINGSTEER_FORWARD_NAT;
	uint32_t encap = s ? FZ_SET(s, ENCAP) : RINGSTEER_ENCAP_IPIP;
	uint32_t err = 0;

	if (e->present & B(RINGSTEER_SERVICE_A_FORWARD)) {
		if (s && FZ_SET(e, FORWARD) != FZ_SET(s, FORWARD))
			err |= FZ_EINVAL;
		mode = FZ_SET(e, FORWARD);
	}
	if ((e->present & (B(RINGSTEER_SERVICE_A_ENCAP) | B(RINGSTEER_SERVICE_A_ENCAP_PORT))) &&
	    mode != RINGSTEER_FORWARD_TUNNEL)
		err |= FZ_EINVAL;
	if (e->present & B(RINGSTEER_SERVICE_A_ENCAP))
		encap = FZ_SET(e, ENCAP);
	if ((e->present & B(RINGSTEER_SERVICE_A_ENCAP_PORT)) &&
	    (encap != RINGSTEER_ENCAP_GUE || !FZ_SET(e, ENCAP_PORT)))
		err |= FZ_EINVAL;
	return err;
}

/* The highest slot a backend of S holds, or -1. */
static int64_t max_slot(const struct m_svc *s)
{
	int64_t top = -1;
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (s->b[i].nslots && s->b[i].slots[s->b[i].nslots - 1] > top)
			top = s->b[i].slots[s->b[i].nslots - 1];
	return top;
}

/*
 * PLACEMENT and CAPACITY of a service-new (@s NULL) or service-set of @s
 * (uapi service placement, capacity; kmod/conf.c): placement never
 * changed, capacity only with placement slots, vnodes only without it,
 * capacity a power of two up to max-capacity (ERANGE; the policy holds
 * only the minimum, as 6.1's cannot hold the maximum), and never below a
 * slot a backend holds (ERANGE, kmod/placement.c, checked only once the
 * settings parse).
 */
static uint32_t placement_errs(const struct m_svc *s, const struct fz_ep *e)
{
	uint32_t placement = s ? FZ_SET(s, PLACEMENT) : RINGSTEER_PLACEMENT_RING;
	uint32_t cap = FZ_SET(e, CAPACITY), err = 0;

	if (e->present & B(RINGSTEER_SERVICE_A_PLACEMENT)) {
		if (s && FZ_SET(e, PLACEMENT) != placement)
			err |= FZ_EINVAL;
		placement = FZ_SET(e, PLACEMENT);
	}
	if ((e->present & B(RINGSTEER_SERVICE_A_VNODES)) &&
	    placement == RINGSTEER_PLACEMENT_SLOTS)
		err |= FZ_EINVAL;
	if (!(e->present & B(RINGSTEER_SERVICE_A_CAPACITY)))
		return err;
	if (placement != RINGSTEER_PLACEMENT_SLOTS)
		return err | FZ_EINVAL;
	if (cap > RINGSTEER_MAX_CAPACITY || (cap & (cap - 1)))
		return err | FZ_ERANGE;
	if (s && (int64_t)cap <= max_slot(s))
		err |= FZ_ERANGE;
	return err;
}

/* @e's value of service setting @row if it gives it, else @s's, else the default. */
static uint32_t m_given(const struct m_svc *s, const struct fz_ep *e, unsigned int row)
{
	if (e->present & B(rc_settings[row].attr))
		return e->set[row];
	return s ? s->set[row] : rc_settings[row].def;
}

/*
 * CHAIN of a service-new (@s NULL) or service-set of @s (uapi service
 * chain; kmod/conf.c): on the settings the request leaves, chain above 1
 * needs forward tunnel with encap gue (EINVAL), and placement ring
 * (EOPNOTSUPP).
 */
static uint32_t chain_errs(const struct m_svc *s, const struct fz_ep *e)
{
	uint64_t kept = B(RINGSTEER_SERVICE_A_KEPT_RINGS) | B(RINGSTEER_SERVICE_A_KEPT);
	uint32_t err = 0;

	/*
	 * Kept rings (chain_kept.c): by service-set only, kept-rings with
	 * kept, at most chain - 1 of them. The generator sends no records.
	 */
	if ((e->present & kept) && (!s || !(e->present & B(RINGSTEER_SERVICE_A_KEPT_RINGS)) ||
				    !(e->present & B(RINGSTEER_SERVICE_A_KEPT)) ||
				    m_given(s, e, RC_SET_CHAIN) < 2 ||
				    e->kept_rings >= m_given(s, e, RC_SET_CHAIN) ||
				    e->kept_len % sizeof(struct ringsteer_kept_member)))
		err |= FZ_EINVAL;
	if (m_given(s, e, RC_SET_CHAIN) < 2)
		return err;
	if (m_given(s, e, RC_SET_FORWARD) != RINGSTEER_FORWARD_TUNNEL ||
	    m_given(s, e, RC_SET_ENCAP) != RINGSTEER_ENCAP_GUE)
		return err | FZ_EINVAL;
	if (m_given(s, e, RC_SET_PLACEMENT) == RINGSTEER_PLACEMENT_SLOTS)
		return err | FZ_EOPNOTSUPP;
	return err;
}

/*
 * Errnos the request may get in the model's state; 0: it must succeed.
 * A superset where the kernel's order of checks decides which one comes.
 */
uint32_t fz_m_predict(struct fz_model *m, const struct fz_req *q)
{
	bool svc = q->top & T_SVC;
	uint32_t err = 0, serr = ep_errs(&q->svc, true);
	struct m_svc *s = NULL;

	switch (q->cmd) {
	case RINGSTEER_CMD_KEY_SET:
		return q->top & T_KEY ? 0 : FZ_EINVAL;
	case RINGSTEER_CMD_KEY_GET:
	case RINGSTEER_CMD_FLUSH:
	case RINGSTEER_CMD_NET_GET:
	case RINGSTEER_CMD_CHAIN_GET:
		return 0;
	case RINGSTEER_CMD_CHAIN_SET:
		return (q->top & T_CHAIN) && (q->chain.present & B(RINGSTEER_CHAIN_A_PORT)) &&
		       q->chain.port ? 0 : FZ_EINVAL;
	case RINGSTEER_CMD_CHAIN_DEL:
		return m->chain_on ? 0 : FZ_ENOENT;
	case RINGSTEER_CMD_SERVICE_GET:
		if (q->dump)
			return 0;
	}
	err = svc ? serr : FZ_EINVAL;
	if (svc && !serr) {
		s = fz_m_find_svc(m, &q->svc);
		if (!s && q->cmd != RINGSTEER_CMD_SERVICE_NEW)
			err |= FZ_ENOENT;
	}
	switch (q->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		if (svc && !serr)
			err |= fwd_errs(NULL, &q->svc) | placement_errs(NULL, &q->svc) |
			       chain_errs(NULL, &q->svc);
		if (s)
			err |= FZ_EEXIST;
		else if (svc && !serr && m->ns >= RINGSTEER_MAX_SERVICES)
			err |= FZ_E2BIG;
		return err;
	case RINGSTEER_CMD_SERVICE_SET:
		if (s)
			err |= fwd_errs(s, &q->svc) | placement_errs(s, &q->svc) |
			       chain_errs(s, &q->svc);
		/* Kept rings are something to change too (kmod/conf.c, has_setting()). */
		if (!(q->svc.present & (fz_settings_mask(RC_OBJ_SERVICE, false) |
					B(RINGSTEER_SERVICE_A_KEPT_RINGS) |
					B(RINGSTEER_SERVICE_A_KEPT))))
			err |= FZ_EINVAL;
		else if (s && fz_m_points(s, q->svc.present & B(RINGSTEER_SERVICE_A_VNODES) ?
					  FZ_SET(&q->svc, VNODES) : FZ_SET(s, VNODES)) > RINGSTEER_MAX_POINTS)
			err |= FZ_E2BIG;
		return err;
	case RINGSTEER_CMD_SERVICE_DEL:
	case RINGSTEER_CMD_SERVICE_GET:
		return err;
	case RINGSTEER_CMD_LOOKUP:
		if (!(q->top & T_FLOW) || !q->flow_addr || !q->flow_port ||
		    (q->flow_port && !q->flow_port_v))
			err |= FZ_EINVAL;
		if (q->flow_addr && (q->svc.present & B(RINGSTEER_SERVICE_A_FAMILY)) &&
		    q->flow_alen != fz_m_alen(q->svc.family))
			err |= FZ_EINVAL;
		if (s && !fz_m_active(s))
			err |= FZ_ENOENT;
		return err;
	}
	/* Backend commands. */
	if (q->cmd == RINGSTEER_CMD_BACKEND_GET && q->dump)
		return err;
	if (!(q->top & T_BE))
		return err | FZ_EINVAL;
	err |= ep_errs(&q->be, false);
	/*
	 * The slots' length is read with the backend's settings (kmod/conf.c):
	 * after the lookups (ENOENT), before the commit's checks (EEXIST,
	 * E2BIG, the slots' numbers). Added to the set, as every stage here
	 * is whose order the model does not follow.
	 */
	err |= slots_len_errs(&q->be);
	if ((q->be.present & q->svc.present & B(RINGSTEER_SERVICE_A_FAMILY)) &&
	    q->be.family != q->svc.family)
		err |= FZ_EINVAL;
	/* A backend equal to its VIP would be DNATed to itself. */
	if (s && !ep_errs(&q->be, false) && q->be.family == s->family &&
	    q->be.port == s->port && !memcmp(q->be.addr, s->addr, 16))
		return err | FZ_EINVAL;
	/* forward tunnel cannot translate ports (uapi backend-new). */
	if (q->cmd == RINGSTEER_CMD_BACKEND_NEW && s && !ep_errs(&q->be, false) &&
	    FZ_SET(s, FORWARD) == RINGSTEER_FORWARD_TUNNEL && q->be.port != s->port)
		return err | FZ_EINVAL;
	if (s && !ep_errs(&q->be, false) && q->be.family == s->family)
		err |= predict_backend(s, q);
	/* A tunnel keeps no conntrack entries to count (uapi backend-get). */
	if (!err && q->cmd == RINGSTEER_CMD_BACKEND_GET && (q->flags & RINGSTEER_F_CONNS) &&
	    FZ_SET(s, FORWARD) == RINGSTEER_FORWARD_TUNNEL)
		err = FZ_EOPNOTSUPP;
	return err;
}

/*
 * The slots E gives (accepted: a slots service's), sorted, for B's; and
 * its weight, their count. Returns whether they changed.
 */
static bool m_take_slots(struct m_be *b, const struct fz_ep *e)
{
	uint16_t v[RINGSTEER_MAX_WEIGHT];
	uint32_t n;
	bool changed;

	if (!(e->present & B(RINGSTEER_BACKEND_A_SLOTS)))
		return false;
	n = sorted_slots(e, v);
	changed = n != b->nslots || memcmp(v, b->slots, n * sizeof(*v));
	free(b->slots);
	m_put_slots(b, v, n);
	FZ_SET(b, WEIGHT) = n;
	return changed;
}

static void m_add_be(struct m_svc *s, const struct fz_ep *e)
{
	struct m_be *b;

	if (s->nb == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->b = realloc(s->b, s->cap * sizeof(*s->b));
		if (!s->b)
			abort();
	}
	b = &s->b[s->nb++];
	memset(b, 0, sizeof(*b));
	memcpy(b->addr, e->addr, 16);
	b->port = e->port;
	/* Every backend starts up: backend-new takes no health (its row's ops). */
	m_take(b->set, NULL, RC_OBJ_BACKEND, RC_SOP_ADD, e, -1);
	m_take_slots(b, e);
}

static bool m_set_be(struct m_be *b, const struct fz_ep *e)
{
	uint32_t old[RC_SETTINGS_MAX];

	memcpy(old, b->set, sizeof(old));
	return m_take(b->set, old, RC_OBJ_BACKEND, RC_SOP_SET, e, -1) | m_take_slots(b, e);
}

static void m_add_svc(struct fz_model *m, const struct fz_ep *e)
{
	struct m_svc *s = &m->s[m->ns++];

	memset(s, 0, sizeof(*s));
	s->family = e->family;
	memcpy(s->addr, e->addr, 16);
	s->port = e->port;
	s->proto = e->proto;
	m_take(s->set, NULL, RC_OBJ_SERVICE, RC_SOP_ADD, e, -1);
}

static void m_del_svc(struct fz_model *m, struct m_svc *s)
{
	m_free_backends(s);
	memmove(s, s + 1, (m->s + m->ns - s - 1) * sizeof(*s));
	m->ns--;
}

/* chain-set: the defaults when it turns the mode on, else what was. */
static void m_chain_set(struct fz_model *m, const struct fz_chain *c)
{
	if (!m->chain_on) {
		m->chain_last_resort = RINGSTEER_LAST_RESORT_ACCEPT;
		m->chain_max_hops = RINGSTEER_DEFAULT_CHAIN_MAX_HOPS;
	}
	m->chain_on = true;
	m->chain_port = c->port;
	if (c->present & B(RINGSTEER_CHAIN_A_LAST_RESORT))
		m->chain_last_resort = c->last_resort;
	if (c->present & B(RINGSTEER_CHAIN_A_MAX_HOPS))
		m->chain_max_hops = c->max_hops;
}

/* An acked change, with only the attributes the uapi lists for it. */
void fz_m_apply(struct fz_model *m, const struct fz_req *q)
{
	struct m_svc *s = q->top & T_SVC ? fz_m_find_svc(m, &q->svc) : NULL;
	struct m_be *b = s ? fz_m_find_be(s, &q->be) : NULL;
	bool changed = true;

	m->changes++;
	switch (q->cmd) {
	case RINGSTEER_CMD_SERVICE_NEW:
		m_add_svc(m, &q->svc);
		break;
	case RINGSTEER_CMD_SERVICE_SET: {
		uint32_t old[RC_SETTINGS_MAX];

		/*
		 * The service's on-down is read only when a backend goes
		 * down: changing it alone publishes no ring, so a dump need
		 * not be interrupted (it may be: changes counts it).
		 */
		memcpy(old, s->set, sizeof(old));
		changed = m_take(s->set, old, RC_OBJ_SERVICE, RC_SOP_SET, &q->svc, RC_SET_ON_DOWN);
		break;
	}
	case RINGSTEER_CMD_SERVICE_DEL:
		m_del_svc(m, s);
		break;
	case RINGSTEER_CMD_BACKEND_NEW:
		m_add_be(s, &q->be);
		break;
	case RINGSTEER_CMD_BACKEND_SET:
		changed = m_set_be(b, &q->be);
		break;
	case RINGSTEER_CMD_BACKEND_DEL:
		free(b->slots);
		*b = s->b[--s->nb];
		break;
	case RINGSTEER_CMD_KEY_SET:
		changed = memcmp(m->key, q->key, sizeof(m->key));
		memcpy(m->key, q->key, sizeof(m->key));
		break;
	case RINGSTEER_CMD_FLUSH:
		changed = m->ns;
		fz_m_free(m);
		break;
	case RINGSTEER_CMD_CHAIN_SET:
		m_chain_set(m, &q->chain);
		break;
	case RINGSTEER_CMD_CHAIN_DEL:
		m->chain_on = false;
		break;
	default:
		m->changes--;
		return;
	}
	m->content += changed;
}
