// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GRO rules: whether a segment merges into its flow's aggregate,
 * flushes it, or is delivered alone, and how a finished aggregate's
 * headers are fixed up. The Linux kernel is the specification:
 *
 *   dev_gro_receive(), gro_list_prepare()   net/core/gro.c
 *   inet_gro_receive(), inet_gro_flush()     net/ipv4/af_inet.c, gro.h
 *   ipv6_gro_receive(), ipv6_gro_flush()     net/ipv6/ip6_offload.c, gro.h
 *   tcp4_gro_receive(), tcp_gro_receive()    net/ipv4/tcp_offload.c
 *   udp_gro_receive_segment()                net/ipv4/udp_offload.c
 *   skb_gro_receive()                        net/core/gro.c
 *   inet_gro_complete(), tcp4_gro_complete() and their IPv6/UDP twins
 *
 * The IP ID rule is mainline's (2025): the second segment decides whether
 * the flow is fixed-ID (same ID, DF or not) or incrementing. CWR is as
 * Linux 6.18 does it (measured): it flushes the aggregate, and a CWR
 * segment never starts one either; it is delivered alone.
 */
#include "gro/gro.h"

#define XRX_TCP_FLAG_WORD_CWR 0x00800000	/* TCP_FLAG_CWR */
#define XRX_TCP_FLAG_WORD_FIN 0x00010000
#define XRX_TCP_FLAG_WORD_PSH 0x00080000
#define XRX_TCP_FLAG_WORD_FLAGS 0xffff0000	/* doff, reserved, flags */

/* Flags that make a segment complete what it joins, or stay alone. */
#define XRX_TH_FINAL (XRX_TH_URG | XRX_TH_PSH | XRX_TH_RST | XRX_TH_SYN | \
		      XRX_TH_FIN)
/* ... and what keeps a segment from starting an aggregate: also CWR */
#define XRX_TH_ALONE (XRX_TH_FINAL | XRX_TH_CWR)

/*
 * Same flow: the identity gro_list_prepare() (MAC header and VLAN tags),
 * inet_gro_receive() (protocol, addresses), ipv6_gro_receive() (version,
 * flow label, next header, addresses, extension headers byte for byte)
 * and tcp_gro_lookup()/udp_gro_receive_segment() (ports) check. A
 * difference here makes another flow, not a flush.
 */
static bool xrx_same_flow(const struct xrx_agg *a, const struct xrx_seg *s)
{
	const __u8 *h = a->head, *d = s->data;
	__u32 l3 = s->l3_off, l4 = s->l4_off;

	if (a->tnl || s->tnl)		/* VXLAN: outer headers too (tunnel.c) */
		return xrx_tnl_same_flow(a, s);
	if (a->pkt.l3_off != l3 || a->pkt.l4_off != l4 ||
	    a->pkt.l4_proto != s->l4_proto || a->ipv6 != s->ipv6 ||
	    a->vlan_all != s->vlan_all)	/* gro_list_prepare(): vlan_all */
		return false;
	if (xrx_bytes_differ(h, d, l3))
		return false;
	return xrx_l3l4_same_flow(h, d, l3, l4, s->ipv6);
}

static struct xrx_agg *xrx_gro_lookup(struct xrx_engine *e,
				      const struct xrx_seg *s)
{
	struct xrx_agg *a;

	for (a = xrx_gro_table_bucket(&e->table, s->hash); a; a = a->hnext)
		if (a->pkt.hash == s->hash && xrx_same_flow(a, s))
			return a;
	return NULL;
}

/*
 * inet_gro_flush() / ipv6_gro_flush(): network header fields that must
 * not change within an aggregate. Return: 0, or the flush counter.
 */
