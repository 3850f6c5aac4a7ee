// SPDX-License-Identifier: GPL-2.0
/*
 * A spoofed-source TCP SYN flood, for the flow table's flood scenario
 * (tunnel_flood.sh). Run it only inside a network namespace of a test.
 *
 *   syn_flood [-s SECONDS] [-n COUNT] [-2] [-p LO-HI] IFNAME DSTMAC DSTADDR DPORT SRCNET/LEN
 *
 * Sends IPv4 TCP SYNs (with an MSS option, checksums right) out of
 * IFNAME to DSTMAC, for DSTADDR:DPORT, each from a random address of
 * SRCNET/LEN and a random port (1024..65535): every one a new flow.
 * -2: each SYN is followed by an ACK of the same flow (two packets a
 * spoofed flow, what confirms an entry that counts packets). -p: the
 * source ports LO..HI in turn instead of random ones (a SRCNET/32 then
 * names existing flows: a blind sender that knows them).
 * Frames go straight to the device (AF_PACKET, past the qdisc) in
 * batches of BATCH, as fast as they are taken.
 * It stops after SECONDS (default 10) or COUNT frames (default 10^8),
 * whichever comes first, or at SIGTERM/SIGINT, and prints one line:
 *
 *   sent N seconds S rate R
 *
 * N frames the device took, over S seconds: R frames a second.
 */
/* sendmmsg() */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
/* Ethernet, IPv4 and TCP headers, then the MSS option. */
#define TCP_LEN (sizeof(struct tcphdr) + 4)
#define FRAME_LEN (sizeof(struct ether_header) + sizeof(struct iphdr) + TCP_LEN)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: a few cycles a number, next to the send's thousands. */
static uint64_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (rnd_state * 0x2545f4914f6cdd1dULL) >> 32;
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

struct flood {
	uint32_t net, hostmask;	/* host order */
	struct in_addr dst;
	uint16_t dport;
	uint16_t plo, phi, pnext;	/* -p, else all 0 */
	int pairs;			/* -2 */
	uint32_t saddr, seq;		/* the last SYN's, for its ACK */
	uint16_t sport;
};

/* One frame's IP and TCP headers; Ethernet is fixed. */
static void fill(uint8_t *frame, struct flood *f, int ack)
{
	struct iphdr *ip = (struct iphdr *)(frame + sizeof(struct ether_header));
	struct tcphdr *th = (struct tcphdr *)(ip + 1);
	uint8_t *opt = (uint8_t *)(th + 1);
	struct {
		struct in_addr src, dst;
		uint8_t zero, proto;
		uint16_t len;
	} __attribute__((packed)) ph;

	memset(ip, 0, sizeof(*ip) + TCP_LEN);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(sizeof(*ip) + TCP_LEN);
	ip->id = htons(rnd());
	ip->frag_off = htons(IP_DF);
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	if (!ack) {
		f->saddr = htonl(f->net | (rnd() & f->hostmask));
		f->seq = rnd();
		if (f->phi) {
			f->sport = f->pnext;
			f->pnext = f->pnext == f->phi ? f->plo : f->pnext + 1;
		} else {
			f->sport = 1024 + rnd() % (65536 - 1024);
		}
	}
	ip->saddr = f->saddr;
	ip->daddr = f->dst.s_addr;
	ip->check = csum_fold(csum_add(0, ip, sizeof(*ip)));

	th->source = htons(f->sport);
	th->dest = htons(f->dport);
	th->seq = htonl(f->seq + !!ack);
	th->doff = TCP_LEN / 4;
	th->syn = !ack;
	th->ack = !!ack;
	th->ack_seq = ack ? htonl(rnd()) : 0;
	th->window = htons(64240);
	opt[0] = TCPOPT_MAXSEG;
	opt[1] = TCPOLEN_MAXSEG;
	opt[2] = 1460 >> 8;
	opt[3] = 1460 & 0xff;
	ph.src.s_addr = ip->saddr;
	ph.dst = f->dst;
	ph.zero = 0;
	ph.proto = IPPROTO_TCP;
	ph.len = htons(TCP_LEN);
	th->check = csum_fold(csum_add(csum_add(0, &ph, sizeof(ph)), th, TCP_LEN));
}

