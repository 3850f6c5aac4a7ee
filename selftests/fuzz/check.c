// SPDX-License-Identifier: GPL-2.0
/*
 * Replies against the model: services, backends, keys, LOOKUP answers
 * (checked against a ring built whole from the model), whole dumps; and
 * the verdict on one request: sent, its answer read whole, judged.
 */

#include <arpa/inet.h>

#include "fuzz.h"

static void print_ep(const char *what, uint16_t family, const uint8_t *addr,
		     uint16_t port, uint8_t proto)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, buf, sizeof(buf));
	fprintf(stderr, "  %s: %s port %u proto %u\n", what, buf, port, proto);
}

static bool same_svc(const struct m_svc *s, const struct fz_ep *e)
{
	return s->family == e->family && s->port == e->port &&
	       s->proto == e->proto && !memcmp(s->addr, e->addr, fz_m_alen(s->family));
}

/* Whether setting ROW means anything in SET: its parents have their values. */
static bool m_applies(const uint32_t *set, unsigned int row)
{
	const struct rc_setting *r;

	for (r = &rc_settings[row]; r->parent != RC_NO_PARENT; r = &rc_settings[r->parent])
		if (set[r->parent] != r->parent_value)
			return false;
	return true;
}

/*
 * Every setting of OBJ, from ringctl's table, in the kernel's reply E
 * against the model's SET: one that applies ("encap" of a tunnel service)
 * is there and equal, one that does not is absent.
 */
static void check_settings(struct fuzz *f, enum rc_obj obj, const struct fz_ep *e,
			   const uint32_t *set)
{
	const struct rc_setting *r;
	bool applies, there;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++) {
		r = &rc_settings[i];
		if (r->obj != obj)
			continue;
		applies = m_applies(set, i);
		there = e->present & B(r->attr);
		if (there != applies || (applies && e->set[i] != set[i]))
			fz_fail(f, "%s's %s differs: kernel %s %u, model %s %u",
				obj == RC_OBJ_SERVICE ? "service" : "backend", r->word,
				there ? "has" : "lacks", e->set[i], applies ? "has" : "lacks", set[i]);
	}
}

void fz_check_service(struct fuzz *f, const struct fz_model *m,
			  const struct fz_reply *r)
{
	const struct m_svc *s = NULL;
	uint32_t i;

	for (i = 0; i < m->ns && !s; i++)
		if (same_svc(&m->s[i], &r->svc))
			s = &m->s[i];
	if (!s) {
		for (i = 0; i < m->ns; i++)
			print_ep("model has", m->s[i].family, m->s[i].addr, m->s[i].port,
				 m->s[i].proto);
		print_ep("kernel reports", r->svc.family, r->svc.addr, r->svc.port,
			 r->svc.proto);
		fz_fail(f, "kernel reports a service the model does not have");
	}
	check_settings(f, RC_OBJ_SERVICE, &r->svc, s->set);
	if (r->backends != s->nb || r->active != fz_m_active(s) ||
	    r->points != fz_m_points(s, FZ_SET(s, VNODES)))
		fz_fail(f, "service differs: kernel backends %u active %u points %u, model %u %u %llu",
			r->backends, r->active, r->points, s->nb, fz_m_active(s),
			(unsigned long long)fz_m_points(s, FZ_SET(s, VNODES)));
}

/* The slots live in S: those of its backends on the ring. */
static uint64_t live_slots(const struct m_svc *s)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < s->nb; i++)
		if (m_on_ring(&s->b[i]))
			n += s->b[i].nslots;
	return n;
}

/*
 * A backend's slots in the kernel's reply E against the model's B of S:
 * the same, ascending (msg.c checked the order), only for placement
 * slots. Where the reply has its share (backend-get), a slots service's
 * is exact: its live slots of all live ones, of 2^64 (kmod/placement.c,
 * rs_slots_share(), as the ring reports its arcs).
 */
