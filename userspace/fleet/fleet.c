// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl fleet status [FILE]: whether every load balancer of the fleet
 * holds the configuration in etcd and steers alike. It reads
 * PREFIX/config, PREFIX/members/ (every agent that ever ran; a member
 * without a status is missing) and PREFIX/status/ (each agent's, under
 * its lease), and judges each load balancer: its revision against the
 * configuration's, its rings against the others', and, when the fleet
 * file names the local SipHash key, its fingerprints against those the
 * configuration gives under that key with the load balancer's downs
 * (fleet_state.h). Exit 0 when the fleet agrees, 2 when it does not, 1
 * when it cannot tell (etcd unreachable).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../cmd.h"
#include "etcd.h"
#include "fleet_conf.h"
#include "fleet_state.h"
#include "json.h"
#include "parse.h"
#include "../stats_prom.h"

#define EXIT_DISAGREE 2
#define DEF_FLEET_FILE "/etc/ringsteer/fleet.conf"

enum lb_state { LB_OK, LB_STALE, LB_ERROR, LB_MISSING, LB_BAD };

static const char *const state_names[] = {
	[LB_OK] = "ok", [LB_STALE] = "stale", [LB_ERROR] = "error",
	[LB_MISSING] = "missing", [LB_BAD] = "unreadable",
};

struct lb {
	char host[FL_HOST_LEN];
	enum lb_state state;
	bool has_st;
	struct fl_state st;
	bool rings_agree;	/* with the largest group of equal rings */
	int config_match;	/* -1: no key to tell */
	bool key_differs;	/* its key id is not the local key's */
	const char *why;	/* LB_BAD's */
};

struct fleet {
	int64_t revision;	/* of PREFIX/config; 0: none */
	bool config_ok;
	char config_error[CLI_ERROR_LEN];
	struct rc_config config;
	bool has_key;
	char key_id[FL_KEY_ID_LEN];
	struct lb *lb;
	size_t n;
	bool agree;
};

/* The host named by KEY under PREFIX/WHAT/ ("" if it is not one). */
static const char *host_of(const struct fl_conf *c, const char *key, const char *what)
{
	size_t n = strlen(c->prefix), w = strlen(what);

	if (strncmp(key, c->prefix, n) || key[n] != '/' || strncmp(key + n + 1, what, w) ||
	    key[n + 1 + w] != '/')
		return "";
	return key + n + 2 + w;
}

static struct lb *find_or_add(struct fleet *f, const char *host)
{
	struct lb *l;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->lb[i].host, host))
			return &f->lb[i];
	l = realloc(f->lb, (f->n + 1) * sizeof(*l));
	if (!l)
		return NULL;
	f->lb = l;
	l = &f->lb[f->n++];
	memset(l, 0, sizeof(*l));
	snprintf(l->host, sizeof(l->host), "%s", host);
	l->state = LB_MISSING;
	l->config_match = -1;
	return l;
}

static int read_config(struct etcd *e, const struct fl_conf *c, struct fleet *f)
{
	char key[FL_PREFIX_LEN + 80];
	struct etcd_kvs kvs;
	FILE *m;
	int err;

	err = etcd_range(e, fl_key(key, sizeof(key), c, "config"), false, &kvs);
	if (err)
		return cli_nl_error(err, e->err, "fleet status: reading %s", key);
	if (!kvs.n) {
		snprintf(f->config_error, sizeof(f->config_error), "%s: no such key", key);
	} else {
		f->revision = kvs.kv[0].mod_revision;
		m = fmemopen(kvs.kv[0].value, kvs.kv[0].value_len ? kvs.kv[0].value_len : 1, "r");
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "@%lld",
			 (long long)f->revision);
		f->config_ok = m && !parse_config(m, "fleet status", key, &f->config);
		if (m)
			fclose(m);
		if (!f->config_ok) {
			snprintf(f->config_error, sizeof(f->config_error), "%s", cli_last_error());
		} else if (f->config.has_key) {
			/* As the agents refuse it: the key stays on each host. */
			f->config_ok = false;
			snprintf(f->config_error, sizeof(f->config_error),
				 "%s: has a key line: the key must stay local (key-file)", key);
		}
	}
	etcd_kvs_free(&kvs);
	return 0;
}

