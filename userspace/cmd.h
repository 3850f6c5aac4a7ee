/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringctl's commands (prefix cmd_), one a file of userspace/ named after
 * it: cmd_X runs "ringctl X ..." (argv[0] is "X") and returns 0 or
 * -errno, cmd_X_usage prints its usage. ringctl_cmds.c lists them in its
 * table; each uses the layers of userspace/lib/ (cli.h) and prints its
 * own errors.
 */
#ifndef RINGCTL_CMD_H
#define RINGCTL_CMD_H

#include <stdint.h>
#include <stdio.h>

#define CMD(name) \
	int cmd_##name(int argc, char **argv); \
	void cmd_##name##_usage(FILE *f)

CMD(service);
CMD(backend);
CMD(show);
CMD(lookup);
CMD(key);
CMD(flush);
CMD(monitor);
CMD(save);
CMD(restore);
CMD(plan);
CMD(fingerprint);
CMD(stats);
CMD(simulate);
CMD(version);
CMD(health);
CMD(fleet);
CMD(sync);
CMD(backend_mode);
CMD(import);

#undef CMD

struct rc_event;
/*
 * One line of "ringctl monitor" for EV (VERB: "service add", "drained"),
 * as text or, with cli_json, a JSON object.
 */
void cmd_monitor_print(FILE *f, const struct rc_event *ev, const char *verb);

/* "ringctl show rate ...": argv[0] is "rate" or "--rate" (show_rate.c). */
int cmd_show_rate(int argc, char **argv);
void cmd_show_rate_usage(FILE *f);

struct rc_preview_req;

/*
 * The command line of "ringctl plan" (plan.c): argv[0] is "plan". 0, 1
 * for help (printed), or -EINVAL (printed).
 */
int cmd_plan_parse(int argc, char **argv, struct rc_preview_req *r);

struct nl_conn;
struct rc_config;
/*
 * What "ringctl restore" does once its file is read (restore.c): change
 * the namespace's configuration into WANT, sending only the differences
 * (deletes with FLAGS); errors printed. "ringctl sync" applies etcd's
 * revisions with it.
 */
int cmd_restore_apply(struct nl_conn *nl, const struct rc_config *want, uint32_t flags);

/* ringctl ARGS...: argv[0] is the program; returns the exit status. */
int cmd_main(int argc, char **argv);

#endif /* RINGCTL_CMD_H */
