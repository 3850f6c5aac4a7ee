/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringctl's commands (prefix cmd_), one family a file: cmd_X runs "ringctl
 * X ..." (argv[0] is "X") and returns 0 or -errno, cmd_X_usage prints its
 * usage. ringctl.c lists them in its table; each uses the parse, netlink
 * and print layers (cli.h) and prints its own errors.
 */
#ifndef RINGCTL_CMD_H
#define RINGCTL_CMD_H

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

#undef CMD

/* "ringctl show rate ...": argv[0] is "rate" or "--rate" (rate.c). */
int cmd_show_rate(int argc, char **argv);
void cmd_show_rate_usage(FILE *f);

/* ringctl ARGS...: argv[0] is the program; returns the exit status. */
int cmd_main(int argc, char **argv);

#endif /* RINGCTL_CMD_H */