static void check_slots(struct fuzz *f, const struct m_svc *s, const struct m_be *b,
			const struct fz_reply *r)
{
	const struct fz_ep *e = &r->be;
	bool there = e->present & B(RINGSTEER_BACKEND_A_SLOTS);
	uint64_t live = live_slots(s), want;

	if (there != m_slots(s) || (there && (fz_nslots(e) != b->nslots ||
					      memcmp(e->slots, b->slots, b->nslots * 2))))
		fz_fail(f, "backend's slots differ: kernel %s %u, model %s %u (first %u, %u)",
			there ? "has" : "lacks", fz_nslots(e), m_slots(s) ? "has" : "lacks",
			b->nslots, there ? e->slots[0] : 0, b->nslots ? b->slots[0] : 0);
	if (!m_slots(s) || !m_on_ring(b) || !(e->present & B(RINGSTEER_BACKEND_A_SHARE)))
		return;
	want = b->nslots >= live ? UINT64_MAX :
	       (uint64_t)((unsigned __int128)UINT64_MAX * b->nslots / live);
	if (r->share != want)
		fz_fail(f, "slots backend's share differs: kernel %llu, model %llu (%u of %llu live)",
			(unsigned long long)r->share, (unsigned long long)want, b->nslots,
			(unsigned long long)live);
}

const struct m_be *fz_check_backend(struct fuzz *f, const struct m_svc *s,
					const struct fz_reply *r)
{
	uint32_t i;

	if (!same_svc(s, &r->svc) || r->be.family != s->family) {
		print_ep("model service", s->family, s->addr, s->port, s->proto);
		print_ep("kernel service", r->svc.family, r->svc.addr, r->svc.port,
			 r->svc.proto);
		print_ep("kernel backend", r->be.family, r->be.addr, r->be.port, 0);
		fz_fail(f, "backend reply names another service");
	}
	for (i = 0; i < s->nb; i++) {
		const struct m_be *b = &s->b[i];

		if (b->port != r->be.port || memcmp(b->addr, r->be.addr, fz_m_alen(s->family)))
			continue;
		check_settings(f, RC_OBJ_BACKEND, &r->be, b->set);
		check_slots(f, s, b, r);
		if (!m_on_ring(b) && r->share)
			fz_fail(f, "draining or down backend owns ring positions");
		return b;
	}
	fz_fail(f, "kernel reports a backend the model does not have");
}

/* Identity order (uapi "Point order"): family, address, port. */
static int id_cmp(const struct fz_ep *a, const struct fz_ep *b)
{
	uint16_t pa = htons(a->port), pb = htons(b->port);
	int c = memcmp(a->addr, b->addr, 16);

	return c ? c : memcmp(&pa, &pb, 2);
}

/* The whole dump R[0..N-1] of CMD against model M (service S). */
void fz_check_dump_all(struct fuzz *f, const struct fz_model *m, uint8_t cmd,
			   const struct m_svc *s, const struct fz_reply *r,
			   uint32_t n)
{
	uint32_t i, j;

	if (cmd == RINGSTEER_CMD_SERVICE_GET) {
		if (n != m->ns)
			fz_fail(f, "service dump has %u services, model %u", n, m->ns);
		for (i = 0; i < n; i++) {
			fz_check_service(f, m, &r[i]);
			for (j = 0; j < i; j++)
				if (same_svc(&m->s[0], &r[i].svc) && same_svc(&m->s[0], &r[j].svc))
					fz_fail(f, "service dumped twice");
		}
		return;
	}
	if (n != s->nb)
		fz_fail(f, "backend dump has %u backends, model %u", n, s->nb);
	for (i = 0; i < n; i++) {
		fz_check_backend(f, s, &r[i]);
		if (i && id_cmp(&r[i - 1].be, &r[i].be) >= 0)
			fz_fail(f, "backends not dumped in strictly increasing identity order");
	}
}

static void check_key(struct fuzz *f, const struct fz_model *m, const struct fz_reply *r)
{
	if (memcmp(r->key, m->key, sizeof(m->key)))
		fz_fail(f, "KEY_GET differs from the model's key");
}

