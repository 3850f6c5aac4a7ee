/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_packets' parts (selftests/pktfuzz/), shared between them:
 *   topo.c     the topology file fuzz_packets.sh writes: links, the LB's
 *              addresses, services and backends
 *   craft.c    building packets: IPv4/IPv6 headers, extension headers,
 *              TCP/UDP/ICMP, checksums, fragments
 *   gen.c      one input from (seed, index): what it is, its frames and
 *              what the load balancer may do with it
 *   gen_shape.c, gen_hdr.c  its packet; options, extension headers, quotes
 *   gen_base.c the input being made, for gen.c and gen_shape.c: its
 *              description, its clients (gen.h)
 *   gen_held.c the held flows: picked from the clients' pools, kept
 *              alive, and the inputs aimed at them
 *   pins.c     flows by tuple: the held ones and those pinned before a
 *              ring change, with their backends before and after it
 *   capture.c  the packet sockets: one to send on the client's link, one
 *              receive ring per link of the load balancer
 *   parse.c    what a frame that left the load balancer is, and which
 *              input it comes from
 *   check.c    the invariants, per output and per input
 *   main.c     options, the loop, the report
 * Every input is made from its own seed (the run's seed and its index),
 * so any input can be replayed alone with --first INDEX --count 1.
 */
#ifndef PKTFUZZ_H
#define PKTFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ---- random numbers: splitmix64, one stream per input */

struct rng {
	uint64_t s;
};

static inline uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
static inline uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(((rnd(r) >> 32) * n) >> 32) : 0;
}

/* True with probability pct percent. */
static inline bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 1000) < pct * 10;
}

/* True with probability permille per thousand. */
static inline bool permille(struct rng *r, unsigned int pm)
{
	return below(r, 1000) < pm;
}

/* ---- topo.c */

#define MAX_LINKS	8
#define MAX_SVCS	16
#define MAX_ADDRS	32
#define GUE_HLEN	4

struct addr {
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t a[16];		/* IPv4 in the first 4 bytes */
};

struct link {
	char ns[64], ifname[32];
	uint8_t mac[6];		/* the neighbour's end (ours) */
	uint8_t lbmac[6];	/* the load balancer's end */
	int backend;		/* 0: the client's link, N: backend N */
	struct addr b4, b6;	/* backend N's addresses */
};

enum fwd { FWD_NAT, FWD_TUNNEL };
enum encap { ENCAP_NONE, ENCAP_IPIP, ENCAP_GUE };

struct svc {
	enum fwd fwd;
	enum encap encap;
	uint16_t encap_port;	/* GUE's UDP port */
	struct addr vip;
	uint16_t port;		/* the VIP's */
	uint8_t proto;
	uint16_t bport;		/* the backends' */
	int mtu;		/* forward tunnel: the most it encapsulates with DF */
};

struct topo {
	struct link links[MAX_LINKS];
	int nlinks;
	struct svc svcs[MAX_SVCS];
	int nsvcs;
	struct addr lb[MAX_ADDRS];	/* the LB's own addresses */
	int nlb;
	struct addr bcast[MAX_ADDRS];	/* directed broadcasts of its subnets */
	int nbcast;
	struct addr client4, client6;	/* the client link's neighbour */
};

int topo_read(struct topo *t, const char *path);
/*
 * @line split on blanks into @w, at most @max words (@w holds max + 1);
 * their count. The topology's and the pins' files are read with it.
 */
int split_words(char *line, char **w, int max);
int addr_parse(const char *s, struct addr *a);
/* "ADDR:PORT", "[ADDR6]:PORT", as ringctl writes them. */
const char *ep_str(const struct addr *a, uint16_t port, char *buf, size_t len);
int ep_parse(const char *s, struct addr *a, uint16_t *port);
/* The link whose backend has address @a; 0 if none. */
int topo_backend_link(const struct topo *t, const struct addr *a);
bool addr_eq(const struct addr *a, const struct addr *b);
bool addr_eq_raw(const struct addr *a, uint8_t family, const uint8_t *raw);
const char *addr_str(const struct addr *a, char *buf, size_t len);
/* A service by VIP, port and protocol; NULL if none. */
const struct svc *topo_svc(const struct topo *t, const struct addr *vip,
			   uint16_t port, uint8_t proto);
