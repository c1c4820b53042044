// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Internet checksums (RFC 1071) for the GRO engine: the IPv4 header check
 * inet_gro_receive() always does (ip_fast_csum()), the L4 check
 * tcp4_gro_receive()/udp4_gro_receive() do when the device did not
 * (skb_gro_checksum_validate()), and the pseudo-header sum
 * tcp4_gro_complete() writes for CHECKSUM_PARTIAL.
 *
 * Sums are kept as host integers of the big-endian 16-bit words, in a
 * 32-bit accumulator folded before it can overflow.
 */
#include "gro/gro.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * Every sum below adds the buffer as native 32-bit words into 64-bit
 * accumulators, which cannot overflow below 2^32 bytes, and is folded and
 * byte-swapped once at the end: the ones' complement sum does not depend
 * on byte order (RFC 1071 2(B)), and an exact integer sum folds to the
 * same 16 bits whatever the grouping, so every implementation gives the
 * same result bit for bit (tests/unit/test_csum.c holds them to it).
 *
 * The kernel's csum_partial() (arch/x86/lib/csum-partial_64.c) chains
 * 64-bit add-with-carry instead: one chain through the carry flag, a
 * word a cycle at best. Over 1480 bytes in L1 on the 2-core AMD EPYC VM
 * of the benchmarks: scalar words ~210 cycles, add-with-carry ~155,
 * 16-byte vectors ~125, 32-byte vectors ~70.
 */

/* Words of 8, 4, 2 and 1 bytes: the scalar sum, and every tail. */
static __always_inline __u64 xrx_csum_words(const __u8 *p, __u32 len,
					    __u64 acc)
{
	__u64 w;

	for (; len >= 8; len -= 8, p += 8) {
		w = xrx_raw64(p);
		acc += (w & 0xffffffff) + (w >> 32);
	}
	if (len >= 4) {
		acc += xrx_raw32(p);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		acc += xrx_raw16(p);
		p += 2;
		len -= 2;
	}
	if (len) {
		/* odd byte: the first of a zero-padded 16-bit word */
		__u8 pad[2] = { p[0], 0 };

		acc += xrx_raw16(pad);
	}
	return acc;
}

/* Fold a 64-bit sum of native words to 16 bits in network order, and
 * add that to the running sum @sum. */
static __u32 xrx_csum_end(__u64 acc, __u32 sum)
{
	__u16 h;

	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	h = xrx_csum_fold((__u32)acc);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap16(h);
#endif
	return (__u32)xrx_csum_fold(sum) + h;
}

/* The portable sum, and the reference the others are tested against. */
static __u32 xrx_csum_scalar(const void *data, __u32 len, __u32 sum)
{
	return xrx_csum_end(xrx_csum_words(data, len, 0), sum);
}

/*
 * 16-byte vectors (SSE2 on x86-64, NEON on arm64, scalar pairs where the
 * target has neither), 64 bytes a round into four accumulators, each
 * round asking for the line XRX_CSUM_PREFETCH bytes on (csum.h): each
 * vector's 32-bit words are widened to 64 bits by interleaving them with
 * zeros (punpckldq/punpckhdq, zip1/zip2), so the adds carry nothing out.
 */
typedef __u32 xrx_u32x4 __attribute__((vector_size(16)));
typedef __u64 xrx_u64x2 __attribute__((vector_size(16)));

/* a 64-bit lane of (word, 0) holds the word where the zero is high */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XRX_LO32(v, z) ((xrx_u64x2)__builtin_shufflevector(v, z, 0, 4, 1, 5))
#define XRX_HI32(v, z) ((xrx_u64x2)__builtin_shufflevector(v, z, 2, 6, 3, 7))
#else
#define XRX_LO32(v, z) ((xrx_u64x2)__builtin_shufflevector(z, v, 0, 4, 1, 5))
#define XRX_HI32(v, z) ((xrx_u64x2)__builtin_shufflevector(z, v, 2, 6, 3, 7))
#endif

