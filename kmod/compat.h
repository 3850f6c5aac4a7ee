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
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/tcp.h>

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

/*
 * A SYN cookie's MSS, 0 if @th's ACK does not carry a valid one:
 * __cookie_v4_check() and __cookie_v6_check() take the cookie (the ACK
 * number less one) as an argument on 6.1 and read it from @th themselves
 * on 6.12 (Kbuild tells which by the header); both read only the
 * addresses of the IP header. Exported (GPL) on both.
 */
static inline int rs_cookie_check(u8 family, const union nf_inet_addr *saddr,
				  const union nf_inet_addr *daddr,
				  const struct tcphdr *th)
{
	struct ipv6hdr ip6h = {};
	struct iphdr iph = {};

	if (family == AF_INET) {
		iph.saddr = saddr->ip;
		iph.daddr = daddr->ip;
#ifdef RS_COOKIE_CHECK_ACK
		return __cookie_v4_check(&iph, th, ntohl(th->ack_seq) - 1);
#else
		return __cookie_v4_check(&iph, th);
#endif
	}
	ip6h.saddr = saddr->in6;
	ip6h.daddr = daddr->in6;
#ifdef RS_COOKIE_CHECK_ACK
	return __cookie_v6_check(&ip6h, th, ntohl(th->ack_seq) - 1);
#else
	return __cookie_v6_check(&ip6h, th);
#endif
}

#endif /* _RINGSTEER_COMPAT_H */
