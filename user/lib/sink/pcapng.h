/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pcapng writer's pieces (draft-ietf-opsawg-pcapng): the blocks a
 * capture file is made of, built into the caller's buffers, so that a
 * writer can put them in a writev() or a hand-off ring as it likes. Not
 * API; used by the pcap sink (sink/pcap.c) and its one-file writer
 * (sink/merge.c).
 *
 * Blocks are written in host byte order, which the Section Header's
 * byte-order magic tells readers (as tcpdump's pcap files are). Every
 * length here is a byte count with the block's padding to 32 bits.
 *
 *   SHB  xrx_pcapng_shb()     a section: the file's first block
 *   IDB  xrx_pcapng_idb()     an interface; xrx writes one per queue, so
 *                             an EPB's interface_id is its queue
 *   EPB  xrx_pcapng_epb_*()   a packet, with options after its data
 *   CB   xrx_pcapng_custom()  a custom block (PEN-tagged bytes)
 *   options: xrx_pcapng_opt() (any, custom options included) and
 *            xrx_pcapng_opt_end(), into a buffer the block then carries
 */
#ifndef XRX_LIB_SINK_PCAPNG_H
#define XRX_LIB_SINK_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <xrx/types.h>

#define XRX_PCAPNG_SHB 0x0a0d0d0a
#define XRX_PCAPNG_IDB 0x00000001
#define XRX_PCAPNG_EPB 0x00000006
#define XRX_PCAPNG_CB_COPY 0x00000bad	/* custom, may be copied */
#define XRX_PCAPNG_CB_NOCOPY 0x40000bad	/* custom, not to be copied */
#define XRX_PCAPNG_BOM 0x1a2b3c4d	/* byte-order magic */

/* Option codes. */
#define XRX_PCAPNG_OPT_END 0		/* opt_endofopt */
#define XRX_PCAPNG_OPT_COMMENT 1	/* opt_comment, UTF-8 */
#define XRX_PCAPNG_OPT_CUSTOM_STR 2988	/* PEN, then UTF-8, copyable */
#define XRX_PCAPNG_OPT_CUSTOM_BIN 2989	/* PEN, then bytes, copyable */
#define XRX_PCAPNG_SHB_USERAPPL 4
#define XRX_PCAPNG_IF_NAME 2
#define XRX_PCAPNG_IF_DESCRIPTION 3
#define XRX_PCAPNG_IF_TSRESOL 9
#define XRX_PCAPNG_EPB_QUEUE 6		/* epb_queue, u32 */

#define XRX_PCAPNG_PAD4(n) (((n) + 3u) & ~3u)

/* An IDB's comment, the queue's number in it: where the times come from
 * (docs/capture.md) */
#define XRX_PCAPNG_IDB_COMMENT                                                \
	"xrx queue %u; timestamps: arrival (an aggregate: its first "          \
	"segment's), CLOCK_REALTIME at the RX ring or the NIC's, as each "     \
	"EPB's time option says"
#define XRX_PCAPNG_LINKTYPE_ETHERNET 1

/* An Enhanced Packet Block up to its data. */
struct xrx_pcapng_epb {
	__u32 type;
	__u32 total_len;
	__u32 if_id;
	__u32 ts_high;			/* in if_tsresol units */
	__u32 ts_low;
	__u32 cap_len;
	__u32 orig_len;
};

/*
 * One option into @buf: code, length, value, padding. Return: its bytes
 * (4 + the value padded), or 0 when @cap is too small.
 */
__u32 xrx_pcapng_opt(void *buf, size_t cap, __u16 code, const void *val,
		     __u16 len);
/* A custom option (2988: a string, 2989: bytes) tagged with @pen. */
__u32 xrx_pcapng_opt_custom(void *buf, size_t cap, __u16 code, __u32 pen,
			    const void *val, __u16 len);
/* opt_endofopt: 4 zero bytes. */
__u32 xrx_pcapng_opt_end(void *buf, size_t cap);

/*
 * A Section Header Block, section length unknown, with shb_userappl
 * @appl (may be NULL). Return: its bytes, 0 when @cap is too small.
 */
__u32 xrx_pcapng_shb(void *buf, size_t cap, const char *appl);
/*
 * An Interface Description Block for LINKTYPE_ETHERNET, @snaplen, time
 * in 10^-@tsresol s, with if_name @name and opt_comment @comment (either
 * may be NULL). Return: its bytes, 0 when @cap is too small.
 */
__u32 xrx_pcapng_idb(void *buf, size_t cap, __u32 snaplen, __u8 tsresol,
		     const char *name, const char *comment);
/* The bytes of an EPB of @cap_len data bytes and @opts_len bytes of
 * options (opt_endofopt included, 0 for none). */
static inline __u32 xrx_pcapng_epb_len(__u32 cap_len, __u32 opts_len)
{
	return (__u32)sizeof(struct xrx_pcapng_epb) +
	       XRX_PCAPNG_PAD4(cap_len) + opts_len + 4;
}
/* Fill an EPB's header: interface @if_id, time @ts (if_tsresol units). */
void xrx_pcapng_epb_head(struct xrx_pcapng_epb *h, __u32 if_id, __u64 ts,
			 __u32 cap_len, __u32 orig_len, __u32 total_len);
/*
 * What follows an EPB's @cap_len data bytes into @t: the padding, the
 * @opts_len bytes of @opts (opt_endofopt included, or none) and the
 * block's length again. Return: its bytes.
 */
__u32 xrx_pcapng_epb_tail(void *t, __u32 cap_len, const void *opts,
			  __u32 opts_len, __u32 total_len);
/*
 * A Custom Block of @len bytes of @data for Private Enterprise Number
 * @pen (@copy: readers may copy it into other files). Return: its bytes,
 * 0 when @cap is too small.
 */
__u32 xrx_pcapng_custom(void *buf, size_t cap, __u32 pen, bool copy,
			const void *data, __u32 len);

#endif /* XRX_LIB_SINK_PCAPNG_H */
