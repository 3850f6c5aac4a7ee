/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring (ring.c) is compiled both into the module and into ringctl and
 * the host unit tests. This header is the only place where the two worlds
 * differ: types, allocation, byte order, SipHash and scheduling.
 */
#ifndef _RINGSTEER_RING_SHIM_H
#define _RINGSTEER_RING_SHIM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/vmalloc.h>
#include <linux/siphash.h>
#include <linux/sort.h>
#include <linux/sched.h>
#include <asm/byteorder.h>

/* Key words are loaded little-endian, as the SipHash reference does. */
struct rs_key {
	siphash_key_t sk;
};

static inline void rs_key_init(struct rs_key *k, const u8 *bytes)
{
	__le64 w[2];

	memcpy(w, bytes, sizeof(w));
	k->sk.key[0] = le64_to_cpu(w[0]);
	k->sk.key[1] = le64_to_cpu(w[1]);
}

static inline u64 rs_siphash(const void *data, size_t len,
			     const struct rs_key *k)
{
	return siphash(data, len, &k->sk);
}

/*
 * Rings are built in process context (netlink), so they may sleep, on
 * behalf of whoever configures them, maybe from an unprivileged user
 * namespace, up to 12 MiB each: charge their memory cgroup, and let a
 * charge over its limit fail the request with ENOMEM rather than wake the
 * cgroup's OOM killer.
 *
 * As kvmalloc() does by default: one cheap try at contiguous memory (no
 * reclaim retries or compaction, with the namespace's mutex held), then
 * vmalloc(), which may retry reclaim but fails rather than OOM-kill.
 * kvmalloc() with __GFP_RETRY_MAYFAIL would make its kmalloc() try retry
 * too. A failure is the requester's ENOMEM, not a warning in the log.
 */
static inline void *rs_alloc(size_t size)
{
	void *p = NULL;

	if (size <= KMALLOC_MAX_SIZE)
		p = kmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
	if (!p)
		p = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			      __GFP_NOWARN);
	return p;
}

static inline void rs_free(void *p)
{
	kvfree(p);
}

/* Not optimized away although the memory is freed right after. */
static inline void rs_memzero(void *p, size_t len)
{
	memzero_explicit(p, len);
}

/* Builds hash up to a million points: let others run in between. */
static inline void rs_resched(void)
{
	cond_resched();
}

static inline void rs_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	sort(base, n, size, cmp, NULL);
}

/* Index of the lowest set bit; @w is not 0. */
static inline unsigned int rs_ffs64(u64 w)
{
	return __ffs64(w);
}

#else /* !__KERNEL__ */

#include <assert.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <sodium.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
#ifndef U16_MAX
#define U16_MAX UINT16_MAX
#endif

#define cpu_to_be32(x) ((__be32)htobe32(x))
#define cpu_to_be16(x) ((__be16)htobe16(x))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define be16_to_cpu(x) be16toh((u16)(x))

/*
 * <linux/err.h>: builders return an errno in the pointer. No object lives
 * in the top MAX_ERRNO bytes of the address space, so those values are
 * the errors; NULL is not one.
 */
#define MAX_ERRNO 4095

#ifndef __must_check
#define __must_check __attribute__((warn_unused_result))
#endif

static inline void * __must_check ERR_PTR(long error)
{
	return (void *)error;
}

static inline long __must_check PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool __must_check IS_ERR(const void *ptr)
{
	return unlikely((unsigned long)ptr >= (unsigned long)-MAX_ERRNO);
}

/*
 * libsodium's crypto_shorthash_siphash24 is SipHash-2-4 with the key taken
 * as raw bytes and the result as 8 bytes: reading them little-endian gives
 * the kernel's siphash() value.
 */
struct rs_key {
	u8 bytes[16];
};

static inline void rs_key_init(struct rs_key *k, const u8 *bytes)
{
	memcpy(k->bytes, bytes, sizeof(k->bytes));
}

static inline u64 rs_siphash(const void *data, size_t len,
			     const struct rs_key *k)
{
	u8 out[crypto_shorthash_siphash24_BYTES];
	u64 v = 0;
	int i;

	crypto_shorthash_siphash24(out, data, len, k->bytes);
	for (i = 7; i >= 0; i--)
		v = v << 8 | out[i];
	return v;
}

static inline void *rs_alloc(size_t size)
{
	return malloc(size);
}

static inline void rs_free(void *p)
{
	free(p);
}

static inline void rs_memzero(void *p, size_t len)
{
	sodium_memzero(p, len);
}

static inline void rs_resched(void)
{
}

static inline void rs_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	qsort(base, n, size, cmp);
}

static inline unsigned int rs_ffs64(u64 w)
{
	return __builtin_ctzll(w);
}

#endif /* __KERNEL__ */

#endif /* _RINGSTEER_RING_SHIM_H */
