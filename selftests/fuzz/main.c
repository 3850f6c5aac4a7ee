// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_netlink [--messages N] [--seed S] [--verbose]
 *
 * Sends N generated requests to the ringsteer family (80% as root in the
 * current namespace, 10% as the owner of a fresh user+net namespace, 10%
 * without CAP_NET_ADMIN over the current namespace) and checks that
 *   - every answer is a well-formed netlink message (msg.h);
 *   - each request is accepted or refused as the uapi header says: a model
 *     of services, backends and key predicts the errnos a request may get,
 *     and every acked change is applied to the model;
 *   - GET, LOOKUP and KEY_GET answers, dumps read while other sockets change
 *     things, and the final configuration all equal the model.
 * Requests come from a small pool of addresses so that they keep hitting
 * existing objects; a quarter carry malformed attributes or bytes. The
 * same seed gives the same sequence of requests.
 */

#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "fuzz.h"

static void track(struct fuzz *f)
{
	uint32_t i, slots = 0;

	if (f->m.ns > f->st.max_services)
		f->st.max_services = f->m.ns;
	for (i = 0; i < f->m.ns; i++) {
		if (f->m.s[i].nb > f->st.max_backends)
			f->st.max_backends = f->m.s[i].nb;
		slots += m_slots(&f->m.s[i]);
	}
	if (slots > f->st.max_slot_services)
		f->st.max_slot_services = slots;
}

static void step(struct fuzz *f)
{
	if (f->index % 256 == 0)
		track(f);
	if (f->index % 4096 == 0)
		f->grow = fz_chance(&f->rng, 550);
	if (f->priv && fz_chance(&f->rng, 15)) {
		fz_episode(f);
		return;
	}
	fz_g_random(f);
	fz_exchange(f, &f->socks[fz_below(&f->rng, NSOCKS)]);
}

static void read_key(struct fuzz *f)
{
	struct fz_answer a = { 0 };
	struct fz_req q;

	fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK, 0,
		 RINGSTEER_CMD_KEY_GET, RINGSTEER_GENL_VERSION);
	fz_end(&f->req);
	fz_send_req(f, &f->socks[0], &q);
	while (!fz_recv_part(f, &f->socks[0], &q, &a))
		;
	if (a.err || f->nrep != 1)
		fz_fail(f, "KEY_GET: %s", strerror(a.err));
	memcpy(f->m.key, f->rep[0].key, sizeof(f->m.key));
}

/* Dump everything and compare with the model (the run's verdict). */
static void final_compare(struct fuzz *f, bool with_key)
{
	struct fz_model *m = &f->m;
	struct fz_reply *svcs;
	uint32_t i, n;

	f->index = f->st.msgs;
	fz_request_dump(f, RINGSTEER_CMD_SERVICE_GET, NULL);
	fz_exchange(f, &f->socks[0]);
	n = f->nrep;
	svcs = malloc((n + 1) * sizeof(*svcs));
	memcpy(svcs, f->rep, n * sizeof(*svcs));
	fz_check_dump_all(f, m, RINGSTEER_CMD_SERVICE_GET, NULL, svcs, n);
	for (i = 0; i < m->ns; i++) {
		fz_request_dump(f, RINGSTEER_CMD_BACKEND_GET, &m->s[i]);
		fz_exchange(f, &f->socks[0]);
	}
	free(svcs);
	if (with_key) {
		fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK, 0,
			 RINGSTEER_CMD_KEY_GET, RINGSTEER_GENL_VERSION);
		fz_end(&f->req);
		fz_exchange(f, &f->socks[0]);
	}
	/* The backend mode, which the requests turned on and off. */
	fz_begin(&f->req, f->family, NLM_F_REQUEST | NLM_F_ACK, 0,
		 RINGSTEER_CMD_CHAIN_GET, RINGSTEER_GENL_VERSION);
	fz_end(&f->req);
	fz_exchange(f, &f->socks[0]);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(struct fuzz *f, double secs)
{
	const struct fz_stats *st = &f->st;
	unsigned int i;

	printf("phase %s: %llu messages in %.1f s (%.0f/s), seed %llu\n", f->phase,
	       (unsigned long long)st->msgs, secs, st->msgs / (secs > 0 ? secs : 1),
	       (unsigned long long)f->seed);
	printf("  acked %llu, refused %llu (tolerated-attribute refusals %llu, without extack message %llu)\n",
	       (unsigned long long)st->acked, (unsigned long long)st->refused,
	       (unsigned long long)st->maybe_refused, (unsigned long long)st->no_msg);
	printf("  dumps %llu, interleaved dump episodes %llu (abandoned %llu, NLM_F_DUMP_INTR seen %llu)\n",
	       (unsigned long long)st->dumps, (unsigned long long)st->episodes,
	       (unsigned long long)st->abandoned, (unsigned long long)st->intr);
	printf("  requests with bad attributes %llu, with bad bytes %llu; lookups checked against the ring %llu\n",
	       (unsigned long long)st->attr_mutated, (unsigned long long)st->raw_mutated,
	       (unsigned long long)st->lookups);
	printf("  errnos:");
	for (i = 0; i < sizeof(fz_errnos) / sizeof(fz_errnos[0]); i++)
		printf(" %s %llu", strerrorname_np(fz_errnos[i]),
		       (unsigned long long)st->by_errno[i]);
	printf("\n  services %u at the end, at most %llu services and %llu backends in one; multi-part dumps %llu\n",
	       f->m.ns, (unsigned long long)st->max_services,
	       (unsigned long long)st->max_backends, (unsigned long long)st->multipart);
	printf("  placement slots: at most %llu services; requests with slots %llu (acked %llu); lookups checked against the slots %llu\n",
	       (unsigned long long)st->max_slot_services, (unsigned long long)st->slots_sent,
	       (unsigned long long)st->slots_acked, (unsigned long long)st->slot_lookups);
	fflush(stdout);
}

