// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * virtio_net_hdr for delivered packets, and aggregates cut back into
 * pieces at segment boundaries. What the kernel accepts is decided by
 * virtio_net_hdr_to_skb() (include/linux/virtio_net.h):
 *   - GSO TCPV4/TCPV6/UDP_L4 needs gso_size != 0; with NEEDS_CSUM the
 *     transport header must follow at least an IPv4 header's worth of
 *     bytes and csum_offset must be the TCP (16) or UDP (6) check field;
 *   - UDP_L4 needs NEEDS_CSUM and at most UDP_MAX_SEGMENTS segments;
 *   - a "GSO" packet no longer than one gso_size is taken as a plain one.
 * The pieces follow tcp_gso_segment() and __udp_gso_segment() header
 * for header, so what the stack receives is what the sender sent.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <xrx/bytes.h>
#include <xrx/hdr.h>

#include "gro/csum.h"
#include "sink/vnet.h"

static bool vnet_ipv6(const struct xrx_pkt *pkt)
{
	return (pkt->head[pkt->l3_off] >> 4) == 6;
}

__u32 xrx_vnet_hdr_len(const struct xrx_pkt *pkt)
{
	__u32 l4 = pkt->l4_off, doff;

	if (!l4)
		return 0;
	switch (pkt->l4_proto) {
	case XRX_IPPROTO_TCP:
		if (l4 + XRX_TCPH_LEN > pkt->head_len)
			return 0;
		doff = (pkt->head[l4 + XRX_TCPH_DOFF] >> 4) * 4u;
		if (doff < XRX_TCPH_LEN || l4 + doff > pkt->head_len)
			return 0;
		return l4 + doff;
	case XRX_IPPROTO_UDP:
		return l4 + XRX_UDPH_LEN <= pkt->head_len ? l4 + XRX_UDPH_LEN :
							     0;
	default:
		return 0;
	}
}

__u32 xrx_vnet_nr_segs(const struct xrx_pkt *pkt)
{
	__u32 hlen = xrx_vnet_hdr_len(pkt);

	if (pkt->gso_type == XRX_GSO_NONE || !pkt->gso_size || !hlen ||
	    hlen >= pkt->len)
		return 1;
	return (pkt->len - hlen + pkt->gso_size - 1) / pkt->gso_size;
}

static __u8 vnet_gso_type(const struct xrx_pkt *pkt)
{
	switch (pkt->gso_type) {
	case XRX_GSO_TCPV4:
		return VIRTIO_NET_HDR_GSO_TCPV4;
	case XRX_GSO_TCPV6:
		return VIRTIO_NET_HDR_GSO_TCPV6;
	case XRX_GSO_UDP_L4:
		return VIRTIO_NET_HDR_GSO_UDP_L4;
	default:
		return 0;
	}
}

int xrx_vnet_hdr_from_pkt(const struct xrx_pkt *pkt, __u32 base,
			  struct virtio_net_hdr *vh)
{
	__u32 hlen;
	__u8 type;

