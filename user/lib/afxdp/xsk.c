// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The AF_XDP socket of one queue: bind with the best mode the driver
 * offers, insert into xrx_xsks, XDP_STATISTICS (busy-poll options:
 * busy_poll.c).
 *
 * Bind order in XRX_LIVE_BIND_AUTO: zero-copy (the driver implements
 * ndo_xsk_wakeup / XDP_SETUP_XSK_POOL), then copy; each with XDP_USE_SG
 * first (multi-buffer frames), then without; where the kernel lacks
 * XDP_USE_SG (xrx_kernel__lacks(), before 6.6) only without, and the
 * process says so once. libxdp cannot
 * bind a second time over the rings of a UMEM whose first bind failed,
 * so every attempt registers the UMEM afresh.
 *
 * EBUSY: the queue still has a buffer pool. A socket closed a moment ago
 * (ours, on a restart) releases it from a work item after the close
 * returns (xsk_release() -> xp_put_pool_deferred()), so the same mode is
 * tried again with doubling pauses (5 ms, 10 ms, ...) for up to
 * opts.bind_busy_ms before the next mode or the error.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <xdp/libxdp.h>

#include "afxdp/afxdp.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static int xrx_xsk_try_once(struct xrx_live *l, struct xrx_rxq *q,
			    __u32 queue, __u16 bind_flags)
{
	struct xsk_socket_config cfg = {
		.rx_size = l->o.rx_size,
		.tx_size = 0,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = bind_flags,
	};
	struct xrx_xsk *x = &q->xsk;
	int err;

	err = xrx_umem_register(&q->umem);
	if (err)
		return err;
	err = xsk_socket__create(&x->xsk, l->ifname, queue, q->umem.umem,
				 &x->rx, NULL, &cfg);
	if (err) {
		x->xsk = NULL;
		xrx_umem_unregister(&q->umem);
	}
	return err;
}

/* @waited: ms spent on EBUSY so far, shared by every mode tried. */
static int xrx_xsk_try(struct xrx_live *l, struct xrx_rxq *q, __u32 queue,
		       __u16 bind_flags, __u32 *waited)
{
	__u32 budget = l->o.bind_busy_ms ? l->o.bind_busy_ms : XRX_BIND_BUSY_MS;
	__u32 pause = 5;
	struct timespec ts;
	int err;

	for (;;) {
		err = xrx_xsk_try_once(l, q, queue, bind_flags);
		if (err != -EBUSY || *waited >= budget)
			return err;
		if (pause > budget - *waited)
			pause = budget - *waited;
		ts.tv_sec = pause / 1000;
		ts.tv_nsec = (long)(pause % 1000) * 1000000;
		/* Once per socket: a restart right after a stop meets this
		 * every time, and the log should say why the bind waits. */
		if (!*waited)
			xrx_log(l, XRX_LOG_INFO,
				"%s queue %u: the queue is still busy (EBUSY: the kernel has not yet released a closed socket's buffer pool); binding again for up to %u ms",
				l->ifname, queue, budget);
		nanosleep(&ts, NULL);
		*waited += pause;
		pause *= 2;
		q->stats[XRX_LIVE_STAT_BIND_BUSY_RETRIES]++;
	}
}

/*
 * Multi-buffer sockets, unless the options or the kernel rule them out;
 * the kernel's lack is logged once per process, not once per queue and
 * reopen.
 */
static bool xrx_xsk_want_sg(struct xrx_live *l)
{
	static bool said;
	char why[512];

	if (l->o.no_multi_buffer)
		return false;
	if (!(xrx_kernel__lacks() & (1u << XRX_KERNEL_XSK_SG)))
		return true;
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED)) {
		xrx_kernel__explain(XRX_KERNEL_XSK_SG, why, sizeof(why));
		xrx_log(l, XRX_LOG_WARN, "%s: %s", l->ifname, why);
	}
	return false;
}

/* Why a zero-copy bind was refused, for the one line that reports it. */
static const char *xrx_xsk_zc_why(int err)
{
	switch (err) {
	case -EOPNOTSUPP:
		return "the driver does not offer AF_XDP zero-copy (no NETDEV_XDP_ACT_XSK_ZEROCOPY): use bind = auto or copy";
	case -EINVAL:
	case -EPERM:
		return "the driver refused the zero-copy buffer pool (virtio_net: the device must use the DMA API, iommu_platform=on; see docs/kernels.md, driver notes)";
	case -EBUSY:
		return "another AF_XDP socket holds the queue, or the kernel has not yet released a closed one";
	default:
		return "does the queue exist? see ethtool -l";
	}
}

