/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tee (sink/tee.c): every packet delivered to a primary sink is also
 * given to a second sink, in the same order, by a writer thread of the
 * tee's own, so that a slow tee (a disk under dirty-page throttling, a
 * slow device, a frozen file system) never holds the primary up. The
 * live path's tee (xrx_live_opts.tee, include/xrx/live.h) is one per
 * queue. Not API.
 *
 *   per packet:	xrx_tee__deliver(t, primary, pkt);
 *   batch end:		xrx_sink__flush(primary); xrx_tee__flush(t);
 *
 * The worker copies each packet (its headers and payload, linear) into
 * the tee's bounded ring before the primary gets it; the packet itself is
 * the primary's alone, so it goes back to its owner when the primary
 * releases it, and a frame never waits on the tee. When the ring is full
 * the tee goes without and counts the packet in its own sink's pkts_in
 * and dropped; the primary still gets every packet. What the tee fails
 * to write (a full disk) counts in its sink's errors, never in the
 * primary's. xrx_tee__flush() says when the tee begins and stops losing
 * packets, so that the caller logs once per episode.
 */
#ifndef XRX_LIB_SINK_TEE_H
#define XRX_LIB_SINK_TEE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <xrx/engine.h>
#include <xrx/sink.h>

/*
 * The hand-off, bytes per tee (per queue): at 2.5 Gbit/s about 100 ms of
 * traffic, the writer's slack for a disk that stalls or a CPU too busy to
 * run it; what comes beyond that costs the tee dropped records, never
 * the primary. Memory: 32 MiB per queue with a tee, resident from the
 * tee's start (xrx_pcap__ring_alloc()).
 */
#define XRX_TEE_RING_BYTES (32u << 20)

/* What xrx_tee__flush() saw since the flush before it. */
enum xrx_tee_turn {
	XRX_TEE_SAME = 0,
	XRX_TEE_LOSING,		/* began to lose packets (errors, dropped) */
	XRX_TEE_WRITING,	/* writes again, none lost since */
};

struct xrx_lossless;

struct xrx_tee {
	struct xrx_sink *sink;		/* the second sink, owned; its
					 * deliver and flush run on the
					 * writer thread only */
	/* A lossless pcap sink: its state (the writer's), and the worker's
	 * to make the records with (sink/tee.c) */
	struct xrx_lossless *sink_ll, *ll;
	__u32 snaplen;			/* the sink's */
	/* The worker's side. */
	bool losing;			/* in an episode of losses */
	int err;			/* last error the sink returned */
	__u64 lost_seen;		/* errors + dropped at the last flush */
	__u64 lost_from;		/* ... when the episode began */
	__u64 out_seen;			/* pkts_out at the last flush */
	__u64 head_own;			/* the producer's copy of head */
	/* Given to the tee, and dropped of those for want of room in the
	 * ring: written by the worker, read by the stats (xrx_tee__stats()). */
	_Atomic __u64 in_pkts, in_bytes, full_pkts;
	/* The ring: records at free-running byte offsets, [tail, head). */
	__u8 *ring;
	_Atomic __u64 head;		/* published by the worker */
	_Atomic __u64 tail;		/* freed by the writer */
	_Atomic int werr;		/* the writer's last sink error */
	/* The sink's errors + dropped and pkts_out after the writer's last
	 * flush, under lock: whole batches, as a synchronous sink's counters
	 * are at the worker's flush, never half of one. */
	__u64 pub_lost, pub_out;
	/* The writer thread and its wake-up. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	_Atomic bool sleeping;
	_Atomic bool stop;
	bool running;
};

/*
 * A tee around @sink, opened and bound to nothing (the tee gives nothing
 * back: it writes copies); starts its writer thread. NULL: errno set.
 */
struct xrx_tee *xrx_tee__new(struct xrx_sink *sink);
/*
 * Stop the writer once it has written everything handed off and flushed
 * the sink; afterwards the sink's counters are final. Idempotent.
 */
void xrx_tee__stop(struct xrx_tee *t);
/* Stop, close the sink and free. */
void xrx_tee__free(struct xrx_tee *t);
/*
 * A copy of @pkt to the tee (or counted dropped if the ring is full),
 * then @pkt to @primary. Return: what the primary's deliver returned.
 */
int xrx_tee__deliver(struct xrx_tee *t, struct xrx_sink *primary,
		     struct xrx_pkt *pkt);
/* Wake the writer for what this batch handed off; the tee's losses since
 * the last flush, as a turn. */
enum xrx_tee_turn xrx_tee__flush(struct xrx_tee *t);
/* Packets lost in the episode that began at the last XRX_TEE_LOSING. */
__u64 xrx_tee__episode_lost(const struct xrx_tee *t);
/* The tee's counters: its sink's, but pkts_in and bytes_in what the tee
 * was given (the primary's) and the hand-off's drops in dropped, so that
 * what is still in the ring shows as in flight (pkts_in > pkts_out +
 * errors + dropped) until written. vals[] has XRX_SINK_STAT_MAX entries. */
void xrx_tee__stats(const struct xrx_tee *t, __u64 *vals);
/* Wait until the writer has written and flushed everything handed off
 * so far (tests, and the counters of a queue that stops). */
void xrx_tee__drain(struct xrx_tee *t);

#endif /* XRX_LIB_SINK_TEE_H */
