// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One RX queue's receive loop: peek a batch from the RX ring, hand the
 * frames (with xrx_rx's metadata in front) to the queue's engine, let the
 * engine deliver to the consumer, flush the sink at the batch end, and put
 * released frames back on the fill ring in one submit. Run by a worker
 * thread per queue, or by the caller in poll mode; either way one thread
 * per queue and no locks.
 *
 * Fill-ring pressure: when the kernel holds fewer than low_mark frames and
 * none are free, the frames sit in held aggregates or in packets the
 * consumer keeps. Held aggregates are then delivered early
 * (xrx_engine__flush_oldest()) rather than letting the kernel drop
 * everything; what the consumer keeps it must release.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>

#include "afxdp/afxdp.h"
#include "afxdp/nap.h"

static void xrx_rxq_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct xrx_rxq *q = ctx;
	struct xrx_live *l = q->l;

	if (q->sink) {
		if (q->tee)
			xrx_tee__deliver(q->tee, q->sink, pkt);
		else
			xrx_sink__deliver(q->sink, pkt);
		return;
	}
	q->stats[XRX_LIVE_STAT_CB_PKTS]++;
	if (l->o.cb) {
		l->o.cb(l->o.cb_ctx, l, q->qi, pkt);
		return;
	}
	/* Poll mode: the ring has a slot for every packet buffer. */
	q->pend[(q->pend_head + q->pend_len) % q->pend_cap] = pkt;
	q->pend_len++;
}

static void xrx_rxq_release_frame(void *ctx, __u64 addr)
{
	struct xrx_rxq *q = ctx;

	xrx_umem_put(&q->umem, addr);
}

/*
 * Pieces per frame every engine of the handle takes. Multi-buffer: enough
 * for a 9216-byte jumbo frame in chunks of frame_size less the kernel's
 * XDP_PACKET_HEADROOM (each piece costs fragment slots in every packet
 * buffer, so no more).
 */
static __u32 xrx_rxq_max_pieces(const struct xrx_live *l)
{
	__u32 n = l->eng.max_chunks;

	if (!n && !l->o.no_multi_buffer)
		n = (XRX_JUMBO_MAX + l->o.frame_size - 256 - 1) /
		    (l->o.frame_size - 256);
	if (n > XRX_CHUNKS_MAX)
		n = XRX_CHUNKS_MAX;
	return n ? n : 1;
}

static void xrx_rxq_refill(struct xrx_rxq *q);

/*
 * An engine for queue @q over its UMEM, with @opts (zeros are defaults).
 * Return: the engine, or NULL with errno set (logged).
 */
struct xrx_engine *xrx_rxq_engine_new(struct xrx_live *l, struct xrx_rxq *q,
				      const struct xrx_engine_opts *opts)
{
	struct xrx_engine_opts eo = *opts;
	struct xrx_engine *e;
	int err;

	/* The receive loop takes chains of the handle's size; every
	 * engine of the queue, swapped in or not, must take them too. */
	eo.max_chunks = xrx_rxq_max_pieces(l);
	/* ... and hash a flow as xrx_rx does (xrx_cfg's key). */
	eo.hash_key = l->hash_key;
	eo.sz = sizeof(eo);
	eo.region = q->umem.area;
	eo.region_size = q->umem.size;
	eo.deliver = xrx_rxq_deliver;
	eo.release_frame = xrx_rxq_release_frame;
	eo.ctx = q;
	e = xrx_engine__new(&eo);
	if (!e) {
		err = errno;
		xrx_log(l, XRX_LOG_WARN, "%s: GRO engine: %s (check the engine options)",
			l->ifname, strerror(err));
		errno = err;
	}
	return e;
}

