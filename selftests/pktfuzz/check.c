// SPDX-License-Identifier: GPL-2.0
/*
 * The invariants. Every frame that leaves the load balancer is tied to
 * the input it answers by the tag in the copy of that input it carries
 * (parse.c), whenever it arrives: a reassembly timeout's ICMP error comes
 * seconds later. A frame that carries no copy counts against the newest
 * input. Then, per frame:
 *   - at most one packet leaves per packet in (fragments of one packet
 *     count once: a reassembled datagram leaves fragmented again);
 *   - no ICMP goes to a non-unicast destination, IP or L2;
 *   - nothing answers or steers a martian source or a frame that was not
 *     sent to the LB's own MAC (pkt_type other than PACKET_HOST);
 *   - nothing sent to a tunnel VIP the LB does not own is routed on or
 *     answered by routing (unreachable, redirect, TTL of a port no
 *     service has);
 *   - an encapsulated packet is one of a tunnel service's flows, in the
 *     service's encapsulation, to the backend of the link it leaves on,
 *     and every packet of a flow goes to the same backend (the flows file
 *     lets fuzz_packets.sh ask `ringctl lookup` about each one);
 *   - the tunnel's "too big" errors stay within twice their rate times
 *     the CPUs in any second (the limit counts per second and CPU); its
 *     time exceeded is the kernel's to limit (icmp_send()), so that a
 *     TTL-1 flood cannot use up what path MTU discovery needs;
 *   - after a ring change (pins.c: the backends before and after it),
 *     every packet of a held flow reaches the backend it had before,
 *     whatever the ring says now and whatever was sent with its tuple
 *     (spoofed SYNs, floods of two packets a tuple), until an input ends
 *     it (a client's FIN or RST, which flowtab.c lets end establishment);
 *     every packet of another flow sent before the change reaches the
 *     backend it had or the ring's new choice (its entry may have been
 *     recycled), and is not recorded for `ringctl lookup`;
 * and per input, once nothing of it can still be on the way: what a
 * tunnel service must steer reached a backend. At the end, every
 * keepalive of a held flow reached a backend, once.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktfuzz.h"

#define RING		(1U << 16)
#define FLOWS		(1U << 18)
#define MAX_SUSPECTS	4096
#define MAX_KERNEL_PMTU	64

enum inv {
	INV_COUNT, INV_ICMP_UNICAST, INV_MARTIAN, INV_NOT_HOST, INV_ROUTED,
	INV_ANSWERED, INV_ENCAP, INV_MOVED, INV_NOT_STEERED, INV_ICMP_RATE,
	INV_CAPTURE, INV_HELD, INV_PINNED, INV_N
};

static const char *const inv_names[INV_N] = {
	[INV_COUNT] = "one-out-per-in",
	[INV_ICMP_UNICAST] = "icmp-to-unicast-only",
	[INV_MARTIAN] = "martian-source-dropped",
	[INV_NOT_HOST] = "not-host-dropped",
	[INV_ROUTED] = "unserved-not-routed",
	[INV_ANSWERED] = "unserved-not-answered",
	[INV_ENCAP] = "encap-is-the-service's",
	[INV_MOVED] = "flow-to-one-backend",
	[INV_NOT_STEERED] = "steerable-is-steered",
	[INV_ICMP_RATE] = "tunnel-icmp-rate-limited",
	[INV_CAPTURE] = "capture-complete",
	[INV_HELD] = "held-flow-stays",
	[INV_PINNED] = "pinned-flow-old-or-new",
};

struct flowent {
	bool used;
	int svc, link;
	struct addr src;
	uint16_t sport, bport;
	uint64_t first;
};

struct check {
	const struct topo *t;
	uint64_t seed, first, cur, settled;
	bool any, verbose;
	unsigned int icmp_rate, ncpus, show;
	struct input ring[RING];
	uint64_t fails[INV_N], first_fail[INV_N];
	struct {
		uint64_t inputs, frames, outputs, encap, forwarded, quoted, rst,
			 echo, unattributed, old, neigh, later, steer, echo_any;
		uint64_t keepalives, held_judged, held_elsewhere, pinned_judged,
			 aimed, ended;
	} st;
	uint64_t encap_by_svc[MAX_SVCS], ttl_low_by_svc[MAX_SVCS], unserved_clear;
	struct flowent *flows;
	size_t nflows, flows_full;
	uint64_t *win;		/* the tunnel's ICMP errors of the last second */
	unsigned int win_head, win_n, win_cap;
	struct input *sus;	/* must-steer inputs that had not when judged */
	size_t nsus;
	/* Where the LB's own stack may learn a path MTU (struct input). */
	struct addr kernel_pmtu[MAX_KERNEL_PMTU];
	size_t nkernel_pmtu;
	struct pins *pins;	/* held and pinned flows, NULL: none */
	bool changed;		/* they know their backends after a ring change */
	struct pins *touched;	/* the tunnel services' tuples sent */
	const char *touched_path;
};