/*
 * The kernel changes rings incrementally; this builds S's ring whole from
 * the model (kmod/ring.c, "Ring placement" in the uapi) and returns the
 * owner of POS. Cached until the model changes.
 */
static struct {
	struct rs_ring *ring;
	uint64_t content;
	const struct m_svc *svc;
	struct fz_model *m;
} cache;

static const struct rs_member *ring_owner(struct fuzz *f, const struct m_svc *s,
					  uint64_t pos)
{
	struct rs_member *mb;
	uint32_t i, n = 0;
	int err;

	if (!cache.ring || cache.content != f->m.content || cache.svc != s ||
	    cache.m != &f->m) {
		rs_ring_free(cache.ring);
		mb = calloc(s->nb + 1, sizeof(*mb));
		for (i = 0; i < s->nb; i++) {
			if (!m_on_ring(&s->b[i]))
				continue;
			mb[n].family = s->family;
			memcpy(mb[n].addr, s->b[i].addr, 16);
			mb[n].port = htons(s->b[i].port);
			mb[n++].weight = FZ_SET(&s->b[i], WEIGHT);
		}
		cache.ring = rs_ring_build(f->m.key, mb, n, FZ_SET(s, VNODES));
		free(mb);
		if (IS_ERR(cache.ring))
			fz_fail(f, "the model's ring does not build: %s",
				strerror(-PTR_ERR(cache.ring)));
		cache.content = f->m.content;
		cache.svc = s;
		cache.m = &f->m;
	}
	err = rs_ring_lookup(cache.ring, pos);
	if (err < 0)
		fz_fail(f, "LOOKUP answered, but the model's ring is empty");
	return &cache.ring->members[err];
}

/*
 * Placement slots, from the uapi's text ("Slot placement") rather than
 * the kernel's code: the i-th probe of position POS in 2^BITS slots.
 */
static uint32_t slot_probe(uint64_t pos, uint32_t i, uint32_t bits)
{
	uint64_t z = pos + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z >> (64 - bits);
}

/* Each slot's holder (an index of S's backends, -1: not live), until the model changes. */
static struct {
	int32_t holder[RINGSTEER_MAX_CAPACITY];
	uint64_t content;
	const struct m_svc *svc;
	struct fz_model *m;
	bool valid;
} slot_cache;

/*
 * The backend of S (on the ring) whose live slot owns POS: the first live
 * one of 256 probes, else of the scan from the first probe on.
 */
static const struct m_be *slots_owner(struct fuzz *f, const struct m_svc *s, uint64_t pos)
{
	uint32_t cap = FZ_SET(s, CAPACITY), bits = __builtin_ctz(cap), i, x;

	if (!slot_cache.valid || slot_cache.content != f->m.content || slot_cache.svc != s ||
	    slot_cache.m != &f->m) {
		memset(slot_cache.holder, 0xff, cap * sizeof(slot_cache.holder[0]));
		for (i = 0; i < s->nb; i++)
			for (x = 0; m_on_ring(&s->b[i]) && x < s->b[i].nslots; x++)
				slot_cache.holder[s->b[i].slots[x]] = i;
		slot_cache.content = f->m.content;
		slot_cache.svc = s;
		slot_cache.m = &f->m;
		slot_cache.valid = true;
	}
	for (i = 0; i < 256; i++) {
		x = slot_probe(pos, i, bits);
		if (slot_cache.holder[x] >= 0)
			return &s->b[slot_cache.holder[x]];
	}
	for (i = 0, x = slot_probe(pos, 0, bits); i < cap; i++, x = (x + 1) & (cap - 1))
		if (slot_cache.holder[x] >= 0)
			return &s->b[slot_cache.holder[x]];
	fz_fail(f, "LOOKUP answered, but the model's slots service has no live slot");
}

