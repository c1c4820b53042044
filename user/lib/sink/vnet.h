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
 * @hdr receives the piece's header bytes from @base (xrx_vnet_hdr_len()
 * - base of them, at most @cap). The payload is bytes [*pay_off,
 * *pay_off + *pay_len) of the packet (see xrx_vnet_iov()).
 * Return: the header length written, or -EINVAL (not an aggregate, @seg
 * out of range), -ENOSPC (@cap too small).
 */
int xrx_vnet_piece(const struct xrx_pkt *pkt, __u32 base, __u32 seg,
		   __u32 n, bool full_csum, __u8 *hdr, __u32 cap,
		   struct virtio_net_hdr *vh, __u32 *pay_off, __u32 *pay_len);

/* Segments of @pkt (its payload cut at gso_size); 1 for a single. */
__u32 xrx_vnet_nr_segs(const struct xrx_pkt *pkt);

#endif /* XRX_LIB_VNET_H */
