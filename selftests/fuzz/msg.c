// SPDX-License-Identifier: GPL-2.0
/* The fuzzer's netlink messages, written, read and judged; see msg.h. */

#include "msg.h"

static uint32_t fz_align(uint32_t n)
{
	return (n + NLA_ALIGNTO - 1) & ~(uint32_t)(NLA_ALIGNTO - 1);
}

/* ---- Errno sets ---------------------------------------------------------- */

const int fz_errnos[FZ_NERRNOS] = {
	EINVAL, ERANGE, EAFNOSUPPORT, EPROTONOSUPPORT, ENOENT, EEXIST, E2BIG,
	EPERM, EOPNOTSUPP, EBUSY,
};

uint32_t fz_errbit(int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(fz_errnos) / sizeof(fz_errnos[0]); i++)
		if (fz_errnos[i] == err)
			return 1U << i;
	return 0;
}

/* ---- Random numbers (splitmix64: one seed, one sequence) ----------------- */

uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

bool fz_chance(struct fz_rng *r, unsigned int permille)
{
	return fz_below(r, 1000) < permille;
}

/* ---- Writer --------------------------------------------------------------- */

void fz_put(struct fz_buf *b, const void *data, uint32_t n)
{
	uint32_t room = b->len < sizeof(b->p) ? sizeof(b->p) - b->len : 0;

	if (n > room)
		n = room;
	if (data && n)
		memcpy(&b->p[b->len], data, n);
	b->len += n;
}

void fz_pad(struct fz_buf *b)
{
	static const uint8_t zero[4];

	fz_put(b, zero, NLA_ALIGN(b->len) - b->len);
}

uint32_t fz_attr_raw(struct fz_buf *b, uint16_t type, uint16_t nla_len,
		     const void *data, uint32_t n)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };
	uint32_t off = b->len;

	fz_put(b, &a, sizeof(a));
	fz_put(b, data, n);
	fz_pad(b);
	return off;
}

uint32_t fz_attr(struct fz_buf *b, uint16_t type, const void *data,
		 uint32_t n)
{
	return fz_attr_raw(b, type, NLA_HDRLEN + n, data, n);
}

uint32_t fz_nest_start(struct fz_buf *b, uint16_t type)
{
	return fz_attr(b, type, NULL, 0);
}

void fz_nest_end(struct fz_buf *b, uint32_t off)
{
	struct nlattr *a = (struct nlattr *)(b->p + off);

	a->nla_len = b->len - off;
}

void fz_begin(struct fz_buf *b, uint16_t type, uint16_t flags,
	      uint32_t seq, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = flags,
			      .nlmsg_seq = seq };
	struct genlmsghdr g = { .cmd = cmd, .version = version };

	b->len = 0;
	fz_put(b, &h, sizeof(h));
	fz_put(b, &g, sizeof(g));
}

void fz_end(struct fz_buf *b)
{
	((struct nlmsghdr *)b->p)->nlmsg_len = b->len;
}

/* ---- Requests as the uapi header defines them ---------------------------- */

#include "spec.h"

bool fz_admin_cmd(uint8_t cmd)
{
	return cmd <= RINGSTEER_CMD_MAX && fz_admin[cmd];
}

/* Attribute kinds of a request, per nest (index 0: top level). */
static enum fz_kind fz_kind(int nest, int type)
{
	return nest <= RINGSTEER_A_MAX && type < 64 ? fz_req_kind[nest][type] : K_NONE;
}

static const uint16_t fz_kind_len[] = {
	[K_U8] = 1, [K_U16] = 2, [K_U32] = 4, [K_U64] = 8, [K_BE16] = 2,
	[K_KEY] = RINGSTEER_KEY_LEN,
};

