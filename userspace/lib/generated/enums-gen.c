// SPDX-License-Identifier: GPL-2.0
/*
 * Do not edit: written by tools/ynl/enum-gen.py from
 * kmod/uapi/ringsteer.yaml ("make gen"; "make gen-check" compares).
 */

#include "uapi/ringsteer.h"
#include "enums-gen.h"

static const struct rc_enum_entry hash_mode_entries[] = {
	{ "flow", RINGSTEER_HASH_FLOW },
	{ "source", RINGSTEER_HASH_SOURCE },
};

const struct rc_enum rc_enum_hash_mode = {
	.name = "hash-mode",
	.e = hash_mode_entries,
	.n = sizeof(hash_mode_entries) / sizeof(hash_mode_entries[0]),
};

static const struct rc_enum_entry forward_mode_entries[] = {
	{ "nat", RINGSTEER_FORWARD_NAT },
	{ "tunnel", RINGSTEER_FORWARD_TUNNEL },
};

const struct rc_enum rc_enum_forward_mode = {
	.name = "forward-mode",
	.e = forward_mode_entries,
	.n = sizeof(forward_mode_entries) / sizeof(forward_mode_entries[0]),
};

static const struct rc_enum_entry encap_entries[] = {
	{ "ipip", RINGSTEER_ENCAP_IPIP },
	{ "gue", RINGSTEER_ENCAP_GUE },
};

const struct rc_enum rc_enum_encap = {
	.name = "encap",
	.e = encap_entries,
	.n = sizeof(encap_entries) / sizeof(encap_entries[0]),
};

static const struct rc_enum_entry placement_entries[] = {
	{ "ring", RINGSTEER_PLACEMENT_RING },
	{ "slots", RINGSTEER_PLACEMENT_SLOTS },
};

const struct rc_enum rc_enum_placement = {
	.name = "placement",
	.e = placement_entries,
	.n = sizeof(placement_entries) / sizeof(placement_entries[0]),
};

static const struct rc_enum_entry backend_state_entries[] = {
	{ "active", RINGSTEER_STATE_ACTIVE },
	{ "draining", RINGSTEER_STATE_DRAINING },
};

const struct rc_enum rc_enum_backend_state = {
	.name = "backend-state",
	.e = backend_state_entries,
	.n = sizeof(backend_state_entries) / sizeof(backend_state_entries[0]),
};

static const struct rc_enum_entry backend_health_entries[] = {
	{ "up", RINGSTEER_HEALTH_UP },
	{ "down", RINGSTEER_HEALTH_DOWN },
};

const struct rc_enum rc_enum_backend_health = {
	.name = "backend-health",
	.e = backend_health_entries,
	.n = sizeof(backend_health_entries) / sizeof(backend_health_entries[0]),
};

static const struct rc_enum_entry on_down_entries[] = {
	{ "keep", RINGSTEER_ON_DOWN_KEEP },
	{ "reset", RINGSTEER_ON_DOWN_RESET },
};

const struct rc_enum rc_enum_on_down = {
	.name = "on-down",
	.e = on_down_entries,
	.n = sizeof(on_down_entries) / sizeof(on_down_entries[0]),
};

static const struct rc_enum_entry backend_on_down_entries[] = {
	{ "service", RINGSTEER_BACKEND_ON_DOWN_SERVICE },
	{ "keep", RINGSTEER_BACKEND_ON_DOWN_KEEP },
	{ "reset", RINGSTEER_BACKEND_ON_DOWN_RESET },
};

const struct rc_enum rc_enum_backend_on_down = {
	.name = "backend-on-down",
	.e = backend_on_down_entries,
	.n = sizeof(backend_on_down_entries) / sizeof(backend_on_down_entries[0]),
};

static const struct rc_enum_entry chain_last_resort_entries[] = {
	{ "accept", RINGSTEER_LAST_RESORT_ACCEPT },
	{ "drop", RINGSTEER_LAST_RESORT_DROP },
};

const struct rc_enum rc_enum_chain_last_resort = {
	.name = "chain-last-resort",
	.e = chain_last_resort_entries,
	.n = sizeof(chain_last_resort_entries) / sizeof(chain_last_resort_entries[0]),
};
