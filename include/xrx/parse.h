/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one header parser of xrx, compiled into both xrx_rx (BPF) and libxrx.
 *
 * It reads a *window*: the first min(frame length, XRX_PARSE_WINDOW) bytes
 * of the frame, contiguous. In BPF the window is the packet itself when
 * the linear area holds it (xrx_parse_pkt(): every read also checked
 * against data_end, which is what the verifier needs for a packet
 * pointer), and otherwise a copy made with bpf_xdp_load_bytes() into a
 * scratch buffer of XRX_PARSE_SCRATCH bytes, so the program needs nothing
 * beyond the Ethernet header in the linear area; in userspace the window
 * is the frame itself. Every header is first checked against the window
 * length (the semantic check), and its offset then masked (XRX_HDR(): what
 * the verifier needs to see for the scratch buffer): both sides therefore
 * compute the same result from the same bytes.
 *
 * The header length is what eth_get_headlen() returns for the frame
 * (net/ethernet/eth.c, __skb_flow_dissect() + __skb_get_poff()): L2 with
 * up to two VLAN tags, L3 with IPv4 options / IPv6 extension headers, and
 * the L4 header (TCP data offset, UDP 8, ICMP 8, ICMPv6 4, IGMP 8, SCTP and
 * DCCP 12), capped at the frame length. Differences, all on frames xrx
 * never accelerates: xrx does not descend into tunnels (IPIP, GRE, ...),
 * stops after two VLAN tags, and for malformed frames reports the offset at
 * which it stopped.
 */
#ifndef XRX_PARSE_H
#define XRX_PARSE_H

#include <xrx/types.h>
#include <xrx/meta.h>
#include <xrx/bytes.h>
#include <xrx/hdr.h>
#include <xrx/hash.h>

#ifndef __bpf__
#include <stddef.h>	/* NULL; BPF has it from bpf_helpers.h */
#endif

#define XRX_PARSE_WINDOW 256	/* = the head buffer size of libxrx */
#define XRX_PARSE_MASK 511	/* what a read offset is masked with */
#define XRX_PARSE_SCRATCH 520	/* BPF scratch: any masked read of up to
				 * 8 bytes fits */
#define XRX_MAX_EXT_HDRS 8	/* IPv6 extension headers followed */

/*
 * XRX_OPAQUE(v): @v, unchanged, but in BPF as a global subprogram's
 * result (xrx_opaque() below), which the verifier knows only
 * as some number: where paths that differ in nothing but a header offset
 * meet, the code after them is verified once from that point (the
 * parser's bounds checks then bound the number again) instead of once
 * per path. It costs a call, so it stands only where paths are many and
 * frames rare (after IPv6 extension headers).
 */
#ifdef __bpf__
/*
 * A global subprogram is verified once, on its own, and its caller learns
 * only that it returns a scalar; the empty asm keeps the compiler from
 * seeing through it too. Defined here, once in each BPF object that
 * parses (one translation unit each).
 */
__attribute__((noinline)) int xrx_opaque(__u32 v)
{
	asm volatile("" : "+r"(v));
	return v;
}
#define XRX_OPAQUE(v) ((__u32)xrx_opaque(v))
#else
#define XRX_OPAQUE(v) (v)
#endif

/*
 * Loops over constant bounds are unrolled for the BPF verifier; gcc
 * (userspace) does not know clang's pragma and needs no unrolling.
 */
#ifdef __clang__
#define XRX_UNROLL _Pragma("unroll")
#else
#define XRX_UNROLL
#endif

enum xrx_parse_result {
	XRX_PARSE_L4 = 0,	/* TCP or UDP, headers complete: may be accelerated */
	XRX_PARSE_NOT_IP,	/* ARP, LLDP, a third VLAN tag, ... */
	XRX_PARSE_NOT_L4,	/* IPv4/IPv6 carrying ICMP, SCTP, ... */
	XRX_PARSE_FRAG,		/* any IP fragment, first one included */
	XRX_PARSE_MALFORMED,	/* truncated or inconsistent headers */
	XRX_PARSE_TOO_LONG,	/* headers run past XRX_PARSE_WINDOW */
};