/* The flags each command gives a meaning to; any other is refused. */
static uint32_t fz_flags_ok(uint8_t cmd)
{
	switch (cmd) {
	case RINGSTEER_CMD_SERVICE_DEL:
	case RINGSTEER_CMD_BACKEND_DEL:
	case RINGSTEER_CMD_FLUSH:
		return RINGSTEER_F_KEEP_FLOWS;
	case RINGSTEER_CMD_BACKEND_GET:
		return RINGSTEER_F_CONNS;
	case RINGSTEER_CMD_BACKEND_SET:
		return RINGSTEER_F_FORCE;
	}
	return 0;
}

/* The policy's ranges of the chain nest's u8s. */
static bool fz_u8_ok(int nest, int type, uint8_t v)
{
	if (nest != RINGSTEER_A_CHAIN)
		return true;
	if (type == RINGSTEER_CHAIN_A_LAST_RESORT)
		return v <= RINGSTEER_LAST_RESORT_MAX;
	if (type == RINGSTEER_CHAIN_A_MAX_HOPS)
		return v >= 1 && v <= RINGSTEER_CHAIN_MAX_HOPS;
	return true;
}

static void store_chain(struct fz_chain *c, int type, const uint8_t *d, uint16_t n)
{
	uint16_t v16 = 0;

	c->present |= B(type);
	if (type == RINGSTEER_CHAIN_A_PORT && n == 2) {
		memcpy(&v16, d, 2);
		c->port = ntohs(v16);
	} else if (type == RINGSTEER_CHAIN_A_LAST_RESORT && n == 1) {
		c->last_resort = d[0];
	} else if (type == RINGSTEER_CHAIN_A_MAX_HOPS && n == 1) {
		c->max_hops = d[0];
	}
}

/* Range of a u32 value by (command, nest, type); false if out of range. */
static bool fz_u32_ok(uint8_t cmd, int nest, int type, uint32_t v)
{
	if (nest == 0)
		return !(v & ~fz_flags_ok(cmd));
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_FORWARD)
		return v <= RINGSTEER_FORWARD_MAX;
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_ENCAP)
		return v <= RINGSTEER_ENCAP_MAX;
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_PLACEMENT)
		return v <= RINGSTEER_PLACEMENT_MAX;
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_CAPACITY)
		return v >= RINGSTEER_MIN_CAPACITY;	/* the kernel checks the rest */
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_CHAIN)
		return v >= 1 && v <= RINGSTEER_MAX_CHAIN;
	if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_KEPT_RINGS)
		return true;	/* the kernel checks it against chain */
	if (nest == RINGSTEER_A_SERVICE)
		return type == RINGSTEER_SERVICE_A_VNODES ?
		       v >= 1 && v <= RINGSTEER_MAX_VNODES :
		       type == RINGSTEER_SERVICE_A_HASH ? v <= RINGSTEER_HASH_MAX :
		       v <= RINGSTEER_ON_DOWN_MAX;
	return type == RINGSTEER_BACKEND_A_WEIGHT ?
	       v >= 1 && v <= RINGSTEER_MAX_WEIGHT :
	       type == RINGSTEER_BACKEND_A_STATE ? v <= RINGSTEER_STATE_MAX :
	       type == RINGSTEER_BACKEND_A_ON_DOWN ? v <= RINGSTEER_BACKEND_ON_DOWN_MAX :
	       v <= RINGSTEER_HEALTH_MAX;
}

const struct rc_setting *fz_setting(enum rc_obj obj, uint16_t attr)
{
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj == obj && rc_settings[i].attr == attr)
			return &rc_settings[i];
	return NULL;
}

uint64_t fz_settings_mask(enum rc_obj obj, bool roots)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj == obj && (!roots || rc_settings[i].parent == RC_NO_PARENT))
			m |= B(rc_settings[i].attr);
	return m;
}

/* A setting's attribute, V as it came (a port in network order). */
static void store_setting(struct fz_ep *e, int nest, int type, uint32_t v)
{
	const struct rc_setting *r = fz_setting(nest == RINGSTEER_A_SERVICE ?
						RC_OBJ_SERVICE : RC_OBJ_BACKEND, type);

	if (r)
		e->set[r - rc_settings] = r->type == RC_T_PORT ? ntohs((uint16_t)v) : v;
}

