// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl plan: the command line of a change, read as the real command
 * reads it, applied to a copy of the live service (key, backends and
 * connections read from the kernel), and the difference printed. Nothing
 * is sent that changes anything.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "change.h"
#include "preview.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"
#include "ringmath.h"
#include "print.h"

void cmd_plan_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl plan [-j] backend add|set|drain|activate|del ARGS... [flows FILE|-]\n"
"       ringctl plan [-j] service set ARGS... [flows FILE|-]\n"
"       ringctl plan [-j] key set HEX32 [flows FILE|-]\n"
"\n"
"Takes the arguments of the real command and prints, without changing\n"
"anything, what it would do to the live ring: the exact fraction of the\n"
"hash space that moves and between which backends (collateral: the part\n"
"moving between backends the change does not touch, always 0), and how\n"
"many of the connections open now sit in the part that moves: reset by\n"
"'del' (unless keep-flows), pinned to their backend while their new flows\n"
"go elsewhere otherwise. Where a backend keeps part of its hash space,\n"
"its share of the moving connections is an estimate (connections spread\n"
"like hash positions). A key or hash mode change draws every flow's\n"
"position anew: the moved fraction is then an expectation. A forward\n"
"tunnel service's connections are not counted (no conntrack entries).\n"
"A placement slots service is planned by its slots tables: a backend added\n"
"or reweighted without 'slots' takes those the real command would pick,\n"
"and the shares and moves are the rule's (every live slot 1/L of the flows),\n"
"sampled over 1,000,000 positions across a capacity change.\n"
"\n"
"flows FILE|- names flows, one a line (SRC:SPORT DST:DPORT PROTO, as\n"
"'simulate flows'), and prints each one's backend before and after the\n"
"change and whether it moves, and how many move between two backends the\n"
"change does not touch (collateral: 0). For a forward tunnel service the\n"
"flows that move are those that break where no flow table holds them\n"
"(another load balancer, the table off or full).\n");
}

static const struct {
	const char *name;
	enum rc_preview_op op;
	uint64_t allowed;
} backend_ops[] = {
	{ "add", RC_PREVIEW_BACKEND_ADD,
	  PARSE_KW_PROTO | PARSE_KW_WEIGHT | PARSE_KW_STATE | PARSE_KW_SLOTS },
	{ "set", RC_PREVIEW_BACKEND_SET,
	  PARSE_KW_PROTO | PARSE_KW_WEIGHT | PARSE_KW_STATE | PARSE_KW_SLOTS },
	{ "drain", RC_PREVIEW_BACKEND_DRAIN, PARSE_KW_PROTO },
	{ "activate", RC_PREVIEW_BACKEND_ACTIVATE, PARSE_KW_PROTO },
	{ "undrain", RC_PREVIEW_BACKEND_ACTIVATE, PARSE_KW_PROTO },
	{ "del", RC_PREVIEW_BACKEND_DEL, PARSE_KW_PROTO | PARSE_KW_KEEP_FLOWS },
	{ "delete", RC_PREVIEW_BACKEND_DEL, PARSE_KW_PROTO | PARSE_KW_KEEP_FLOWS },
};

static int backend_words(int argc, char **argv, struct rc_preview_req *r)
{
	const char *sub = argc > 0 ? argv[0] : "";
	struct parse_args a;
	char ctx[40];
	size_t i;

	for (i = 0; i < sizeof(backend_ops) / sizeof(backend_ops[0]); i++)
		if (!strcmp(sub, backend_ops[i].name))
			break;
	if (i == sizeof(backend_ops) / sizeof(backend_ops[0])) {
		cli_error("plan backend: unknown subcommand '%s' (want add, set, drain, activate or del)",
		       sub);
		return -EINVAL;
	}
	r->op = backend_ops[i].op;
	snprintf(ctx, sizeof(ctx), "plan backend %s", sub);
	if (parse_backend_args(ctx, argc - 1, argv + 1,
				  backend_ops[i].allowed | PARSE_KW_JSON, &r->s, &r->b, &a))
		return -EINVAL;
	if (a.seen & PARSE_KW_JSON)
		cli_json = true;
	r->keep_flows = a.seen & PARSE_KW_KEEP_FLOWS;
	r->bare = a.bare;
	if (r->op == RC_PREVIEW_BACKEND_SET && !(r->b.has & (RC_HAS_WEIGHT | RC_HAS_STATE)) &&
	    !r->b.nslots) {
		cli_error("%s: nothing to change (give weight, state or slots)", ctx);
		return -EINVAL;
	}
	return 0;
}