static void run_phase(struct fuzz *f, const char *name, uint64_t n, bool priv,
		      bool know_key)
{
	double t0;
	int i;

	f->phase = name;
	f->priv = priv;
	memset(&f->st, 0, sizeof(f->st));
	for (i = 0; i < NSOCKS; i++)
		fz_sock_open(f, &f->socks[i], i != 1);
	fz_dump_sock_open(f, &f->dump);
	if (priv && !know_key)
		read_key(f);
	t0 = now();
	for (f->index = 0; f->st.msgs < n; f->index++)
		step(f);
	report(f, now() - t0);
	if (priv)
		final_compare(f, true);
}

/* Drop to nobody; then a new user namespace, with a new netns if OWN_NET. */
static int become(bool own_net)
{
	int flags = CLONE_NEWUSER | (own_net ? CLONE_NEWNET : 0);

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	return unshare(flags) ? -errno : 0;
}

static int child(struct fuzz *f, const char *name, uint64_t n, bool own_net)
{
	pid_t pid = fork();
	int status, err;

	if (pid < 0)
		return -1;
	if (pid) {
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	err = become(own_net);
	if (err) {
		fprintf(stderr, "FAIL: %s: cannot enter a user namespace as nobody: %s\n",
			name, strerror(-err));
		exit(1);
	}
	if (own_net) {
		/*
		 * A new namespace: empty, with a key nobody has read yet, and
		 * its own count of walks, from 1 again.
		 */
		fz_m_free(&f->m);
		memset(&f->m, 0, sizeof(f->m));
		fz_check_forget_ring();
		f->last_walk = 0;
	}
	f->rng.s = f->seed ^ (own_net ? 0x5555 : 0xaaaa);
	run_phase(f, name, n, own_net, false);
	if (!own_net) {
		/* The refused phase left the namespace alone. */
		f->priv = true;
		final_compare(f, false);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "messages", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	static struct fuzz f;
	uint64_t n = 1000000;
	double t0 = now();
	int c, rc;

	f.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt_long(argc, argv, "n:s:v", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': f.seed = strtoull(optarg, NULL, 0); break;
		case 'v': f.verbose = true; break;
		default:
			fprintf(stderr, "usage: %s [--messages N] [--seed S] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	printf("fuzz_netlink: %llu messages, seed %llu (rerun: --seed %llu --messages %llu)\n",
	       (unsigned long long)n, (unsigned long long)f.seed,
	       (unsigned long long)f.seed, (unsigned long long)n);
	fflush(stdout);
	f.rng.s = f.seed;
	run_phase(&f, "root", n - 2 * (n / 10), true, false);
	fflush(stdout);
	rc = child(&f, "userns-owner", n / 10, true);
	if (!rc)
		rc = child(&f, "unprivileged", n / 10, false);
	if (!rc) {
		f.phase = "root-after";
		f.priv = true;
		final_compare(&f, true);
		printf("fuzz_netlink: %llu messages in %.1f s, kernel state equals the model\n",
		       (unsigned long long)n, now() - t0);
	}
	return rc ? 1 : 0;
}