int xrx_xsk_open(struct xrx_live *l, struct xrx_rxq *q, __u32 queue)
{
	static const struct {
		__u16 flags;
		bool zc;
	} tries[] = {
		{ XDP_ZEROCOPY | XDP_USE_SG, true },
		{ XDP_ZEROCOPY, true },
		{ XDP_COPY | XDP_USE_SG, false },
		{ XDP_COPY, false },
	};
	struct xrx_xsk *x = &q->xsk;
	struct xdp_options xo = { 0 };
	socklen_t olen = sizeof(xo);
	__u16 wake = l->o.no_need_wakeup ? 0 : XDP_USE_NEED_WAKEUP;
	int err = -EINVAL, first_err = 0, last_err = 0;
	__u32 waited = 0;
	unsigned int i;
	bool sg = xrx_xsk_want_sg(l);

	memset(x, 0, sizeof(*x));
	x->queue = queue;
	x->fd = -1;
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (tries[i].zc && l->o.bind == XRX_LIVE_BIND_COPY)
			continue;
		if (!tries[i].zc && l->o.bind == XRX_LIVE_BIND_ZEROCOPY)
			continue;
		if ((tries[i].flags & XDP_USE_SG) && !sg)
			continue;
		err = xrx_xsk_try(l, q, queue, tries[i].flags | wake, &waited);
		if (!err) {
			x->zerocopy = tries[i].zc;
			x->sg = tries[i].flags & XDP_USE_SG;
			/* Zero-copy, but the driver refused it with multi-buffer
			 * (virtio_net takes one buffer per frame): say what
			 * that costs, once per queue. */
			if (tries[i].zc && !x->sg && !l->o.no_multi_buffer && last_err)
				xrx_log(l, XRX_LOG_INFO,
					"%s queue %u: zero-copy without multi-buffer (the driver refused XDP_USE_SG: %s): a frame longer than one UMEM chunk is dropped",
					l->ifname, queue, strerror(-last_err));
			break;
		}
		last_err = err;
		if (!first_err)
			first_err = err;
		xrx_log(l, XRX_LOG_DEBUG, "%s queue %u: bind %s%s: %s", l->ifname,
			queue, tries[i].zc ? "zero-copy" : "copy",
			(tries[i].flags & XDP_USE_SG) ? " multi-buffer" : "",
			strerror(-err));
	}
	if (err) {
		/* In zero-copy only mode the last refusal (the plain
		 * XDP_ZEROCOPY bind) is the driver's answer; the multi-buffer
		 * one before it may only say the driver has no multi-buffer
		 * zero-copy. */
		if (l->o.bind == XRX_LIVE_BIND_ZEROCOPY && err != -EBUSY)
			first_err = err;
		xrx_log(l, XRX_LOG_WARN,
			"%s queue %u: cannot bind an AF_XDP socket: %s (%s; bind mode %s)",
			l->ifname, queue, strerror(-first_err),
			l->o.bind == XRX_LIVE_BIND_ZEROCOPY || first_err == -EBUSY ?
				xrx_xsk_zc_why(first_err) :
				"does the queue exist? see ethtool -l",
			l->o.bind == XRX_LIVE_BIND_ZEROCOPY ? "zero-copy only" :
			l->o.bind == XRX_LIVE_BIND_COPY ? "copy only" : "auto");
		return first_err;
	}
	x->fd = xsk_socket__fd(x->xsk);
	x->need_wakeup = wake != 0;
	/* What the kernel really did, not what was asked for. */
	if (!getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &xo, &olen))
		x->zerocopy = xo.flags & XDP_OPTIONS_ZEROCOPY;
	/* Not into xrx_xsks yet: xrx_live__open() inserts the sockets once
	 * every queue has one. */
	if (l->o.busy_poll)
		xrx_xsk_busy_poll(l, x);
	xrx_log(l, XRX_LOG_INFO, "%s queue %u: AF_XDP %s mode%s%s%s", l->ifname,
		queue, x->zerocopy ? "zero-copy" : "copy",
		x->sg ? ", multi-buffer" : "",
		x->need_wakeup ? ", need_wakeup" : "",
		x->busy_poll ? ", busy polling" : "");
	return 0;
}

/* Make xrx_rx redirect the queue's frames to its socket. */
int xrx_xsk_map_insert(struct xrx_live *l, struct xrx_rxq *q)
{
	int err;

	if (!q->xsk.xsk)
		return -EBADF;
	err = xsk_socket__update_xskmap(
		q->xsk.xsk, xrx_prog__map_fd(l->prog, XRX_PROG_MAP_XSKS));
	if (err)
		xrx_log(l, XRX_LOG_WARN,
			"%s queue %u: cannot insert the socket into xrx_xsks: %s",
			l->ifname, q->xsk.queue, strerror(-err));
	return err;
}

/* From now on xrx_rx passes the queue's frames (pass_no_socket). */
void xrx_xsk_map_remove(struct xrx_live *l, struct xrx_rxq *q)
{
	__u32 key = q->xsk.queue;

	if (q->xsk.xsk)
		bpf_map_delete_elem(xrx_prog__map_fd(l->prog, XRX_PROG_MAP_XSKS),
				    &key);
}

void xrx_xsk_close(struct xrx_rxq *q)
{
	if (q->xsk.xsk)
		xsk_socket__delete(q->xsk.xsk);
	q->xsk.xsk = NULL;
	q->xsk.fd = -1;
	xrx_umem_unregister(&q->umem);
}

/* XDP_STATISTICS into stats[XRX_LIVE_STAT_XSK_*]. */
int xrx_xsk_stats(const struct xrx_xsk *x, __u64 *stats)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	if (x->fd < 0)
		return -EBADF;
	if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &xs, &len))
		return -errno;
	stats[XRX_LIVE_STAT_XSK_RX_DROPPED] = xs.rx_dropped;
	stats[XRX_LIVE_STAT_XSK_RX_INVALID] = xs.rx_invalid_descs;
	stats[XRX_LIVE_STAT_XSK_RX_RING_FULL] = xs.rx_ring_full;
	stats[XRX_LIVE_STAT_XSK_FILL_EMPTY] = xs.rx_fill_ring_empty_descs;
	return 0;
}

/*
 * The kernel asked to be woken (need_wakeup): one non-blocking recvfrom()
 * runs the driver's wakeup (xsk_recvmsg() -> xsk_wakeup()).
 */
void xrx_xsk_kick(struct xrx_rxq *q)
{
	q->stats[XRX_LIVE_STAT_WAKEUPS]++;
	recvfrom(q->xsk.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}
