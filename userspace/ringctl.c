// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl: configure the ringsteer kernel module and reason about its rings.
 * Everything but main() is linked into the unit tests too.
 */

#include "cmd.h"

int main(int argc, char **argv)
{
	return cmd_main(argc, argv);
}
