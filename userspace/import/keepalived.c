// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of keepalived.conf's LVS part (keepalived.conf(5), "LVS
 * CONFIGURATION"): virtual_server blocks, their real_server blocks and
 * checkers (keepalived_check.c), and virtual_server_group. Words are
 * split on blanks, '!' and '#' start comments, "..." is one word, braces
 * open and close blocks. The VRRP part and global_defs move no traffic
 * that ringsteer steers: they are left to keepalived, with a note. Every
 * other word is mapped or refused with its line; none is skipped unseen.
 *
 * A virtual server is read whole before it is mapped, since keepalived
 * takes its keywords in any order (lb_kind after the real servers).
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "keepalived.h"

#define KV_MAX_RS	RINGSTEER_MAX_BACKENDS
#define KV_MAX_VIPS	256

struct kv_rs {
	struct rc_endpoint ep;
	unsigned int line;
	uint32_t weight;
	enum imp_forward fwd;		/* IMP_FWD_UNSET: the virtual server's */
	enum imp_encap encap;
	uint16_t encap_port;
	unsigned int fwd_line;
	struct kv_timing t;
	struct kv_check check;
	char vhost[KV_STR_LEN];
};

struct kv_vs {
	unsigned int line;
	struct rc_endpoint vip[KV_MAX_VIPS];
	unsigned int nvip;
	uint8_t proto;
	char sched[32], flags[128];
	unsigned int sched_line, persist_line;
	char netmask[64];
	enum imp_forward fwd;
	enum imp_encap encap;
	uint16_t encap_port;
	unsigned int fwd_line;
	struct kv_timing t;
	char vhost[KV_STR_LEN];
	struct kv_rs *rs;
	uint32_t nrs;
};

/* virtual_server_group NAME: its addresses, for "virtual_server group NAME". */
struct kv_group {
	char name[64];
	struct rc_endpoint vip[KV_MAX_VIPS];
	unsigned int nvip;
};

struct kv_reader {
	struct imp_config *c;
	struct kv_file *kf;
	struct kv_group *groups;
	unsigned int ngroups;
};

/* A keyword's one argument, or an error naming it. */
static int want_args(struct imp_config *c, const struct kv_stmt *st, int min, int max)
{
	if (st->n - 1 < min || st->n - 1 > max)
		return cli_error("import: %s:%u: %s wants %d%s argument%s", c->file, st->line,
				 st->w[0], min, max > min ? " or more" : "", max == 1 ? "" : "s");
	return 0;
}

/* "ADDR PORT" (or ADDR alone: port 0) as an endpoint. */
static int addr_port(struct imp_config *c, const struct kv_stmt *st, int i,
		     struct rc_endpoint *ep)
{
	const char *why;
	char *end;
	unsigned long port = 0;
	bool bare;

	if (i >= st->n || rc_endpoint_parse_bare(st->w[i], ep, &bare, &why) || !bare)
		return cli_error("import: %s:%u: %s: want an address%s", c->file, st->line,
				 st->w[0], i < st->n ? "" : " and a port");
	if (i + 1 < st->n) {
		port = strtoul(st->w[i + 1], &end, 10);
		if (*end || !port || port > 65535)
			return cli_error("import: %s:%u: port '%s': want 1..65535", c->file,
					 st->line, st->w[i + 1]);
	}
	ep->port = port;
	return 0;
}

/* lvs_method / lb_kind NAT|DR|TUN [type ipip|gue port N|gre] [nocsum|csum|remcsum] */
static int lvs_method(struct imp_config *c, const struct kv_stmt *st, enum imp_forward *fwd,
		      enum imp_encap *encap, uint16_t *port, unsigned int *line)
{
	int i = 2;