static void out_str(const struct check *c, const struct out *o, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const struct link *l = &c->t->links[o->link];
	size_t n;
	size_t i;

	n = snprintf(buf, len, "on %s/%s: %s > %s proto %u", l->ns, l->ifname,
		     addr_str(&o->o.src, s, sizeof(s)), addr_str(&o->o.dst, d, sizeof(d)),
		     o->o.proto);
	if (o->icmp && n < len)
		n += snprintf(buf + n, len - n, " icmp %u/%u", o->icmp_type, o->icmp_code);
	if (o->l2_group && n < len)
		n += snprintf(buf + n, len - n, " to an L2 group address");
	if (n < len)
		n += snprintf(buf + n, len - n, "\n    ");
	for (i = 0; i < o->len && i < 96 && n + 3 < len; i++)
		n += snprintf(buf + n, len - n, "%02x", o->b[i]);
}

static void fail(struct check *c, enum inv inv, const struct input *in,
		 const struct out *o, const char *fmt, ...)
{
	char msg[256], ob[512];
	va_list ap;

	if (!c->fails[inv]++)
		c->first_fail[inv] = in ? in->index : 0;
	if (c->fails[inv] > c->show)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("FAIL %s: %s\n", inv_names[inv], msg);
	if (in)
		printf("  input %llu: %s(%u frame%s)\n  replay alone: RS_PKT_SEED=%llu RS_PKT_FIRST=%llu RS_PKT_COUNT=1\n",
		       (unsigned long long)in->index, in->what, in->nframes,
		       in->nframes == 1 ? "" : "s", (unsigned long long)c->seed,
		       (unsigned long long)in->index);
	if (o) {
		out_str(c, o, ob, sizeof(ob));
		printf("  output %s\n", ob);
	}
	fflush(stdout);
}

struct check *check_new(const struct topo *t, uint64_t seed, uint64_t first,
			unsigned int icmp_rate, unsigned int show, bool verbose)
{
	struct check *c = calloc(1, sizeof(*c));

	c->t = t;
	c->seed = seed;
	c->first = c->settled = first;
	c->icmp_rate = icmp_rate;
	c->ncpus = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	c->verbose = verbose;
	c->show = show;
	c->flows = calloc(FLOWS, sizeof(*c->flows));
	c->win_cap = 2 * icmp_rate * c->ncpus + 16;
	c->win = calloc(c->win_cap, sizeof(*c->win));
	c->sus = calloc(MAX_SUSPECTS, sizeof(*c->sus));
	if (!c->flows || !c->win || !c->sus) {
		fprintf(stderr, "fuzz_packets: out of memory\n");
		exit(2);
	}
	return c;
}

static struct input *by_index(struct check *c, uint64_t idx)
{
	struct input *in = &c->ring[idx % RING];

	return c->any && idx >= c->first && idx <= c->cur && in->index == idx ? in : NULL;
}

/* The newest input with @tag: a copy only ever arrives after its input. */
static struct input *by_tag(struct check *c, uint32_t tag)
{
	uint64_t back = (c->cur - tag) & (RING - 1);