	memset(vh, 0, sizeof(*vh));
	if (base > pkt->l3_off)
		return -EINVAL;
	if (pkt->gso_type != XRX_GSO_NONE) {
		type = vnet_gso_type(pkt);
		hlen = xrx_vnet_hdr_len(pkt);
		/* virtio_net_hdr_to_skb(): no GSO without a partial sum */
		if (!type || !hlen || !pkt->gso_size ||
		    pkt->csum != XRX_PKT_CSUM_PARTIAL)
			return -EINVAL;
		/* tcp_gro_complete(): CWR in the head -> SKB_GSO_TCP_ECN,
		 * which virtio_net_hdr_from_skb() writes as GSO_ECN. */
		if (pkt->l4_proto == XRX_IPPROTO_TCP &&
		    (pkt->head[pkt->l4_off + XRX_TCPH_FLAGS] & XRX_TH_CWR))
			type |= VIRTIO_NET_HDR_GSO_ECN;
		vh->gso_type = type;
		vh->gso_size = pkt->gso_size;
		vh->hdr_len = hlen - base;
	}
	switch (pkt->csum) {
	case XRX_PKT_CSUM_PARTIAL:
		if (pkt->csum_start < base)
			return -EINVAL;
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->csum_start = pkt->csum_start - base;
		vh->csum_offset = pkt->csum_offset;
		break;
	case XRX_PKT_CSUM_UNNECESSARY:
		/* Informational for tun (it ignores the flag on input), kept
		 * for a reader of the header (tap, a capture). */
		vh->flags = VIRTIO_NET_HDR_F_DATA_VALID;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Call @fn on each piece of packet bytes [off, off + len): part of the
 * head, then of each frag in order, with the piece's offset from @off.
 * Stops at the first non-zero return of @fn and returns it.
 */
static __always_inline int
vnet_walk(const struct xrx_pkt *pkt, __u32 off, __u32 len,
	  int (*fn)(void *ctx, const __u8 *p, __u32 n, __u32 at), void *ctx)
{
	__u32 start = off, end = off + len, pos = 0, i, from, to;
	int err;

	if (end < off || end > pkt->len)
		return -EINVAL;
	/* The head, then each frag: [pos, pos + piece) of the packet. */
	for (i = 0; i <= pkt->nr_frags && off < end; i++) {
		const __u8 *p = i ? pkt->frags[i - 1].data : pkt->head;
		__u32 piece = i ? pkt->frags[i - 1].len : pkt->head_len;

		if (off < pos + piece) {
			from = off - pos;
			to = end < pos + piece ? end - pos : piece;
			err = fn(ctx, p + from, to - from, off - start);
			if (err)
				return err;
			off = pos + to;
		}
		pos += piece;
	}
	return off == end ? 0 : -EINVAL;
}

struct vnet_iov_ctx {
	struct iovec *iov;
	int n, max;
};

static int vnet_iov_piece(void *ctx, const __u8 *p, __u32 n, __u32 at)
{
	struct vnet_iov_ctx *c = ctx;

	if (c->n == c->max)
		return -E2BIG;
	c->iov[c->n].iov_base = (void *)p;
	c->iov[c->n++].iov_len = n;
	return 0;
}

int xrx_vnet_iov(const struct xrx_pkt *pkt, __u32 off, __u32 len,
		 struct iovec *iov, int max)
{
	struct vnet_iov_ctx c = { .iov = iov, .max = max };
	int err = vnet_walk(pkt, off, len, vnet_iov_piece, &c);

	return err ? err : c.n;
}

/*
 * A piece that starts at an odd position of the sum contributes its sum
 * byte-swapped (RFC 1071 2(B)), as csum_block_add() does.
 */
static int vnet_sum_piece(void *ctx, const __u8 *p, __u32 n, __u32 at)
{
	__u32 *s = ctx;
	__u16 part = xrx_csum_fold(xrx_csum_add(p, n, 0));

	if (at & 1)
		part = (__u16)(part << 8 | part >> 8);
	*s += part;
	return 0;
}

/* Ones' complement sum of packet bytes [off, off + len), read in place. */
static int vnet_sum(const struct xrx_pkt *pkt, __u32 off, __u32 len,
		    __u32 *sum)
{
	__u32 s = 0;
	int err = vnet_walk(pkt, off, len, vnet_sum_piece, &s);

	if (err)
		return err;
	*sum += xrx_csum_fold(s);
	return 0;
}

/*
 * The Linux 6.x form of an IPv6 BIG TCP aggregate: payload_len 0 and an
 * 8-byte hop-by-hop header holding only the jumbo option right after the
 * IPv6 header (ipv6_has_hopopt_jumbo()).
 */
static bool vnet_has_jumbo(const struct xrx_pkt *pkt)
{
	const __u8 *ip = pkt->head + pkt->l3_off, *hbh = ip + XRX_IP6H_LEN;
	__u32 end = pkt->l3_off + XRX_IP6H_LEN + XRX_HBH_JUMBO_LEN;

	/* hop-by-hop header: next header, length 0, then type and length
	 * of the jumbo option */
	return pkt->head_len >= end && pkt->l4_off >= end &&
	       (ip[XRX_IP6H_VTF] >> 4) == 6 &&
	       xrx_get16(ip + XRX_IP6H_PAYLOAD_LEN) == 0 &&
	       ip[XRX_IP6H_NEXTHDR] == XRX_IPPROTO_HOPOPTS &&
	       hbh[XRX_IP6OPT_HDRLEN] == 0 && hbh[2] == XRX_IPV6_TLV_JUMBO &&
	       hbh[3] == 4;
}

int xrx_vnet_piece(const struct xrx_pkt *pkt, __u32 base, __u32 seg,
		   __u32 n, bool full_csum, __u8 *hdr, __u32 cap,
		   struct virtio_net_hdr *vh, __u32 *pay_off, __u32 *pay_len)
{
	__u32 hlen = xrx_vnet_hdr_len(pkt), mss = pkt->gso_size;
	__u32 payload, nsegs, off, plen, l4_len, sum, strip = 0, nh;
	bool ipv6, tcp = pkt->l4_proto == XRX_IPPROTO_TCP;
	__u8 *l3, *l4, *check, flags;
	__u16 c;
	int err;

	memset(vh, 0, sizeof(*vh));
	if (pkt->gso_type == XRX_GSO_NONE || !mss || !hlen ||
	    hlen > pkt->head_len || hlen >= pkt->len || base > pkt->l3_off ||
	    !n)
		return -EINVAL;
	payload = pkt->len - hlen;
	nsegs = (payload + mss - 1) / mss;
	if (seg >= nsegs)
		return -EINVAL;
	if (n > nsegs - seg)
		n = nsegs - seg;
	if (cap < hlen - base)
		return -ENOSPC;

	off = seg * mss;
	plen = n * mss < payload - off ? n * mss : payload - off;
	ipv6 = vnet_ipv6(pkt);
	/* ipv6_gso_segment() takes the jumbo option out of the 6.x form:
	 * every piece has a payload_len of its own */
	if (ipv6 && vnet_has_jumbo(pkt))
		strip = XRX_HBH_JUMBO_LEN;
	/* a piece's length must fit its IP header's length field */
	if (hlen - strip - pkt->l3_off - (ipv6 ? XRX_IP6H_LEN : 0) + plen >
	    XRX_VNET_MAX_IP_LEN)
		return -E2BIG;
	if (strip) {
		nh = pkt->l3_off + XRX_IP6H_LEN;
		memcpy(hdr, pkt->head + base, nh - base);
		memcpy(hdr + (nh - base), pkt->head + nh + strip,
		       hlen - nh - strip);
		/* the option's next header becomes the IPv6 header's */
		hdr[pkt->l3_off - base + XRX_IP6H_NEXTHDR] =
			pkt->head[nh + XRX_IP6OPT_NEXTHDR];
	} else {
		memcpy(hdr, pkt->head + base, hlen - base);
	}
	l3 = hdr + (pkt->l3_off - base);
	l4 = hdr + (pkt->l4_off - strip - base);
	l4_len = hlen - pkt->l4_off + plen;

	/* inet_gso_segment() / ipv6_gso_segment(): lengths, IDs */
	if (ipv6) {
		xrx_put16(l3 + XRX_IP6H_PAYLOAD_LEN,
			  hlen - strip - pkt->l3_off - XRX_IP6H_LEN + plen);
	} else {
		xrx_put16(l3 + XRX_IPH_TOT_LEN, hlen - pkt->l3_off + plen);
		if (!(pkt->gso_flags & XRX_GSO_F_FIXEDID))
			xrx_put16(l3 + XRX_IPH_ID,
				  xrx_get16(l3 + XRX_IPH_ID) + seg);
		xrx_ipv4_csum_set(l3);
	}

	/* tcp_gso_segment(): seq per segment, FIN/PSH on the last only,
	 * CWR on the first only. __udp_gso_segment(): UDP length. */
	if (tcp) {
		xrx_put32(l4 + XRX_TCPH_SEQ, xrx_get32(l4 + XRX_TCPH_SEQ) + off);
		flags = l4[XRX_TCPH_FLAGS];
		if (seg + n < nsegs)
			flags &= ~(XRX_TH_FIN | XRX_TH_PSH);
		if (seg)
			flags &= ~XRX_TH_CWR;
		l4[XRX_TCPH_FLAGS] = flags;
		check = l4 + XRX_TCPH_CHECK;
	} else {
		xrx_put16(l4 + XRX_UDPH_LEN_OFF, l4_len);
		check = l4 + XRX_UDPH_CHECK;
	}

	sum = xrx_csum_pseudo(l3, ipv6, pkt->l4_proto, l4_len);
	if (full_csum && n == 1) {
		check[0] = 0;
		check[1] = 0;
		sum = xrx_csum_add(l4, hlen - pkt->l4_off, sum);
		err = vnet_sum(pkt, hlen + off, plen, &sum);
		if (err)
			return err;
		c = (__u16)~xrx_csum_fold(sum);
		if (!tcp && !c)
			c = 0xffff;	/* UDP: 0 means "no checksum" */
		xrx_put16(check, c);
		vh->flags = VIRTIO_NET_HDR_F_DATA_VALID;
	} else {
		xrx_put16(check, xrx_csum_fold(sum));
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->csum_start = pkt->l4_off - strip - base;
		vh->csum_offset = tcp ? 16 : 6;
	}
	if (n >= 2) {
		vh->gso_type = vnet_gso_type(pkt);
		if (tcp && (l4[13] & XRX_TH_CWR))
			vh->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		vh->gso_size = mss;
		vh->hdr_len = hlen - strip - base;
	}
	*pay_off = hlen + off;
	*pay_len = plen;
	return (int)(hlen - strip - base);
}

/* VXLAN aggregates: GSO over a UDP tunnel, and its segments (vnet.h). */

/* inner_mac_off == l3_off: IP in GENEVE without an inner Ethernet header,
 * which virtio's tunnel GSO takes as it takes the inner Ethernet header:
 * as part of the tunnel header (virtio_net_hdr_tnl_to_skb() puts the inner
 * MAC header at the inner network header). */
static bool vnet_tnl_ok(const struct xrx_pkt *pkt, __u32 base, __u32 hlen)
{
	return xrx_vnet_is_tnl(pkt) && pkt->l4_proto == XRX_IPPROTO_TCP &&
	       pkt->gso_size && hlen && hlen <= pkt->head_len &&
	       hlen < pkt->len && base <= pkt->outer_l3_off &&
	       pkt->outer_l3_off < pkt->outer_l4_off &&
	       pkt->outer_l4_off + XRX_UDPH_LEN <= pkt->inner_mac_off &&
	       pkt->inner_mac_off <= pkt->l3_off && pkt->l3_off < pkt->l4_off;
}

int xrx_vnet_tnl_hdr_from_pkt(const struct xrx_pkt *pkt, __u32 base,
			      struct xrx_vnet_hdr_tnl *vh)
{
	__u32 hlen = xrx_vnet_hdr_len(pkt);
	bool outer6;

	memset(vh, 0, sizeof(*vh));
	if (!vnet_tnl_ok(pkt, base, hlen) || pkt->csum != XRX_PKT_CSUM_PARTIAL)
		return -EINVAL;
	outer6 = (pkt->head[pkt->outer_l3_off + XRX_IP6H_VTF] >> 4) == 6;
	vh->hdr.gso_type = vnet_gso_type(pkt) |
			   (outer6 ? VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 :
				     VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4);
	/* the inner TCP's CWR: SKB_GSO_TCP_ECN, as for plain TCP */
	if (pkt->head[pkt->l4_off + XRX_TCPH_FLAGS] & XRX_TH_CWR)
		vh->hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	vh->hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	if (pkt->gso_flags & XRX_GSO_F_UDP_TUNNEL_CSUM)
		vh->hdr.flags |= VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM;
	vh->hdr.gso_size = pkt->gso_size;
	vh->hdr.hdr_len = hlen - base;
	vh->hdr.csum_start = pkt->l4_off - base;
	vh->hdr.csum_offset = XRX_TCPH_CHECK;
	vh->outer_th_offset = htole16(pkt->outer_l4_off - base);
	vh->inner_nh_offset = htole16(pkt->l3_off - base);
	return 0;
}

/* An IP header of a segment: length, ID (unless fixed) and checksum. */
static void vnet_tnl_ip(__u8 *ip, __u32 len, __u32 seg, bool fixed_id)
{
	if ((ip[XRX_IP6H_VTF] >> 4) == 6) {
		xrx_put16(ip + XRX_IP6H_PAYLOAD_LEN, len - XRX_IP6H_LEN);
		return;
	}
	xrx_put16(ip + XRX_IPH_TOT_LEN, len);
	if (!fixed_id)
		xrx_put16(ip + XRX_IPH_ID, xrx_get16(ip + XRX_IPH_ID) + seg);
	xrx_ipv4_csum_set(ip);
}

/* The complete checksum of a header run plus the payload's sum @psum. */
static __u16 vnet_tnl_csum(const __u8 *l3, __u8 proto, const __u8 *l4,
			   __u32 hdr_len, __u32 l4_len, __u16 psum)
{
	__u32 sum = xrx_csum_pseudo(l3, (l3[0] >> 4) == 6, proto, l4_len);

	sum += xrx_csum_fold(xrx_csum_add(l4, hdr_len, 0));
	/* the payload starts at an odd offset of the run: its sum swapped */
	if (hdr_len & 1)
		psum = (__u16)(psum << 8 | psum >> 8);
	return (__u16)~xrx_csum_fold(sum + psum);
}

int xrx_vnet_tnl_seg(const struct xrx_pkt *pkt, __u32 base, __u32 seg,
		     __u8 *hdr, __u32 cap, __u32 *pay_off, __u32 *pay_len)
{
	__u32 hlen = xrx_vnet_hdr_len(pkt), mss = pkt->gso_size;
	__u32 nsegs, off, plen, psum = 0, ulen;
	__u8 *o3, *o4, *i3, *th, flags;
	__u16 c;
	int err;

	if (!vnet_tnl_ok(pkt, base, hlen))
		return -EINVAL;
	nsegs = xrx_vnet_nr_segs(pkt);
	if (seg >= nsegs)
		return -EINVAL;
	if (cap < hlen - base)
		return -ENOSPC;
	off = seg * mss;
	plen = mss < pkt->len - hlen - off ? mss : pkt->len - hlen - off;
	err = vnet_sum(pkt, hlen + off, plen, &psum);
	if (err)
		return err;

	memcpy(hdr, pkt->head + base, hlen - base);
	o3 = hdr + (pkt->outer_l3_off - base);
	o4 = hdr + (pkt->outer_l4_off - base);
	i3 = hdr + (pkt->l3_off - base);
	th = hdr + (pkt->l4_off - base);

	/* inet_gso_segment() / ipv6_gso_segment() on both IP headers */
	vnet_tnl_ip(o3, hlen - pkt->outer_l3_off + plen, seg,
		    pkt->gso_flags & XRX_GSO_F_FIXEDID);
	vnet_tnl_ip(i3, hlen - pkt->l3_off + plen, seg,
		    pkt->gso_flags & XRX_GSO_F_FIXEDID_INNER);

	/* tcp_gso_segment(): seq, FIN/PSH last only, CWR first only */
	xrx_put32(th + XRX_TCPH_SEQ, xrx_get32(th + XRX_TCPH_SEQ) + off);
	flags = th[XRX_TCPH_FLAGS];
	if (seg + 1 < nsegs)
		flags &= ~(XRX_TH_FIN | XRX_TH_PSH);
	if (seg)
		flags &= ~XRX_TH_CWR;
	th[XRX_TCPH_FLAGS] = flags;
	xrx_put16(th + XRX_TCPH_CHECK, 0);
	xrx_put16(th + XRX_TCPH_CHECK, vnet_tnl_csum(i3, XRX_IPPROTO_TCP, th,
					 hlen - pkt->l4_off,
					 hlen - pkt->l4_off + plen,
					 xrx_csum_fold(psum)));

	/* __skb_udp_tunnel_segment(): UDP length; its checksum over the
	 * finished inner packet, or zero as it came */
	ulen = hlen - pkt->outer_l4_off + plen;
	xrx_put16(o4 + XRX_UDPH_LEN_OFF, ulen);
	xrx_put16(o4 + XRX_UDPH_CHECK, 0);
	if (pkt->gso_flags & XRX_GSO_F_UDP_TUNNEL_CSUM) {
		c = vnet_tnl_csum(o3, XRX_IPPROTO_UDP, o4,
				  hlen - pkt->outer_l4_off, ulen,
				  xrx_csum_fold(psum));
		xrx_put16(o4 + XRX_UDPH_CHECK, c ? c : 0xffff);
	}
	*pay_off = hlen + off;
	*pay_len = plen;
	return (int)(hlen - base);
}