static inline int xrx_network_flush(struct xrx_agg *a,
				    const struct xrx_seg *s)
{
	const __u8 *iph = s->data + s->l3_off, *iph2 = a->head + s->l3_off;
	__u16 ipid_offset;

	if (s->ipv6) {
		if (unlikely((xrx_get32(iph + XRX_IP6H_VTF) ^
			      xrx_get32(iph2 + XRX_IP6H_VTF)) &
			     XRX_IP6_TCLASS_MASK))
			return XRX_ENGINE_STAT_FLUSH_TOS;
		if (unlikely(iph[XRX_IP6H_HOP_LIMIT] !=
			     iph2[XRX_IP6H_HOP_LIMIT]))
			return XRX_ENGINE_STAT_FLUSH_TTL;
		return 0;
	}
	if (unlikely(iph[XRX_IPH_TTL] != iph2[XRX_IPH_TTL]))
		return XRX_ENGINE_STAT_FLUSH_TTL;
	if (unlikely(iph[XRX_IPH_TOS] != iph2[XRX_IPH_TOS]))
		return XRX_ENGINE_STAT_FLUSH_TOS;
	if (unlikely((xrx_get16(iph + XRX_IPH_FRAG_OFF) ^
		      xrx_get16(iph2 + XRX_IPH_FRAG_OFF)) & XRX_IP_DF))
		return XRX_ENGINE_STAT_FLUSH_DF;

	/* The second segment decides: fixed ID or incrementing. */
	ipid_offset = (__u16)(xrx_get16(iph + XRX_IPH_ID) - a->first_id);
	if (a->count == 1 && ipid_offset == 0)
		a->fixedid = true;
	if (unlikely(ipid_offset != (a->fixedid ? 0 : (__u16)a->count)))
		return XRX_ENGINE_STAT_FLUSH_IPID;
	return 0;
}

/*
 * skb_gro_receive()'s refusal: the aggregate, counted as p->len (from the
 * end of the Ethernet header, in-band VLAN tags included), plus the new
 * payload reaches the limit. Beyond 64 KiB only TCP
 * grows (BIG TCP), and skb_gro_receive() refuses a segment the network
 * layer flagged (length mismatch, reserved bit).
 */
static int xrx_size_flush(struct xrx_engine *e, const struct xrx_agg *a,
			  const struct xrx_seg *s)
{
	__u32 total = a->held_len + s->payload_len;

	if (unlikely(s->ip_flush))
		return XRX_ENGINE_STAT_FLUSH_IP_HDR;
	if (unlikely(total >= e->limit ||
		     (total >= XRX_GRO_LEGACY_MAX &&
		      s->l4_proto != XRX_IPPROTO_TCP)))
		return XRX_ENGINE_STAT_FLUSH_SIZE;
	return 0;
}

/* tcp_gro_receive(): every check before the merge. Return: 0 or why not. */
static int xrx_tcp_flush(struct xrx_engine *e, struct xrx_agg *a,
			 const struct xrx_seg *s)
{
	const __u8 *th = s->data + s->l4_off, *th2 = a->head + s->l4_off;
	/* tcp_flag_word(): doff, reserved bits, flags and window */
	__u32 flags = xrx_get32(th + XRX_TCPH_DOFF), diff, seq;
	int why;

	if (unlikely(flags & XRX_TCP_FLAG_WORD_CWR))
		return XRX_ENGINE_STAT_FLUSH_CWR;
	diff = (flags ^ xrx_get32(th2 + XRX_TCPH_DOFF)) &
	       ~(XRX_TCP_FLAG_WORD_CWR | XRX_TCP_FLAG_WORD_FIN |
		 XRX_TCP_FLAG_WORD_PSH);
	if (unlikely(diff & XRX_TCP_FLAG_WORD_FLAGS))
		return XRX_ENGINE_STAT_FLUSH_FLAGS;
	if (unlikely(diff))
		return XRX_ENGINE_STAT_FLUSH_WINDOW;
	if (unlikely(xrx_get32(th + XRX_TCPH_ACK_SEQ) !=
		     xrx_get32(th2 + XRX_TCPH_ACK_SEQ)))
		return XRX_ENGINE_STAT_FLUSH_ACK;
	if (xrx_bytes_differ(th + XRX_TCPH_LEN, th2 + XRX_TCPH_LEN,
			     s->hdr_len - s->l4_off - XRX_TCPH_LEN))
		return XRX_ENGINE_STAT_FLUSH_OPTS;
	/* VXLAN: gro_receive_network_flush() checks the outer IP header
	 * before the inner one (tunnel.c) */
	if (unlikely(s->tnl)) {
		why = xrx_tnl_outer_flush(a, s);
		if (why)
			return why;
	}
	why = xrx_network_flush(a, s);
	if (unlikely(why))
		return why;
	/* (len - 1) >= mss: also ends the aggregate at a pure ACK */
	if (unlikely(s->payload_len == 0))
		return XRX_ENGINE_STAT_FLUSH_NO_PAYLOAD;
	if (unlikely(s->payload_len > a->mss))
		return XRX_ENGINE_STAT_FLUSH_MSS;
	seq = xrx_get32(th2 + XRX_TCPH_SEQ) + a->payload;
	if (unlikely(xrx_get32(th + XRX_TCPH_SEQ) != seq))
		return XRX_ENGINE_STAT_FLUSH_SEQ;
	return xrx_size_flush(e, a, s);
}