	return back > c->cur ? NULL : by_index(c, c->cur - back);
}

static void note_kernel_pmtu(struct check *c, const struct addr *a)
{
	size_t i;

	for (i = 0; i < c->nkernel_pmtu; i++)
		if (addr_eq(&c->kernel_pmtu[i], a))
			return;
	if (c->nkernel_pmtu < MAX_KERNEL_PMTU)
		c->kernel_pmtu[c->nkernel_pmtu++] = *a;
}

void check_input(struct check *c, const struct input *in)
{
	c->ring[in->index % RING] = *in;
	c->cur = in->index;
	c->any = true;
	c->st.inputs++;
	c->st.frames += in->nframes;
	if (in->hook_svc >= 0 && (in->flags & IN_TTL_LOW))
		c->ttl_low_by_svc[in->hook_svc] += in->nframes;
	c->unserved_clear += in->unserved_clear;
	c->st.steer += !!(in->flags & IN_STEER);
	c->st.aimed += !strncmp(in->what, "aimed", 5);
	if (in->kernel_pmtu)
		note_kernel_pmtu(c, &in->kernel_pmtu_dst);
}

void check_sent(struct check *c, const struct sent_flow *f, int n)
{
	struct pin *p;
	int i;

	for (i = 0; i < n; i++) {
		/* ringctl lookup takes no port 0, and fuzz_packets.sh records none. */
		if (c->touched && f[i].f.sport)
			pins_add(c->touched, &f[i].f);
		if (!f[i].ends || !c->pins || !(p = pins_find(c->pins, &f[i].f)) ||
		    p->state != PIN_HELD)
			continue;
		p->state = PIN_ENDED;
		c->st.ended++;
	}
}

void check_pins(struct check *c, struct pins *p, const char *touched)
{
	size_t i;

	for (i = 0; p && i < p->cap && !c->changed; i++)
		c->changed = p->slot[i].f.svc >= 0 && p->slot[i].old;
	c->pins = p;
	c->touched_path = touched;
	if (touched)
		c->touched = pins_new();
}

static bool is_backend(const struct check *c, const struct input *in,
		       const struct addr *a)
{
	return (in->flags & IN_NAT_VIP) && topo_backend_addr(c->t, a);
}

/* Whether the copy @h of an input in @o is @in's. */
static bool matches(const struct check *c, const struct input *in,
		    const struct out *o, enum where w, const struct hdr *h)
{
	if (w == W_RST || w == W_ECHO)
		return addr_eq(&o->o.dst, &in->src) &&
		       (addr_eq(&o->o.src, &in->dst) || is_backend(c, in, &o->o.src));
	if (!addr_eq(&h->src, &in->src))
		return false;
	return addr_eq(&h->dst, &in->dst) || (w != W_INNER && is_backend(c, in, &h->dst));
}

/*
 * The input @o answers; NULL if it is one of an earlier run's (a chunk
 * before this one: a reassembly timeout's ICMP error comes 5 s late).
 */
static struct input *attribute(struct check *c, struct out *o)
{
	static const enum where order[] = { W_INNER, W_OUTER, W_QUOTE, W_RST, W_ECHO };
	bool earlier = false;
	struct input *in;
	unsigned int i;
	struct hdr h;
	uint32_t tag;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!parse_image(o, order[i], &h, &tag))
			continue;
		in = by_tag(c, tag);
		/* Only an ICMP error comes that late. */
		if (!in && order[i] == W_QUOTE)
			earlier = c->cur - ((c->cur - tag) & (RING - 1)) < c->first &&
				  ((c->cur - tag) & (RING - 1)) <= c->cur;
		if (!in || !matches(c, in, o, order[i], &h))
			continue;
		o->where = order[i];
		o->img = h;
		return in;
	}
	if (earlier)
		return NULL;
	c->st.unattributed++;
	return by_index(c, c->cur);
}

