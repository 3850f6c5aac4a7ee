// SPDX-License-Identifier: GPL-2.0
/*
 * The probes; see health_probe.h. Nothing here blocks: sockets are
 * non-blocking and a probe advances one step per event, a child is
 * watched through its pidfd, so one slow backend never delays another.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/ringsteer_version.h"
#include "cli.h"
#include "health_probe.h"

extern char **environ;

#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

enum { P_CONNECT, P_SEND, P_RECV, P_CHILD };

static int fail(struct hc_probe *p, const char *what, int err)
{
	if (err)
		snprintf(p->why, sizeof(p->why), "%s: %s", what, strerror(err));
	else
		snprintf(p->why, sizeof(p->why), "%s", what);
	hc_probe_cancel(p);
	return HC_PROBE_FAIL;
}

static socklen_t sockaddr_of(const struct rc_endpoint *ep, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ep->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(ep->port);
		memcpy(&s6->sin6_addr, ep->addr, 16);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(ep->port);
	memcpy(&s4->sin_addr, ep->addr, 4);
	return sizeof(*s4);
}

static void http_request(struct hc_probe *p, const struct rc_endpoint *to)
{
	char host[HC_TEXT_LEN], addr[RC_ADDR_LEN];
	int n;

	if (p->c->host[0]) {
		snprintf(host, sizeof(host), "%s", p->c->host);
	} else if (to->port == 80) {
		rc_addr_format(addr, to);
		snprintf(host, sizeof(host), to->family == AF_INET6 ? "[%s]" : "%s", addr);
	} else {
		rc_endpoint_format(host, to);
	}
	n = snprintf(p->req, sizeof(p->req),
		     "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: ringctl-health/%s\r\n"
		     "Accept: */*\r\nConnection: close\r\n\r\n",
		     p->c->path, host, RINGSTEER_VERSION);
	p->req_len = n < (int)sizeof(p->req) ? (size_t)n : sizeof(p->req) - 1;
}

static int start_socket(struct hc_probe *p, const struct rc_endpoint *to)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(to, &ss);
	int type = p->c->kind == HC_UDP ? SOCK_DGRAM : SOCK_STREAM;

	p->fd = socket(to->family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return fail(p, "socket", errno);
	if (p->c->kind == HC_UDP) {
		/* Connected: an ICMP port unreachable comes back as an error. */
		if (connect(p->fd, (struct sockaddr *)&ss, len) ||
		    send(p->fd, p->c->send, p->c->send_len, 0) < 0)
			return fail(p, "send", errno);
		p->phase = P_RECV;
		p->events = EPOLLIN;
		return HC_PROBE_PENDING;
	}
	if (p->c->kind == HC_HTTP)
		http_request(p, to);
	if (connect(p->fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS)
		return fail(p, "connect", errno);
	p->phase = P_CONNECT;
	p->events = EPOLLOUT;
	return HC_PROBE_PENDING;
}

/* The child: its own process group (killed whole at the timeout). */
static void child(const char *cmd, char **envp)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	sigset_t all;
	int fd;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	setpgid(0, 0);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	execve("/bin/sh", argv, envp);
	_exit(127);
}

static int start_child(struct hc_probe *p, char *const *env)
{
	size_t n = 0, k = 0, i;
	char **envp;

	while (environ[n])
		n++;
	while (env && env[k])
		k++;
	/* Built before fork: the child may only call async-signal-safe code. */
	envp = calloc(n + k + 1, sizeof(*envp));
	if (!envp)
		return fail(p, "out of memory", 0);
	for (i = 0; i < k; i++)
		envp[i] = env[i];
	memcpy(envp + k, environ, n * sizeof(*envp));
	p->pid = fork();
	if (p->pid == 0)
		child(p->c->command, envp);
	free(envp);
	/* Also here: the group exists before a timeout can kill it. */
	if (p->pid > 0)
		setpgid(p->pid, p->pid);
	if (p->pid < 0) {
		p->pid = 0;
		return fail(p, "fork", errno);
	}
	p->fd = syscall(SYS_pidfd_open, p->pid, 0);
	if (p->fd < 0)
		return fail(p, "pidfd_open", errno);
	p->phase = P_CHILD;
	p->events = EPOLLIN;
	return HC_PROBE_PENDING;
}

