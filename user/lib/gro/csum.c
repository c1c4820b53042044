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
#include "gro/engine_priv.h"

/* Two 64-bit lanes (SSE2 on x86-64, NEON on arm64, scalar pairs elsewhere) */
typedef __u64 xrx_u64x2 __attribute__((vector_size(16)));

/*
 * Sum of @len bytes as big-endian 16-bit words, added to @sum. Summed as
 * native 32-bit words into 64 bits and byte-swapped once at the end: the
 * ones' complement sum does not depend on byte order (RFC 1071 2(B)).
 */
__u32 xrx_csum_add(const void *data, __u32 len, __u32 sum)
{
	const __u8 *p = data;
	xrx_u64x2 lo = { 0, 0 }, hi = { 0, 0 }, v[2];
	__u64 acc;
	__u32 w[1];
	__u16 h = 0;

	/* 32 bytes at a time: the low and high 32-bit halves of each 64-bit
	 * lane go into their own 64-bit sums, kept in vector registers and
	 * added up once after the loop. */
	for (; len >= sizeof(v); len -= sizeof(v), p += sizeof(v)) {
		memcpy(v, p, sizeof(v));
		lo += (v[0] & 0xffffffff) + (v[1] & 0xffffffff);
		hi += (v[0] >> 32) + (v[1] >> 32);
	}
	acc = lo[0] + lo[1] + hi[0] + hi[1];
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(v, p, 8);
		acc += (v[0][0] & 0xffffffff) + (v[0][0] >> 32);
	}
	for (; len >= 4; len -= 4, p += 4) {
		memcpy(w, p, 4);
		acc += w[0];
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		acc += h;
		p += 2;
		len -= 2;
	}
	if (len) {		/* odd byte: the high half of a zero-padded word */
		h = 0;
		memcpy(&h, p, 1);
		acc += h;
	}
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	h = xrx_csum_fold((__u32)acc);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap16(h);
#endif
	return (__u32)xrx_csum_fold(sum) + h;
}

/*
 * Pseudo-header sum for an L4 length of @l4_len. A length above 65535
 * (BIG TCP) counts as its two 16-bit halves, as csum_tcpudp_nofold() and
 * csum_ipv6_magic() add the 32-bit length.
 */
__u32 xrx_csum_pseudo(const __u8 *l3, bool ipv6, __u8 proto, __u32 l4_len)
{
	__u32 sum = proto + (l4_len >> 16) + (l4_len & 0xffff);

	if (ipv6)
		return xrx_csum_add(l3 + XRX_IP6H_SADDR, 32, sum);
	return xrx_csum_add(l3 + XRX_IPH_SADDR, 8, sum);
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
 * Verify the TCP/UDP checksum of a segment over its L4 bytes (the frame
 * minus any Ethernet padding). UDP over IPv4 with checksum 0 passes: it
 * has none (skb_gro_checksum_validate_zero_check()); the UDP rules refuse
 * to aggregate it later.
 */
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

bool xrx_l4_csum_ok(const struct xrx_seg *s)
{
	const __u8 *l3 = s->data + s->l3_off;
	const __u8 *l4 = s->data + s->l4_off;
	__u32 l4_len, sum;

	if (s->ipv6)
		l4_len = xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN) -
			 (s->l4_off - s->l3_off - XRX_IP6H_LEN);
	else
		l4_len = xrx_get16(l3 + XRX_IPH_TOT_LEN) -
			 (s->l4_off - s->l3_off);
	if (s->l4_proto == XRX_IPPROTO_UDP &&
	    xrx_get16(l4 + XRX_UDPH_CHECK) == 0)
		return true;
	if (!s->nr_chunks)
		return xrx_l4_csum_ok_flat(l3, l4, s->ipv6, s->l4_proto,
					   l4_len);
	/* multi-buffer: the payload spans pieces */
	sum = xrx_csum_pseudo(l3, s->ipv6, s->l4_proto, l4_len);
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
