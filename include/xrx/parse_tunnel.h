/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * VXLAN (RFC 7348) on top of the one header parser (include/xrx/parse.h):
 * given a frame whose outer headers xrx_parse() read as UDP to a port the
 * caller configured for VXLAN, read the VXLAN header and parse the inner
 * Ethernet frame (up to two VLAN tags, IPv4/IPv6, TCP/UDP) with the same
 * xrx_parse(), shifted to the inner frame.
 *
 * The kernel finds VXLAN the same way: udp4_gro_receive() looks up the UDP
 * socket of the destination port (udp4_gro_lookup_skb()), and only a
 * socket with a gro_receive hook (a VXLAN device's, on its dstport) leads
 * into vxlan_gro_receive(). Which ports those are is configuration, so the
 * caller decides; this header only parses.
 *
 * Everything here reads the same window as xrx_parse() and uses its masked
 * reads, so it can run in BPF too; the userspace engine is its first user.
 */
#ifndef XRX_PARSE_TUNNEL_H
#define XRX_PARSE_TUNNEL_H

#include <xrx/parse.h>

#define XRX_VXLAN_HLEN 8
#define XRX_VXLAN_PORT 4789	/* IANA */
#define XRX_VXLAN_F_VNI 0x08	/* "I" flag, first byte of the header */

enum xrx_tnl_result {
	XRX_TNL_NONE = 0,	/* not a UDP frame that can carry VXLAN */
	XRX_TNL_VXLAN,		/* VXLAN; @inner holds the inner parse */
	XRX_TNL_SHORT,		/* VXLAN port, but no room for the VXLAN and
				 * inner Ethernet headers */
};

struct xrx_tnl_parsed {
	struct xrx_parsed inner;	/* offsets from the outer frame start */
	__u32 vni;			/* 24 bits, host order */
	__u16 outer_l3_off;
	__u16 outer_l4_off;		/* the outer UDP header */
	__u16 vxlan_off;
	__u16 inner_mac_off;		/* the inner Ethernet header */
};

/*
 * xrx_parse_vxlan() - parse the VXLAN header and the inner frame.
 * @p, @len, @wire: as for xrx_parse()
 * @outer:          xrx_parse()'s result for the frame, XRX_PARSE_L4
 * @t:              result; every field is written (zero where parsing
 *                  did not get)
 *
 * An outer IPv4 (any length) or IPv6 header with UDP qualifies. The
 * VXLAN flags are not judged here
 * (vxlan_gro_receive() does not either: it only compares them). The inner
 * parse result (t->inner.result) says whether the inner frame is TCP/UDP;
 * its headlen, l3_off and l4_off count from the start of the outer frame,
 * and its hash covers the outer hash, the VNI and the inner flow.
 *
 * Return: enum xrx_tnl_result.
 */
static __always_inline int xrx_parse_vxlan(const __u8 *p, __u32 len,
					   __u32 wire,
					   const struct xrx_parsed *outer,
					   struct xrx_tnl_parsed *t)
{
	__u32 off, h;

	__builtin_memset(t, 0, sizeof(*t));
	if (outer->result != XRX_PARSE_L4 || outer->l4_proto != 17)
		return XRX_TNL_NONE;
	if (len > XRX_PARSE_WINDOW || len > wire)
		len = xrx_min32(wire, XRX_PARSE_WINDOW);
	off = outer->l4_off + XRX_UDPH_LEN;
	t->outer_l3_off = outer->l3_off;
	t->outer_l4_off = outer->l4_off;
	t->vxlan_off = off;
	t->inner_mac_off = off + XRX_VXLAN_HLEN;
	if (off + XRX_VXLAN_HLEN + XRX_ETH_HLEN > len)
		return XRX_TNL_SHORT;
	t->vni = xrx_get32(p + off + 4) >> 8;
	off += XRX_VXLAN_HLEN;

	/* The inner frame is a frame of its own: parse it where it starts
	 * and move its offsets to the outer frame's. */
	xrx_parse(p + off, len - off, wire - off, &t->inner);
	t->inner.headlen += off;
	if (t->inner.l3_off)	/* 0: parsing stopped before L3 */
		t->inner.l3_off += off;
	if (t->inner.l4_off)
		t->inner.l4_off += off;

	h = xrx_hash_mix(outer->hash, t->vni);
	t->inner.hash = xrx_hash_mix(h, t->inner.hash);
	return XRX_TNL_VXLAN;
}

#endif /* XRX_PARSE_TUNNEL_H */
