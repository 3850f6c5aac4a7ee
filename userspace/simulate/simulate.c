// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate: the kernel's ring code (kmod/ring.c) run offline on
 * given or generated backends. Shares and moved hash space are computed
 * exactly from arc lengths, not sampled. Placement slots, and the side by
 * side with Maglev, are in simulate_slots.c. Everything is parsed and built
 * before the first byte of output, so bad input prints only an error.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "../cmd.h"
#include "parse.h"
#include "print.h"
#include "sim_report.h"

#define CTX "simulate"
#define TRY "try 'ringctl simulate help'"

void cmd_simulate_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl simulate [-j] [key HEX32] [vnodes N] [hash flow|source]\n"
"           [placement ring|slots [capacity N]]\n"
"           { { backends COUNT [FIRST] |\n"
"               backend ADDR:PORT[@WEIGHT] [slots N[,N...]] }...\n"
"             [draining COUNT] |\n"
"             file FILE|- [service VIP:PORT] [proto P] }\n"
"           [add ADDR:PORT[@WEIGHT] [slots N[,N...]] | remove ADDR:PORT |\n"
"            drain ADDR:PORT | weight ADDR:PORT WEIGHT [slots N[,N...]]]\n"
"           [shares] [sweep [V,V,...]] [need-vnodes PEAK_MEAN] [flows FILE|-]\n"
"           [chain K] [samples N] [compare]\n"
"\n"
"Runs the kernel's ring and slots code offline. ADDR is a.b.c.d or [ipv6].\n"
"  key HEX32          SipHash key, 32 hex digits (default 000102..0f)\n"
"  vnodes N           points per unit of weight (default %u, 1..%u)\n"
"  placement slots    a slots service: each backend, in the order given,\n"
"                     takes the lowest free slots of capacity N (default\n"
"                     %u, a power of two %u..%u) as 'backend add' does;\n"
"                     'slots' after a backend, add or weight gives their\n"
"                     numbers (W is their count; the others pick around)\n"
"                     shares and moves by the placement rule (every live\n"
"                     slot 1/L), checked on sampled flows\n"
"  backends COUNT     COUNT backends of weight 1 from FIRST (default\n"
"                     10.0.0.1:80), addresses counting up\n"
"  draining COUNT     COUNT of the N backends draining, spread evenly: the\n"
"                     i-th (from 0) when floor((i+1)*COUNT/N) !=\n"
"                     floor(i*COUNT/N), so every fifth for a fifth; off\n"
"                     the ring, their slots kept but not live\n"
"  file FILE          a service of a configuration file (save's format):\n"
"                     its key, settings and backends with their weights,\n"
"                     slots, states (words given win); service, proto pick it\n"
"  add/remove/drain/weight\n"
"                     one change: exact hash space moved, from where to\n"
"                     where, between uninvolved backends (always 0), and\n"
"                     hash mod N for comparison (drain = leave the ring)\n"
"  shares             print every backend's share, not only the summary\n"
"  sweep [LIST]       skew, memory and moves per vnodes value (default\n"
"                     1,2,4,...,4096); without a change, adding one backend;\n"
"                     placement slots: per capacity (default every power of\n"
"                     two from the slots held to 65536), probes, memory,\n"
"                     sampled balance and the change's moves\n"
"  need-vnodes X      smallest vnodes with peak/mean <= X, by doubling\n"
"                     then bisection (skew is not monotone in vnodes)\n"
"  flows FILE|-       print the owner of each flow, one per line:\n"
"                     SRC:SPORT DST:DPORT PROTO (tcp, udp, sctp or a\n"
"                     number); with a change also the owner after it\n"
"  chain K            with a change and flows, the hops each flow then\n"
"                     carries (1..4, ring only; default the file's)\n"
"  samples N          flows drawn from the key to count (default %u):\n"
"                     per-backend peak/mean against 1 + 3 sqrt(N/F),\n"
"                     probes, and a change's moves and collateral counted\n"
"  compare            the ring (vnodes), the slots (capacity) and Maglev\n"
"                     (%u entries) on the same backends, change and flows\n"
"  -j                 JSON output\n",
		RINGSTEER_DEFAULT_VNODES, RINGSTEER_MAX_VNODES, RINGSTEER_DEFAULT_CAPACITY,
		RINGSTEER_MIN_CAPACITY, RINGSTEER_MAX_CAPACITY, SIM_SAMPLES_DEFAULT,
		SIM_MAGLEV_SIZE);
}