/* A backend's slots, D (N bytes) as they came. */
static void store_slots(struct fz_ep *e, const uint8_t *d, uint16_t n)
{
	e->slots_len = n;
	memcpy(e->slots, d, fz_nslots(e) * sizeof(uint16_t));
}

static void fz_store(struct fz_req *q, int nest, int type, const uint8_t *d,
		     uint16_t n)
{
	struct fz_ep *e = nest == RINGSTEER_A_SERVICE ? &q->svc : &q->be;
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	if (n == 4)
		memcpy(&v32, d, 4);
	if (n == 2)
		memcpy(&v16, d, 2);
	if (nest == 0) {
		if (type == RINGSTEER_A_KEY)
			memcpy(q->key, d, RINGSTEER_KEY_LEN);
		else
			q->flags = v32;
		return;
	}
	if (nest == RINGSTEER_A_CHAIN) {
		store_chain(&q->chain, type, d, n);
		return;
	}
	if (nest == RINGSTEER_A_FLOW) {
		if (type == RINGSTEER_FLOW_A_ADDR) {
			q->flow_addr = true;
			q->flow_alen = n;
			memcpy(q->flow_addr_b, d, n < 16 ? n : 16);
		} else {
			q->flow_port = true;
			q->flow_port_v = ntohs(v16);
		}
		return;
	}
	e->present |= B(type);
	/* Endpoint nests share the numbers of FAMILY, ADDR and PORT. */
	switch (type) {
	case RINGSTEER_SERVICE_A_FAMILY: e->family = v16; break;
	case RINGSTEER_SERVICE_A_ADDR:
		e->alen = n;
		memset(e->addr, 0, sizeof(e->addr));
		memcpy(e->addr, d, n < sizeof(e->addr) ? n : sizeof(e->addr));
		break;
	case RINGSTEER_SERVICE_A_PORT: e->port = ntohs(v16); break;
	default:
		if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_PROTO)
			e->proto = d[0];
		else if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_KEPT_RINGS)
			e->kept_rings = v32;
		else if (nest == RINGSTEER_A_SERVICE && type == RINGSTEER_SERVICE_A_KEPT)
			e->kept_len = n;
		else if (nest == RINGSTEER_A_BACKEND && type == RINGSTEER_BACKEND_A_SLOTS)
			store_slots(e, d, n);
		else
			store_setting(e, nest, type, n == 2 ? v16 : v32);
	}
}

static void fz_parse_attrs(struct fz_req *q, const uint8_t *base,
			   const uint8_t *p, uint32_t len, int nest,
			   uint64_t listed, uint64_t tolerated,
			   const struct fz_cmd_spec *spec);

/*
 * One attribute, strictly as netlink's NL_VALIDATE_STRICT does it: known
 * type, NLA_F_NESTED exactly on nests, exact lengths, documented ranges.
 */
