// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * VXLAN GRO: TCP inside VXLAN over IPv4 or IPv6, aggregated as Linux
 * does it.
 *
 * The kernel's path for such a frame, and where each step is here:
 *
 *   inet_gro_receive()       outer IPv4: 0x45, ip_fast_csum(), length and
 *                            frag_off flush; protocol and addresses make
 *                            the flow                     xrx_tnl_no_gro()
 *   ipv6_gro_receive()       outer IPv6: payload_len flush; version, flow
 *                            label, next header, addresses make the flow
 *   udp4/6_gro_receive()     outer UDP checksum checked unless zero or
 *                            already flushing                    ditto
 *   udp_gro_receive()        ports, and "both checksums zero or both
 *                            not", make the flow        xrx_tnl_same_flow()
 *   vxlan_gro_prepare_receive()  flags word and VNI word make the flow
 *   eth_gro_receive()        inner Ethernet header makes the flow; an
 *                            ethertype without GRO goes alone
 *   inet/ipv6_gro_receive()  the inner network layer, as for plain frames
 *   tcp4/6_gro_receive()     inner TCP checksum, then tcp_gro_receive()
 *                            whose gro_receive_network_flush() checks the
 *                            outer IP header (xrx_tnl_outer_flush())
 *                            and then the inner one (gro.c)
 *   skb_gro_receive()        the size limit counts from the OUTER network
 *                            header                       xrx_tnl_start()
 *   udp4/6_gro_complete(), udp_gro_complete(), vxlan_gro_complete(),
 *   inet/ipv6_gro_complete() outer tot_len and header checksum or
 *                            payload_len, UDP length, UDP checksum
 *                                                   xrx_tnl_complete()
 *
 * Everything else (the inner TCP rules, the inner IP rules, the fix-ups of
 * the inner headers) is gro.c's, run with the segment's l3/l4 offsets
 * pointing at the inner headers.
 *
 * Where DPDK's lib/gro/gro_vxlan_tcp4.c differs (xrx follows the kernel):
 *  - DPDK keys the flow on the outer and inner headers including the TCP
 *    ACK number; the kernel (and xrx) flush on an ACK change instead.
 *  - DPDK checks the outer IP ID only to be incrementing, or ignores it
 *    when DF is set; the kernel since 2025 (and xrx) decides per header at
 *    the second segment between fixed and incrementing, DF or not, so a
 *    DF outer header with random IDs flushes.
 *  - DPDK compares the outer DF bit but not the outer TTL/TOS nor the
 *    inner TTL/TOS; the kernel flushes on any change of them.
 *  - DPDK merges only segments whose flags are exactly ACK: a PSH segment
 *    stays alone; the kernel merges it and ends the aggregate.
 *  - DPDK ignores the outer UDP checksum; the kernel verifies a non-zero
 *    one, keeps zero and non-zero checksums in different flows, and
 *    leaves the pseudo-header sum in a non-zero one on completion
 *    (SKB_GSO_UDP_TUNNEL_CSUM).
 *  - DPDK has no inner IPv6 (VXLAN-TCP4 only); the kernel and xrx do.
 *
 * Not (yet) done: outer IPv6 extension headers (such frames take the
 * plain path, as UDP); inner UDP,
 * which the kernel only aggregates with rx-udp-gro-forwarding on and xrx
 * delivers alone, as the kernel does with that switch off; VXLAN remote
 * checksum offload (VXLAN_F_REMCSUM_RX, off by default in the kernel).
 */
#include <xrx/parse_tunnel.h>

#include "gro/gro.h"

static bool xrx_tnl_port(const struct xrx_engine *e, __u16 port)
{
	__u32 i;

	for (i = 0; i < e->opts.nr_vxlan_ports; i++)
		if (e->opts.vxlan_ports[i] == port)
			return true;
	return false;
}