static int add_backend(struct sim *s, const struct rs_member *m)
{
	char buf[RC_ENDPOINT_LEN];
	struct sim_given *g;
	struct rs_member *nm;

	if (sim_find(s->all, s->nall, m) >= 0) {
		sim_member_format(buf, m);
		return cli_error(CTX ": duplicate backend %s", buf);
	}
	if (s->nall >= RINGSTEER_MAX_BACKENDS)
		return cli_error(CTX ": more than %u backends",
			      RINGSTEER_MAX_BACKENDS);
	nm = realloc(s->all, (s->nall + 1) * sizeof(*nm));
	if (nm)
		s->all = nm;
	g = realloc(s->given, (s->nall + 1) * sizeof(*g));
	if (g)
		s->given = g;
	if (!nm || !g)
		return cli_error(CTX ": out of memory");
	memset(&s->given[s->nall], 0, sizeof(*g));
	s->all[s->nall++] = *m;
	return 0;
}

/* The address @i steps after @m's (last 32 bits, big-endian). */
static struct rs_member step_addr(const struct rs_member *m, u32 i)
{
	struct rs_member x = *m;
	int off = m->family == AF_INET ? 0 : 12;
	u32 a;

	memcpy(&a, x.addr + off, 4);
	a = htonl(ntohl(a) + i);
	memcpy(x.addr + off, &a, 4);
	return x;
}

static int bad(const char *what, const char *arg, int err)
{
	parse_bad_value(CTX, what, arg, err, TRY);
	return err ? err : -EINVAL;
}

/*
 * Each keyword's handler gets the words from the keyword on and returns
 * how many it used, or -errno after printing why.
 */
static int kw_key(struct sim *s, int argc, char **argv)
{
	if (argc < 2 || parse_key(argv[1], s->key))
		return bad("key (32 hex digits)", argv[1], -EINVAL);
	s->set |= SIM_SET_KEY;
	return 2;
}

static int kw_vnodes(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_u32(argv[1], 1, RINGSTEER_MAX_VNODES, &s->vnodes);

	s->set |= SIM_SET_VNODES;
	return err ? bad("vnodes", argv[1], err) : 2;
}

static int kw_hash(struct sim *s, int argc, char **argv)
{
	uint32_t mode;

	if (argc < 2 || rc_enum_parse(&rc_enum_hash_mode, argv[1], &mode))
		return bad("hash mode", argv[1], -EINVAL);
	s->mode = mode;
	s->set |= SIM_SET_HASH;
	return 2;
}

static int kw_backends(struct sim *s, int argc, char **argv)
{
	struct rs_member m, first;
	int err, used = 2;
	u32 k, count;

	err = argc < 2 ? -EINVAL : parse_u32(argv[1], 1, RINGSTEER_MAX_BACKENDS, &count);
	if (err)
		return bad("backend count", argv[1], err);
	parse_member("10.0.0.1:80", &first);
	if (argc > 2 && strchr(argv[2], ':')) {
		err = parse_member(argv[2], &first);
		if (err)
			return bad("first backend", argv[2], err);
		used++;
	}
	for (k = 0; k < count; k++) {
		m = step_addr(&first, k);
		err = add_backend(s, &m);
		if (err)
			return err;
	}
	return used;
}

static int kw_backend(struct sim *s, int argc, char **argv)
{
	struct rs_member m;
	int err = argc < 2 ? -EINVAL : parse_member(argv[1], &m);

	if (err)
		return bad("backend", argv[1], err);
	err = add_backend(s, &m);
	s->slots_for = s->nall - 1;
	s->slots_weight = strchr(argv[1], '@');
	return err ? err : 2;
}

