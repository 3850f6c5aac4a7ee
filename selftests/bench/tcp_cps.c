// SPDX-License-Identifier: GPL-2.0
/*
 * Short TCP connections per second, for the datapath benchmark.
 *
 *   tcp_cps server PORT                 accept and close, forever
 *   tcp_cps client ADDR:PORT SECONDS P  keep P connects in flight for
 *                                       SECONDS; print "CPS FAILED"
 *
 * Each client connection is a handshake then a reset (SO_LINGER 0), so
 * neither end keeps TIME_WAIT state and source ports are reused at once:
 * four packets through the load balancer per connection (SYN, SYN-ACK,
 * ACK, RST), the first of them a new flow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXP 256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int server(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, s, c;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 4096)) {
		perror("tcp_cps server");
		return 1;
	}
	for (;;) {
		c = accept(s, NULL, NULL);
		if (c >= 0)
			close(c);
	}
}

static int start(int ep, const struct sockaddr_in *dst)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (s < 0)
		return -1;
	if (connect(s, (const struct sockaddr *)dst, sizeof(*dst)) && errno != EINPROGRESS) {
		close(s);
		return -1;
	}
	ev.data.fd = s;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev)) {
		close(s);
		return -1;
	}
	return s;
}

/* A connect that got nothing back within a second is counted as failed. */
static int client(const char *addr, double secs, int par)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct epoll_event evs[MAXP];
	long ok = 0, failed = 0;
	char host[64], *colon;
	double t0, end;
	int ep, i, n, err;
	socklen_t len;

	snprintf(host, sizeof(host), "%s", addr);
	colon = strrchr(host, ':');
	if (!colon || par < 1 || par > MAXP)
		return 2;
	*colon = 0;
	dst.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, host, &dst.sin_addr) != 1)
		return 2;
	ep = epoll_create1(0);
	for (i = 0; i < par; i++)
		if (start(ep, &dst) < 0)
			failed++;
	t0 = now();
	end = t0 + secs;
	while (now() < end) {
		n = epoll_wait(ep, evs, MAXP, 1000);
		if (n == 0) {
			/* Nothing for a second: start over. */
			failed += par;
			close(ep);
			ep = epoll_create1(0);
			for (i = 0; i < par; i++)
				start(ep, &dst);
			continue;
		}
		for (i = 0; i < n; i++) {
			int s = evs[i].data.fd;

			err = 0;
			len = sizeof(err);
			getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
			if (err) {
				failed++;
			} else {
				ok++;
				setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
			}
			close(s);
			if (start(ep, &dst) < 0)
				failed++;
		}
	}
	printf("%.0f %ld\n", ok / (now() - t0), failed);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], atof(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: tcp_cps server PORT | client ADDR:PORT SECONDS PARALLEL\n");
	return 2;
}
