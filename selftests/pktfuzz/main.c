// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packets --topo FILE [--seed S] [--first I] [--count N]
 *              [--icmp-rate R] [--flows FILE] [--summary FILE] [--show N]
 *              [--verbose]
 *
 * Sends inputs I .. I+N-1 of the run with seed S (crafted frames, see
 * gen.c) from the client's end of the link to the load balancer, reads
 * what the load balancer sends on each of its links, and checks the
 * invariants of check.c. Input K is the same for a given seed whichever
 * inputs run before it, so a failing one replays alone with --first K
 * --count 1 (--verbose prints it and what came out). The first --show
 * failures of each invariant (default 3) are printed whole. It writes the flows
 * the services steered (--flows, for `ringctl lookup`) and what it
 * counted per service (--summary, JSON, for the kernel's counters), and
 * exits 1 if an invariant failed, 2 on a setup error.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#include "pktfuzz.h"

/* Inputs judged this many later: their outputs have all arrived by then. */
#define LAG		256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s --topo FILE [--seed S] [--first I] [--count N] [--icmp-rate R]\n"
		"          [--flows FILE] [--summary FILE] [--show N] [--verbose]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "first", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "icmp-rate", required_argument, NULL, 'r' },
		{ "flows", required_argument, NULL, 'F' },
		{ "summary", required_argument, NULL, 'S' },
		{ "show", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *topo_path = NULL, *flows = NULL, *summary = NULL;
	uint64_t seed = (uint64_t)time(NULL), first = 0, count = 1000, i;
	unsigned int icmp_rate = 0, show = 3;
	static struct topo t;
	static struct gen g;
	struct capture *cap;
	struct check *c;
	struct input in;
	struct rusage ru;
	double t0, last, secs;
	bool verbose = false;
	int opt, quiet, rc;

	while ((opt = getopt_long(argc, argv, "t:s:f:n:r:F:S:w:v", opts, NULL)) != -1) {
		switch (opt) {
		case 't': topo_path = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'f': first = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'r': icmp_rate = strtoul(optarg, NULL, 0); break;
		case 'F': flows = optarg; break;
		case 'S': summary = optarg; break;
		case 'w': show = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: usage(argv[0]);
		}
	}
	if (!topo_path || topo_read(&t, topo_path))
		usage(argv[0]);
	printf("fuzz_packets: seed %llu, inputs %llu to %llu (replay: RS_PKT_SEED=%llu RS_PKT_FIRST=%llu RS_PKT_COUNT=%llu)\n",
	       (unsigned long long)seed, (unsigned long long)first,
	       (unsigned long long)(first + count - 1), (unsigned long long)seed,
	       (unsigned long long)first, (unsigned long long)count);
	fflush(stdout);
	cap = cap_open(&t);
	c = check_new(&t, seed, first, icmp_rate, show, verbose);
	g.t = &t;
	g.seed = seed;
	t0 = last = now();
	for (i = first; i < first + count; i++) {
		gen_input(&g, i, &in);
		if (verbose)
			printf("input %llu: %s(%u frame%s)\n", (unsigned long long)i, in.what,
			       in.nframes, in.nframes == 1 ? "" : "s");
		check_input(c, &in);
		cap_send(cap, g.frames, in.nframes);
		cap_poll(cap, check_frame, c, 0);
		if (i >= first + LAG)
			check_settle(c, i - LAG);
		if (now() - last >= 30) {
			last = now();
			printf("  %llu inputs, %.0f/s\n", (unsigned long long)(i + 1 - first),
			       (i + 1 - first) / (last - t0));
			fflush(stdout);
		}
	}
	secs = now() - t0;
	/* What is still on the way: until 300 ms pass without a frame. */
	for (quiet = 0; quiet < 3;)
		quiet = cap_poll(cap, check_frame, c, 100) ? 0 : quiet + 1;
	check_capture(c, cap_drops(cap));
	/* System time includes the LB's softirq work, run as each send returns. */
	getrusage(RUSAGE_SELF, &ru);
	printf("fuzz_packets: %llu inputs in %.1f s: %.0f inputs/s (CPU: %.1f s user, %.1f s system)\n",
	       (unsigned long long)count, secs, count / (secs > 0 ? secs : 1),
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (cap_send_errors(cap))
		printf("  %llu frames refused by the packet socket (shorter than a header)\n",
		       (unsigned long long)cap_send_errors(cap));
	rc = check_finish(c, flows, summary);
	cap_close(cap);
	return rc;
}
