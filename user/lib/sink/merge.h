/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One capture file for all the queues of an interface (sink/merge.c):
 * every queue's pcap sink instance hands its records, already laid out
 * as the file's bytes, to a ring of its own; one writer thread per file
 * merges the rings in timestamp order and writes them, rotates the file
 * by size or by the clock, and gives each closed file to a closer thread
 * that compresses it (zstd) and runs a hook on it. A worker never waits
 * on the file, the writer or the closer: a full ring costs the record,
 * counted in the queue's dropped and handoff_full. Not API.
 *
 *   open (per queue):   xrx_merge__join(&cfg, queue, sink, &mq);
 *   batch start:        xrx_merge__batch(mq);   (before its clock read)
 *   per packet:         xrx_merge__begin(mq);
 *                       ts = its arrival, or the clock (CLOCK_REALTIME);
 *                       buf = xrx_merge__reserve(mq, len, ts, segs);
 *                       ... the record's bytes into buf ...
 *                       xrx_merge__commit(mq);
 *   batch end:          xrx_merge__mark(mq, now, held);
 *   close:              xrx_merge__leave(mq);
 *
 * Order: a record is written once every other queue has either a record
 * at least as late waiting, or has marked a time at least as late (its
 * worker ended a batch after it), or is in no delivery and the record
 * is no later than the writer's clock (what that queue delivers next is
 * stamped later: a batch's frames are stamped after xrx_merge__batch()).
 * A record earlier than its queue's last record or mark is placed at
 * that time. A worker stopped within a delivery past MERGE_HOLD_NS no
 * longer holds the others up.
 *
 * Counters: the writer adds pkts_out, bytes_out, segs_out, errors,
 * nospace and rotations to the sink of the queue whose record it was
 * (atomically: those counters are the writer's alone in this mode), and
 * the closer's compress_errors and hook_errors to the first queue's
 * sink.
 */
#ifndef XRX_LIB_SINK_MERGE_H
#define XRX_LIB_SINK_MERGE_H

#include <limits.h>
#include <stdbool.h>
#include <xrx/sink.h>

/* Per queue: at 2.5 Gbit/s about 25 ms of traffic, the writer's slack
 * (it writes every 10 ms, sooner when a ring is a quarter full). */
#define XRX_MERGE_RING_BYTES (8u << 20)
#define XRX_MERGE_HOOK_MAX 1024

struct xrx_merge_cfg {
	char path[PATH_MAX];		/* the file, or with rotate_secs a
					 * strftime(3) pattern */
	__u32 nr_queues;
	__u32 snaplen;
	bool ng;			/* pcapng: SHB, an IDB per queue */
	bool no_wait;			/* refuse a FIFO */
	__u64 rotate_bytes;		/* 0: no size rotation */
	__u32 rotate_count;		/* old files kept (size rotation) */
	__u32 rotate_secs;		/* 0: no time rotation */
	bool zstd;			/* compress each closed file */
	char hook[XRX_MERGE_HOOK_MAX];	/* run on each closed file; "" none */
};

struct xrx_merge_q;

/*
 * Queue @queue of the capture @cfg describes, counted in @s: the file's
 * writer is started (the file opened, its header written) by the first
 * queue to join; the others must give the same cfg. Return: 0 or a
 * negative errno (logged).
 */
int xrx_merge__join(const struct xrx_merge_cfg *cfg, __u32 queue,
		    struct xrx_sink *s, struct xrx_merge_q **out);
/* A delivery starts: before the clock is read for its record's time. */
void xrx_merge__begin(struct xrx_merge_q *q);
/* A receive batch starts, before the clock read that stamps its frames:
 * in a delivery until xrx_merge__mark(). */
void xrx_merge__batch(struct xrx_merge_q *q);
/*
 * Room for a record of @len bytes of time @ts (ns since the epoch; its
 * place in the order, no earlier than this queue's last record or mark) and
 * @segs segments, to be filled and committed before the next begin.
 * NULL: the ring is full (the caller counts the packet; the delivery is
 * over).
 */
void *xrx_merge__reserve(struct xrx_merge_q *q, __u32 len, __u64 ts,
			 __u32 segs);
void xrx_merge__commit(struct xrx_merge_q *q);
/*
 * A batch ended at @now: this queue has nothing earlier to come, but
 * for packets held since @held (0: none), before which nothing comes;
 * the queue then stays in a delivery until a mark without them.
 */
void xrx_merge__mark(struct xrx_merge_q *q, __u64 now, __u64 held);
/*
 * Leave after the writer wrote what this queue handed off (bounded: what
 * it has not taken by then is counted in errors); the last queue out
 * stops the writer, closes the file and waits for the closer to finish
 * with it.
 */
void xrx_merge__leave(struct xrx_merge_q *q);

/* MERGE_HOLD_NS; the tests lengthen it, to see that no one waits on it. */
extern __u64 xrx_merge__hold_ns;
/* MERGE_LEAVE_WAIT_MS, a leaving queue's wait; the tests shorten it. */
extern __u32 xrx_merge__leave_ms;

#endif /* XRX_LIB_SINK_MERGE_H */