/*
 * udp4/6_gro_receive(): skb_gro_checksum_validate_zero_check() over the
 * @ulen bytes of the outer UDP datagram. *@body gets their plain sum,
 * which the inner check reuses (see xrx_tnl_inner_csum_ok()).
 */
static bool xrx_tnl_udp_csum_ok(const struct xrx_seg *s, __u32 ulen,
				__u32 *body)
{
	const __u8 *oh = s->data + s->outer_l3_off;

	*body = xrx_csum_add_seg(s, s->outer_l4_off, ulen, 0);
	return xrx_csum_fold(xrx_csum_pseudo(oh, s->outer_ipv6,
					     XRX_IPPROTO_UDP, ulen) +
			     xrx_csum_fold(*body)) == 0xffff;
}

/*
 * The inner TCP checksum from the outer UDP datagram's sum @body, as the
 * kernel does after skb_gro_checksum_try_convert() made the outer check
 * CHECKSUM_COMPLETE: the sum of the TCP segment is the datagram's minus
 * the headers in front of it (an even count of bytes, so the words line
 * up), and the payload is not read a second time. Only when the inner
 * IP packet ends where the datagram does (no flush, so no padding).
 */
static bool xrx_tnl_inner_csum_ok(const struct xrx_seg *s, __u32 body)
{
	__u32 o4 = s->outer_l4_off, l4_len = s->len - s->l4_off, tcp;
	__u16 hdr = xrx_csum_fold(xrx_csum_add(s->data + o4, s->l4_off - o4, 0));

	tcp = xrx_csum_fold(body) + (__u16)~hdr;
	return xrx_csum_fold(xrx_csum_pseudo(s->data + s->l3_off, s->ipv6,
					     XRX_IPPROTO_TCP, l4_len) +
			     xrx_csum_fold(tcp)) == 0xffff;
}

/*
 * Everything that keeps a VXLAN frame out of GRO, outside in, in the
 * kernel's order; on return 0 @s describes the inner headers.
 * Return: 0, or the single_* / csum_bad counter.
 */
