/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one family of byte readers and writers, shared by xrx_rx (BPF), the
 * engine, the sinks and the tools. Header fields sit at any alignment, so
 * every access is unaligned:
 *
 *   xrx_raw16/32/64(p)   the bytes as they are (network order stays
 *                        network order): for comparing and summing
 *   xrx_get16/32(p)      a big-endian field in host order
 *   xrx_put16/32(p, v)   a host-order value stored big-endian
 *
 * Reads are one load each, not one per byte: byte-wise reads made xrx_rx
 * three times the instructions. BPF: an unaligned load from a map value or
 * the stack is allowed where the architecture handles it (the verifier's
 * check_ptr_alignment() only insists under strict alignment), and clang
 * turns a memcpy() of unknown alignment into byte loads, hence the plain
 * dereference there. Userspace: memcpy(), which is one load on x86/arm64.
 */
#ifndef XRX_BYTES_H
#define XRX_BYTES_H

#include <xrx/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define xrx_be16(x) __builtin_bswap16(x)
#define xrx_be32(x) __builtin_bswap32(x)
#else
#define xrx_be16(x) (x)
#define xrx_be32(x) (x)
#endif

#ifdef __bpf__
#define XRX_RAW_LOAD(type, p) (*(const type *)(p))
#else
#define XRX_RAW_LOAD(type, p)                        \
	({                                           \
		type __v;                            \
		__builtin_memcpy(&__v, (p), sizeof(__v)); \
		__v;                                 \
	})
#endif

static __always_inline __u16 xrx_raw16(const void *p)
{
	return XRX_RAW_LOAD(__u16, p);
}

static __always_inline __u32 xrx_raw32(const void *p)
{
	return XRX_RAW_LOAD(__u32, p);
}

static __always_inline __u64 xrx_raw64(const void *p)
{
	return XRX_RAW_LOAD(__u64, p);
}

static __always_inline __u16 xrx_get16(const void *p)
{
	return xrx_be16(xrx_raw16(p));
}

static __always_inline __u32 xrx_get32(const void *p)
{
	return xrx_be32(xrx_raw32(p));
}

static __always_inline void xrx_put16(void *p, __u16 v)
{
	__u8 *b = p;

	b[0] = v >> 8;
	b[1] = v;
}

static __always_inline void xrx_put32(void *p, __u32 v)
{
	__u8 *b = p;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

#ifndef __bpf__
/*
 * Nonzero if the @len bytes at @a and @b differ. Header fields are a few
 * bytes long, so word XORs beat a memcmp() call, as compare_ether_header()
 * and tcp_gro_receive()'s option loop do it: 8-byte words, the last one
 * overlapping its predecessor when @len is not a multiple of 8.
 */
static inline __u64 xrx_bytes_differ(const __u8 *a, const __u8 *b, __u32 len)
{
	__u64 diff = 0;
	__u32 i;

	if (len < 8) {
		for (i = 0; i < len; i++)
			diff |= a[i] ^ b[i];
		return diff;
	}
	/* An Ethernet header, TCP timestamps: two words, no loop */
	for (i = 0; i + 16 < len; i += 8)
		diff |= xrx_raw64(a + i) ^ xrx_raw64(b + i);
	return diff | (xrx_raw64(a + i) ^ xrx_raw64(b + i)) |
	       (xrx_raw64(a + len - 8) ^ xrx_raw64(b + len - 8));
}
#endif

#endif /* XRX_BYTES_H */
