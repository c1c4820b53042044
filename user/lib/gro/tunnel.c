// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * UDP tunnel GRO: TCP inside VXLAN or GENEVE over IPv4 or IPv6,
 * aggregated as Linux does it. The kinds are rows of one table
 * (xrx_tnl_descs[] below); VXLAN's path is described here, GENEVE's
 * differs only in its gro_receive hook (geneve_gro_receive()). Tunnel code is two stages around the common rules: an entry
 * stage that checks the outer headers and moves the segment on to the
 * frame inside, as a second header level (gro.h), and an exit stage that
 * completes the UDP header around it. Everything in between is the plain
 * path's, run over both levels.
 *
 * The kernel's path for such a frame, and where each step is here:
 *
 *   inet_gro_receive()       outer IPv4: 0x45, ip_fast_csum(), length and
 *                            frag_off flush; protocol and addresses make
 *                            the flow             xrx_tnl_frame(), receive.c
 *   ipv6_gro_receive()       outer IPv6: payload_len flush; version, flow
 *                            label, next header, addresses make the flow
 *   udp4/6_gro_receive()     outer UDP checksum checked unless zero or
 *                            already flushing            xrx_tnl_frame()
 *   udp_gro_receive()        ports, and "both checksums zero or both
 *                            not", make the flow                  receive.c
 *   vxlan_gro_prepare_receive()  flags word and VNI word make the flow
 *   eth_gro_receive()        inner Ethernet header makes the flow; an
 *                            ethertype without GRO goes alone
 *   inet/ipv6_gro_receive()  the inner network layer, as for plain frames
 *   tcp4/6_gro_receive()     inner TCP checksum (from the outer UDP sum,
 *                            csum.c), then tcp_gro_receive() whose
 *                            gro_receive_network_flush() checks the outer
 *                            IP header and then the inner one      receive.c
 *   skb_gro_receive()        the size limit: p->encapsulation keeps it
 *                            within 64 KiB                         receive.c
 *   udp4/6_gro_complete(), udp_gro_complete(), vxlan_gro_complete(),
 *   inet/ipv6_gro_complete() outer tot_len and header checksum or
 *                            payload_len (complete.c), UDP length, UDP
 *                            checksum                 xrx_tnl_complete()
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

/*
 * The tunnel kinds, one row each (enum xrx_tnl_kind): everything the
 * engine needs to know about a kind. The outer rules, the levels and the
 * completion of the UDP header are common to all; the kernel too runs
 * them in udp_gro_receive()/udp_gro_complete() for every UDP tunnel
 * socket, and a kind only adds its gro_receive hook (the header parse,
 * xrx_parse_tnl_at()) and its gro_complete (nothing to fix in the tunnel
 * header for either kind). GENEVE's rules (drivers/net/geneve.c,
 * geneve_gro_receive()): version 0 and no OAM, or the frame goes alone
 * (flush, the held aggregate untouched); the whole header with its
 * options (and the critical bit, the protocol type, the VNI) is compared
 * byte for byte, a difference is another flow, which xrx_same_flow()
 * does by comparing everything between the UDP and the inner IP header;
 * protocol type ETH_P_TEB leads into eth_gro_receive().
 */
const struct xrx_tnl_desc xrx_tnl_descs[XRX_TNL_KINDS] = {
	[XRX_TNL_K_VXLAN] = {
		.name = XRX_TNL_NAME_VXLAN,
		.iana_port = XRX_VXLAN_PORT,
		.ports_off = offsetof(struct xrx_engine_opts, vxlan_ports),
		.nr_ports_off = offsetof(struct xrx_engine_opts,
					 nr_vxlan_ports),
		.frames_in = XRX_ENGINE_STAT_VXLAN_FRAMES_IN,
		.aggs_out = XRX_ENGINE_STAT_VXLAN_AGGS_OUT,
		.single_short = XRX_ENGINE_STAT_SINGLE_VXLAN_SHORT,
		.single_alone = XRX_ENGINE_STAT_SINGLE_VXLAN_SHORT,
		.single_proto = XRX_ENGINE_STAT_SINGLE_VXLAN_INNER,
		.single_inner = XRX_ENGINE_STAT_SINGLE_VXLAN_INNER,
	},
	[XRX_TNL_K_GENEVE] = {
		.name = XRX_TNL_NAME_GENEVE,
		.iana_port = XRX_GENEVE_PORT,
		.ports_off = offsetof(struct xrx_engine_opts, geneve_ports),
		.nr_ports_off = offsetof(struct xrx_engine_opts,
					 nr_geneve_ports),
		.frames_in = XRX_ENGINE_STAT_GENEVE_FRAMES_IN,
		.aggs_out = XRX_ENGINE_STAT_GENEVE_AGGS_OUT,
		.single_short = XRX_ENGINE_STAT_SINGLE_GENEVE_SHORT,
		.single_alone = XRX_ENGINE_STAT_SINGLE_GENEVE_OAM,
		.single_proto = XRX_ENGINE_STAT_SINGLE_GENEVE_PROTO,
		.single_inner = XRX_ENGINE_STAT_SINGLE_GENEVE_INNER,
	},
};

