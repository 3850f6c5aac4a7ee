// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's probes (userspace/health/health_probe.c) against real servers
 * on the loopback of a network namespace of the test's own (unshare, so
 * root; without it every test is skipped, not passed): tcp connect
 * (listener, closed port), http (expected status, other status, not
 * HTTP, the request's path and Host), udp (reply, wrong reply, port
 * unreachable) and exec (exit status, environment, killed at the
 * timeout with its process group).
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "health/health_probe.h"

static bool own_netns(void)
{
	static int done;
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (done)
		return done > 0;
	done = -1;
	if (unshare(CLONE_NEWNET))
		return false;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		return false;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		return false;
	close(fd);
	done = 1;
	return true;
}

#define NEED_NETNS() do { if (!own_netns()) SKIP(return, "no network namespace of our own"); } while (0)

static uint64_t ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct rc_endpoint lo(uint16_t port)
{
	struct rc_endpoint ep = { .family = AF_INET, .port = port };

	ep.addr[0] = 127;
	ep.addr[3] = 1;
	return ep;
}

static int listener(int type, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (type == SOCK_STREAM && listen(fd, 8)))
		return -1;
	return fd;
}

/* Server side of a step: called whenever the probe is pending. */
typedef void (*serve_t)(int srv, void *data);

/* Run P to its result (or the deadline: cancel, -1), serving between steps. */
static int drive(struct hc_probe *p, int res, int srv, serve_t serve, void *data)
{
	struct pollfd pfd;
	short ev;

	while (res == HC_PROBE_PENDING) {
		if (serve)
			serve(srv, data);
		pfd.fd = p->fd;
		pfd.events = p->events & 0xffff;
		if (poll(&pfd, 1, 20) < 0)
			return -1;
		if (ms() > p->deadline) {
			hc_probe_cancel(p);
			return -1;
		}
		if (!pfd.revents)
			continue;
		ev = pfd.revents;
		res = hc_probe_event(p, (uint32_t)ev);
	}
	return res;
}

static struct hc_check check(enum hc_kind kind)
{
	struct hc_check c = { .kind = kind, .interval_ms = 2000, .timeout_ms = 1000,
			      .rise = 1, .fall = 1, .status = 200 };

	strcpy(c.path, "/");
	return c;
}

TEST(tcp_connect)
{
	struct hc_check c = check(HC_TCP);
	struct rc_endpoint to = lo(8001);
	struct hc_probe p;
	int srv;

	NEED_NETNS();
	srv = listener(SOCK_STREAM, 8001);
	ASSERT_LE(0, srv);
	ASSERT_EQ(HC_PROBE_OK, drive(&p, hc_probe_start(&p, &c, &to, NULL, ms()), -1, NULL, NULL));
	ASSERT_EQ(-1, p.fd);
	close(srv);
	/* Nothing listening: refused. */
	ASSERT_EQ(HC_PROBE_FAIL, drive(&p, hc_probe_start(&p, &c, &to, NULL, ms()), -1, NULL, NULL));
	ASSERT_NE(NULL, strstr(p.why, "refused"));
	ASSERT_EQ(-1, p.fd);
}

struct http_srv {
	const char *reply;
	int conn;
	char req[512];
	size_t len;
};

static void serve_http(int srv, void *data)
{
	struct http_srv *h = data;
	ssize_t n;

	if (h->conn < 0) {
		h->conn = accept4(srv, NULL, NULL, SOCK_NONBLOCK);
		return;
	}
	n = recv(h->conn, h->req + h->len, sizeof(h->req) - 1 - h->len, MSG_DONTWAIT);
	if (n > 0) {
		h->len += n;
		h->req[h->len] = '\0';
	}
	if (strstr(h->req, "\r\n\r\n") && h->reply) {
		send(h->conn, h->reply, strlen(h->reply), MSG_NOSIGNAL);
		close(h->conn);
		h->reply = NULL;
	}
}

static int http_probe(struct hc_check *c, const char *reply, struct http_srv *h,
		      struct hc_probe *p)
{
	struct rc_endpoint to = lo(8002);
	int srv = listener(SOCK_STREAM, 8002), res;

	if (srv < 0)
		return -2;
	memset(h, 0, sizeof(*h));
	h->conn = -1;
	h->reply = reply;
	res = drive(p, hc_probe_start(p, c, &to, NULL, ms()), srv, serve_http, h);
	close(srv);
	return res;
}