static __u32 xrx_csum_vec128(const void *data, __u32 len, __u32 sum)
{
	const __u8 *p = data;
	xrx_u64x2 a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
	xrx_u32x4 v[4], z = { 0, 0, 0, 0 };

	for (; len >= sizeof(v); len -= sizeof(v), p += sizeof(v)) {
		__builtin_prefetch(p + XRX_CSUM_PREFETCH);
		memcpy(v, p, sizeof(v));
		a0 += XRX_LO32(v[0], z) + XRX_LO32(v[2], z);
		a1 += XRX_HI32(v[0], z) + XRX_HI32(v[2], z);
		a2 += XRX_LO32(v[1], z) + XRX_LO32(v[3], z);
		a3 += XRX_HI32(v[1], z) + XRX_HI32(v[3], z);
	}
	a0 += a1 + a2 + a3;
	return xrx_csum_end(xrx_csum_words(p, len, a0[0] + a0[1]), sum);
}

#if defined(__x86_64__)
/*
 * 32-byte vectors (AVX2), the same widening (vpunpckldq/vpunpckhdq with
 * zero): two loads and four adds per 64 bytes, and the prefetch
 * XRX_CSUM_PREFETCH bytes on. Intrinsics, not gcc's
 * generic 32-byte vectors, which gcc 12 spills in a target("avx2")
 * function (ten times slower).
 */
__attribute__((target("avx2")))
static __u32 xrx_csum_avx2(const void *data, __u32 len, __u32 sum)
{
	const __u8 *p = data;
	__m256i z = _mm256_setzero_si256(), a0 = z, a1 = z, a2 = z, a3 = z;
	__m256i x, y;
	__m128i s;
	__u64 acc[2];

	for (; len >= 64; len -= 64, p += 64) {
		_mm_prefetch((const char *)p + XRX_CSUM_PREFETCH, _MM_HINT_T0);
		x = _mm256_loadu_si256((const __m256i *)p);
		y = _mm256_loadu_si256((const __m256i *)(p + 32));
		a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(x, z));
		a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(x, z));
		a2 = _mm256_add_epi64(a2, _mm256_unpacklo_epi32(y, z));
		a3 = _mm256_add_epi64(a3, _mm256_unpackhi_epi32(y, z));
	}
	a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1),
			      _mm256_add_epi64(a2, a3));
	s = _mm_add_epi64(_mm256_castsi256_si128(a0),
			  _mm256_extracti128_si256(a0, 1));
	_mm_storeu_si128((__m128i *)acc, s);
	/*
	 * Leave no dirty upper halves to the SSE code that runs next: gcc
	 * put no vzeroupper before the calls below, and the verified
	 * one-flow rows of gro_bench took 280 ns a segment instead of 200.
	 */
	_mm256_zeroupper();
	return xrx_csum_end(xrx_csum_words(p, len, acc[0] + acc[1]), sum);
}

static bool xrx_csum_avx2_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

/*
 * 64-byte vectors with AVX-512 VNNI: vpdpwssd multiplies 16-bit words by
 * 1 and adds each pair into a 32-bit lane, so a line costs a load, an
 * xor and one multiply-add instead of the widening shuffles and adds of
 * the 32-byte sum (two loads, four shuffles, four adds). The words are
 * signed to vpdpwssd: each is offset by 0x8000 first (the xor), and the
 * 0x8000 per word taken off is added back at the end. The fewer
 * instructions a line, the more lines the CPU has in flight at once:
 * over payload that is not in the cache this is what the sum is bound by.
 * Measured on the benchmarks' AMD EPYC VM (gro_bench, one flow, 1448-byte
 * segments, payload cold): the sum alone (csum row) went from 100 to 74
 * ns a segment, below a load of each line (the read row, 80 ns), and
 * with the engine's payload prefetch (prefetch.h) a verified segment
 * from 115 to 83 ns.
 *
 * A lane gains at most 2 x 0x8000 a line, so blocks of XRX_CSUM_BLOCK
 * bytes (16384 lines: 2^31 at most) are added up in 64 bits.
 */