static uint32_t flow_hash(int svc, const struct addr *a, uint16_t sport)
{
	uint32_t h = 2166136261u ^ (uint32_t)svc;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * 16777619u;
	h = (h ^ sport) * 16777619u;
	return h ^ (h >> 15);
}

static void record_flow(struct check *c, const struct input *in, const struct out *o,
			int svc, const struct addr *src, uint16_t sport, int link,
			uint16_t bport)
{
	uint32_t i = flow_hash(svc, src, sport) & (FLOWS - 1);
	struct flowent *e;
	char a[INET6_ADDRSTRLEN];

	for (;; i = (i + 1) & (FLOWS - 1)) {
		e = &c->flows[i];
		if (!e->used)
			break;
		if (e->svc == svc && e->sport == sport && addr_eq(&e->src, src)) {
			if (e->link != link || e->bport != bport)
				fail(c, INV_MOVED, in, o,
				     "flow from %s:%u to service %d went to backend %d port %u, input %lld (-1: a keepalive) to backend %d port %u",
				     addr_str(src, a, sizeof(a)), sport, svc, link, bport,
				     (long long)e->first, e->link, e->bport);
			return;
		}
	}
	if (c->nflows >= FLOWS / 2) {
		c->flows_full++;
		return;
	}
	*e = (struct flowent){ .used = true, .svc = svc, .link = link, .src = *src,
			       .sport = sport, .bport = bport,
			       .first = in ? in->index : UINT64_MAX };
	c->nflows++;
}

/*
 * A packet of a flow pinned before the ring change: a held one reaches
 * the backend it had, another that or the ring's new choice.
 */
static void judge_pinned(struct check *c, const struct input *in, const struct out *o,
			 const struct pin *p)
{
	char a[INET6_ADDRSTRLEN];

	addr_str(&p->f.src, a, sizeof(a));
	if (p->state == PIN_HELD) {
		c->st.held_judged++;
		c->st.held_elsewhere += p->now != p->old;
		if (o->link != p->old)
			fail(c, INV_HELD, in, o,
			     "held flow from %s:%u to service %d, established on backend %d before the ring changed, reached backend %d (the ring's choice now: %d)",
			     a, p->f.sport, p->f.svc, p->old, o->link, p->now);
		return;
	}
	c->st.pinned_judged++;
	if (o->link != p->old && o->link != p->now)
		fail(c, INV_PINNED, in, o,
		     "flow from %s:%u to service %d, on backend %d before the ring changed, reached backend %d (the ring's choice now: %d)",
		     a, p->f.sport, p->f.svc, p->old, o->link, p->now);
}

/* A packet of @f steered to @o->link: judged by its pin, else recorded. */
static void steered(struct check *c, const struct input *in, const struct out *o,
		    const struct flow *f, uint16_t bport)
{
	const struct pin *p = c->pins ? pins_find(c->pins, f) : NULL;

	if (p && p->old)
		judge_pinned(c, in, o, p);
	else
		record_flow(c, in, o, f->svc, &f->src, f->sport, o->link, bport);
}

/* The service's encapsulation, to the backend of the link it left on. */
static void encap_is(struct check *c, const struct input *in, const struct out *o, int k)
{
	const struct link *l = &c->t->links[o->link];
	const struct svc *s = &c->t->svcs[k];

	c->encap_by_svc[k]++;
	if (s->encap != o->encap_kind ||
	    (s->encap == ENCAP_GUE && o->encap_dport != s->encap_port))
		fail(c, INV_ENCAP, in, o, "not the encapsulation of service %d", k);
	if (!addr_eq(&o->o.dst, s->vip.family == AF_INET ? &l->b4 : &l->b6))
		fail(c, INV_ENCAP, in, o, "outer destination is not backend %d's address",
		     l->backend);
}

