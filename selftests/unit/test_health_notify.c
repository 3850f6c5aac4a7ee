// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's notifications to its service manager
 * (userspace/lib/sd_notify.c): $NOTIFY_SOCKET's path and abstract names,
 * $WATCHDOG_USEC and $WATCHDOG_PID, STATUS= on one line, and datagrams
 * as a listener (a path in a temporary directory, an abstract name)
 * receives them.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* ASSERT_EQ(1, u32) compares an int with an unsigned. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sd_notify.h"
#include "health/health_notify.h"

TEST(addresses)
{
	struct sockaddr_un sa;
	socklen_t len;
	char longname[200];

	ASSERT_EQ(0, sd_notify_addr("/run/systemd/notify", &sa, &len));
	ASSERT_EQ(AF_UNIX, sa.sun_family);
	ASSERT_STREQ("/run/systemd/notify", sa.sun_path);
	/* A path's length counts its NUL. */
	ASSERT_EQ(offsetof(struct sockaddr_un, sun_path) + 20, len);
	/* An abstract name: NUL first, and exactly the name's bytes. */
	ASSERT_EQ(0, sd_notify_addr("@ringsteer/notify", &sa, &len));
	ASSERT_EQ('\0', sa.sun_path[0]);
	ASSERT_EQ(0, memcmp(sa.sun_path + 1, "ringsteer/notify", 16));
	ASSERT_EQ(offsetof(struct sockaddr_un, sun_path) + 17, len);
	/* Neither absolute nor abstract, empty, or too long. */
	ASSERT_EQ(-EINVAL, sd_notify_addr("run/notify", &sa, &len));
	ASSERT_EQ(-EINVAL, sd_notify_addr("@", &sa, &len));
	ASSERT_EQ(-EINVAL, sd_notify_addr("", &sa, &len));
	ASSERT_EQ(-EINVAL, sd_notify_addr(NULL, &sa, &len));
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	ASSERT_EQ(-EINVAL, sd_notify_addr(longname, &sa, &len));
}

TEST(watchdog_env)
{
	struct sd_notify n;

	ASSERT_EQ(0, sd_notify_open(&n, NULL, "20000000", NULL, 42));
	ASSERT_EQ(20000, n.watchdog_ms);
	ASSERT_EQ(-1, n.fd);
	/* For this process only when WATCHDOG_PID names it. */
	ASSERT_EQ(0, sd_notify_open(&n, NULL, "20000000", "42", 42));
	ASSERT_EQ(20000, n.watchdog_ms);
	ASSERT_EQ(0, sd_notify_open(&n, NULL, "20000000", "43", 42));
	ASSERT_EQ(0, n.watchdog_ms);
	ASSERT_EQ(0, sd_notify_open(&n, NULL, "20s", NULL, 42));
	ASSERT_EQ(0, n.watchdog_ms);
	ASSERT_EQ(0, sd_notify_open(&n, NULL, "0", NULL, 42));
	ASSERT_EQ(0, n.watchdog_ms);
	ASSERT_EQ(0, sd_notify_open(&n, NULL, "500", NULL, 42));
	ASSERT_EQ(1, n.watchdog_ms);
	ASSERT_EQ(-EINVAL, sd_notify_open(&n, "relative", NULL, NULL, 42));
	ASSERT_EQ(-1, n.fd);
	/* Without a socket, sending is a quiet no-op. */
	ASSERT_EQ(0, sd_notify_send(&n, "READY=1"));
}

TEST(status_is_one_line)
{
	char buf[32];

	ASSERT_EQ(25, sd_notify_status(buf, sizeof(buf), "3 services,\n1 down"));
	ASSERT_STREQ("STATUS=3 services, 1 down", buf);
	/* Cut to the buffer, NUL included. */
	ASSERT_EQ(31, sd_notify_status(buf, sizeof(buf), "0123456789012345678901234567890123"));
	ASSERT_STREQ("STATUS=012345678901234567890123", buf);
}

static void roundtrip(struct __test_metadata *_metadata, const char *name,
		      struct sockaddr_un *sa, socklen_t len)
{
	struct sd_notify n;
	char buf[64];
	ssize_t got;
	int srv = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, srv);
	ASSERT_EQ(0, bind(srv, (struct sockaddr *)sa, len));
	ASSERT_EQ(0, sd_notify_open(&n, name, NULL, NULL, getpid()));
	ASSERT_LE(0, n.fd);
	ASSERT_EQ(0, sd_notify_send(&n, "READY=1"));
	ASSERT_EQ(0, sd_notify_send(&n, "WATCHDOG=1"));
	/* One datagram each, in order, exactly the message. */
	got = recv(srv, buf, sizeof(buf), 0);
	ASSERT_EQ(7, got);
	ASSERT_EQ(0, memcmp(buf, "READY=1", 7));
	got = recv(srv, buf, sizeof(buf), 0);
	ASSERT_EQ(10, got);
	ASSERT_EQ(0, memcmp(buf, "WATCHDOG=1", 10));
	close(srv);
	/* Nobody listening any more: an error the caller can log. */
	ASSERT_GT(0, sd_notify_send(&n, "WATCHDOG=1"));
	sd_notify_close(&n);
}

TEST(datagram_to_a_path)
{
	char dir[] = "/tmp/hc-notify-XXXXXX", path[64];
	struct sockaddr_un sa;
	socklen_t len;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	ASSERT_EQ(0, sd_notify_addr(path, &sa, &len));
	roundtrip(_metadata, path, &sa, len);
	unlink(path);
	rmdir(dir);
}

TEST(datagram_to_an_abstract_name)
{
	struct sockaddr_un sa;
	char name[64];
	socklen_t len;

	snprintf(name, sizeof(name), "@ringsteer-test-notify-%d", getpid());
	ASSERT_EQ(0, sd_notify_addr(name, &sa, &len));
	roundtrip(_metadata, name, &sa, len);
}

TEST_HARNESS_MAIN
