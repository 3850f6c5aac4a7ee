/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RINGCTL_SIMULATE_H
#define RINGCTL_SIMULATE_H

/* "ringctl simulate ...": argv[0] is "simulate". Returns 0 or -1. */
int cmd_simulate(int argc, char **argv);

#endif /* RINGCTL_SIMULATE_H */
