/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "ringctl import": what an IPVS configuration (ipvsadm-save -n) or a
 * keepalived.conf says, in ringsteer's words. The two readers
 * (ipvsadm.c, keepalived.c) fill one model through the mapping calls
 * below, which decide what maps, what maps with a note (printed as a
 * comment above the service) and what is refused; emit.c prints the
 * model as a configuration file (ringctl restore) or as a health-check
 * file (ringctl health run).
 *
 * A refusal names the file and line: "import: FILE:LINE: ...". With
 * --lenient it is printed as a warning instead, and what it refused is
 * left out (imp_refuse() returns 0: the caller skips the word, the
 * backend or the service it was reading).
 */
#ifndef RINGCTL_IMPORT_H
#define RINGCTL_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "endpoint.h"

/* IMP_FWD_REFUSED: a way refused with --lenient, its servers left out. */
enum imp_forward { IMP_FWD_UNSET, IMP_FWD_NAT, IMP_FWD_TUNNEL, IMP_FWD_REFUSED };
enum imp_encap { IMP_ENCAP_IPIP, IMP_ENCAP_GUE };

#define IMP_CHECK_LEN	512
#define IMP_PROBE_LEN	96

struct imp_backend {
	struct rc_endpoint ep;
	uint32_t weight;		/* IPVS's: 0 is a quiesced server */
	unsigned int line;
	/* The health file's "backend" options (" address A port P"), or "". */
	char probe[IMP_PROBE_LEN];
	/* keepalived: this server's check, as words after "check", or "". */
	char check[IMP_CHECK_LEN];
	unsigned int check_line;
};

struct imp_note {
	unsigned int line;
	char *text;
};

struct imp_service {
	struct rc_endpoint vip;
	uint8_t proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	unsigned int line;
	bool hash_source;
	enum imp_forward forward;
	enum imp_encap encap;
	uint16_t encap_port;
	unsigned int forward_line;	/* where forward was decided */
	struct imp_backend *b;
	uint32_t nb;
	struct imp_note *notes;
	uint32_t nnotes;
	bool dropped;			/* refused with --lenient: not printed */
	/* Set by imp_finish(): */
	uint32_t wdiv;			/* IPVS weight / wdiv = ringsteer weight */
	uint32_t vnodes;
	const struct imp_backend *check;	/* a backend with the check, or NULL */
};

#define IMP_DEF_VNODES	256

struct imp_config {
	const char *file;		/* as given, for messages */
	bool lenient;
	struct imp_service *s;
	uint32_t ns;
	uint32_t warnings;
	uint32_t checked;		/* services with a check, by imp_finish() */
	struct imp_service *cur;	/* the one being read: refusals' notes go there */
	/* Notes of no service (a keepalived vrrp_instance left out). */
	struct imp_note *notes;
	uint32_t nnotes;
};

/*
 * All of "ringctl import": read IN as FORMAT ("ipvsadm", "keepalived")
 * into C (file and lenient set by the caller; freed by it), and print the
 * configuration, or with HEALTH the health-check file, to OUT once it
 * reads back. 0, or -EINVAL with the error printed and nothing written.
 */
int imp_run(struct imp_config *c, const char *format, FILE *in, bool health, FILE *out);

/* Readers: 0, or -EINVAL with the error printed. F is read whole. */
int imp_read_ipvsadm(FILE *f, struct imp_config *c);
int imp_read_keepalived(FILE *f, struct imp_config *c);

/* The mapping (import_map.c), shared by both readers. */
int imp_refuse(struct imp_config *c, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void imp_note(struct imp_config *c, struct imp_service *s, unsigned int line,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The config's note I (global) moved to S, the service it is about. */
void imp_move_note(struct imp_config *c, uint32_t i, struct imp_service *s);
/*
 * A new service in *OUT; one refused with --lenient is there too, marked
 * dropped, so that its real servers are left out with it.
 */
int imp_service_add(struct imp_config *c, unsigned int line, const struct rc_endpoint *vip,
		    uint8_t proto, struct imp_service **out);
struct imp_service *imp_service_find(struct imp_config *c,
				     const struct rc_endpoint *vip, uint8_t proto);
/* IPVS scheduler NAME and its flags ("mh-port,mh-fallback", or NULL). */
int imp_scheduler(struct imp_config *c, struct imp_service *s, unsigned int line,
		  const char *name, const char *flags);
/* Persistence with a netmask (NULL: the whole address). */
int imp_persistence(struct imp_config *c, struct imp_service *s, unsigned int line,
		    const char *netmask);
/* How a real server is reached; all of a service's must agree. */
int imp_forward(struct imp_config *c, struct imp_service *s, unsigned int line,
		enum imp_forward fwd, enum imp_encap encap, uint16_t port);
/* A real server in *OUT; NULL there when refused with --lenient. */
int imp_backend_add(struct imp_config *c, struct imp_service *s, unsigned int line,
		    const struct rc_endpoint *ep, uint32_t weight, struct imp_backend **out);
/* Weights and checks once every line is read: 0, or -EINVAL (printed). */
int imp_finish(struct imp_config *c);
void imp_config_free(struct imp_config *c);

/* The output (emit.c). */
void imp_emit_config(FILE *f, const struct imp_config *c);
void imp_emit_health(FILE *f, const struct imp_config *c);

#endif /* RINGCTL_IMPORT_H */