static int read_hosts(struct etcd *e, const struct fl_conf *c, struct fleet *f,
		      const char *what)
{
	char key[FL_PREFIX_LEN + 80];
	struct etcd_kvs kvs;
	const char *host;
	struct lb *l;
	size_t i;
	int err;

	err = etcd_range(e, fl_key(key, sizeof(key), c, what), true, &kvs);
	if (err)
		return cli_nl_error(err, e->err, "fleet status: reading %s", key);
	for (i = 0; !err && i < kvs.n; i++) {
		host = host_of(c, kvs.kv[i].key, what);
		if (!*host)
			continue;
		l = find_or_add(f, host);
		if (!l) {
			err = cli_error("fleet status: out of memory");
		} else if (!strcmp(what, "status")) {
			l->has_st = !fl_state_parse(kvs.kv[i].value, &l->st, &l->why);
			l->state = l->has_st ? LB_OK : LB_BAD;
		}
	}
	etcd_kvs_free(&kvs);
	return err;
}

static void judge_lb(struct fleet *f, struct lb *l, const uint8_t *key)
{
	struct fl_state exp;

	if (!l->has_st)
		return;
	if (l->st.error_revision && l->st.error_revision >= f->revision)
		l->state = LB_ERROR;
	else if (l->st.revision < f->revision)
		l->state = LB_STALE;
	if (key && f->config_ok && !fl_state_expected(&f->config, key, &l->st, &exp)) {
		l->config_match = fl_state_same_rings(&exp, &l->st);
		fl_state_free(&exp);
	}
	l->key_differs = f->has_key && l->st.key_id[0] && strcmp(l->st.key_id, f->key_id);
}

/* Each LB's rings against the largest group of equal ones (ties: the first). */
static void judge_rings(struct fleet *f)
{
	size_t i, k, best = 0, best_n = 0, n;

	for (i = 0; i < f->n; i++) {
		if (!f->lb[i].has_st)
			continue;
		for (n = 0, k = 0; k < f->n; k++)
			n += f->lb[k].has_st && fl_state_same_rings(&f->lb[i].st, &f->lb[k].st);
		if (n > best_n) {
			best_n = n;
			best = i;
		}
	}
	for (i = 0; i < f->n; i++)
		f->lb[i].rings_agree = f->lb[i].has_st &&
				       fl_state_same_rings(&f->lb[best].st, &f->lb[i].st);
}

static int cmp_lb(const void *a, const void *b)
{
	return strcmp(((const struct lb *)a)->host, ((const struct lb *)b)->host);
}

static void judge(struct fleet *f, const struct fl_conf *c)
{
	size_t i;

	qsort(f->lb, f->n, sizeof(*f->lb), cmp_lb);
	f->has_key = c->has_key;
	if (c->has_key)
		fl_key_id(f->key_id, c->key);
	for (i = 0; i < f->n; i++)
		judge_lb(f, &f->lb[i], c->has_key ? c->key : NULL);
	judge_rings(f);
	f->agree = f->config_ok && f->n > 0;
	for (i = 0; i < f->n; i++)
		f->agree = f->agree && f->lb[i].state == LB_OK && f->lb[i].rings_agree &&
			   f->lb[i].config_match != 0;
}

static void fleet_free(struct fleet *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		fl_state_free(&f->lb[i].st);
	free(f->lb);
	rc_config_free(&f->config);
	memset(f, 0, sizeof(*f));
}

static int gather(struct etcd *e, const struct fl_conf *c, struct fleet *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = read_config(e, c, f) ?: read_hosts(e, c, f, "members") ?:
	      read_hosts(e, c, f, "status");
	if (!err)
		judge(f, c);
	return err;
}

