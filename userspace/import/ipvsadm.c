// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of "ipvsadm-save -n" (ipvsadm -S -n): one rule a line, as
 * ipvsadm -R reads them back,
 *
 *	-A -t|-u VIP:PORT -s SCHED [-p [TIMEOUT]] [-M NETMASK] [-b FLAGS] [-o]
 *	-a -t|-u VIP:PORT -r RIP[:PORT] -m|-i|-g -w WEIGHT
 *		[--tun-type ipip|gue|gre] [--tun-port PORT] [--tun-nocsum|...]
 *
 * with the long spellings ipvsadm also takes. Every option is either
 * mapped (import_map.c) or refused with its line: an option this reader
 * does not know is an error too, never skipped.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lines.h"
#include "parse.h"
#include "import.h"

enum opt {
	O_ADD_SVC, O_ADD_RS, O_TCP, O_UDP, O_SCTP, O_FWMARK, O_SCHED, O_PERSIST,
	O_NETMASK, O_FLAGS, O_OPS, O_PE, O_IPV6, O_RS, O_DR, O_TUN, O_NAT, O_WEIGHT,
	O_UTHRESH, O_LTHRESH, O_TUN_TYPE, O_TUN_PORT, O_NOCSUM, O_CSUM, O_REMCSUM,
	O_MAX
};

static const struct {
	const char *shortname, *longname;
	bool arg;
} opts[O_MAX] = {
	[O_ADD_SVC] = { "-A", "--add-service", false },
	[O_ADD_RS] = { "-a", "--add-server", false },
	[O_TCP] = { "-t", "--tcp-service", true },
	[O_UDP] = { "-u", "--udp-service", true },
	[O_SCTP] = { NULL, "--sctp-service", true },
	[O_FWMARK] = { "-f", "--fwmark-service", true },
	[O_SCHED] = { "-s", "--scheduler", true },
	[O_PERSIST] = { "-p", "--persistent", false },	/* its timeout is optional */
	[O_NETMASK] = { "-M", "--netmask", true },
	[O_FLAGS] = { "-b", "--sched-flags", true },
	[O_OPS] = { "-o", "--ops", false },
	[O_PE] = { NULL, "--pe", true },
	[O_IPV6] = { "-6", "--ipv6", false },
	[O_RS] = { "-r", "--real-server", true },
	[O_DR] = { "-g", "--gatewaying", false },
	[O_TUN] = { "-i", "--ipip", false },
	[O_NAT] = { "-m", "--masquerading", false },
	[O_WEIGHT] = { "-w", "--weight", true },
	[O_UTHRESH] = { "-x", "--u-threshold", true },
	[O_LTHRESH] = { "-y", "--l-threshold", true },
	[O_TUN_TYPE] = { NULL, "--tun-type", true },
	[O_TUN_PORT] = { NULL, "--tun-port", true },
	[O_NOCSUM] = { NULL, "--tun-nocsum", false },
	[O_CSUM] = { NULL, "--tun-csum", false },
	[O_REMCSUM] = { NULL, "--tun-remcsum", false },
};

/* One rule: each option's value ("" for a flag), NULL when absent. */
struct rule {
	const char *v[O_MAX];
	unsigned int line;
};

struct reader {
	struct imp_config *c;
};

static int find_opt(const char *w)
{
	int i;

	for (i = 0; i < O_MAX; i++)
		if ((opts[i].shortname && !strcmp(w, opts[i].shortname)) ||
		    !strcmp(w, opts[i].longname))
			return i;
	return -1;
}

static int read_rule(struct imp_config *c, int argc, char **argv, struct rule *r)
{
	int i, o;

	for (i = 0; i < argc; i++) {
		o = find_opt(argv[i]);
		if (o < 0)
			return cli_error("import: %s:%u: unknown ipvsadm option '%s'", c->file,
					 r->line, argv[i]);
		if (r->v[o])
			return cli_error("import: %s:%u: %s given twice", c->file, r->line, argv[i]);
		r->v[o] = "";
		if (o == O_PERSIST && i + 1 < argc && argv[i + 1][0] != '-')
			r->v[o] = argv[++i];
		else if (opts[o].arg && ++i == argc)
			return cli_error("import: %s:%u: %s wants a value", c->file, r->line,
					 argv[i - 1]);
		else if (opts[o].arg)
			r->v[o] = argv[i];
	}
	return 0;
}

/*
 * The rule's virtual service: protocol and address; or a refusal, which
 * with --lenient is 1: the rule is left out (a real server's silently,
 * its service's -A line having said why).
 */
static int rule_vip(struct imp_config *c, const struct rule *r, uint8_t *proto,
		    struct rc_endpoint *vip)
{
	const char *why, *s = r->v[O_TCP] ?: r->v[O_UDP];
	int err = 0;

