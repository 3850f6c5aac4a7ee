// SPDX-License-Identifier: GPL-2.0
/*
 * The topology fuzz_packets.sh built, read from the file it writes, so
 * that the addresses, services and links are named in one place (the
 * script) and the fuzzer knows what the load balancer is configured with.
 * One statement a line:
 *
 *   link NS IFNAME MAC LBMAC N [ADDR4 ADDR6]   our end of a veth to the LB
 *                                              (N 0: the client's link,
 *                                              else backend N's addresses)
 *   lb ADDR                                    an address of the LB's own
 *   bcast ADDR                                 a directed broadcast there
 *   client ADDR4 ADDR6                         the LB's next hop to clients
 *   mtu N                                      the LB's links' MTU
 *   service nat|tunnel ENCAP PORT VIP VPORT tcp|udp BPORT
 *                                              ENCAP ipip, gue or -; PORT
 *                                              GUE's port (0 if none)
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktfuzz.h"

int addr_parse(const char *s, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->a) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -1;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int m[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = m[i];
	return 0;
}

static int add_addr(struct addr *v, int *n, const char *s)
{
	if (*n == MAX_ADDRS || addr_parse(s, &v[*n]))
		return -1;
	(*n)++;
	return 0;
}

static int parse_link(struct topo *t, char **w, int nw)
{
	struct link *l = &t->links[t->nlinks];

	if (nw < 6 || t->nlinks == MAX_LINKS)
		return -1;
	snprintf(l->ns, sizeof(l->ns), "%s", w[1]);
	snprintf(l->ifname, sizeof(l->ifname), "%s", w[2]);
	if (parse_mac(w[3], l->mac) || parse_mac(w[4], l->lbmac))
		return -1;
	l->backend = atoi(w[5]);
	if (l->backend && (nw < 8 || addr_parse(w[6], &l->b4) ||
			   addr_parse(w[7], &l->b6)))
		return -1;
	t->nlinks++;
	return 0;
}

static int parse_service(struct topo *t, char **w, int nw, int mtu)
{
	struct svc *s = &t->svcs[t->nsvcs];

	if (nw != 8 || t->nsvcs == MAX_SVCS)
		return -1;
	s->fwd = strcmp(w[1], "tunnel") ? FWD_NAT : FWD_TUNNEL;
	s->encap = !strcmp(w[2], "gue") ? ENCAP_GUE :
		   !strcmp(w[2], "ipip") ? ENCAP_IPIP : ENCAP_NONE;
	s->encap_port = atoi(w[3]);
	if (addr_parse(w[4], &s->vip))
		return -1;
	s->port = atoi(w[5]);
	s->proto = strcmp(w[6], "udp") ? IPPROTO_TCP : IPPROTO_UDP;
	s->bport = atoi(w[7]);
	/* As encap.c computes it: the route's MTU less the outer headers. */
	s->mtu = mtu - (s->vip.family == AF_INET ? 20 : 40) -
		 (s->encap == ENCAP_GUE ? 8 + GUE_HLEN : 0);
	t->nsvcs++;
	return 0;
}

int split_words(char *line, char **w, int max)
{
	char *save;
	int nw = 0;

	for (w[0] = strtok_r(line, " \t\n", &save); w[nw] && nw < max;
	     w[nw] = strtok_r(NULL, " \t\n", &save))
		nw++;
	return nw;
}

int topo_read(struct topo *t, const char *path)
{
	char line[512], *w[12];
	int lineno = 0, nw, mtu = 1500, err;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		nw = split_words(line, w, 11);
		if (!nw || w[0][0] == '#')
			continue;
		if (!strcmp(w[0], "link"))
			err = parse_link(t, w, nw);
		else if (!strcmp(w[0], "lb") && nw == 2)
			err = add_addr(t->lb, &t->nlb, w[1]);
		else if (!strcmp(w[0], "bcast") && nw == 2)
			err = add_addr(t->bcast, &t->nbcast, w[1]);
		else if (!strcmp(w[0], "client") && nw == 3)
			err = addr_parse(w[1], &t->client4) || addr_parse(w[2], &t->client6);
		else if (!strcmp(w[0], "mtu") && nw == 2)
			err = (mtu = atoi(w[1])) < 1280;
		else if (!strcmp(w[0], "service"))
			err = parse_service(t, w, nw, mtu);
		else
			err = -1;
		if (err) {
			fprintf(stderr, "%s:%d: cannot read this line\n", path, lineno);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!t->nlinks || t->links[0].backend || !t->nsvcs) {
		fprintf(stderr, "%s: want the client's link first, and services\n", path);
		return -1;
	}
	return 0;
}