TEST(http_status)
{
	struct hc_check c = check(HC_HTTP);
	struct http_srv h;
	struct hc_probe p;

	NEED_NETNS();
	strcpy(c.path, "/health");
	ASSERT_EQ(HC_PROBE_OK, http_probe(&c, "HTTP/1.0 200 OK\r\n\r\nfine", &h, &p));
	/* The request: GET of the path, Host the probed address and port. */
	ASSERT_EQ(0, strncmp(h.req, "GET /health HTTP/1.0\r\n", 22));
	ASSERT_NE(NULL, strstr(h.req, "\r\nHost: 127.0.0.1:8002\r\n"));
	ASSERT_EQ(HC_PROBE_FAIL, http_probe(&c, "HTTP/1.1 503 Unavailable\r\n\r\n", &h, &p));
	ASSERT_STREQ("HTTP status 503, want 200", p.why);
	ASSERT_EQ(HC_PROBE_FAIL, http_probe(&c, "SSH-2.0-OpenSSH\r\n\r\n", &h, &p));
	ASSERT_STREQ("not an HTTP reply", p.why);
	ASSERT_EQ(HC_PROBE_FAIL, http_probe(&c, "HTTP/1.0\r\n", &h, &p));
	ASSERT_STREQ("short HTTP reply", p.why);
	/* Another expected status, and a Host header of the file's. */
	c.status = 204;
	strcpy(c.host, "example.org");
	ASSERT_EQ(HC_PROBE_OK, http_probe(&c, "HTTP/1.1 204 No Content\r\n\r\n", &h, &p));
	ASSERT_NE(NULL, strstr(h.req, "\r\nHost: example.org\r\n"));
	/* A server that never answers: the timeout. */
	ASSERT_EQ(-1, http_probe(&c, NULL, &h, &p));
	ASSERT_EQ(-1, p.fd);
}

static void serve_udp(int srv, void *data)
{
	struct sockaddr_storage from;
	socklen_t len = sizeof(from);
	char buf[64];
	ssize_t n = recvfrom(srv, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len);

	if (n == 4 && !memcmp(buf, "ping", 4))
		sendto(srv, data, strlen(data), 0, (struct sockaddr *)&from, len);
}

TEST(udp_send_expect)
{
	struct hc_check c = check(HC_UDP);
	struct rc_endpoint to = lo(8003);
	struct hc_probe p;
	int srv;

	NEED_NETNS();
	memcpy(c.send, "ping", 4);
	c.send_len = 4;
	memcpy(c.expect, "po", 2);
	c.expect_len = 2;
	srv = listener(SOCK_DGRAM, 8003);
	ASSERT_LE(0, srv);
	ASSERT_EQ(HC_PROBE_OK, drive(&p, hc_probe_start(&p, &c, &to, NULL, ms()), srv,
				     serve_udp, "pong"));
	ASSERT_EQ(HC_PROBE_FAIL, drive(&p, hc_probe_start(&p, &c, &to, NULL, ms()), srv,
				       serve_udp, "nope"));
	ASSERT_STREQ("unexpected reply", p.why);
	close(srv);
	/* No socket on the port: the ICMP error fails it before the timeout. */
	ASSERT_EQ(HC_PROBE_FAIL, drive(&p, hc_probe_start(&p, &c, &to, NULL, ms()), -1, NULL, NULL));
	ASSERT_NE(NULL, strstr(p.why, "refused"));
}

TEST(exec_status_env_timeout)
{
	char *env[] = { "RINGSTEER_ADDR=10.1.0.7", NULL };
	struct hc_check c = check(HC_EXEC);
	char dir[] = "/tmp/hc-exec-XXXXXX", cmd[160], mark[64];
	struct hc_probe p;
	struct stat st;

	c.command = "test \"$RINGSTEER_ADDR\" = 10.1.0.7";
	ASSERT_EQ(HC_PROBE_OK, drive(&p, hc_probe_start(&p, &c, NULL, env, ms()), -1, NULL, NULL));
	ASSERT_EQ(0, p.pid);
	c.command = "exit 3";
	ASSERT_EQ(HC_PROBE_FAIL, drive(&p, hc_probe_start(&p, &c, NULL, env, ms()), -1, NULL, NULL));
	ASSERT_STREQ("exit status 3", p.why);
	/* Past the timeout the whole group is killed: the sleeping child too. */
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(mark, sizeof(mark), "%s/late", dir);
	snprintf(cmd, sizeof(cmd), "(sleep 2; touch %s) & sleep 5", mark);
	c.command = cmd;
	c.timeout_ms = 200;
	ASSERT_EQ(-1, drive(&p, hc_probe_start(&p, &c, NULL, env, ms()), -1, NULL, NULL));
	ASSERT_EQ(0, p.pid);
	ASSERT_EQ(-1, p.fd);
	sleep(3);
	ASSERT_NE(0, stat(mark, &st));
	rmdir(dir);
}

TEST_HARNESS_MAIN
