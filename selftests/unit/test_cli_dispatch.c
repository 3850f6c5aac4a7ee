// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's one dispatch and help style, run through cmd_main() as the
 * program would be: every command and subcommand takes help, --help and
 * -h with status 0 and its usage on stdout; unknown ones fail with status
 * 1 and a message naming them; simulate reports bad input through the
 * same parser and messages as the commands that talk to the kernel, and
 * prints nothing else. None of this needs the kernel module.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cli.h"
#include "cmd.h"

struct run {
	int status;
	char *out, *err;
};

static char *slurp(FILE *f)
{
	long len = ftell(f);
	char *buf = calloc(1, len + 1);

	if (len > 0 && pread(fileno(f), buf, len, 0) != len)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* ringctl WORDS... (NULL-terminated), stdout and stderr captured. */
static void ringctl(struct run *r, const char *const *words)
{
	FILE *o = tmpfile(), *e = tmpfile();
	char *argv[32] = { "ringctl" };
	int argc = 1, so, se;

	while (words[argc - 1]) {
		argv[argc] = (char *)words[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	cli_json = false;
	fflush(stdout);
	fflush(stderr);
	so = dup(STDOUT_FILENO);
	se = dup(STDERR_FILENO);
	dup2(fileno(o), STDOUT_FILENO);
	dup2(fileno(e), STDERR_FILENO);
	r->status = cmd_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, STDOUT_FILENO);
	dup2(se, STDERR_FILENO);
	close(so);
	close(se);
	r->out = slurp(o);
	r->err = slurp(e);
}

static void done(struct run *r)
{
	free(r->out);
	free(r->err);
}

static const char *const helps[] = { "help", "--help", "-h" };

/* Command lines, up to the help word; each usage names its first words. */
static const char *const commands[][3] = {
	{ NULL }, { "service" }, { "service", "add" }, { "service", "set" },
	{ "service", "del" }, { "backend" }, { "backend", "add" },
	{ "backend", "set" }, { "backend", "drain" }, { "backend", "activate" },
	{ "backend", "del" }, { "show" }, { "show", "-j" }, { "lookup" },
	{ "key" }, { "key", "show" }, { "key", "set" }, { "flush" },
	{ "monitor" }, { "save" }, { "restore" }, { "simulate" },
	{ "version" },
};

TEST(every_level_takes_every_help)
{
	const char *words[8];
	char want[64];
	unsigned int c, h, n;
	struct run r;

	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		for (h = 0; h < sizeof(helps) / sizeof(helps[0]); h++) {
			for (n = 0; n < 3 && commands[c][n]; n++)
				words[n] = commands[c][n];
			words[n] = helps[h];
			words[n + 1] = NULL;
			snprintf(want, sizeof(want), "Usage: ringctl %s",
				 commands[c][0] ? commands[c][0] : "");
			ringctl(&r, words);
			EXPECT_EQ(0, r.status)
				TH_LOG("%s %s %s: status %d", commands[c][0] ?: "",
				       commands[c][0] && commands[c][1] ? commands[c][1] : "",
				       helps[h], r.status);
			EXPECT_NE(NULL, strstr(r.out, want))
				TH_LOG("%s %s: no '%s' in: %s", commands[c][0] ?: "",
				       helps[h], want, r.out);
			EXPECT_STREQ("", r.err);
			done(&r);
		}
	}
}

TEST(unknown_commands_fail)
{
	static const struct {
		const char *words[4];
		const char *msg;
	} bad[] = {
		{ { "frob" }, "ringctl: unknown command 'frob' (try 'ringctl help')" },
		{ { "service", "frob" },
		  "ringctl: service: unknown subcommand 'frob' (try 'ringctl service help')" },
		{ { "backend", "frob", "help" },
		  "ringctl: backend: unknown subcommand 'frob' (try 'ringctl backend help')" },
		{ { "key", "frob" },
		  "ringctl: key: unknown subcommand 'frob' (try 'ringctl key help')" },
		{ { "--frob" }, "ringctl: unknown option '--frob' (try 'ringctl help')" },
	};
	unsigned int i;
	struct run r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ringctl(&r, bad[i].words);
		EXPECT_EQ(1, r.status)
			TH_LOG("case %u: status %d", i, r.status);
		EXPECT_STREQ("", r.out);
		EXPECT_EQ(0, strncmp(r.err, bad[i].msg, strlen(bad[i].msg)))
			TH_LOG("case %u: %s", i, r.err);
		done(&r);
	}
	/* No command at all: the usage, on stderr, and status 1. */
	ringctl(&r, (const char *const[]){ NULL });
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "Usage: ringctl"));
	done(&r);
}

/*
 * The same bad value gets the same message from simulate as from a
 * command that would go to the kernel: both stop in the common parser.
 */
TEST(simulate_uses_the_common_parser)
{
	static const struct {
		const char *words[8];
		const char *msg;
	} cases[] = {
		{ { "simulate", "backends", "2", "vnodes", "0" },
		  "ringctl: simulate: vnodes '0' out of range" },
		{ { "service", "add", "10.0.0.1:80", "vnodes", "0" },
		  "ringctl: service add: vnodes '0' out of range" },
		{ { "simulate", "backends", "2", "hash", "ring" },
		  "ringctl: simulate: hash mode 'ring' is not valid" },
		{ { "service", "add", "10.0.0.1:80", "hash", "ring" },
		  "ringctl: service add: hash 'ring' is not valid" },
		{ { "simulate", "backend", "10.0.0.1:80@0" },
		  "ringctl: simulate: backend '10.0.0.1:80@0' out of range" },
		{ { "simulate", "backends", "2", "key", "xyz" },
		  "ringctl: simulate: key (32 hex digits) 'xyz' is not valid" },
		{ { "simulate", "backends", "2", "vnodes" },
		  "ringctl: simulate: missing vnodes" },
		{ { "simulate", "backends", "2", "frob" },
		  "ringctl: simulate: unknown argument 'frob'" },
		{ { "simulate", "-j", "backends", "2", "weight", "10.0.0.1:80", "0" },
		  "ringctl: simulate: weight '0' out of range" },
	};
	unsigned int i;
	struct run r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ringctl(&r, cases[i].words);
		EXPECT_EQ(1, r.status)
			TH_LOG("case %u: status %d", i, r.status);
		EXPECT_STREQ("", r.out)
			TH_LOG("case %u: printed %s", i, r.out);
		EXPECT_EQ(0, strncmp(r.err, cases[i].msg, strlen(cases[i].msg)))
			TH_LOG("case %u: %s", i, r.err);
		/* One line: the error, nothing else. */
		EXPECT_EQ(strlen(r.err) - 1, (size_t)(strchr(r.err, '\n') - r.err))
			TH_LOG("case %u: %s", i, r.err);
		done(&r);
	}
	/* The positive twin: good input prints a report and succeeds. */
	ringctl(&r, (const char *const[]){ "simulate", "backends", "2", "vnodes", "8", NULL });
	EXPECT_EQ(0, r.status);
	EXPECT_NE(NULL, strstr(r.out, "ring: 2 backends, 16 points"));
	EXPECT_STREQ("", r.err);
	done(&r);
}

TEST_HARNESS_MAIN
