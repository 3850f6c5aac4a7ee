/* SPDX-License-Identifier: GPL-2.0 */
/* What gen.c takes from gen_hdr.c: headers with a grammar of their own. */
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

size_t gen_ip4_opts(struct rng *r, const struct topo *t, uint8_t *o);
void gen_ip6_exts(struct rng *r, const struct topo *t, struct pkt *p,
		  bool *benign, bool *routed);
enum quote_kind gen_quote(struct rng *r, struct pkt *q, uint8_t family,
			  const struct addr *from, const struct addr *to,
			  uint8_t proto, uint16_t sport, uint16_t dport,
			  uint16_t tag, char *what, size_t wlen);

#endif
