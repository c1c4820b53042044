/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx, the GRO engine: header-only copy and aggregation that follows the
 * Linux kernel's GRO rules (net/core/gro.c, tcp_gro_receive(),
 * udp_gro_receive_segment(), inet_gro_receive(), ipv6_gro_receive()).
 *
 * The engine works on frames in a memory region the caller owns (an
 * AF_XDP UMEM, or a plain buffer). Per frame it copies the header bytes
 * into a 256-byte head buffer and references the payload in place; frames
 * of one flow are aggregated into one packet whose payload is a list of
 * fragments pointing into the region.
 *
 *   struct xrx_engine_opts o = { .sz = sizeof(o), .region = umem,
 *				    .region_size = size, .deliver = cb,
 *				    .release_frame = rel, .ctx = me };
 *   struct xrx_engine *e = xrx_engine__new(&o);
 *   for (;;) {
 *	n = receive(frames);
 *	xrx_engine__rx(e, frames, n, now_ns);	// calls cb() per packet
 *   }
 *   xrx_engine__free(e);			// delivers what is held
 *
 * Ownership. A frame given to xrx_engine__rx() belongs to the engine until
 * release_frame(ctx, addr) is called for it, exactly once: at once when no
 * byte of it is referenced (everything was copied, or it was not
 * delivered), otherwise when the packet that references it is released. A
 * delivered packet belongs to the consumer until xrx_pkt__release(), which
 * may be called from inside deliver() or later from the same thread.
 *
 * Threading: an engine is used by one thread; engines share nothing.
 */
#ifndef XRX_ENGINE_H
#define XRX_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <xrx/types.h>
#include <xrx/meta.h>
#include <xrx/hash.h>
#include <xrx/tunnel.h>

struct xrx_parsed;	/* include/xrx/parse.h */

