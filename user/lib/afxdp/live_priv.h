/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx live receive internals shared by umem.c, xsk.c, prog.c,
 * rx_loop.c and live.c. Not installed; not API.
 */
#ifndef XRX_LIB_LIVE_PRIV_H
#define XRX_LIB_LIVE_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include <xdp/xsk.h>
#include <xrx/live.h>
#include <xrx/compat.h>
#include "sink/tee.h"

#define XRX_FRAME_SIZE_DEFAULT 4096
#define XRX_RING_DEFAULT 2048
#define XRX_BATCH_DEFAULT 64
#define XRX_BATCH_MAX 1024
#define XRX_COMP_SIZE 64		/* no TX: the smallest useful ring */
#define XRX_JUMBO_MAX 9216		/* largest frame multi-buffer sizes for */
#define XRX_BIND_BUSY_MS 1000		/* default bind_busy_ms */
#define XRX_SWAP_WAIT_MS 2000		/* reconfigure() waits this long */

/* Where a UMEM frame is (the ownership invariant, see live.h). */
enum xrx_frame_state {
	XRX_FS_FREE = 0,	/* on libxrx's free stack */
	XRX_FS_KERNEL,		/* fill ring, driver or RX ring */
	XRX_FS_ENGINE,		/* engine: aggregate or delivered packet */
};

struct xrx_umem {
	void *area;
	__u64 size;
	__u32 frame_size;
	__u32 frame_shift;
	__u32 nr_frames;
	__u32 fill_size;
	struct xsk_umem *umem;		/* NULL until registered */
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	__u32 *free;			/* stack of frame indexes */
	__u32 nr_free;
	__u32 nr_kernel;
	__u32 nr_engine;
	__u8 *state;			/* enum xrx_frame_state per frame */
	__u64 errors;			/* ownership violations */
	__u64 to_engine;		/* chunks handed to the engine */
	__u64 from_engine;		/* chunks it gave back */
	__u64 dropped;			/* taken, then freed before the engine */
};

struct xrx_xsk {
	struct xsk_socket *xsk;
	struct xsk_ring_cons rx;
	int fd;
	__u32 queue;
	bool zerocopy;
	bool sg;
	bool need_wakeup;
	bool busy_poll;
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
	struct xrx_sink *sink;
	struct xrx_tee *tee;		/* beside the sink, NULL: none */
	struct xrx_frame *frames;	/* one batch */
	struct xrx_chunk *chunks;	/* tails of its multi-buffer frames */
	__u32 max_pieces;		/* pieces per frame the engine takes */

	__u32 batch;
	__u32 low_mark;			/* kernel frames below: pressure */
	__u64 nap_ns;			/* worker: coalesce_usec, 0 off */
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
	struct xrx_prog *prog;
	__u32 nr_q;
	struct xrx_rxq *q;
	bool started;
	char sink_spec[256];		/* the sink every queue runs now */
	char tee_spec[256];		/* and its tee, "" if none */
};

/* live.c */
/* A message to @log, or with none, warnings and info to stderr. */
void xrx_vlog(void (*log)(void *ctx, enum xrx_log_level level, const char *msg),
	      void *ctx, enum xrx_log_level lvl, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
void xrx_log(const struct xrx_live *l, enum xrx_log_level lvl,
	     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* umem.c */
int xrx_umem_init(struct xrx_umem *u, __u32 nr_frames, __u32 frame_size,
		  __u32 fill_size);
int xrx_umem_register(struct xrx_umem *u);
void xrx_umem_unregister(struct xrx_umem *u);
void xrx_umem_fini(struct xrx_umem *u);
__u32 xrx_umem_refill(struct xrx_umem *u);
int xrx_umem_check(const struct xrx_umem *u, __u64 engine_released,
		   char *why, size_t len);

static inline __u32 xrx_umem_index(const struct xrx_umem *u, __u64 addr)
{
	return (__u32)(xsk_umem__extract_addr(addr) >> u->frame_shift);
}

/* A descriptor from the RX ring: the kernel hands the frame over. */
static inline bool xrx_umem_take(struct xrx_umem *u, __u64 addr)
{
	__u32 i = xrx_umem_index(u, addr);

	if (i >= u->nr_frames || u->state[i] != XRX_FS_KERNEL) {
		u->errors++;
		return false;
	}
	u->state[i] = XRX_FS_ENGINE;
	u->nr_kernel--;
	u->nr_engine++;
	u->to_engine++;
	return true;
}

/* A frame back from the engine (or dropped before it): free again. */
static inline void xrx_umem_put(struct xrx_umem *u, __u64 addr)
{
	__u32 i = xrx_umem_index(u, addr);
	__u64 off = addr & (u->frame_size - 1);

	if (i >= u->nr_frames || u->state[i] != XRX_FS_ENGINE) {
#ifdef XRX_DEBUG
		fprintf(stderr, "xrx: frame %#llx released but not held\n",
			(unsigned long long)addr);
		__builtin_trap();
#endif
		u->errors++;
		return;
	}
	/*
	 * Forget the metadata: a copy-mode kernel that does not carry it
	 * must not leave this frame's magic for the next packet to find.
	 */
	if (off >= sizeof(struct xrx_meta))	/* magic: the last 2 bytes;
						 * addr need not be aligned */
		memset((__u8 *)u->area + addr - sizeof(__u16), 0, sizeof(__u16));
	u->state[i] = XRX_FS_FREE;
	u->nr_engine--;
	u->from_engine++;
	u->free[u->nr_free++] = i;
}

/* A frame taken from the RX ring that never reached the engine. */
static inline void xrx_umem_drop(struct xrx_umem *u, __u64 addr)
{
	u->dropped++;
	xrx_umem_put(u, addr);
}

/* xsk.c */
int xrx_xsk_open(struct xrx_live *l, struct xrx_rxq *q, __u32 queue);
void xrx_xsk_close(struct xrx_rxq *q);
int xrx_xsk_stats(const struct xrx_xsk *x, __u64 *stats);
void xrx_xsk_kick(struct xrx_rxq *q);
int xrx_xsk_map_insert(struct xrx_live *l, struct xrx_rxq *q);
void xrx_xsk_map_remove(struct xrx_live *l, struct xrx_rxq *q);

/* rx_loop.c */
int xrx_rxq_init(struct xrx_live *l, struct xrx_rxq *q);
void xrx_rxq_fini(struct xrx_rxq *q);
int xrx_rxq_batch(struct xrx_rxq *q, int timeout_ms);
int xrx_rxq_start(struct xrx_rxq *q);
void xrx_rxq_stop(struct xrx_rxq *q);
struct xrx_engine *xrx_rxq_engine_new(struct xrx_live *l, struct xrx_rxq *q,
				      const struct xrx_engine_opts *opts);
struct xrx_sink *xrx_rxq_sink_open(struct xrx_live *l, struct xrx_rxq *q,
				   const char *spec,
				   const struct xrx_sink_opts *opts);
void xrx_rxq_apply_swap(struct xrx_rxq *q);
void xrx_rxq_flush_sinks(struct xrx_rxq *q);

/* rxq_tee.c */
struct xrx_tee *xrx_rxq_tee_open(struct xrx_live *l, struct xrx_rxq *q,
				 const char *spec,
				 const struct xrx_sink_opts *opts);
void xrx_rxq_tee_flush(struct xrx_rxq *q);

#endif /* XRX_LIB_LIVE_PRIV_H */
