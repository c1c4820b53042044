// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GRO rules: whether a segment merges into its flow's aggregate,
 * flushes it, or is delivered alone (how a finished aggregate's headers
 * are fixed up is complete.c's). The Linux kernel is the specification:
 *
 *   dev_gro_receive(), gro_list_prepare()   net/core/gro.c
 *   inet_gro_receive(), inet_gro_flush()     net/ipv4/af_inet.c, gro.h
 *   ipv6_gro_receive(), ipv6_gro_flush()     net/ipv6/ip6_offload.c, gro.h
 *   gro_receive_network_flush()              include/net/gro.h
 *   tcp4_gro_receive(), tcp_gro_receive()    net/ipv4/tcp_offload.c
 *   udp_gro_receive_segment()                net/ipv4/udp_offload.c
 *   skb_gro_receive()                        net/core/gro.c
 *
 * The rules on IP headers run over the segment's header levels (gro.h),
 * so a tunnel's outer header is judged by the same code as a plain one.
 * The IP ID rule is mainline's (2025): the second segment decides whether
 * each header's ID is fixed (same ID, DF or not) or incrementing. CWR is
 * as Linux 6.18 does it (measured): it flushes the aggregate, and a CWR
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
 * One level's identity: its offsets and IP version (one word), the bytes
 * from @from up to its IP header, its addresses and the ports behind it.
 */
static __always_inline bool xrx_lvl_same_flow(const __u8 *h, const __u8 *d,
					      const struct xrx_lvl *l,
					      const struct xrx_lvl *l2,
					      __u32 from)
{
	return !memcmp(l, l2, sizeof(*l)) &&
	       !xrx_bytes_differ(h + from, d + from, l->l3_off - from) &&
	       xrx_l3l4_same_flow(h, d, l->l3_off, l->l4_off, l->ipv6);
}

/*
 * Same flow, level by level from the outside in: the identity
 * gro_list_prepare() (MAC header and VLAN tags), inet_gro_receive()
 * (protocol, addresses), ipv6_gro_receive() (version, flow label, next
 * header, addresses, extension headers byte for byte) and
 * tcp_gro_lookup()/udp_gro_receive_segment() (ports) check. A level inside
 * a UDP tunnel: the tunnel's ports are the outer level's, "both checksums
 * zero or both not" is udp_gro_receive()'s, and what follows the UDP
 * header up to the inner IP header, the tunnel header
 * (vxlan_gro_prepare_receive(): flags and VNI) and the inner MAC header
 * (eth_gro_receive()), is compared whole. A difference here makes another
 * flow, not a flush.
 */
static bool xrx_same_flow(const struct xrx_agg *a, const struct xrx_seg *s)
{
	const __u8 *h = a->head, *d = s->data;
	__u32 i, o4;

	if (a->nr_lvls != s->nr_lvls || a->pkt.l4_proto != s->l4_proto ||
	    a->vlan_all != s->vlan_all ||	/* gro_list_prepare() */
	    !xrx_lvl_same_flow(h, d, &s->lvl[0], &a->lvl[0], 0))
		return false;
	for (i = 1; i < s->nr_lvls; i++) {
		o4 = s->lvl[i - 1].l4_off;
		if (!xrx_get16(h + o4 + XRX_UDPH_CHECK) !=
			    !xrx_get16(d + o4 + XRX_UDPH_CHECK) ||
		    !xrx_lvl_same_flow(h, d, &s->lvl[i], &a->lvl[i],
				       o4 + XRX_UDPH_LEN))
			return false;
	}
	return true;
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
 * What inet_gro_flush() / ipv6_gro_flush() find on one level. Their
 * counters are in this order: flush_ttl .. flush_ipid for the innermost
 * level, flush_outer_ttl .. flush_outer_ipid for a tunnel's outer one.
 */
enum xrx_ip_flush { XRX_IPF_NONE, XRX_IPF_TTL, XRX_IPF_TOS, XRX_IPF_DF,
		    XRX_IPF_ID };

#define XRX_IPF_STAT(first, why) ((first) + (why) - XRX_IPF_TTL)

XRX_STATIC_ASSERT(XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_TTL, XRX_IPF_TOS) ==
			  XRX_ENGINE_STAT_FLUSH_TOS &&
		  XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_TTL, XRX_IPF_DF) ==
			  XRX_ENGINE_STAT_FLUSH_DF &&
		  XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_TTL, XRX_IPF_ID) ==
			  XRX_ENGINE_STAT_FLUSH_IPID,
		  "flush_ttl .. flush_ipid in enum xrx_ip_flush's order");
