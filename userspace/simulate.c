// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl simulate: the kernel's ring code (kmod/ring.c) run offline on
 * given or generated backends. Shares and moved hash space are computed
 * exactly from arc lengths, not sampled. Everything is parsed and built
 * before the first byte of output, so bad input prints only an error.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "simulate.h"
#include "simulate_int.h"

/*
 * No dependency on ringctl.c, so that this file also links into tests
 * and tools without it: errors are printed here, and ringctl's global -j
 * is read through a weak reference.
 */
extern bool json_output __attribute__((weak));

static int errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int errorf(const char *fmt, ...)
{
	va_list ap;

	fputs("ringctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

const char *const sim_change_names[] = {
	"none", "add", "remove", "drain", "weight",
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl simulate [-j] [key HEX32] [vnodes N] [hash flow|source]\n"
"           { backends COUNT [FIRST] | backend ADDR:PORT[@WEIGHT] }...\n"
"           [add ADDR:PORT[@WEIGHT] | remove ADDR:PORT | drain ADDR:PORT |\n"
"            weight ADDR:PORT WEIGHT]\n"
"           [shares] [sweep [V,V,...]] [need-vnodes PEAK_MEAN] [flows FILE|-]\n"
"\n"
"Runs the kernel's ring code offline. ADDR is a.b.c.d or [ipv6].\n"
"  key HEX32          SipHash key, 32 hex digits (default 000102..0f)\n"
"  vnodes N           points per unit of weight (default %u, 1..%u)\n"
"  backends COUNT     COUNT backends of weight 1 from FIRST (default\n"
"                     10.0.0.1:80), addresses counting up\n"
"  add/remove/drain/weight\n"
"                     one change: exact hash space moved, from where to\n"
"                     where, between uninvolved backends (always 0), and\n"
"                     hash mod N for comparison (drain = leave the ring)\n"
"  shares             print every backend's share, not only the summary\n"
"  sweep [LIST]       skew, memory and moves per vnodes value (default\n"
"                     1,2,4,...,4096); without a change, adding one backend\n"
"  need-vnodes X      smallest vnodes with peak/mean <= X, searched by\n"
"                     doubling then bisection (skew is not strictly\n"
"                     monotone in vnodes)\n"
"  flows FILE|-       print the owner of each flow, one per line:\n"
"                     SRC:SPORT DST:DPORT PROTO (tcp, udp, sctp or a\n"
"                     number); with a change also the owner after it\n"
"  -j                 JSON output\n",
		RINGSTEER_DEFAULT_VNODES, RINGSTEER_MAX_VNODES);
}

static int parse_u32(const char *s, u32 min, u32 max, u32 *out)
{
	unsigned long v;
	char *e;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || *e)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_key(const char *s, u8 *key)
{
	int i;

	if (!s || strlen(s) != 2 * RINGSTEER_KEY_LEN)
		return -EINVAL;
	for (i = 0; i < RINGSTEER_KEY_LEN; i++) {
		unsigned int b;

		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &b) != 1)
			return -EINVAL;
		key[i] = b;
	}
	return 0;
}

int sim_find(const struct rs_member *m, u32 n, const struct rs_member *x)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (m[i].family == x->family && m[i].port == x->port &&
		    !memcmp(m[i].addr, x->addr, 16))
			return i;
	return -1;
}

static int add_backend(struct sim *s, const struct rs_member *m)
{
	char buf[RM_ENDPOINT_LEN];
	struct rs_member *nm;

	if (sim_find(s->m, s->n, m) >= 0) {
		rm_format_member(buf, m);
		return errorf("simulate: duplicate backend %s", buf);
	}
	if (s->n >= RINGSTEER_MAX_BACKENDS)
		return errorf("simulate: more than %u backends",
			      RINGSTEER_MAX_BACKENDS);
	nm = realloc(s->m, (s->n + 1) * sizeof(*nm));
	if (!nm)
		return errorf("simulate: out of memory");
	s->m = nm;
	s->m[s->n++] = *m;
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
	if (!arg)
		return errorf("simulate: missing %s (try 'ringctl simulate help')",
			      what);
	return errorf("simulate: %s %s '%s' (try 'ringctl simulate help')",
		      err == -ERANGE ? "out of range:" : "bad", what, arg);
}