int xrx_rxq_init(struct xrx_live *l, struct xrx_rxq *q)
{
	int err;

	q->l = l;
	q->batch = l->o.batch;
	q->cpu = l->o.cpus ? l->o.cpus[q->qi] : -1;
	atomic_init(&q->stop, false);
	atomic_init(&q->swap, NULL);
	atomic_init(&q->heartbeat_ns, 0);
	err = xrx_umem_init(&q->umem, l->o.nr_frames, l->o.frame_size,
			    l->o.fill_size);
	if (err) {
		xrx_log(l, XRX_LOG_WARN,
			"%s: UMEM of %u frames of %u bytes: %s (frame size must be 2048 or 4096, ring sizes powers of two)",
			l->ifname, l->o.nr_frames, l->o.frame_size, strerror(-err));
		return err;
	}
	q->low_mark = l->o.fill_size / 4;
	q->frames = calloc(q->batch, sizeof(*q->frames));
	q->chunks = calloc(q->batch + XRX_CHUNKS_MAX, sizeof(*q->chunks));
	if (!q->frames || !q->chunks)
		return -ENOMEM;
	q->e = xrx_rxq_engine_new(l, q, &l->eng);
	if (!q->e)
		return -errno;
	q->max_pieces = xrx_rxq_max_pieces(l);
	if (l->o.sink) {
		q->sink = xrx_rxq_sink_open(l, q, l->o.sink, &l->sink_o, &l->eng);
		if (!q->sink)
			return -errno;
		if (l->tee_spec[0]) {
			q->tee = xrx_rxq_tee_open(l, q, l->tee_spec, &l->tee_o,
						  &l->eng);
			if (!q->tee)
				return -errno;
		}
	} else if (!l->o.cb) {
		/* At most every packet buffer delivered and not yet polled. */
		q->pend_cap = l->eng.pkts ? l->eng.pkts :
			      (l->eng.flows ? l->eng.flows :
						   XRX_FLOWS_DEFAULT) + 1024;
		q->pend = calloc(q->pend_cap, sizeof(*q->pend));
		if (!q->pend)
			return -ENOMEM;
	}
	return 0;
}

/* Interrupt moderation for the sink the worker has now (nap.h). */
static void xrx_rxq_nap_setup(struct xrx_rxq *q)
{
	q->nap_max_ns = xrx_nap_max(&q->l->o, q->sink ? q->sink->ops : NULL,
				    q->l->speed_mbps);
	q->nap_ns = 0;
	q->cycle_ns = 0;
	q->cycle_frames = 0;
}

/*
 * Between two batches: switch to the engine, sink and tee the control
 * thread posted. What the old engine holds is delivered into the old sink
 * (and tee) and both flushed, so every packet of the old pair is back (a sink
 * releases at the latest in flush(), include/xrx/sink.h) and every frame
 * is free or in the kernel again before the new pair sees the next one.
 */
void xrx_rxq_apply_swap(struct xrx_rxq *q)
{
	struct xrx_swap *s = atomic_load_explicit(&q->swap, memory_order_acquire);

	if (!s)
		return;
	xrx_engine__flush_all(q->e);
	xrx_rxq_flush_sinks(q);
	if (s->sink)
		q->sink = s->sink;
	if (s->set_tee)
		q->tee = s->tee;
	q->e = s->e;
	if (s->sink)
		xrx_rxq_nap_setup(q);	/* its nap may differ */
	q->stats[XRX_LIVE_STAT_SWAPS]++;
	xrx_rxq_refill(q);
	atomic_store_explicit(&q->swap, NULL, memory_order_release);
}

/* After the socket is closed: deliver what is held, close the sink. */
void xrx_rxq_fini(struct xrx_rxq *q)
{
	if (q->e)
		xrx_engine__flush_all(q->e);
	if (q->sink)
		xrx_sink__close(q->sink);	/* releases what it queued */
	q->sink = NULL;
	xrx_tee__free(q->tee);		/* the same, for the tee's sink */
	q->tee = NULL;
	/* Poll-mode packets never fetched, and any the consumer kept:
	 * xrx_engine__free() releases them. */
	xrx_engine__free(q->e);
	q->e = NULL;
	free(q->pend);
	q->pend = NULL;
	free(q->frames);
	q->frames = NULL;
	free(q->chunks);
	q->chunks = NULL;
	xrx_umem_fini(&q->umem);
}

/*
 * Give the kernel every free frame; wake it if it asked. Busy polling:
 * run the queue's NAPI now, which fills the RX ring for the next batch.
 */
