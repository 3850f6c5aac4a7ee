/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A change applied to a copy of a service (model layer, prefix rc_): the
 * one place where "ringctl plan" and "ringctl simulate" turn a backend or
 * service command into the service after it, slots included, picked as
 * "backend add" and "backend set" pick them.
 */
#ifndef RINGCTL_CHANGE_H
#define RINGCTL_CHANGE_H

#include "preview.h"

/*
 * @live after the change @r, into @after (a copy: rc_service_free() it,
 * even on error). A slots service's new or reweighted backend takes the
 * slots given or picks them as the commands do (the lowest free; a lower
 * weight gives up its highest), and what the kernel refuses is refused.
 * 0 or -errno, printed after "@ctx: ".
 */
int rc_change_apply(const char *ctx, const struct rc_preview_req *r,
		    const struct rc_service *live, struct rc_service *after);

#endif /* RINGCTL_CHANGE_H */
