/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "ringctl simulate" hands from its compute half to its print half:
 * simulate.c parses the command line and computes (prefix sim_) into
 * these, simulate_print.c prints them (prefix print_sim_).
 */
#ifndef RINGCTL_SIM_REPORT_H
#define RINGCTL_SIM_REPORT_H

#include <stdbool.h>

#include "ringmath.h"

#define MAX_SWEEP	32
#define MOD_MAX_PERIOD	200000000ULL
#define MOD_SAMPLES	10000000U

struct sim {
	u8 key[RINGSTEER_KEY_LEN];
	u32 vnodes;
	enum ringsteer_hash_mode mode;
	struct rs_member *m;		/* backends, in the order given */
	u32 n;
	enum change_kind change;
	struct rs_member cm;		/* changed backend, new weight */
	struct rs_member *after;	/* backends after the change */
	u32 nafter;
	bool sweep;
	u32 sweep_v[MAX_SWEEP];
	u32 nsweep;
	double need;			/* need-vnodes target, 0 if not asked */
	const char *flows_path;
	struct rs_flow *flows;
	u32 nflows;
	bool shares;			/* full share table in text mode */
};

/* One vnodes value of a sweep, or the need-vnodes answer. */
struct sim_row {
	u32 vnodes;
	bool over;		/* beyond RINGSTEER_MAX_POINTS */
	u32 points;
	size_t bytes;
	struct sim_stats st;
	double moved;
	double collateral;
};

/* Everything computed before printing. */
struct sim_report {
	struct rs_ring *r, *r2;
	double *share;
	struct sim_stats st, st2;
	struct sim_diff d;
	double ideal, mod;
	bool mod_exact;
	struct sim_row *rows;
	u32 nrows;
	struct rs_member sx;		/* change the sweep measures */
	enum change_kind sc;
	double sweep_ideal, sweep_mod;
	bool sweep_mod_exact;
	struct sim_row need;
};

/* The print half (simulate_print.c). */
struct rs_ring;

/* The owner of each flow of "simulate flows", and after the change (R2). */
void print_sim_flows_text(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2);
void print_sim_flows_json(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2);
/* The report of "ringctl simulate". */
void print_sim_text(const struct sim *s, const struct sim_report *p);
void print_sim_json(const struct sim *s, const struct sim_report *p);

#endif /* RINGCTL_SIM_REPORT_H */
