/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The release of this source tree: the one place its number is written.
 * The module reports it as MODULE_VERSION (/sys/module/ringsteer/version,
 * modinfo), ringctl prints it beside the loaded module's and warns when the
 * two differ in major.minor, and the packaging takes it from here: `make
 * dkms-install` writes it into dkms.conf, debian/rules refuses to build
 * when debian/changelog's version is another, and NEWS starts with it.
 *
 * Numbering: MAJOR.MINOR.PATCH. A patch release changes neither the
 * netlink API nor the configuration format; before 1.0 a minor release may
 * change either (the generic netlink family's own version says whether
 * requests still mean the same).
 */
#ifndef _UAPI_RINGSTEER_VERSION_H
#define _UAPI_RINGSTEER_VERSION_H

#define RINGSTEER_VERSION "0.9.0"

#endif
