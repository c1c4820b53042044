// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The AF_XDP socket of one queue: bind with the best mode the driver
 * offers, insert into xrx_xsks, busy-poll options, XDP_STATISTICS.
 *
 * Bind order in XRX_LIVE_BIND_AUTO: zero-copy (the driver implements
 * ndo_xsk_wakeup / XDP_SETUP_XSK_POOL), then copy; each with XDP_USE_SG
 * first (multi-buffer frames, kernel 6.6+), then without. libxdp cannot
 * bind a second time over the rings of a UMEM whose first bind failed,
 * so every attempt registers the UMEM afresh.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <xdp/libxdp.h>

#include "afxdp/live_priv.h"

#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL 46
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static int xrx_xsk_try(struct xrx_live *l, struct xrx_rxq *q, __u32 queue,
		       __u16 bind_flags)
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

/*
 * A queue whose previous socket was just closed stays taken until the
 * kernel frees that socket's buffer pool, which it does from a workqueue
 * (xp_put_pool()); meanwhile a new bind gets EBUSY. A worker restart
 * (reload, MTU change) closes and rebinds at once, so EBUSY is retried
 * for a bounded while before it counts as a queue someone else holds.
 */
#define XRX_XSK_BUSY_TRIES 40
#define XRX_XSK_BUSY_WAIT_US 50000	/* 40 x 50 ms: 2 s at most */

static void xrx_xsk_busy_poll(struct xrx_live *l, struct xrx_xsk *x)
{
	int one = 1, usec = l->o.busy_poll_usec ? (int)l->o.busy_poll_usec : 20;
	int budget = l->o.busy_poll_budget ? (int)l->o.busy_poll_budget :
					     (int)l->o.batch;

	if (setsockopt(x->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
		       sizeof(one)) ||
	    setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL, &usec, sizeof(usec)) ||
	    setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
		       sizeof(budget))) {
		xrx_log(l, XRX_LOG_WARN,
			"%s queue %u: busy polling not available (%s); polling normally",
			l->ifname, x->queue, strerror(errno));
		return;
	}
	x->busy_poll = true;
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
	int err = -EINVAL, first_err = 0;
	unsigned int i, busy = 0;

	memset(x, 0, sizeof(*x));
	x->queue = queue;
	x->fd = -1;
again:
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (tries[i].zc && l->o.bind == XRX_LIVE_BIND_COPY)
			continue;
		if (!tries[i].zc && l->o.bind == XRX_LIVE_BIND_ZEROCOPY)
			continue;
		if ((tries[i].flags & XDP_USE_SG) && l->o.no_multi_buffer)
			continue;
		err = xrx_xsk_try(l, q, queue, tries[i].flags | wake);
		if (!err) {
			x->zerocopy = tries[i].zc;
			x->sg = tries[i].flags & XDP_USE_SG;
			break;
		}
		if (!first_err)
			first_err = err;
		xrx_log(l, XRX_LOG_DEBUG, "%s queue %u: bind %s%s: %s", l->ifname,
			queue, tries[i].zc ? "zero-copy" : "copy",
			(tries[i].flags & XDP_USE_SG) ? " multi-buffer" : "",
			strerror(-err));
	}
	if (err == -EBUSY && ++busy < XRX_XSK_BUSY_TRIES) {
		usleep(XRX_XSK_BUSY_WAIT_US);
		first_err = 0;
		goto again;
	}
	if (err) {
		xrx_log(l, XRX_LOG_WARN,
			"%s queue %u: cannot bind an AF_XDP socket: %s (does the queue exist? see ethtool -l %s; bind mode %s)",
			l->ifname, queue, strerror(-first_err), l->ifname,
			l->o.bind == XRX_LIVE_BIND_ZEROCOPY ? "zero-copy only" :
			l->o.bind == XRX_LIVE_BIND_COPY ? "copy only" : "auto");
		return first_err;
	}
	x->fd = xsk_socket__fd(x->xsk);
	x->need_wakeup = wake != 0;
	/* What the kernel really did, not what was asked for. */
	if (!getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &xo, &olen))
		x->zerocopy = xo.flags & XDP_OPTIONS_ZEROCOPY;
	err = xsk_socket__update_xskmap(
		x->xsk, xrx_prog__map_fd(l->prog, XRX_PROG_MAP_XSKS));
	if (err) {
		xrx_log(l, XRX_LOG_WARN,
			"%s queue %u: cannot insert the socket into xrx_xsks: %s",
			l->ifname, queue, strerror(-err));
		xrx_xsk_close(q);
		return err;
	}
	if (l->o.busy_poll)
		xrx_xsk_busy_poll(l, x);
	xrx_log(l, XRX_LOG_INFO, "%s queue %u: AF_XDP %s mode%s%s%s", l->ifname,
		queue, x->zerocopy ? "zero-copy" : "copy",
		x->sg ? ", multi-buffer" : "",
		x->need_wakeup ? ", need_wakeup" : "",
		x->busy_poll ? ", busy polling" : "");
	return 0;
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
 * The kernel asked to be woken (need_wakeup) or busy polling drives the
 * queue: one non-blocking recvfrom() runs the driver's NAPI/wakeup.
 */
void xrx_xsk_kick(struct xrx_rxq *q)
{
	q->stats[XRX_LIVE_STAT_WAKEUPS]++;
	recvfrom(q->xsk.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}
