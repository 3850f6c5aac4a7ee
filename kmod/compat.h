/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels ringsteer builds for (Debian's 6.1 and
 * 6.12, trixie-backports' 7.x), in one place, so that the other files read
 * as current upstream does: each helper here is upstream's own name,
 * defined only where the kernel lacks it. Kbuild finds out which kernel
 * has what by its headers, not by version number, because stable kernels
 * carry backports (Debian's 6.1.192 has dst_dev(), 6.1.0 did not). The
 * one larger difference, 6.1's genetlink without split ops, is family.h's.
 */
#ifndef _RINGSTEER_COMPAT_H
#define _RINGSTEER_COMPAT_H

#include <net/dst.h>
#include <net/netlink.h>

/*
 * dst_dev() (6.16, backported to 6.1.y and 6.12.y): a route's device is
 * read once, as dst_dev_put() may point it at the blackhole device while
 * we look; upstream reads it only through the helper since.
 */
#ifdef RS_NO_DST_DEV
static inline struct net_device *dst_dev(const struct dst_entry *dst)
{
	return READ_ONCE(dst->dev);
}
#endif

/*
 * An extack message with a value in it, NL_SET_ERR_MSG_FMT_MOD() (6.3 on).
 * 6.1's extack holds static strings only: there the message is @plain,
 * which names the fault without the value. Every argument is used in both
 * forms (newer checkpatch warns of one that is not).
 */
#ifdef NL_SET_ERR_MSG_FMT_MOD
#define RS_ERR_MSG_FMT(extack, plain, fmt, ...) do {			\
		(void)(plain);						\
		NL_SET_ERR_MSG_FMT_MOD(extack, fmt, __VA_ARGS__);	\
	} while (0)
#else
#define RS_ERR_MSG_FMT(extack, plain, fmt, ...) do {			\
		(void)(fmt);						\
		NL_SET_ERR_MSG_MOD(extack, plain);			\
	} while (0)
#endif

#endif /* _RINGSTEER_COMPAT_H */
