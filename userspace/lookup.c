// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl lookup: ask the kernel which backend a new flow would be steered
 * to now. Batch mode reads every source first, then asks over one socket
 * with pipelined requests, and prints only when all lookups succeeded.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "cli.h"
#include "cmd.h"
#include "nl_ops.h"

void cmd_lookup_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl lookup [-j] VIP:PORT SRC:SPORT [proto tcp|udp]\n"
"       ringctl lookup [-j] VIP:PORT batch FILE|- [proto tcp|udp]\n"
"\n"
"Prints the backend the kernel steers a new flow from SRC:SPORT to now\n"
"(ADDR:PORT, IPv6 as [ADDR]:PORT). In batch mode FILE (- for standard\n"
"input) has one SRC:SPORT a line ('#' comments and blank lines are\n"
"skipped) and each line prints \"SRC:SPORT BACKEND:PORT\". A service with\n"
"chain above 1 adds \" hops ADDR[,ADDR...]\" when the flow's packets carry\n"
"hops. With -j:\n"
"{\"backend\":ADDR,\"port\":N,\"position\":\"0x...\"[,\"hops\":[ADDR,...]]},\n"
"or for a batch {\"lookups\":[{\"source\":ADDR,\"sport\":N,\"backend\":ADDR,\n"
"\"port\":N,\"position\":\"0x...\"},...]}.\n");
}

struct batch {
	const struct rc_service *s;
	struct rc_lookup *v;
	size_t n, cap;
};

static int batch_line(const char *ctx, int argc, char **argv, unsigned int lineno,
		      void *data)
{
	struct batch *b = data;
	struct rc_lookup *l, *nv;
	int err;

	if (argc > 1)
		return cli_error("%s: unexpected '%s' (one SRC:SPORT a line)", ctx, argv[1]);
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 1024;
		nv = realloc(b->v, b->cap * sizeof(*nv));
		if (!nv)
			return cli_error("lookup: out of memory");
		b->v = nv;
	}
	l = &b->v[b->n];
	memset(l, 0, sizeof(*l));
	l->line = lineno;
	err = parse_endpoint_arg(ctx, "source", argv[0], &l->src);
	if (err)
		return err;
	if (l->src.family != b->s->vip.family)
		return cli_error("%s: source %s is not of the service's address family",
				 ctx, argv[0]);
	b->n++;
	return 0;
}

/* Reads every source of PATH. */
static int read_batch(const char *path, const struct rc_service *s,
		      struct rc_lookup **out, size_t *n)
{
	struct batch b = { .s = s };
	int err;

	err = parse_file(path, "lookup", batch_line, &b);
	if (err) {
		free(b.v);
		return err;
	}
	*out = b.v;
	*n = b.n;
	return 0;
}

static void print_text(FILE *f, const struct rc_lookup *v, size_t n, bool batch)
{
	char src[RC_ENDPOINT_LEN], be[RC_ENDPOINT_LEN];
	char hop[RC_ADDR_LEN];
	size_t i, h;

	for (i = 0; i < n; i++) {
		rc_endpoint_format(be, &v[i].b.ep);
		rc_endpoint_format(src, &v[i].src);
		fprintf(f, "%s%s%s", batch ? src : "", batch ? " " : "", be);
		for (h = 0; h < v[i].nhops; h++) {
			rc_addr_format(hop, &v[i].hops[h]);
			fprintf(f, "%s%s", h ? "," : " hops ", hop);
		}
		fputc('\n', f);
	}
}

static void print_json_hops(struct json *j, const struct rc_lookup *v)
{
	char addr[RC_ADDR_LEN];
	size_t h;

	json_arr_begin(j, "hops");
	for (h = 0; h < v->nhops; h++) {
		rc_addr_format(addr, &v->hops[h]);
		json_str(j, NULL, addr);
	}
	json_arr_end(j);
}

