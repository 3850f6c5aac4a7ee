// SPDX-License-Identifier: GPL-2.0
/*
 * Packet sockets in the neighbours' namespaces: one sends the inputs on
 * the client's link, and one receive ring (TPACKET_V2) on every link of
 * the load balancer sees what it sends there. A ring is read without a
 * system call, which matters under TCG where each costs tens of
 * microseconds: after a send, the load balancer's softirq has usually run
 * before sendto() returns, and its outputs are already in the rings.
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "pktfuzz.h"

#define FRAME_SIZE	2048
#define BLOCK_SIZE	(1 << 16)
#define BLOCK_NR	64

struct ring {
	int fd;
	uint8_t *map;
	unsigned int nr, cur;
};

struct capture {
	int tx, txif;
	struct ring rx[MAX_LINKS];
	int n;
	uint64_t drops, send_errors;
};

/* Runs with the calling thread in namespace @ns: a socket stays in its own. */
static int enter(const char *ns, int *home)
{
	char path[128];
	int fd;

	*home = open("/proc/self/ns/net", O_RDONLY);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0 || *home < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "fuzz_packets: cannot enter namespace %s: %s\n", ns,
			strerror(errno));
		exit(2);
	}
	close(fd);
	return 0;
}

static void leave(int home)
{
	if (setns(home, CLONE_NEWNET)) {
		perror("fuzz_packets: setns back");
		exit(2);
	}
	close(home);
}

static void die_on(bool bad, const char *what, const struct link *l)
{
	if (!bad)
		return;
	fprintf(stderr, "fuzz_packets: %s on %s in %s: %s\n", what, l->ifname, l->ns,
		strerror(errno));
	exit(2);
}

static void open_ring(struct ring *r, const struct link *l)
{
	struct tpacket_req req = {
		.tp_block_size = BLOCK_SIZE, .tp_block_nr = BLOCK_NR,
		.tp_frame_size = FRAME_SIZE,
		.tp_frame_nr = BLOCK_SIZE / FRAME_SIZE * BLOCK_NR,
	};
	int v = TPACKET_V2, one = 1;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
	};

	r->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	die_on(r->fd < 0, "packet socket", l);
	die_on(setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)),
	       "PACKET_VERSION", l);
	/* Only what the load balancer sends, never our own frames. */
	die_on(setsockopt(r->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)),
	       "PACKET_IGNORE_OUTGOING", l);
	die_on(setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)),
	       "PACKET_RX_RING", l);
	r->nr = req.tp_frame_nr;
	r->map = mmap(NULL, (size_t)BLOCK_SIZE * BLOCK_NR, PROT_READ | PROT_WRITE,
		      MAP_SHARED, r->fd, 0);
	die_on(r->map == MAP_FAILED, "mmap", l);
	sll.sll_ifindex = if_nametoindex(l->ifname);
	die_on(!sll.sll_ifindex, "if_nametoindex", l);
	die_on(bind(r->fd, (struct sockaddr *)&sll, sizeof(sll)), "bind", l);
}

struct capture *cap_open(const struct topo *t)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int i, home;

	for (i = 0; i < t->nlinks; i++) {
		const struct link *l = &t->links[i];

		enter(l->ns, &home);
		open_ring(&c->rx[i], l);
		if (!i) {
			/* Protocol 0: a socket that only sends. */
			c->tx = socket(AF_PACKET, SOCK_RAW, 0);
			die_on(c->tx < 0, "packet socket", l);
			c->txif = if_nametoindex(l->ifname);
			sll.sll_ifindex = c->txif;
			die_on(bind(c->tx, (struct sockaddr *)&sll, sizeof(sll)), "bind", l);
		}
		leave(home);
	}
	c->n = t->nlinks;
	return c;
}

void cap_send(struct capture *c, const struct frame *f, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (send(c->tx, f[i].b, f[i].len, 0) < 0)
			c->send_errors++;
}

static int read_ring(struct ring *r, int link, cap_fn fn, void *ctx)
{
	int n = 0;

	for (;;) {
		struct tpacket2_hdr *h = (void *)(r->map + (size_t)r->cur * FRAME_SIZE);

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			return n;
		fn(ctx, link, (uint8_t *)h + h->tp_mac, h->tp_snaplen,
		   (uint64_t)h->tp_sec * 1000000000ULL + h->tp_nsec);
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->cur = (r->cur + 1) % r->nr;
		n++;
	}
}

int cap_poll(struct capture *c, cap_fn fn, void *ctx, int timeout_ms)
{
	struct pollfd pfd[MAX_LINKS];
	int i, n = 0;

	for (i = 0; i < c->n; i++)
		n += read_ring(&c->rx[i], i, fn, ctx);
	if (n || timeout_ms <= 0)
		return n;
	for (i = 0; i < c->n; i++)
		pfd[i] = (struct pollfd){ .fd = c->rx[i].fd, .events = POLLIN };
	if (poll(pfd, c->n, timeout_ms) <= 0)
		return 0;
	for (i = 0; i < c->n; i++)
		n += read_ring(&c->rx[i], i, fn, ctx);
	return n;
}

uint64_t cap_drops(struct capture *c)
{
	struct tpacket_stats st;
	socklen_t len;
	int i;

	for (i = 0; i < c->n; i++) {
		len = sizeof(st);
		if (!getsockopt(c->rx[i].fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
			c->drops += st.tp_drops;
	}
	return c->drops;
}

uint64_t cap_send_errors(struct capture *c)
{
	return c->send_errors;
}

void cap_close(struct capture *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		munmap(c->rx[i].map, (size_t)BLOCK_SIZE * BLOCK_NR);
		close(c->rx[i].fd);
	}
	close(c->tx);
	free(c);
}