bool addr_eq_raw(const struct addr *a, uint8_t family, const uint8_t *raw)
{
	return a->family == family &&
	       !memcmp(a->a, raw, family == AF_INET ? 4 : 16);
}

bool addr_eq(const struct addr *a, const struct addr *b)
{
	return addr_eq_raw(a, b->family, b->a);
}

const char *addr_str(const struct addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, a->a, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

const struct svc *topo_svc(const struct topo *t, const struct addr *vip,
			   uint16_t port, uint8_t proto)
{
	int i;

	for (i = 0; i < t->nsvcs; i++)
		if (t->svcs[i].port == port && t->svcs[i].proto == proto &&
		    addr_eq(&t->svcs[i].vip, vip))
			return &t->svcs[i];
	return NULL;
}

static bool vip_of(const struct topo *t, const struct addr *a, enum fwd fwd)
{
	int i;

	for (i = 0; i < t->nsvcs; i++)
		if (t->svcs[i].fwd == fwd && addr_eq(&t->svcs[i].vip, a))
			return true;
	return false;
}

bool topo_tunnel_vip(const struct topo *t, const struct addr *a)
{
	return vip_of(t, a, FWD_TUNNEL);
}

bool topo_nat_vip(const struct topo *t, const struct addr *a)
{
	return vip_of(t, a, FWD_NAT);
}

static bool in_list(const struct addr *v, int n, const struct addr *a)
{
	int i;

	for (i = 0; i < n; i++)
		if (addr_eq(&v[i], a))
			return true;
	return false;
}

bool topo_lb_addr(const struct topo *t, const struct addr *a)
{
	return in_list(t->lb, t->nlb, a);
}

/* Link 0, the client's, is never a backend's (topo_read()). */
bool topo_backend_addr(const struct topo *t, const struct addr *a)
{
	return topo_backend_link(t, a) > 0;
}

bool topo_nonunicast(const struct topo *t, const struct addr *a)
{
	static const uint8_t any6[16];

	if (a->family == AF_INET6)
		return a->a[0] == 0xff || !memcmp(a->a, any6, 16);
	/* 224.0.0.0/4 multicast, 255.255.255.255, 0.0.0.0 (not 0/8: unicast since 5.3) */
	return (a->a[0] & 0xf0) == 0xe0 || !memcmp(a->a, "\0\0\0\0", 4) ||
	       !memcmp(a->a, "\xff\xff\xff\xff", 4) ||
	       in_list(t->bcast, t->nbcast, a);
}

const char *ep_str(const struct addr *a, uint16_t port, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];

	snprintf(buf, len, a->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 addr_str(a, s, sizeof(s)), port);
	return buf;
}

int ep_parse(const char *s, struct addr *a, uint16_t *port)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *colon = strrchr(s, ':');
	size_t n;
	char *end;
	long v;

	if (!colon || (size_t)(colon - s) >= sizeof(buf))
		return -1;
	n = colon - s;
	if (s[0] == '[') {
		if (n < 2 || s[n - 1] != ']')
			return -1;
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = 0;
	} else {
		memcpy(buf, s, n);
		buf[n] = 0;
	}
	v = strtol(colon + 1, &end, 10);
	if (*end || v < 0 || v > 65535 || addr_parse(buf, a))
		return -1;
	*port = v;
	return 0;
}

int topo_backend_link(const struct topo *t, const struct addr *a)
{
	int i;

	for (i = 1; i < t->nlinks; i++)
		if (t->links[i].backend &&
		    (addr_eq(&t->links[i].b4, a) || addr_eq(&t->links[i].b6, a)))
			return i;
	return 0;
}