static void print_json(FILE *f, const struct rc_lookup *v, size_t n, bool batch)
{
	char addr[RC_ADDR_LEN], pos[24];
	struct json j;
	size_t i;

	json_init(&j, f);
	if (batch) {
		json_obj_begin(&j, NULL);
		json_arr_begin(&j, "lookups");
	}
	for (i = 0; i < n; i++) {
		json_obj_begin(&j, NULL);
		if (batch) {
			rc_addr_format(addr, &v[i].src);
			json_str(&j, "source", addr);
			json_u64(&j, "sport", v[i].src.port);
		}
		rc_addr_format(addr, &v[i].b.ep);
		json_str(&j, "backend", addr);
		json_u64(&j, "port", v[i].b.ep.port);
		snprintf(pos, sizeof(pos), "0x%016" PRIx64, v[i].position);
		json_str(&j, "position", pos);
		if (v[i].nhops)
			print_json_hops(&j, &v[i]);
		json_obj_end(&j);
	}
	if (batch) {
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_finish(&j);
}

/*
 * Printed whole or not at all: output is built in memory first, so a
 * failure leaves no partial answer on stdout.
 */
static int print(const struct rc_lookup *v, size_t n, bool batch)
{
	size_t outlen = 0;
	char *out = NULL;
	FILE *f;

	f = open_memstream(&out, &outlen);
	if (!f)
		return cli_error("lookup: out of memory");
	if (cli_json)
		print_json(f, v, n, batch);
	else
		print_text(f, v, n, batch);
	if (fclose(f)) {
		free(out);
		return cli_error("lookup: out of memory");
	}
	fwrite(out, 1, outlen, stdout);
	free(out);
	return 0;
}

/* One request, or many pipelined over the same socket. */
static int ask(const struct rc_service *s, struct rc_lookup *v, size_t n, bool batch)
{
	char name[RC_SERVICE_NAME_LEN], src[RC_ENDPOINT_LEN], line[32] = "";
	struct nl_conn nl;
	size_t i = 0;
	int err;

	err = cli_nl_open(&nl);
	if (err)
		return err;
	if (batch)
		err = nl_lookup_many(&nl, s, v, n, &i);
	else
		err = nl_lookup(&nl, s, v);
	if (err) {
		rc_endpoint_format(src, &v[i].src);
		if (batch)
			snprintf(line, sizeof(line), " (line %u)", v[i].line);
		err = cli_nl_error(err, nl.ext_msg, "lookup %s from %s%s",
				   rc_service_name(name, s), src, line);
	}
	nl_close(&nl);
	return err;
}

/* "VIP:PORT { SRC:SPORT | batch FILE } [keywords]" */
static int parse_cmdline(int argc, char **argv, struct rc_service *s,
			 struct rc_lookup *one, const char **batch)
{
	struct parse_args a;
	int err, used = 2;

	memset(s, 0, sizeof(*s));
	memset(one, 0, sizeof(*one));
	if (argc < 2) {
		cmd_lookup_usage(stderr);
		return -EINVAL;
	}
	err = parse_endpoint_arg("lookup", "service", argv[0], &s->vip);
	if (err)
		return err;
	if (!strcmp(argv[1], "batch")) {
		if (argc < 3)
			return cli_error("lookup: batch needs a file name (or - for standard input)");
		*batch = argv[2];
		used = 3;
	} else {
		err = parse_endpoint_arg("lookup", "source", argv[1], &one->src);
		if (err)
			return err;
		if (one->src.family != s->vip.family)
			return cli_error("lookup: source %s is not of the service's address family",
					 argv[1]);
	}
	err = parse_keywords("lookup", argc - used, argv + used,
			     PARSE_KW_PROTO | PARSE_KW_JSON, &a);
	s->proto = a.proto;
	return err;
}

int cmd_lookup(int argc, char **argv)
{
	struct rc_lookup one, *v = &one;
	const char *batch = NULL;
	struct rc_service s;
	size_t n = 1;
	int err;

	argc--;
	argv++;
	cli_take_json(&argc, &argv);
	err = parse_cmdline(argc, argv, &s, &one, &batch);
	if (!err && batch)
		err = read_batch(batch, &s, &v, &n);
	if (err)
		return err;
	err = ask(&s, v, n, batch);
	if (!err)
		err = print(v, n, batch);
	if (v != &one)
		free(v);
	return err;
}
