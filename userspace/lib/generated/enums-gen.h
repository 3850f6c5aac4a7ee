/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Do not edit: written by tools/ynl/enum-gen.py from
 * kmod/uapi/ringsteer.yaml ("make gen"; "make gen-check" compares).
 */
#ifndef RINGCTL_ENUMS_GEN_H
#define RINGCTL_ENUMS_GEN_H

#include "enums.h"

extern const struct rc_enum rc_enum_hash_mode;
extern const struct rc_enum rc_enum_forward_mode;
extern const struct rc_enum rc_enum_encap;
extern const struct rc_enum rc_enum_placement;
extern const struct rc_enum rc_enum_backend_state;
extern const struct rc_enum rc_enum_backend_health;
extern const struct rc_enum rc_enum_on_down;
extern const struct rc_enum rc_enum_backend_on_down;
extern const struct rc_enum rc_enum_chain_last_resort;

#endif /* RINGCTL_ENUMS_GEN_H */
