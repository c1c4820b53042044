/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx live receive: AF_XDP sockets on an interface's RX queues, the
 * xrx_rx program in front of them, one GRO engine per queue, and delivery
 * of the packets to a sink, a callback or the caller's poll loop.
 *
 *   struct xrx_live_opts o = { .sz = sizeof(o), .nr_queues = 2,
 *				.sink = "pcap:/tmp/rx.pcap" };
 *   struct xrx_live *l = xrx_live__open("eth0", &o);
 *   xrx_live__rule_add_port(l, IPPROTO_TCP, 5001);
 *   xrx_live__start(l);			// one worker thread per queue
 *   ...
 *   xrx_live__stats(l, -1, &st);
 *   xrx_live__close(l);			// stop, flush, detach, unpin
 *
 * Consumers, exactly one per open:
 *   sink      opts.sink = "null" | "pcap:PATH" | "tun:NAME" (include/xrx/sink.h);
 *             one sink instance per worker
 *   callback  opts.cb: called on the queue's worker thread for each packet
 *   poll      neither: no threads; the caller runs xrx_live__poll() per
 *             queue and gets packets back in an array
 * With a sink, opts.tee names a second sink (same specs) that gets every
 * packet the sink gets, in the same order, before its frames go back:
 * capture beside delivery, "tun:NAME" with a tee "pcap:PATH". The sink is
 * served first and the tee's losses are the tee's alone (tee counters).
 *
 * Ownership. Every UMEM frame is at every moment in exactly one place:
 * free in libxrx, in the kernel (fill ring, driver, RX ring), or in the
 * engine (an open aggregate, or a delivered packet not yet released). A
 * delivered packet belongs to its consumer until xrx_live__release(),
 * which must run on the thread that received it (in the callback or in a
 * later callback of the same queue; in poll mode the polling thread);
 * release puts its frames back on the fill ring in the next batch (no
 * syscall per frame). A consumer that holds packets starves the queue: the
 * engine runs out of packet buffers (drop_no_buffer) and the kernel of
 * fill-ring frames (xsk_rx_fill_empty, xsk_rx_dropped), which is counted,
 * never a deadlock. xrx_live__check_frames() verifies the invariant.
 *
 * Program. By default libxrx attaches xrx_rx (native, else skb mode) to
 * the interface and pins its maps in PIN_ROOT/IFACE (PIN_ROOT
 * /sys/fs/bpf/xrx); close detaches it and removes the pins. With
 * XRX_LIVE_ATTACH_NONE it uses a program someone else attached (xrxd,
 * xdp-loader) through those pins, and leaves it in place on close.
 */
#ifndef XRX_LIVE_H
#define XRX_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <xrx/types.h>
#include <xrx/engine.h>
#include <xrx/sink.h>
#include <xrx/stats.h>
#include <xrx/prog.h>	/* enum xrx_live_attach, the pin names */