static void encapsulated(struct check *c, struct input *in, const struct out *o)
{
	const struct svc *s;
	struct flow f;
	struct addr vip;
	uint16_t dport;
	uint8_t proto;

	c->st.encap++;
	in->encaps++;
	if (!(in->flags & IN_TUNNEL_VIP)) {
		fail(c, INV_ENCAP, in, o, "encapsulated a packet that is not to a tunnel VIP");
		return;
	}
	if (!parse_flow(o->b, &o->img, &f.src, &f.sport, &vip, &dport, &proto) ||
	    !(s = topo_svc(c->t, &vip, dport, proto)) || s->fwd != FWD_TUNNEL) {
		fail(c, INV_ENCAP, in, o, "encapsulated a packet of no tunnel service");
		return;
	}
	f.svc = s - c->t->svcs;
	encap_is(c, in, o, f.svc);
	if ((in->flags & IN_STEER) &&
	    (in->flow.svc != f.svc || in->flow.sport != f.sport || !addr_eq(&in->flow.src, &f.src)))
		fail(c, INV_ENCAP, in, o, "steered as another flow than its own");
	/* Port 0 is no flow ringctl lookup takes. */
	if (!(in->flags & (IN_MARTIAN | IN_MARTIAN_TUN | IN_NOT_HOST)) && f.sport)
		steered(c, in, o, &f, s->port);
}

/*
 * A held flow's keepalive (gen_held.c), known by its payload: no input's.
 * Counted with the service's packets, for the kernel's counters.
 */
static void keepalive(struct check *c, const struct out *o, uint16_t id)
{
	struct pin *p;
	struct flow f;
	struct addr vip;
	uint16_t dport;
	uint8_t proto;

	if (!c->pins || id >= c->pins->nheld) {
		fail(c, INV_HELD, NULL, o, "a keepalive of no held flow (%u)", id);
		return;
	}
	p = c->pins->held[id];
	p->arrived++;
	c->st.encap++;
	c->st.keepalives++;
	encap_is(c, NULL, o, p->f.svc);
	if (!parse_flow(o->b, &o->img, &f.src, &f.sport, &vip, &dport, &proto) ||
	    f.sport != p->f.sport || !addr_eq(&f.src, &p->f.src))
		fail(c, INV_ENCAP, NULL, o, "held flow %u's keepalive is another flow's", id);
	steered(c, NULL, o, &p->f, c->t->svcs[p->f.svc].port);
}

/* A NATed packet to a backend: its flow, for `ringctl lookup`. */
static void natted(struct check *c, const struct input *in, const struct out *o)
{
	const struct svc *s;
	int i;

	if (!(in->flags & IN_NAT_VIP) || (in->flags & (IN_MARTIAN | IN_NOT_HOST)) || !in->sport ||
	    !o->o.ports || o->o.proto != in->proto || o->o.sport != in->sport ||
	    !(s = topo_svc(c->t, &in->dst, in->dport, in->proto)))
		return;
	for (i = 1; i < c->t->nlinks; i++) {
		const struct link *l = &c->t->links[i];

		if (addr_eq(&o->o.dst, &l->b4) || addr_eq(&o->o.dst, &l->b6))
			record_flow(c, in, o, s - c->t->svcs, &in->src, in->sport, i,
				    o->o.dport);
	}
}

/* The tunnel's "too big": no more than twice the rate a CPU in a second. */
static void rate(struct check *c, const struct input *in, const struct out *o,
		 uint64_t ns)
{
	unsigned int i;

	if (!c->icmp_rate)
		return;
	while (c->win_n && ns - c->win[c->win_head] > 1000000000ULL) {
		c->win_head = (c->win_head + 1) % c->win_cap;
		c->win_n--;
	}
	i = (c->win_head + c->win_n) % c->win_cap;
	c->win[i] = ns;
	if (++c->win_n <= 2 * c->icmp_rate * c->ncpus)
		return;
	fail(c, INV_ICMP_RATE, in, o,
	     "%u too-big errors about tunnel VIP traffic within one second (icmp_rate %u, %u CPUs)",
	     c->win_n, c->icmp_rate, c->ncpus);
	c->win_n = 0;
}