static const __u16 *xrx_tnl_ports(const struct xrx_engine_opts *o, int k,
				  __u32 *n)
{
	const struct xrx_tnl_desc *d = &xrx_tnl_descs[k];

	*n = *(const __u32 *)((const char *)o + d->nr_ports_off);
	return (const __u16 *)((const char *)o + d->ports_off);
}

/* The kind @port of a UDP frame leads to, or -1 for none. */
static int xrx_tnl_port(const struct xrx_engine *e, __u16 port)
{
	const __u16 *ports;
	__u32 i, n;
	int k;

	for (k = 0; k < XRX_TNL_KINDS; k++) {
		ports = xrx_tnl_ports(&e->opts, k, &n);
		for (i = 0; i < n; i++)
			if (ports[i] == port)
				return k;
	}
	return -1;
}

/*
 * At creation: a port carries one kind (the kernel has one socket per
 * port). Return: 0, or -EINVAL; *@any: some tunnel port is set.
 */
int xrx_tnl_opts_check(const struct xrx_engine_opts *o, bool *any)
{
	const __u16 *p, *q;
	__u32 i, j, n, m;
	int k, l;

	*any = false;
	for (k = 0; k < XRX_TNL_KINDS; k++) {
		p = xrx_tnl_ports(o, k, &n);
		*any |= n > 0;
		for (l = k + 1; l < XRX_TNL_KINDS; l++) {
			q = xrx_tnl_ports(o, l, &m);
			for (i = 0; i < n; i++)
				for (j = 0; j < m; j++)
					if (p[i] == q[j])
						return -EINVAL;
		}
	}
	return 0;
}

/*
 * udp4/6_gro_receive(): skb_gro_checksum_validate_zero_check() over the
 * @ulen bytes of the outer UDP datagram at level @o. Their plain sum
 * stays with the segment, as skb_gro_checksum_try_convert() leaves
 * CHECKSUM_COMPLETE for the inner check (xrx_l4_csum_ok()), which so
 * does not read the payload a second time.
 */
static bool xrx_tnl_udp_csum_ok(struct xrx_seg *s, const struct xrx_lvl *o,
				__u32 ulen)
{
	__u32 body = xrx_csum_add_seg(s, o->l4_off, ulen, 0);

	if (xrx_csum_fold(xrx_csum_pseudo(s->data + o->l3_off, o->ipv6,
					  XRX_IPPROTO_UDP, ulen) +
			  xrx_csum_fold(body)) != 0xffff)
		return false;
	s->sum = body;
	s->sum_off = o->l4_off;
	s->sum_ok = true;
	return true;
}

/*
 * The entry stage. A frame the engine parsed (or took from xrx_meta) that
 * is UDP over IPv4, or over IPv6 without extension headers, to a tunnel
 * port (VXLAN's or GENEVE's): its outer headers are checked, outside in, in the kernel's order,
 * and the segment moves on to the frame inside: hdrs describe the inner
 * frame and a second level is entered, whose rules are the plain ones
 * (engine.c, receive.c). An outer flush condition flushes the inner frame too
 * (udp_gro_receive(): NAPI_GRO_CB(skb)->flush).
 * Return: 0 (also for a frame that is no VXLAN, left untouched), or the
 * single_* / csum_bad counter of a frame that goes alone.
 */