static int kw_change(struct sim *s, int argc, char **argv)
{
	static const char *const words[] = {
		[CH_ADD] = "add", [CH_REMOVE] = "remove",
		[CH_DRAIN] = "drain", [CH_WEIGHT] = "weight",
	};
	int err;

	if (s->change != CH_NONE)
		return cli_error(CTX ": only one change per run");
	for (s->change = CH_ADD; strcmp(argv[0], words[s->change]); s->change++)
		;
	err = argc < 2 ? -EINVAL : parse_member(argv[1], &s->cm);
	if (err || (s->change != CH_ADD && strchr(argv[1], '@')))
		return bad("backend", argv[1], err);
	s->slots_for = s->change == CH_ADD || s->change == CH_WEIGHT ? SIM_SLOTS_CHANGE :
		       SIM_SLOTS_NONE;
	s->slots_weight = s->change == CH_WEIGHT || strchr(argv[1], '@');
	if (s->change != CH_WEIGHT)
		return 2;
	err = argc < 3 ? -EINVAL : parse_u32(argv[2], 1, RINGSTEER_MAX_WEIGHT, &s->cm.weight);
	return err ? bad("weight", argv[2], err) : 3;
}

static int kw_shares(struct sim *s, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	s->shares = true;
	return 1;
}

static int kw_sweep(struct sim *s, int argc, char **argv)
{
	char buf[256], *tok, *save = NULL;
	int err;

	s->sweep = true;
	if (argc < 2 || !isdigit((unsigned char)*argv[1]))
		return 1;
	if (strlen(argv[1]) >= sizeof(buf))
		return bad("sweep list", argv[1], -EINVAL);
	strcpy(buf, argv[1]);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->nsweep == MAX_SWEEP)
			return bad("sweep list (too long)", argv[1], -EINVAL);
		/* vnodes, or a slots service's capacities: checked after parsing. */
		err = parse_u32(tok, 1, RINGSTEER_MAX_CAPACITY, &s->sweep_v[s->nsweep++]);
		if (err)
			return bad("sweep value", tok, err);
	}
	return s->nsweep ? 2 : bad("sweep list", argv[1], -EINVAL);
}

static int kw_need(struct sim *s, int argc, char **argv)
{
	char *e;

	s->need = argc > 1 ? strtod(argv[1], &e) : 0;
	if (argc < 2 || *e || !(s->need > 1.0) || s->need > 1000)
		return bad("need-vnodes target (> 1)", argv[1], -EINVAL);
	return 2;
}

static int kw_flows(struct sim *s, int argc, char **argv)
{
	if (argc < 2)
		return bad("flows file", NULL, -EINVAL);
	s->flows_path = argv[1];
	return 2;
}

static int kw_chain(struct sim *s, int argc, char **argv)
{
	int err = argc < 2 ? -EINVAL : parse_u32(argv[1], 1, RINGSTEER_MAX_CHAIN, &s->chain);

	return err ? bad("chain (1..4)", argv[1], err) : 2;
}

static int kw_compare(struct sim *s, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	s->compare = true;
	return 1;
}

static int kw_json(struct sim *s, int argc, char **argv)
{
	(void)s;
	(void)argc;
	(void)argv;
	cli_json = true;
	return 1;
}

static const struct {
	const char *name;
	int (*parse)(struct sim *s, int argc, char **argv);
} keywords[] = {
	{ "-j", kw_json }, { "--json", kw_json },
	{ "key", kw_key }, { "vnodes", kw_vnodes }, { "hash", kw_hash },
	{ "backends", kw_backends }, { "backend", kw_backend },
	{ "add", kw_change }, { "remove", kw_change }, { "drain", kw_change },
	{ "weight", kw_change }, { "shares", kw_shares }, { "sweep", kw_sweep },
	{ "need-vnodes", kw_need }, { "flows", kw_flows }, { "chain", kw_chain },
	{ "placement", sim_kw_placement }, { "capacity", sim_kw_capacity },
	{ "draining", sim_kw_draining }, { "samples", sim_kw_samples },
	{ "compare", kw_compare }, { "slots", sim_kw_slots },
	{ "file", sim_kw_file }, { "service", sim_kw_service }, { "proto", sim_kw_proto },
};