/* Time exceeded in transit: the hook's answer to TTL 0 or 1. */
static bool ttl_icmp(const struct out *o)
{
	return o->o.family == AF_INET ? o->icmp_type == 11 && !o->icmp_code :
					o->icmp_type == 3 && !o->icmp_code;
}

/* What the tunnel hook answers: TTL exceeded, too big. */
static bool hook_icmp(const struct out *o)
{
	return o->where == W_QUOTE &&
	       (ttl_icmp(o) || (o->o.family == AF_INET ?
				o->icmp_type == 3 && o->icmp_code == 4 :
				o->icmp_type == 2));
}

/* An ICMP error the LB sent about a packet to a tunnel VIP. */
static void quoted(struct check *c, const struct input *in, const struct out *o,
		   uint64_t ns)
{
	bool v4 = o->o.family == AF_INET, ttl = ttl_icmp(o);
	uint8_t t = o->icmp_type, code = o->icmp_code;

	c->st.quoted++;
	if (!(in->flags & IN_TUNNEL_VIP))
		return;
	if (hook_icmp(o) && !ttl_icmp(o))
		rate(c, in, o, ns);
	/*
	 * Routing's answers: unreachable, redirect, IPv4 options; time
	 * exceeded for what no service takes (the hook answers TTL only for
	 * its services). IPv6 parameter problems come from ipv6_rcv(),
	 * before any hook.
	 */
	if ((v4 && ((t == 3 && code != 4) || t == 5 || t == 12)) ||
	    (!v4 && (t == 1 || t == 137)) || (ttl && in->served == SERVED_NO))
		fail(c, INV_ANSWERED, in, o, "ICMP %u/%u about a packet to a tunnel VIP", t, code);
}

void check_frame(void *ctx, int link, const uint8_t *b, size_t len, uint64_t ns)
{
	struct check *c = ctx;
	struct input *in;
	struct out o;
	uint16_t id;

	parse_frame(c->t, link, b, len, &o);
	if (o.neigh) {
		c->st.neigh++;
		return;
	}
	c->st.outputs++;
	if (o.o.later_frag) {
		c->st.later++;
		return;
	}
	if (parse_keepalive(&o, &id)) {
		keepalive(c, &o, id);
		return;
	}
	in = attribute(c, &o);
	if (c->verbose) {
		char ob[512];

		static const char *const where[] = {
			[W_NONE] = "no copy of it", [W_OUTER] = "it routed or NATed",
			[W_INNER] = "it in a tunnel", [W_QUOTE] = "an ICMP error quoting it",
			[W_RST] = "a reset", [W_ECHO] = "an echo reply",
		};

		out_str(c, &o, ob, sizeof(ob));
		printf("  output for input %lld, %s, %s\n", in ? (long long)in->index : -1LL,
		       where[o.where], ob);
	}
	/* The host's own echo replies to :: are the kernel's, not a hook's. */
	if (o.icmp && o.where == W_ECHO && in && !(in->flags & IN_TUNNEL_VIP) &&
	    topo_nonunicast(c->t, &o.o.dst))
		c->st.echo_any++;
	else if (o.icmp && (o.l2_group || topo_nonunicast(c->t, &o.o.dst)))
		fail(c, INV_ICMP_UNICAST, in, &o, "ICMP to a non-unicast destination");
	if (!in) {
		c->st.old++;
		return;
	}
	if (++in->outs > in->nframes)
		fail(c, INV_COUNT, in, &o, "%u packets left the LB for %u in%s", in->outs,
		     in->nframes, o.where == W_NONE ? " (the last carries no copy of it)" : "");
	if (in->flags & IN_MARTIAN)
		fail(c, INV_MARTIAN, in, &o, "a packet left the LB for a martian source");
	/*
	 * The kernel's own answers (a bad option in ipv6_rcv(), before any
	 * hook; a reassembly timeout) are not the tunnel service's.
	 */
	else if ((in->flags & IN_MARTIAN_TUN) && (in->flags & IN_TUNNEL_VIP) &&
		 (o.where == W_INNER || o.where == W_OUTER || hook_icmp(&o)))
		fail(c, INV_MARTIAN, in, &o, "a tunnel service steered or answered a martian source");
	/* ipv6_rcv() answers an unknown option of that type even to a group. */
	if ((in->flags & IN_NOT_HOST) &&
	    !(o.icmp && o.o.family == AF_INET6 && o.icmp_type == 4 && o.icmp_code == 2))
		fail(c, INV_NOT_HOST, in, &o, "a packet left the LB for a frame to another L2 address");
	switch (o.where) {
	case W_INNER:
		encapsulated(c, in, &o);
		break;
	case W_OUTER:
		c->st.forwarded++;
		if (topo_tunnel_vip(c->t, &o.o.dst))
			fail(c, INV_ROUTED, in, &o, "routed on to the tunnel VIP, not encapsulated");
		natted(c, in, &o);
		break;
	case W_QUOTE:
		quoted(c, in, &o, ns);
		break;
	case W_RST:
		c->st.rst++;
		break;
	case W_ECHO:
		c->st.echo++;
		break;
	default:
		break;
	}
}