bool topo_tunnel_vip(const struct topo *t, const struct addr *a);
bool topo_nat_vip(const struct topo *t, const struct addr *a);
bool topo_lb_addr(const struct topo *t, const struct addr *a);
bool topo_backend_addr(const struct topo *t, const struct addr *a);
/* Not a unicast destination: multicast, broadcast, a directed broadcast. */
bool topo_nonunicast(const struct topo *t, const struct addr *a);

/* ---- craft.c */

#define PKT_MAX		2048
#define MAX_BOUNDS	24
#define FRAME_MAX	(PKT_MAX + 14)

/* An L3 packet being built, with the offsets where its headers end. */
struct pkt {
	uint8_t b[PKT_MAX];
	size_t len;
	uint8_t family;
	size_t l3len;		/* IPv4 header with options, IPv6 with extensions */
	size_t nhoff;		/* IPv6: offset of the last next-header field */
	size_t unfrag;		/* IPv6: where a fragment header would go ... */
	size_t unfrag_nh;	/* ... and the next-header field before it */
	size_t l4off;
	uint8_t l4proto;
	size_t bounds[MAX_BOUNDS];
	int nbounds;
};

void pkt_bound(struct pkt *p);
void ip4_begin(struct pkt *p, const struct addr *src, const struct addr *dst,
	       uint8_t proto, uint8_t ttl, uint16_t id, bool df,
	       const uint8_t *opts, size_t optlen);
void ip6_begin(struct pkt *p, const struct addr *src, const struct addr *dst,
	       uint8_t hlim, uint32_t flowlabel);
/* An extension header of @type carrying @len bytes (padded to 8). */
void ip6_ext(struct pkt *p, uint8_t type, const uint8_t *body, size_t len);
void ip6_mark_unfrag(struct pkt *p);
void l4_begin(struct pkt *p, uint8_t proto);
void pkt_put(struct pkt *p, const void *data, size_t len);
void pkt_fill(struct pkt *p, struct rng *r, size_t len);
/* Lengths and checksums of every layer; the L4 one over the whole packet. */
void pkt_finish(struct pkt *p);
void ip4_fix_csum(uint8_t *ip);
/* Where the L4 checksum is (0: none), how long the L4 header is. */
size_t pkt_csum_at(const struct pkt *p);
size_t pkt_l4_hlen(const struct pkt *p);
uint16_t csum_fold(uint32_t sum);
uint32_t csum_add(uint32_t sum, const void *data, size_t len);

struct tcp_args {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
};
void tcp_put(struct pkt *p, const struct tcp_args *a, const uint8_t *opts,
	     size_t optlen);
void udp_put(struct pkt *p, uint16_t sport, uint16_t dport);
void icmp_put(struct pkt *p, uint8_t type, uint8_t code, uint32_t rest);

/* Fragments of a finished packet: each an L3 packet of its own. */
struct frag {
	size_t off, len;	/* of the fragmentable part */
	bool more;
};
int pkt_fragment(const struct pkt *p, const struct frag *f, int n,
		 uint32_t id, struct pkt *out);

/* ---- gen.c */

#define MAX_FRAMES	64

enum served { SERVED_NO, SERVED_YES, SERVED_MAYBE };

/* Input flags. */
#define IN_MARTIAN	0x01	/* a source no packet may leave for */
#define IN_MARTIAN_TUN	0x02	/* a source a tunnel service must drop */
#define IN_NOT_HOST	0x04	/* L2 destination not the LB's own */
#define IN_TUNNEL_VIP	0x08	/* to a tunnel VIP */
#define IN_NAT_VIP	0x10	/* to a NAT VIP */
#define IN_STEER	0x20	/* a tunnel service must steer it */
#define IN_TTL_LOW	0x40	/* TTL or hop limit 0 or 1 */
#define IN_FLOOD	0x80	/* a burst of packets too big */

/* A flow as the hook hashes it, with the service it belongs to. */
struct flow {
	int svc;		/* index in topo->svcs, -1: none */
	struct addr src;
	uint16_t sport;
};

