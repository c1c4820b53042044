/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Segment records: what an aggregate would lose of its segments, kept
 * beside it so that the frames can be rebuilt byte for byte. A lossless
 * pcap capture ("pcap:PATH,lossless", xrx-replay --lossless) writes every
 * aggregate as one pcapng Enhanced Packet Block with one custom option
 * (code XRX_SEGREC_OPT_CODE, PEN XRX_SEGREC_PEN) holding its record;
 * xrx-replay --split turns such a file back into the frame stream.
 *
 * The record and the rebuild are specified in docs/lossless.md. In short:
 * splitting an aggregate, as the kernel's GSO segmentation does, gives
 * every segment the aggregate's headers with the IP length, IPv4 ID
 * (+1 a segment unless fixed) and TCP sequence number of its own, PSH and
 * FIN only on the last segment and CWR only on the first, and fresh
 * checksums; the record carries each segment's payload length, arrival
 * time and the header bytes in which the real frame differs from that.
 *
 *   xrx_segrec__split(agg, cap, len, ts_ns, rec, rec_len, emit, ctx);
 *
 * Not thread-bound; no state.
 */
#ifndef XRX_SEGREC_H
#define XRX_SEGREC_H

#include <xrx/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The Private Enterprise Number the custom option carries. xrx has none of
 * its own: 32473 is the number IANA reserves for examples in
 * documentation (RFC 5612). A reader must match the PEN and the record's
 * version byte before it trusts the bytes.
 */
#define XRX_SEGREC_PEN 32473
/* pcapng custom option: binary, may be copied (draft-ietf-opsawg-pcapng) */
#define XRX_SEGREC_OPT_CODE 2989
#define XRX_SEGREC_VERSION 1
/* The largest record an option holds: its 16-bit length, less the PEN. */
#define XRX_SEGREC_MAX (65535 - 4)

/*
 * The time option: every EPB xrx writes in pcapng carries one, with the
 * same code and PEN as the segment record, told apart from it by its
 * first byte (a record's is its version, 1). The EPB's own timestamp is
 * the packet's arrival time (an aggregate's first segment's); this adds
 * the last segment's and where each came from (docs/capture.md). All in
 * the section's byte order.
 */
#define XRX_TIME_OPT_KIND 0x54		/* 'T' */
#define XRX_TIME_OPT_F_NIC 0x01		/* the EPB's time is the NIC's
					 * RX timestamp, else software */
#define XRX_TIME_OPT_F_NIC_LAST 0x02	/* last_ns is the NIC's */

struct xrx_time_opt {
	__u8 kind;			/* XRX_TIME_OPT_KIND */
	__u8 flags;			/* XRX_TIME_OPT_F_* */
	__u16 reserved;			/* zero */
	__u32 segs;			/* segments in the packet, >= 1 */
	__u64 last_ns;			/* the last segment's arrival, ns
					 * since the epoch (whatever the
					 * interface's if_tsresol) */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_time_opt) == 16,
		  "the time option's value, after the PEN");

/* One rebuilt frame: @len bytes of which @cap are at @data. */
typedef int (*xrx_segrec_emit_fn)(void *ctx, const __u8 *data, __u32 cap,
				  __u32 len, __u64 ts_ns);

/*
 * Split the aggregate @agg (@cap of its @len bytes captured, its
 * timestamp @ts_ns) into its frames with the record @rec of @rec_len
 * bytes (the option's value after the PEN), calling @emit for each, in
 * order. A frame whose bytes run past what was captured comes out with
 * what there is of it (cap < len).
 * Return: 0, what @emit returned if not 0, or -EINVAL if the record is
 * malformed or does not fit the aggregate (nothing emitted then).
 */
XRX_API int xrx_segrec__split(const __u8 *agg, __u32 cap, __u32 len,
			      __u64 ts_ns, const __u8 *rec, __u32 rec_len,
			      xrx_segrec_emit_fn emit, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* XRX_SEGREC_H */