static int parse_mac(const char *s, uint8_t mac[ETH_ALEN])
{
	unsigned int b[ETH_ALEN];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != ETH_ALEN)
		return -1;
	for (i = 0; i < ETH_ALEN; i++)
		mac[i] = b[i];
	return 0;
}

static int parse_net(const char *s, struct flood *f)
{
	char buf[64], *slash;
	struct in_addr a;
	int len;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	len = atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &a) != 1 || len < 8 || len > 32)
		return -1;
	f->hostmask = len == 32 ? 0 : 0xffffffffu >> len;
	f->net = ntohl(a.s_addr) & ~f->hostmask;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: syn_flood [-s SECONDS] [-n COUNT] [-2] [-p LO-HI] IFNAME DSTMAC DSTADDR DPORT SRCNET/LEN\n");
	exit(2);
}

static void fail(const char *what)
{
	fprintf(stderr, "syn_flood: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	static uint8_t frames[BATCH][FRAME_LEN];
	double secs = 10, t0, t;
	unsigned long long count = 100000000ULL, sent = 0;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ether_header eh;
	struct flood f = { 0 };
	struct ifreq ifr = { 0 };
	int opt, s, i, n, one = 1;

	rnd_state = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "s:n:2p:")) != -1) {
		if (opt == 's')
			secs = atof(optarg);
		else if (opt == 'n')
			count = strtoull(optarg, NULL, 0);
		else if (opt == '2')
			f.pairs = 1;
		else if (opt == 'p' && sscanf(optarg, "%hu-%hu", &f.plo, &f.phi) == 2 &&
			 f.plo && f.plo <= f.phi)
			f.pnext = f.plo;
		else
			usage();
	}
	if (argc - optind != 5 || secs <= 0)
		usage();
	if (parse_mac(argv[optind + 1], eh.ether_dhost) ||
	    inet_pton(AF_INET, argv[optind + 2], &f.dst) != 1 ||
	    parse_net(argv[optind + 4], &f))
		usage();
	f.dport = atoi(argv[optind + 3]);

	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (s < 0)
		fail("socket");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[optind]);
	if (ioctl(s, SIOCGIFINDEX, &ifr))
		fail(argv[optind]);
	sll.sll_ifindex = ifr.ifr_ifindex;
	sll.sll_protocol = htons(ETH_P_IP);
	if (ioctl(s, SIOCGIFHWADDR, &ifr))
		fail("SIOCGIFHWADDR");
	memcpy(eh.ether_shost, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	eh.ether_type = htons(ETHERTYPE_IP);
	if (bind(s, (struct sockaddr *)&sll, sizeof(sll)))
		fail("bind");
	/* Not there before 3.14: then the frames pass the qdisc. */
	setsockopt(s, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));

	for (i = 0; i < BATCH; i++) {
		memcpy(frames[i], &eh, sizeof(eh));
		iov[i].iov_base = frames[i];
		iov[i].iov_len = FRAME_LEN;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	t0 = now();
	t = t0;
	while (!stop && sent < count && t - t0 < secs) {
		n = BATCH;
		if (count - sent < (unsigned long long)n)
			n = count - sent;
		/* A batch is even: a flow's ACK goes with its SYN. */
		for (i = 0; i < n; i++)
			fill(frames[i], &f, f.pairs && i % 2);
		n = sendmmsg(s, msgs, n, 0);
		if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			fail("sendmmsg");
		if (n > 0)
			sent += n;
		t = now();
	}
	printf("sent %llu seconds %.3f rate %.0f\n", sent, t - t0, sent / (t - t0 > 0 ? t - t0 : 1));
	return 0;
}