static int service_words(int argc, char **argv, struct rc_preview_req *r)
{
	struct parse_args a;

	if (argc < 1 || strcmp(argv[0], "set")) {
		cli_error("plan service: only 'set' can be planned");
		return -EINVAL;
	}
	r->op = RC_PREVIEW_SERVICE_SET;
	if (parse_service_args("plan service set", argc - 1, argv + 1,
				  PARSE_KW_PROTO | PARSE_KW_VNODES | PARSE_KW_HASH | PARSE_KW_JSON |
				  PARSE_KW_SETTING(RC_SET_PLACEMENT) | PARSE_KW_SETTING(RC_SET_CAPACITY),
				  &r->s, &a))
		return -EINVAL;
	if (a.seen & PARSE_KW_JSON)
		cli_json = true;
	if (!(r->s.has & (RC_HAS_VNODES | RC_HAS_HASH | RC_HAS_CAPACITY))) {
		cli_error("plan service set: nothing to change (give vnodes, hash or capacity)");
		return -EINVAL;
	}
	return 0;
}

static int key_words(int argc, char **argv, struct rc_preview_req *r)
{
	if (argc < 1 || strcmp(argv[0], "set")) {
		cli_error("plan key: only 'set' can be planned");
		return -EINVAL;
	}
	r->op = RC_PREVIEW_KEY_SET;
	if (argc != 2 || parse_key(argv[1], r->key)) {
		cli_error("plan key set: want one key of %d hex digits",
		       2 * RINGSTEER_KEY_LEN);
		return -EINVAL;
	}
	return 0;
}

/*
 * "flows FILE" is plan's own, wherever it stands: taken out of the words
 * before the real command's parser reads them.
 */
static int take_flows(int *argc, char **argv, struct rc_preview_req *r)
{
	int i;

	for (i = 0; i < *argc; i++) {
		if (strcmp(argv[i], "flows"))
			continue;
		if (r->flows_path || i + 1 == *argc) {
			cli_error(r->flows_path ? "plan: flows given twice" :
				  "plan flows: want a file of flows, or - for standard input");
			return -EINVAL;
		}
		r->flows_path = argv[i + 1];
		memmove(&argv[i], &argv[i + 2], (*argc - i - 2) * sizeof(*argv));
		*argc -= 2;
		i--;
	}
	return 0;
}

int cmd_plan_parse(int argc, char **argv, struct rc_preview_req *r)
{
	static char what[32];
	int err;

	memset(r, 0, sizeof(*r));
	argc--;
	argv++;
	cli_take_json(&argc, &argv);
	if (argc > 0 && cli_is_help(argv[0])) {
		cmd_plan_usage(stdout);
		return 1;
	}
	err = take_flows(&argc, argv, r);
	if (err)
		return err;
	if (argc < 2) {
		cmd_plan_usage(stderr);
		cli_error("plan: what change? (try 'ringctl plan help')");
		return -EINVAL;
	}
	if (!strcmp(argv[0], "backend"))
		err = backend_words(argc - 1, argv + 1, r);
	else if (!strcmp(argv[0], "service"))
		err = service_words(argc - 1, argv + 1, r);
	else if (!strcmp(argv[0], "key"))
		err = key_words(argc - 1, argv + 1, r);
	else
		err = cli_error("plan: cannot plan '%s' (want backend, service or key)",
			     argv[0]) ? -EINVAL : 0;
	snprintf(what, sizeof(what), "%s %s", argv[0], argv[1]);
	r->what = what;
	return err;
}

static const char *conns_effect(const struct rc_preview_req *r)
{
	return r->op == RC_PREVIEW_BACKEND_DEL && !r->keep_flows ? "reset" : "pinned";
}

/*
 * A tunnel's open flows are in its flow table, per host: there they stay
 * on their backend (a deleted one's are dropped at once); on another LB,
 * or past the table's capacity, the ring decides, and those in the moving
 * part move.
 */
static const char *tunnel_effect(const struct rc_preview_req *r)
{
	return r->op == RC_PREVIEW_BACKEND_DEL ?
	       "flows of the deleted backend move at once (TCP: reset); the rest in the moving part stay where this host's flow table holds them, and move where it does not" :
	       "flows in the moving part stay on their backend where this host's flow table holds them, and move where it does not (another LB, an entry evicted)";
}