	if (r->v[O_FWMARK] && (r->v[O_ADD_SVC] || !c->lenient))
		err = imp_refuse(c, r->line, "firewall-mark service %s: ringsteer steers by "
				 "VIP:PORT and protocol, not by a netfilter mark; write one "
				 "service per VIP:PORT the mark selects", r->v[O_FWMARK]);
	else if (r->v[O_SCTP] && (r->v[O_ADD_SVC] || !c->lenient))
		err = imp_refuse(c, r->line, "SCTP service %s: ringsteer steers TCP and UDP",
				 r->v[O_SCTP]);
	if (err || r->v[O_FWMARK] || r->v[O_SCTP])
		return err ?: 1;
	if (!s || (r->v[O_TCP] && r->v[O_UDP]))
		return cli_error("import: %s:%u: want one of -t, -u or -f", c->file, r->line);
	*proto = r->v[O_TCP] ? IPPROTO_TCP : IPPROTO_UDP;
	if (rc_endpoint_parse(s, vip, &why))
		return cli_error("import: %s:%u: virtual service '%s': %s%s", c->file, r->line, s,
				 why, strchr(s, ':') ? " (names need ipvsadm-save -n)" : "");
	return 0;
}

/* The options of the other kind of rule are not this one's. */
static int only(struct imp_config *c, const struct rule *r, int first, int last)
{
	int o;

	for (o = O_SCHED; o < O_MAX; o++)
		if (r->v[o] && (o < first || o > last))
			return cli_error("import: %s:%u: %s belongs to %s", c->file, r->line,
					 opts[o].shortname ?: opts[o].longname,
					 o < O_RS ? "-A (a service)" : "-a (a real server)");
	return 0;
}

static int add_service(struct imp_config *c, const struct rule *r)
{
	struct rc_endpoint vip;
	struct imp_service *s;
	uint8_t proto;
	int err;

	c->cur = NULL;
	err = only(c, r, O_SCHED, O_IPV6) ?: rule_vip(c, r, &proto, &vip);
	if (err)
		return err < 0 ? err : 0;
	err = imp_service_add(c, r->line, &vip, proto, &s);
	if (err || s->dropped)
		return err;
	/* ipvsadm's default scheduler. */
	err = imp_scheduler(c, s, r->line, r->v[O_SCHED] ?: "wlc", r->v[O_FLAGS]);
	if (!err && r->v[O_PERSIST])
		err = imp_persistence(c, s, r->line, r->v[O_NETMASK]);
	else if (!err && r->v[O_NETMASK])
		err = imp_refuse(c, r->line, "-M without -p: no persistence to mask");
	if (!err && r->v[O_OPS])
		imp_note(c, s, r->line, "-o (one-packet scheduling): ringsteer hashes each "
			 "datagram by its flow, so a flow's datagrams share a backend");
	if (!err && r->v[O_PE])
		err = imp_refuse(c, r->line, "persistence engine %s: ringsteer reads no "
				 "application headers", r->v[O_PE]);
	return err;
}

static int tunnel(struct imp_config *c, struct imp_service *s, const struct rule *r)
{
	const char *type = r->v[O_TUN_TYPE] ?: "ipip";
	unsigned long port = 0;
	char *end;

	if (!strcmp(type, "gre"))
		return imp_refuse(c, r->line, "--tun-type gre: ringsteer encapsulates in ipip or "
				  "gue (--tun-type ipip, or gue with --tun-port)");
	if (!strcmp(type, "ipip")) {
		if (r->v[O_TUN_PORT])
			return imp_refuse(c, r->line, "--tun-port with ipip: only gue has a port");
		return imp_forward(c, s, r->line, IMP_FWD_TUNNEL, IMP_ENCAP_IPIP, 0);
	}
	if (strcmp(type, "gue"))
		return imp_refuse(c, r->line, "unknown --tun-type '%s'", type);
	if (r->v[O_TUN_PORT])
		port = strtoul(r->v[O_TUN_PORT], &end, 10);
	if (!r->v[O_TUN_PORT] || *end || !port || port > 65535)
		return imp_refuse(c, r->line, "gue wants --tun-port 1..65535");
	if (r->v[O_CSUM] || r->v[O_REMCSUM])
		imp_note(c, s, r->line, "%s: ringsteer's GUE has no checksum over IPv4 and a "
			 "full one over IPv6; the backend's fou port takes both",
			 r->v[O_CSUM] ? "--tun-csum" : "--tun-remcsum");
	return imp_forward(c, s, r->line, IMP_FWD_TUNNEL, IMP_ENCAP_GUE, port);
}