/* udp_gro_receive_segment(): every check before the merge. */
static int xrx_udp_flush(struct xrx_engine *e, struct xrx_agg *a,
			 const struct xrx_seg *s)
{
	int why = xrx_network_flush(a, s);

	if (why)
		return why;
	if (s->payload_len > a->mss)	/* ulen > ntohs(uh2->len) */
		return XRX_ENGINE_STAT_FLUSH_UDP_LEN;
	return xrx_size_flush(e, a, s);
}

/*
 * After a merge: does the aggregate end here? tcp_gro_receive()'s
 * out_check_final (shorter than mss, or URG/PSH/RST/SYN/FIN), the UDP
 * rule (a shorter datagram, UDP_GRO_CNT_MAX), and xrx's max_segs.
 */
static int xrx_complete_reason(struct xrx_engine *e, const struct xrx_agg *a,
			       const struct xrx_seg *s)
{
	__u32 max = e->max_segs;

	if (s->l4_proto == XRX_IPPROTO_TCP) {
		if (s->data[s->l4_off + XRX_TCPH_FLAGS] & XRX_TH_FINAL)
			return XRX_ENGINE_STAT_COMPLETE_FLAGS;
	} else if (max > XRX_UDP_SEGS_MAX) {
		max = XRX_UDP_SEGS_MAX;
	}
	if (s->payload_len < a->mss)
		return XRX_ENGINE_STAT_COMPLETE_SHORT;
	if (a->count >= max)
		return XRX_ENGINE_STAT_COMPLETE_SEGS;
	return 0;
}

static void xrx_gro_merge(struct xrx_engine *e, struct xrx_agg *a,
			  const struct xrx_seg *s)
{
	int done;

	xrx_head_append(e, a, s);
	a->count++;
	a->held_len += s->payload_len;
	a->payload += s->payload_len;
	xrx_count(e, XRX_ENGINE_STAT_SEGS_MERGED);
	if (s->l4_proto == XRX_IPPROTO_TCP)	/* FIN and PSH are OR-ed */
		a->head[s->l4_off + XRX_TCPH_FLAGS] |=
			s->data[s->l4_off + XRX_TCPH_FLAGS] &
			(XRX_TH_FIN | XRX_TH_PSH);
	done = xrx_complete_reason(e, a, s);
	if (done)
		xrx_deliver(e, a, done);
	else if (a->count == 2)	/* it grows: let the next segments in fast */
		xrx_fast_start(e, a, s);
}

static struct xrx_agg *xrx_agg_get(struct xrx_engine *e)
{
	struct xrx_agg *a = xrx_agg_alloc(e);

	/* Out of buffers while aggregates are held: give the oldest up, as
	 * the table does when full; a consumer that releases in deliver()
	 * hands its buffer straight back. */
	while (!a && e->table.oldest) {
		xrx_deliver(e, e->table.oldest,
			    XRX_ENGINE_STAT_FLUSH_TABLE_FULL);
		a = xrx_agg_alloc(e);
	}
	return a;
}