static int xrx_tnl_no_gro(struct xrx_engine *e, struct xrx_seg *s,
			  const struct xrx_tnl_parsed *t, int tr)
{
	const __u8 *oh = s->data + s->l3_off;
	__u32 ip_len, body = 0;
	bool outer_flush, have_body = false;

	s->outer_ipv6 = s->flags & XRX_META_F_IPV6;
	if (s->outer_ipv6) {
		/* ipv6_gro_receive(): only payload_len is checked */
		ip_len = 40 + xrx_get16(oh + 4);
		outer_flush = s->l3_off + ip_len != s->len;
	} else {
		if (s->flags & XRX_META_F_IPV4_OPT)	/* *(u8 *)iph != 0x45 */
			return XRX_ENGINE_STAT_SINGLE_IP_OPTS;
		if (!xrx_ipv4_csum_ok(oh))
			return XRX_ENGINE_STAT_CSUM_BAD;
		ip_len = xrx_get16(oh + 2);
		outer_flush = s->l3_off + ip_len != s->len || (oh[6] & 0x80);
	}
	/* Offsets from xrx_meta are only as good as the program that wrote
	 * them: the outer rules below read a fixed-size IP header. */
	if (s->l3_off + ip_len > s->len || s->l3_off + ip_len < s->l4_off + 8u ||
	    s->l4_off < s->l3_off + (s->outer_ipv6 ? 40u : 20u))
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	s->outer_l3_off = s->l3_off;
	s->outer_l4_off = s->l4_off;
	/* "Don't bother verifying checksum if we're going to flush anyway" */
	if (e->opts.csum == XRX_CSUM_VERIFY && !outer_flush &&
	    xrx_get16(s->data + s->l4_off + 6)) {
		if (!xrx_tnl_udp_csum_ok(s, s->l3_off + ip_len - s->l4_off,
					 &body))
			return XRX_ENGINE_STAT_CSUM_BAD;
		have_body = true;
	}
	if (tr == XRX_TNL_SHORT)	/* vxlan_gro_prepare_receive(): NULL */
		return XRX_ENGINE_STAT_SINGLE_VXLAN_SHORT;

	/* From here on the inner frame is what the GRO rules look at. */
	s->tnl = true;
	s->inner_mac_off = t->inner_mac_off;
	s->hdrs = t->inner.hdrs;
	switch (s->result) {
	case XRX_PARSE_L4:
		break;
	case XRX_PARSE_FRAG:
		return XRX_ENGINE_STAT_SINGLE_FRAG;
	case XRX_PARSE_NOT_IP:		/* eth_gro_receive(): no ptype */
	case XRX_PARSE_NOT_L4:
		return XRX_ENGINE_STAT_SINGLE_VXLAN_INNER;
	default:
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	}
	if (s->flags & XRX_META_F_IPV4_OPT)
		return XRX_ENGINE_STAT_SINGLE_IP_OPTS;
	if (!(s->flags & XRX_META_F_IPV6) &&
	    !xrx_ipv4_csum_ok(s->data + s->l3_off))
		return XRX_ENGINE_STAT_CSUM_BAD;
	/* Inner UDP: udp_gro_receive() with no socket and no
	 * rx-udp-gro-forwarding delivers it alone. */
	if (s->l4_proto != XRX_IPPROTO_TCP)
		return XRX_ENGINE_STAT_SINGLE_VXLAN_INNER;
	/* The outer headers got here whole (the outer parse found UDP), so
	 * the inner lengths follow the plain rules; an outer flush condition
	 * flushes too (udp_gro_receive(): NAPI_GRO_CB(skb)->flush). */
	if (!xrx_seg_lengths(s))
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	s->ip_flush |= outer_flush;
	/* tcp4/6_gro_receive(): skb_gro_checksum_validate() unless flushing */
	if (e->opts.csum == XRX_CSUM_VERIFY && !s->ip_flush) {
		if (have_body ? !xrx_tnl_inner_csum_ok(s, body) :
				!xrx_l4_csum_ok(s))
			return XRX_ENGINE_STAT_CSUM_BAD;
		s->csum_ok = true;
	}
	return 0;
}

/*
 * A frame the engine parsed (or took from xrx_meta): if it is UDP over
 * IPv4, or over IPv6 without extension headers, to a VXLAN port, run it
 * through the VXLAN rules and return true; otherwise return false and
 * leave it to the plain path untouched.
 */
bool xrx_tnl_frame(struct xrx_engine *e, struct xrx_seg *s, __u64 now_ns)
{
	struct xrx_parsed outer;
	struct xrx_tnl_parsed t;
	int tr, why;

	if (s->result != XRX_PARSE_L4 || s->l4_proto != XRX_IPPROTO_UDP ||
	    (s->flags & XRX_META_F_IPV6_EXT) ||
	    !xrx_tnl_port(e, xrx_get16(s->data + s->l4_off + 2)))
		return false;
	memset(&outer, 0, sizeof(outer));
	outer.hdrs = s->hdrs;
	tr = xrx_parse_vxlan(s->data, s->first_len, s->len, &outer, &t);
	xrx_count(e, XRX_ENGINE_STAT_VXLAN_FRAMES_IN);
	why = xrx_tnl_no_gro(e, s, &t, tr);
	if (why)
		xrx_gro_single(e, s, why);
	else
		xrx_gro_receive(e, s, now_ns);
	return true;
}

/*
 * Same flow, outside in: the outer MAC header and VLAN tags
 * (gro_list_prepare()), outer protocol and addresses (inet_gro_receive()),
 * UDP ports and checksum presence (udp_gro_receive()), the VXLAN flags and
 * VNI words (vxlan_gro_prepare_receive()), the inner Ethernet header and
 * tags (eth_gro_receive(), vlan_gro_receive()), then the inner network and
 * transport identity as gro.c's xrx_same_flow() has it. Outer TTL, TOS,
 * DF and ID are flush rules, not identity (xrx_tnl_outer_flush()).
 */
