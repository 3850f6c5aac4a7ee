// SPDX-License-Identifier: GPL-2.0
/* ADDR:PORT parsing and printing; see endpoint.h. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "endpoint.h"

static int parse_port(const char *s, uint16_t *port, const char **why)
{
	unsigned long p;
	char *e;

	if (*s < '0' || *s > '9') {
		*why = *s ? "port is not a number" : "missing port";
		return -EINVAL;
	}
	errno = 0;
	p = strtoul(s, &e, 10);
	if (*e) {
		*why = "port is not a number";
		return -EINVAL;
	}
	if (errno || p > 65535) {
		*why = "port out of range (0..65535)";
		return -EINVAL;
	}
	*port = p;
	return 0;
}

/* The LEN characters at S, an address of FAMILY. */
static int parse_addr(int family, const char *s, size_t len, uint8_t addr[16])
{
	char host[INET6_ADDRSTRLEN + 1];

	if (len >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, len);
	host[len] = '\0';
	return inet_pton(family, host, addr) == 1 ? 0 : -EINVAL;
}

int rc_endpoint_parse(const char *s, struct rc_endpoint *ep, const char **why)
{
	const char *colon, *end;

	memset(ep, 0, sizeof(*ep));
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end) {
			*why = "missing ']' after IPv6 address";
			return -EINVAL;
		}
		if (end[1] != ':') {
			*why = "missing ':PORT' after ']'";
			return -EINVAL;
		}
		if (parse_addr(AF_INET6, s + 1, end - s - 1, ep->addr)) {
			*why = "bad IPv6 address";
			return -EINVAL;
		}
		ep->family = AF_INET6;
		colon = end + 1;
	} else {
		colon = strchr(s, ':');
		if (!colon) {
			*why = "missing ':PORT'";
			return -EINVAL;
		}
		if (strchr(colon + 1, ':')) {
			*why = "IPv6 addresses go in brackets: [ADDR]:PORT";
			return -EINVAL;
		}
		if (parse_addr(AF_INET, s, colon - s, ep->addr)) {
			*why = strchr(s, ']') ? "missing '[' before IPv6 address"
					      : "bad IPv4 address";
			return -EINVAL;
		}
		ep->family = AF_INET;
	}
	return parse_port(colon + 1, &ep->port, why);
}

int rc_endpoint_parse_bare(const char *s, struct rc_endpoint *ep, bool *bare,
			   const char **why)
{
	const char *colon = strchr(s, ':');
	size_t len = strlen(s);
	int family;

	*bare = false;
	/* "[v6]:port" and "v4:port" (one colon), or their errors. */
	if (*s == '[' ? s[len - 1] != ']' : colon && !strchr(colon + 1, ':'))
		return rc_endpoint_parse(s, ep, why);
	memset(ep, 0, sizeof(*ep));
	family = *s == '[' || colon ? AF_INET6 : AF_INET;
	if (*s == '[') {
		s++;
		len -= 2;
	}
	if (parse_addr(family, s, len, ep->addr)) {
		*why = family == AF_INET6 ? "bad IPv6 address" : "bad IPv4 address";
		return -EINVAL;
	}
	ep->family = family;
	*bare = true;
	return 0;
}

const char *rc_endpoint_unusable(const struct rc_endpoint *ep)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *a = ep->addr;

	if (ep->family == AF_INET) {
		if (!memcmp(a, zero, 4))
			return "the unspecified address (0.0.0.0 or ::) cannot be a VIP or a backend";
		if (a[0] == 127)
			return "a loopback address cannot be a VIP or a backend";
		if (a[0] == 169 && a[1] == 254)
			return "a link-local address cannot be a VIP or a backend";
		if ((a[0] & 0xf0) == 0xe0)
			return "a multicast address cannot be a VIP or a backend";
		if (!memcmp(a, "\xff\xff\xff\xff", 4))
			return "the broadcast address cannot be a VIP or a backend";
		return NULL;
	}
	if (!memcmp(a, zero, 16))
		return "the unspecified address (0.0.0.0 or ::) cannot be a VIP or a backend";
	if (!memcmp(a, zero, 15) && a[15] == 1)
		return "a loopback address cannot be a VIP or a backend";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "a link-local address cannot be a VIP or a backend";
	if (a[0] == 0xff)
		return "a multicast address cannot be a VIP or a backend";
	if (!memcmp(a, mapped, sizeof(mapped)))
		return "an IPv4-mapped IPv6 address cannot be a VIP or a backend: use the IPv4 address";
	return NULL;
}

void rc_addr_format(char buf[RC_ADDR_LEN], const struct rc_endpoint *ep)
{
	if (!inet_ntop(ep->family, ep->addr, buf, RC_ADDR_LEN))
		snprintf(buf, RC_ADDR_LEN, "?");
}

void rc_endpoint_format(char buf[RC_ENDPOINT_LEN], const struct rc_endpoint *ep)
{
	char host[RC_ADDR_LEN];

	rc_addr_format(host, ep);
	snprintf(buf, RC_ENDPOINT_LEN, ep->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 host, ep->port);
}

unsigned int rc_addr_len(uint8_t family)
{
	return family == AF_INET6 ? 16 : 4;
}

int rc_endpoint_cmp(const struct rc_endpoint *a, const struct rc_endpoint *b)
{
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = memcmp(a->addr, b->addr, sizeof(a->addr));
	if (c)
		return c;
	return a->port == b->port ? 0 : a->port < b->port ? -1 : 1;
}