int hc_probe_start(struct hc_probe *p, const struct hc_check *c,
		   const struct rc_endpoint *to, char *const *env, uint64_t now)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->fd = -1;
	p->epfd = -1;
	p->deadline = now + c->timeout_ms;
	if (c->kind == HC_EXEC)
		return start_child(p, env);
	return start_socket(p, to);
}

static int child_done(struct hc_probe *p)
{
	int status;
	pid_t pid = p->pid;

	if (waitpid(pid, &status, WNOHANG) != pid)
		return HC_PROBE_PENDING;
	p->pid = 0;
	/* What it left behind in its group goes too. */
	kill(-pid, SIGKILL);
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		hc_probe_cancel(p);
		return HC_PROBE_OK;
	}
	if (WIFEXITED(status))
		snprintf(p->why, sizeof(p->why), "exit status %d", WEXITSTATUS(status));
	else
		snprintf(p->why, sizeof(p->why), "killed by signal %d", WTERMSIG(status));
	hc_probe_cancel(p);
	return HC_PROBE_FAIL;
}

/* "HTTP/1.x NNN": the status, once the first 12 bytes are in. */
static int http_status(struct hc_probe *p, bool eof)
{
	const char *b = p->buf;
	int st;

	if (p->len < 12 && !eof)
		return HC_PROBE_PENDING;
	if (p->len < 12)
		return fail(p, p->len ? "short HTTP reply" : "connection closed without a reply", 0);
	if (memcmp(b, "HTTP/1.", 7) || b[8] != ' ' || b[9] < '1' || b[9] > '5' ||
	    b[10] < '0' || b[10] > '9' || b[11] < '0' || b[11] > '9')
		return fail(p, "not an HTTP reply", 0);
	st = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
	if ((uint32_t)st != p->c->status) {
		snprintf(p->why, sizeof(p->why), "HTTP status %d, want %u", st, p->c->status);
		hc_probe_cancel(p);
		return HC_PROBE_FAIL;
	}
	hc_probe_cancel(p);
	return HC_PROBE_OK;
}

static int sock_error(struct hc_probe *p, const char *what)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	return fail(p, what, err ?: EIO);
}

static int recv_step(struct hc_probe *p, uint32_t events)
{
	ssize_t n;

	if (p->c->kind == HC_UDP) {
		uint8_t dgram[HC_PAYLOAD_LEN];

		n = recv(p->fd, dgram, sizeof(dgram), 0);
		if (n < 0)
			return errno == EAGAIN ? HC_PROBE_PENDING : fail(p, "recv", errno);
		if ((size_t)n < p->c->expect_len || memcmp(dgram, p->c->expect, p->c->expect_len))
			return fail(p, "unexpected reply", 0);
		hc_probe_cancel(p);
		return HC_PROBE_OK;
	}
	n = recv(p->fd, p->buf + p->len, sizeof(p->buf) - p->len, 0);
	if (n < 0)
		return errno == EAGAIN ? HC_PROBE_PENDING : fail(p, "recv", errno);
	p->len += n;
	return http_status(p, n == 0 || (events & EPOLLHUP));
}

int hc_probe_event(struct hc_probe *p, uint32_t events)
{
	ssize_t n;

	switch (p->phase) {
	case P_CHILD:
		return child_done(p);
	case P_CONNECT:
		if (events & (EPOLLERR | EPOLLHUP))
			return sock_error(p, "connect");
		if (p->c->kind == HC_TCP) {
			hc_probe_cancel(p);
			return HC_PROBE_OK;
		}
		p->phase = P_SEND;
		/* A connected socket can take the request now. */
		fallthrough;
	case P_SEND:
		n = send(p->fd, p->req + p->sent, p->req_len - p->sent, MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN ? HC_PROBE_PENDING : fail(p, "send", errno);
		p->sent += n;
		if (p->sent == p->req_len) {
			p->phase = P_RECV;
			p->events = EPOLLIN;
		}
		return HC_PROBE_PENDING;
	default:
		if ((events & EPOLLERR) && p->c->kind == HC_UDP)
			return sock_error(p, "recv");
		return recv_step(p, events);
	}
}

void hc_probe_cancel(struct hc_probe *p)
{
	if (p->fd >= 0 && p->epfd >= 0)
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->fd, NULL);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->epfd = -1;
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
}