bool xrx_tnl_same_flow(const struct xrx_agg *a, const struct xrx_seg *s)
{
	const __u8 *h = a->head, *d = s->data;
	__u32 o3 = s->outer_l3_off, o4 = s->outer_l4_off;
	__u32 im = s->inner_mac_off, l3 = s->l3_off, l4 = s->l4_off;

	if (!a->tnl || !s->tnl || a->outer_ipv6 != s->outer_ipv6 ||
	    a->pkt.outer_l3_off != o3 ||
	    a->pkt.outer_l4_off != o4 || a->pkt.inner_mac_off != im ||
	    a->pkt.l3_off != l3 || a->pkt.l4_off != l4 ||
	    a->pkt.l4_proto != s->l4_proto || a->ipv6 != s->ipv6)
		return false;
	if (xrx_bytes_differ(h, d, o3))
		return false;
	if (s->outer_ipv6) {
		/* ipv6_gro_receive(): version, flow label, next header,
		 * addresses (class and hop limit are ipv6_gro_flush()'s) */
		if ((xrx_get32(h + o3) ^ xrx_get32(d + o3)) & 0xf00fffff ||
		    h[o3 + 6] != d[o3 + 6] ||
		    xrx_bytes_differ(h + o3 + 8, d + o3 + 8, 32))
			return false;
	} else if (h[o3 + 9] != d[o3 + 9] ||
		   xrx_raw64(h + o3 + 12) != xrx_raw64(d + o3 + 12)) {
		return false;
	}
	if (xrx_raw32(h + o4) != xrx_raw32(d + o4) ||
	    !xrx_get16(h + o4 + 6) != !xrx_get16(d + o4 + 6))
		return false;
	if (xrx_raw64(h + o4 + 8) != xrx_raw64(d + o4 + 8))
		return false;
	if (xrx_bytes_differ(h + im, d + im, l3 - im))
		return false;
	return xrx_l3l4_same_flow(h, d, l3, l4, s->ipv6);
}

/*
 * inet_gro_flush() on an outer IPv4 header (gro_receive_network_flush()
 * runs it before the inner one): TTL, TOS and DF must not change, and the
 * ID is fixed or incrementing, decided at the second segment for this
 * header on its own (NAPI_GRO_CB(p)->ip_fixedid bit 0; the inner header
 * has bit 1). No DF exemption: Linux 6.18 checks the outer ID with DF set
 * too (measured). An outer IPv6 header: ipv6_gro_flush(), class and
 * hop limit. Also skb_gro_receive()'s size limit as far as tunnels go:
 * xrx keeps VXLAN aggregates within 64 KiB whatever max_aggregate says,
 * so the outer length field always holds the length.
 * Return: 0 or the flush counter.
 */
int xrx_tnl_outer_flush(struct xrx_agg *a, const struct xrx_seg *s)
{
	const __u8 *iph = s->data + s->outer_l3_off;
	const __u8 *iph2 = a->head + s->outer_l3_off;
	__u16 ipid_offset;

	if (s->outer_ipv6) {
		/* ipv6_gro_flush(): traffic class and hop limit */
		if ((xrx_get32(iph + XRX_IP6H_VTF) ^
		     xrx_get32(iph2 + XRX_IP6H_VTF)) & XRX_IP6_TCLASS_MASK)
			return XRX_ENGINE_STAT_FLUSH_OUTER_TOS;
		if (iph[XRX_IP6H_HOP_LIMIT] != iph2[XRX_IP6H_HOP_LIMIT])
			return XRX_ENGINE_STAT_FLUSH_OUTER_TTL;
		goto size;
	}
	if (iph[XRX_IPH_TTL] != iph2[XRX_IPH_TTL])
		return XRX_ENGINE_STAT_FLUSH_OUTER_TTL;
	if (iph[XRX_IPH_TOS] != iph2[XRX_IPH_TOS])
		return XRX_ENGINE_STAT_FLUSH_OUTER_TOS;
	if ((xrx_get16(iph + XRX_IPH_FRAG_OFF) ^
	     xrx_get16(iph2 + XRX_IPH_FRAG_OFF)) & XRX_IP_DF)
		return XRX_ENGINE_STAT_FLUSH_OUTER_DF;
	ipid_offset = (__u16)(xrx_get16(iph + XRX_IPH_ID) -
			      a->outer_first_id);
	if (a->count == 1 && ipid_offset == 0)
		a->outer_fixedid = true;
	if (ipid_offset != (a->outer_fixedid ? 0 : (__u16)a->count))
		return XRX_ENGINE_STAT_FLUSH_OUTER_IPID;
size:
	if (a->held_len + s->payload_len >= XRX_GRO_LEGACY_MAX)
		return XRX_ENGINE_STAT_FLUSH_SIZE;
	return 0;
}

