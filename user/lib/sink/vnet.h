/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From a delivered packet (struct xrx_pkt) to what a TUN device with
 * IFF_VNET_HDR takes: a struct virtio_net_hdr and the packet's bytes.
 * Pure functions (no I/O), used by the TUN sink (sink/tun.c) and tested
 * on their own (tests/unit/test_vnet.c).
 *
 * @base is where the written bytes start in the packet: 0 for a frame
 * with its Ethernet header (IFF_TAP), pkt->l3_off for an IP packet
 * (IFF_TUN). Every offset in the virtio_net_hdr is relative to it, as
 * tun_get_user() hands skb->data at that byte to virtio_net_hdr_to_skb().
 *
 * Fields are in native byte order: the legacy virtio header a TUN device
 * uses unless TUNSETVNETLE/BE is called (tun_is_little_endian() ->
 * virtio_legacy_is_little_endian()).
 */
#ifndef XRX_LIB_VNET_H
#define XRX_LIB_VNET_H

#include <stdbool.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include <xrx/engine.h>

/* Debian 12's linux-libc-dev (6.1) predates USO (Linux 6.2). */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* The longest IP packet one virtio_net_hdr write carries (see sink/tun.c). */
#define XRX_VNET_MAX_IP_LEN 65535

/*
 * Header bytes of @pkt: the offset of its first payload byte (l4_off +
 * TCP data offset or 8 for UDP). 0 if the packet is not TCP/UDP or its
 * L4 header is not in the head buffer.
 */
__u32 xrx_vnet_hdr_len(const struct xrx_pkt *pkt);

/*
 * virtio_net_hdr for @pkt written whole from byte @base, the inverse of
 * virtio_net_hdr_to_skb() and the same as virtio_net_hdr_from_skb()
 * would give for the skb the kernel's GRO builds:
 *   aggregate (gso_type set): GSO type, ECN bit if the first segment had
 *     CWR (tcp_gro_complete() -> SKB_GSO_TCP_ECN), gso_size, hdr_len,
 *     NEEDS_CSUM with csum_start/csum_offset (CHECKSUM_PARTIAL);
 *   single, csum UNNECESSARY: DATA_VALID;
 *   single, csum NONE: nothing (the stack verifies);
 *   single, csum PARTIAL: NEEDS_CSUM.
 * Return: 0, or -EINVAL for a packet the kernel would refuse (an
 * aggregate without a partial checksum, offsets before @base).
 */
int xrx_vnet_hdr_from_pkt(const struct xrx_pkt *pkt, __u32 base,
			  struct virtio_net_hdr *vh);

/*
 * iovecs for bytes [off, off + len) of @pkt (head, then frags), without
 * copying. Return: the number used, or -E2BIG if more than @max are
 * needed, -EINVAL if the range is outside the packet.
 */
int xrx_vnet_iov(const struct xrx_pkt *pkt, __u32 off, __u32 len,
		 struct iovec *iov, int max);

/*
 * One piece of an aggregate cut at segment boundaries: segments
 * [seg, seg + n) of @pkt as one packet, as tcp_gso_segment() and
 * __udp_gso_segment() would build each of them, but n at a time:
 *   IPv4 tot_len and header checksum, ID = first ID + seg unless the
 *   flow was fixed-ID; IPv6 payload_len; TCP seq advanced by seg * mss,
 *   FIN and PSH only in the last piece, CWR only in the first; UDP
 *   length.
 * The L4 checksum is the pseudo-header sum with NEEDS_CSUM, or with
 * @full_csum the complete checksum over the piece's payload (read, not
 * copied) and no flag. A piece of n >= 2 segments is GSO (gso_size =
 * mss); n = 1 is a plain packet.
 *
 * An IPv6 aggregate in the Linux 6.x BIG TCP form (payload_len 0 and the
 * 8-byte hop-by-hop jumbo option, xrx_engine_opts.ipv6_jumbo HBH) loses
 * the option in every piece, as ipv6_gso_segment() takes it out: the
 * piece's headers are 8 bytes shorter and its payload_len is set.
 *
 * @hdr receives the piece's header bytes from @base (xrx_vnet_hdr_len()
 * - base of them, 8 fewer without a jumbo option; @cap must hold them
 * all). The payload is bytes [*pay_off, *pay_off + *pay_len) of the
 * packet (see xrx_vnet_iov()).
 * Return: the header length written, or -EINVAL (not an aggregate, @seg
 * out of range), -ENOSPC (@cap too small), -E2BIG (the piece's IP length
 * would not fit IPv4 tot_len or IPv6 payload_len: fewer segments).
 */
int xrx_vnet_piece(const struct xrx_pkt *pkt, __u32 base, __u32 seg,
		   __u32 n, bool full_csum, __u8 *hdr, __u32 cap,
		   struct virtio_net_hdr *vh, __u32 *pay_off, __u32 *pay_len);

/* Segments of @pkt (its payload cut at gso_size); 1 for a single. */
__u32 xrx_vnet_nr_segs(const struct xrx_pkt *pkt);