static uint32_t count_in(const struct rc_preview *p, bool after)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->nb; i++)
		n += after ? p->b[i].after : p->b[i].before;
	return n;
}

/* Moves between X and the others, when only X's points changed. */
static bool pairwise(const struct rc_preview_req *r, const struct rc_preview *p)
{
	return r->op <= RC_PREVIEW_BACKEND_DEL && !p->expected && !p->collateral_exact;
}

static void print_text(const struct rc_preview_req *r, const struct rc_service *s,
		       const struct rc_preview *p)
{
	char name[RC_SERVICE_NAME_LEN], ep[RC_ENDPOINT_LEN], x[RC_ENDPOINT_LEN];
	uint32_t i;

	printf("service %s: %u -> %u backends owning points\n",
	       rc_service_name(name, s), count_in(p, false), count_in(p, true));
	printf("  hash space moving: %.6f%%%s\n", 100 * p->moved,
	       p->expected ? " (expected: every flow's position is drawn anew)" :
	       p->by_rule ? " (slots, by rule: every live slot 1/L of the flows)" :
	       p->sampled ? " (slots, sampled: a new capacity reads every probe anew)" : "");
	if (r->op <= RC_PREVIEW_BACKEND_DEL && p->by_rule)
		printf("  collateral (between backends the change does not touch): %.6f%% (by rule)\n",
		       100 * p->collateral);
	else if (r->op <= RC_PREVIEW_BACKEND_DEL)
		printf("  collateral (between backends the change does not touch): %.6f%% (%llu positions)\n",
		       100 * p->collateral, p->collateral_exact);
	rc_endpoint_format(x, &r->b.ep);
	for (i = 0; i < p->nb; i++) {
		const struct rc_preview_backend *pb = &p->b[i];

		rc_endpoint_format(ep, &pb->ep);
		if (pairwise(r, p) && strcmp(ep, x)) {
			if (pb->leaves > 0)
				printf("  %s -> %s: %.6f%%\n", ep, x, 100 * pb->leaves);
			if (pb->arrives > 0)
				printf("  %s -> %s: %.6f%%\n", x, ep, 100 * pb->arrives);
		} else if (!pairwise(r, p) && (pb->leaves > 0 || pb->arrives > 0)) {
			printf("  %s: loses %.6f%%, gains %.6f%%\n", ep,
			       100 * pb->leaves, 100 * pb->arrives);
		}
	}
	if (rc_service_forward(s) == RINGSTEER_FORWARD_TUNNEL) {
		printf("  connections: not counted (forward tunnel keeps no conntrack entries); %s\n",
		       tunnel_effect(r));
		return;
	}
	printf("  connections open now in the moving part: %.*f%s (%s)\n",
	       p->conns_exact ? 0 : 1, p->conns_moving,
	       p->conns_exact ? "" : " (estimate)", conns_effect(r));
	for (i = 0; i < p->nb; i++) {
		const struct rc_preview_backend *pb = &p->b[i];

		if (!pb->conns && !pb->conns_moving)
			continue;
		rc_endpoint_format(ep, &pb->ep);
		printf("    %s: %.*f of %llu%s\n", ep, pb->conns_exact ? 0 : 1,
		       pb->conns_moving, (unsigned long long)pb->conns,
		       pb->conns_exact ? "" : " (estimate)");
	}
}

static void endpoint_or_none(char buf[RC_ENDPOINT_LEN], const struct rc_endpoint *ep)
{
	if (ep->family)
		rc_endpoint_format(buf, ep);
	else
		strcpy(buf, "-");
}

static bool flow_moves(const struct rc_preview_flows *pf, uint32_t i)
{
	return rc_endpoint_cmp(&pf->before[i], &pf->after[i]);
}

/*
 * A flow that moves between two backends neither of which is the one a
 * backend command names: counted, for the rules say there are none.
 */
static bool flow_collateral(const struct rc_preview_flows *pf, uint32_t i,
			    const struct rc_endpoint *x)
{
	return x && flow_moves(pf, i) && rc_endpoint_cmp(&pf->before[i], x) &&
	       rc_endpoint_cmp(&pf->after[i], x);
}