int xrx_tnl_frame(struct xrx_engine *e, struct xrx_seg *s)
{
	const struct xrx_lvl *o = &s->lvl[0];
	const __u8 *oh = s->data + s->l3_off;
	const struct xrx_tnl_desc *d;
	struct xrx_parsed outer;
	struct xrx_tnl_parsed t;
	__u32 ip_len;
	bool flush;
	int tr, k;

	if (s->result != XRX_PARSE_L4 || s->l4_proto != XRX_IPPROTO_UDP ||
	    (s->flags & XRX_META_F_IPV6_EXT))
		return 0;
	k = xrx_tnl_port(e, xrx_get16(s->data + s->l4_off + XRX_UDPH_DEST));
	if (k < 0)
		return 0;
	d = &xrx_tnl_descs[k];
	memset(&outer, 0, sizeof(outer));
	outer.hdrs = s->hdrs;
	tr = xrx_parse_tnl(s->data, s->first_len, s->len, &outer, k, &t,
			   &e->opts.hash_key);
	xrx_count(e, d->frames_in);

	if (o->ipv6) {
		/* ipv6_gro_receive(): only payload_len is checked */
		ip_len = XRX_IP6H_LEN + xrx_get16(oh + XRX_IP6H_PAYLOAD_LEN);
		flush = s->l3_off + ip_len != s->len;
	} else {
		if (s->flags & XRX_META_F_IPV4_OPT)	/* *(u8 *)iph != 0x45 */
			return XRX_ENGINE_STAT_SINGLE_IP_OPTS;
		if (!xrx_ipv4_csum_ok(oh))
			return XRX_ENGINE_STAT_CSUM_BAD;
		ip_len = xrx_get16(oh + XRX_IPH_TOT_LEN);
		flush = s->l3_off + ip_len != s->len ||
			(xrx_get16(oh + XRX_IPH_FRAG_OFF) & XRX_IP_RF);
	}
	/* Offsets from xrx_meta are only as good as the program that wrote
	 * them: the outer rules read a fixed-size IP header. */
	if (s->l3_off + ip_len > s->len ||
	    s->l3_off + ip_len < (__u32)s->l4_off + XRX_UDPH_LEN ||
	    s->l4_off < s->l3_off + (o->ipv6 ? XRX_IP6H_LEN : XRX_IPH_LEN))
		return XRX_ENGINE_STAT_SINGLE_MALFORMED;
	/* "Don't bother verifying checksum if we're going to flush anyway" */
	if (e->opts.csum == XRX_CSUM_VERIFY && !flush &&
	    xrx_get16(s->data + s->l4_off + XRX_UDPH_CHECK) &&
	    !xrx_tnl_udp_csum_ok(s, o, s->l3_off + ip_len - s->l4_off))
		return XRX_ENGINE_STAT_CSUM_BAD;
	/* The kind's gro_receive: vxlan_gro_prepare_receive() or
	 * geneve_gro_receive() returning without a protocol to go on to. */
	if (tr == XRX_TNL_SHORT)
		return d->single_short;
	if (tr == XRX_TNL_ALONE)
		return d->single_alone;
	if (tr == XRX_TNL_NOT_ETH)
		return d->single_proto;

	/* From here on the inner frame is what the GRO rules look at. */
	s->hdrs = t.inner.hdrs;
	s->lvl[0].tnl = k + 1;
	xrx_seg_enter(s, 1, t.inner_mac_off);
	s->ip_flush = flush;
	return 0;
}

/*
 * The exit stage, after complete.c fixed the inner headers and the IP
 * header of level @l: the UDP header around the next level, as
 * udp4/6_gro_complete() (a non-zero checksum becomes the pseudo-header
 * sum, ~udp_v4_check(len, saddr, daddr, 0) or ~udp_v6_check()) ->
 * udp_gro_complete() (UDP length; gso_type SKB_GSO_UDP_TUNNEL_CSUM if the
 * checksum is non-zero, else SKB_GSO_UDP_TUNNEL) -> vxlan_gro_complete()
 * -> eth_gro_complete() leave it.
 * Return: the gso_flags of the tunnel.
 */
__u8 xrx_tnl_complete(struct xrx_engine *e, struct xrx_agg *a,
		      const struct xrx_lvl *l)
{
	__u8 *uh = a->head + l->l4_off;
	__u32 ulen = a->pkt.len - l->l4_off;

	xrx_count(e, xrx_tnl_descs[l->tnl - 1].aggs_out);
	xrx_put16(uh + XRX_UDPH_LEN_OFF, ulen);
	if (!xrx_get16(uh + XRX_UDPH_CHECK))
		return XRX_GSO_F_UDP_TUNNEL;
	xrx_put16(uh + XRX_UDPH_CHECK,
		  xrx_csum_fold(xrx_csum_pseudo(a->head + l->l3_off, l->ipv6,
						XRX_IPPROTO_UDP, ulen)));
	return XRX_GSO_F_UDP_TUNNEL_CSUM;
}