	if (want_args(c, st, 1, 6))
		return -EINVAL;
	*line = st->line;
	if (!strcmp(st->w[1], "NAT")) {
		*fwd = IMP_FWD_NAT;
		return st->n == 2 ? 0 : imp_refuse(c, st->line, "lvs_method NAT takes no options");
	}
	*fwd = IMP_FWD_REFUSED;
	if (!strcmp(st->w[1], "DR"))
		return imp_refuse(c, st->line, "lvs_method DR (direct routing): ringsteer rewrites "
				  "no MAC addresses; it offers forward tunnel instead (lvs_method "
				  "TUN: ipip, or type gue port N), which keeps direct server return: "
				  "each backend decapsulates (ringsteer-backend) and answers clients "
				  "itself");
	if (strcmp(st->w[1], "TUN"))
		return imp_refuse(c, st->line, "unknown lvs_method '%s'", st->w[1]);
	*fwd = IMP_FWD_TUNNEL;
	*encap = IMP_ENCAP_IPIP;
	*port = 0;
	if (i < st->n && !strcmp(st->w[i], "type") && i + 1 < st->n) {
		if (!strcmp(st->w[i + 1], "gue") && i + 3 < st->n && !strcmp(st->w[i + 2], "port")) {
			char *end;
			unsigned long p = strtoul(st->w[i + 3], &end, 10);

			if (*end || !p || p > 65535)
				return imp_refuse(c, st->line, "gue port '%s': want 1..65535",
						  st->w[i + 3]);
			*encap = IMP_ENCAP_GUE;
			*port = p;
			i += 4;
		} else if (!strcmp(st->w[i + 1], "ipip")) {
			i += 2;
		} else {
			*fwd = IMP_FWD_REFUSED;
			return imp_refuse(c, st->line, "tunnel type %s: ringsteer encapsulates in "
					  "ipip, or gue with a port", st->w[i + 1]);
		}
	}
	/* The checksum options: ringsteer's GUE decides its own, fou takes both. */
	if (i < st->n && (!strcmp(st->w[i], "nocsum") || !strcmp(st->w[i], "csum") ||
			  !strcmp(st->w[i], "remcsum")))
		i++;
	if (i < st->n) {
		*fwd = IMP_FWD_REFUSED;
		return imp_refuse(c, st->line, "lvs_method TUN: unknown option '%s'", st->w[i]);
	}
	return 0;
}

static int copy_word(struct imp_config *c, const struct kv_stmt *st, char *out, size_t len)
{
	if (want_args(c, st, 1, 1))
		return -EINVAL;
	if (strlen(st->w[1]) >= len)
		return cli_error("import: %s:%u: %s: too long", c->file, st->line, st->w[0]);
	strcpy(out, st->w[1]);
	return 0;
}

/* Keywords that change nothing ringsteer does: a note says so. */
static const char *const inert[] = {
	"alpha", "omega", "ha_suspend", "smtp_alert", "snmp_name", "ip_family",
	"inhibit_on_failure", "log_all_failures", "warmup",
};

static bool is_inert(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(inert) / sizeof(inert[0]); i++)
		if (!strcmp(w, inert[i]))
			return true;
	return false;
}

static const char *inert_why(const char *w)
{
	if (!strcmp(w, "inhibit_on_failure"))
		return "a backend marked down keeps its established flows, as on-down keep "
		       "(the default) does";
	if (!strcmp(w, "warmup"))
		return "ringsteer's checker spreads its probes by jitter (default 10%)";
	return "no effect on steering";
}

static int rs_word(struct kv_reader *r, struct kv_rs *rs, const struct kv_stmt *st)
{
	struct imp_config *c = r->c;
	char *end;
	int err;

	if (!strcmp(st->w[0], "weight")) {
		err = want_args(c, st, 1, 1);
		rs->weight = err ? 0 : strtoul(st->w[1], &end, 10);
		if (!err && (*end || rs->weight > 65535))
			err = cli_error("import: %s:%u: weight '%s': want 0..65535", c->file,
					st->line, st->w[1]);
		return err;
	}
	if (!strcmp(st->w[0], "lvs_method") || !strcmp(st->w[0], "lb_kind"))
		return lvs_method(c, st, &rs->fwd, &rs->encap, &rs->encap_port, &rs->fwd_line);
	if (!strcmp(st->w[0], "virtualhost"))
		return copy_word(c, st, rs->vhost, sizeof(rs->vhost));
	if (!strcmp(st->w[0], "notify_up") || !strcmp(st->w[0], "notify_down"))
		return imp_refuse(c, st->line, "%s: ringsteer's checker runs no command per "
				  "backend ('ringctl monitor' prints every change)", st->w[0]);
	if (!strcmp(st->w[0], "uthreshold") || !strcmp(st->w[0], "lthreshold"))
		return imp_refuse(c, st->line, "%s: ringsteer does not count a backend's "
				  "connections to steer", st->w[0]);
	err = kv_timing_word(c, st, &rs->t);
	if (err <= 0)
		return err;
	if (is_inert(st->w[0])) {
		imp_note(c, NULL, st->line, "%s: %s", st->w[0], inert_why(st->w[0]));
		return 0;
	}
	return imp_refuse(c, st->line, "real_server: unknown keyword '%s'", st->w[0]);
}