static int parse(struct sim *s, int argc, char **argv)
{
	size_t k;
	int i, used, err;

	for (i = 1; i < argc; i += used) {
		for (k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			if (!strcmp(argv[i], keywords[k].name))
				break;
		if (k == sizeof(keywords) / sizeof(keywords[0]))
			return cli_error(CTX ": unknown argument '%s' (" TRY ")", argv[i]);
		/* "slots" belongs to the backend or change just before it. */
		if (keywords[k].parse != sim_kw_slots)
			s->slots_for = SIM_SLOTS_NONE;
		used = keywords[k].parse(s, argc - i, argv + i);
		if (used < 0)
			return used;
	}
	err = sim_file_load(s);
	if (err)
		return err;
	if (!s->nall)
		return cli_error(CTX ": no backends (" TRY ")");
	err = sim_check_words(s) ?: sim_split_draining(s);
	if (err)
		return err;
	if (s->chain > 1 && s->placement == RINGSTEER_PLACEMENT_SLOTS)
		return cli_error(CTX ": chain applies to placement ring only");
	if (s->flows_path)
		return parse_flows_file(s->flows_path, CTX ": flows", &s->flows, &s->nflows);
	return 0;
}

/* The backend list after the change, in "mod N" slot order. */
static int plan_change(struct sim *s, const struct rs_member *x,
		       enum change_kind c, struct rs_member **out, u32 *nout)
{
	char buf[RC_ENDPOINT_LEN];
	int at = sim_find(s->m, s->n, x);
	struct rs_member *a;

	sim_member_format(buf, x);
	if (c == CH_ADD && at >= 0)
		return cli_error(CTX ": %s is already a backend", buf);
	if (c != CH_ADD && at < 0)
		return cli_error(CTX ": %s is not a backend", buf);
	if (c == CH_ADD && s->n >= RINGSTEER_MAX_BACKENDS)
		return cli_error(CTX ": more than %u backends",
			      RINGSTEER_MAX_BACKENDS);
	a = malloc((s->n + 1) * sizeof(*a));
	if (!a)
		return cli_error(CTX ": out of memory");
	memcpy(a, s->m, s->n * sizeof(*a));
	*nout = s->n;
	if (c == CH_ADD) {
		a[(*nout)++] = *x;
	} else if (c == CH_WEIGHT) {
		a[at].weight = x->weight;
	} else {
		memmove(a + at, a + at + 1, (s->n - at - 1) * sizeof(*a));
		(*nout)--;
	}
	*out = a;
	return 0;
}

static struct rs_ring *build(const struct sim *s, const struct rs_member *m,
			     u32 n, u32 vnodes)
{
	return rs_ring_build(s->key, m, n, vnodes);
}

/* A backend to add when the sweep has no change of its own. */
static struct rs_member next_backend(const struct sim *s)
{
	struct rs_member x = s->m[s->n - 1];
	u32 i;

	for (i = 1; sim_find(s->m, s->n, &x) >= 0; i++)
		x = step_addr(&s->m[s->n - 1], i);
	x.weight = 1;
	return x;
}

/* What a perfect ring would move: the change in the backend's share. */
static double ideal_move(const struct sim *s, const struct rs_member *x,
			 const struct rs_member *after, u32 nafter)
{
	int a = sim_find(s->m, s->n, x), b = sim_find(after, nafter, x);
	double sa = a < 0 ? 0 : (double)s->m[a].weight / sim_total_weight(s->m, s->n);
	double sb = b < 0 ? 0 : (double)after[b].weight /
				sim_total_weight(after, nafter);

	return fabs(sb - sa);
}

/* The ring after change @c of @x, or an ERR_PTR(). */
static struct rs_ring *apply(const struct rs_ring *r, enum change_kind c,
			     const struct rs_member *x)
{
	int idx = c == CH_ADD ? 0 : rs_ring_find_member(r, x);

	if (idx < 0)
		return ERR_PTR(idx);
	if (c == CH_ADD)
		return rs_ring_add_member(r, x);
	if (c == CH_WEIGHT)
		return rs_ring_set_weight(r, idx, x->weight);
	return rs_ring_remove_member(r, idx);
}

/* Builds at @v, and the change if @x: skew, memory, moved space. */
static int measure(const struct sim *s, u32 v, enum change_kind c,
		   const struct rs_member *x, struct sim_row *row)
{
	struct sim_diff d = { 0 };
	struct rs_ring *r, *r2;
	double *share;
	int err;

	memset(row, 0, sizeof(*row));
	row->vnodes = v;
	r = build(s, s->m, s->n, v);
	if (IS_ERR(r)) {
		row->over = PTR_ERR(r) == -E2BIG;
		return row->over ? 0 : PTR_ERR(r);
	}
	row->points = r->npoints;
	row->bytes = r->size;
	share = calloc(r->nmembers, sizeof(*share));
	err = share ? sim_shares(r, share, &row->st) : -ENOMEM;
	free(share);
	if (!err && x) {
		r2 = apply(r, c, x);
		if (IS_ERR(r2)) {
			row->over = PTR_ERR(r2) == -E2BIG;
			err = row->over ? 0 : PTR_ERR(r2);
		} else {
			err = sim_ring_diff(r, r2, x, &d);
			row->moved = d.moved;
			row->collateral = d.collateral;
			rs_ring_free(r2);
		}
	}
	rs_ring_free(r);
	return err;
}

/* need-vnodes: doubling until the target is met, then bisection. */
static int need_vnodes(const struct sim *s, struct sim_row *best)
{
	u64 w = sim_total_weight(s->m, s->n);
	u32 vmax = RINGSTEER_MAX_POINTS / w, lo = 0, hi = 0, v;
	struct sim_row row;
	int err;

	if (vmax > RINGSTEER_MAX_VNODES)
		vmax = RINGSTEER_MAX_VNODES;
	memset(best, 0, sizeof(*best));
	for (v = 1; v && !hi; v = v >= vmax ? 0 : (2 * v > vmax ? vmax : 2 * v)) {
		err = measure(s, v, CH_NONE, NULL, &row);
		if (err)
			return err;
		if (row.st.peak_mean <= s->need) {
			hi = v;
			*best = row;
		} else {
			lo = v;
		}
	}
	while (hi && hi - lo > 1) {
		v = lo + (hi - lo) / 2;
		err = measure(s, v, CH_NONE, NULL, &row);
		if (err)
			return err;
		if (row.st.peak_mean <= s->need) {
			hi = v;
			*best = row;
		} else {
			lo = v;
		}
	}
	return 0;
}

static const u32 default_sweep[] = {
	1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
};

/* What a perfect placement and "hash mod N" move. */
static void ideal_and_mod(struct sim *s, struct sim_report *p)
{
	p->ideal = ideal_move(s, &s->cm, s->after, s->nafter);
	p->mod = sim_mod_moved(s->m, s->n, s->after, s->nafter,
			      MOD_MAX_PERIOD, MOD_SAMPLES, &p->mod_exact);
}

/* The shares after the change, and what it moves: exactly, ideally, mod N. */
static int compute_change(struct sim *s, struct sim_report *p)
{
	double *sh2 = calloc(p->r2->nmembers + 1, sizeof(double));
	int err = 0;

	p->d.from = calloc(p->r->nmembers, sizeof(double));
	p->d.to = calloc(p->r2->nmembers, sizeof(double));
	if (!sh2 || !p->d.from || !p->d.to)
		err = cli_error(CTX ": out of memory");
	else if (sim_shares(p->r2, sh2, &p->st2) || sim_ring_diff(p->r, p->r2, &s->cm, &p->d))
		err = cli_error(CTX ": the change leaves the ring empty");
	free(sh2);
	if (err)
		return err;
	ideal_and_mod(s, p);
	return 0;
}

/* The sweep over vnodes, of the change given or else of one backend added. */
static int compute_sweep(struct sim *s, struct sim_report *p)
{
	struct rs_member *after = s->after;
	u32 nafter = s->nafter, i;
	int err;

	p->sc = s->change;
	p->sx = s->cm;
	if (s->change == CH_NONE) {
		p->sc = CH_ADD;
		p->sx = next_backend(s);
		after = NULL;
		err = plan_change(s, &p->sx, CH_ADD, &after, &nafter);
		if (err)
			return err;
	}
	p->sweep_ideal = ideal_move(s, &p->sx, after, nafter);
	p->sweep_mod = sim_mod_moved(s->m, s->n, after, nafter,
				    MOD_MAX_PERIOD, MOD_SAMPLES,
				    &p->sweep_mod_exact);
	if (after != s->after)
		free(after);
	if (!s->nsweep) {
		memcpy(s->sweep_v, default_sweep, sizeof(default_sweep));
		s->nsweep = sizeof(default_sweep) / sizeof(default_sweep[0]);
	}
	p->rows = calloc(s->nsweep, sizeof(*p->rows));
	if (!p->rows)
		return cli_error(CTX ": out of memory");
	for (i = 0; i < s->nsweep; i++, p->nrows++) {
		err = measure(s, s->sweep_v[i], p->sc, &p->sx, &p->rows[i]);
		if (err)
			return cli_error(CTX ": sweep: %s", strerror(-err));
	}
	return 0;
}

static int compute(struct sim *s, struct sim_report *p)
{
	int err;

	if (p->slots) {
		err = sim_slots_compute(s, p);
		if (!err && s->change != CH_NONE)
			ideal_and_mod(s, p);
		return err;
	}
	p->share = calloc(p->r->nmembers, sizeof(double));
	if (!p->share || sim_shares(p->r, p->share, &p->st))
		return cli_error(CTX ": out of memory");
	err = (p->r2 ? compute_change(s, p) : 0) ?: (s->sweep ? compute_sweep(s, p) : 0);
	if (err)
		return err;
	if (s->need > 0) {
		err = need_vnodes(s, &p->need);
		if (err)
			return cli_error(CTX ": need-vnodes: %s", strerror(-err));
	}
	return 0;
}

/* The rings before and after the change. */
static int build_rings(struct sim *s, struct sim_report *p)
{
	struct rs_ring *r;
	int err;

	if (s->change != CH_NONE) {
		err = plan_change(s, &s->cm, s->change, &s->after, &s->nafter);
		if (err)
			return err;
	}
	/* A slots service's table; compare's slots too. */
	if (p->slots || s->compare) {
		err = sim_slots_build(s, p);
		if (err || p->slots)
			return err;
	}
	r = build(s, s->m, s->n, s->vnodes);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		if (err == -E2BIG)
			return cli_error(CTX ": weights x vnodes exceed the %u point limit",
					 RINGSTEER_MAX_POINTS);
		return cli_error(CTX ": cannot build the ring: %s", strerror(-err));
	}
	p->r = r;
	if (s->change == CH_NONE)
		return 0;
	r = apply(p->r, s->change, &s->cm);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		return cli_error(CTX ": cannot apply the change: %s",
				 err == -E2BIG ? "over the point limit" : strerror(-err));
	}
	p->r2 = r;
	return 0;
}

