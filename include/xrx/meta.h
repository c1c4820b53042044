/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct xrx_meta: what xrx_rx tells userspace about a frame it redirects.
 *
 * Written with bpf_xdp_adjust_meta() directly in front of the packet data,
 * so in the UMEM it sits at (frame address - sizeof(struct xrx_meta)).
 * magic is the last member: it is adjacent to the packet and is how
 * userspace tells a frame with metadata from one without (a driver that
 * gives no metadata room, or a frame that did not come through xrx_rx).
 */
#ifndef XRX_META_H
#define XRX_META_H

#include <xrx/types.h>

#define XRX_META_MAGIC 0x5852	/* "XR" */
#define XRX_META_VERSION 4	/* 4: rx_ts first */

enum xrx_meta_flags {
	XRX_META_F_VLAN = 1 << 0,	/* one or more VLAN tags */
	XRX_META_F_QINQ = 1 << 1,	/* two VLAN tags */
	XRX_META_F_IPV4 = 1 << 2,
	XRX_META_F_IPV6 = 1 << 3,
	XRX_META_F_IPV6_EXT = 1 << 4,	/* hop-by-hop/routing/dest options */
	XRX_META_F_FRAG = 1 << 5,	/* IPv4 fragment or IPv6 fragment hdr */
	XRX_META_F_TCP = 1 << 6,
	XRX_META_F_UDP = 1 << 7,
	XRX_META_F_IPV4_OPT = 1 << 8,	/* IPv4 header longer than 20 */
	XRX_META_F_LEN_PAD = 1 << 9,	/* frame longer than IP length says */
	XRX_META_F_HW_VLAN = 1 << 10,	/* the NIC took a tag out of the frame:
					 * vlan_proto/vlan_tci */
	XRX_META_F_HW_META = 1 << 11,	/* written by the device-bound build,
					 * whose driver answered the VLAN
					 * metadata kfunc (tag or no tag) */
};

/*
 * What xrx_meta.hash is. The NIC's hash (keyed by its RSS key, not by
 * xrx) replaces xrx_flow_hash() only when it covers the ports: an L3-only
 * hash puts every flow between two hosts in one bucket, so xrx_rx keeps
 * its own hash then, and the engine recomputes any hash marked L3, with
 * the same key.
 */
enum xrx_hash_type {
	XRX_HASH_SW = 0,	/* xrx_flow_hash() over addresses, ports, proto,
				 * keyed with xrx_cfg's hash_key */
	XRX_HASH_HW_L4,		/* bpf_xdp_metadata_rx_hash(), L4 type */
	XRX_HASH_HW_L3,		/* the NIC's, addresses only: not for lookup */
};

/*
 * What the parser learns about a frame's headers, defined once and carried
 * by four records: struct xrx_meta (xrx_rx to userspace, below), struct
 * xrx_parsed (the parser's result, parse.h), the engine's segment and the
 * packet it delivers (struct xrx_pkt, engine.h). Each embeds the members
 * with XRX_HDRS_GROUP, as the kernel's struct_group() does: by name
 * (m->l4_off), and all together as .hdrs, so passing the facts on is one
 * assignment (m->hdrs = r->hdrs) and a field added here reaches all four.
 */
#define XRX_HDRS_MEMBERS                                                      \
	__u32 hash;	 /* flow hash over addresses, ports, protocol */      \
	__u16 headlen;	 /* header bytes, as eth_get_headlen() counts them */ \
	__u16 l3_off;	 /* network header offset from the frame start */    \
	__u16 l4_off;	 /* transport header offset, 0 if there is none */  \
	__u16 flags;	 /* enum xrx_meta_flags */                            \
	__u8 l4_proto;	 /* IPPROTO_* of the transport header */             \
	__u8 nr_vlans;	 /* in-band tags: 0, 1 or 2 */                       \
	__u8 result;	 /* enum xrx_parse_result (parse.h) */                \
	__u8 hash_type;	 /* enum xrx_hash_type */

struct xrx_hdrs {
	XRX_HDRS_MEMBERS
};

#define XRX_HDRS_GROUP                                                        \
	union {                                                               \
		struct {                                                      \
			XRX_HDRS_MEMBERS                                      \
		};                                                            \
		struct xrx_hdrs hdrs;                                         \
	}

XRX_STATIC_ASSERT(sizeof(struct xrx_hdrs) == 16, "xrx_hdrs: no padding");

/*
 * rx_ts comes first, outside the bytes a flow's frames share: the
 * engine's fast path compares everything from hdrs on
 * (XRX_META_CMP_OFF). The kernel takes at most 32 bytes of metadata
 * (xdp_metalen_invalid()): this is all of them.
 */
struct xrx_meta {
	__u64 rx_ts;	/* the NIC's RX timestamp, ns, its own clock
			 * (bpf_xdp_metadata_rx_timestamp(), the
			 * device-bound build); 0: none */
	XRX_HDRS_GROUP;	/* result is XRX_PARSE_L4: xrx_rx writes no
			 * metadata for other frames */
	__u16 vlan_tci;	/* the tag the NIC stripped (XRX_META_F_HW_VLAN), */
	__u16 vlan_proto; /* and its TPID, host order; else both 0 */
	__u8 version;	/* XRX_META_VERSION */
	__u8 pad;	/* zero */
	__u16 magic;	/* XRX_META_MAGIC; last, next to the packet */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_meta) == 32,
		  "xrx_meta layout is ABI between xrx_rx and libxrx");
XRX_STATIC_ASSERT(sizeof(struct xrx_meta) % 4 == 0,
		  "bpf_xdp_adjust_meta needs a multiple of 4");

/* Where the bytes every frame of a flow shares start (all but rx_ts). */
#define XRX_META_CMP_OFF 8

#endif /* XRX_META_H */