static int read_flows(struct sim *s)
{
	FILE *f = strcmp(s->flows_path, "-") ? fopen(s->flows_path, "r") : stdin;
	char line[512];
	int lineno = 0, ret = 0;
	const char *why;
	u32 cap = 0;

	if (!f)
		return errorf("simulate: %s: %s", s->flows_path, strerror(errno));
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = line;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (s->nflows == cap) {
			struct rs_flow *nf;

			cap = cap ? 2 * cap : 1024;
			nf = realloc(s->flows, cap * sizeof(*nf));
			if (!nf) {
				ret = errorf("simulate: out of memory");
				break;
			}
			s->flows = nf;
		}
		if (rm_parse_flow(p, &s->flows[s->nflows], &why))
			ret = errorf("simulate: flows line %d: %s", lineno, why);
		else
			s->nflows++;
	}
	if (f != stdin)
		fclose(f);
	return ret;
}

static int parse_change(struct sim *s, int argc, char **argv, int *i)
{
	const char *w = argv[*i], *arg = *i + 1 < argc ? argv[*i + 1] : NULL;
	int err;

	if (s->change != CH_NONE)
		return errorf("simulate: only one change per run");
	if (!strcmp(w, "add"))
		s->change = CH_ADD;
	else if (!strcmp(w, "remove"))
		s->change = CH_REMOVE;
	else if (!strcmp(w, "drain"))
		s->change = CH_DRAIN;
	else
		s->change = CH_WEIGHT;
	err = arg ? rm_parse_backend(arg, &s->cm) : -EINVAL;
	if (err || (s->change != CH_ADD && strchr(arg, '@')))
		return bad("backend", arg, err);
	(*i)++;
	if (s->change == CH_WEIGHT) {
		arg = *i + 1 < argc ? argv[*i + 1] : NULL;
		err = parse_u32(arg, 1, RINGSTEER_MAX_WEIGHT, &s->cm.weight);
		if (err)
			return bad("weight", arg, err);
		(*i)++;
	}
	return 0;
}

static int parse_sweep(struct sim *s, const char *list)
{
	char buf[256], *tok, *save = NULL;
	int err;

	if (strlen(list) >= sizeof(buf))
		return bad("sweep list", list, -EINVAL);
	strcpy(buf, list);
	s->nsweep = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (s->nsweep == MAX_SWEEP)
			return bad("sweep list (too long)", list, -EINVAL);
		err = parse_u32(tok, 1, RINGSTEER_MAX_VNODES,
				&s->sweep_v[s->nsweep++]);
		if (err)
			return bad("sweep vnodes", tok, err);
	}
	return s->nsweep ? 0 : bad("sweep list", list, -EINVAL);
}

/* 0, 1 after printing the usage, or -1 after printing an error. */
static int parse(struct sim *s, int argc, char **argv)
{
	struct rs_member m, first;
	int i, err;
	u32 k, count;

	for (i = 1; i < argc; i++) {
		const char *w = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(w, "-j") || !strcmp(w, "--json")) {
			s->json = true;
		} else if (!strcmp(w, "help") || !strcmp(w, "-h")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(w, "key")) {
			if (parse_key(arg, s->key))
				return bad("key (32 hex digits)", arg, -EINVAL);
			i++;
		} else if (!strcmp(w, "vnodes")) {
			err = parse_u32(arg, 1, RINGSTEER_MAX_VNODES, &s->vnodes);
			if (err)
				return bad("vnodes", arg, err);
			i++;
		} else if (!strcmp(w, "hash")) {
			if (arg && !strcmp(arg, "flow"))
				s->mode = RINGSTEER_HASH_FLOW;
			else if (arg && !strcmp(arg, "source"))
				s->mode = RINGSTEER_HASH_SOURCE;
			else
				return bad("hash mode", arg, -EINVAL);
			i++;
		} else if (!strcmp(w, "backends")) {
			err = parse_u32(arg, 1, RINGSTEER_MAX_BACKENDS, &count);
			if (err)
				return bad("backend count", arg, err);
			i++;
			rm_parse_backend("10.0.0.1:80", &first);
			if (i + 1 < argc && strchr(argv[i + 1], ':')) {
				err = rm_parse_backend(argv[i + 1], &first);
				if (err)
					return bad("first backend", argv[i + 1], err);
				i++;
			}
			for (k = 0; k < count; k++) {
				m = step_addr(&first, k);
				if (add_backend(s, &m))
					return -1;
			}
		} else if (!strcmp(w, "backend")) {
			err = arg ? rm_parse_backend(arg, &m) : -EINVAL;
			if (err)
				return bad("backend", arg, err);
			if (add_backend(s, &m))
				return -1;
			i++;
		} else if (!strcmp(w, "add") || !strcmp(w, "remove") ||
			   !strcmp(w, "drain") || !strcmp(w, "weight")) {
			if (parse_change(s, argc, argv, &i))
				return -1;
		} else if (!strcmp(w, "shares")) {
			s->shares = true;
		} else if (!strcmp(w, "sweep")) {
			s->sweep = true;
			if (arg && isdigit((unsigned char)*arg)) {
				if (parse_sweep(s, arg))
					return -1;
				i++;
			}
		} else if (!strcmp(w, "need-vnodes")) {
			char *e;

			s->need = arg ? strtod(arg, &e) : 0;
			if (!arg || *e || !(s->need > 1.0) || s->need > 1000)
				return bad("need-vnodes target (> 1)", arg, -EINVAL);
			i++;
		} else if (!strcmp(w, "flows")) {
			if (!arg)
				return bad("flows file", arg, -EINVAL);
			s->flows_path = arg;
			i++;
		} else {
			return errorf("simulate: unknown argument '%s' (try 'ringctl simulate help')",
				      w);
		}
	}
	if (!s->n)
		return errorf("simulate: no backends (try 'ringctl simulate help')");
	return 0;
}