static int forward(struct imp_config *c, struct imp_service *s, const struct rule *r)
{
	if (!!r->v[O_NAT] + !!r->v[O_TUN] + !!r->v[O_DR] > 1)
		return imp_refuse(c, r->line, "more than one of -m, -i and -g");
	if (r->v[O_NAT] && !r->v[O_TUN_TYPE] && !r->v[O_TUN_PORT])
		return imp_forward(c, s, r->line, IMP_FWD_NAT, IMP_ENCAP_IPIP, 0);
	if (r->v[O_TUN])
		return tunnel(c, s, r);
	if (r->v[O_NAT])
		return imp_refuse(c, r->line, "--tun-* options on a NAT (-m) server");
	/* Without any of them, ipvsadm's default: direct routing. */
	return imp_refuse(c, r->line, "direct routing (-g): ringsteer rewrites no MAC "
			  "addresses; it offers forward tunnel instead (-i: ipip, or gue with "
			  "a port), which keeps direct server return: each backend decapsulates "
			  "(ringsteer-backend) and answers clients itself");
}

static int rs_weight(struct imp_config *c, const struct rule *r, uint32_t *w)
{
	unsigned long v = 1;
	char *end = "";

	if (r->v[O_WEIGHT])
		v = strtoul(r->v[O_WEIGHT], &end, 10);
	if (*end || (r->v[O_WEIGHT] && !*r->v[O_WEIGHT]) || v > 65535)
		return cli_error("import: %s:%u: weight '%s': want 0..65535", c->file, r->line,
				 r->v[O_WEIGHT]);
	*w = v;
	return 0;
}

static int add_server(struct imp_config *c, const struct rule *r)
{
	struct rc_endpoint vip, ep;
	struct imp_service *s;
	struct imp_backend *b;
	const char *why;
	uint8_t proto;
	uint32_t w = 1, warnings;
	bool bare;
	int err;

	err = only(c, r, O_RS, O_MAX - 1) ?: rule_vip(c, r, &proto, &vip);
	if (err)
		return err < 0 ? err : 0;
	s = imp_service_find(c, &vip, proto);
	if (!s)
		return cli_error("import: %s:%u: real server of %s, a service no -A line defines",
				 c->file, r->line, r->v[O_TCP] ?: r->v[O_UDP]);
	c->cur = s;
	if (s->dropped)
		return 0;
	if (!r->v[O_RS])
		return cli_error("import: %s:%u: -a without -r", c->file, r->line);
	if (rc_endpoint_parse_bare(r->v[O_RS], &ep, &bare, &why))
		return cli_error("import: %s:%u: real server '%s': %s", c->file, r->line,
				 r->v[O_RS], why);
	if (bare)
		ep.port = vip.port;	/* as ipvsadm reads it */
	if ((r->v[O_UTHRESH] && strcmp(r->v[O_UTHRESH], "0")) ||
	    (r->v[O_LTHRESH] && strcmp(r->v[O_LTHRESH], "0"))) {
		err = imp_refuse(c, r->line, "connection thresholds (-x, -y): ringsteer does not "
				 "count a backend's connections to steer");
		if (err)
			return err;
	}
	warnings = c->warnings;
	err = rs_weight(c, r, &w) ?: forward(c, s, r);
	/* A way of forwarding refused with --lenient leaves the server out. */
	if (err || c->warnings != warnings)
		return err;
	if (s->forward == IMP_FWD_TUNNEL && ep.port != vip.port)
		return imp_refuse(c, r->line, "tunnelled real server %s with port %u: a tunnel "
				  "cannot translate ports (IPVS ignores it; ringsteer refuses it)",
				  r->v[O_RS], ep.port);
	return imp_backend_add(c, s, r->line, &ep, w, &b);
}

static int rule_line(const char *ctx, int argc, char **argv, unsigned int lineno, void *data)
{
	struct reader *rd = data;
	struct rule r = { .line = lineno };
	int err;

	(void)ctx;
	err = read_rule(rd->c, argc, argv, &r);
	if (err)
		return err;
	if (!!r.v[O_ADD_SVC] == !!r.v[O_ADD_RS])
		return cli_error("import: %s:%u: want -A (a service) or -a (a real server): "
				 "ipvsadm-save writes nothing else", rd->c->file, lineno);
	return r.v[O_ADD_SVC] ? add_service(rd->c, &r) : add_server(rd->c, &r);
}

int imp_read_ipvsadm(FILE *f, struct imp_config *c)
{
	struct reader rd = { .c = c };

	if (parse_lines(f, "import", c->file, rule_line, &rd))
		return -EINVAL;
	if (!c->ns)
		return cli_error("import: %s: no virtual service (-A line)", c->file);
	return 0;
}