static int rs_block(struct kv_reader *r, struct kv_vs *vs, const struct kv_stmt *open)
{
	struct imp_config *c = r->c;
	struct kv_stmt st;
	struct kv_rs *rs, *v;
	int err;

	if (!open->open)
		return cli_error("import: %s:%u: real_server without a block", c->file, open->line);
	v = realloc(vs->rs, (vs->nrs + 1) * sizeof(*v));
	if (!v || vs->nrs == KV_MAX_RS)
		return cli_error("import: %s:%u: too many real servers", c->file, open->line);
	vs->rs = v;
	rs = &v[vs->nrs++];
	memset(rs, 0, sizeof(*rs));
	rs->line = open->line;
	rs->weight = 1;
	err = addr_port(c, open, 1, &rs->ep);
	while (!err && !(err = kv_next(c, r->kf, &st)) && !st.close) {
		if (!st.n)
			return cli_error("import: %s:%u: real_server block never closed", c->file,
					 open->line);
		if (st.open && rs->check.kind != KV_NONE) {
			err = imp_refuse(c, st.line, "a second checker (%s): ringsteer probes a "
					 "backend one way", st.w[0]) ?: kv_skip(c, r->kf, &st);
		} else if (st.open) {
			err = kv_check_block(c, r->kf, &st, &rs->check);
		} else {
			err = rs_word(r, rs, &st);
		}
	}
	return err;
}

/* A virtual server's keywords with no ringsteer equivalent: 1 if not one. */
static int vs_refused(struct imp_config *c, const struct kv_stmt *st)
{
	const char *w = st->w[0];

	if (!strcmp(w, "persistence_engine"))
		return imp_refuse(c, st->line, "persistence_engine: ringsteer reads no "
				  "application headers");
	if (!strncmp(w, "sorry_server", 12))
		return imp_refuse(c, st->line, "%s: ringsteer has no sorry server; it steers to "
				  "the backends that are up, and its checker's guard (max-down) "
				  "keeps some up", w);
	if (!strcmp(w, "quorum") || !strcmp(w, "hysteresis") || !strcmp(w, "quorum_up") ||
	    !strcmp(w, "quorum_down"))
		return imp_refuse(c, st->line, "%s: ringsteer's checker has no weight quorum; its "
				  "guard max-down PCT%% never takes more than that share of the "
				  "backends down, and on-quorum-loss/-gain run when it refuses", w);
	return 1;
}

static int vs_word(struct kv_reader *r, struct kv_vs *vs, const struct kv_stmt *st)
{
	struct imp_config *c = r->c;
	const char *w = st->w[0];
	int err;

	if (!strcmp(w, "lb_algo") || !strcmp(w, "lvs_sched")) {
		vs->sched_line = st->line;
		return copy_word(c, st, vs->sched, sizeof(vs->sched));
	}
	if (!strcmp(w, "sh-port") || !strcmp(w, "sh-fallback") || !strcmp(w, "mh-port") ||
	    !strcmp(w, "mh-fallback") || !strncmp(w, "flag-", 5)) {
		if (strlen(vs->flags) + strlen(w) + 2 > sizeof(vs->flags))
			return cli_error("import: %s:%u: too many flags", c->file, st->line);
		if (*vs->flags)
			strcat(vs->flags, ",");
		strcat(vs->flags, w);
		return 0;
	}
	if (!strcmp(w, "lb_kind") || !strcmp(w, "lvs_method"))
		return lvs_method(c, st, &vs->fwd, &vs->encap, &vs->encap_port, &vs->fwd_line);
	if (!strcmp(w, "persistence_timeout")) {
		vs->persist_line = st->line;
		return want_args(c, st, 0, 1);
	}
	if (!strcmp(w, "persistence_granularity"))
		return copy_word(c, st, vs->netmask, sizeof(vs->netmask));
	if (!strcmp(w, "protocol")) {
		err = want_args(c, st, 1, 1);
		if (!err && !strcmp(st->w[1], "TCP"))
			vs->proto = IPPROTO_TCP;
		else if (!err && !strcmp(st->w[1], "UDP"))
			vs->proto = IPPROTO_UDP;
		else if (!err)
			err = cli_error("import: %s:%u: protocol %s: ringsteer steers TCP and UDP",
					c->file, st->line, st->w[1]);
		return err;
	}
	if (!strcmp(w, "virtualhost"))
		return copy_word(c, st, vs->vhost, sizeof(vs->vhost));
	if (!strcmp(w, "ops")) {
		imp_note(c, NULL, st->line, "ops (one-packet scheduling): ringsteer hashes each "
			 "datagram by its flow, so a flow's datagrams share a backend");
		return 0;
	}
	err = vs_refused(c, st);
	if (err <= 0)
		return err;
	err = kv_timing_word(c, st, &vs->t);
	if (err <= 0)
		return err;
	if (is_inert(w)) {
		imp_note(c, NULL, st->line, "%s: %s", w, inert_why(w));
		return 0;
	}
	return imp_refuse(c, st->line, "virtual_server: unknown keyword '%s'", w);
}