static void xrx_rxq_refill(struct xrx_rxq *q)
{
	xrx_umem_refill(&q->umem);
	if (q->xsk.busy_poll)
		xrx_rxq_busy_poll(q);
	else if (q->xsk.need_wakeup &&
		 xsk_ring_prod__needs_wakeup(&q->umem.fq))
		xrx_xsk_kick(q);
}

static void xrx_rxq_pressure(struct xrx_rxq *q)
{
	__u32 held, n;

	if (q->umem.nr_kernel >= q->low_mark || q->umem.nr_free)
		return;
	q->stats[XRX_LIVE_STAT_FILL_LOW]++;
	held = xrx_engine__held(q->e);
	if (!held)
		return;
	n = xrx_engine__flush_oldest(q->e, held / 2 + 1);
	q->stats[XRX_LIVE_STAT_PRESSURE_FLUSHES] += n;
	/* A sink that queues (pcap, a tee) gives them back in flush. */
	xrx_rxq_flush_sinks(q);
	xrx_rxq_refill(q);
}

/* Wait for the RX ring up to @timeout_ms. Return: descriptors ready. */
static __u32 xrx_rxq_wait(struct xrx_rxq *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->xsk.fd, .events = POLLIN };
	__u64 next = xrx_engine__next_timeout(q->e);
	__u32 n;

	/* Busy polling: a bounded spin first (busy_poll.c). */
	if (q->xsk.busy_poll) {
		n = xrx_rxq_busy_wait(q, next);
		if (n)
			return n;
	}
	/* Wake in time for the oldest held aggregate's timeout. */
	if (next) {
		__u64 now = xrx_now_ns();
		int ms = next > now ? (int)((next - now) / 1000000) + 1 : 0;

		if (ms < timeout_ms)
			timeout_ms = ms;
	}
	q->stats[XRX_LIVE_STAT_POLLS]++;
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	return xsk_cons_nb_avail(&q->xsk.rx, 1);
}

/*
 * Descriptors [i, n) of the RX ring: the pieces of the next frame, the
 * first one's descriptor followed by those XDP_PKT_CONTD chains to it.
 * Return: the pieces, 0 if the chain is not complete within n.
 */
static __u32 xrx_rxq_pieces(struct xsk_ring_cons *rx, __u32 idx, __u32 i,
			    __u32 n)
{
	__u32 k;

	for (k = i; k < n; k++)
		if (!(xsk_ring_cons__rx_desc(rx, idx + k)->options & XDP_PKT_CONTD))
			return k - i + 1;
	return 0;
}

static const struct xrx_meta *xrx_rxq_meta(const struct xrx_umem *u,
					   __u64 addr)
{
	__u64 off = addr & (u->frame_size - 1);

	return off >= sizeof(struct xrx_meta) ?
		       (const struct xrx_meta *)((__u8 *)u->area + addr) - 1 :
		       NULL;
}

/*
 * The arrival times of the batch's @nf frames (xrx_frame.ts_ns): the
 * clock the pcap sink writes (CLOCK_REALTIME), read once as they leave
 * the ring, or the NIC's stamp where xrx_rx's metadata has one
 * (afxdp/rxts.h).
 */
