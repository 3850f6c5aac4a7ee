// SPDX-License-Identifier: GPL-2.0
/*
 * Ring benchmark (not a test): lookup cost of the bucket index against a
 * plain binary search over the same sorted array, in the same run, and the
 * cost of building a ring from scratch versus changing one backend; and
 * placement slots' lookup (kmod/slots.c) against the ring's of 256 vnodes
 * on the same backends and positions, the slot space full and half held.
 *
 * Lookups are timed in batches of BATCH random positions (one
 * clock_gettime() pair per batch), alternating index and binary search
 * batches; p50/p99 are over the per-lookup averages of the batches.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <time.h>

#include "ring_test.h"
#include "slots.h"

#define BATCH		1000
#define SAMPLES		3000
#define NPOS		(1 << 20)
#define BUILD_RUNS	15

static const u8 key[RINGSTEER_KEY_LEN] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

static u64 rnd(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(int)(p * (n - 1))];
}

static struct rs_member member(u32 i)
{
	struct rs_member m;

	memset(&m, 0, sizeof(m));
	m.family = AF_INET;
	m.addr[0] = 10;
	m.addr[1] = i >> 16;
	m.addr[2] = i >> 8;
	m.addr[3] = i;
	m.port = htons(80);
	m.weight = 1;
	return m;
}

static struct rs_ring *build(u32 n, u32 v)
{
	struct rs_member *m = calloc(n + 1, sizeof(*m));
	struct rs_ring *r;
	u32 i;

	for (i = 0; i < n; i++)
		m[i] = member(i);
	r = rs_ring_build(key, m, n, v);
	if (IS_ERR(r)) {
		fprintf(stderr, "build %u x %u: %s\n", n, v,
			strerror(-PTR_ERR(r)));
		exit(1);
	}
	free(m);
	return r;
}

static volatile int sink;

static void bench_lookup(u32 n, u32 v, const u64 *pos)
{
	static double ti[SAMPLES], tb[SAMPLES];
	struct rs_ring *r = build(n, v);
	u32 s, i, at = 0;
	double t0, i50, i99, b50, b99;
	int acc = 0;

	for (s = 0; s < SAMPLES; s++) {
		const u64 *p = pos + at;

		t0 = now_ns();
		for (i = 0; i < BATCH; i++)
			acc += rs_ring_lookup(r, p[i]);
		ti[s] = (now_ns() - t0) / BATCH;
		t0 = now_ns();
		for (i = 0; i < BATCH; i++)
			acc += rs_ring_lookup_bsearch(r, p[i]);
		tb[s] = (now_ns() - t0) / BATCH;
		at = (at + BATCH) % (NPOS - BATCH);
	}
	sink = acc;
	i50 = pct(ti, SAMPLES, 0.5);
	i99 = pct(ti, SAMPLES, 0.99);
	b50 = pct(tb, SAMPLES, 0.5);
	b99 = pct(tb, SAMPLES, 0.99);
	printf("%6u %6u %8u %7.2f %8.1f %8.1f %8.1f %8.1f %6.2fx\n",
	       n, v, r->npoints, (double)r->size / r->npoints,
	       i50, i99, b50, b99, b50 / i50);
	rs_ring_free(r);
}

/*
 * N backends of weight 1 holding slots 0 .. N - 1 of a space of 2^bits
 * (what "backend add" picks), timed against the ring of 256 vnodes on
 * the same backends, batches alternating.
 */
static void bench_slots(u32 n, u32 bits, const u64 *pos)
{
	static double ts[SAMPLES], tr[SAMPLES];
	struct rs_slot_holder *h = calloc(n, sizeof(*h));
	struct rs_ring *r = build(n, 256);
	struct rs_slots *t;
	u32 s, i, at = 0;
	double t0, s50, s99, r50;
	int acc = 0;

	for (i = 0; i < n; i++)
		h[i] = (struct rs_slot_holder){ i, (u16)i };
	t = rs_slots_build(bits, h, n);
	if (IS_ERR(t))
		exit(1);
	for (s = 0; s < SAMPLES; s++) {
		const u64 *p = pos + at;

		t0 = now_ns();
		for (i = 0; i < BATCH; i++)
			acc += rs_slots_lookup(t, p[i]);
		ts[s] = (now_ns() - t0) / BATCH;
		t0 = now_ns();
		for (i = 0; i < BATCH; i++)
			acc += rs_ring_lookup(r, p[i]);
		tr[s] = (now_ns() - t0) / BATCH;
		at = (at + BATCH) % (NPOS - BATCH);
	}
	sink = acc;
	s50 = pct(ts, SAMPLES, 0.5);
	s99 = pct(ts, SAMPLES, 0.99);
	r50 = pct(tr, SAMPLES, 0.5);
	printf("%6u %6u %5.2f %8zu %8.1f %8.1f %8.1f %9zu %6.2fx\n", n, 1U << bits,
	       (double)(1U << bits) / n, t->size, s50, s99, r50, r->size, s50 / r50);
	rs_slots_free(t);
	rs_ring_free(r);
	free(h);
}