static struct kv_group *find_group(struct kv_reader *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].name, name))
			return &r->groups[i];
	return NULL;
}

/* "A.B.C.D-E" or "X::Y-Z": the last byte or group of the address varies. */
static int group_range(struct imp_config *c, const struct kv_stmt *st, struct kv_group *g)
{
	struct kv_stmt one = *st;
	struct rc_endpoint ep;
	char *dash = strchr(st->w[0], '-'), *end;
	unsigned long last, first;
	int err;

	*dash = '\0';
	err = addr_port(c, &one, 0, &ep);
	if (err)
		return err;
	last = strtoul(dash + 1, &end, ep.family == AF_INET ? 10 : 16);
	first = ep.family == AF_INET ? ep.addr[3] : (ep.addr[14] << 8 | ep.addr[15]);
	if (*end || last < first || last > (ep.family == AF_INET ? 255UL : 65535UL))
		return imp_refuse(c, st->line, "address range '%s-%s': want the last %s to "
				  "grow (other ranges and prefixes are not read)", st->w[0],
				  dash + 1, ep.family == AF_INET ? "byte" : "group");
	for (; first <= last; first++) {
		if (g->nvip == KV_MAX_VIPS)
			return cli_error("import: %s:%u: more than %d addresses in a group",
					 c->file, st->line, KV_MAX_VIPS);
		if (ep.family == AF_INET) {
			ep.addr[3] = first;
		} else {
			ep.addr[14] = first >> 8;
			ep.addr[15] = first & 0xff;
		}
		g->vip[g->nvip++] = ep;
	}
	return 0;
}

static int group_block(struct kv_reader *r, const struct kv_stmt *open)
{
	struct imp_config *c = r->c;
	struct kv_group *g, *v;
	struct kv_stmt st;
	int err;

	if (want_args(c, open, 1, 1) || !open->open)
		return cli_error("import: %s:%u: want virtual_server_group NAME {", c->file,
				 open->line);
	if (find_group(r, open->w[1]) || strlen(open->w[1]) >= sizeof(g->name))
		return cli_error("import: %s:%u: group %s defined twice or named too long",
				 c->file, open->line, open->w[1]);
	v = realloc(r->groups, (r->ngroups + 1) * sizeof(*v));
	if (!v)
		return cli_error("import: out of memory");
	r->groups = v;
	g = &v[r->ngroups++];
	memset(g, 0, sizeof(*g));
	strcpy(g->name, open->w[1]);
	while (!(err = kv_next(c, r->kf, &st)) && !st.close) {
		if (!st.n || st.open)
			return cli_error("import: %s:%u: virtual_server_group: want ADDR PORT lines "
					 "and '}'", c->file, st.n ? st.line : open->line);
		if (!strcmp(st.w[0], "fwmark"))
			err = imp_refuse(c, st.line, "fwmark %s in a group: ringsteer steers by "
					 "VIP:PORT and protocol, not by a netfilter mark",
					 st.n > 1 ? st.w[1] : "");
		else if (strchr(st.w[0], '-'))
			err = group_range(c, &st, g);
		else if (strchr(st.w[0], '/'))
			err = imp_refuse(c, st.line, "address prefix %s: write its addresses",
					 st.w[0]);
		else if (g->nvip == KV_MAX_VIPS)
			err = cli_error("import: %s:%u: more than %d addresses in a group",
					c->file, st.line, KV_MAX_VIPS);
		else
			err = addr_port(c, &st, 0, &g->vip[g->nvip++]);
		if (err)
			return err;
	}
	return err;
}

