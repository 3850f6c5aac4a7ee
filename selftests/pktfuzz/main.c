// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packets --topo FILE [--seed S] [--first I] [--count N]
 *              [--icmp-rate R] [--flows FILE] [--summary FILE] [--show N]
 *              [--verbose] [--pins FILE [--establish]] [--touched FILE]
 * fuzz_packets --topo FILE --seed S --pick-held N
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
 *
 * Held flows (gen_held.c): --pick-held prints N candidates a tunnel
 * service; --pins reads them (and, after a ring change, the flows pinned
 * before it, pins.c), keeps the held ones alive with a packet each every
 * HELD_EVERY seconds, from the start to the end of the run, aims some
 * inputs at them, and writes the file back with the ones an input ended;
 * with --establish it only starts them: a SYN (a first packet for UDP),
 * then, CONFIRM_WAIT later, a packet that confirms their entries.
 * --touched writes the tuples of tunnel services the run sent.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#include "pktfuzz.h"

/* Inputs judged this many later: their outputs have all arrived by then. */
#define LAG		256
/* Seconds between keepalives of held flows: flowtab.c's RS_FT_ACTIVE is 30. */
#define HELD_EVERY	5
/* Seconds from a held flow's first packet to its second: RS_FT_CONFIRM is 1. */
#define CONFIRM_WAIT	1.5

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
		"          [--flows FILE] [--summary FILE] [--show N] [--verbose]\n"
		"          [--pins FILE [--establish]] [--touched FILE]\n"
		"       %s --topo FILE --seed S --pick-held N\n", argv0, argv0);
	exit(2);
}

/* A packet of every held flow, its outputs read as they come. */
static void held_round(struct gen *g, struct capture *cap, struct check *c,
		       struct pins *p, bool syn)
{
	static uint32_t round;
	int i;

	for (i = 0; i < p->nheld; i++) {
		gen_keepalive(g, &p->held_flows[i], i, round, syn, &g->frames[0]);
		cap_send(cap, g->frames, 1);
		p->held[i]->sent++;
		cap_poll(cap, check_frame, c, 0);
	}
	round++;
}

/* Read what comes for @secs. */
static void wait_reading(struct capture *cap, struct check *c, double secs)
{
	double end = now() + secs;

	while (now() < end)
		cap_poll(cap, check_frame, c, 50);
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
		{ "pins", required_argument, NULL, 'p' },
		{ "establish", no_argument, NULL, 'e' },
		{ "touched", required_argument, NULL, 'T' },
		{ "pick-held", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	const char *topo_path = NULL, *flows = NULL, *summary = NULL;
	const char *pins_path = NULL, *touched = NULL;
	struct pins *pins = NULL;
	bool establish = false;
	int pick = -1;
	uint64_t seed = (uint64_t)time(NULL), first = 0, count = 1000, i;
	unsigned int icmp_rate = 0, show = 3;
	static struct topo t;
	static struct gen g;
	struct capture *cap;
	struct check *c;
	struct input in;
	struct rusage ru;
	double t0, last, secs, kept;
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
		case 'p': pins_path = optarg; break;
		case 'e': establish = true; break;
		case 'T': touched = optarg; break;
		case 'P': pick = atoi(optarg); break;
		default: usage(argv[0]);
		}
	}
	if (!topo_path || topo_read(&t, topo_path) || (establish && !pins_path))
		usage(argv[0]);
	if (pick >= 0) {
		gen_pick_held(&t, seed, pick, stdout);
		return 0;
	}
	if (pins_path && !(pins = pins_read(&t, pins_path)))
		return 2;
	printf("fuzz_packets: seed %llu, inputs %llu to %llu (replay: RS_PKT_SEED=%llu RS_PKT_FIRST=%llu RS_PKT_COUNT=%llu)\n",
	       (unsigned long long)seed, (unsigned long long)first,
	       (unsigned long long)(first + count - 1), (unsigned long long)seed,
	       (unsigned long long)first, (unsigned long long)count);
	fflush(stdout);
	cap = cap_open(&t);
	c = check_new(&t, seed, first, icmp_rate, show, verbose);
	g.t = &t;
	g.seed = seed;
	if (pins) {
		check_pins(c, pins, touched);
		g.held = pins->held_flows;
		g.nheld = pins->nheld;
		held_round(&g, cap, c, pins, establish);
		if (establish) {
			wait_reading(cap, c, CONFIRM_WAIT);
			held_round(&g, cap, c, pins, false);
			count = 0;
		}
	} else if (touched) {
		check_pins(c, NULL, touched);
	}
	t0 = last = kept = now();
	for (i = first; i < first + count; i++) {
		gen_input(&g, i, &in);
		if (verbose)
			printf("input %llu: %s(%u frame%s)\n", (unsigned long long)i, in.what,
			       in.nframes, in.nframes == 1 ? "" : "s");
		check_input(c, &in);
		check_sent(c, g.sent, g.nsent);
		cap_send(cap, g.frames, in.nframes);
		cap_poll(cap, check_frame, c, 0);
		if (i >= first + LAG)
			check_settle(c, i - LAG);
		if (pins && now() - kept >= HELD_EVERY) {
			held_round(&g, cap, c, pins, false);
			kept = now();
		}
		if (now() - last >= 30) {
			last = now();
			printf("  %llu inputs, %.0f/s\n", (unsigned long long)(i + 1 - first),
			       (i + 1 - first) / (last - t0));
			fflush(stdout);
		}
	}
	secs = now() - t0;
	if (pins && count)
		held_round(&g, cap, c, pins, false);
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
	if (pins && pins_write(pins, &t, pins_path))
		rc = 2;
	pins_free(pins);
	return rc;
}