#define XRX_CSUM_BLOCK (1u << 20)

__attribute__((target("avx512bw,avx512vnni")))
static __u32 xrx_csum_avx512(const void *data, __u32 len, __u32 sum)
{
	const __m512i flip = _mm512_set1_epi16((short)0x8000);
	const __m512i one = _mm512_set1_epi16(1);
	const __u8 *p = data, *end;
	__m512i a0, a1, x, y;
	__u64 acc = 0;
	__u32 blk;

	while (len >= 64) {
		blk = len < XRX_CSUM_BLOCK ? len & ~63u : XRX_CSUM_BLOCK;
		end = p + blk;
		a0 = _mm512_setzero_si512();
		a1 = a0;
		for (; end - p >= 128; p += 128) {
			_mm_prefetch((const char *)p + XRX_CSUM_PREFETCH,
				     _MM_HINT_T0);
			_mm_prefetch((const char *)p + 64 + XRX_CSUM_PREFETCH,
				     _MM_HINT_T0);
			x = _mm512_loadu_si512(p);
			y = _mm512_loadu_si512(p + 64);
			a0 = _mm512_dpwssd_epi32(a0, _mm512_xor_si512(x, flip),
						 one);
			a1 = _mm512_dpwssd_epi32(a1, _mm512_xor_si512(y, flip),
						 one);
		}
		if (p != end) {
			x = _mm512_loadu_si512(p);
			a0 = _mm512_dpwssd_epi32(a0, _mm512_xor_si512(x, flip),
						 one);
			p += 64;
		}
		/* signed 32-bit lanes, widened before they are added up */
		a0 = _mm512_add_epi64(
			_mm512_cvtepi32_epi64(_mm512_castsi512_si256(a0)),
			_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a0, 1)));
		a1 = _mm512_add_epi64(
			_mm512_cvtepi32_epi64(_mm512_castsi512_si256(a1)),
			_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a1, 1)));
		acc += (__u64)_mm512_reduce_add_epi64(_mm512_add_epi64(a0, a1));
		acc += (__u64)(blk / 2) * 0x8000;	/* the offsets back */
		len -= blk;
	}
	_mm256_zeroupper();	/* as in xrx_csum_avx2() */
	return xrx_csum_end(xrx_csum_words(p, len, acc), sum);
}

static bool xrx_csum_avx512_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vnni");
}
#endif

static bool xrx_csum_always(void)
{
	return true;
}

/* Fastest last; xrx_csum_pick() takes the last the CPU runs. */
static const struct xrx_csum_impl xrx_csum_impls[] = {
	{ "scalar", xrx_csum_scalar, xrx_csum_always },
	{ "vec128", xrx_csum_vec128, xrx_csum_always },
#if defined(__x86_64__)
	{ "avx2", xrx_csum_avx2, xrx_csum_avx2_usable },
	{ "avx512", xrx_csum_avx512, xrx_csum_avx512_usable },
#endif
};

const struct xrx_csum_impl *xrx_csum_impl_get(__u32 i)
{
	return i < sizeof(xrx_csum_impls) / sizeof(xrx_csum_impls[0]) ?
		       &xrx_csum_impls[i] : NULL;
}

/*
 * Chosen at the first call, not per call: a pointer load and an indirect
 * call per sum. Threads that race to choose store the same pointer.
 */
static __u32 xrx_csum_pick(const void *data, __u32 len, __u32 sum);
static xrx_csum_fn xrx_csum_chosen = xrx_csum_pick;