/* The addresses "virtual_server ..." names: one, a group's, or a refusal. */
static int vs_vips(struct kv_reader *r, const struct kv_stmt *st, struct kv_vs *vs)
{
	struct imp_config *c = r->c;
	struct kv_group *g;

	if (st->n >= 2 && !strcmp(st->w[1], "fwmark"))
		return imp_refuse(c, st->line, "firewall-mark virtual server: ringsteer steers by "
				  "VIP:PORT and protocol, not by a netfilter mark; write one "
				  "virtual_server per VIP:PORT the mark selects");
	if (st->n == 3 && !strcmp(st->w[1], "group")) {
		g = find_group(r, st->w[2]);
		if (!g)
			return cli_error("import: %s:%u: no virtual_server_group %s above",
					 c->file, st->line, st->w[2]);
		memcpy(vs->vip, g->vip, g->nvip * sizeof(g->vip[0]));
		vs->nvip = g->nvip;
		return 0;
	}
	if (st->n > 3)
		return cli_error("import: %s:%u: want virtual_server ADDR PORT {", c->file,
				 st->line);
	vs->nvip = 1;
	return addr_port(c, st, 1, &vs->vip[0]);
}

static int vs_read(struct kv_reader *r, const struct kv_stmt *open, struct kv_vs *vs)
{
	struct imp_config *c = r->c;
	struct kv_stmt st;
	int err;

	while (!(err = kv_next(c, r->kf, &st)) && !st.close) {
		if (!st.n)
			return cli_error("import: %s:%u: virtual_server block never closed",
					 c->file, open->line);
		if (!strcmp(st.w[0], "real_server"))
			err = rs_block(r, vs, &st);
		else if (st.open)
			err = imp_refuse(c, st.line, "virtual_server: unknown block '%s'", st.w[0]) ?:
			      kv_skip(c, r->kf, &st);
		else
			err = vs_word(r, vs, &st);
		if (err)
			return err;
	}
	return err;
}

/* One real server of one of the virtual server's addresses. */
static int apply_rs(struct kv_reader *r, struct kv_vs *vs, struct imp_service *s,
		    struct kv_rs *rs)
{
	struct imp_config *c = r->c;
	enum imp_forward fwd = rs->fwd ?: vs->fwd ?: IMP_FWD_NAT;
	struct rc_endpoint ep = rs->ep;
	struct imp_backend *b;
	int err;

	if (fwd == IMP_FWD_REFUSED)
		return 0;
	if (!ep.port)
		ep.port = s->vip.port;
	err = rs->fwd ? imp_forward(c, s, rs->fwd_line, fwd, rs->encap, rs->encap_port) :
	      imp_forward(c, s, vs->fwd_line ?: vs->line, fwd, vs->encap, vs->encap_port);
	if (err || s->forward != fwd)
		return err;
	if (fwd == IMP_FWD_TUNNEL && ep.port != s->vip.port)
		return imp_refuse(c, rs->line, "tunnelled real server with port %u: a tunnel "
				  "cannot translate ports (the VIP's is %u)", ep.port, s->vip.port);
	err = imp_backend_add(c, s, rs->line, &ep, rs->weight, &b);
	if (err || !b || rs->check.kind == KV_NONE)
		return err;
	b->check_line = rs->check.line;
	if (rs->check.port && rs->check.port != ep.port)
		snprintf(b->probe, sizeof(b->probe), " port %u", rs->check.port);
	if (*rs->check.address)
		snprintf(b->probe + strlen(b->probe), sizeof(b->probe) - strlen(b->probe),
			 " address %s", rs->check.address);
	return kv_check_text(c, s, &rs->check, &rs->t, &vs->t,
			     *rs->vhost ? rs->vhost : vs->vhost, b->check, sizeof(b->check));
}

