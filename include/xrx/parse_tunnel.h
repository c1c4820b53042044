/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * UDP tunnels on top of the one header parser (include/xrx/parse.h):
 * given a frame whose outer headers xrx_parse() read as UDP to a port the
 * caller configured for a tunnel kind (VXLAN, RFC 7348; GENEVE, RFC 8926),
 * read the tunnel header and parse the inner Ethernet frame (up to two
 * VLAN tags, IPv4/IPv6, TCP/UDP) with the same xrx_parse(), shifted to
 * the inner frame. What differs between the kinds is the tunnel header
 * alone: its length, and what keeps a frame out of GRO.
 *
 * The kernel finds VXLAN the same way: udp4_gro_receive() looks up the UDP
 * socket of the destination port (udp4_gro_lookup_skb()), and only a
 * socket with a gro_receive hook (a VXLAN device's, on its dstport) leads
 * into vxlan_gro_receive(). Which ports those are is configuration, so the
 * caller decides; this header only parses.
 *
 * Everything here reads the same window as xrx_parse() and uses its masked
 * reads, so it runs in BPF too: the parser differential
 * (tests/bpf/test_parse_diff.c) holds the two builds to the same result.
 */
#ifndef XRX_PARSE_TUNNEL_H
#define XRX_PARSE_TUNNEL_H

#include <xrx/parse.h>
#include <xrx/tunnel.h>

#define XRX_VXLAN_HLEN 8
#define XRX_VXLAN_PORT 4789	/* IANA */
#define XRX_VXLAN_F_VNI 0x08	/* "I" flag, first byte of the header */
#define XRX_VXLAN_VNI 4		/* VNI in the word's high 24 bits */

enum xrx_tnl_result {
	XRX_TNL_NONE = 0,	/* not a UDP frame that can carry a tunnel */
	XRX_TNL_VXLAN,		/* the tunnel header is read (any kind, the
				 * name is VXLAN's, the first); @inner holds
				 * the inner parse */
	XRX_TNL_SHORT,		/* tunnel port, but no room for the tunnel
				 * and inner Ethernet headers */
	XRX_TNL_ALONE,		/* GENEVE version not 0, or OAM set:
				 * geneve_gro_receive() leaves it alone */
	XRX_TNL_NOT_ETH,	/* GENEVE protocol type none of Ethernet
				 * (ETH_P_TEB), IPv4, IPv6: nothing GRO
				 * knows inside */
};

struct xrx_tnl_parsed {
	struct xrx_parsed inner;	/* offsets from the outer frame start */
	__u32 vni;			/* 24 bits, host order */
	__u16 outer_l3_off;
	__u16 outer_l4_off;		/* the outer UDP header */
	__u16 vxlan_off;		/* the tunnel header (any kind) */
	__u16 inner_mac_off;		/* the inner Ethernet header; IP in
					 * GENEVE without one: the inner IP
					 * header, inner.l3_off */
};

/*
 * The BPF copy of the window (xrx_rx's scratch buffer) must hold every
 * masked read of the inner parse: the inner window starts at most
 * XRX_PARSE_WINDOW bytes in, and xrx_parse_at() reads up to
 * XRX_PARSE_SCRATCH bytes beyond its start.
 */
#define XRX_TNL_SCRATCH (XRX_PARSE_WINDOW + XRX_PARSE_SCRATCH)

/*
 * The flow hash of the frame inside a tunnel: the outer flow's hash and
 * the VNI as one more SipHash word in front of the inner flow's message
 * (xrx_flow_absorb()), so the same inner flow in two tunnels falls apart,
 * and nothing about the tunnel is hashed without the key.
 */
static __always_inline __u32 xrx_tnl_flow_hash(const struct xrx_parsed *inner,
					       const struct xrx_hash_key *key,
					       __u32 outer_hash, __u32 vni)
{
	struct xrx_sip s;

	xrx_sip_init(&s, key);
	xrx_sip_word(&s, (__u64)outer_hash << 32 | vni);
	return xrx_flow_final(&s, inner, 1 + xrx_flow_absorb(&s, inner));
}

/*
 * xrx_parse_tnl_at() - parse a tunnel header and the inner frame.
 * @w, @kind, @len, @wire: the window, as for xrx_parse_at()
 * @outer:  xrx_parse_at()'s result for the frame, XRX_PARSE_L4
 * @tkind:  enum xrx_tnl_kind, a constant at each call but xrx_rx's
 *          (xrx_parse_tnl_copy())
 * @t:      result; every field is written (zero where parsing did not get)
 * @key:    as for xrx_parse_at(): the flow hash key, to compute
 *          t->inner.hash (which covers @outer->hash too), or NULL to leave
 *          it 0; NULL or not is a constant at each call
 *
 * An outer IPv4 (any length) or IPv6 header with UDP qualifies. The
 * VXLAN flags are not judged here
 * (vxlan_gro_receive() does not either: it only compares them). GENEVE:
 * the header is 8 bytes and its options; a version other than 0 or the
 * OAM bit is XRX_TNL_ALONE and a protocol type other than ETH_P_TEB,
 * IPv4 or IPv6 XRX_TNL_NOT_ETH, as geneve_gro_receive() takes neither
 * into the protocol's gro_receive (the critical bit and the options are
 * only compared, by the caller, as part of the flow). IPv4 or IPv6 is
 * parsed as the inner frame's network header, without an Ethernet
 * header (inner_mac_off is then inner.l3_off), as
 * geneve_gro_receive() hands it to inet/ipv6_gro_receive(). The inner
 * parse result (t->inner.result) says whether the inner frame is TCP/UDP;
 * its headlen, l3_off and l4_off count from the start of the outer frame,
 * and its hash (with @key) covers the outer hash, the VNI and the inner
 * flow: one SipHash over all three (xrx_tnl_flow_hash()).
 *
 * The inner frame is parsed by xrx_parse_at() on a window of its own that
 * starts at the inner Ethernet header, inside the outer window. In BPF
 * that start is a pointer with a variable offset, bounded by masking it
 * with XRX_PARSE_WINDOW - 1 (a no-op: the length check before it keeps
 * it below XRX_PARSE_WINDOW); a scratch copy must therefore be
 * XRX_TNL_SCRATCH bytes long, and a packet window is checked against
 * data_end on every read as the outer parse is. As for xrx_parse_pkt(),
 * an inner result of XRX_PARSE_TOO_LONG from a packet window shorter
 * than min(@wire, XRX_PARSE_WINDOW) means: parse a copy instead.
 *
 * Return: enum xrx_tnl_result.
 */
static __always_inline int xrx_parse_tnl_at(const struct xrx_win *w,
					    int kind, __u32 len, __u32 wire,
					    const struct xrx_parsed *outer,
					    int tkind,
					    struct xrx_tnl_parsed *t,
					    const struct xrx_hash_key *key)
{
	struct xrx_win iw;
	__u32 off, hlen = XRX_VXLAN_HLEN, w0 = 0, ip = 0;

	__builtin_memset(t, 0, sizeof(*t));
	if (outer->result != XRX_PARSE_L4 || outer->l4_proto != XRX_IPPROTO_UDP)
		return XRX_TNL_NONE;
	if (len > XRX_PARSE_WINDOW || len > wire)
		len = xrx_min32(wire, XRX_PARSE_WINDOW);
	off = outer->l4_off + XRX_UDPH_LEN;
	t->outer_l3_off = outer->l3_off;
	t->outer_l4_off = outer->l4_off;
	t->vxlan_off = off;
	if (tkind == XRX_TNL_K_GENEVE) {
		if (off + XRX_GENEVE_HLEN > len)
			return XRX_TNL_SHORT;
		w0 = xrx_be32(XRX_LOAD(w, kind, off, __u32));
		hlen = XRX_GENEVE_HLEN + 4 * ((w0 >> 24) & XRX_GENEVE_OPTLEN);
	}
	t->inner_mac_off = off + hlen;
	if (off + hlen + XRX_ETH_HLEN > len)
		return XRX_TNL_SHORT;
	t->vni = xrx_be32(XRX_LOAD(w, kind, off + XRX_VXLAN_VNI, __u32)) >> 8;
	if (tkind == XRX_TNL_K_GENEVE) {
		/* geneve_gro_receive(): the order it checks them in */
		if ((w0 >> 24) & XRX_GENEVE_VER ||
		    (w0 >> 16) & XRX_GENEVE_F_OAM)
			return XRX_TNL_ALONE;
		ip = w0 & 0xffff;
		if (ip == XRX_ETH_P_TEB)
			ip = 0;
		else if (ip != XRX_ETH_P_IP && ip != XRX_ETH_P_IPV6)
			return XRX_TNL_NOT_ETH;
	}
	/* IP without Ethernet: the inner window starts XRX_ETH_HLEN bytes
	 * before its IP header (inside the tunnel header, which is longer)
	 * and the parser takes them for an Ethernet header of type @ip. */
	off = off + hlen - (ip ? XRX_ETH_HLEN : 0);
	off &= XRX_PARSE_WINDOW - 1;

	/* The inner frame is a frame of its own: parse it where it starts
	 * and move its offsets to the outer frame's. */
	iw.p = w->p + off;
	iw.end = w->end;
	xrx_parse_proto_at(&iw, kind, len - off, wire - off, &t->inner, NULL,
			   ip);
	t->inner.headlen += off;
	if (t->inner.l3_off)	/* 0: parsing stopped before L3 */
		t->inner.l3_off += off;
	if (t->inner.l4_off)
		t->inner.l4_off += off;

	if (key)
		t->inner.hash = xrx_tnl_flow_hash(&t->inner, key, outer->hash,
						  t->vni);
	return XRX_TNL_VXLAN;

	/* The VNI read of a packet window, as in xrx_parse_at(): never. */
xrx_out_of_window: __attribute__((unused));
	return XRX_TNL_SHORT;
}

/* VXLAN, the first kind: what xrx_rx and its tests call. */
static __always_inline int xrx_parse_vxlan_at(const struct xrx_win *w,
					      int kind, __u32 len, __u32 wire,
					      const struct xrx_parsed *outer,
					      struct xrx_tnl_parsed *t,
					      const struct xrx_hash_key *key)
{
	return xrx_parse_tnl_at(w, kind, len, wire, outer, XRX_TNL_K_VXLAN, t,
				key);
}

/* The window is a buffer (userspace, or BPF's scratch copy); @key as for
 * xrx_parse(). */
static __always_inline int xrx_parse_tnl(const __u8 *p, __u32 len,
					 __u32 wire,
					 const struct xrx_parsed *outer,
					 int tkind, struct xrx_tnl_parsed *t,
					 const struct xrx_hash_key *key)
{
	struct xrx_win w = { .p = p };

	return xrx_parse_tnl_at(&w, XRX_WIN_BUF, len, wire, outer, tkind, t,
				key);
}

static __always_inline int xrx_parse_vxlan(const __u8 *p, __u32 len,
					   __u32 wire,
					   const struct xrx_parsed *outer,
					   struct xrx_tnl_parsed *t,
					   const struct xrx_hash_key *key)
{
	struct xrx_win w = { .p = p };

	return xrx_parse_vxlan_at(&w, XRX_WIN_BUF, len, wire, outer, t, key);
}

#ifdef __bpf__
/* A scratch copy of the window, without the hash: what xrx_rx needs to
 * match rules on the inner frame (xrx_parse_copy()), for the kind
 * @tkind, which here may be a value the caller reads: xrx_rx's one
 * tunnel subprogram takes every kind. */
static __always_inline int xrx_parse_tnl_copy(const __u8 *p, __u32 len,
					      __u32 wire,
					      const struct xrx_parsed *outer,
					      int tkind,
					      struct xrx_tnl_parsed *t)
{
	struct xrx_win w = { .p = p };

	return xrx_parse_tnl_at(&w, XRX_WIN_BUF, len, wire, outer, tkind, t,
				NULL);
}

static __always_inline int xrx_parse_vxlan_copy(const __u8 *p, __u32 len,
						__u32 wire,
						const struct xrx_parsed *outer,
						struct xrx_tnl_parsed *t)
{
	return xrx_parse_tnl_copy(p, len, wire, outer, XRX_TNL_K_VXLAN, t);
}

/* The window is the packet's linear area, as for xrx_parse_pkt(), also
 * without the hash. */
static __always_inline int xrx_parse_vxlan_pkt(const __u8 *data,
					       const void *data_end, __u32 len,
					       __u32 wire,
					       const struct xrx_parsed *outer,
					       struct xrx_tnl_parsed *t)
{
	struct xrx_win w = { .p = data, .end = data_end };

	return xrx_parse_vxlan_at(&w, XRX_WIN_PKT, len, wire, outer, t, NULL);
}
#endif

#endif /* XRX_PARSE_TUNNEL_H */