struct xrx_parsed {
	__u8 saddr[16];		/* IPv4 as ::ffff:a.b.c.d */
	__u8 daddr[16];
	XRX_HDRS_GROUP;		/* see xrx_flow_hash() for hash; hash_type
				 * is XRX_HASH_SW */
	__u16 sport;		/* host order, TCP/UDP only */
	__u16 dport;
};

/*
 * A window: its first byte, and in BPF, when it is the packet itself,
 * data_end. The kind (XRX_WIN_BUF or XRX_WIN_PKT) is a constant at every
 * call of the parser, so each inlined copy keeps only its own reads.
 */
struct xrx_win {
	const __u8 *p;
	const void *end;	/* data_end when in the packet, else unused */
};

#define XRX_WIN_BUF 0
#define XRX_WIN_PKT 1

/*
 * XRX_LOAD(): a read at @off of the window (the tunnel parser's; the
 * headers are read with XRX_HDR() below). Reads are one load each, as
 * include/xrx/bytes.h explains; the offset is masked so the verifier can
 * bound it.
 *
 * BPF, window in the packet: the verifier lets a packet pointer with a
 * variable offset be read only after that very pointer was compared with
 * data_end, so each read computes its pointer once, compares and loads.
 * The semantic checks against the window length already keep every read
 * inside the linear area, so the comparison never fails; when it would,
 * the read jumps to the parser's xrx_out_of_window exit instead of
 * carrying on with a made-up value, which keeps the verifier's search to
 * one short path per read. These are statement expressions (GNU C) so
 * that the jump leaves the parser, which a function could not do.
 */
#ifdef __bpf__
#define XRX_LOAD(w, kind, off, type)                                          \
	({                                                                    \
		const __u8 *q_ = (w)->p + ((off) & XRX_PARSE_MASK);           \
		if ((kind) == XRX_WIN_PKT &&                                  \
		    q_ + sizeof(type) > (const __u8 *)(w)->end)               \
			goto xrx_out_of_window;                               \
		*(const type *)q_;                                            \
	})
#else
#define XRX_LOAD(w, kind, off, type)                                          \
	((void)(kind), XRX_RAW_LOAD(type, (w)->p + ((off) & XRX_PARSE_MASK)))
#endif

/*
 * A header of @n bytes at @off of the window, read by xrx_parse_at() only
 * after its semantic check that off + n <= len: the header's first byte,
 * whose fields are then read at constant offsets with xrx_h8()/xrx_h16().
 * Since len <= XRX_PARSE_WINDOW, such an @off is below XRX_PARSE_WINDOW
 * and masking it with XRX_HDR_MASK changes nothing; the mask tells the
 * verifier so (a scratch buffer read then ends within 255 + 40 bytes).
 *
 * BPF, window in the packet: one comparison with data_end per header,
 * as XDP parsers do, instead of one per field: the verifier marks the
 * checked range on that pointer (find_good_pkt_pointers()), and every
 * field read from it is covered. Like XRX_LOAD, the comparison never
 * fails, and would leave through xrx_out_of_window.
 */
#define XRX_HDR_MASK (XRX_PARSE_WINDOW - 1)
#ifdef __bpf__
#define XRX_HDR(w, kind, off, n)                                              \
	({                                                                    \
		const __u8 *h_ = (w)->p + ((off) & XRX_HDR_MASK);             \
		if ((kind) == XRX_WIN_PKT &&                                  \
		    h_ + (n) > (const __u8 *)(w)->end)                        \
			goto xrx_out_of_window;                               \
		h_;                                                           \
	})
#else
#define XRX_HDR(w, kind, off, n) ((void)(kind), (w)->p + ((off) & XRX_HDR_MASK))
#endif

/* A byte, two bytes in host order, at constant @c of header @h. */
#define xrx_h8(h, c) ((__u32)(h)[c])
#define xrx_h16(h, c) ((__u32)xrx_get16((h) + (c)))

/* Copy an address word at constant @c of header @h, unchanged. */
#define xrx_addr_copy(dst, h, c)                                              \
	do {                                                                  \
		__u32 a_ = xrx_raw32((h) + (c));                              \
		__builtin_memcpy(dst, &a_, sizeof(a_));                       \
	} while (0)