/* LOOKUP: the position is the documented hash; the owner is active. */
static void check_lookup(struct fuzz *f, struct fz_model *m, const struct fz_req *q,
			 const struct fz_reply *r)
{
	struct m_svc *s = fz_m_find_svc(m, &q->svc);
	const struct m_be *b = fz_check_backend(f, s, r);
	struct rs_flow fl = { .family = s->family, .proto = s->proto };
	const struct rs_member *owner;
	struct rs_key key;

	if (!m_on_ring(b))
		fz_fail(f, "LOOKUP answers a draining or down backend");
	memcpy(fl.saddr, q->flow_addr_b, q->flow_alen);
	memcpy(fl.daddr, s->addr, fz_m_alen(s->family));
	fl.sport = htons(q->flow_port_v);
	fl.dport = htons(s->port);
	rs_key_init(&key, m->key);
	if (r->pos != rs_flow_position(&key, &fl, FZ_SET(s, HASH)))
		fz_fail(f, "LOOKUP position differs from the uapi's hash of the flow");
	f->st.lookups++;
	if (m_slots(s)) {
		f->st.slot_lookups++;
		if (slots_owner(f, s, r->pos) != b)
			fz_fail(f, "LOOKUP owner differs from the slot the uapi's probes find");
		return;
	}
	owner = ring_owner(f, s, r->pos);
	if (owner->port != htons(r->be.port) ||
	    memcmp(owner->addr, r->be.addr, fz_m_alen(s->family)))
		fz_fail(f, "LOOKUP owner differs from a full build of the documented ring");
}

/* BACKEND_GET: the backends, with their counts exactly when asked for. */
static void check_conns(struct fuzz *f, const struct fz_req *q, const struct fz_reply *r,
			uint32_t n)
{
	const struct m_svc *s = fz_m_find_svc(&f->m, &q->svc);
	/* A tunnel keeps no conntrack entries: never counted (uapi backend-get). */
	bool want = (q->flags & RINGSTEER_F_CONNS) &&
		    !(s && FZ_SET(s, FORWARD) == RINGSTEER_FORWARD_TUNNEL);
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!q->dump)
			fz_check_backend(f, s, &r[i]);
		if (r[i].has_conns != want)
			fz_fail(f, "backend reply %s connection counts", want ? "without" : "with");
	}
}

/*
 * Judge the answer A to Q against EXPECT (the errnos the uapi allows, 0 if
 * it must succeed); check replies; m_apply an acked change to the model.
 */
void fz_check_chain(struct fuzz *f, const struct fz_model *m, const struct fz_reply *r)
{
	if (r->has_chain != m->chain_on)
		fz_fail(f, "CHAIN_GET: backend mode %s, the model's %s",
			r->has_chain ? "on" : "off", m->chain_on ? "on" : "off");
	if (m->chain_on && (r->chain.port != m->chain_port ||
			    r->chain.last_resort != m->chain_last_resort ||
			    r->chain.max_hops != m->chain_max_hops))
		fz_fail(f, "CHAIN_GET: port %u last-resort %u max-hops %u, the model's %u %u %u",
			r->chain.port, r->chain.last_resort, r->chain.max_hops,
			m->chain_port, m->chain_last_resort, m->chain_max_hops);
}