static void print_flows(const struct rc_preview_flows *pf, const struct rc_service *s,
			const struct rc_endpoint *x, struct json *j)
{
	char b1[RC_ENDPOINT_LEN], b2[RC_ENDPOINT_LEN];
	struct sim_flow_text t;
	uint32_t i, mine = 0, moving = 0, coll = 0;

	for (i = 0; i < pf->n; i++) {
		if (!rc_flow_to_service(&pf->f[i], s))
			continue;
		mine++;
		moving += flow_moves(pf, i);
		coll += flow_collateral(pf, i, x);
	}
	if (cli_json) {
		json_u64(j, "flows_given", mine);
		json_u64(j, "flows_moving", moving);
		if (x)
			json_u64(j, "flows_collateral", coll);
		json_arr_begin(j, "flows");
	} else if (x) {
		printf("  flows given: %u, moving: %u, collateral: %u\n", mine, moving, coll);
	} else {
		printf("  flows given: %u, moving: %u\n", mine, moving);
	}
	for (i = 0; i < pf->n; i++) {
		if (!rc_flow_to_service(&pf->f[i], s))
			continue;
		sim_flow_format(&t, &pf->f[i]);
		endpoint_or_none(b1, &pf->before[i]);
		endpoint_or_none(b2, &pf->after[i]);
		if (!cli_json) {
			printf("    %s %s %s %s -> %s %s\n", t.src, t.dst, t.proto, b1, b2,
			       flow_moves(pf, i) ? "moves" : "stays");
			continue;
		}
		json_obj_begin(j, NULL);
		json_str(j, "src", t.src);
		json_str(j, "dst", t.dst);
		json_str(j, "proto", t.proto);
		json_str(j, "backend", b1);
		json_str(j, "backend_after", b2);
		json_bool(j, "moves", flow_moves(pf, i));
		json_obj_end(j);
	}
	if (cli_json)
		json_arr_end(j);
}

