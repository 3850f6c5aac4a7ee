/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "ringctl simulate" hands from its compute half to its print half:
 * simulate.c parses the command line and computes (prefix sim_) into
 * these, simulate_print*.c print them (prefix print_sim_).
 */
#ifndef RINGCTL_SIM_REPORT_H
#define RINGCTL_SIM_REPORT_H

#include <stdbool.h>

#include "preview.h"
#include "ringmath.h"
#include "slotmath.h"

#define MAX_SWEEP	32
#define MOD_MAX_PERIOD	200000000ULL
#define MOD_SAMPLES	10000000U

/* The Maglev table simulate compares with: Katran's size. */
#define SIM_MAGLEV_SIZE	MAGLEV_SIZE_KATRAN

/* Slot numbers given on the command line ("slots N[,N...]"), ascending. */
struct sim_given {
	uint16_t *slots;
	uint16_t n;			/* 0: none given, picked */
};

/* What "slots" follows while parsing: a backend of all[], the change, or nothing. */
#define SIM_SLOTS_NONE		(-1)
#define SIM_SLOTS_CHANGE	(-2)

/* Words given on the command line, which a file's service does not override. */
#define SIM_SET_KEY		(1U << 0)
#define SIM_SET_VNODES		(1U << 1)
#define SIM_SET_HASH		(1U << 2)
#define SIM_SET_PLACEMENT	(1U << 3)

struct sim {
	u8 key[RINGSTEER_KEY_LEN];
	u32 vnodes;
	enum ringsteer_hash_mode mode;
	u32 placement;			/* enum ringsteer_placement */
	u32 capacity;			/* placement slots' slot space */
	bool capacity_given;
	struct rs_member *all;		/* backends, in the order given */
	u32 nall;
	struct sim_given *given;	/* [nall]: placement slots' numbers */
	struct sim_given cm_given;	/* the change's (add, weight) */
	int slots_for;			/* parsing: SIM_SLOTS_* or an index of all[] */
	bool slots_weight;		/* parsing: that backend's @WEIGHT was given */
	unsigned int set;		/* SIM_SET_* */
	const char *file;		/* "file FILE": its service's backends */
	struct rc_endpoint file_vip;	/* "service VIP:PORT" in it */
	bool file_vip_given;
	u8 file_proto;			/* "proto P" in it, 0: any */
	bool *off;			/* [nall] the file's: off the ring, or NULL */
	u32 ndraining;			/* of them, spread evenly: off the ring */
	bool *draining;			/* [nall] */
	struct rs_member *m;		/* the active ones, in the order given */
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
	u32 samples;			/* flows sampled from the key */
	bool compare;			/* ring, slots and Maglev side by side */
	/*
	 * chain K (the file's, or given): the flows' hops after the change,
	 * with the ring before it kept (chain_hops.h); 1 or 0: none.
	 */
	u32 chain;
};

/*
 * A placement slots service as simulate builds it: the backends given, in
 * their order, each taking the lowest free slots as "backend add" does,
 * and the change applied by rc_change_apply() as "plan" applies it.
 */
struct sim_slots {
	struct rc_service svc, svc2;	/* before and after the change */
	struct rc_steer st, st2;
	/* By ring member of st and st2: its backend in svc and svc2 (its slots). */
	const struct rc_backend **holder, **holder2;
	u32 held;			/* slots held, live or not */
	double *share;			/* by rule, by ring member */
	struct sim_stats rule;		/* of those shares against the weights */
	double scan;			/* the scan's largest share (uapi) */
	double peak_bound;		/* peak/mean by rule, the scan counted */
	struct sim_sampled smp, smp2;	/* sampled before and after */
	struct sim_sampled mod;		/* "hash mod N" on the same flows */
	u32 *count;			/* sampled flows by ring member */
	double moved, collateral;	/* by rule */
	struct sim_sampled_diff sd;	/* sampled */
	double *from, *to;		/* sampled, by member of st / st2 */
};

/* One capacity of a slots service's sweep. */
struct sim_cap_row {
	u32 capacity;
	u32 live;
	size_t bytes;			/* table and ring */
	double scan;			/* the scan's largest share */
	double peak_bound;		/* peak/mean by rule, the scan counted */
	struct sim_sampled smp;
	double moved;			/* by rule */
	struct sim_sampled_diff sd;	/* the change, sampled */
};

