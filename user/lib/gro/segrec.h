/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Segment records (include/xrx/segrec.h, docs/lossless.md): the recorder's
 * side, which the pcap sink calls, and the engine's view of a delivered
 * aggregate's segments. Not installed; not API.
 */
#ifndef XRX_LIB_GRO_SEGREC_H
#define XRX_LIB_GRO_SEGREC_H

#include <stdbool.h>
#include <xrx/types.h>
#include <xrx/segrec.h>

struct xrx_pkt;

/* The record's layout byte (docs/lossless.md) */
#define XRX_SEGREC_K_IPV6 0x01		/* IPv6 at l3_off, else IPv4 */
#define XRX_SEGREC_K_UDP 0x02		/* UDP at l4_off, else TCP */
#define XRX_SEGREC_K_FIXEDID 0x04	/* IPv4 ID the same in every segment */
#define XRX_SEGREC_K_ALL 0x07

/*
 * Where a segment's headers are: @hlen bytes of header before its
 * payload, its IP header at @l3_off and TCP/UDP header at @l4_off; in the
 * aggregate the payload starts at @aoff (hlen, or hlen + 8 where an IPv6
 * jumbo option was inserted).
 */
struct xrx_segrec_layout {
	__u32 hlen;
	__u32 aoff;
	__u32 l3_off;
	__u32 l4_off;
	__u8 kind;			/* XRX_SEGREC_K_* */
};

/* One segment as it arrived: @len bytes at @frame, at @ts_ns. */
struct xrx_segrec_seg {
	const __u8 *frame;
	__u32 len;
	__u64 addr;			/* its frame in the engine's region */
	__u64 ts_ns;
};

/*
 * What the engine verified of every segment of an aggregate: its IPv4
 * header checksum (inet_gro_receive() checks it always), its TCP/UDP
 * checksum (csum = verify). A checksum known good need not be summed
 * again to know that the rebuild's equals it.
 */
#define XRX_SEGREC_OK_IP 0x01
#define XRX_SEGREC_OK_L4 0x02

/*
 * The segments of the delivered packet @pkt, as the engine saw them, into
 * @segs (room for @max), each with its arrival time (xrx_frame.ts_ns);
 * the layout's hlen into *@hlen, what was verified
 * of them into *@ok (XRX_SEGREC_OK_*). A packet held
 * alone is one segment whose frame is not given (frame NULL), only its
 * addr. Return: the number of segments, or -ENODATA when the engine did
 * not keep the frames in place (copy = full or max-head, a frame in
 * several pieces), -E2BIG beyond @max.
 */
int xrx_pkt_segs(const struct xrx_pkt *pkt, struct xrx_segrec_seg *segs,
		 __u32 max, __u32 *hlen, __u8 *ok);

/*
 * The layout of @pkt's record, its segments' header length @hlen.
 * Return: 0, or -EOPNOTSUPP for a packet no record describes.
 */
int xrx_segrec_layout_of(const struct xrx_pkt *pkt, __u32 hlen,
			 struct xrx_segrec_layout *l);

/*
 * The record of an aggregate whose header bytes are @ahdr (l->aoff of
 * them), @cap bytes of it captured, its @n segments @segs, its timestamp
 * @ts_ns, into @out (@max bytes). @ok: the checksums the engine verified
 * (XRX_SEGREC_OK_*). Return: the record's length, or
 * -E2BIG if it does not fit.
 */
int xrx_segrec_encode(const struct xrx_segrec_layout *l, const __u8 *ahdr,
		      __u32 cap, const struct xrx_segrec_seg *segs, __u32 n,
		      __u64 ts_ns, __u8 ok, __u8 *out, __u32 max);

#endif /* XRX_LIB_GRO_SEGREC_H */
