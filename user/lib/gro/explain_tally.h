/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-flow tally of why packets ended (struct xrx_explain,
 * include/xrx/explain.h): kept by explain_tally.c, printed by
 * explain_print.c.
 */
#ifndef XRX_GRO_EXPLAIN_TALLY_H
#define XRX_GRO_EXPLAIN_TALLY_H

#include <xrx/explain.h>

#define XRX_FLOW_NAME 112

/* One reason in one flow: packets that ended with it, and their cost. */
struct xrx_explain_cnt {
	__u32 row;
	__u32 segs;		/* segments of the first such packet */
	__u64 pkts;
	__u64 cost;
};

struct xrx_explain_flow {
	char name[XRX_FLOW_NAME];
	__u64 segs_in;
	__u64 pkts_out;
	__u64 aggs_out;
	__u64 cost;
	int last_row;		/* of its last packet with payload; -1 */
	int last;		/* XRX_LAST_* of that packet */
	__u32 nr_cnt;
	__u32 cap_cnt;
	struct xrx_explain_cnt *cnt;
};

struct xrx_explain {
	__u32 max_aggregate;
	__u32 nr_flows;
	__u32 cap_flows;
	struct xrx_explain_flow *flows;
	__u32 *slots;		/* open addressing: flow index + 1, 0 free */
	__u32 nr_slots;		/* a power of two, at least 2 x nr_flows */
	__u64 unexplained;	/* packets whose reason is not one */
};

#endif /* XRX_GRO_EXPLAIN_TALLY_H */