static void fz_parse_one(struct fz_req *q, const uint8_t *base,
			 const struct nlattr *a, int nest, uint64_t listed,
			 uint64_t tolerated, const struct fz_cmd_spec *spec)
{
	int type = a->nla_type & NLA_TYPE_MASK;
	bool nested_flag = a->nla_type & NLA_F_NESTED;
	const uint8_t *d = (const uint8_t *)a + NLA_HDRLEN;
	uint16_t n = a->nla_len - NLA_HDRLEN;
	enum fz_kind k = type < 64 ? fz_kind(nest, type) : K_NONE;
	uint64_t sub, sub_tol;

	if (q->noffs < FZ_MAX_OFFS)
		q->offs[q->noffs++] = (const uint8_t *)a - base;
	if (k == K_NONE || !(B(type) & (listed | tolerated)) ||
	    nested_flag != (k == K_NEST)) {
		q->policy |= FZ_POLICY;
		return;
	}
	if (!(B(type) & listed))
		q->maybe = true;
	if (k == K_NEST) {
		if (n > 0 && n < NLA_HDRLEN) {
			q->policy |= FZ_POLICY;
			return;
		}
		/* A repeated nest replaces the earlier one as a whole. */
		if (type == RINGSTEER_A_SERVICE && (B(type) & listed))
			memset(&q->svc, 0, sizeof(q->svc));
		if (type == RINGSTEER_A_BACKEND && (B(type) & listed))
			memset(&q->be, 0, sizeof(q->be));
		if (type == RINGSTEER_A_FLOW && (B(type) & listed))
			q->flow_addr = q->flow_port = false;
		if (type == RINGSTEER_A_CHAIN && (B(type) & listed))
			memset(&q->chain, 0, sizeof(q->chain));
		q->top |= B(type);
		sub = type == RINGSTEER_A_SERVICE ? spec->svc :
		      type == RINGSTEER_A_BACKEND ? spec->be :
		      type == RINGSTEER_A_CHAIN ? spec->chain :
		      B(RINGSTEER_FLOW_A_ADDR) | B(RINGSTEER_FLOW_A_PORT);
		sub_tol = type == RINGSTEER_A_SERVICE ? spec->svc_tol :
			  type == RINGSTEER_A_BACKEND ? spec->be_tol :
			  type == RINGSTEER_A_CHAIN ? spec->chain_tol : 0;
		/* A tolerated nest: everything its policy knows. */
		if (!(B(type) & listed)) {
			sub_tol |= sub;
			sub = 0;
		}
		fz_parse_attrs(q, base, d, n, type, sub, sub_tol, spec);
		return;
	}
	/*
	 * An address has no length in the policy: the kernel holds it to
	 * its family's (EINVAL) when it reads the nest's values. Nor have
	 * slots: the kernel reads their length with the backend's settings
	 * (the model's).
	 */
	if (k != K_ADDR && k != K_U16S && k != K_KEPT && n != fz_kind_len[k]) {
		q->policy |= FZ_POLICY;
		return;
	}
	if (k == K_U32) {
		uint32_t v;

		memcpy(&v, d, 4);
		if (!fz_u32_ok(q->cmd, nest, type, v)) {
			q->policy |= FZ_POLICY;
			return;
		}
	}
	if (k == K_U8 && !fz_u8_ok(nest, type, d[0])) {
		q->policy |= FZ_POLICY;
		return;
	}
	if (nest == 0)
		q->top |= B(type);
	/* Tolerated values are ignored: they must not reach the model. */
	if (B(type) & listed)
		fz_store(q, nest, type, d, n);
}

static void fz_parse_attrs(struct fz_req *q, const uint8_t *base,
			   const uint8_t *p, uint32_t len, int nest,
			   uint64_t listed, uint64_t tolerated,
			   const struct fz_cmd_spec *spec)
{
	const struct nlattr *a;

	while (len >= NLA_HDRLEN) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			break;
		fz_parse_one(q, base, a, nest, listed, tolerated, spec);
		if (fz_align(a->nla_len) >= len) {
			len = 0;
			break;
		}
		p += fz_align(a->nla_len);
		len -= fz_align(a->nla_len);
	}
	/* Leftover bytes after the attributes. */
	if (len)
		q->policy |= FZ_POLICY;
}