struct input {
	uint64_t index;
	uint32_t flags;
	uint8_t family;
	uint8_t nframes;
	uint8_t served;		/* enum served, for IN_TUNNEL_VIP */
	uint8_t ttl;
	uint16_t tag;
	bool unserved_clear;	/* reaches the hook for sure, and is not steered */
	struct addr src, dst;	/* of the outer packet */
	uint16_t sport, dport;	/* of the flow it is about (TCP, UDP) */
	uint8_t proto;
	int hook_svc;		/* the tunnel service the hook charges, -1: none */
	struct flow flow;	/* IN_STEER: the flow and its service */
	/*
	 * A "too big" the LB's own stack learns a path MTU from, towards the
	 * quoted destination, whoever sent it (gen_shape.c
	 * kernel_learns_pmtu()): not the hook's learning, which believes
	 * only quotes of its outer packets to backends.
	 */
	bool kernel_pmtu;
	struct addr kernel_pmtu_dst;
	char what[256];		/* for messages */
	/* filled in by check.c */
	uint8_t outs, encaps;
	bool evaluated;
};

struct frame {
	uint8_t b[FRAME_MAX];
	size_t len;
};

/*
 * A flow of a tunnel service that an input's frames belong to, as the
 * hook would read them: what may leave an entry in the flow table.
 */
struct sent_flow {
	struct flow f;
	bool ends;		/* a TCP FIN or RST that is no SYN: ends establishment */
};

#define MAX_SENT	(MAX_FRAMES / 2)

struct gen {
	const struct topo *t;
	uint64_t seed;
	struct frame frames[MAX_FRAMES];
	/* The input's flows of tunnel services, for check_sent(). */
	struct sent_flow sent[MAX_SENT];
	int nsent;
	/* Held flows (gen_held.c): some inputs are aimed at them. */
	const struct flow *held;
	int nheld;
	/* scratch */
	struct pkt p, q, frags[8];
};

/* Input @index of the run with @seed: its frames in g->frames. */
void gen_input(struct gen *g, uint64_t index, struct input *in);
/* The tag carried in every copy of the input's headers. */
static inline uint16_t tag_of(uint64_t index)
{
	return (uint16_t)index;
}

/* IPv6 flow labels carry the tag below this marker bit. */
#define FL_MARK		0x80000u

/* ---- gen_held.c */

/* One input in this many is aimed at a held flow (when there are any). */
#define AIMED_PERMILLE	10
/* A held flow's keepalive carries this, then its number and round (be16, be32). */
#define HELD_MAGIC	"rs-held\x01"
#define HELD_MAGIC_LEN	8

/* @n candidates a tunnel service for held flows, from the generator's pools. */
void gen_pick_held(const struct topo *t, uint64_t seed, int n, FILE *out);
/* Held flow @id's packet of @round: a SYN (TCP) to start it, else data. */
void gen_keepalive(struct gen *g, const struct flow *f, uint16_t id,
		   uint32_t round, bool syn, struct frame *fr);
/* Whether input @index is aimed at a held flow, and if so, the input. */
bool gen_aimed(struct gen *g, uint64_t index, struct input *in);

/* ---- capture.c */

struct capture;

struct capture *cap_open(const struct topo *t);
void cap_send(struct capture *c, const struct frame *f, int n);
/* Calls @fn for every frame received so far on any link; returns how many. */
typedef void (*cap_fn)(void *ctx, int link, const uint8_t *b, size_t len,
		       uint64_t ns);
int cap_poll(struct capture *c, cap_fn fn, void *ctx, int timeout_ms);
/* Frames the receive rings had to drop. */
uint64_t cap_drops(struct capture *c);
uint64_t cap_send_errors(struct capture *c);
void cap_close(struct capture *c);

/* ---- parse.c */

enum where {
	W_NONE,		/* no copy of an input found */
	W_OUTER,	/* the input itself, routed or NATed */
	W_INNER,	/* the input inside a tunnel */
	W_QUOTE,	/* quoted by an ICMP error the LB sent */
	W_RST,		/* a TCP reset the LB sent: seq or ack */
	W_ECHO,		/* an ICMP echo or timestamp reply: identifier */
};

