/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The why-table inside libxrx (explain_why.c): its rows and what they ask
 * of a packet, for the per-flow tally (explain_tally.c) and its printing
 * (explain_print.c). The public face is include/xrx/explain.h.
 */
#ifndef XRX_GRO_EXPLAIN_WHY_H
#define XRX_GRO_EXPLAIN_WHY_H

#include <stdbool.h>
#include <stddef.h>

#include <xrx/engine.h>
#include <xrx/explain.h>

/*
 * What a row asks of the packet, and what xrx_why_facts() finds: the IP
 * version and transport of the header the reason is about (the outer one
 * for flush_outer_*), the TCP flags, and for csum_bad which sum failed.
 */
enum {
	XF_V4 = 1 << 0,
	XF_V6 = 1 << 1,
	XF_TCP = 1 << 2,
	XF_UDP = 1 << 3,
	XF_TNL = 1 << 4,	/* VXLAN or GENEVE */
	XF_IPSUM = 1 << 5,	/* csum_bad: an IPv4 header's sum */
	XF_OUTER = 1 << 6,	/* csum_bad: the outer UDP sum */
	XF_FIN = 1 << 8,	/* TCP flags, XRX_TH_* << 8 */
	XF_SYN = 1 << 9,
	XF_RST = 1 << 10,
	XF_PSH = 1 << 11,
	XF_URG = 1 << 13,
	XF_CWR = 1 << 15,
};

struct xrx_why_row {
	__u16 stat;
	__u16 match;
	__u8 kind;
	bool full;
	const char *what;
	const char *func;
};

/* The rows, XRX_WHY_TABLE's order, and how many. */
extern const struct xrx_why_row xrx_why_rows[];
extern const __u32 xrx_why_nr_rows;
/* Words of the kinds, as the comments and the summary print them. */
extern const char *const xrx_why_kind_words[];

/* XF_V4 or XF_V6 for the IP header at @l3 of @p, 0 if there is none. */
__u32 xrx_why_ip(const struct xrx_pkt *p, __u32 l3);
/* The row for @p, or -1 if its reason is not one. */
int xrx_why_row(const struct xrx_pkt *p);
/*
 * "KIND: WHAT (FUNC)" of @row into @buf; the size limit names
 * @max_aggregate and the segment limit the segments (@segs) it stopped at.
 */
void xrx_why_format(int row, __u32 max_aggregate, __u32 segs, char *buf,
		    size_t size);

#endif /* XRX_GRO_EXPLAIN_WHY_H */
