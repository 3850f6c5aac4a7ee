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
#include "ringctl.h"
#include "rsnl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl lookup [-j] VIP:PORT SRC:SPORT [proto tcp|udp]\n"
"       ringctl lookup [-j] VIP:PORT batch FILE|- [proto tcp|udp]\n"
"\n"
"Prints the backend the kernel steers a new flow from SRC:SPORT to now\n"
"(ADDR:PORT, IPv6 as [ADDR]:PORT). In batch mode FILE (- for standard\n"
"input) has one SRC:SPORT a line ('#' comments and blank lines are\n"
"skipped) and each line prints \"SRC:SPORT BACKEND:PORT\". With -j:\n"
"{\"backend\":ADDR,\"port\":N,\"position\":\"0x...\"}, or for a batch\n"
"{\"lookups\":[{\"source\":ADDR,\"sport\":N,\"backend\":ADDR,\"port\":N,\n"
"\"position\":\"0x...\"},...]}.\n");
}

/* Reads every source of PATH; 0 or -1 after printing the error. */
static int read_batch(const char *path, const struct rc_service *s,
		      struct rc_lookup **out, size_t *n)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	struct rc_lookup *v = NULL, *nv;
	size_t cap = 0, len = 0;
	char *line = NULL, *tok, *extra, *save;
	char ctx[300];
	unsigned int lineno = 0;
	int ret = 0;

	if (!f)
		return errorf("lookup: %s: %s", path, strerror(errno));
	while (getline(&line, &len, f) > 0) {
		lineno++;
		line[strcspn(line, "#")] = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		snprintf(ctx, sizeof(ctx), "lookup: %s:%u", name, lineno);
		extra = strtok_r(NULL, " \t\r\n", &save);
		if (extra) {
			ret = errorf("%s: unexpected '%s' (one SRC:SPORT a line)", ctx, extra);
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = errorf("lookup: out of memory");
				break;
			}
			v = nv;
		}
		memset(&v[*n], 0, sizeof(v[*n]));
		v[*n].line = lineno;
		if (rc_parse_endpoint_arg(ctx, "source", tok, &v[*n].src)) {
			ret = -1;
			break;
		}
		if (v[*n].src.family != s->vip.family) {
			ret = errorf("%s: source %s is not of the service's address family",
				     ctx, tok);
			break;
		}
		(*n)++;
	}
	if (!ret && ferror(f))
		ret = errorf("lookup: %s: %s", name, strerror(errno));
	free(line);
	if (f != stdin)
		fclose(f);
	if (ret)
		free(v);
	else
		*out = v;
	return ret;
}

static void print_one(struct json *j, FILE *f, const struct rc_lookup *l, bool batch)
{
	char src[RC_ENDPOINT_LEN], be[RC_ENDPOINT_LEN], addr[RC_ADDR_LEN];
	char pos[24];

	if (!json_output) {
		rc_endpoint_format(be, &l->b.ep);
		if (batch) {
			rc_endpoint_format(src, &l->src);
			fprintf(f, "%s %s\n", src, be);
		} else {
			fprintf(f, "%s\n", be);
		}
		return;
	}
	snprintf(pos, sizeof(pos), "0x%016" PRIx64, l->position);
	json_obj_begin(j, NULL);
	if (batch) {
		rc_addr_format(addr, &l->src);
		json_str(j, "source", addr);
		json_u64(j, "sport", l->src.port);
	}
	rc_addr_format(addr, &l->b.ep);
	json_str(j, "backend", addr);
	json_u64(j, "port", l->b.ep.port);
	json_str(j, "position", pos);
	json_obj_end(j);
}

int cmd_lookup(int argc, char **argv)
{
	char name[RC_SERVICE_NAME_LEN], src[RC_ENDPOINT_LEN];
	struct rc_lookup one, *v = NULL;
	const char *batch = NULL;
	char *out = NULL;
	size_t n = 0, i, outlen = 0;
	struct rc_service s;
	struct rc_args a;
	struct rs_nl nl;
	struct json j;
	FILE *f;
	int err = 0;

	argc--;
	argv++;
	rc_take_json(&argc, &argv);
	if (argc > 0 && (!strcmp(argv[0], "help") || !strcmp(argv[0], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	if (rc_parse_endpoint_arg("lookup", "service", argv[0], &s.vip))
		return -1;
	if (!strcmp(argv[1], "batch")) {
		if (argc < 3)
			return errorf("lookup: batch needs a file name (or - for standard input)");
		batch = argv[2];
		argc -= 3;
		argv += 3;
	} else {
		memset(&one, 0, sizeof(one));
		if (rc_parse_endpoint_arg("lookup", "source", argv[1], &one.src))
			return -1;
		if (one.src.family != s.vip.family)
			return errorf("lookup: source %s is not of the service's address family",
				      argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (rc_parse_keywords("lookup", argc, argv, RC_KW_PROTO | RC_KW_JSON, &a))
		return -1;
	s.proto = a.proto;
	if (a.seen & RC_KW_JSON)
		json_output = true;
	if (batch) {
		if (read_batch(batch, &s, &v, &n))
			return -1;
	} else {
		v = &one;
		n = 1;
	}

	if (rc_nl_open(&nl)) {
		err = -1;
		goto out;
	}
	/* One request, or many pipelined over the same socket. */
	i = 0;
	if (batch)
		err = rsnl_lookup_many(&nl, &s, v, n, &i);
	else
		err = rsnl_lookup(&nl, &s, &v->src, &v->b, &v->position);
	if (err) {
		rc_endpoint_format(src, &v[i].src);
		if (batch)
			nl_errorf(err, nl.ext_msg, "lookup %s from %s (line %u)",
				  rc_service_name(name, &s), src, v[i].line);
		else
			nl_errorf(err, nl.ext_msg, "lookup %s from %s",
				  rc_service_name(name, &s), src);
	}
	rs_nl_close(&nl);
	if (err)
		goto out;

	f = open_memstream(&out, &outlen);
	if (!f) {
		err = errorf("lookup: out of memory");
		goto out;
	}
	json_init(&j, f);
	if (json_output && batch) {
		json_obj_begin(&j, NULL);
		json_arr_begin(&j, "lookups");
	}
	for (i = 0; i < n; i++)
		print_one(&j, f, &v[i], batch);
	if (json_output) {
		if (batch) {
			json_arr_end(&j);
			json_obj_end(&j);
		}
		json_finish(&j);
	}
	if (fclose(f)) {
		err = errorf("lookup: out of memory");
		goto out;
	}
	fwrite(out, 1, outlen, stdout);
out:
	free(out);
	if (v != &one)
		free(v);
	return err ? -1 : 0;
}