#ifdef __cplusplus
extern "C" {
#endif

struct xrx_live;
struct xrx_rule_key;	/* include/xrx/rules.h */
struct xrx_rule_val;

#define XRX_LIVE_QUEUES_MAX 64

/* xrx_live_opts.busy_poll_usec and busy_poll_budget. */
#define XRX_LIVE_BUSY_POLL_USEC_DEFAULT 50
#define XRX_LIVE_BUSY_POLL_USEC_MAX 100000	/* the loop's 100 ms wait */
#define XRX_LIVE_BUSY_POLL_BUDGET_DEFAULT 64	/* the default batch */
#define XRX_LIVE_BUSY_POLL_BUDGET_MAX 1024	/* a batch at most */

enum xrx_live_bind {
	XRX_LIVE_BIND_AUTO = 0,		/* zero-copy, else copy */
	XRX_LIVE_BIND_COPY,
	XRX_LIVE_BIND_ZEROCOPY,		/* zero-copy or fail */
};

/* What one queue got (xrx_live__queue_info()). */
struct xrx_live_queue_info {
	__u32 queue;			/* the interface's RX queue id */
	bool zerocopy;			/* bound with XDP_ZEROCOPY */
	bool multi_buffer;		/* bound with XDP_USE_SG */
	bool need_wakeup;		/* XDP_USE_NEED_WAKEUP honoured */
	bool busy_poll;			/* SO_PREFER_BUSY_POLL set */
	int fd;				/* the AF_XDP socket */
	__u32 nr_frames;		/* UMEM frames of the queue */
	__u32 frame_size;
	__u64 umem_bytes;		/* the UMEM and its frame bookkeeping */
	__u64 engine_bytes;		/* xrx_engine__memory() of the queue */
	/* CLOCK_MONOTONIC ns when the queue's worker last went round its
	 * loop (at least every 100 ms while it is not blocked); 0 when no
	 * worker runs. A heartbeat that stops means a stuck worker (a
	 * sink that blocks: a FIFO nobody reads, a wedged TUN). */
	__u64 heartbeat_ns;
};

/*
 * Called on the queue's worker thread for every delivered packet. The
 * callback owns @pkt until xrx_live__release(l, queue, pkt).
 */
typedef void (*xrx_live_cb)(void *ctx, struct xrx_live *l, __u32 queue,
			    struct xrx_pkt *pkt);

struct xrx_live_opts {
	size_t sz;			/* sizeof(struct xrx_live_opts) */
	/* Queues first_queue .. first_queue + nr_queues - 1; 0: 1 queue. */
	__u32 first_queue;
	__u32 nr_queues;
	/* UMEM, per queue */
	__u32 frame_size;		/* 2048 or 4096 (0); aligned chunks */
	__u32 nr_frames;		/* 0: 2 * fill_size */
	__u32 fill_size;		/* rings: powers of two; 0: 2048 */
	__u32 rx_size;			/* 0: 2048 */
	__u32 batch;			/* descriptors per receive batch; 0: 64 */
	enum xrx_live_attach attach;
	enum xrx_live_bind bind;
	bool no_multi_buffer;		/* do not ask for XDP_USE_SG */
	bool no_need_wakeup;		/* do not ask for XDP_USE_NEED_WAKEUP */
	/*
	 * Preferred busy polling, for worker threads (SO_PREFER_BUSY_POLL,
	 * SO_BUSY_POLL, SO_BUSY_POLL_BUDGET): the worker runs the queue's
	 * NAPI itself, one poll of up to busy_poll_budget frames per
	 * receive batch, so that NAPI, the copy into the UMEM and the
	 * engine run on one core with the frames still in its cache, and
	 * nobody is woken. With an empty RX ring it polls on for
	 * busy_poll_usec, then blocks in poll() until softirq delivers
	 * again. The kernel keeps the device's interrupts off only while
	 * busy polls come within gro_flush_timeout of each other, and only
	 * if napi_defer_hard_irqs and gro_flush_timeout are set on the
	 * device (Documentation/networking/napi.rst, "IRQ mitigation"):
	 * that is the caller's part (xrxd sets them).
	 */
	bool busy_poll;
	__u32 busy_poll_usec;		/* 0: XRX_LIVE_BUSY_POLL_USEC_DEFAULT */
	/* 0: XRX_LIVE_BUSY_POLL_BUDGET_DEFAULT; both bounded by the
	 * options table (include/xrx/options.h) */
	__u32 busy_poll_budget;
	/* Pin each worker to cpus[i] (i = index of the queue, 0-based);
	 * NULL or a negative entry: not pinned. */
	const int *cpus;
	const char *pin_root;		/* NULL: XRX_PIN_ROOT_DEFAULT */
	/* Engine options, NULL: defaults. Copied at open and checked by
	 * their own sz (region, deliver, release_frame and ctx are set by
	 * libxrx). Pointed to, not embedded: an option added to the engine
	 * must not move the fields after this one. */
	const struct xrx_engine_opts *engine;
	/* Consumer: a sink spec, or a callback, or neither (poll mode). */
	const char *sink;
	/* NULL: defaults; copied at open; queue/nr_queues set by libxrx. */
	const struct xrx_sink_opts *sink_opts;
	xrx_live_cb cb;
	void *cb_ctx;
	/* Messages (attach mode, bind mode, fallbacks). NULL: warnings and
	 * info to stderr. */
	void (*log)(void *ctx, enum xrx_log_level level, const char *msg);
	void *log_ctx;
	bool no_hw_meta;		/* plain xrx_rx only (prog.h) */
	/*
	 * A bind that finds the queue busy (EBUSY) is tried again with
	 * back-off for up to this long: the kernel releases a closed
	 * socket's hold on its queue asynchronously (the buffer pool is
	 * torn down from a work item, xp_put_pool_deferred()), so a
	 * rebind right after a close can find it still taken. 0: 1000.
	 */
	__u32 bind_busy_ms;
	bool no_hw_hash;		/* ignore the NIC's RX hash (prog.h) */
	/*
	 * Sink mode: a second sink, one instance per worker like the sink,
	 * given a copy of every packet the sink is given, in the same
	 * order, by a writer thread of its own: the worker copies each
	 * packet into the tee's bounded hand-off (32 MiB) before the sink
	 * gets it, so the tee holds no frame and a slow tee never holds
	 * the sink up. What the full hand-off cannot take, or the tee
	 * fails to write, it counts as its own drops or errors
	 * (xrx_live_stats.tee), logged once when it begins and once when
	 * it stops losing packets; a pcap FIFO is refused (sink opts
	 * no_wait). NULL: none.
	 */
	const char *tee;
	/* NULL: defaults; copied at open; queue/nr_queues/no_wait set by
	 * libxrx. */
	const struct xrx_sink_opts *tee_opts;
	/*
	 * Interrupt moderation in userspace, for worker threads. After a
	 * batch that emptied the RX ring, the worker sleeps this long and
	 * looks again, instead of blocking in poll() at once; only when the
	 * ring is still empty after the sleep does it block. Blocked in
	 * poll(), the worker is woken by the kernel once per NAPI poll that
	 * delivered to the socket (xsk_flush() -> sock_def_readable()), a
	 * cross-CPU wake-up for a handful of frames each; asleep on its own
	 * timer it is not on the socket's wait queue, so the kernel wakes
	 * nobody and the next batch holds what arrived meanwhile. The cost
	 * is latency: a frame waits up to this long (and the timer slack,
	 * set to a quarter of it) before the worker sees it. The sleep
	 * starts at XRX_LIVE_COALESCE_USEC_DEFAULT after a wait in poll()
	 * and doubles per sleep up to this long while traffic lasts; it is
	 * never longer than the rate seen since the last sleep takes to
	 * fill a quarter of the RX ring, nor than four fifths of what the
	 * smaller of the RX and fill rings hold at the link's line rate
	 * (its speed at open, 10 Gbit/s if it reports none) with 64-byte
	 * frames, nor past the oldest held aggregate's flush_timeout_us.
	 * This is
	 * what NIC interrupt coalescing (ethtool -C rx-usecs) and the
	 * kernel's gro_flush_timeout with napi_defer_hard_irqs do. Not
	 * while the worker busy-polls (busy_poll, unless it fell back for
	 * want of a NAPI), nor in poll mode (the caller owns that loop).
	 * 0: by the sink, its kind's xrx_sink_ops.coalesce_usec:
	 * XRX_LIVE_COALESCE_USEC_FILE for "pcap" and "null", which nobody
	 * waits on, XRX_LIVE_COALESCE_USEC_DEFAULT for a stack ("tun",
	 * "tap"), a kind that sets none or a callback.
	 * At most XRX_LIVE_COALESCE_USEC_MAX.
	 */
	__u32 coalesce_usec;
	bool no_coalesce;		/* block in poll() whenever the ring is empty */
};

#define XRX_LIVE_COALESCE_USEC_DEFAULT 20	/* into a stack or a callback */
#define XRX_LIVE_COALESCE_USEC_FILE 1000	/* into a file, or nowhere */
#define XRX_LIVE_COALESCE_USEC_MAX 1000

/*
 * Counters of the live path, per queue. X(enumerator suffix, name, desc)
 * xsk_* are the socket's XDP_STATISTICS; umem_* are snapshots of where
 * the frames are and nap_max_us a setting (not cumulative).
 */
#define XRX_LIVE_STATS_TABLE(X)                                                \
	X(RX_DESCS, "rx_descs", "descriptors read from the RX ring")          \
	X(RX_FRAMES, "rx_frames", "frames given to the engine (chains: one)") \
	X(RX_BATCHES, "rx_batches", "receive batches")                        \
	X(RX_CHAINS, "rx_chains", "multi-buffer frames (several chunks)")     \
	X(RX_CHAIN_DROPS, "rx_chain_drops",                                    \
	  "multi-buffer frames dropped (too many chunks, broken chain)")      \
	X(FILL_LOW, "fill_low",                                                \
	  "batches that found the kernel short of fill-ring frames")          \
	X(PRESSURE_FLUSHES, "pressure_flushes",                               \
	  "aggregates delivered early to free frames (flush_oldest)")         \
	X(WAKEUPS, "wakeups", "syscalls to wake the kernel (need_wakeup)")    \
	X(BUSY_POLLS, "busy_polls",                                            \
	  "polls of the queue's NAPI run by the worker (busy_poll)")          \
	X(POLLS, "polls", "waits in poll() with an empty RX ring")            \
	X(NAPS, "naps",                                                        \
	  "sleeps (coalesce_usec at most) after a batch that emptied the ring") \
	X(CB_PKTS, "cb_pkts", "packets handed to the callback or poll")       \
	X(SWAPS, "swaps",                                                      \
	  "sink/engine swaps between two batches (xrx_live__reconfigure)")     \
	X(BIND_BUSY_RETRIES, "bind_busy_retries",                              \
	  "binds tried again because the queue was still busy (EBUSY)")        \
	X(OWNERSHIP_ERRORS, "ownership_errors",                                \
	  "frame state violations (double release, unknown address)")         \
	X(XSK_RX_DROPPED, "xsk_rx_dropped", "XDP_STATISTICS rx_dropped")      \
	X(XSK_RX_INVALID, "xsk_rx_invalid", "XDP_STATISTICS rx_invalid_descs") \
	X(XSK_RX_RING_FULL, "xsk_rx_ring_full", "XDP_STATISTICS rx_ring_full") \
	X(XSK_FILL_EMPTY, "xsk_rx_fill_empty",                                 \
	  "XDP_STATISTICS rx_fill_ring_empty_descs")                          \
	X(UMEM_FRAMES, "umem_frames", "UMEM frames")                          \
	X(UMEM_FREE, "umem_free", "frames free in libxrx")                    \
	X(UMEM_KERNEL, "umem_kernel", "frames in the fill ring or kernel")    \
	X(UMEM_ENGINE, "umem_engine",                                          \
	  "frames in the engine or delivered packets")                       \
	X(NAP_MAX_US, "nap_max_us",                                            \
	  "the longest nap now: coalesce_usec or the sink's, bounded by what " \
	  "the rings hold at line rate; 0: off (the most of any queue)")

enum xrx_live_stat {
#define XRX_X_ENUM(e, n, d) XRX_LIVE_STAT_##e,
	XRX_LIVE_STATS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_LIVE_STAT_MAX
};

struct xrx_live_stats {
	__u64 live[XRX_LIVE_STAT_MAX];		/* enum xrx_live_stat */
	__u64 engine[XRX_ENGINE_STAT_MAX];	/* enum xrx_engine_stat */
	__u64 sink[XRX_SINK_STAT_MAX];		/* enum xrx_sink_stat */
	__u64 prog[XRX_STAT_MAX];		/* xrx_rx's packets, enum
						 * xrx_stat, whole interface */
	__u64 prog_bytes[XRX_STAT_MAX];
	__u64 tee[XRX_SINK_STAT_MAX];		/* the tee's, enum
						 * xrx_sink_stat; 0 if none */
};

/*
 * Open @ifname: program, UMEMs, sockets, engines, sinks. Frames are on the
 * fill rings when it returns; nothing is received until start() (worker
 * modes) or poll(). Return: the handle, or NULL with errno set; the
 * reason is logged, naming the object and the fix.
 */
XRX_API struct xrx_live *xrx_live__open(const char *ifname,
					const struct xrx_live_opts *opts);
/*
 * Change the sink and/or the engine options of an open handle in sink
 * mode, running or not, without closing its sockets or UMEMs: no frame is
 * passed to the kernel for want of a socket meanwhile. @sink: a new spec,
 * or NULL to keep the sinks (the same spec with NULL @sink_opts keeps them
 * too); @engine: new engine options (region, deliver, release_frame, ctx
 * and max_chunks are libxrx's), or NULL to keep the engine options (the
 * engines are still renewed: the old ones deliver what they hold into the
 * old sink). The new sinks open while the old ones are still open, so a
 * device that takes one opener at a time (a TUN without multi_queue)
 * cannot be swapped for another spec of itself. Everything
 * new is opened first, for every queue; if anything fails nothing changes.
 * Each worker then switches between two batches: its old engine's held
 * aggregates are delivered into the old sink and the old sink flushed,
 * then the new pair takes the next batch. Counters keep counting up. Waits
 * up to 2 s for the workers; one that is blocked (in a sink) switches when
 * it runs again, and the old pair is freed later (logged).
 * Return: 0, -EINVAL (not sink mode, bad options) or what opening failed
 * with.
 */
XRX_API int xrx_live__reconfigure(struct xrx_live *l, const char *sink,
				  const struct xrx_sink_opts *sink_opts,
				  const struct xrx_engine_opts *engine);

/* What xrx_live__reconfigure_opts() changes; NULL and false keep. */
struct xrx_live_reconfigure_opts {
	size_t sz;		/* sizeof(struct xrx_live_reconfigure_opts) */
	const char *sink;	/* as xrx_live__reconfigure()'s arguments */
	const struct xrx_sink_opts *sink_opts;
	const struct xrx_engine_opts *engine;
	/* A new tee (xrx_live_opts.tee), added or in place of the one
	 * running; the same spec with NULL @tee_opts keeps it. */
	const char *tee;
	const struct xrx_sink_opts *tee_opts;	/* NULL: the tee's options */
	bool no_tee;		/* remove the tee (with tee NULL) */
};

/*
 * xrx_live__reconfigure() with the tee as well: sink, tee and engines are
 * opened first for every queue, and each worker switches all of them at
 * once between two batches (its old tee flushed with the old sink). The
 * tee's counters keep counting across tees. Return: as
 * xrx_live__reconfigure(); -EINVAL also for a tee without a sink.
 */
XRX_API int xrx_live__reconfigure_opts(struct xrx_live *l,
				       const struct xrx_live_reconfigure_opts *opts);
/* Start one worker thread per queue (sink or callback mode). */
XRX_API int xrx_live__start(struct xrx_live *l);
/*
 * Stop and join the workers; held aggregates are delivered first. The
 * sockets leave xrx_xsks first (xrx_rx passes their queues' frames to
 * the kernel, counted in pass_no_socket) and what is left in their RX
 * rings is received and delivered, so a stop loses no redirected frame;
 * start() puts them back.
 */
XRX_API int xrx_live__stop(struct xrx_live *l);
/* Stop, deliver what is held, close sinks, sockets, UMEMs; detach and
 * unpin what open() attached. NULL is a no-op. */
XRX_API void xrx_live__close(struct xrx_live *l);

/*
 * Poll mode: run one receive batch on queue index @qi (0-based) in the
 * calling thread, waiting up to @timeout_ms (0: do not wait) for frames.
 * Return: packets stored in @pkts (at most @max; more stay queued for the
 * next call), or a negative errno.
 */
XRX_API int xrx_live__poll(struct xrx_live *l, __u32 qi, struct xrx_pkt **pkts,
			   __u32 max, int timeout_ms);
/* Give back a packet delivered on queue index @qi. */
XRX_API void xrx_live__release(struct xrx_live *l, __u32 qi,
			       struct xrx_pkt *pkt);

/*
 * Rules (include/xrx/rules.h), applied at once to the program. A rule of
 * a tunnel's scope (XRX_RULE_SCOPE_TNL(): VXLAN's, GENEVE's) matches only
 * once xrx_cfg lists that kind's ports and has XRX_CFG_F_INNER_RULES,
 * which xrxd writes and these calls do not.
 */
/* @act: enum xrx_action (XRX_ACT_PASS, XRX_ACT_ACCEL); the rest of
 * xrx_cfg is kept. */
XRX_API int xrx_live__set_default_action(struct xrx_live *l, __u32 act);
XRX_API int xrx_live__rule_add(struct xrx_live *l,
			       const struct xrx_rule_key *key,
			       const struct xrx_rule_val *val);
XRX_API int xrx_live__rule_del(struct xrx_live *l,
			       const struct xrx_rule_key *key);
/* Shorthand: accelerate @proto to destination @port (0: any), any address. */
XRX_API int xrx_live__rule_add_port(struct xrx_live *l, __u8 proto, __u16 port);

XRX_API __u32 xrx_live__nr_queues(const struct xrx_live *l);
XRX_API int xrx_live__queue_info(const struct xrx_live *l, __u32 qi,
				 struct xrx_live_queue_info *info);
/* How xrx_rx is attached: "native", "skb", or "none" (someone else's). */
XRX_API const char *xrx_live__attach_mode(const struct xrx_live *l);

/*
 * Counters of queue index @qi, or summed over all queues with qi < 0.
 * Exact when the workers are stopped; while they run, each value is a
 * recent one. Return: 0, or -EINVAL.
 */
XRX_API int xrx_live__stats(struct xrx_live *l, int qi,
			    struct xrx_live_stats *st);
XRX_API const char *xrx_live_stat__name(int stat);
XRX_API const char *xrx_live_stat__desc(int stat);

/*
 * Check the frame-ownership invariant of queue @qi (or every queue, qi <
 * 0): each frame in exactly one place; the engine holds exactly the frames
 * it was given and has not released (frames_in - frames_released, chunks
 * counted); no violation recorded. Call with the workers stopped.
 * Return: 0, or -EUCLEAN with the first discrepancy written to @why.
 */
XRX_API int xrx_live__check_frames(struct xrx_live *l, int qi, char *why,
				   size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* XRX_LIVE_H */
