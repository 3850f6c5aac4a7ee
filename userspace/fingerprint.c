// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl fingerprint: one line per service, "VIP:PORT PROTO FINGERPRINT",
 * sorted, for diff(1) between load balancers. The fingerprint is a digest
 * of the ring (kmod/fingerprint.c), so it is equal on hosts that map every
 * flow alike, whatever the order in which they were configured; the ring
 * generation, which counts changes, is deliberately left out. From a
 * configuration file it is computed offline with the same code.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cfgfile.h"
#include "json.h"
#include "parse.h"
#include "plan.h"
#include "ringctl.h"
#include "rsnl.h"
#include "show.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl fingerprint [-j]\n"
"       ringctl fingerprint [-j] file FILE|- [key HEX32]\n"
"\n"
"Prints one line per service, sorted: VIP:PORT PROTO FINGERPRINT. The\n"
"fingerprint is a digest of the service's ring (every point, its owner,\n"
"the members and vnodes): two load balancers with equal fingerprints\n"
"steer every new flow of the service alike. 'file' computes them offline\n"
"from a configuration file (the format of 'save'), with its key or the\n"
"one given.\n");
}

const char *rc_fingerprint_format(char buf[RC_FINGERPRINT_LEN], uint64_t fp)
{
	snprintf(buf, RC_FINGERPRINT_LEN, "%016llx", (unsigned long long)fp);
	return buf;
}

static void print(const struct rc_config *c)
{
	char ep[RC_ENDPOINT_LEN], fp[RC_FINGERPRINT_LEN], addr[RC_ADDR_LEN];
	struct json j;
	uint32_t i;

	json_init(&j, stdout);
	if (json_output)
		json_arr_begin(&j, NULL);
	for (i = 0; i < c->ns; i++) {
		const struct rc_service *s = &c->s[i];

		rc_fingerprint_format(fp, s->fingerprint);
		if (!json_output) {
			rc_endpoint_format(ep, &s->vip);
			printf("%s %s %s\n", ep, rc_proto_name(s->proto), fp);
			continue;
		}
		json_obj_begin(&j, NULL);
		rc_addr_format(addr, &s->vip);
		json_str(&j, "vip", addr);
		json_u64(&j, "port", s->vip.port);
		json_str(&j, "proto", rc_proto_name(s->proto));
		json_str(&j, "fingerprint", fp);
		json_obj_end(&j);
	}
	if (json_output) {
		json_arr_end(&j);
		json_finish(&j);
	}
}

/* rs_ring_fingerprint() of each service's ring, as the kernel builds it. */
int rc_config_fingerprints(struct rc_config *c)
{
	struct rs_ring *r;
	uint32_t i;
	int err = 0;
	u64 fp = 0;

	for (i = 0; i < c->ns && !err; i++) {
		r = rc_service_ring(c->key, &c->s[i], &err);
		if (r)
			err = rs_ring_fingerprint(r, &fp);
		c->s[i].fingerprint = fp;
		c->s[i].has_fingerprint = !err;
		rs_ring_free(r);
	}
	return err;
}

static int from_file(const char *path, const char *key)
{
	struct rc_config c;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return errorf("fingerprint: %s: %s", path, strerror(errno));
	err = rc_cfg_parse(f, "fingerprint", path, &c);
	if (f != stdin)
		fclose(f);
	if (err)
		return -1;
	if (key) {
		if (rc_parse_key(key, c.key)) {
			rc_config_free(&c);
			return errorf("fingerprint: bad key '%s' (want %d hex digits)", key,
				      2 * RINGSTEER_KEY_LEN);
		}
		c.has_key = true;
	}
	if (!c.has_key) {
		rc_config_free(&c);
		return errorf("fingerprint: %s has no key line: give 'key HEX32'", path);
	}
	rc_config_sort(&c);
	err = rc_config_fingerprints(&c);
	if (!err)
		print(&c);
	rc_config_free(&c);
	return err ? errorf("fingerprint: %s", strerror(-err)) : 0;
}

static int live(void)
{
	struct rc_config c;
	struct rs_nl nl;
	uint32_t i;
	int err;

	if (rc_nl_open(&nl))
		return -1;
	err = rsnl_config_get(&nl, &c, NULL, false);
	if (err)
		nl_errorf(err, nl.ext_msg, "fingerprint");
	rs_nl_close(&nl);
	if (err)
		return -1;
	for (i = 0; i < c.ns; i++)
		if (!c.s[i].has_fingerprint) {
			rc_config_free(&c);
			return errorf("fingerprint: this ringsteer module reports no fingerprints");
		}
	print(&c);
	rc_config_free(&c);
	return 0;
}

int cmd_fingerprint(int argc, char **argv)
{
	const char *file = NULL, *key = NULL;
	int i;

	argc--;
	argv++;
	rc_take_json(&argc, &argv);
	for (i = 0; i < argc; i++) {
		if (rc_is_help(argv[i])) {
			usage(stdout);
			return 0;
		} else if (rc_is_json(argv[i])) {
			json_output = true;
		} else if (!strcmp(argv[i], "file") && i + 1 < argc && !file) {
			file = argv[++i];
		} else if (!strcmp(argv[i], "key") && i + 1 < argc && !key) {
			key = argv[++i];
		} else {
			usage(stderr);
			return errorf("fingerprint: unexpected argument '%s'", argv[i]);
		}
	}
	if (key && !file)
		return errorf("fingerprint: 'key' goes with 'file'");
	return file ? from_file(file, key) : live();
}