static void xrx_rxq_stamp(struct xrx_rxq *q, __u32 nf)
{
	const struct xrx_meta *m;
	struct timespec ts;
	__u64 now;
	__u32 i;

	clock_gettime(CLOCK_REALTIME, &ts);	/* vDSO: no syscall */
	now = (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
	for (i = 0; i < nf; i++) {
		struct xrx_frame *f = &q->frames[i];

		m = f->meta;
		f->ts_ns = now;
		if (m && m->rx_ts && m->magic == XRX_META_MAGIC &&
		    m->version == XRX_META_VERSION) {
			xrx_rxts_see(&q->rxts, m->rx_ts, now);
			f->flags |= XRX_FRAME_F_TS_NIC;
		}
	}
	/* the NIC's stamps, once the batch has set the offset */
	for (i = 0; i < nf; i++)
		if (q->frames[i].flags & XRX_FRAME_F_TS_NIC)
			q->frames[i].ts_ns = xrx_rxts_nic(
				&q->rxts, q->frames[i].meta->rx_ts, now);
}

/*
 * One batch: up to q->batch frames. A multi-buffer frame's descriptors
 * are peeked together (up to XRX_CHUNKS_MAX beyond the batch), so a chain
 * is never split between batches; the kernel posts a frame's
 * descriptors at once (xsk_rcv_zc()/__xsk_rcv() submit after the last).
 * Return: frames handed to the engine, or a negative errno.
 */
int xrx_rxq_batch(struct xrx_rxq *q, int timeout_ms)
{
	struct xrx_umem *u = &q->umem;
	struct xsk_ring_cons *rx = &q->xsk.rx;
	__u32 n, idx, i, k, np, used, nf = 0, nc = 0;
	const struct xdp_desc *d;
	struct xrx_frame *f;
	bool ok;

	n = xsk_ring_cons__peek(rx, q->batch + XRX_CHUNKS_MAX, &idx);
	if (!n) {
		xrx_rxq_refill(q);
		if (timeout_ms)
			q->cycle_ns = 0;	/* a wait: the nap starts over */
		if (timeout_ms && xrx_rxq_wait(q, timeout_ms))
			n = xsk_ring_cons__peek(rx, q->batch + XRX_CHUNKS_MAX,
						&idx);
		if (!n) {
			xrx_engine__flush(q->e, xrx_now_ns());
			xrx_rxq_flush_sinks(q);
			xrx_rxq_refill(q);
			return 0;
		}
	}
	for (i = 0; i < n && nf < q->batch; i += np) {
		np = xrx_rxq_pieces(rx, idx, i, n);
		if (!np) {
			if (n - i < XRX_CHUNKS_MAX)
				break;	/* the rest of it comes next batch */
			np = n - i;	/* no end in sight: a broken chain */
		}
		/* Every descriptor's frame leaves the kernel, whatever next. */
		ok = np <= q->max_pieces;
		for (k = 0; k < np; k++)
			ok &= xrx_umem_take(u, xsk_ring_cons__rx_desc(rx, idx + i + k)->addr);
		d = xsk_ring_cons__rx_desc(rx, idx + i);
		if (!ok || (np > 1 && d->len < XRX_HEAD_SIZE)) {
			q->stats[XRX_LIVE_STAT_RX_CHAIN_DROPS]++;
			for (k = 0; k < np; k++) {
				__u64 a = xsk_ring_cons__rx_desc(rx, idx + i + k)->addr;

				if (u->state[xrx_umem_index(u, a)] == XRX_FS_ENGINE)
					xrx_umem_drop(u, a);
			}
			continue;
		}
		f = &q->frames[nf++];
		f->addr = d->addr;
		f->len = d->len;
		f->flags = 0;
		f->meta = xrx_rxq_meta(u, d->addr);
		f->chunks = NULL;
		f->nr_chunks = 0;
		if (np > 1) {
			f->flags = XRX_FRAME_F_CHAIN;
			f->chunks = &q->chunks[nc];
			f->nr_chunks = np - 1;
			for (k = 1; k < np; k++) {
				d = xsk_ring_cons__rx_desc(rx, idx + i + k);
				q->chunks[nc].addr = d->addr;
				q->chunks[nc].len = d->len;
				q->chunks[nc++].pad = 0;
			}
			q->stats[XRX_LIVE_STAT_RX_CHAINS]++;
		}
	}
	used = i;
	if (used < n)
		xsk_ring_cons__cancel(rx, n - used);
	if (!used)
		return 0;
	xsk_ring_cons__release(rx, used);
	q->stats[XRX_LIVE_STAT_RX_BATCHES]++;
	q->stats[XRX_LIVE_STAT_RX_DESCS] += used;
	q->stats[XRX_LIVE_STAT_RX_FRAMES] += nf;
	xrx_rxq_begin_sinks(q);
	xrx_rxq_stamp(q, nf);
	xrx_engine__rx(q->e, q->frames, nf, xrx_now_ns());
	xrx_rxq_flush_sinks(q);
	xrx_rxq_refill(q);
	xrx_rxq_pressure(q);
	return (int)nf;
}

/*
 * Interrupt moderation (xrx_live_opts.coalesce_usec): the last batch
 * emptied the RX ring, so sleep on a timer rather than on the socket.
 * Off the socket's wait queue, the worker is not woken by every NAPI
 * poll that delivers a few frames (xsk_flush() -> sock_def_readable()
 * wakes only a sleeper in poll()); what arrives meanwhile makes the next
 * batch, as NIC interrupt coalescing does. How long: xrx_nap_next()
 * (nap.h), no longer than the kernel's buffers last at line rate
 * (xrx_nap_room()), and never past the oldest held aggregate's flush
 * timeout; below a microsecond, no nap.
 */
static void xrx_rxq_nap(struct xrx_rxq *q)
{
	__u64 now = xrx_now_ns(), ns, slack;
	__u64 next = xrx_engine__next_timeout(q->e);
	struct timespec ts;

	ns = xrx_nap_next(q->nap_ns, q->nap_max_ns,
			  q->cycle_ns ? now - q->cycle_ns : 0, q->cycle_frames,
			  q->l->o.rx_size);
	q->nap_ns = ns;
	q->cycle_ns = now;
	q->cycle_frames = 0;
	/* ... and no longer than the buffers the kernel holds now last */
	ns = xrx_nap_room(ns, q->umem.nr_kernel, q->l->o.rx_size,
			  q->l->speed_mbps);
	if (next) {
		if (next <= now)
			return;
		if (next - now < ns)
			ns = next - now;
	}
	if (ns < 1000)
		return;
	/* The default slack (50 us) would stretch a 20 us sleep to 70: a
	 * quarter of the nap bounds it to 1.25 times. Set again only when
	 * the nap has moved out of [4, 8] times the slack set. */
	slack = ns / 4;
	if (q->slack_ns > slack || q->slack_ns < slack / 2) {
		prctl(PR_SET_TIMERSLACK, slack);
		q->slack_ns = slack;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)ns;
	q->stats[XRX_LIVE_STAT_NAPS]++;
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void *xrx_rxq_main(void *arg)
{
	struct xrx_rxq *q = arg;
	cpu_set_t set;
	int n = 0;

	if (q->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(q->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			xrx_log(q->l, XRX_LOG_WARN,
				"%s queue %u: cannot pin the worker to CPU %d; running unpinned",
				q->l->ifname, q->xsk.queue, q->cpu);
	}
	q->slack_ns = 0;
	xrx_rxq_nap_setup(q);
	while (!atomic_load_explicit(&q->stop, memory_order_relaxed)) {
		/* The heartbeat the control thread watches: a worker
		 * blocked in a sink (a FIFO nobody reads) stops it. */
		atomic_store_explicit(&q->heartbeat_ns, xrx_now_ns(),
				      memory_order_relaxed);
		xrx_rxq_apply_swap(q);
		/* A full batch: more is waiting, go on. None: block in
		 * poll() (traffic stopped). Some: the ring ran dry, nap;
		 * not while busy polling, which fetches the next frames
		 * itself, but again once it has fallen back (busy_poll.c). */
		if (q->nap_max_ns && n > 0 && (__u32)n < q->batch &&
		    !q->xsk.busy_poll)
			xrx_rxq_nap(q);
		n = xrx_rxq_batch(q, 100);
		if (n > 0)
			q->cycle_frames += (__u32)n;
	}
	xrx_rxq_apply_swap(q);
	/* Stopping: nothing stays held in the engine or queued in the sink,
	 * nor handed off to the tee's writer (its counters final). */
	xrx_engine__flush_all(q->e);
	xrx_rxq_flush_sinks(q);
	xrx_tee__drain(q->tee);
	xrx_rxq_refill(q);
	return NULL;
}

int xrx_rxq_start(struct xrx_rxq *q)
{
	int err;

	atomic_store(&q->stop, false);
	err = pthread_create(&q->thread, NULL, xrx_rxq_main, q);
	if (err)
		return -err;
	q->running = true;
	return 0;
}

void xrx_rxq_stop(struct xrx_rxq *q)
{
	if (!q->running)
		return;
	atomic_store(&q->stop, true);
	pthread_join(q->thread, NULL);
	q->running = false;
	atomic_store(&q->heartbeat_ns, 0);
}