static void print_json(struct json *j, const struct rc_preview_req *r,
		       const struct rc_service *s, const struct rc_preview *p,
		       const struct rc_preview_flows *pf, const struct rc_endpoint *x)
{
	bool tunnel = rc_service_forward(s) == RINGSTEER_FORWARD_TUNNEL;
	char addr[RC_ADDR_LEN];
	uint32_t i;

	json_obj_begin(j, NULL);
	print_service_id_json(j, s, true);
	json_u64(j, "active_before", count_in(p, false));
	json_u64(j, "active_after", count_in(p, true));
	json_double(j, "moved", p->moved);
	json_bool(j, "expected", p->expected);
	json_bool(j, "by_rule", p->by_rule);
	json_bool(j, "sampled", p->sampled);
	if (r->op <= RC_PREVIEW_BACKEND_DEL) {
		json_double(j, "collateral", p->collateral);
		json_u64(j, "collateral_positions", p->collateral_exact);
	}
	json_bool(j, "connections_counted", !tunnel);
	if (tunnel) {
		json_str(j, "connections_effect", tunnel_effect(r));
	} else {
		json_double(j, "connections_moving", p->conns_moving);
		json_bool(j, "connections_exact", p->conns_exact);
		json_str(j, "connections_effect", conns_effect(r));
	}
	json_arr_begin(j, "backends");
	for (i = 0; i < p->nb; i++) {
		const struct rc_preview_backend *pb = &p->b[i];

		json_obj_begin(j, NULL);
		rc_addr_format(addr, &pb->ep);
		json_str(j, "addr", addr);
		json_u64(j, "port", pb->ep.port);
		json_double(j, "share_before", pb->share_before);
		json_double(j, "share_after", pb->share_after);
		json_double(j, "leaves", pb->leaves);
		json_double(j, "arrives", pb->arrives);
		if (!tunnel) {
			json_u64(j, "connections", pb->conns);
			json_double(j, "connections_moving", pb->conns_moving);
			json_bool(j, "connections_exact", pb->conns_exact);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	if (pf)
		print_flows(pf, s, x, j);
	json_obj_end(j);
}

/* Every flow is one of the services read: a typo must not read as "stays". */
static int flows_check(const struct rc_preview_flows *pf, const struct rc_config *c)
{
	struct sim_flow_text t;
	uint32_t i, k;

	for (i = 0; i < pf->n; i++) {
		for (k = 0; k < c->ns; k++)
			if (rc_flow_to_service(&pf->f[i], &c->s[k]))
				break;
		if (k < c->ns)
			continue;
		sim_flow_format(&t, &pf->f[i]);
		return cli_error("plan flows: %s %s %s is to no service %s", t.src, t.dst, t.proto,
			      c->ns == 1 ? "planned" : "configured");
	}
	return 0;
}

/* A backend without a port is a forward tunnel service's only. */
static int check_bare(const struct rc_preview_req *r, const struct rc_config *c)
{
	char ctx[40];

	if (!r->bare || !c->ns)
		return 0;
	snprintf(ctx, sizeof(ctx), "plan %s", r->what);
	return parse_check_bare_backend(ctx, &r->b, rc_service_forward(&c->s[0]));
}

static int plan_one(const struct rc_preview_req *r, const struct rc_config *c,
		    const struct rc_service *s, const struct rc_preview_flows *pf, struct json *j)
{
	const uint8_t *key_b = r->op == RC_PREVIEW_KEY_SET ? r->key : c->key;
	const struct rc_endpoint *x = r->op <= RC_PREVIEW_BACKEND_DEL ? &r->b.ep : NULL;
	struct rc_service after;
	struct rc_preview p;
	char ctx[48];
	int err;

	snprintf(ctx, sizeof(ctx), "plan %s", r->what);
	err = rc_change_apply(ctx, r, s, &after);
	if (err) {
		rc_service_free(&after);
		return err;
	}
	err = rc_preview_compute(c->key, s, key_b, &after, x, pf->n ? pf : NULL, &p);
	rc_service_free(&after);
	if (err)
		return cli_error("plan: computing the rings: %s", strerror(-err));
	if (cli_json)
		print_json(j, r, s, &p, pf->n ? pf : NULL, x);
	else
		print_text(r, s, &p);
	if (!cli_json && pf->n)
		print_flows(pf, s, x, j);
	rc_preview_free(&p);
	return 0;
}

static int flows_read(const struct rc_preview_req *r, struct rc_preview_flows *pf)
{
	int err;

	memset(pf, 0, sizeof(*pf));
	if (!r->flows_path)
		return 0;
	err = parse_flows_file(r->flows_path, "plan: flows", &pf->f, &pf->n);
	if (err)
		return err;
	if (!pf->n)
		return cli_error("plan: flows: %s names no flow", r->flows_path);
	pf->before = calloc(pf->n, sizeof(*pf->before));
	pf->after = calloc(pf->n, sizeof(*pf->after));
	return pf->before && pf->after ? 0 : cli_error("plan: out of memory");
}

static void flows_free(struct rc_preview_flows *pf)
{
	free(pf->f);
	free(pf->before);
	free(pf->after);
}

/* The live configuration R needs, with its connections; errors printed. */
static int read_live(const struct rc_preview_req *r, struct rc_config *c)
{
	char name[RC_SERVICE_NAME_LEN];
	struct nl_conn nl;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	err = nl_config_get(&nl, c, r->op == RC_PREVIEW_KEY_SET ? NULL : &r->s, true);
	if (!err) {
		err = nl_config_conns(&nl, c);
		if (err)
			rc_config_free(c);
	}
	if (err) {
		if (r->op == RC_PREVIEW_KEY_SET)
			cli_nl_error(err, nl.ext_msg, "plan: reading the configuration");
		else
			cli_nl_error(err, nl.ext_msg, "plan: reading %s",
				  rc_service_name(name, &r->s));
	}
	nl_close(&nl);
	return err;
}

int cmd_plan(int argc, char **argv)
{
	struct rc_preview_req r;
	struct rc_preview_flows pf;
	struct rc_config c;
	struct json j;
	uint32_t i;
	int err;

	err = cmd_plan_parse(argc, argv, &r);
	if (err)
		return err > 0 ? 0 : err;
	err = flows_read(&r, &pf) ?: read_live(&r, &c);
	if (!err && (check_bare(&r, &c) || flows_check(&pf, &c))) {
		rc_config_free(&c);
		err = -EINVAL;
	}
	if (err) {
		flows_free(&pf);
		return err;
	}
	json_init(&j, stdout);
	if (cli_json) {
		json_obj_begin(&j, NULL);
		json_str(&j, "change", r.what);
		json_arr_begin(&j, "services");
	} else {
		printf("plan: %s (nothing is changed)\n", r.what);
	}
	for (i = 0; i < c.ns && !err; i++)
		err = plan_one(&r, &c, &c.s[i], &pf, &j);
	if (cli_json && !err) {
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
	}
	rc_config_free(&c);
	flows_free(&pf);
	return err ? -1 : 0;
}