/* A VXLAN segment starts a packet (aggregate or single). */
void xrx_tnl_start(struct xrx_agg *a, const struct xrx_seg *s)
{
	a->tnl = true;
	a->outer_ipv6 = s->outer_ipv6;
	a->outer_fixedid = false;
	a->outer_first_id = s->outer_ipv6 ? 0 :
			    xrx_get16(s->data + s->outer_l3_off + 4);
	/* skb_gro_receive() counts p->len from the outer network header */
	a->held_len = s->len - s->outer_l3_off;
	a->pkt.outer_l3_off = s->outer_l3_off;
	a->pkt.outer_l4_off = s->outer_l4_off;
	a->pkt.inner_mac_off = s->inner_mac_off;
}

/*
 * After xrx_gro_complete() fixed the inner headers: the outer ones, as
 * napi_gro_complete() -> inet_gro_complete() (tot_len and checksum, with
 * csum_replace2(): the same as recomputing a header that was verified)
 * or ipv6_gro_complete() (payload_len) -> udp4/6_gro_complete() (a
 * non-zero checksum becomes the pseudo-header sum, ~udp_v4_check(len,
 * saddr, daddr, 0) or ~udp_v6_check()) -> udp_gro_complete() (UDP
 * length; gso_type SKB_GSO_UDP_TUNNEL_CSUM if the checksum is non-zero,
 * else SKB_GSO_UDP_TUNNEL) -> vxlan_gro_complete() -> eth_gro_complete()
 * -> the inner ones.
 */
void xrx_tnl_complete(struct xrx_engine *e, struct xrx_agg *a)
{
	struct xrx_pkt *p = &a->pkt;
	__u8 *oh = a->head + p->outer_l3_off, *uh = a->head + p->outer_l4_off;
	__u32 ulen = p->len - p->outer_l4_off;
	__u8 flags = 0;

	if (a->outer_ipv6) {
		xrx_put16(oh + 4, p->len - p->outer_l3_off - 40);
	} else {
		xrx_put16(oh + 2, p->len - p->outer_l3_off);
		xrx_ipv4_csum_set(oh);
	}
	xrx_put16(uh + 4, ulen);
	if (xrx_get16(uh + 6)) {
		xrx_put16(uh + 6, xrx_csum_fold(xrx_csum_pseudo(
					  oh, a->outer_ipv6, XRX_IPPROTO_UDP,
					  ulen)));
		flags |= XRX_GSO_F_UDP_TUNNEL_CSUM;
	} else {
		flags |= XRX_GSO_F_UDP_TUNNEL;
	}
	/* gro.c set FIXEDID for the inner header it knows as its only one */
	if (p->gso_flags & XRX_GSO_F_FIXEDID)
		flags |= XRX_GSO_F_FIXEDID_INNER;
	if (a->outer_fixedid)
		flags |= XRX_GSO_F_FIXEDID;
	p->gso_flags = flags;
	xrx_count(e, XRX_ENGINE_STAT_VXLAN_AGGS_OUT);
}