/*
 * The flow's identity as a SipHash message: the addresses in whole words
 * (IPv4: both in one; IPv6: four), then sport, dport and the protocol as
 * its last 5 bytes, so a flow is 13 or 37 bytes, two or five blocks.
 * Direction matters: it identifies a receive flow, as GRO does.
 * xrx_flow_absorb() takes the words. Return: how many.
 */
static __always_inline __u32 xrx_flow_absorb(struct xrx_sip *s,
					     const struct xrx_parsed *r)
{
	__u32 i;

	if (r->flags & XRX_META_F_IPV4) {
		xrx_sip_word(s, (__u64)xrx_raw32(r->daddr + 12) << 32 |
					xrx_raw32(r->saddr + 12));
		return 1;
	}
	/* 4-byte loads: the verifier wants stack reads aligned */
XRX_UNROLL
	for (i = 0; i < 16; i += 8)
		xrx_sip_word(s, (__u64)xrx_raw32(r->saddr + i + 4) << 32 |
					xrx_raw32(r->saddr + i));
XRX_UNROLL
	for (i = 0; i < 16; i += 8)
		xrx_sip_word(s, (__u64)xrx_raw32(r->daddr + i + 4) << 32 |
					xrx_raw32(r->daddr + i));
	return 4;
}

/* After @words words: the ports and protocol, and the 32-bit result. */
static __always_inline __u32 xrx_flow_final(struct xrx_sip *s,
					    const struct xrx_parsed *r,
					    __u32 words)
{
	return (__u32)xrx_sip_final(s, words * 8 + 5,
				    (__u64)r->l4_proto << 32 |
					    (__u32)r->dport << 16 | r->sport);
}

/*
 * Flow hash over (saddr, daddr, sport, dport, l4_proto), keyed with @key:
 * the low 32 bits of their SipHash-2-4, as __flow_hash_from_keys() keeps
 * the low 32 bits of siphash().
 */
static __always_inline __u32 xrx_flow_hash(const struct xrx_parsed *r,
					   const struct xrx_hash_key *key)
{
	struct xrx_sip s;

	xrx_sip_init(&s, key);
	return xrx_flow_final(&s, r, xrx_flow_absorb(&s, r));
}

/*
 * Bytes the L4 header adds to the header length, as __skb_get_poff() counts
 * them for protocols other than TCP (whose length is its data offset).
 */
static __always_inline __u32 xrx_l4_fixed_len(__u32 proto)
{
	switch (proto) {
	case XRX_IPPROTO_UDP:
	case 136:	/* UDP-Lite */
		return 8;
	case 1:		/* ICMP */
		return 8;
	case 58:	/* ICMPv6 */
		return 4;
	case 2:		/* IGMP */
		return 8;
	case 33:	/* DCCP */
	case 132:	/* SCTP */
		return 12;
	}
	return 0;
}

static __always_inline __u32 xrx_min32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

/*
 * A header that needs bytes up to @need is cut short: by the frame itself
 * (malformed) or only by the window (too long to parse).
 */
static __always_inline __u8 xrx_cut(__u32 need, __u32 wire)
{
	return need <= wire ? XRX_PARSE_TOO_LONG : XRX_PARSE_MALFORMED;
}

/*
 * xrx_parse_at() - parse the headers of one Ethernet frame.
 * @w:    the window: the frame's first @len bytes, contiguous
 * @kind: XRX_WIN_PKT when @w is the packet itself (BPF), else XRX_WIN_BUF
 * @len:  window length, min(@wire, XRX_PARSE_WINDOW)
 * @wire: the frame's full length (all fragments of a multi-buffer frame)
 * @r:    result; every field is written
 * @key:  the flow hash key: also compute r->hash (xrx_flow_hash()); NULL:
 *        leave it 0. NULL or not is a constant at every call, so a copy
 *        that does not hash holds no hash code: xrx_rx parses without it
 *        and hashes only the frames it accelerates, from the NIC's hash
 *        where it has one
 *
 * Return: r->result (enum xrx_parse_result). r->headlen is valid for every
 * result; offsets, addresses and ports for as far as parsing got.
 *
 * xrx_parse_proto_at() is the same with @ethertype: 0 reads it from the
 * Ethernet header; else the window's first XRX_ETH_HLEN bytes stand for
 * an Ethernet header of that type (XRX_ETH_P_IP or XRX_ETH_P_IPV6): IP
 * carried in a tunnel without one (GENEVE), parsed by the very path an
 * untagged Ethernet frame takes, so the BPF verifier meets no new path.
 */