static struct xrx_agg *xrx_agg_start(struct xrx_engine *e,
				     const struct xrx_seg *s, __u64 now_ns)
{
	struct xrx_agg *a = xrx_agg_get(e);

	if (unlikely(!a)) {
		xrx_count(e, XRX_ENGINE_STAT_DROP_NO_BUFFER);
		xrx_release_seg(e, s);
		return NULL;
	}
	xrx_head_start(e, a, s);
	a->count = 1;
	a->ipv6 = s->ipv6;
	a->hdr_len = s->hdr_len;
	a->mss = s->payload_len;
	a->payload = s->payload_len;
	/* skb->len after eth_type_trans(): in-band VLAN tags count (GRO
	 * runs before skb_vlan_untag()); out-of-band tags are not in the
	 * frame at all. */
	a->held_len = s->len - XRX_ETH_HLEN;
	a->first_id = s->ipv6 ? 0 :
				xrx_get16(s->data + s->l3_off + XRX_IPH_ID);
	if (unlikely(s->tnl))		/* VXLAN: outer headers, size counted from them */
		xrx_tnl_start(a, s);
	a->born_ns = now_ns;
	a->pkt.csum = s->csum_ok ? XRX_PKT_CSUM_UNNECESSARY : XRX_PKT_CSUM_NONE;
	return a;
}

/* A frame that is not held: delivered at once, through a head as well. */
void xrx_gro_single(struct xrx_engine *e, const struct xrx_seg *s, int why)
{
	struct xrx_agg *a = xrx_agg_start(e, s, 0);

	if (a)
		xrx_deliver(e, a, why);
}

/* The new segment starts its flow's aggregate (dev_gro_receive()). */
static void xrx_gro_hold(struct xrx_engine *e, const struct xrx_seg *s,
			 __u64 now_ns)
{
	struct xrx_agg *a;

	if (e->table.held >= e->table.max)	/* gro_flush_oldest() */
		xrx_deliver(e, e->table.oldest,
			    XRX_ENGINE_STAT_FLUSH_TABLE_FULL);
	a = xrx_agg_start(e, s, now_ns);
	if (!a)
		return;
	xrx_gro_table_insert(&e->table, a);
	if (e->max_segs <= 1)
		xrx_deliver(e, a, XRX_ENGINE_STAT_COMPLETE_SEGS);
}

/*
 * Why a segment cannot start an aggregate (tcp_gro_receive() with no
 * match: len < 1, or a flag in XRX_TH_ALONE; the network layer's own
 * flush). Return: 0 if it can.
 */
static int xrx_own_flush(const struct xrx_seg *s)
{
	if (s->l4_proto == XRX_IPPROTO_TCP) {
		if (s->payload_len == 0)
			return XRX_ENGINE_STAT_SINGLE_PURE_ACK;
		if (s->data[s->l4_off + XRX_TCPH_FLAGS] & XRX_TH_ALONE)
			return XRX_ENGINE_STAT_SINGLE_TCP_FLAGS;
	}
	if (s->ip_flush)
		return (s->flags & XRX_META_F_LEN_PAD) || s->ip_short ?
			       XRX_ENGINE_STAT_SINGLE_LEN :
			       XRX_ENGINE_STAT_SINGLE_IP_FLAGS;
	return 0;
}

/*
 * One GRO-eligible segment (the caller has sorted out what never enters
 * GRO). As dev_gro_receive(): a flush delivers the held aggregate first,
 * then the segment is held anew or delivered alone.
 */
void xrx_gro_receive(struct xrx_engine *e, const struct xrx_seg *s,
		     __u64 now_ns)
{
	struct xrx_agg *a = xrx_gro_lookup(e, s);
	int why;

	if (likely(a)) {
		why = s->l4_proto == XRX_IPPROTO_TCP ? xrx_tcp_flush(e, a, s) :
						       xrx_udp_flush(e, a, s);
		if (likely(!why)) {
			xrx_gro_merge(e, a, s);
			return;
		}
		xrx_deliver(e, a, why);
	}
	why = xrx_own_flush(s);
	if (why)
		xrx_gro_single(e, s, why);
	else
		xrx_gro_hold(e, s, now_ns);
}

/*
 * napi_gro_complete() for two or more segments: inet_gro_complete() /
 * ipv6_gro_complete() set the IP length (0 above 65535: BIG TCP; the
 * IPv6 jumbo option, when asked for, is xrx_gro_ipv6_jumbo()'s), tcp4/6_gro_complete() and udp4/6_gro_complete() leave
 * the pseudo-header sum in the L4 checksum for CHECKSUM_PARTIAL and fill
 * in the GSO information.
 */