/* One IP header found in a frame. */
struct hdr {
	uint8_t family;
	struct addr src, dst;
	uint8_t proto;		/* IPv6: after the extension headers */
	size_t l4;		/* offset of the L4 header, from the frame */
	size_t end;		/* end of the data that follows, from the frame */
	uint32_t tagfield;	/* IPv4 ID, or IPv6 flow label */
	bool later_frag;	/* a fragment other than the first */
	bool frag;
	uint16_t sport, dport;
	bool ports;
};

struct out {
	int link;
	bool l2_group;
	bool neigh;		/* ARP, ND, MLD, IGMP: not counted */
	struct hdr o;		/* the outer header */
	bool icmp;
	uint8_t icmp_type, icmp_code;
	bool icmp_err;
	bool encap;
	enum encap encap_kind;
	uint16_t encap_dport;
	struct hdr img;		/* the copy of the input */
	enum where where;
	uint32_t tag;
	const uint8_t *b;
	size_t len;
};

void parse_frame(const struct topo *t, int link, const uint8_t *b, size_t len,
		 struct out *o);
/* The copy of an input at @w in @o, and the tag it carries; false if none. */
bool parse_image(struct out *o, enum where w, struct hdr *h, uint32_t *tag);
/* A held flow's keepalive in a tunnel (@o->img): its number. */
bool parse_keepalive(const struct out *o, uint16_t *id);
/* The flow a tunnel hook hashes for the packet at @h (an ICMP error: the quoted one turned round). */
bool parse_flow(const uint8_t *b, const struct hdr *h, struct addr *src,
		uint16_t *sport, struct addr *vip, uint16_t *dport,
		uint8_t *proto);

/* ---- pins.c */

enum pin_state { PIN_PINNED, PIN_HELD, PIN_ENDED };

struct pin {
	struct flow f;		/* f.svc -1: an empty slot */
	enum pin_state state;	/* held, held until a FIN or RST ended it, or pinned */
	int old, now;		/* backend links before and after the change; 0: unknown */
	uint32_t sent, arrived;	/* keepalives of a held (or ended) flow */
};

struct pins {
	struct pin *slot;
	size_t cap, n;
	struct pin **held;	/* held and ended ones, in the file's order */
	struct flow *held_flows;
	int nheld;
};

struct pins *pins_new(void);
/* The pin of @f, added if it has none. */
struct pin *pins_add(struct pins *p, const struct flow *f);
struct pin *pins_find(const struct pins *p, const struct flow *f);
/*
 * A file of lines "VIP:PORT tcp|udp SRC:SPORT OLD NEW held|ended|pinned"
 * (OLD, NEW "ADDR:PORT" or "-"); NULL on an error, printed.
 */
struct pins *pins_read(const struct topo *t, const char *path);
int pins_write(const struct pins *p, const struct topo *t, const char *path);
void pins_free(struct pins *p);

/* ---- check.c */

struct check;

/* @show: how many failures of each invariant to print whole. */
struct check *check_new(const struct topo *t, uint64_t seed, uint64_t first,
			unsigned int icmp_rate, unsigned int show, bool verbose);
/* Before @in's frames are sent. */
void check_input(struct check *c, const struct input *in);
/* The flows of tunnel services @in's frames belong to (struct gen's sent). */
void check_sent(struct check *c, const struct sent_flow *f, int n);
/*
 * The held flows and the flows pinned before a ring change (@p, kept by
 * the caller) and where the tuples sent go (@touched, NULL: nowhere).
 */
void check_pins(struct check *c, struct pins *p, const char *touched);
void check_frame(void *ctx, int link, const uint8_t *b, size_t len,
		 uint64_t ns);
/* Judge the inputs sent before @upto that no output may still be on the way for. */
void check_settle(struct check *c, uint64_t upto);
void check_capture(struct check *c, uint64_t drops);
/* The verdict: 0 if every invariant held; prints the summary. */
int check_finish(struct check *c, const char *flows_path,
		 const char *summary_path);

#endif