/*
 * GSO over a UDP tunnel (VXLAN aggregates: gso_flags XRX_GSO_F_UDP_TUNNEL
 * or XRX_GSO_F_UDP_TUNNEL_CSUM), Linux 6.17+. The virtio_net_hdr grows to
 * struct virtio_net_hdr_v1_hash_tunnel (TUNSETVNETHDRSZ 24), whose last
 * two fields locate the outer UDP and the inner IP header; the kernel
 * reads them in virtio_net_hdr_tnl_to_skb() (include/linux/virtio_net.h):
 *   - gso_type is the inner one (TCPV4/TCPV6, ECN) OR-ed with
 *     UDP_TUNNEL_IPV4 or UDP_TUNNEL_IPV6 for the outer header (one);
 *   - NEEDS_CSUM, csum_start at the INNER transport header;
 *   - F_UDP_TUNNEL_CSUM for a non-zero outer UDP checksum
 *     (SKB_GSO_UDP_TUNNEL_CSUM), else SKB_GSO_UDP_TUNNEL;
 *   - outer_th_offset >= ETH_HLEN + the outer IP header, inner_nh_offset
 *     >= outer_th_offset + 8, csum_start >= inner_nh_offset + the inner IP
 *     header: offsets count from the Ethernet header. 6.18 applies the
 *     ETH_HLEN minimum to IFF_TUN writes too, which start at the IP
 *     header, so only an L2 (IFF_TAP) write can pass it.
 * The tunnel fields are little-endian whatever TUNSETVNETLE says
 * (le16_to_cpu()), and the kernel reads the base header through
 * __virtio_net_hdr_to_skb(..., little_endian = true): the sink uses this
 * form on little-endian hosts only.
 * Debian 12's linux-libc-dev (6.1) has none of it.
 */
#ifndef VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM
#define VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM 8
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 0x20
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 0x40
#endif

/* struct virtio_net_hdr_v1_hash_tunnel, spelled out */
struct xrx_vnet_hdr_tnl {
	struct virtio_net_hdr hdr;	/* the legacy 10 bytes */
	__u16 num_buffers;		/* 0 (receive side only) */
	__u16 hash_value_lo;		/* 0: no hash report */
	__u16 hash_value_hi;
	__u16 hash_report;
	__u16 padding;
	__u16 outer_th_offset;		/* little-endian */
	__u16 inner_nh_offset;		/* little-endian */
};
_Static_assert(sizeof(struct xrx_vnet_hdr_tnl) == 24,
	       "virtio_net_hdr_v1_hash_tunnel is 24 bytes");

/* A VXLAN aggregate: GSO over a UDP tunnel, not plain TCP. */
static inline bool xrx_vnet_is_tnl(const struct xrx_pkt *pkt)
{
	return pkt->gso_type != XRX_GSO_NONE &&
	       (pkt->gso_flags &
		(XRX_GSO_F_UDP_TUNNEL | XRX_GSO_F_UDP_TUNNEL_CSUM));
}

/*
 * The extended header for VXLAN aggregate @pkt written whole from byte
 * @base (0: the Ethernet header), what virtio_net_hdr_tnl_from_skb()
 * gives for the skb the kernel's UDP-tunnel GRO builds. Return: 0, or
 * -EINVAL (not a tunnel aggregate, no partial sum, inner not TCP, @base
 * past the outer IP header).
 */
int xrx_vnet_tnl_hdr_from_pkt(const struct xrx_pkt *pkt, __u32 base,
			      struct xrx_vnet_hdr_tnl *vh);

/*
 * Segment @seg of VXLAN aggregate @pkt as one full VXLAN packet, with the
 * headers the kernel's GSO gives it (skb_udp_tunnel_segment() around
 * tcp_gso_segment(), inet_gso_segment() / ipv6_gso_segment() on each
 * side):
 *   outer IPv4 tot_len, ID = first + seg unless XRX_GSO_F_FIXEDID, and
 *     header checksum; outer IPv6 payload_len; UDP length; the outer UDP
 *     checksum zero for XRX_GSO_F_UDP_TUNNEL, else complete (0 -> 0xffff);
 *   inner IPv4 tot_len, ID = first + seg unless XRX_GSO_F_FIXEDID_INNER,
 *     header checksum; inner IPv6 payload_len;
 *   TCP seq advanced by seg * mss, FIN and PSH on the last segment only,
 *     CWR on the first only, and the complete TCP checksum.
 * No GSO and no partial sum: the packet is final, its payload read (not
 * copied) for the sums. @hdr receives its header bytes from @base (the
 * aggregate's up to the end of the inner TCP header, at most @cap); the
 * payload is bytes [*pay_off, *pay_off + *pay_len) of @pkt
 * (xrx_vnet_iov()). Return: the header length written, or -EINVAL (not a
 * tunnel aggregate, @seg out of range, offsets out of order), -ENOSPC.
 */
int xrx_vnet_tnl_seg(const struct xrx_pkt *pkt, __u32 base, __u32 seg,
		     __u8 *hdr, __u32 cap, __u32 *pay_off, __u32 *pay_len);

#endif /* XRX_LIB_VNET_H */
