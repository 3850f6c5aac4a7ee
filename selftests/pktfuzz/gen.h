/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between gen.c, which decides what an input is, gen_shape.c, which
 * builds its packet, gen_hdr.c, the headers with a grammar of their own,
 * gen_held.c, the held flows and the inputs aimed at them, and
 * gen_base.c, what the others share about the input being made. Calls
 * run one way: gen.c to gen_held.c and to gen_shape.c to gen_hdr.c, and
 * each of gen.c, gen_held.c and gen_shape.c to gen_base.c.
 */
#ifndef PKTFUZZ_GEN_H
#define PKTFUZZ_GEN_H

#include <stdio.h>

#include "pktfuzz.h"

/* How the hook can read a quoted packet. */
enum quote_kind {
	Q_WHOLE,	/* not a fragment: ports readable */
	Q_FIRST_FRAG,	/* a first fragment: ports readable */
	Q_LATER_FRAG,	/* a later fragment: no ports */
	Q_ATOMIC,	/* IPv6 fragment header, offset 0, M clear */
	Q_NO_PORTS,	/* cut before the ports */
};

enum dstclass { D_TUN_SVC, D_TUN_OTHER, D_NAT_SVC, D_NAT_OTHER, D_LB, D_ROUTED };
enum shape { S_TCP, S_UDP, S_GUE, S_ICMP_ERR, S_ICMP_INFO, S_OTHER };

/* One input being made. */
struct gx {
	struct gen *g;
	const struct topo *t;
	struct rng r;
	struct input *in;
	uint8_t fam;
	enum dstclass dc;
	enum shape shape;
	const struct svc *svc;	/* the service of (dst, dport, proto) */
	const struct svc *qsvc;	/* an ICMP error's: the quoted flow's */
	uint8_t proto;
	uint16_t sport, dport;
	uint8_t ttl;
	bool df;
	bool wellformed;	/* every header as a correct sender writes it */
	bool ext, ext_benign, ext_routed;
	enum quote_kind qk;
	bool quote_ok;		/* an error type the hook reads, from the VIP */
	struct addr qclient;
	uint16_t qcport;
	bool fragmented, complete;
	size_t maxfrag;		/* the largest fragment sent */
	uint8_t dmac[6];
	uint16_t ethertype;
	uint8_t tcp_flags;	/* tcp()'s */
	size_t wpos;
};

/* gen_base.c: @x's description grows; a client's address and port. */
void say(struct gx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void addr_set4(struct addr *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3);
void client(struct gx *x, struct addr *a);
uint16_t cport(struct gx *x);
void gx_begin(struct gx *x, struct gen *g, uint64_t index, struct input *in,
	      uint64_t salt);
void gx_frame(struct gx *x, struct frame *f, const struct pkt *p, size_t len);
void gx_say_flow(struct gx *x);
/* A flow of a tunnel service the input's frames belong to (g->sent). */
void gx_sent(struct gx *x, const struct flow *f, bool ends);

/* gen_shape.c: the packet of @x, in x->g->p, finished; its TCP header. */
void build(struct gx *x);
void tcp(struct gx *x, struct pkt *p);

/* gen_hdr.c */
size_t gen_ip4_opts(struct rng *r, const struct topo *t, uint8_t *o);
void gen_ip6_exts(struct rng *r, const struct topo *t, struct pkt *p,
		  bool *benign, bool *routed);
enum quote_kind gen_quote(struct rng *r, struct pkt *q, uint8_t family,
			  const struct addr *from, const struct addr *to,
			  uint8_t proto, uint16_t sport, uint16_t dport,
			  uint16_t tag, char *what, size_t wlen);

#endif