/* The backend list after the change, in "mod N" slot order. */
static int plan_change(struct sim *s, const struct rs_member *x,
		       enum change_kind c, struct rs_member **out, u32 *nout)
{
	char buf[RM_ENDPOINT_LEN];
	int at = sim_find(s->m, s->n, x);
	struct rs_member *a;

	rm_format_member(buf, x);
	if (c == CH_ADD && at >= 0)
		return errorf("simulate: %s is already a backend", buf);
	if (c != CH_ADD && at < 0)
		return errorf("simulate: %s is not a backend", buf);
	if (c == CH_ADD && s->n >= RINGSTEER_MAX_BACKENDS)
		return errorf("simulate: more than %u backends",
			      RINGSTEER_MAX_BACKENDS);
	a = malloc((s->n + 1) * sizeof(*a));
	if (!a)
		return errorf("simulate: out of memory");
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
			     u32 n, u32 vnodes, int *err)
{
	return rs_ring_build(s->key, m, n, vnodes, err);
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

u64 sim_total_weight(const struct rs_member *m, u32 n)
{
	u64 w = 0;
	u32 i;

	for (i = 0; i < n; i++)
		w += m[i].weight;
	return w;
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

static struct rs_ring *apply(const struct rs_ring *r, enum change_kind c,
			     const struct rs_member *x, int *err)
{
	int idx = c == CH_ADD ? 0 : rs_ring_find_member(r, x);

	if (idx < 0) {
		*err = idx;
		return NULL;
	}
	if (c == CH_ADD)
		return rs_ring_add_member(r, x, err);
	if (c == CH_WEIGHT)
		return rs_ring_set_weight(r, idx, x->weight, err);
	return rs_ring_remove_member(r, idx, err);
}

/* Builds at @v, and the change if @x: skew, memory, moved space. */
static int measure(const struct sim *s, u32 v, enum change_kind c,
		   const struct rs_member *x, struct row *row)
{
	struct rm_diff d = { 0 };
	struct rs_ring *r, *r2;
	double *share;
	int err;

	memset(row, 0, sizeof(*row));
	row->vnodes = v;
	r = build(s, s->m, s->n, v, &err);
	if (!r) {
		row->over = err == -E2BIG;
		return row->over ? 0 : err;
	}
	row->points = r->npoints;
	row->bytes = r->size;
	share = calloc(r->nmembers, sizeof(*share));
	err = share ? rm_shares(r, share, &row->st) : -ENOMEM;
	free(share);
	if (!err && x) {
		r2 = apply(r, c, x, &err);
		if (!r2) {
			row->over = err == -E2BIG;
			err = row->over ? 0 : err;
		} else {
			err = rm_diff(r, r2, x, &d);
			row->moved = d.moved;
			row->collateral = d.collateral;
			rs_ring_free(r2);
		}
	}
	rs_ring_free(r);
	return err;
}

/* need-vnodes: doubling until the target is met, then bisection. */
static int need_vnodes(const struct sim *s, struct row *best)
{
	u64 w = sim_total_weight(s->m, s->n);
	u32 vmax = RINGSTEER_MAX_POINTS / w, lo = 0, hi = 0, v;
	struct row row;
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

static int compute(struct sim *s, struct report *p)
{
	struct rs_member *after = s->after;
	u32 nafter = s->nafter, i;
	int err;

	p->share = calloc(p->r->nmembers, sizeof(double));
	if (!p->share || rm_shares(p->r, p->share, &p->st))
		return errorf("simulate: out of memory");
	if (p->r2) {
		double *sh2 = calloc(p->r2->nmembers + 1, sizeof(double));

		p->d.from = calloc(p->r->nmembers, sizeof(double));
		p->d.to = calloc(p->r2->nmembers, sizeof(double));
		if (!sh2 || !p->d.from || !p->d.to)
			return errorf("simulate: out of memory");
		if (rm_shares(p->r2, sh2, &p->st2) || rm_diff(p->r, p->r2, &s->cm, &p->d))
			err = errorf("simulate: the change leaves the ring empty");
		else
			err = 0;
		free(sh2);
		if (err)
			return err;
		p->ideal = ideal_move(s, &s->cm, s->after, s->nafter);
		p->mod = rm_mod_moved(s->m, s->n, s->after, s->nafter,
				      MOD_MAX_PERIOD, MOD_SAMPLES, &p->mod_exact);
	}
	if (s->sweep) {
		p->sc = s->change;
		p->sx = s->cm;
		if (s->change == CH_NONE) {
			p->sc = CH_ADD;
			p->sx = next_backend(s);
			after = NULL;
			if (plan_change(s, &p->sx, CH_ADD, &after, &nafter))
				return -1;
		}
		p->sweep_ideal = ideal_move(s, &p->sx, after, nafter);
		p->sweep_mod = rm_mod_moved(s->m, s->n, after, nafter,
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
			return errorf("simulate: out of memory");
		for (i = 0; i < s->nsweep; i++, p->nrows++) {
			err = measure(s, s->sweep_v[i], p->sc, &p->sx, &p->rows[i]);
			if (err)
				return errorf("simulate: sweep: %s", strerror(-err));
		}
	}
	if (s->need > 0) {
		err = need_vnodes(s, &p->need);
		if (err)
			return errorf("simulate: need-vnodes: %s", strerror(-err));
	}
	return 0;
}

int cmd_simulate(int argc, char **argv)
{
	struct sim s = { .vnodes = RINGSTEER_DEFAULT_VNODES,
			 .mode = RINGSTEER_HASH_FLOW };
	struct report p = { 0 };
	int err, ret = -1, i;

	s.json = &json_output && json_output;
	for (i = 0; i < RINGSTEER_KEY_LEN; i++)
		s.key[i] = i;
	ret = parse(&s, argc, argv);
	if (ret) {
		ret = ret > 0 ? 0 : -1;	/* help */
		goto out;
	}
	ret = -1;
	if (s.flows_path && read_flows(&s))
		goto out;
	if (s.change != CH_NONE &&
	    plan_change(&s, &s.cm, s.change, &s.after, &s.nafter))
		goto out;
	p.r = build(&s, s.m, s.n, s.vnodes, &err);
	if (!p.r) {
		if (err == -E2BIG)
			errorf("simulate: weights x vnodes exceed the %u point limit",
			       RINGSTEER_MAX_POINTS);
		else
			errorf("simulate: cannot build the ring: %s",
			       strerror(-err));
		goto out;
	}
	if (s.change != CH_NONE) {
		p.r2 = apply(p.r, s.change, &s.cm, &err);
		if (!p.r2) {
			errorf("simulate: cannot apply the change: %s",
			       err == -E2BIG ? "over the point limit" :
			       strerror(-err));
			goto out;
		}
	}
	if (s.flows_path) {
		sim_print_flows(&s, p.r, p.r2);
		ret = 0;
		goto out;
	}
	if (compute(&s, &p))
		goto out;
	sim_print_report(&s, &p);
	ret = 0;
out:
	rs_ring_free(p.r);
	rs_ring_free(p.r2);
	free(p.share);
	free(p.d.from);
	free(p.d.to);
	free(p.rows);
	free(s.m);
	free(s.after);
	free(s.flows);
	return ret;
}