XRX_STATIC_ASSERT(XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_OUTER_TTL, XRX_IPF_TOS) ==
			  XRX_ENGINE_STAT_FLUSH_OUTER_TOS &&
		  XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_OUTER_TTL, XRX_IPF_DF) ==
			  XRX_ENGINE_STAT_FLUSH_OUTER_DF &&
		  XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_OUTER_TTL, XRX_IPF_ID) ==
			  XRX_ENGINE_STAT_FLUSH_OUTER_IPID,
		  "flush_outer_* in enum xrx_ip_flush's order");

/*
 * inet_gro_flush() / ipv6_gro_flush() on level @l of the segment (whose
 * ip_fixedid bit is @bit): network header fields that must not change
 * within an aggregate, and the IP ID rule. Return: enum xrx_ip_flush.
 */
static __always_inline enum xrx_ip_flush xrx_ip_flush(struct xrx_agg *a,
						      const struct xrx_seg *s,
						      const struct xrx_lvl *l,
						      __u8 bit)
{
	const __u8 *iph = s->data + l->l3_off, *iph2 = a->head + l->l3_off;

	if (l->ipv6) {
		if (unlikely((xrx_get32(iph + XRX_IP6H_VTF) ^
			      xrx_get32(iph2 + XRX_IP6H_VTF)) &
			     XRX_IP6_TCLASS_MASK))
			return XRX_IPF_TOS;
		if (unlikely(iph[XRX_IP6H_HOP_LIMIT] !=
			     iph2[XRX_IP6H_HOP_LIMIT]))
			return XRX_IPF_TTL;
		return XRX_IPF_NONE;
	}
	if (unlikely(iph[XRX_IPH_TTL] != iph2[XRX_IPH_TTL]))
		return XRX_IPF_TTL;
	if (unlikely(iph[XRX_IPH_TOS] != iph2[XRX_IPH_TOS]))
		return XRX_IPF_TOS;
	if (unlikely((xrx_get16(iph + XRX_IPH_FRAG_OFF) ^
		      xrx_get16(iph2 + XRX_IPH_FRAG_OFF)) & XRX_IP_DF))
		return XRX_IPF_DF;
	if (unlikely(xrx_ipid_flush(xrx_get16(iph + XRX_IPH_ID),
				    xrx_get16(iph2 + XRX_IPH_ID), a->count,
				    &a->fixedid, bit)))
		return XRX_IPF_ID;
	return XRX_IPF_NONE;
}

/*
 * gro_receive_network_flush(): every level's network header, outside in
 * (the outer one of a tunnel first, with its own counters; no DF
 * exemption for it: Linux 6.18 checks the outer ID with DF set too).
 * Return: 0, or the flush counter.
 */
static __always_inline int xrx_network_flush(struct xrx_agg *a,
					     const struct xrx_seg *s)
{
	__u32 i, in = s->nr_lvls - 1;
	enum xrx_ip_flush why;

	for (i = 0; i < in; i++) {
		why = xrx_ip_flush(a, s, &s->lvl[i], 1u << i);
		if (unlikely(why))
			return XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_OUTER_TTL,
					    why);
	}
	why = xrx_ip_flush(a, s, &s->lvl[in], 1u << in);
	return why ? XRX_IPF_STAT(XRX_ENGINE_STAT_FLUSH_TTL, why) : 0;
}

/*
 * skb_gro_receive()'s refusal, after every other check as in the kernel:
 * a segment the network layer flagged (length mismatch, reserved bit, on
 * any level), or one that does not fit the aggregate's limit.
 */
static int xrx_size_flush(const struct xrx_agg *a, const struct xrx_seg *s)
{
	if (unlikely(s->ip_flush))
		return XRX_ENGINE_STAT_FLUSH_IP_HDR;
	if (unlikely(xrx_too_big(a->held_len, s->payload_len, a->limit)))
		return XRX_ENGINE_STAT_FLUSH_SIZE;
	return 0;
}

/*
 * A segment lost or reordered on the way also breaks an incrementing IP
 * ID, as senders number every segment. tcp_gro_receive() flushes for
 * both alike (it ORs its checks); the reason named is the gap, the cause
 * the engineer is after, and not the ID it dragged along. Out of line:
 * only a flush gets here, and inline it cost the merge path instructions.
 */
static __attribute__((noinline, cold)) int
xrx_gap_first(const struct xrx_agg *a, const struct xrx_seg *s, int why)
{
	if ((why == XRX_ENGINE_STAT_FLUSH_IPID ||
	     why == XRX_ENGINE_STAT_FLUSH_OUTER_IPID) &&
	    xrx_tcp_seq_flush(a, xrx_get32(s->data + s->l4_off + XRX_TCPH_SEQ),
			      s->payload_len) == XRX_ENGINE_STAT_FLUSH_SEQ)
		return XRX_ENGINE_STAT_FLUSH_SEQ;
	return why;
}

