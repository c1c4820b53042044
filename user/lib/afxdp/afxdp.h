/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The afxdp layer's data model: a live handle (struct xrx_live), its
 * queues (struct xrx_rxq), each with a UMEM (umem.h) and a socket, and the
 * calls xsk.c, rx_loop.c and rxq_sink.c offer the files above them. Not
 * installed; not API.
 *
 * The files call each other in one direction only, each using those
 * below it: live.c (the public side) -> rx_loop.c (the receive loop) ->
 * xsk.c (the sockets) -> prog.c (xrx_rx), rx_loop.c -> rxq_sink.c (a
 * queue's sink and tee), rx_loop.c and xsk.c -> busy_poll.c (the
 * socket's NAPI, polled by the worker), with umem.c (the frames) and
 * log.c (the messages) at the bottom. None calls up into live.c, and this
 * header belongs to no one file, so including it ties no file to another.
 */
#ifndef XRX_LIB_AFXDP_H
#define XRX_LIB_AFXDP_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <xdp/xsk.h>
#include <xrx/live.h>
#include <xrx/compat.h>
#include "sink/tee.h"

#include "afxdp/log.h"
#include "afxdp/rxts.h"
#include "afxdp/umem.h"

#define XRX_FRAME_SIZE_DEFAULT 4096
#define XRX_RING_DEFAULT 2048
#define XRX_BATCH_DEFAULT 64
#define XRX_BATCH_MAX 1024
#define XRX_JUMBO_MAX 9216		/* largest frame multi-buffer sizes for */
#define XRX_BIND_BUSY_MS 1000		/* default bind_busy_ms */
#define XRX_SWAP_WAIT_MS 2000		/* reconfigure() waits this long */

struct xrx_xsk {
	struct xsk_socket *xsk;
	struct xsk_ring_cons rx;
	int fd;
	__u32 queue;
	bool zerocopy;
	bool sg;
	bool need_wakeup;
	bool busy_poll;			/* set and not ruled out (busy_poll.c) */
	unsigned int napi_id;		/* SO_INCOMING_NAPI_ID, 0: none yet */
};

/*
 * A sink/engine swap handed to a running worker (xrx_live__reconfigure()):
 * the control thread fills it and posts it in xrx_rxq.swap; the worker
 * switches between two batches and clears swap; the control thread then
 * collects it, folds the old counters into the queue's base and frees the
 * old engine and sink. Until then it reads counters from old_e/old_sink.
 */
struct xrx_swap {
	struct xrx_engine *e;		/* the new engine */
	struct xrx_sink *sink;		/* the new sink, NULL: keep */
	struct xrx_engine *old_e;
	struct xrx_sink *old_sink;	/* NULL when the sink is kept */
	bool set_tee;			/* the tee changes: to tee (NULL:
					 * none) from old_tee */
	struct xrx_tee *tee;
	struct xrx_tee *old_tee;
};

/* One RX queue: its UMEM, socket, engine, consumer and worker. */
struct xrx_rxq {
	struct xrx_live *l;
	__u32 qi;			/* index in l->q[] */
	struct xrx_umem umem;
	struct xrx_xsk xsk;
	struct xrx_engine *e;
	struct xrx_rxts rxts;		/* the NIC's clock's offset */
	struct xrx_sink *sink;
	struct xrx_tee *tee;		/* beside the sink, NULL: none */
	struct xrx_frame *frames;	/* one batch */
	struct xrx_chunk *chunks;	/* tails of its multi-buffer frames */
	__u32 max_pieces;		/* pieces per frame the engine takes */

	__u32 batch;
	__u32 low_mark;			/* kernel frames below: pressure */
	/* Interrupt moderation, the worker's (xrx_rxq_nap()): */
	__u64 nap_max_ns;		/* the longest nap, 0: off */
	__u64 nap_ns;			/* the next nap */
	__u64 slack_ns;			/* the timer slack set for it */
	__u64 cycle_ns;			/* when the last nap began, 0: none */
	__u32 cycle_frames;		/* frames received since */
	/* Poll mode: delivered packets not yet returned by poll(). */
	struct xrx_pkt **pend;
	__u32 pend_cap, pend_head, pend_len;
	__u64 stats[XRX_LIVE_STAT_MAX];
	/* Counters of the engines and sinks swapped out so far. */
	__u64 base_engine[XRX_ENGINE_STAT_MAX];
	__u64 base_sink[XRX_SINK_STAT_MAX];
	__u64 base_tee[XRX_SINK_STAT_MAX];
	struct xrx_swap sw;
	_Atomic(struct xrx_swap *) swap;	/* posted, not yet applied */
	bool swap_pending;		/* posted, not yet collected */
	/* CLOCK_MONOTONIC ns of the worker's last loop (0: no worker). */
	_Atomic __u64 heartbeat_ns;
	pthread_t thread;
	bool running;
	int cpu;
	atomic_bool stop;
};

struct xrx_live {
	struct xrx_live_opts o;		/* .engine and .sink_opts point at: */
	struct xrx_engine_opts eng;	/* the engine options in use, */
	struct xrx_sink_opts sink_o;	/* and the sink options, copied */
	struct xrx_sink_opts tee_o;	/* and the tee's */
	char ifname[32];
	int ifindex;
	__u32 speed_mbps;		/* the link's at open, 0: unknown */
	struct xrx_prog *prog;
	struct xrx_hash_key hash_key;	/* the program's: every engine's */
	__u32 nr_q;
	struct xrx_rxq *q;
	bool started;
	char sink_spec[256];		/* the sink every queue runs now */
	char tee_spec[256];		/* and its tee, "" if none */
};

/* A message to the log the live handle's options name (log.c). */
#define xrx_log(l, lvl, ...) \
	xrx_logf((l)->o.log, (l)->o.log_ctx, lvl, __VA_ARGS__)
/* prog.c */
/*
 * The flow hash key xrx_rx hashes with (xrx_cfg), into @key; chosen and
 * written first if nobody has chosen one (a program xdp-loader attached).
 * Return: 0 or a negative errno (logged).
 */
int xrx_prog_hash_key(struct xrx_prog *p, struct xrx_hash_key *key);


/* CLOCK_MONOTONIC in ns: the receive loop's clock (vDSO). */
static inline __u64 xrx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* xsk.c */
int xrx_xsk_open(struct xrx_live *l, struct xrx_rxq *q, __u32 queue);
void xrx_xsk_close(struct xrx_rxq *q);
int xrx_xsk_stats(const struct xrx_xsk *x, __u64 *stats);
void xrx_xsk_kick(struct xrx_rxq *q);
int xrx_xsk_map_insert(struct xrx_live *l, struct xrx_rxq *q);
void xrx_xsk_map_remove(struct xrx_live *l, struct xrx_rxq *q);

/* busy_poll.c */
void xrx_xsk_busy_poll(struct xrx_live *l, struct xrx_xsk *x);
void xrx_rxq_busy_poll(struct xrx_rxq *q);
__u32 xrx_rxq_busy_wait(struct xrx_rxq *q, __u64 until_ns);

/* rx_loop.c */
int xrx_rxq_init(struct xrx_live *l, struct xrx_rxq *q);
void xrx_rxq_fini(struct xrx_rxq *q);
int xrx_rxq_batch(struct xrx_rxq *q, int timeout_ms);
int xrx_rxq_start(struct xrx_rxq *q);
void xrx_rxq_stop(struct xrx_rxq *q);
struct xrx_engine *xrx_rxq_engine_new(struct xrx_live *l, struct xrx_rxq *q,
				      const struct xrx_engine_opts *opts);
void xrx_rxq_apply_swap(struct xrx_rxq *q);

/* rxq_sink.c */
struct xrx_sink *xrx_rxq_sink_open(struct xrx_live *l, struct xrx_rxq *q,
				   const char *spec,
				   const struct xrx_sink_opts *opts,
				   const struct xrx_engine_opts *eng);
void xrx_rxq_begin_sinks(struct xrx_rxq *q);
void xrx_rxq_flush_sinks(struct xrx_rxq *q);
struct xrx_tee *xrx_rxq_tee_open(struct xrx_live *l, struct xrx_rxq *q,
				 const char *spec,
				 const struct xrx_sink_opts *opts,
				 const struct xrx_engine_opts *eng);
void xrx_rxq_tee_flush(struct xrx_rxq *q);

#endif /* XRX_LIB_AFXDP_H */