static int run(struct sim *s, struct sim_report *p, int argc, char **argv)
{
	const struct rc_steer *st, *st2;
	int err;

	err = parse(s, argc, argv);
	p->slots = s->placement == RINGSTEER_PLACEMENT_SLOTS;
	if (!err)
		err = build_rings(s, p);
	if (err)
		return err;
	if (s->flows_path) {
		st = p->slots ? &p->sl.st : NULL;
		st2 = p->slots && s->change != CH_NONE ? &p->sl.st2 : NULL;
		if (cli_json)
			print_sim_flows_json(s, st ? st->ring : p->r, st2 ? st2->ring : p->r2,
					     st, st2);
		else
			print_sim_flows_text(s, st ? st->ring : p->r, st2 ? st2->ring : p->r2,
					     st, st2);
		return 0;
	}
	err = compute(s, p) ?: (s->compare ? sim_compare(s, p) : 0) ?:
	      (p->slots && s->sweep ? sim_slots_sweep(s, p) : 0);
	if (err)
		return err;
	if (cli_json)
		print_sim_json(s, p);
	else
		print_sim_text(s, p);
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	struct sim s = { .vnodes = RINGSTEER_DEFAULT_VNODES,
			 .mode = RINGSTEER_HASH_FLOW,
			 .placement = RINGSTEER_PLACEMENT_RING,
			 .capacity = RINGSTEER_DEFAULT_CAPACITY,
			 .slots_for = SIM_SLOTS_NONE };
	struct sim_report p = { 0 };
	int err, i;

	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		s.key[i] = i;
	err = run(&s, &p, argc, argv);
	rs_ring_free(p.r);
	rs_ring_free(p.r2);
	free(p.share);
	free(p.d.from);
	free(p.d.to);
	free(p.rows);
	sim_slots_free(&p);
	for (i = 0; i < (int)s.nall; i++)
		free(s.given[i].slots);
	free(s.given);
	free(s.cm_given.slots);
	free(s.all);
	free(s.off);
	free(s.draining);
	free(s.m);
	free(s.after);
	free(s.flows);
	return err;
}