static __always_inline int xrx_parse_proto_at(const struct xrx_win *w,
					      int kind, __u32 len, __u32 wire,
					      struct xrx_parsed *r,
					      const struct xrx_hash_key *key,
					      __u32 ethertype)
{
	__u32 off = XRX_ETH_HLEN, proto, l4, thl, need, i;
	const __u8 *h;

	__builtin_memset(r, 0, sizeof(*r));
	if (len > XRX_PARSE_WINDOW || len > wire)
		len = xrx_min32(wire, XRX_PARSE_WINDOW);

	if (len < XRX_ETH_HLEN) {
		/* eth_get_headlen(): "this should never happen" -> len */
		r->headlen = wire;
		r->result = XRX_PARSE_MALFORMED;
		return r->result;
	}

	h = XRX_HDR(w, kind, 0, XRX_ETH_HLEN);
	proto = ethertype ? ethertype : xrx_h16(h, XRX_ETH_PROTO);
XRX_UNROLL
	for (i = 0; i < 2; i++) {
		if (proto != XRX_ETH_P_8021Q && proto != XRX_ETH_P_8021AD)
			break;
		if (off + XRX_VLAN_HLEN > len) {
			r->headlen = off;
			r->result = xrx_cut(off + XRX_VLAN_HLEN, wire);
			return r->result;
		}
		h = XRX_HDR(w, kind, off, XRX_VLAN_HLEN);
		proto = xrx_h16(h, XRX_VLAN_PROTO);
		off += XRX_VLAN_HLEN;
		r->nr_vlans++;
		r->flags |= XRX_META_F_VLAN;
	}
	if (r->nr_vlans == 2)
		r->flags |= XRX_META_F_QINQ;
	r->l3_off = off;
	r->headlen = off;

	if (proto == XRX_ETH_P_IP) {
		__u32 ihl, tot_len, frag;

		r->flags |= XRX_META_F_IPV4;
		if (off + XRX_IPH_LEN > len) {
			r->result = xrx_cut(off + XRX_IPH_LEN, wire);
			return r->result;
		}
		h = XRX_HDR(w, kind, off, XRX_IPH_LEN);
		ihl = (xrx_h8(h, XRX_IPH_VIHL) & 0x0f) * 4;
		if ((xrx_h8(h, XRX_IPH_VIHL) >> 4) != 4 ||
		    ihl < XRX_IPH_LEN) {
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		if (ihl > XRX_IPH_LEN)
			r->flags |= XRX_META_F_IPV4_OPT;
		tot_len = xrx_h16(h, XRX_IPH_TOT_LEN);
		if (tot_len < ihl || off + tot_len > wire) {
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		if (off + tot_len < wire)
			r->flags |= XRX_META_F_LEN_PAD;
		if (off + ihl > len) {
			r->result = xrx_cut(off + ihl, wire);
			return r->result;
		}
		l4 = xrx_h8(h, XRX_IPH_PROTOCOL);
		r->saddr[10] = 0xff;
		r->saddr[11] = 0xff;
		r->daddr[10] = 0xff;
		r->daddr[11] = 0xff;
		xrx_addr_copy(r->saddr + 12, h, XRX_IPH_SADDR);
		xrx_addr_copy(r->daddr + 12, h, XRX_IPH_DADDR);
		frag = xrx_h16(h, XRX_IPH_FRAG_OFF);
		off += ihl;
		r->l4_proto = l4;
		r->l4_off = off;
		r->headlen = off;
		if (frag & (XRX_IP_MF | XRX_IP_OFFSET)) {
			r->flags |= XRX_META_F_FRAG;
			/* not the first fragment: no L4 header */
			if (frag & XRX_IP_OFFSET) {
				r->l4_off = 0;
				r->result = XRX_PARSE_FRAG;
				goto hash;
			}
		}
	} else if (proto == XRX_ETH_P_IPV6) {
		__u32 plen;

		r->flags |= XRX_META_F_IPV6;
		if (off + XRX_IP6H_LEN > len) {
			r->result = xrx_cut(off + XRX_IP6H_LEN, wire);
			return r->result;
		}
		h = XRX_HDR(w, kind, off, XRX_IP6H_LEN);
		if ((xrx_h8(h, XRX_IP6H_VTF) >> 4) != 6) {
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		plen = xrx_h16(h, XRX_IP6H_PAYLOAD_LEN);
		if (off + XRX_IP6H_LEN + plen > wire) {
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		if (off + XRX_IP6H_LEN + plen < wire)
			r->flags |= XRX_META_F_LEN_PAD;
		l4 = xrx_h8(h, XRX_IP6H_NEXTHDR);
XRX_UNROLL
		for (i = 0; i < 16; i += 4) {
			xrx_addr_copy(r->saddr + i, h, XRX_IP6H_SADDR + i);
			xrx_addr_copy(r->daddr + i, h, XRX_IP6H_DADDR + i);
		}
		off += XRX_IP6H_LEN;
		r->headlen = off;
		for (i = 0; i < XRX_MAX_EXT_HDRS; i++) {
			if (l4 == XRX_IPPROTO_HOPOPTS ||
			    l4 == XRX_IPPROTO_ROUTING ||
			    l4 == XRX_IPPROTO_DSTOPTS) {
				if (off + 2 > len) {
					r->result = xrx_cut(off + 2, wire);
					return r->result;
				}
				r->flags |= XRX_META_F_IPV6_EXT;
				h = XRX_HDR(w, kind, off, 2);
				l4 = xrx_h8(h, XRX_IP6OPT_NEXTHDR);
				off += 8 * (xrx_h8(h, XRX_IP6OPT_HDRLEN) + 1);
			} else if (l4 == XRX_IPPROTO_FRAGMENT) {
				if (off + XRX_FRAGH_LEN > len) {
					r->result = xrx_cut(off + XRX_FRAGH_LEN,
							    wire);
					return r->result;
				}
				r->flags |= XRX_META_F_FRAG;
				h = XRX_HDR(w, kind, off, XRX_FRAGH_LEN);
				l4 = xrx_h8(h, XRX_IP6OPT_NEXTHDR);
				need = xrx_h16(h, XRX_FRAGH_FRAG_OFF) &
				       XRX_IP6_OFFSET;
				off += XRX_FRAGH_LEN;
				if (need) {	/* not the first fragment */
					r->l4_proto = l4;
					r->headlen = xrx_min32(off, wire);
					r->result = XRX_PARSE_FRAG;
					goto hash;
				}
			} else {
				break;
			}
			r->headlen = xrx_min32(off, wire);
		}
		/*
		 * Each number of extension headers is a path of its own, and
		 * all that tells them apart below is the offset: one path on.
		 */
		if (i)
			off = XRX_OPAQUE(off);
		if (l4 == XRX_IPPROTO_HOPOPTS || l4 == XRX_IPPROTO_ROUTING ||
		    l4 == XRX_IPPROTO_DSTOPTS || l4 == XRX_IPPROTO_FRAGMENT) {
			/* more extension headers than xrx follows */
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		if (off > len) {
			r->result = xrx_cut(off, wire);
			return r->result;
		}
		r->l4_proto = l4;
		r->l4_off = off;
	} else {
		r->result = XRX_PARSE_NOT_IP;
		return r->result;
	}

	/* Transport header: off == r->l4_off, l4 == r->l4_proto. */
	if (l4 == XRX_IPPROTO_TCP) {
		r->flags |= XRX_META_F_TCP;
		if (off + XRX_TCPH_LEN > len) {
			r->result = xrx_cut(off + XRX_TCPH_LEN, wire);
			return r->result;
		}
		h = XRX_HDR(w, kind, off, XRX_TCPH_LEN);
		thl = (xrx_h8(h, XRX_TCPH_DOFF) >> 4) * 4;
		r->sport = xrx_h16(h, XRX_TCPH_SOURCE);
		r->dport = xrx_h16(h, XRX_TCPH_DEST);
		/* __skb_get_poff(): max(sizeof(struct tcphdr), doff * 4) */
		r->headlen = xrx_min32(off + (thl < XRX_TCPH_LEN ? XRX_TCPH_LEN :
							     thl),
				       wire);
		if (thl < XRX_TCPH_LEN) {
			r->result = XRX_PARSE_MALFORMED;
			return r->result;
		}
		if (off + thl > len) {
			r->result = xrx_cut(off + thl, wire);
			return r->result;
		}
	} else if (l4 == XRX_IPPROTO_UDP) {
		r->flags |= XRX_META_F_UDP;
		r->headlen = xrx_min32(off + XRX_UDPH_LEN, wire);
		if (off + XRX_UDPH_LEN > len) {
			r->result = xrx_cut(off + XRX_UDPH_LEN, wire);
			return r->result;
		}
		h = XRX_HDR(w, kind, off, XRX_UDPH_LEN);
		r->sport = xrx_h16(h, XRX_UDPH_SOURCE);
		r->dport = xrx_h16(h, XRX_UDPH_DEST);
	} else {
		r->headlen = xrx_min32(off + xrx_l4_fixed_len(l4), wire);
		r->result = (r->flags & XRX_META_F_FRAG) ? XRX_PARSE_FRAG :
							   XRX_PARSE_NOT_L4;
		goto hash;
	}
	r->result = (r->flags & XRX_META_F_FRAG) ? XRX_PARSE_FRAG : XRX_PARSE_L4;
	/* One place computes the hash. */
hash:
	if (key)
		r->hash = xrx_flow_hash(r, key);
	return r->result;

	/* Only the packet window's reads come here (XRX_LOAD), and never:
	 * they are inside the window. Unused in userspace. */
xrx_out_of_window: __attribute__((unused));
	r->result = XRX_PARSE_MALFORMED;
	return r->result;
}

static __always_inline int xrx_parse_at(const struct xrx_win *w, int kind,
					__u32 len, __u32 wire,
					struct xrx_parsed *r,
					const struct xrx_hash_key *key)
{
	return xrx_parse_proto_at(w, kind, len, wire, r, key, 0);
}

/*
 * The window is a buffer (userspace, or BPF's scratch copy). @key: the
 * flow hash key, or NULL to leave r->hash 0.
 */
static __always_inline int xrx_parse(const __u8 *p, __u32 len, __u32 wire,
				     struct xrx_parsed *r,
				     const struct xrx_hash_key *key)
{
	struct xrx_win w = { .p = p };

	return xrx_parse_at(&w, XRX_WIN_BUF, len, wire, r, key);
}

#ifdef __bpf__
/*
 * xrx_rx's two parses, neither of which hashes (r->hash is 0): the
 * program hashes after its rule lookup, once, and only a frame it
 * accelerates; r->hash is then what xrx_parse() with xrx_cfg's key
 * would have given.
 *
 * xrx_parse_pkt(): the window is the packet's linear area, from data to
 * @data_end; @len is at most what it holds. A result of
 * XRX_PARSE_TOO_LONG with @len shorter than min(@wire, XRX_PARSE_WINDOW)
 * means the headers continue in a fragment: parse a copy of the full
 * window instead (xrx_parse_copy()). Every other result is the one the
 * full window gives, since the window length only enters the parse where
 * a header would need more of it (xrx_cut()).
 */
static __always_inline int xrx_parse_pkt(const __u8 *data,
					 const void *data_end, __u32 len,
					 __u32 wire, struct xrx_parsed *r)
{
	struct xrx_win w = { .p = data, .end = data_end };

	return xrx_parse_at(&w, XRX_WIN_PKT, len, wire, r, NULL);
}

static __always_inline int xrx_parse_copy(const __u8 *p, __u32 len,
					  __u32 wire, struct xrx_parsed *r)
{
	struct xrx_win w = { .p = p };

	return xrx_parse_at(&w, XRX_WIN_BUF, len, wire, r, NULL);
}
#endif

/* Fill the metadata xrx_rx writes in front of a frame from a parse result. */
static __always_inline void xrx_meta_fill(struct xrx_meta *m,
					  const struct xrx_parsed *r)
{
	m->rx_ts = 0;
	m->hdrs = r->hdrs;
	m->vlan_tci = 0;
	m->vlan_proto = 0;
	m->version = XRX_META_VERSION;
	m->pad = 0;
	m->magic = XRX_META_MAGIC;
}

#endif /* XRX_PARSE_H */
