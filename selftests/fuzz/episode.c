// SPDX-License-Identifier: GPL-2.0
/*
 * Dumps interleaved with changes from other sockets.
 */

#include "fuzz.h"

/*
 * A dump read part by part on the dump socket while other sockets change
 * the configuration. The kernel builds part j+1 while part j is read, so
 * part j+1 shows the state snap[j] of that moment (part 1: at the send).
 * A part with data built after a change must carry NLM_F_DUMP_INTR (the
 * first such part at the latest); with no change at all, none may.
 */
#define EP_PARTS 64

struct dump_parts {
	struct fz_model snap[EP_PARTS];
	uint64_t content[EP_PARTS], changes[EP_PARTS];
	uint32_t data[EP_PARTS];	/* data messages per part */
	struct fz_reply *r;
	uint32_t *part_of;
	uint32_t n, cap, nparts;
};

static void ep_keep(struct fuzz *f, struct dump_parts *d, uint32_t part)
{
	uint32_t i;

	for (i = 0; i < f->nrep; i++) {
		if (d->n == d->cap) {
			d->cap = d->cap ? 2 * d->cap : 64;
			d->r = realloc(d->r, d->cap * sizeof(*d->r));
			d->part_of = realloc(d->part_of, d->cap * sizeof(*d->part_of));
			if (!d->r || !d->part_of)
				abort();
		}
		d->part_of[d->n] = part;
		d->r[d->n++] = f->rep[i];
	}
	if (part < EP_PARTS)
		d->data[part] = f->nrep;
	f->nrep = 0;
}

static void ep_check(struct fuzz *f, struct dump_parts *d, uint8_t cmd,
		     const struct fz_req *q, const struct fz_answer *a)
{
	uint32_t i, k, last = d->nparts < EP_PARTS ? d->nparts - 1 : EP_PARTS - 1;
	const struct m_svc *s;

	if (a->intr_part)
		f->st.intr++;
	if (a->parts > 1)
		f->st.multipart++;
	for (i = 0; i < d->n; i++) {
		k = d->part_of[i] < EP_PARTS ? d->part_of[i] : EP_PARTS - 1;
		if (cmd == RINGSTEER_CMD_SERVICE_GET)
			fz_check_service(f, &d->snap[k], &d->r[i]);
		else if ((s = fz_m_find_svc(&d->snap[k], &q->svc)))
			fz_check_backend(f, s, &d->r[i]);
	}
	/* Part k+1 was built in snap[k]; INTR by then if content moved. */
	for (k = 1; k <= last; k++) {
		if (d->content[k] == d->content[0])
			continue;
		for (i = k; i <= last && !d->data[i]; i++)
			;
		if (i <= last && (!a->intr_part || a->intr_part > i + 1))
			fz_fail(f, "dump part %u built after a change without NLM_F_DUMP_INTR", i + 1);
		break;
	}
	if (a->intr_part && a->intr_part <= EP_PARTS &&
	    d->changes[a->intr_part - 1] == d->changes[0])
		fz_fail(f, "NLM_F_DUMP_INTR in part %u though nothing changed", a->intr_part);
	if (!a->intr_part && d->content[last] == d->content[0])
		fz_check_dump_all(f, &d->snap[0], cmd, cmd == RINGSTEER_CMD_SERVICE_GET ?
				  NULL : fz_m_find_svc(&d->snap[0], &q->svc), d->r, d->n);
}

void fz_episode(struct fuzz *f)
{
	struct dump_parts *d = calloc(1, sizeof(*d));
	uint8_t cmd = RINGSTEER_CMD_SERVICE_GET;
	bool abandon = fz_chance(&f->rng, 100), done;
	const struct m_svc *s = NULL;
	struct fz_answer a = { 0 };
	struct fz_req q;
	uint32_t i, k;

	for (i = 0; i < f->m.ns; i++)
		if (!s || f->m.s[i].nb > s->nb)
			s = &f->m.s[i];
	if (s && fz_chance(&f->rng, 600))
		cmd = RINGSTEER_CMD_BACKEND_GET;
	else
		s = NULL;
	fz_request_dump(f, cmd, s);
	f->st.episodes++;
	fz_send_req(f, &f->dump, &q);
	fz_m_copy(&d->snap[0], &f->m);
	d->content[0] = f->m.content;
	d->changes[0] = f->m.changes;
	for (;;) {
		/* Changes from other sockets, before the next part is built. */
		for (k = fz_below(&f->rng, 4); k && !abandon; k--) {
			struct fz_buf saved = f->req;

			fz_g_random(f);
			fz_exchange(f, &f->socks[fz_below(&f->rng, NSOCKS)]);
			f->req = saved;
		}
		k = ++d->nparts;
		/* Reading part k makes the kernel build part k+1, now. */
		if (k < EP_PARTS) {
			fz_m_copy(&d->snap[k], &f->m);
			d->content[k] = f->m.content;
			d->changes[k] = f->m.changes;
		}
		/* Replies to the requests in between are not the dump's. */
		f->nrep = 0;
		done = fz_recv_part(f, &f->dump, &q, &a);
		ep_keep(f, d, k - 1);
		if (done || abandon)
			break;
	}
	if (!a.done) {
		f->st.abandoned++;
		nl_close(&f->dump.nl);
		fz_dump_sock_open(f, &f->dump);
	} else if (a.err) {
		fz_fail(f, "interleaved dump failed: %s", strerror(a.err));
	} else {
		ep_check(f, d, cmd, &q, &a);
	}
	for (i = 0; i < EP_PARTS; i++)
		fz_m_free(&d->snap[i]);
	free(d->r);
	free(d->part_of);
	free(d);
}