/* One placement of "compare", on the same backends and sampled flows. */
struct sim_place {
	const char *name;		/* ring, slots, maglev, mod-n */
	u32 param;			/* vnodes, capacity, table size, buckets */
	size_t bytes;
	/* ring: exact; slots: by rule, the scan counted; maglev: table */
	double peak_mean;
	struct sim_sampled smp;
	double moved, collateral;	/* ring: exact; slots: by rule; maglev: table */
	struct sim_sampled_diff sd;	/* sampled, with a change */
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
	u64 *pos;			/* the sampled flows' positions */
	int *oa, *ob;			/* their owners before and after */
	bool slots;			/* placement slots: sl, not r's shares */
	struct sim_slots sl;
	struct sim_place cmp[4];
	u32 ncmp;
	struct sim_cap_row caps[MAX_SWEEP];
	u32 ncaps;
};

/*
 * simulate_slots.c: placement slots, and the side-by-side; the words that
 * go with them checked, and the draining backends set apart from s->m.
 * 0 or -errno, printed.
 */
int sim_check_words(struct sim *s);
/*
 * Their words' parsers, as simulate.c's: the words from the keyword on,
 * how many they used or -errno, printed. "slots N[,N...]" follows
 * "backend ADDR", "add ADDR" or "weight ADDR W".
 */
int sim_kw_placement(struct sim *s, int argc, char **argv);
int sim_kw_capacity(struct sim *s, int argc, char **argv);
int sim_kw_draining(struct sim *s, int argc, char **argv);
int sim_kw_samples(struct sim *s, int argc, char **argv);
int sim_kw_slots(struct sim *s, int argc, char **argv);
int sim_split_draining(struct sim *s);
int sim_slots_build(struct sim *s, struct sim_report *p);
int sim_slots_compute(struct sim *s, struct sim_report *p);
/* Shares by rule against the weights, as sim_shares() does for arcs. */
void sim_slots_rule_stats(const struct rs_ring *r, const double *share, struct sim_stats *st);
/*
 * simulate_file.c: "file FILE [service VIP:PORT] [proto P]", read once
 * the words are parsed (those given win over the file's).
 */
int sim_kw_file(struct sim *s, int argc, char **argv);
int sim_kw_service(struct sim *s, int argc, char **argv);
int sim_kw_proto(struct sim *s, int argc, char **argv);
int sim_file_load(struct sim *s);
/* The slots table of ST, as the sampling reads it. */
struct sim_table sim_slots_table(const struct rc_steer *st);
/* simulate_compare.c: "compare", into p->cmp. */
int sim_compare(struct sim *s, struct sim_report *p);
int sim_slots_sweep(struct sim *s, struct sim_report *p);
void sim_slots_free(struct sim_report *p);
/* The positions of the sampled flows, once. */
int sim_positions(const struct sim *s, struct sim_report *p);

/* The print half (simulate_print*.c). */
struct rs_ring;

/*
 * The owner of each flow of "simulate flows", and after the change (R2):
 * by the ring, or by a slots service's table when the steers are given.
 */
void print_sim_flows_text(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2, const struct rc_steer *st,
			  const struct rc_steer *st2);
void print_sim_flows_json(const struct sim *s, const struct rs_ring *r,
			  const struct rs_ring *r2, const struct rc_steer *st,
			  const struct rc_steer *st2);
/* The report of "ringctl simulate": simulate_print_text.c, _json.c. */
void print_sim_text(const struct sim *s, const struct sim_report *p);
void print_sim_json(const struct sim *s, const struct sim_report *p);

/* What both forms of the report read it by (simulate_print.c). */
#define PRINT_SIM_TOP	10	/* per-backend moves listed in text mode */
/*
 * The members of R by FRAC, largest first; only the first PRINT_SIM_TOP
 * sorted unless ALL. Returns the order (caller frees) or NULL.
 */
u32 *print_sim_by_fraction(const struct rs_ring *r, const double *frac, bool all);
/* Whether the change gives the changed backend more of the ring. */
bool print_sim_change_grows(const struct sim *s, const struct sim_report *p);
const char *print_sim_hash_name(const struct sim *s);
/* A slots service's added or reweighted backend after the change, or NULL. */
const struct rc_backend *print_sim_changed(const struct sim *s, const struct sim_report *p);

#endif /* RINGCTL_SIM_REPORT_H */