void check_settle(struct check *c, uint64_t upto)
{
	struct input *in;

	for (; c->settled < upto; c->settled++) {
		in = by_index(c, c->settled);
		if (!in || !(in->flags & IN_STEER) || in->encaps)
			continue;
		if (c->nsus < MAX_SUSPECTS)
			c->sus[c->nsus] = *in;
		c->nsus++;
	}
}

void check_capture(struct check *c, uint64_t drops)
{
	if (drops)
		fail(c, INV_CAPTURE, NULL, NULL, "the receive rings dropped %llu frames",
		     (unsigned long long)drops);
}

static void write_flows(const struct check *c, const char *path)
{
	char v[INET6_ADDRSTRLEN], s[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		exit(2);
	}
	for (i = 0; i < FLOWS; i++) {
		const struct flowent *e = &c->flows[i];
		const struct svc *sv;
		const struct link *l;
		bool v6;

		if (!e->used)
			continue;
		sv = &c->t->svcs[e->svc];
		l = &c->t->links[e->link];
		v6 = sv->vip.family == AF_INET6;
		/* first -1: a held flow's keepalive */
		fprintf(f, v6 ? "[%s]:%u %s [%s]:%u [%s]:%u %lld\n" : "%s:%u %s %s:%u %s:%u %lld\n",
			addr_str(&sv->vip, v, sizeof(v)), sv->port,
			sv->proto == IPPROTO_TCP ? "tcp" : "udp",
			addr_str(&e->src, s, sizeof(s)), e->sport,
			addr_str(v6 ? &l->b6 : &l->b4, b, sizeof(b)), e->bport,
			(long long)e->first);
	}
	fclose(f);
}

static void write_summary(const struct check *c, const char *path)
{
	char v[INET6_ADDRSTRLEN];
	FILE *f = fopen(path, "w");
	int i;

	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "{\"inputs\":%llu,\"frames\":%llu,\"unserved_clear\":%llu,\"services\":[",
		(unsigned long long)c->st.inputs, (unsigned long long)c->st.frames,
		(unsigned long long)c->unserved_clear);
	for (i = 0; i < c->t->nsvcs; i++) {
		const struct svc *s = &c->t->svcs[i];

		fprintf(f, "%s{\"vip\":\"%s\",\"port\":%u,\"proto\":\"%s\",\"encap_out\":%llu,\"ttl_low\":%llu}",
			i ? "," : "", addr_str(&s->vip, v, sizeof(v)), s->port,
			s->proto == IPPROTO_TCP ? "tcp" : "udp",
			(unsigned long long)c->encap_by_svc[i],
			(unsigned long long)c->ttl_low_by_svc[i]);
	}
	/* The clients are few (topo.c), so the list never fills. */
	fprintf(f, "],\"kernel_pmtu\":[");
	for (i = 0; i < (int)c->nkernel_pmtu; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", addr_str(&c->kernel_pmtu[i], v, sizeof(v)));
	fprintf(f, "]}\n");
	fclose(f);
}