const struct xrx_csum_impl *xrx_csum_impl_best(void)
{
	const struct xrx_csum_impl *best = &xrx_csum_impls[0], *c;
	__u32 i;

	for (i = 1; (c = xrx_csum_impl_get(i)); i++)
		if (c->usable())
			best = c;
	return best;
}

static __u32 xrx_csum_pick(const void *data, __u32 len, __u32 sum)
{
	xrx_csum_fn fn = xrx_csum_impl_best()->add;

	__atomic_store_n(&xrx_csum_chosen, fn, __ATOMIC_RELAXED);
	return fn(data, len, sum);
}

/*
 * Sum of @len bytes as big-endian 16-bit words, added to @sum: the
 * fastest implementation this CPU has.
 */
__u32 xrx_csum_add(const void *data, __u32 len, __u32 sum)
{
	return __atomic_load_n(&xrx_csum_chosen, __ATOMIC_RELAXED)(data, len,
								     sum);
}

/*
 * Pseudo-header sum for an L4 length of @l4_len. A length above 65535
 * (BIG TCP) counts as its two 16-bit halves, as csum_tcpudp_nofold() and
 * csum_ipv6_magic() add the 32-bit length.
 */
__u32 xrx_csum_pseudo(const __u8 *l3, bool ipv6, __u8 proto, __u32 l4_len)
{
	__u32 sum = proto + (l4_len >> 16) + (l4_len & 0xffff);

	/* a few words: not worth a call through the chosen pointer */
	if (ipv6)
		return xrx_csum_scalar(l3 + XRX_IP6H_SADDR, 32, sum);
	return xrx_csum_scalar(l3 + XRX_IPH_SADDR, 8, sum);
}

void xrx_ipv4_csum_set(__u8 *iph)
{
	__u16 check;

	iph[XRX_IPH_CHECK] = 0;
	iph[XRX_IPH_CHECK + 1] = 0;
	check = ~xrx_ipv4_hdr_sum(iph);		/* host order, as summed */
	memcpy(iph + XRX_IPH_CHECK, &check, sizeof(check));
}

/*
 * Sum of bytes [off, off + len) of a segment that may span several
 * pieces (multi-buffer). A piece that starts at an odd offset of the
 * frame contributes its sum byte-swapped, as csum_block_add() does.
 */
__u32 xrx_csum_add_seg(const struct xrx_seg *s, __u32 off, __u32 len,
		       __u32 sum)
{
	const __u8 *base = s->data;
	__u32 pos = 0, plen = s->first_len, i = 0, lo, hi;
	__u16 h;

	for (;;) {
		lo = off > pos ? off : pos;
		hi = off + len < pos + plen ? off + len : pos + plen;
		if (lo < hi) {
			h = xrx_csum_fold(xrx_csum_add(base + (lo - pos), hi - lo, 0));
			if ((lo - off) & 1)
				h = (__u16)(h << 8 | h >> 8);
			sum = xrx_csum_fold(sum) + h;
		}
		pos += plen;
		if (i == s->nr_chunks || pos >= off + len)
			break;
		base = s->region + s->chunks[i].addr;
		plen = s->chunks[i++].len;
	}
	return sum;
}

/* The L4 length the IP header gives the segment's innermost level. */
static __u32 xrx_seg_l4_len(const struct xrx_seg *s)
{
	const __u8 *l3 = s->data + s->l3_off;

	if (xrx_inner(s)->ipv6)
		return xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN) -
		       (s->l4_off - s->l3_off - XRX_IP6H_LEN);
	return xrx_get16(l3 + XRX_IPH_TOT_LEN) - (s->l4_off - s->l3_off);
}

/*
 * Verify the TCP/UDP checksum of a segment over its L4 bytes (the frame
 * minus any Ethernet padding). UDP over IPv4 with checksum 0 passes: it
 * has none (skb_gro_checksum_validate_zero_check()); the UDP rules refuse
 * to aggregate it later.
 */