#ifdef __cplusplus
extern "C" {
#endif

#define XRX_HEAD_SIZE 256		/* head buffer, as mlx5e MLX5E_RX_MAX_HEAD */

/* The options' bounds: include/xrx/options.h holds them in one table. */
#define XRX_FLOWS_DEFAULT 4096		/* aggregates held at once */
#define XRX_FLOWS_MAX (1u << 24)
#define XRX_AGGREGATE_MIN 1024		/* bounds of max_aggregate */
#define XRX_AGGREGATE_DEFAULT 65536	/* GRO_LEGACY_MAX_SIZE */
#define XRX_AGGREGATE_MAX 524280	/* BIG TCP: 8 * 65535 */
#define XRX_SEGS_DEFAULT 64		/* see max_segs */
#define XRX_SEGS_MAX 65535		/* gso_segs is 16 bits */
#define XRX_UDP_SEGS_MAX 64		/* UDP_GRO_CNT_MAX */
#define XRX_VXLAN_PORTS_MAX XRX_TNL_PORTS_MAX /* xrx_engine_opts.vxlan_ports */
#define XRX_GENEVE_PORTS_MAX XRX_TNL_PORTS_MAX /* and geneve_ports */
#define XRX_FLUSH_TIMEOUT_MAX 1000000	/* flush_timeout_us: 1 s */

enum xrx_copy_mode {
	XRX_COPY_HEADER = 0,	/* headlen bytes (eth_get_headlen()) */
	XRX_COPY_MAX_HEAD,	/* min(256, frame length) of every frame */
	XRX_COPY_FULL,		/* whole frames into one contiguous buffer */
};

enum xrx_csum_mode {
	XRX_CSUM_VERIFY = 0,	/* software check of IPv4 header + L4 sum */
	XRX_CSUM_TRUST,		/* as CHECKSUM_UNNECESSARY (IPv4 header
				 * checksum is still checked, as the kernel
				 * always does in inet_gro_receive()) */
};

/*
 * A TCP/UDP checksum field that holds the pseudo-header sum while the
 * whole sum does not verify: the form a sender with TX checksum offload
 * leaves for the device to finish (__tcp_v4_send_check(): th->check =
 * ~tcp_v4_check(len, saddr, daddr, 0), udp4_hwcsum(), tcp_v6_send_check()).
 * From a veth or a tun the kernel takes such a packet: the skb arrives
 * CHECKSUM_PARTIAL, which skb_csum_unnecessary() accepts. XDP (and so
 * AF_XDP in copy mode) sees its bytes without ip_summed. From a physical
 * NIC it is corruption as far as the kernel is concerned: dropped. With
 * csum = verify the engine recognises the form (csum_partial):
 */
enum xrx_csum_partial {
	XRX_CSUM_PARTIAL_AUTO = 0,	/* as REFUSE in the engine; xrxd makes
					 * it ACCEPT on a veth or tun and
					 * REFUSE on anything else */
	XRX_CSUM_PARTIAL_ACCEPT,	/* take it as CHECKSUM_PARTIAL: merged,
					 * or delivered alone with csum
					 * PARTIAL, so that the stack behind
					 * the sink finishes the sum as it
					 * would have on the veth */
	XRX_CSUM_PARTIAL_REFUSE,	/* delivered alone, unverified
					 * (single_csum_partial): the stack
					 * behind a TUN drops it */
};

/*
 * How an IPv6 TCP aggregate above 65535 bytes of payload (BIG TCP) says
 * its length; payload_len is 0 in both forms.
 */
enum xrx_ipv6_jumbo {
	XRX_IPV6_JUMBO_ZERO = 0,	/* no option: the length is the
					 * packet's (Linux 7.0) */
	XRX_IPV6_JUMBO_HBH,		/* an RFC 2675 hop-by-hop jumbo option
					 * right after the IPv6 header, as
					 * Linux 6.x ipv6_gro_complete()
					 * inserts it and ip6_rcv_core()
					 * needs it */
};

#define XRX_HBH_JUMBO_LEN 8		/* struct hop_jumbo_hdr */

enum xrx_gso_type {
	XRX_GSO_NONE = 0,	/* a single frame, delivered as received */
	XRX_GSO_TCPV4,
	XRX_GSO_TCPV6,
	XRX_GSO_UDP_L4,
};

enum xrx_gso_flags {
	XRX_GSO_F_FIXEDID = 1 << 0,	/* IPv4 ID constant (SKB_GSO_TCP_FIXEDID);
					 * in a tunnel, the outer header's */
	/* VXLAN and GENEVE aggregates (xrx_engine_opts.vxlan_ports,
	 * geneve_ports): gso_type is the
	 * inner TCP's, these say what is around it, as skb gso_type bits
	 * do after udp_gro_complete() */
	XRX_GSO_F_UDP_TUNNEL = 1 << 1,		/* SKB_GSO_UDP_TUNNEL: outer
						 * UDP checksum zero */
	XRX_GSO_F_UDP_TUNNEL_CSUM = 1 << 2,	/* SKB_GSO_UDP_TUNNEL_CSUM */
	XRX_GSO_F_FIXEDID_INNER = 1 << 3,	/* SKB_GSO_TCP_FIXEDID_INNER */
};

/*
 * What the L4 checksum field of a delivered packet holds:
 *   NONE         as received; not verified (csum trust mode)
 *   UNNECESSARY  as received, and verified (csum verify mode)
 *   PARTIAL      an aggregate: the field holds the pseudo-header checksum
 *                (not inverted) over the aggregate's L4 length, as
 *                tcp4_gro_complete()/tcp6_gro_complete() and
 *                udp4/6_gro_complete() leave it for CHECKSUM_PARTIAL; the
 *                full checksum is the ones' complement sum from csum_start
 *                to the end, stored at csum_start + csum_offset. This is
 *                what virtio_net_hdr VIRTIO_NET_HDR_F_NEEDS_CSUM expects.
 */
enum xrx_pkt_csum {
	XRX_PKT_CSUM_NONE = 0,
	XRX_PKT_CSUM_UNNECESSARY,
	XRX_PKT_CSUM_PARTIAL,
};

/*
 * A further piece of a multi-buffer frame (AF_XDP with XDP_USE_SG: one
 * descriptor per chunk, XDP_PKT_CONTD on all but the last): bytes
 * [addr, addr + len) of the region.
 */
struct xrx_chunk {
	__u64 addr;
	__u32 len;
	__u32 pad;
};

#define XRX_FRAME_F_CHAIN (1u << 0)	/* chunks[] continue the frame */
#define XRX_FRAME_F_TS_NIC (1u << 1)	/* ts_ns is the NIC's RX timestamp
					 * (moved onto the caller's clock),
					 * not the caller's own */
#define XRX_CHUNKS_MAX 18		/* pieces of one frame, first included:
					 * MAX_SKB_FRAGS + 1, the most an
					 * AF_XDP multi-buffer frame spans */

/*
 * One received frame: bytes [addr, addr + len) of the region, followed,
 * with XRX_FRAME_F_CHAIN, by chunks[0 .. nr_chunks). The headers must lie
 * in the first piece, and the first piece must hold at least
 * min(frame length, XRX_HEAD_SIZE) bytes. release_frame() is called once
 * for the first piece's addr and once for every chunk's.
 */
struct xrx_frame {
	__u64 addr;			/* offset of the frame in the region */
	__u32 len;			/* bytes at addr (the first piece) */
	__u32 flags;			/* XRX_FRAME_F_* */
	const struct xrx_meta *meta;	/* from xrx_rx, or NULL: parse.
					 * Its out-of-band VLAN tag is flow
					 * identity; an L3-only hash is
					 * recomputed (hash_key) */
	const struct xrx_chunk *chunks;	/* XRX_FRAME_F_CHAIN only */
	__u32 nr_chunks;
	__u32 pad;
	/* When it arrived, in ns on any clock the consumer knows (the live
	 * path: CLOCK_REALTIME, when it was taken from the RX ring, or the
	 * NIC's stamp); 0: not known. The engine only carries it to the
	 * packet (xrx_pkt.ts_ns, ts_last_ns). */
	__u64 ts_ns;
};

/* Payload by reference: bytes the consumer reads in place. */
struct xrx_frag {
	const __u8 *data;		/* in the region (or a copy buffer) */
	__u32 len;
	__u32 pad;
	__u64 addr;			/* the frame it belongs to */
};

/*
 * A delivered packet: an aggregate or a single frame. Its bytes are
 * head[0, head_len) followed by every frag in order; len is their sum.
 *
 * An aggregate's headers are its first segment's, fixed up as
 * napi_gro_complete() -> inet_gro_complete()/ipv6_gro_complete() do:
 * IPv4 tot_len and header checksum recomputed, IPv6 payload_len set,
 * TCP FIN and PSH OR-ed from every segment, L4 checksum as described at
 * enum xrx_pkt_csum. Above 65535 bytes of IP length (BIG TCP) IPv4 tot_len
 * is 0 and IPv6 payload_len is 0: by default with NO hop-by-hop jumbo
 * option (as Linux 7.0 delivers it; the length is len - l3_off), or with
 * xrx_engine_opts.ipv6_jumbo = XRX_IPV6_JUMBO_HBH with the 8-byte option
 * Linux 6.x inserts after the IPv6 header (next header 0; the option's
 * next header is the TCP one, type 0xC2, length 4, then the payload
 * length counted from the option; l4_off and csum_start count it). A
 * packet that was held alone (one segment) is delivered byte-identical to
 * the frame, gso_type NONE, as napi_gro_complete() does for count == 1.
 *
 * Re-segmenting an aggregate at gso_size gives back exactly the payloads
 * of its segments, in order.
 */
struct xrx_pkt {
	__u8 *head;			/* header bytes (fixed up) */
	const struct xrx_frag *frags;	/* payload, in order */
	__u32 head_len;
	__u32 nr_frags;
	__u32 len;			/* head_len + all frag lengths */
	/*
	 * The (first) frame's parsed headers (struct xrx_hdrs, meta.h):
	 * hash is the flow hash (xrx_flow_hash(), keyed with hash_key, or
	 * the NIC's L4 RX hash from xrx_meta); l3_off and l4_off the network and transport
	 * header offsets in head (l4_off 0 if none), l4_proto the
	 * transport's IPPROTO_*, nr_vlans the in-band tags in head; for a
	 * TCP or UDP packet headlen is where the transport header ends
	 * (what eth_get_headlen() gives).
	 */
	XRX_HDRS_GROUP;
	__u16 gso_size;			/* mss: payload of the first segment */
	__u16 gso_segs;			/* segments, 1 for a single frame */
	__u8 gso_type;			/* enum xrx_gso_type */
	__u8 gso_flags;			/* enum xrx_gso_flags */
	__u8 csum;			/* enum xrx_pkt_csum */
	__u8 ts_flags;			/* XRX_PKT_TS_*: ts_ns, ts_last_ns */
	__u16 csum_start;		/* = l4_off when csum is PARTIAL */
	__u16 csum_offset;		/* 16 (TCP) or 6 (UDP) from csum_start */
	__u16 reason;			/* enum xrx_engine_stat: why delivered */
	/* A tag the NIC took out of the frame (xrx_meta's), 0 and 0 if
	 * none: the packet's bytes do not hold it. A consumer that passes
	 * the frame on puts it back in front of the EtherType at 12, as the
	 * pcap sink does (the kernel's skb->vlan_proto and vlan_tci). */
	__u16 vlan_proto;		/* TPID, host order (0x8100, 0x88a8) */
	__u16 vlan_tci;
	/*
	 * VXLAN or GENEVE (a frame to one of xrx_engine_opts.vxlan_ports or
	 * geneve_ports, delivered
	 * single or aggregated): the parsed headers (l3_off, l4_off,
	 * l4_proto, nr_vlans, headlen ...) and the checksum fields above
	 * describe the INNER headers, as csum_start
	 * and the inner offsets of an skb do; these locate the outer ones.
	 * All 0 for a frame that is not VXLAN or GENEVE.
	 */
	__u16 outer_l3_off;		/* outer IPv4 or IPv6 header */
	__u16 outer_l4_off;		/* outer UDP header */
	__u16 inner_mac_off;		/* inner Ethernet header */
	/* The first segment's arrival time and the last one's
	 * (xrx_frame.ts_ns; equal for a packet of one segment), 0 if its
	 * frame carried none. An aggregate's headers are its first
	 * segment's, and so is its time. */
	__u64 ts_ns;
	__u64 ts_last_ns;
};

#define XRX_PKT_TS_NIC (1u << 0)	/* ts_ns is the NIC's stamp */
#define XRX_PKT_TS_NIC_LAST (1u << 1)	/* ts_last_ns is the NIC's */

/*
 * Engine counters, one table for the library, CLI and JSON.
 * X(enumerator suffix, name, description)
 *
 * Every delivered packet is counted in pkts_out and in exactly one reason
 * counter: flush_* (a held aggregate delivered before the frame that made
 * it end, or by the table, time or caller), complete_* (delivered right
 * after merging its last segment), single_* and csum_bad (a frame that
 * was never held). drop_* frames are not delivered (but released).
 */
#define XRX_ENGINE_STATS_TABLE(X)                                              \
	X(FRAMES_IN, "frames_in", "frames given to the engine")                \
	X(BYTES_IN, "bytes_in", "bytes of those frames")                       \
	X(PKTS_OUT, "pkts_out", "packets delivered (aggregates and singles)")  \
	X(AGGS_OUT, "aggs_out", "delivered packets of two or more segments")   \
	X(SEGS_MERGED, "segs_merged", "segments appended to an aggregate")     \
	X(BYTES_OUT, "bytes_out", "bytes of delivered packets")                \
	X(BYTES_COPIED, "bytes_copied", "bytes copied: headers and payload")   \
	X(PAYLOAD_BYTES_COPIED, "payload_bytes_copied",                        \
	  "payload bytes among bytes_copied")                                  \
	X(FRAMES_RELEASED, "frames_released", "frames handed back")           \
	X(FRAMES_NO_META, "frames_no_meta",                                    \
	  "frames without usable xrx_meta: parsed in userspace")              \
	X(CSUM_PARTIAL, "csum_partial",                                        \
	  "segments whose L4 checksum held the pseudo-header sum: a sender's TX checksum offload (veth, tun); not csum_bad") \
	X(FLUSH_CWR, "flush_cwr", "tcp_gro_receive: CWR set")                 \
	X(FLUSH_FLAGS, "flush_flags", "tcp_gro_receive: flags or doff differ") \
	X(FLUSH_WINDOW, "flush_window", "tcp_gro_receive: window differs")     \
	X(FLUSH_ACK, "flush_ack", "tcp_gro_receive: ack_seq differs")          \
	X(FLUSH_OPTS, "flush_opts", "tcp_gro_receive: TCP options differ")    \
	X(FLUSH_TTL, "flush_ttl", "inet/ipv6_gro_flush: TTL/hop limit differ") \
	X(FLUSH_TOS, "flush_tos", "inet/ipv6_gro_flush: TOS/class differ")    \
	X(FLUSH_DF, "flush_df", "inet_gro_flush: DF differs")                 \
	X(FLUSH_IPID, "flush_ipid", "inet_gro_flush: IP ID neither +1 nor fixed") \
	X(FLUSH_IP_HDR, "flush_ip_hdr",                                        \
	  "inet/ipv6_gro_receive: same flow, bad length or reserved bit")     \
	X(FLUSH_SEQ, "flush_seq", "tcp_gro_receive: not the next sequence")    \
	X(FLUSH_MSS, "flush_mss", "tcp_gro_receive: payload bigger than mss")  \
	X(FLUSH_NO_PAYLOAD, "flush_no_payload",                                \
	  "tcp_gro_receive: segment without payload (pure ACK)")               \
	X(FLUSH_UDP_LEN, "flush_udp_len",                                      \
	  "udp_gro_receive_segment: datagram bigger than gso_size")            \
	X(FLUSH_SIZE, "flush_size", "skb_gro_receive: size limit reached")    \
	X(FLUSH_TABLE_FULL, "flush_table_full", "oldest delivered: table full") \
	X(FLUSH_BUCKET_FULL, "flush_bucket_full",                              \
	  "gro_flush_oldest: a new flow's hash bucket held 8; its oldest delivered") \
	X(FLUSH_TIMEOUT, "flush_timeout", "older than flush_timeout_us")       \
	X(FLUSH_BATCH_END, "flush_batch_end", "end of a receive batch")        \
	X(FLUSH_EXPLICIT, "flush_explicit", "xrx_engine__flush_all()")         \
	X(FLUSH_PRESSURE, "flush_pressure", "xrx_engine__flush_oldest()")      \
	X(COMPLETE_SHORT, "complete_short", "last segment shorter than mss")   \
	X(COMPLETE_FLAGS, "complete_flags", "last segment had PSH or FIN")     \
	X(COMPLETE_SEGS, "complete_segs", "max_segs (UDP: 64) reached")        \
	X(SINGLE_NOT_TCP_UDP, "single_not_tcp_udp", "not TCP/UDP over IP")     \
	X(SINGLE_MALFORMED, "single_malformed", "truncated/bad headers")       \
	X(SINGLE_IP_OPTS, "single_ip_opts", "IPv4 with options")               \
	X(SINGLE_FRAG, "single_frag", "IP fragment or IPv6 fragment header")   \
	X(SINGLE_LEN, "single_len", "IP length differs from the frame (padding, cut short)") \
	X(SINGLE_IP_FLAGS, "single_ip_flags", "IPv4 reserved fragment bit set") \
	X(SINGLE_PURE_ACK, "single_pure_ack", "TCP without payload")           \
	X(SINGLE_TCP_FLAGS, "single_tcp_flags",                                \
	  "SYN, RST, URG, PSH, FIN or CWR in a new aggregate")                      \
	X(SINGLE_UDP_OFF, "single_udp_off", "UDP while UDP GRO is off")        \
	X(SINGLE_UDP_NO_CSUM, "single_udp_no_csum", "UDP checksum zero")       \
	X(SINGLE_UDP_LEN, "single_udp_len", "UDP length <= 8 or != bytes")     \
	X(SINGLE_CSUM_PARTIAL, "single_csum_partial",                          \
	  "csum_partial refused (csum_partial = refuse, or auto off veth/tun): delivered alone, unverified") \
	X(CSUM_BAD, "csum_bad", "bad IPv4 header or L4 checksum")              \
	X(DROP_NO_BUFFER, "drop_no_buffer",                                    \
	  "no free packet buffer: consumer holds too many")                    \
	X(DROP_BAD_FRAME, "drop_bad_frame",                                    \
	  "frame outside the region (or too long to copy in full mode)")      \
	X(BAD_RELEASE, "bad_release",                                          \
	  "xrx_pkt__release() of a packet not delivered or already released") \
	XRX_ENGINE_VXLAN_STATS_TABLE(X)

/*
 * VXLAN (xrx_engine_opts.vxlan_ports). vxlan_frames_in and vxlan_aggs_out
 * count alongside frames_in and aggs_out; the flush_outer_* and
 * single_vxlan_* ones are reasons like the others (exactly one per
 * delivered packet). The inner headers' flush reasons are the plain
 * counters above (flush_ttl is the inner TTL, ...).
 */
#define XRX_ENGINE_VXLAN_STATS_TABLE(X)                                        \
	X(VXLAN_FRAMES_IN, "vxlan_frames_in", "frames to a VXLAN port")       \
	X(VXLAN_AGGS_OUT, "vxlan_aggs_out",                                    \
	  "delivered VXLAN packets of two or more segments")                   \
	X(FLUSH_OUTER_TTL, "flush_outer_ttl",                                  \
	  "inet/ipv6_gro_flush, outer header: TTL/hop limit differ")           \
	X(FLUSH_OUTER_TOS, "flush_outer_tos",                                  \
	  "inet/ipv6_gro_flush, outer header: TOS/class differ")               \
	X(FLUSH_OUTER_DF, "flush_outer_df",                                    \
	  "inet_gro_flush, outer header: DF differs")                          \
	X(FLUSH_OUTER_IPID, "flush_outer_ipid",                                \
	  "inet_gro_flush, outer header: ID neither +1 nor fixed")             \
	X(SINGLE_VXLAN_SHORT, "single_vxlan_short",                            \
	  "VXLAN port, no room for the VXLAN and inner Ethernet headers")      \
	X(SINGLE_VXLAN_INNER, "single_vxlan_inner",                            \
	  "VXLAN whose inner frame is not TCP over IPv4/IPv6 (eth_gro_receive)") \
	XRX_ENGINE_GENEVE_STATS_TABLE(X)

/*
 * GENEVE (xrx_engine_opts.geneve_ports), as VXLAN's: the outer headers'
 * flush reasons are the flush_outer_* counters above.
 */
#define XRX_ENGINE_GENEVE_STATS_TABLE(X)                                       \
	X(GENEVE_FRAMES_IN, "geneve_frames_in", "frames to a GENEVE port")    \
	X(GENEVE_AGGS_OUT, "geneve_aggs_out",                                  \
	  "delivered GENEVE packets of two or more segments")                  \
	X(SINGLE_GENEVE_SHORT, "single_geneve_short",                          \
	  "GENEVE port, GENEVE header, options and inner Ethernet header not within the frame's first 256 bytes") \
	X(SINGLE_GENEVE_OAM, "single_geneve_oam",                              \
	  "GENEVE version not 0, or OAM set (geneve_gro_receive)")             \
	X(SINGLE_GENEVE_PROTO, "single_geneve_proto",                          \
	  "GENEVE protocol type not Ethernet (0x6558)")                        \
	X(SINGLE_GENEVE_INNER, "single_geneve_inner",                          \
	  "GENEVE whose inner frame is not TCP over IPv4/IPv6 (eth_gro_receive)")

enum xrx_engine_stat {
#define XRX_X_ENUM(e, n, d) XRX_ENGINE_STAT_##e,
	XRX_ENGINE_STATS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_ENGINE_STAT_MAX
};

/*
 * The options a user sets (flows, max_aggregate, max_segs,
 * flush_timeout_us, csum, copy, udp, vxlan_ports, geneve_ports,
 * ipv6_jumbo) have their
 * defaults and bounds in one table, include/xrx/options.h; a number left
 * 0 takes its default there.
 */
struct xrx_engine_opts {
	size_t sz;			/* sizeof(struct xrx_engine_opts) */
	void *region;			/* frames live at region + addr */
	__u64 region_size;
	__u32 flows;			/* aggregates held; 0: 4096 */
	__u32 max_aggregate;		/* IP length limit (gro_max_size);
					 * 0: 65536; 1024..524280; above
					 * 65536 TCP only (BIG TCP) */
	__u32 max_segs;			/* segments per aggregate; 0: 64,
					 * or max_aggregate / 1024 if more.
					 * The kernel has no such bound
					 * (it chains skbs beyond
					 * MAX_SKB_FRAGS): set it high for
					 * kernel-identical small-segment
					 * trains */
	__u32 pkts;			/* packet buffers (held + delivered
					 * and not yet released); 0: flows
					 * + 1024 */
	__u32 flush_timeout_us;		/* 0: flush at every batch end */
	enum xrx_csum_mode csum;
	enum xrx_copy_mode copy;
	bool udp;			/* UDP GRO (udp_gro_receive_segment) */
	/* Called for every delivered packet; the consumer owns pkt until
	 * xrx_pkt__release(). */
	void (*deliver)(void *ctx, struct xrx_pkt *pkt);
	/* The engine no longer references the frame at addr. */
	void (*release_frame)(void *ctx, __u64 addr);
	void *ctx;
	__u32 max_chunks;		/* pieces a frame may have (first
					 * included, XRX_FRAME_F_CHAIN); 0:
					 * 1; at most XRX_CHUNKS_MAX. Sizes
					 * the fragment arrays */
	__u32 pad;
	/*
	 * UDP destination ports that carry VXLAN (4789 is IANA's, 8472
	 * Linux's old default); none: VXLAN is plain UDP. A frame to one of
	 * them over IPv4 or IPv6 (without extension headers) is aggregated
	 * as the kernel's vxlan_gro_receive() does (inner TCP over IPv4 or
	 * IPv6), and delivered as one frame
	 * with the outer and inner headers fixed up (see struct xrx_pkt).
	 * The pcap sink writes such packets as they are; the TUN and TAP
	 * sinks write them whole (GSO over a UDP tunnel) or as their
	 * segments. Ports are host order, non-zero, no duplicates.
	 */
	__u16 vxlan_ports[XRX_VXLAN_PORTS_MAX];
	__u32 nr_vxlan_ports;
	/* IPv6 BIG TCP aggregates: with or without the hop-by-hop jumbo
	 * option (see struct xrx_pkt). The TUN sink takes the default and
	 * inserts the option itself where the kernel needs it. */
	enum xrx_ipv6_jumbo ipv6_jumbo;
	/*
	 * The flow hash key (include/xrx/hash.h): the engine hashes a frame
	 * itself when its xrx_meta is missing or holds an L3-only hash, and
	 * the flow inside VXLAN. Give it xrx_rx's (xrx_cfg's hash_key; the
	 * live path does) so that both hash a flow alike. All zero: a
	 * random key chosen at creation (getrandom()).
	 */
	struct xrx_hash_key hash_key;
	/* Partial checksums from a sender's TX offload (enum above). */
	enum xrx_csum_partial csum_partial;
	/*
	 * UDP destination ports that carry GENEVE (6081 is IANA's), as
	 * vxlan_ports: the TCP inside, behind an Ethernet header (protocol
	 * type 0x6558), is aggregated as the kernel's geneve_gro_receive()
	 * does; the GENEVE header with its options is part of the flow.
	 * No port may be in both lists.
	 */
	__u16 geneve_ports[XRX_GENEVE_PORTS_MAX];
	__u32 nr_geneve_ports;
};

/* Return: a new engine, or NULL with errno set (EINVAL: bad option). */
XRX_API struct xrx_engine *xrx_engine__new(const struct xrx_engine_opts *opts);
/* Delivers everything held (flush_explicit), then frees. NULL is a no-op. */
XRX_API void xrx_engine__free(struct xrx_engine *e);

/*
 * One receive batch, in arrival order. Flushes every held aggregate at
 * the end (flush_batch_end), or with flush_timeout_us set only those
 * older than the timeout. @now_ns: any monotonic clock.
 * Return: frames consumed (n), or a negative errno.
 */
XRX_API int xrx_engine__rx(struct xrx_engine *e, const struct xrx_frame *frames,
			   __u32 n, __u64 now_ns);
/* Deliver aggregates started at least flush_timeout_us before now_ns. */
XRX_API void xrx_engine__flush(struct xrx_engine *e, __u64 now_ns);
/* Deliver every held aggregate, oldest first. */
XRX_API void xrx_engine__flush_all(struct xrx_engine *e);
/* Pressure (e.g. fill ring low): deliver the @n oldest. Return: delivered. */
XRX_API __u32 xrx_engine__flush_oldest(struct xrx_engine *e, __u32 n);
/*
 * Bytes the engine allocated at creation: head buffers, packet buffers,
 * fragment slots and the flow table (full-copy buffers are a reserved
 * mapping whose untouched pages cost nothing). Nothing is allocated later.
 */
XRX_API __u64 xrx_engine__memory(const struct xrx_engine *e);
/* Aggregates held now. */
XRX_API __u32 xrx_engine__held(const struct xrx_engine *e);
/* When the oldest held aggregate times out (ns, same clock), or 0. */
XRX_API __u64 xrx_engine__next_timeout(const struct xrx_engine *e);
/*
 * The arrival time (xrx_frame.ts_ns) of the oldest held aggregate's first
 * segment, or 0 if none is held: no packet delivered later, but by a
 * frame given later, arrived earlier (frames given in arrival order).
 */
XRX_API __u64 xrx_engine__held_since(const struct xrx_engine *e);

/* Give back a delivered packet: its frames are released. */
XRX_API void xrx_pkt__release(struct xrx_engine *e, struct xrx_pkt *pkt);

/* Copy the counters: vals[] has XRX_ENGINE_STAT_MAX entries. */
XRX_API void xrx_engine__stats(const struct xrx_engine *e,
			       __u64 vals[XRX_ENGINE_STAT_MAX]);
/* Name ("flush_ack") / description of a counter; NULL if out of range. */
XRX_API const char *xrx_engine_stat__name(int stat);
XRX_API const char *xrx_engine_stat__desc(int stat);

/*
 * Header length of a frame as eth_get_headlen() counts it, with the one
 * parser xrx_rx uses (include/xrx/parse.h). @out may be NULL; its hash is
 * left 0 (the flow hash needs a key: xrx_parse() takes one).
 * Return: the header length (always <= len).
 */
XRX_API __u32 xrx_headlen(const void *frame, __u32 len, struct xrx_parsed *out);

#ifdef __cplusplus
}
#endif

#endif /* XRX_ENGINE_H */
