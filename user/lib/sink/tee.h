/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tee (sink/tee.c): every packet delivered to a primary sink is also
 * given to a second sink, in the same order, and goes back to its owner
 * only once both have released it. The live path's tee
 * (xrx_live_opts.tee, include/xrx/live.h) is one per queue. Not API.
 *
 *   both sinks bound to one release callback, which asks first:
 *	if (!xrx_tee__release(t, pkt)) return;	// the other still holds it
 *	... give pkt back to its owner
 *   per packet:	xrx_tee__deliver(t, primary, pkt);
 *   batch end:		xrx_sink__flush(primary); xrx_tee__flush(t);
 *
 * A tee that fails (a full disk, a TUN that refuses writes) counts in its
 * own sink's counters (errors, dropped) and never in the primary's; the
 * primary is served first and gets every packet whatever the tee does.
 * xrx_tee__flush() says when the tee begins and stops losing packets, so
 * that the caller logs once per episode.
 */
#ifndef XRX_LIB_SINK_TEE_H
#define XRX_LIB_SINK_TEE_H

#include <stdbool.h>
#include <xrx/sink.h>

/*
 * Packets both sinks hold at once are remembered in an open-addressed
 * table of twice as many slots. A sink gives everything back in flush(),
 * so when it is full both are flushed early; the built-in sinks never
 * hold more than pcap's queue of 64.
 */
#define XRX_TEE_SLOTS 512
#define XRX_TEE_HELD_MAX (XRX_TEE_SLOTS / 2)

/* What xrx_tee__flush() saw since the flush before it. */
enum xrx_tee_turn {
	XRX_TEE_SAME = 0,
	XRX_TEE_LOSING,		/* began to lose packets (errors, dropped) */
	XRX_TEE_WRITING,	/* writes again, none lost since */
};

struct xrx_tee {
	struct xrx_sink *sink;		/* the second sink, owned */
	__u32 nr_held;
	bool losing;			/* in an episode of losses */
	int err;			/* last error the sink returned */
	__u64 lost_seen;		/* errors + dropped at the last flush */
	__u64 lost_from;		/* ... when the episode began */
	__u64 out_seen;			/* pkts_out at the last flush */
	struct xrx_pkt *held[XRX_TEE_SLOTS];	/* held by both sinks */
};

/* A tee around @sink, already bound (xrx_sink__bind()). NULL: ENOMEM. */
struct xrx_tee *xrx_tee__new(struct xrx_sink *sink);
/* Close the sink (it releases what it still holds) and free. */
void xrx_tee__free(struct xrx_tee *t);
/*
 * @pkt to @primary, then to the tee's sink. Return: what the primary's
 * deliver returned; the tee's errors are its own.
 */
int xrx_tee__deliver(struct xrx_tee *t, struct xrx_sink *primary,
		     struct xrx_pkt *pkt);
/*
 * One of the two sinks released @pkt. Return: true when it is the last
 * (the packet goes back to its owner now), false when the other sink
 * still holds it.
 */
bool xrx_tee__release(struct xrx_tee *t, const struct xrx_pkt *pkt);
/* Flush the tee's sink; its losses since the last flush, as a turn. */
enum xrx_tee_turn xrx_tee__flush(struct xrx_tee *t);
/* Packets lost in the episode that began at the last XRX_TEE_LOSING. */
__u64 xrx_tee__episode_lost(const struct xrx_tee *t);

#endif /* XRX_LIB_SINK_TEE_H */