static double median_ms(double *v)
{
	return pct(v, BUILD_RUNS, 0.5) / 1e6;
}

/* A change that failed was not timed: stop rather than report it. */
static void drop(struct rs_ring *x)
{
	if (IS_ERR(x)) {
		fprintf(stderr, "ring change: %s\n", strerror(-PTR_ERR(x)));
		exit(1);
	}
	rs_ring_free(x);
}

static void bench_build(u32 n, u32 v)
{
	double full[BUILD_RUNS], add[BUILD_RUNS], del[BUILD_RUNS];
	double wup[BUILD_RUNS], wdown[BUILD_RUNS];
	struct rs_member extra = member(n);
	struct rs_ring *r = build(n, v), *x, *y;
	int k;
	double t0;

	for (k = 0; k < BUILD_RUNS; k++) {
		t0 = now_ns();
		x = build(n, v);
		full[k] = now_ns() - t0;
		rs_ring_free(x);

		t0 = now_ns();
		x = rs_ring_add_member(r, &extra);
		add[k] = now_ns() - t0;
		drop(x);

		t0 = now_ns();
		x = rs_ring_remove_member(r, k);
		del[k] = now_ns() - t0;
		drop(x);

		t0 = now_ns();
		x = rs_ring_set_weight(r, k, 2);
		wup[k] = now_ns() - t0;
		if (IS_ERR(x))
			exit(1);

		t0 = now_ns();
		y = rs_ring_set_weight(x, k, 1);
		wdown[k] = now_ns() - t0;
		drop(y);
		rs_ring_free(x);
	}
	printf("\nbuild, %u backends x %u points = %u points, median of %d:\n",
	       n, v, r->npoints, BUILD_RUNS);
	printf("  full build            %8.3f ms\n", median_ms(full));
	printf("  add one backend       %8.3f ms\n", median_ms(add));
	printf("  remove one backend    %8.3f ms\n", median_ms(del));
	printf("  weight 1 -> 2         %8.3f ms\n", median_ms(wup));
	printf("  weight 2 -> 1         %8.3f ms\n", median_ms(wdown));
	printf("  ring size             %8.2f MiB (%.2f bytes/point)\n",
	       r->size / 1048576.0, (double)r->size / r->npoints);
	rs_ring_free(r);
}

static void bench_hash(void)
{
	struct rs_flow f;
	struct rs_key k;
	double t0, t[SAMPLES];
	u64 acc = 0;
	u32 s, i;

	rs_key_init(&k, key);
	memset(&f, 0, sizeof(f));
	f.family = AF_INET;
	f.proto = 6;
	for (s = 0; s < SAMPLES; s++) {
		t0 = now_ns();
		for (i = 0; i < BATCH; i++) {
			f.sport = i;
			acc += rs_flow_position(&k, &f, RINGSTEER_HASH_FLOW);
		}
		t[s] = (now_ns() - t0) / BATCH;
	}
	sink = acc;
	printf("\nflow position (SipHash-2-4 of 38 bytes, %s): p50 %.1f ns, p99 %.1f ns\n",
	       "userspace libsodium", pct(t, SAMPLES, 0.5), pct(t, SAMPLES, 0.99));
}

int main(void)
{
	static const u32 ns[] = { 10, 100, 1000 }, vs[] = { 64, 256, 1024 };
	u64 *pos = malloc(NPOS * sizeof(u64)), seed = 1;
	u32 i, j;

	if (!pos || sodium_init() < 0)
		return 1;
	for (i = 0; i < NPOS; i++)
		pos[i] = rnd(&seed);
	printf("lookup, ns per lookup over batches of %d random positions\n",
	       BATCH);
	printf("%6s %6s %8s %7s %8s %8s %8s %8s %7s\n", "N", "V", "points",
	       "B/point", "idx p50", "idx p99", "bs p50", "bs p99", "bs/idx");
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			bench_lookup(ns[i], vs[j], pos);
	printf("\nplacement slots, ns per lookup (same batches), against the ring of 256 vnodes\n");
	printf("%6s %6s %5s %8s %8s %8s %8s %9s %7s\n", "N", "C", "C/L", "bytes",
	       "slot p50", "slot p99", "ring p50", "ring B", "slot/ring");
	for (i = 0; i < 4; i++) {
		static const u32 sn[] = { 10, 100, 1000, 4000 };
		u32 bits = 1;

		while ((1U << bits) < sn[i])
			bits++;
		bench_slots(sn[i], bits, pos);
		bench_slots(sn[i], bits + 1, pos);
	}
	bench_build(1000, 256);
	bench_hash();
	free(pos);
	return 0;
}