/* Every keepalive of a held flow reached a backend, once; what was judged. */
static void held_finish(struct check *c)
{
	uint64_t sent = 0, arrived = 0;
	int i;

	for (i = 0; i < c->pins->nheld; i++) {
		const struct pin *p = c->pins->held[i];

		sent += p->sent;
		arrived += p->arrived;
		if (p->arrived != p->sent)
			fail(c, INV_HELD, NULL, NULL,
			     "held flow %d (service %d, port %u): %u keepalives sent, %u reached a backend",
			     i, p->f.svc, p->f.sport, p->sent, p->arrived);
	}
	printf("held flows: %d, %llu ended by an input (a client's FIN or RST); keepalives %llu sent, %llu arrived; %llu inputs aimed at them\n",
	       c->pins->nheld, (unsigned long long)c->st.ended, (unsigned long long)sent,
	       (unsigned long long)arrived, (unsigned long long)c->st.aimed);
	if (!c->changed)
		return;
	printf("after the ring change: %llu packets of held flows judged (%llu of flows the ring now maps elsewhere), %llu of other flows pinned before it\n",
	       (unsigned long long)c->st.held_judged, (unsigned long long)c->st.held_elsewhere,
	       (unsigned long long)c->st.pinned_judged);
}

int check_finish(struct check *c, const char *flows_path, const char *summary_path)
{
	uint64_t total = 0;
	size_t i;
	int k;

	if (c->any)
		check_settle(c, c->cur + 1);
	for (i = 0; i < c->nsus && i < MAX_SUSPECTS; i++) {
		struct input *in = by_index(c, c->sus[i].index);

		if (!(in ? in : &c->sus[i])->encaps)
			fail(c, INV_NOT_STEERED, &c->sus[i], NULL,
			     "a packet a tunnel service must steer reached no backend");
	}
	if (c->nsus > MAX_SUSPECTS)
		fail(c, INV_NOT_STEERED, NULL, NULL, "%zu more not judged", c->nsus - MAX_SUSPECTS);
	if (c->pins)
		held_finish(c);
	printf("outputs %llu: %llu encapsulated, %llu routed or NATed, %llu ICMP quoting an input, %llu resets, %llu echo replies; %llu carried no copy of an input, %llu of inputs before this run, %llu later fragments; %llu ARP/ND/MLD ignored\n",
	       (unsigned long long)c->st.outputs, (unsigned long long)c->st.encap,
	       (unsigned long long)c->st.forwarded, (unsigned long long)c->st.quoted,
	       (unsigned long long)c->st.rst, (unsigned long long)c->st.echo,
	       (unsigned long long)c->st.unattributed, (unsigned long long)c->st.old,
	       (unsigned long long)c->st.later, (unsigned long long)c->st.neigh);
	printf("inputs that a tunnel service must steer: %llu; flows recorded: %zu%s\n",
	       (unsigned long long)c->st.steer, c->nflows,
	       c->flows_full ? " (table full: some not recorded)" : "");
	if (c->st.echo_any)
		printf("the host's own echo replies to ::, not counted against icmp-to-unicast-only: %llu\n",
		       (unsigned long long)c->st.echo_any);
	for (k = 0; k < INV_N; k++) {
		total += c->fails[k];
		if (c->fails[k])
			printf("invariant %s: FAILED %llu times, first at input %llu (RS_PKT_SEED=%llu RS_PKT_FIRST=%llu RS_PKT_COUNT=1)\n",
			       inv_names[k], (unsigned long long)c->fails[k],
			       (unsigned long long)c->first_fail[k],
			       (unsigned long long)c->seed,
			       (unsigned long long)c->first_fail[k]);
		else
			printf("invariant %s: held\n", inv_names[k]);
	}
	if (flows_path)
		write_flows(c, flows_path);
	if (summary_path)
		write_summary(c, summary_path);
	if (c->touched_path && pins_write(c->touched, c->t, c->touched_path))
		exit(2);
	fflush(stdout);
	return total ? 1 : 0;
}