void fz_parse_request(struct fz_req *q, const uint8_t *msg, uint32_t len,
		      bool priv)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)msg;
	const struct genlmsghdr *g = (const void *)(msg + NLMSG_HDRLEN);
	const struct fz_cmd_spec *spec;

	memset(q, 0, sizeof(*q));
	q->seq = h->nlmsg_seq;
	q->msg_len = h->nlmsg_len;
	if (!(h->nlmsg_flags & NLM_F_REQUEST)) {
		q->noproc = true;
		return;
	}
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || h->nlmsg_len > len) {
		q->policy = FZ_EINVAL;
		return;
	}
	q->cmd = g->cmd;
	q->dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	/*
	 * The family's resv_start_op is 0: genetlink checks the header of
	 * every request, before it looks for the command (genl_header_check():
	 * the reserved byte, and no flag but the ones it gives a meaning to).
	 */
	if ((h->nlmsg_flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO |
				(q->dump ? NLM_F_DUMP : 0))) || g->reserved) {
		q->policy = FZ_EINVAL;
		return;
	}
	if (!q->cmd || q->cmd > RINGSTEER_CMD_MAX) {
		q->policy = FZ_EOPNOTSUPP | FZ_EINVAL;
		return;
	}
	/* A notification's number (walked) names no request: no op at all. */
	if (!q->dump && !fz_has_do[q->cmd]) {
		q->policy = FZ_EOPNOTSUPP;
		return;
	}
	/* 6.1 looks for a dumpit only after the permission check. */
	if (q->dump && !fz_has_dump[q->cmd]) {
		q->policy = FZ_EOPNOTSUPP |
			    (priv || !fz_admin_cmd(q->cmd) ? 0 : FZ_EPERM);
		return;
	}
	if (!priv && fz_admin_cmd(q->cmd)) {
		q->policy = FZ_EPERM;
		return;
	}
	spec = q->dump ? &fz_dump_specs[q->cmd] : &fz_specs[q->cmd];
	fz_parse_attrs(q, msg, msg + NLMSG_HDRLEN + GENL_HDRLEN,
		       h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, 0,
		       spec->top, spec->top_tol, spec);
	/*
	 * Counting connections walks the host's conntrack table: flag conns
	 * needs CAP_NET_ADMIN, checked once the attributes are valid and
	 * before what they name is looked up (the family's doc).
	 */
	if (!priv && !q->policy && q->cmd == RINGSTEER_CMD_BACKEND_GET &&
	    (q->flags & RINGSTEER_F_CONNS))
		q->policy = FZ_EPERM;
}

/* ---- Replies -------------------------------------------------------------- */

static enum fz_rkind fz_reply_kind_of(int nest, int type)
{
	return nest <= RINGSTEER_A_MAX && type < 64 ? fz_reply_kind[nest][type] : R_NONE;
}

static const uint16_t fz_rkind_len[] = {
	[R_U8] = 1, [R_U16] = 2, [R_U32] = 4, [R_U64] = 8, [R_BE16] = 2,
	[R_KEY] = RINGSTEER_KEY_LEN, [R_PAD] = 0,
};

static void fz_reply_store(struct fz_reply *r, int nest, int type,
			   const uint8_t *d, uint16_t n)
{
	struct fz_ep *e = nest == RINGSTEER_A_SERVICE ? &r->svc : &r->be;
	uint64_t v = 0;

	/* The namespace's state (NET_GET) is checked for form only. */
	if (nest == RINGSTEER_A_NET)
		return;
	/* The chain's counters, for form only too. */
	if (nest == RINGSTEER_A_CHAIN) {
		store_chain(&r->chain, type, d, n);
		return;
	}
	if (n == 8) {
		memcpy(&v, d, 8);
	} else if (n == 4) {
		uint32_t x;

		memcpy(&x, d, 4);
		v = x;
	} else if (n == 2) {
		uint16_t x;

		memcpy(&x, d, 2);
		v = x;
	} else if (n == 1) {
		v = d[0];
	}
	if (nest == 0) {
		if (type == RINGSTEER_A_KEY) {
			r->has_key = true;
			memcpy(r->key, d, n);
		} else if (type == RINGSTEER_A_POSITION) {
			r->has_pos = true;
			r->pos = v;
		} else if (type == RINGSTEER_A_WALK) {
			r->has_walk = true;
			r->walk = v;
		}
		return;
	}
	e->present |= B(type);
	if (type == RINGSTEER_SERVICE_A_FAMILY) {
		e->family = v;
	} else if (type == RINGSTEER_SERVICE_A_ADDR) {
		e->alen = n;
		memcpy(e->addr, d, n);
	} else if (type == RINGSTEER_SERVICE_A_PORT) {
		e->port = ntohs((uint16_t)v);
	} else if (nest == RINGSTEER_A_SERVICE) {
		store_setting(e, nest, type, v);
		switch (type) {
		case RINGSTEER_SERVICE_A_PROTO: e->proto = v; break;
		case RINGSTEER_SERVICE_A_BACKENDS: r->backends = v; break;
		case RINGSTEER_SERVICE_A_ACTIVE: r->active = v; break;
		case RINGSTEER_SERVICE_A_POINTS: r->points = v; break;
		case RINGSTEER_SERVICE_A_RING_BYTES: r->ring_bytes = v; break;
		case RINGSTEER_SERVICE_A_FLOWS: r->flows = v; break;
		case RINGSTEER_SERVICE_A_NO_BACKEND: r->no_backend = v; break;
		}
	} else if (type == RINGSTEER_BACKEND_A_SLOTS) {
		store_slots(e, d, n);
	} else {
		store_setting(e, nest, type, v);
		switch (type) {
		case RINGSTEER_BACKEND_A_FLOWS: r->be_flows = v; break;
		case RINGSTEER_BACKEND_A_SHARE: r->share = v; break;
		}
		r->has_conns = (e->present & B(RINGSTEER_BACKEND_A_CONNS_ESTABLISHED)) &&
			       (e->present & B(RINGSTEER_BACKEND_A_CONNS_OTHER));
	}
}

