/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Part of the model (prefix rc_): endpoints on the command line, in files
 * and in output, "a.b.c.d:port" and "[v6 address]:port". Shared by every
 * ringctl command, the configuration file and "ringctl simulate".
 */
#ifndef RINGCTL_ENDPOINT_H
#define RINGCTL_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#define RC_ENDPOINT_LEN	56	/* "[v6 address]:65535" and a NUL */
#define RC_ADDR_LEN	48	/* a v6 address and a NUL */

struct rc_endpoint {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* IPv4: 4 bytes, then 12 zero bytes */
	uint16_t port;		/* host order */
};

/*
 * Parse S. Port 0 is accepted here (flows of protocols without ports);
 * callers naming services and backends reject it. Returns 0, or -EINVAL
 * with *why saying what is wrong.
 */
int rc_endpoint_parse(const char *s, struct rc_endpoint *ep, const char **why);
/*
 * The same, or an address alone ("10.0.0.1", "fd00::1", "[fd00::1]"): then
 * port 0 and *bare true. Without brackets a string of two colons or more
 * is read whole as an IPv6 address: "fd00::1:80" is an address, not
 * fd00::1 port 80.
 */
int rc_endpoint_parse_bare(const char *s, struct rc_endpoint *ep, bool *bare,
			   const char **why);
/*
 * Why EP's address cannot be a VIP or a backend, as the kernel refuses it
 * (uapi "Addresses": unspecified, loopback, link-local, multicast,
 * broadcast, IPv4-mapped), or NULL. Flows' addresses may be anything.
 */
const char *rc_endpoint_unusable(const struct rc_endpoint *ep);
void rc_endpoint_format(char buf[RC_ENDPOINT_LEN], const struct rc_endpoint *ep);
/* The address alone, without brackets. */
void rc_addr_format(char buf[RC_ADDR_LEN], const struct rc_endpoint *ep);
/* Address length on the wire: 4 or 16. */
unsigned int rc_addr_len(uint8_t family);
/* Backend identity order of the uapi ("Point order"): family, address, port. */
int rc_endpoint_cmp(const struct rc_endpoint *a, const struct rc_endpoint *b);

#endif /* RINGCTL_ENDPOINT_H */
