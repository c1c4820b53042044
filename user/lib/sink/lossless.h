/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pcap sink's lossless mode (docs/lossless.md): per delivered packet,
 * the pcapng custom option holding its segment record, and the time its
 * Enhanced Packet Block carries. Kept apart from the writer so that it
 * moves onto another pcapng writer as it is. Not installed; not API.
 */
#ifndef XRX_LIB_SINK_LOSSLESS_H
#define XRX_LIB_SINK_LOSSLESS_H

#include <xrx/types.h>
#include <xrx/segrec.h>

struct xrx_pkt;
struct xrx_segrec_seg;

struct xrx_lossless {
	struct xrx_segrec_seg *segs;	/* room for nr_segs */
	__u32 nr_segs;
	__u64 unrecorded;		/* aggregates written without one */
	__u8 opt[8 + XRX_SEGREC_MAX + 3];	/* for xrx_lossless_option() */
};

/* Return: NULL on ENOMEM. */
struct xrx_lossless *xrx_lossless_new(void);
void xrx_lossless_free(struct xrx_lossless *l);

/*
 * The custom option (code, length, PEN, record, padding to 4) of @pkt
 * written with @cap of its bytes and the block's time @ts_ns (each
 * segment's is its arrival time, xrx_pkt_segs()), into @out (room for
 * sizeof(l->opt)). Return: its bytes, 0 for a packet
 * that needs none (held alone) or could not be recorded (counted in
 * l->unrecorded).
 */
__u32 xrx_lossless_option(struct xrx_lossless *l, const struct xrx_pkt *pkt,
			  __u32 cap, __u64 ts_ns, __u8 *out);

#endif /* XRX_LIB_SINK_LOSSLESS_H */