/* Attributes of a reply nest: in bounds, known, exact sizes, no repeats. */
static const char *fz_reply_attrs(struct fz_reply *r, const uint8_t *p,
				  uint32_t len, int nest)
{
	uint64_t seen = 0;
	const char *why;

	while (len) {
		const struct nlattr *a = (const struct nlattr *)p;
		int type = a->nla_type & NLA_TYPE_MASK;
		uint16_t n;
		enum fz_rkind k;

		if (len < NLA_HDRLEN || a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return "attribute out of bounds";
		n = a->nla_len - NLA_HDRLEN;
		k = fz_reply_kind_of(nest, type);
		if (k == R_NONE)
			return "unknown attribute in a reply";
		if (((a->nla_type & NLA_F_NESTED) != 0) != (k == R_NEST))
			return "NLA_F_NESTED wrong in a reply";
		if (k != R_PAD && (seen & B(type)))
			return "attribute repeated in a reply";
		seen |= B(type);
		if (k == R_NEST) {
			if (nest)
				return "nest inside a nest";
			if (type == RINGSTEER_A_SERVICE)
				r->has_svc = true;
			else if (type == RINGSTEER_A_BACKEND)
				r->has_be = true;
			else if (type == RINGSTEER_A_CHAIN)
				r->has_chain = true;
			why = fz_reply_attrs(r, p + NLA_HDRLEN, n, type);
			if (why)
				return why;
		} else if (k == R_ADDR ? n != 4 && n != 16 :
			   k == R_U16S ? !n || n % 2 || n / 2 > RINGSTEER_MAX_WEIGHT :
			   k == R_ADDRS ? n % 4 || n > 16 * (RINGSTEER_MAX_CHAIN - 1) :
			   k == R_KEPT ? n % sizeof(struct ringsteer_kept_member) :
			   n != fz_rkind_len[k]) {
			return "attribute of the wrong size in a reply";
		} else if (k != R_PAD) {
			fz_reply_store(r, nest, type, p + NLA_HDRLEN, n);
		}
		if (fz_align(a->nla_len) > len)
			return "attribute padding out of bounds";
		p += fz_align(a->nla_len);
		len -= fz_align(a->nla_len);
	}
	return NULL;
}

/* An endpoint in a reply: FAMILY, ADDR of its length, PORT, all there. */
static const char *fz_reply_ep(const struct fz_ep *e, bool service)
{
	uint64_t need = service ? SVC_ID : BE_ID;

	if ((e->present & need) != need)
		return "reply endpoint misses family, address, port or protocol";
	if (e->family != AF_INET && e->family != AF_INET6)
		return "reply endpoint has a bad family";
	if (e->alen != (e->family == AF_INET ? 4 : 16))
		return "reply address length does not match its family";
	return NULL;
}

/* A backend's slots, if it has any: in ascending order, as the spec says. */
static const char *fz_reply_slots(const struct fz_ep *e)
{
	uint32_t i;

	for (i = 1; i < fz_nslots(e); i++)
		if (e->slots[i] <= e->slots[i - 1])
			return "backend reply's slots are not in ascending order";
	return NULL;
}

const char *fz_check_data(const struct nlmsghdr *h, uint8_t cmd,
			  struct fz_reply *r)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const char *why;
	uint64_t need;

	memset(r, 0, sizeof(*r));
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return "data message shorter than the genetlink header";
	if (g->cmd != cmd)
		return "reply carries another command";
	if (g->version != RINGSTEER_GENL_VERSION)
		return "reply carries another version";
	why = fz_reply_attrs(r, (const uint8_t *)g + GENL_HDRLEN,
			     h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, 0);
	if (why)
		return why;
	switch (cmd) {
	case RINGSTEER_CMD_KEY_GET:
		return r->has_key && !r->has_svc && !r->has_be ? NULL :
		       "KEY_GET reply is not exactly the key";
	case RINGSTEER_CMD_SERVICE_GET:
		if (!r->has_svc || r->has_be || r->has_key || r->has_pos)
			return "SERVICE_GET reply is not one service";
		need = SVC_ID | fz_settings_mask(RC_OBJ_SERVICE, true) |
		       B(RINGSTEER_SERVICE_A_BACKENDS) |
		       B(RINGSTEER_SERVICE_A_ACTIVE) | B(RINGSTEER_SERVICE_A_POINTS) |
		       B(RINGSTEER_SERVICE_A_RING_BYTES) | B(RINGSTEER_SERVICE_A_FLOWS) |
		       B(RINGSTEER_SERVICE_A_NO_BACKEND);
		if ((r->svc.present & need) != need)
			return "SERVICE_GET reply misses an attribute";
		return fz_reply_ep(&r->svc, true);
	case RINGSTEER_CMD_BACKEND_GET:
	case RINGSTEER_CMD_LOOKUP:
		if (!r->has_svc || !r->has_be || r->has_key ||
		    r->has_pos != (cmd == RINGSTEER_CMD_LOOKUP))
			return "backend reply is not one service and one backend";
		need = BE_ID | fz_settings_mask(RC_OBJ_BACKEND, true);
		if (cmd == RINGSTEER_CMD_BACKEND_GET)
			need |= B(RINGSTEER_BACKEND_A_FLOWS) | B(RINGSTEER_BACKEND_A_SHARE);
		if ((r->be.present & need) != need)
			return "backend reply misses an attribute";
		if (r->svc.present & ~SVC_ID)
			return "backend reply names its service with more than its identity";
		return fz_reply_ep(&r->svc, true) ?: fz_reply_ep(&r->be, false) ?:
		       fz_reply_slots(&r->be);
	case RINGSTEER_CMD_NET_GET:
		return !r->has_svc && !r->has_be && !r->has_key && !r->has_pos &&
		       !r->has_walk ? NULL :
		       "NET_GET reply carries more than the namespace's state";
	case RINGSTEER_CMD_SERVICE_DEL:
	case RINGSTEER_CMD_BACKEND_DEL:
	case RINGSTEER_CMD_BACKEND_SET:
	case RINGSTEER_CMD_FLUSH:
		/* A change that queued a conntrack walk names it, alone. */
		return r->has_walk && r->walk && !r->has_svc && !r->has_be &&
		       !r->has_key && !r->has_pos && !r->has_chain ? NULL :
		       "a change's reply is not exactly its walk";
	case RINGSTEER_CMD_CHAIN_GET:
		if (r->has_svc || r->has_be || r->has_key || r->has_pos)
			return "CHAIN_GET reply carries more than the chain";
		return !r->has_chain || (r->chain.present & CHAIN_CONF) == CHAIN_CONF ? NULL :
		       "CHAIN_GET reply misses a setting";
	}
	return "data message for a command without replies";
}