bool xrx_l4_csum_ok(const struct xrx_seg *s)
{
	const struct xrx_lvl *in = xrx_inner(s);
	const __u8 *l3 = s->data + s->l3_off;
	const __u8 *l4 = s->data + s->l4_off;
	__u32 l4_len = xrx_seg_l4_len(s), sum;
	__u16 hdr;

	if (s->l4_proto == XRX_IPPROTO_UDP &&
	    xrx_get16(l4 + XRX_UDPH_CHECK) == 0)
		return true;
	if (s->sum_ok) {
		/* CHECKSUM_COMPLETE: the sum of the bytes from sum_off to the
		 * end, less the headers in front of the L4 header (an even
		 * count of bytes, so the words line up), as
		 * skb_gro_postpull_rcsum() keeps NAPI_GRO_CB(skb)->csum. The
		 * caller checks only a segment without a length flush, whose
		 * L4 bytes end where the frame does. */
		hdr = xrx_csum_fold(xrx_csum_add(s->data + s->sum_off,
						 s->l4_off - s->sum_off, 0));
		sum = xrx_csum_fold(s->sum) + (__u16)~hdr;
		return xrx_csum_fold(xrx_csum_pseudo(l3, in->ipv6, s->l4_proto,
						     l4_len) +
				     xrx_csum_fold(sum)) == 0xffff;
	}
	if (!s->nr_chunks)
		return xrx_l4_csum_ok_flat(l3, l4, in->ipv6, s->l4_proto,
					   l4_len);
	/* multi-buffer: the payload spans pieces */
	sum = xrx_csum_pseudo(l3, in->ipv6, s->l4_proto, l4_len);
	return xrx_csum_fold(xrx_csum_add_seg(s, s->l4_off, l4_len,
					      sum)) == 0xffff;
}

/* The same over @l4_len bytes in one piece at @l4 (TCP, or UDP with a
 * checksum). */
bool xrx_l4_csum_ok_flat(const __u8 *l3, const __u8 *l4, bool ipv6,
			 __u8 proto, __u32 l4_len)
{
	__u32 sum = xrx_csum_pseudo(l3, ipv6, proto, l4_len);

	return xrx_csum_fold(xrx_csum_add(l4, l4_len, sum)) == 0xffff;
}

/*
 * Does a segment whose sum failed (xrx_l4_csum_ok()) carry the form a
 * sender with TX checksum offload leaves for the device: the L4 checksum
 * field holding the folded, not inverted, pseudo-header sum of the L4
 * length it has (__tcp_v4_send_check(), tcp_v6_send_check(),
 * udp4_hwcsum(): ~csum_tcpudp_magic(), which is csum_fold()'s 1..0xffff),
 * as the veth or tun peer hands it over as CHECKSUM_PARTIAL. Only the
 * field and the pseudo-header are read.
 *
 * Corruption that lands on exactly that value passes as partial: 1 in
 * 65536 of corrupted segments, and only where the field must take
 * that one value for the segment's addresses and length. The engine
 * accepts the form only when told (XRX_CSUM_PARTIAL_ACCEPT: xrxd, on a
 * veth or tun, links that copy skbs in memory and corrupt nothing on
 * the way), and delivers what it accepts as CHECKSUM_PARTIAL, never as
 * verified, so the stack behind the sink computes the real sum if it
 * sends the packet on.
 */
bool xrx_l4_csum_partial(const struct xrx_seg *s)
{
	const struct xrx_lvl *in = xrx_inner(s);
	const __u8 *l3 = s->data + s->l3_off;
	const __u8 *l4 = s->data + s->l4_off;

	return xrx_get16(l4 + (s->l4_proto == XRX_IPPROTO_TCP ?
				       XRX_TCPH_CHECK : XRX_UDPH_CHECK)) ==
	       xrx_csum_fold(xrx_csum_pseudo(l3, in->ipv6, s->l4_proto,
					     xrx_seg_l4_len(s)));
}