void xrx_gro_complete(struct xrx_agg *a)
{
	struct xrx_pkt *p = &a->pkt;
	__u8 *l3 = a->head + p->l3_off, *l4 = a->head + p->l4_off;
	__u32 ip_len = p->len - p->l3_off, l4_len = p->len - p->l4_off;
	__u16 pseudo;

	if (a->ipv6) {
		ip_len -= XRX_IP6H_LEN;
		xrx_put16(l3 + XRX_IP6H_PAYLOAD_LEN,
			  ip_len > XRX_IP_MAX_LEN ? 0 : ip_len);
	} else {
		xrx_put16(l3 + XRX_IPH_TOT_LEN,
			  ip_len > XRX_IP_MAX_LEN ? 0 : ip_len);
		xrx_ipv4_csum_set(l3);
	}
	pseudo = xrx_csum_fold(xrx_csum_pseudo(l3, a->ipv6, p->l4_proto,
					       l4_len));
	if (p->l4_proto == XRX_IPPROTO_TCP) {
		xrx_put16(l4 + XRX_TCPH_CHECK, pseudo);
		p->gso_type = a->ipv6 ? XRX_GSO_TCPV6 : XRX_GSO_TCPV4;
		p->gso_flags = (!a->ipv6 && a->fixedid) ? XRX_GSO_F_FIXEDID : 0;
		p->csum_offset = XRX_TCPH_CHECK;
	} else {
		xrx_put16(l4 + XRX_UDPH_LEN_OFF, l4_len);
		if (xrx_get16(l4 + XRX_UDPH_CHECK))
			xrx_put16(l4 + XRX_UDPH_CHECK, pseudo);
		p->gso_type = XRX_GSO_UDP_L4;
		p->gso_flags = 0;
		p->csum_offset = XRX_UDPH_CHECK;
	}
	p->gso_size = a->mss;
	p->gso_segs = a->count;
	p->csum = XRX_PKT_CSUM_PARTIAL;
	p->csum_start = p->l4_off;
}

/*
 * The Linux 6.x form of an IPv6 BIG TCP aggregate (xrx_engine_opts
 * ipv6_jumbo = XRX_IPV6_JUMBO_HBH): ipv6_gro_complete() inserts struct
 * hop_jumbo_hdr right after the fixed IPv6 header when the payload
 * exceeds IPV6_MAXPLEN, and ip6_rcv_core()/ipv6_hop_jumbo() of 6.x take a
 * payload_len 0 packet only with it. The kernel moves the headers in
 * front of it 8 bytes into the headroom; here the bytes behind it move 8
 * bytes on (the head buffer has the room, engine.c). The TCP
 * pseudo-header sum stays: it counts the same L4 length.
 */
void xrx_gro_ipv6_jumbo(struct xrx_agg *a)
{
	struct xrx_pkt *p = &a->pkt;
	__u32 nh = p->l3_off + 40, payload = p->len - nh;
	__u8 *h = a->head + nh;

	if (!a->ipv6 || p->l4_proto != XRX_IPPROTO_TCP ||
	    payload <= XRX_IP_MAX_LEN || p->head_len < nh)
		return;
	memmove(h + XRX_HBH_JUMBO_LEN, h, p->head_len - nh);
	h[0] = a->head[p->l3_off + 6];	/* hop_jumbo->nexthdr */
	h[1] = 0;			/* hdrlen: 8 bytes */
	h[2] = 0xc2;			/* IPV6_TLV_JUMBO */
	h[3] = 4;
	xrx_put32(h + 4, payload + XRX_HBH_JUMBO_LEN);
	a->head[p->l3_off + 6] = 0;	/* NEXTHDR_HOP */
	p->head_len += XRX_HBH_JUMBO_LEN;
	p->len += XRX_HBH_JUMBO_LEN;
	p->l4_off += XRX_HBH_JUMBO_LEN;
	p->csum_start = p->l4_off;
}
