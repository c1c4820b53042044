/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why GRO merged, or did not. Every packet the engine delivers carries the
 * reason it ended in pkt->reason: one of the engine's flush_*, complete_*,
 * single_* or csum_bad counters (include/xrx/engine.h). This header turns
 * that reason into the words an engineer searches for and the Linux
 * kernel function that makes the same decision, per packet
 *
 *	char why[XRX_EXPLAIN_MAX];
 *	xrx_pkt__explain(pkt, 65536, why, sizeof(why));
 *	// "3 segs; flushed: TTL changed (inet_gro_flush)"
 *
 * and sums it up per flow: segments in, packets out, and each reason with
 * the aggregation it cost (struct xrx_explain, below). xrx-replay
 * --explain and the pcap sink's explain option write these words as
 * pcapng packet comments.
 *
 * Kernel functions are named as Linux 6.10 and later have them: the IPv4
 * TTL, TOS, DF and ID rules are in inet_gro_flush() and the IPv6 ones in
 * ipv6_gro_flush() (include/net/gro.h; before 6.10 in inet_gro_receive()
 * and ipv6_gro_receive()). A rule of xrx's own, which the kernel does not
 * have, names the xrx option or function instead (max_segs,
 * xrx_engine__flush_all()).
 */
#ifndef XRX_EXPLAIN_H
#define XRX_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <xrx/types.h>

struct xrx_pkt;	/* include/xrx/engine.h */

#ifdef __cplusplus
extern "C" {
#endif

/* Room for any explanation xrx_pkt__explain() writes. */
#define XRX_EXPLAIN_MAX 128

enum xrx_why_kind {
	XRX_WHY_NONE = 0,	/* pkt->reason is not a reason counter */
	XRX_WHY_FLUSHED,	/* held, and delivered for what came next
				 * (or for the table, the clock, the caller) */
	XRX_WHY_ENDED,		/* held, and its own last segment ended it */
	XRX_WHY_NOT_MERGED,	/* never held: delivered as it came */
};

struct xrx_why {
	int stat;		/* the reason: enum xrx_engine_stat */
	enum xrx_why_kind kind;
	bool full;		/* it ended at a size or segment limit: it
				 * had no room for another segment */
	const char *what;	/* "TTL changed" ("size limit": the number is
				 * xrx_pkt__explain()'s) */
	const char *func;	/* "inet_gro_flush" */
};

/*
 * Why @pkt, a delivered packet, ended: its reason told for its headers
 * (IPv4 or IPv6, TCP or UDP, the TCP flags, which checksum was bad).
 * Return: 0, or -EINVAL (kind NONE) if pkt->reason is not a reason.
 */
XRX_API int xrx_pkt__why(const struct xrx_pkt *pkt, struct xrx_why *why);

/*
 * Write "N segs; KIND: WHAT (FUNC)" for @pkt into @buf, e.g. "45 segs;
 * flushed: size limit 65536 (skb_gro_receive)". @max_aggregate: the
 * engine's, named in a size-limit explanation (0: not named).
 * Return: the length written, cut to fit @size with its NUL;
 * XRX_EXPLAIN_MAX bytes always hold it whole.
 */
XRX_API int xrx_pkt__explain(const struct xrx_pkt *pkt, __u32 max_aggregate,
			     char *buf, size_t size);

/*
 * A per-flow summary of delivered packets: segments in, packets out, and
 * for each reason how many packets ended with it and how many packets it
 * added. A packet that ended while it still had room (not at the size or
 * segment limit) and that another packet of its flow followed added one:
 * that packet's first segment would otherwise have merged into it. A
 * TCP/UDP frame delivered alone with payload (not merged: bad checksum,
 * SYN, ...) added one, itself. So the reason that added the most is the
 * one that cost the most aggregation, and without it the flow would have
 * about that many packets fewer.
 *
 * A flow is what its headers print as: addresses, ports and protocol,
 * with its VLAN tags and VXLAN VNI; other frames are grouped by
 * EtherType or IP protocol.
 */
struct xrx_explain;

/* @max_aggregate: as for xrx_pkt__explain(). Return: NULL on ENOMEM. */
XRX_API struct xrx_explain *xrx_explain__new(__u32 max_aggregate);
XRX_API void xrx_explain__free(struct xrx_explain *x);
/* Count one delivered packet. Return: 0 or -ENOMEM. */
XRX_API int xrx_explain__add(struct xrx_explain *x, const struct xrx_pkt *pkt);
/*
 * Print the summary to @f: all flows together, then each flow, flows and
 * reasons sorted by the packets they added, most first. @json: one JSON
 * object instead of text. Return: 0, or -EIO if writing failed.
 */
XRX_API int xrx_explain__print(const struct xrx_explain *x, FILE *f,
			       bool json);

#ifdef __cplusplus
}
#endif

#endif /* XRX_EXPLAIN_H */