void fz_judge(struct fuzz *f, const struct fz_req *q, const struct fz_answer *a,
		  uint32_t expect)
{
	uint32_t bit = fz_errbit(a->err);
	bool tolerated = q->maybe && (bit & (FZ_EINVAL | FZ_ERANGE));
	bool slots = (q->top & T_BE) && (q->be.present & B(RINGSTEER_BACKEND_A_SLOTS));

	f->st.slots_sent += slots;
	f->st.slots_acked += slots && !a->err;

	if (a->err) {
		f->st.refused++;
		if (bit)
			f->st.by_errno[__builtin_ctz(bit)]++;
		if (!a->msg)
			f->st.no_msg++;
		if (!expect && tolerated) {
			f->st.maybe_refused++;
			return;
		}
		if (!expect)
			fz_fail(f, "kernel refused a valid request: %s", strerror(a->err));
		if (!(bit & expect) && !tolerated)
			fz_fail(f, "kernel refused with %s, the uapi allows only mask 0x%x",
				strerror(a->err), expect);
		/* The family explains every refusal of its own. */
		if (!a->msg && (bit & (FZ_ENOENT | FZ_EEXIST | FZ_E2BIG | FZ_EBUSY |
				       FZ_EAFNOSUPPORT | FZ_EPROTONOSUPPORT)))
			fz_fail(f, "refusal (%s) without an extended ack message",
				strerror(a->err));
		return;
	}
	if (expect)
		fz_fail(f, "kernel accepted a request the uapi refuses (mask 0x%x)", expect);
	f->st.acked++;
	if (q->noproc)
		return;
	if (!q->dump && (q->cmd == RINGSTEER_CMD_SERVICE_GET ||
			 q->cmd == RINGSTEER_CMD_BACKEND_GET ||
			 q->cmd == RINGSTEER_CMD_LOOKUP ||
			 q->cmd == RINGSTEER_CMD_KEY_GET)) {
		if (a->data != 1)
			fz_fail(f, "%u replies to a doit", a->data);
		if (q->cmd == RINGSTEER_CMD_SERVICE_GET)
			fz_check_service(f, &f->m, &f->rep[0]);
		else if (q->cmd == RINGSTEER_CMD_BACKEND_GET)
			check_conns(f, q, f->rep, 1);
		else if (q->cmd == RINGSTEER_CMD_LOOKUP)
			check_lookup(f, &f->m, q, &f->rep[0]);
		else
			check_key(f, &f->m, &f->rep[0]);
		return;
	}
	if (!q->dump && q->cmd == RINGSTEER_CMD_CHAIN_GET) {
		if (a->data != 1)
			fz_fail(f, "%u replies to a doit", a->data);
		fz_check_chain(f, &f->m, &f->rep[0]);
		return;
	}
	if (!q->dump && q->cmd == RINGSTEER_CMD_NET_GET) {
		/* The namespace's state; its form was checked with the reply. */
		if (a->data != 1)
			fz_fail(f, "%u replies to a doit", a->data);
		return;
	}
	if (!q->dump && a->data && (a->data > 1 || f->rep[0].walk <= f->last_walk))
		fz_fail(f, "a change answered with data other than one new walk");
	if (!q->dump && a->data)
		f->last_walk = f->rep[0].walk;
	if (q->dump)
		return;
	fz_m_apply(&f->m, q);
}


/* Whole exchange: send, read every part, judge. */
void fz_exchange(struct fuzz *f, struct fz_sock *s)
{
	struct fz_answer a = { 0 };
	struct fz_req q;
	uint32_t expect;

	fz_send_req(f, s, &q);
	expect = q.noproc ? 0 : q.policy ? q.policy : fz_m_predict(&f->m, &q);
	while (!fz_recv_part(f, s, &q, &a))
		;
	if (q.dump)
		f->st.dumps++;
	if (q.dump && a.parts > 1)
		f->st.multipart++;
	if (f->verbose)
		fprintf(stderr, "%llu: cmd %u dump %d -> %d (expect 0x%x)\n",
			(unsigned long long)f->index, q.cmd, q.dump, a.err, expect);
	fz_judge(f, &q, &a, expect);
	if (q.dump && !a.err && !a.intr_part && !q.maybe) {
		const struct m_svc *svc = q.cmd == RINGSTEER_CMD_BACKEND_GET ?
					  fz_m_find_svc(&f->m, &q.svc) : NULL;

		fz_check_dump_all(f, &f->m, q.cmd, svc, f->rep, f->nrep);
		if (svc)
			check_conns(f, &q, f->rep, f->nrep);
	}
	if (q.dump && a.intr_part)
		fz_fail(f, "NLM_F_DUMP_INTR on a dump nothing interrupted");
}

void fz_check_forget_ring(void)
{
	rs_ring_free(cache.ring);
	cache.ring = NULL;
	slot_cache.valid = false;
}