/* tcp_gro_receive(): every check before the merge. Return: 0 or why not. */
static int xrx_tcp_flush(struct xrx_agg *a, const struct xrx_seg *s)
{
	const __u8 *th = s->data + s->l4_off, *th2 = a->head + s->l4_off;
	/* tcp_flag_word(): doff, reserved bits, flags and window */
	__u32 flags = xrx_get32(th + XRX_TCPH_DOFF), diff;
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
			     s->headlen - s->l4_off - XRX_TCPH_LEN))
		return XRX_ENGINE_STAT_FLUSH_OPTS;
	why = xrx_network_flush(a, s);
	if (unlikely(why))
		return xrx_gap_first(a, s, why);
	why = xrx_tcp_seq_flush(a, xrx_get32(th + XRX_TCPH_SEQ),
				s->payload_len);
	if (unlikely(why))
		return why;
	return xrx_size_flush(a, s);
}

/* udp_gro_receive_segment(): every check before the merge. */
static int xrx_udp_flush(struct xrx_agg *a, const struct xrx_seg *s)
{
	int why = xrx_network_flush(a, s);

	if (why)
		return why;
	if (s->payload_len > a->mss)	/* ulen > ntohs(uh2->len) */
		return XRX_ENGINE_STAT_FLUSH_UDP_LEN;
	return xrx_size_flush(a, s);
}

/*
 * After a merge: does the aggregate end here? tcp_gro_receive()'s
 * out_check_final (URG/PSH/RST/SYN/FIN, or shorter than mss), the UDP
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
	return xrx_complete_len(s->payload_len, a->mss, a->count, max);
}

static void xrx_gro_merge(struct xrx_engine *e, struct xrx_agg *a,
			  const struct xrx_seg *s)
{
	int done;

	xrx_head_append(e, a, s);
	xrx_agg_seg_time(a, a->count, s->ts_ns, s->ts_nic);
	xrx_agg_grow(e, a, 1, s->payload_len);
	a->seg_csum_ok &= s->csum_ok;
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

/*
 * skb_gro_receive()'s limit for an aggregate: gro_max_size (max_aggregate),
 * and beyond GRO_LEGACY_MAX_SIZE only TCP outside a tunnel grows (BIG
 * TCP): "NAPI_GRO_CB(skb)->proto != IPPROTO_TCP || p->encapsulation".
 */
static __u32 xrx_agg_limit(const struct xrx_engine *e,
			   const struct xrx_seg *s)
{
	if ((s->l4_proto == XRX_IPPROTO_TCP && s->nr_lvls == 1) ||
	    e->limit < XRX_GRO_LEGACY_MAX)
		return e->limit;
	return XRX_GRO_LEGACY_MAX;
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
	a->fixedid = 0;
	a->nr_lvls = s->nr_lvls;
	memcpy(a->lvl, s->lvl, sizeof(a->lvl));
	a->mss = s->payload_len;
	a->payload = s->payload_len;
	/* p->len: from the end of the Ethernet header, in-band VLAN tags
	 * included (GRO runs before skb_vlan_untag()); out-of-band tags are
	 * not in the frame at all. A tunnel's is counted from its outer IP
	 * header. */
	a->held_len = s->len - (s->nr_lvls > 1 ? s->lvl[0].l3_off :
						 XRX_ETH_HLEN);
	a->limit = xrx_agg_limit(e, s);
	a->born_ns = now_ns;
	a->seg_ts[0] = s->ts_ns;
	a->pkt.ts_ns = s->ts_ns;
	a->pkt.ts_last_ns = s->ts_ns;
	a->pkt.ts_flags = s->ts_nic ? XRX_PKT_TS_NIC | XRX_PKT_TS_NIC_LAST : 0;
	a->seg_csum_ok = s->csum_ok;
	a->pkt.csum = s->csum_ok ? XRX_PKT_CSUM_UNNECESSARY : XRX_PKT_CSUM_NONE;
	if (s->csum_partial) {
		/* Alone, it goes out as it came: CHECKSUM_PARTIAL, for the
		 * stack behind the sink to finish (NEEDS_CSUM to a TUN), as
		 * the veth would have handed it to the kernel. Merged, the
		 * completion writes the aggregate's own pseudo-header sum. */
		a->pkt.csum = XRX_PKT_CSUM_PARTIAL;
		a->pkt.csum_start = s->l4_off;
		a->pkt.csum_offset = s->l4_proto == XRX_IPPROTO_TCP ?
					     XRX_TCPH_CHECK : XRX_UDPH_CHECK;
	}
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
	struct xrx_agg *a = xrx_gro_table_crowded(&e->table, s->hash);

	if (a)		/* gro_flush_oldest(): the bucket's oldest */
		xrx_deliver(e, a, XRX_ENGINE_STAT_FLUSH_BUCKET_FULL);
	else if (e->table.held >= e->table.max)	/* ... the table's */
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
		why = s->l4_proto == XRX_IPPROTO_TCP ? xrx_tcp_flush(a, s) :
						       xrx_udp_flush(a, s);
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
