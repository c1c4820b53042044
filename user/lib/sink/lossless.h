/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pcap sink's lossless mode (docs/lossless.md): per delivered packet,
 * the pcapng custom option holding its segment record, and the time its
 * Enhanced Packet Block carries. Kept apart from the writer so that it
 * moves onto another pcapng writer as it is. Not installed; not API.
 */
#ifndef XRX_LIB_SINK_LOSSLESS_H
#define XRX_LIB_SINK_LOSSLESS_H

#include <stdbool.h>
#include <xrx/types.h>
#include <xrx/segrec.h>

struct xrx_pkt;
struct xrx_segrec_seg;

struct xrx_lossless {
	struct xrx_segrec_seg *segs;	/* room for nr_segs */
	__u32 nr_segs;
	__u64 unrecorded;		/* aggregates written without one */
	/*
	 * A tee's sink (sink/tee.c): its packets are copies, whose frames
	 * have gone back by the time it writes them; the tee's worker made
	 * each record while it had them, and gives it with the packet
	 * (xrx_lossless_give()). Such a sink never makes one itself.
	 */
	bool given_only;
	const __u8 *given;
	__u32 given_len;
	__u64 given_ts;
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

/*
 * The option of the next packet @l's sink writes (a tee's: given_only),
 * @len bytes at @opt (0: none, or none could be made), made for its
 * block's time @ts_ns. @opt must stay until that packet is written.
 */
void xrx_lossless_give(struct xrx_lossless *l, const __u8 *opt, __u32 len,
		       __u64 ts_ns);

/*
 * The option of @pkt written with @cap of its bytes and its block's time
 * @now_ns (the packet's arrival time): made here, or the one given (a
 * tee's, with the time it was made for). Its block's time into *@ts_ns,
 * where it is into *@opt. Return: its bytes, 0 for none.
 */
__u32 xrx_lossless_record(struct xrx_lossless *l, const struct xrx_pkt *pkt,
			  __u32 cap, __u64 now_ns, __u64 *ts_ns,
			  const __u8 **opt);

struct xrx_sink;
/*
 * @s's lossless state, if @s is a pcap sink writing a lossless capture,
 * with its snaplen into *@snaplen; else NULL (sink/pcap.c).
 */
struct xrx_lossless *xrx_sink_pcap__lossless(struct xrx_sink *s,
					     __u32 *snaplen);

#endif /* XRX_LIB_SINK_LOSSLESS_H */
