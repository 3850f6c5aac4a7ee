/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types that fuzz-spec-gen.h (tools/ynl/fuzz-spec-gen.py) is written
 * against: each command's request shape and each attribute's kind, as
 * kmod/uapi/ringsteer.yaml gives them. msg.c and the settings unit test
 * include the generated tables through this header, so that a new kind
 * is added in one place.
 */
#ifndef FUZZ_SPEC_H
#define FUZZ_SPEC_H

#include <stdint.h>

#ifndef B
#define B(x) (1ULL << (x))
#endif

/* What each command lists (uapi) and what today's policies also accept. */
struct fz_cmd_spec {
	uint64_t top, top_tol;
	uint64_t svc, svc_tol;
	uint64_t be, be_tol;
	uint64_t chain, chain_tol;
};
/* Every attribute, for a command that may ignore what it is given. */
#define FZ_ANY	(~0ULL)

enum fz_kind { K_NONE, K_U8, K_U16, K_U32, K_U64, K_BE16, K_ADDR, K_KEY, K_NEST, K_U16S,
	       K_ADDRS, K_KEPT };
enum fz_rkind { R_NONE, R_U8, R_U16, R_U32, R_U64, R_BE16, R_ADDR, R_KEY, R_PAD, R_NEST,
		 R_U16S, R_ADDRS, R_KEPT };

/*
 * fz_specs, fz_dump_specs, fz_admin, fz_has_dump and fz_has_do: each
 * command's request shape; the reply kinds. Written at build time by
 * fuzz-spec-gen.py, so that the model and the kernel's generated policies
 * have one source.
 */
#include "fuzz-spec-gen.h"

#endif /* FUZZ_SPEC_H */
