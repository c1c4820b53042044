// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Delivery: a packet leaves the engine as napi_gro_complete() hands an
 * skb to the stack. An aggregate of two or more segments gets its headers
 * fixed up first, from the inside out as the kernel's *_gro_complete()
 * callbacks leave them:
 *
 *   tcp4/6_gro_complete(), udp4/6_gro_complete()   net/ipv4/tcp_offload.c,
 *       the transport header: the pseudo-header    net/ipv4/udp_offload.c
 *       sum in its checksum (CHECKSUM_PARTIAL), UDP length, GSO info
 *   inet_gro_complete(), ipv6_gro_complete()       net/ipv4/af_inet.c,
 *       each level's IP length (and IPv4 header    net/ipv6/ip6_offload.c
 *       checksum)
 *   udp_gro_complete() and the tunnel's own        tunnel.c
 *       between two levels
 *
 * A packet held alone goes out as it came.
 */
#include "gro/gro.h"

/* inet_gro_complete() / ipv6_gro_complete(): one level's IP length. */
static void xrx_ip_complete(struct xrx_agg *a, const struct xrx_lvl *l)
{
	__u8 *iph = a->head + l->l3_off;
	__u32 len = a->pkt.len - l->l3_off;

	if (l->ipv6) {
		len -= XRX_IP6H_LEN;
		xrx_put16(iph + XRX_IP6H_PAYLOAD_LEN,
			  len > XRX_IP_MAX_LEN ? 0 : len);
	} else {
		xrx_put16(iph + XRX_IPH_TOT_LEN,
			  len > XRX_IP_MAX_LEN ? 0 : len);
		xrx_ipv4_csum_set(iph);
	}
}

/*
 * The Linux 6.x form of an IPv6 BIG TCP aggregate (xrx_engine_opts
 * ipv6_jumbo = XRX_IPV6_JUMBO_HBH): ipv6_gro_complete() inserts struct
 * hop_jumbo_hdr right after the fixed IPv6 header when the payload
 * exceeds IPV6_MAXPLEN, and ip6_rcv_core()/ipv6_hop_jumbo() of 6.x take a
 * payload_len 0 packet only with it. The kernel moves the headers in
 * front of it 8 bytes into the headroom; here the bytes behind it move 8
 * bytes on (the head buffer has the room, engine.c). The TCP
 * pseudo-header sum stays: it counts the same L4 length. Only an
 * aggregate of one level grows that far (xrx_agg_limit()).
 */
static void xrx_gro_ipv6_jumbo(struct xrx_agg *a)
{
	struct xrx_pkt *p = &a->pkt;
	__u32 nh = p->l3_off + XRX_IP6H_LEN, payload = p->len - nh;
	__u8 *ip = a->head + p->l3_off, *h = a->head + nh;

	if (!xrx_inner(a)->ipv6 || p->l4_proto != XRX_IPPROTO_TCP ||
	    payload <= XRX_IP_MAX_LEN || p->head_len < nh)
		return;
	memmove(h + XRX_HBH_JUMBO_LEN, h, p->head_len - nh);
	h[XRX_IP6OPT_NEXTHDR] = ip[XRX_IP6H_NEXTHDR];
	h[XRX_IP6OPT_HDRLEN] = 0;	/* 8 bytes */
	h[2] = XRX_IPV6_TLV_JUMBO;
	h[3] = 4;			/* the option's length */
	xrx_put32(h + 4, payload + XRX_HBH_JUMBO_LEN);
	ip[XRX_IP6H_NEXTHDR] = XRX_IPPROTO_HOPOPTS;
	p->head_len += XRX_HBH_JUMBO_LEN;
	p->len += XRX_HBH_JUMBO_LEN;
	p->headlen += XRX_HBH_JUMBO_LEN;
	p->l4_off += XRX_HBH_JUMBO_LEN;
	p->csum_start = p->l4_off;
}

/*
 * napi_gro_complete() for two or more segments: the IP lengths of every
 * level (0 above 65535: BIG TCP; the IPv6 jumbo option, when asked for,
 * xrx_gro_ipv6_jumbo()), the pseudo-header sum in the L4 checksum
 * for CHECKSUM_PARTIAL, the GSO information, and a tunnel's UDP header
 * (tunnel.c). The fixed-ID bits of the levels become gso_flags as
 * tcp_gro_complete() sets SKB_GSO_TCP_FIXEDID: the outer or only
 * header's, and the inner one's. Not inlined: a packet held alone does
 * not pay for its registers in xrx_deliver().
 */
static __attribute__((noinline)) void xrx_gro_complete(struct xrx_engine *e,
						    struct xrx_agg *a)
{
	struct xrx_pkt *p = &a->pkt;
	const struct xrx_lvl *in = xrx_inner(a);
	__u8 *l4 = a->head + p->l4_off;
	__u32 l4_len = p->len - p->l4_off, i;
	__u8 flags = 0;
	__u16 pseudo;

	pseudo = xrx_csum_fold(xrx_csum_pseudo(a->head + in->l3_off, in->ipv6,
					       p->l4_proto, l4_len));
	if (p->l4_proto == XRX_IPPROTO_TCP) {
		xrx_put16(l4 + XRX_TCPH_CHECK, pseudo);
		p->gso_type = in->ipv6 ? XRX_GSO_TCPV6 : XRX_GSO_TCPV4;
		if (a->fixedid & 1)
			flags |= XRX_GSO_F_FIXEDID;
		if (a->fixedid & 2)
			flags |= XRX_GSO_F_FIXEDID_INNER;
		p->csum_offset = XRX_TCPH_CHECK;
	} else {
		xrx_put16(l4 + XRX_UDPH_LEN_OFF, l4_len);
		if (xrx_get16(l4 + XRX_UDPH_CHECK))
			xrx_put16(l4 + XRX_UDPH_CHECK, pseudo);
		p->gso_type = XRX_GSO_UDP_L4;
		p->csum_offset = XRX_UDPH_CHECK;
	}
	for (i = a->nr_lvls; i-- > 0;) {
		xrx_ip_complete(a, &a->lvl[i]);
		if (i + 1 < a->nr_lvls)
			flags |= xrx_tnl_complete(e, a, &a->lvl[i]);
	}
	p->gso_flags = flags;
	p->gso_size = a->mss;
	p->gso_segs = a->count;
	p->csum = XRX_PKT_CSUM_PARTIAL;
	p->csum_start = p->l4_off;
	if (e->opts.ipv6_jumbo == XRX_IPV6_JUMBO_HBH)
		xrx_gro_ipv6_jumbo(a);
	xrx_count(e, XRX_ENGINE_STAT_AGGS_OUT);
}

/*
 * Hand a packet to the consumer: an aggregate of two or more segments
 * completed first; one held alone goes out as it came.
 */
void xrx_deliver(struct xrx_engine *e, struct xrx_agg *a,
		 enum xrx_engine_stat reason)
{
	if (a->in_table)
		xrx_gro_table_remove(&e->table, a);
	if (a->count >= 2)
		xrx_gro_complete(e, a);
	a->state = XRX_AGG_OUT;
	a->pkt.reason = reason;
	xrx_count(e, XRX_ENGINE_STAT_PKTS_OUT);
	xrx_count(e, reason);
	e->stats[XRX_ENGINE_STAT_BYTES_OUT] += a->pkt.len;
	if (e->opts.deliver)
		e->opts.deliver(e->opts.ctx, &a->pkt);
	else
		xrx_pkt__release(e, &a->pkt);
}