static const char *match_word(int m)
{
	return m < 0 ? "-" : m ? "match" : "differ";
}

static void print_text(const struct fleet *f, const struct fl_conf *c)
{
	const struct lb *l;
	size_t i;

	printf("config %s/config revision %lld: %s\n", c->prefix, (long long)f->revision,
	       f->config_ok ? "valid" : f->config_error);
	printf("%-16s %-10s %-8s %-7s %-7s %s\n", "HOST", "STATE", "REVISION", "RINGS",
	       "CONFIG", "ERROR");
	for (i = 0; i < f->n; i++) {
		l = &f->lb[i];
		printf("%-16s %-10s ", l->host, state_names[l->state]);
		if (l->has_st)
			printf("%-8lld %-7s %-7s %s%s%s\n", (long long)l->st.revision,
			       l->rings_agree ? "agree" : "differ", match_word(l->config_match),
			       l->key_differs ? "another key" : "",
			       l->key_differs && l->st.error_revision ? "; " : "",
			       l->st.error_revision ? l->st.error : "");
		else
			printf("%-8s %-7s %-7s %s\n", "-", "-", "-", l->why ? l->why : "");
	}
	printf("fleet %s\n", f->agree ? "agrees" : "disagrees");
}

static void print_json(const struct fleet *f, const struct fl_conf *c)
{
	const struct lb *l;
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "prefix", c->prefix);
	json_s64(&j, "revision", f->revision);
	if (f->config_ok)
		json_null(&j, "config_error");
	else
		json_str(&j, "config_error", f->config_error);
	json_bool(&j, "key", f->has_key);
	json_bool(&j, "agree", f->agree);
	json_arr_begin(&j, "lbs");
	for (i = 0; i < f->n; i++) {
		l = &f->lb[i];
		json_obj_begin(&j, NULL);
		json_str(&j, "host", l->host);
		json_str(&j, "state", state_names[l->state]);
		if (l->has_st) {
			json_s64(&j, "revision", l->st.revision);
			json_s64(&j, "updated", l->st.updated);
			json_bool(&j, "rings_agree", l->rings_agree);
			if (l->config_match < 0)
				json_null(&j, "config_match");
			else
				json_bool(&j, "config_match", l->config_match);
			json_str(&j, "key_id", l->st.key_id);
			json_bool(&j, "key_differs", l->key_differs);
			if (l->st.error_revision) {
				json_obj_begin(&j, "error");
				json_s64(&j, "revision", l->st.error_revision);
				json_str(&j, "message", l->st.error);
				json_obj_end(&j);
			} else {
				json_null(&j, "error");
			}
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static void prom_gauge(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void print_prometheus(const struct fleet *f)
{
	char host[2 * FL_HOST_LEN];
	size_t i, k;

	prom_gauge("ringsteer_fleet_agree",
		   "1 when every load balancer holds the configuration and steers alike");
	printf("ringsteer_fleet_agree %d\n", f->agree);
	prom_gauge("ringsteer_fleet_config_revision", "etcd revision of the configuration");
	printf("ringsteer_fleet_config_revision %lld\n", (long long)f->revision);
	prom_gauge("ringsteer_fleet_config_valid", "1 when the configuration parses");
	printf("ringsteer_fleet_config_valid %d\n", f->config_ok);
	prom_gauge("ringsteer_fleet_lb_state", "1 for the load balancer's state");
	for (i = 0; i < f->n; i++)
		for (k = 0; k <= LB_BAD; k++)
			printf("ringsteer_fleet_lb_state{host=\"%s\",state=\"%s\"} %d\n",
			       print_prom_escape(host, sizeof(host), f->lb[i].host),
			       state_names[k], f->lb[i].state == k);
	prom_gauge("ringsteer_fleet_lb_revision", "configuration revision the load balancer applied");
	for (i = 0; i < f->n; i++)
		if (f->lb[i].has_st)
			printf("ringsteer_fleet_lb_revision{host=\"%s\"} %lld\n",
			       print_prom_escape(host, sizeof(host), f->lb[i].host),
			       (long long)f->lb[i].st.revision);
	prom_gauge("ringsteer_fleet_lb_rings_agree",
		   "1 when its fingerprints equal the most common ones");
	for (i = 0; i < f->n; i++)
		printf("ringsteer_fleet_lb_rings_agree{host=\"%s\"} %d\n",
		       print_prom_escape(host, sizeof(host), f->lb[i].host), f->lb[i].rings_agree);
	if (!f->has_key)
		return;
	prom_gauge("ringsteer_fleet_lb_config_match",
		   "1 when its fingerprints equal the configuration's under the local key");
	for (i = 0; i < f->n; i++)
		printf("ringsteer_fleet_lb_config_match{host=\"%s\"} %d\n",
		       print_prom_escape(host, sizeof(host), f->lb[i].host),
		       f->lb[i].config_match > 0);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read and judge, again every 200 ms until the fleet agrees or WAIT_MS pass. */
static int status(const struct fl_conf *c, uint32_t wait_ms, bool prom)
{
	uint64_t end = now_ms() + wait_ms;
	struct fleet f;
	struct etcd e;
	int err;

	err = etcd_open(&e, &c->etcd);
	if (err)
		return cli_nl_error(err, NULL, "fleet status: etcd client");
	for (;;) {
		err = gather(&e, c, &f);
		if (err || f.agree || now_ms() >= end)
			break;
		fleet_free(&f);
		usleep(200 * 1000);
	}
	etcd_close(&e);
	if (err)
		return err;
	if (prom)
		print_prometheus(&f);
	else if (cli_json)
		print_json(&f, c);
	else
		print_text(&f, c);
	err = f.agree ? 0 : EXIT_DISAGREE;
	fleet_free(&f);
	return err;
}

void cmd_fleet_usage(FILE *f)
{
	fprintf(f,
"Usage: ringctl [-j] fleet status [FILE] [wait DURATION] [prometheus]\n"
"\n"
"Reads the fleet file (default " DEF_FLEET_FILE "), then from etcd the\n"
"configuration PREFIX/config, the members and every load balancer's status\n"
"(written by 'ringctl sync'), and prints each load balancer: its state (ok,\n"
"stale: behind the configuration's revision, error: it refused it, missing:\n"
"no status, its agent gone or cut off), the revision it applied, whether its\n"
"rings agree with the others', and, when the file names a key-file, whether\n"
"they are what the configuration gives under that key. 'wait' reads again\n"
"until the fleet agrees or the time passes. Exit status 0 when the fleet\n"
"agrees, 2 when it does not, 1 on errors.\n");
}

int cmd_fleet(int argc, char **argv)
{
	const char *file = DEF_FLEET_FILE;
	uint32_t wait_ms = 0;
	bool prom = false;
	struct fl_conf c;
	int i, err = 0;

	argc--;
	argv++;
	cli_take_json(&argc, &argv);
	if (argc < 1 || strcmp(argv[0], "status")) {
		cmd_fleet_usage(stderr);
		return cli_error("fleet: want 'status'");
	}
	for (i = 1; i < argc; i++) {
		if (cli_is_json(argv[i]))
			cli_json = true;
		else if (!strcmp(argv[i], "prometheus"))
			prom = true;
		else if (!strcmp(argv[i], "wait") && i + 1 < argc)
			err = parse_duration(argv[++i], 3600 * 1000, &wait_ms) ?
			      parse_bad_value("fleet status", "wait", argv[i], -EINVAL,
					      "a duration up to 1h, e.g. 5s") : 0;
		else if (i == 1 && argv[i][0] != '-')
			file = argv[i];
		else
			return cli_error("fleet status: unexpected argument '%s'", argv[i]);
	}
	if (err)
		return err;
	err = fl_conf_read(file, "fleet status", &c);
	if (err)
		return err;
	err = status(&c, wait_ms, prom);
	fl_conf_free(&c);
	return err;
}