static int apply_vs(struct kv_reader *r, struct kv_vs *vs, uint32_t first_note)
{
	struct imp_config *c = r->c;
	struct imp_service *s;
	unsigned int i, k;
	int err = 0;

	for (i = 0; i < vs->nvip && !err; i++) {
		err = imp_service_add(c, vs->line, &vs->vip[i], vs->proto ?: IPPROTO_TCP, &s);
		if (err || s->dropped)
			continue;
		/* The notes read with the block go above its first service. */
		while (first_note < c->nnotes)
			imp_move_note(c, first_note, s);
		err = err ?: imp_scheduler(c, s, vs->sched_line ?: vs->line,
					   *vs->sched ? vs->sched : "wlc", *vs->flags ? vs->flags : NULL);
		if (!err && vs->persist_line)
			err = imp_persistence(c, s, vs->persist_line, *vs->netmask ? vs->netmask : NULL);
		for (k = 0; k < vs->nrs && !err; k++)
			err = apply_rs(r, vs, s, &vs->rs[k]);
	}
	return err;
}

static int vs_block(struct kv_reader *r, const struct kv_stmt *open)
{
	struct imp_config *c = r->c;
	uint32_t first_note = c->nnotes;
	struct kv_vs *vs;
	int err;

	if (!open->open)
		return cli_error("import: %s:%u: virtual_server without a block", c->file,
				 open->line);
	vs = calloc(1, sizeof(*vs));
	if (!vs)
		return cli_error("import: out of memory");
	vs->line = open->line;
	c->cur = NULL;
	err = vs_vips(r, open, vs);
	if (!err && !vs->nvip)	/* refused with --lenient */
		err = kv_skip(c, r->kf, open);
	else if (!err)
		err = vs_read(r, open, vs) ?: apply_vs(r, vs, first_note);
	free(vs->rs);
	free(vs);
	return err;
}

/* Top-level blocks of keepalived's other parts: none moves ringsteer's traffic. */
static const char *const elsewhere[] = {
	"global_defs", "vrrp_instance", "vrrp_sync_group", "vrrp_script", "vrrp_track_process",
	"vrrp_track_file", "track_file", "static_ipaddress", "static_routes", "static_rules",
	"linkbeat_interfaces", "bfd_instance", "garp_group", "SSL", "net_namespace",
	"instance", "use_pid_dir", "vrrp_group", "child_wait_time",
};

static int top_stmt(struct kv_reader *r, const struct kv_stmt *st)
{
	struct imp_config *c = r->c;
	size_t i;

	if (!strcmp(st->w[0], "virtual_server"))
		return vs_block(r, st);
	if (!strcmp(st->w[0], "virtual_server_group"))
		return group_block(r, st);
	if (st->w[0][0] == '@' || st->w[0][0] == '$' || !strcmp(st->w[0], "include"))
		return imp_refuse(c, st->line, "'%s': conditional lines, parameters and include "
				  "are not followed; import the file keepalived would read, "
				  "written out", st->w[0]) ?:
		       kv_skip(c, r->kf, st);
	for (i = 0; i < sizeof(elsewhere) / sizeof(elsewhere[0]); i++)
		if (!strcmp(st->w[0], elsewhere[i])) {
			imp_note(c, NULL, st->line, "%s%s%s: left to keepalived (VRRP and its "
				 "settings move addresses, which ringsteer does not)", st->w[0],
				 st->n > 1 ? " " : "", st->n > 1 ? st->w[1] : "");
			return kv_skip(c, r->kf, st);
		}
	return imp_refuse(c, st->line, "unknown keyword '%s'", st->w[0]) ?:
	       kv_skip(c, r->kf, st);
}

int imp_read_keepalived(FILE *f, struct imp_config *c)
{
	struct kv_reader r = { .c = c };
	struct kv_stmt st;
	int err = 0;

	r.kf = kv_open(c, f);
	if (!r.kf)
		return -EINVAL;
	while (!err && !(err = kv_next(c, r.kf, &st)) && (st.n || st.close)) {
		if (st.close)
			err = cli_error("import: %s:%u: '}' closes no block", c->file, st.line);
		else
			err = top_stmt(&r, &st);
	}
	if (!err && !c->ns)
		err = cli_error("import: %s: no virtual_server block: nothing for ringsteer "
				"(VRRP stays with keepalived)", c->file);
	kv_close(r.kf);
	free(r.groups);
	return err;
}