/*
 * Extended ack TLVs after OFF bytes of an NLMSG_ERROR or NLMSG_DONE
 * payload. Q (may be NULL) is the request, whose attribute offsets OFFS
 * must name. *MSG tells whether a text message came.
 */
static const char *fz_check_tlvs(const struct nlmsghdr *h, uint32_t off,
				 const struct fz_req *q, bool *msg)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(h) + off;
	uint32_t len = h->nlmsg_len - NLMSG_HDRLEN - off, i, v;

	*msg = false;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return len ? "bytes after the ack without NLM_F_ACK_TLVS" : NULL;
	while (len) {
		const struct nlattr *a = (const struct nlattr *)p;
		uint16_t n;

		if (len < NLA_HDRLEN || a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return "extack TLV out of bounds";
		n = a->nla_len - NLA_HDRLEN;
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			if (!n || p[NLA_HDRLEN + n - 1] || strlen((const char *)p + NLA_HDRLEN) + 1 != n)
				return "extack message not a NUL-terminated string";
			*msg = true;
			break;
		case NLMSGERR_ATTR_OFFS:
		case NLMSGERR_ATTR_MISS_NEST:
			if (n != 4)
				return "extack offset not a u32";
			memcpy(&v, p + NLA_HDRLEN, 4);
			if (!q)
				break;
			for (i = 0; i < q->noffs && q->offs[i] != v; i++)
				;
			if (i == q->noffs)
				return "extack offset does not point at an attribute of the request";
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (n != 4)
				return "extack missing type not a u32";
			break;
		case NLMSGERR_ATTR_COOKIE:
			if (n > FZ_MAX_COOKIE_LEN)
				return "extack cookie too long";
			break;
		case NLMSGERR_ATTR_POLICY:
			if (!(a->nla_type & NLA_F_NESTED) && n)
				return "extack policy not nested";
			break;
		default:
			return "unknown extack TLV";
		}
		if (fz_align(a->nla_len) > len)
			return "extack TLV padding out of bounds";
		p += fz_align(a->nla_len);
		len -= fz_align(a->nla_len);
	}
	return NULL;
}

