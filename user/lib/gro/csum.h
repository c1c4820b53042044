/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internet checksums (RFC 1071) over plain bytes: what the engine's GRO
 * checks and fix-ups need, and what the sinks need to finish a packet
 * (vnet headers, segmenting into the TUN device). Sums are host integers
 * of the big-endian 16-bit words. The sums over a segment's pieces, which
 * need the engine's types, are in gro.h.
 */
#ifndef XRX_LIB_GRO_CSUM_H
#define XRX_LIB_GRO_CSUM_H

#include <stdbool.h>
#include <xrx/types.h>
#include <xrx/bytes.h>

/*
 * How far ahead of its loads the vector sums (csum.c) ask for the bytes
 * they will read: on the 2-core AMD EPYC VM of the benchmarks, 512 bytes
 * ahead took gro_bench's verified one-flow rows (payload cold) from about
 * 150 to 125 ns a segment, against the engine's prefetch of every line of
 * the frame two frames ahead, which it no longer needs for the sum
 * (prefetch.h). A prefetch past the end of the bytes costs a line at most
 * and never faults.
 */
#define XRX_CSUM_PREFETCH 512

/* Fold a 32-bit ones' complement sum to 16 bits, not complemented. */
static inline __u16 xrx_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/*
 * Does a ones' complement sum of 16-bit words, added up in 64 bits and
 * not folded, fold to 0xffff, a valid checksum? Exactly when
 * it is a non-zero multiple of 0xffff: each fold keeps the value modulo
 * 0xffff (2^16 = 1 modulo 0xffff), a non-zero sum never folds to 0, and
 * the folded sum lies in 1 .. 0xffff. One multiply where the folds take a
 * dozen instructions.
 */
static __always_inline bool xrx_csum64_ok(__u64 sum)
{
	return sum && sum % 0xffff == 0;
}

/*
 * The IPv4 header sum inet_gro_receive() checks with ip_fast_csum(): the
 * five 32-bit words of a 20-byte header (options never reach GRO) added
 * in 64 bits, as the kernel's unrolled version does. Loaded in host
 * order: the sum comes out in host order too (RFC 1071 2(B)), so it is
 * checked or, folded, stored back as loaded.
 */
static inline __u64 xrx_ipv4_hdr_sum64(const __u8 *iph)
{
	return (__u64)xrx_raw32(iph) + xrx_raw32(iph + 4) +
	       xrx_raw32(iph + 8) + xrx_raw32(iph + 12) + xrx_raw32(iph + 16);
}

static inline __u16 xrx_ipv4_hdr_sum(const __u8 *iph)
{
	__u64 sum = xrx_ipv4_hdr_sum64(iph);

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return xrx_csum_fold((__u32)sum);
}

static inline bool xrx_ipv4_csum_ok(const __u8 *iph)
{
	return xrx_csum64_ok(xrx_ipv4_hdr_sum64(iph));
}

/* csum.c */
__u32 xrx_csum_add(const void *data, __u32 len, __u32 sum);

/*
 * The implementations of xrx_csum_add(): the portable scalar sum, then
 * wider ones. xrx_csum_add() takes the fastest the CPU runs, once, at its
 * first call; tests hold every usable one to the scalar sum.
 */
typedef __u32 (*xrx_csum_fn)(const void *data, __u32 len, __u32 sum);

struct xrx_csum_impl {
	const char *name;
	xrx_csum_fn add;
	bool (*usable)(void);		/* this CPU runs it */
};

/* The i-th implementation, from 0; NULL past the last. */
const struct xrx_csum_impl *xrx_csum_impl_get(__u32 i);
/* The one xrx_csum_add() uses on this CPU. */
const struct xrx_csum_impl *xrx_csum_impl_best(void);
__u32 xrx_csum_pseudo(const __u8 *l3, bool ipv6, __u8 proto, __u32 l4_len);
void xrx_ipv4_csum_set(__u8 *iph);

#endif /* XRX_LIB_GRO_CSUM_H */
