/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A change applied to a copy of a service (model layer, prefix rc_): the
 * one place where "ringctl plan" and "ringctl simulate" turn a backend or
 * service command into the service after it, slots included, picked as
 * "backend add" and "backend set" pick them (rc_backend_pick_slots(),
 * which "backend add" and "backend set" call too).
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

/*
 * The N lowest slots no backend of S holds, ascending, into OUT: 0, or
 * -ENOSPC when fewer than N are free below S's capacity.
 */
int rc_service_free_slots(const struct rc_service *s, uint32_t n, uint16_t *out);
/*
 * N slots for backend B of S (NULL: a new one), ascending, into OUT: the
 * lowest of those B holds, then the lowest free. -ENOSPC as above.
 */
int rc_backend_pick_slots(const struct rc_service *s, const struct rc_backend *b,
			  uint32_t n, uint16_t *out);

#endif /* RINGCTL_CHANGE_H */