const char *fz_check_error(const struct nlmsghdr *h, const uint8_t *req,
			   const struct fz_req *q, int *err, bool *msg)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	uint32_t echo;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return "NLMSG_ERROR too short";
	if (e->error > 0 || e->error <= -4096)
		return "NLMSG_ERROR errno out of range";
	*err = -e->error;
	if (memcmp(&e->msg, req, sizeof(e->msg)))
		return "NLMSG_ERROR does not echo the request header";
	echo = sizeof(*e);
	/* netlink_ack() echoes the whole request only with an error. */
	if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
		if (!e->error)
			return "successful ack not NLM_F_CAPPED";
		echo += e->msg.nlmsg_len - NLMSG_HDRLEN;
		if (h->nlmsg_len < NLMSG_HDRLEN + echo)
			return "NLMSG_ERROR shorter than the request it echoes";
		if (memcmp(&e->msg, req, e->msg.nlmsg_len))
			return "NLMSG_ERROR echoes another request";
	}
	/* nlmsg_put() reserved the echo rounded up: the TLVs follow that. */
	echo = fz_align(echo);
	if (h->nlmsg_len < NLMSG_HDRLEN + echo)
		return "NLMSG_ERROR shorter than its padded echo";
	return fz_check_tlvs(h, echo, e->error ? q : NULL, msg);
}

const char *fz_check_done(const struct nlmsghdr *h, const struct fz_req *q,
			  int *err, bool *msg)
{
	int v;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
		return "NLMSG_DONE without its int";
	memcpy(&v, NLMSG_DATA(h), sizeof(v));
	if (v > 0 || v <= -4096)
		return "NLMSG_DONE errno out of range";
	*err = -v;
	return fz_check_tlvs(h, sizeof(int), v ? q : NULL, msg);
}
