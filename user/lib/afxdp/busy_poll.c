// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Preferred busy polling (xrx_live_opts.busy_poll): the worker runs its
 * queue's NAPI itself rather than waiting for softirq to run it and wake
 * the worker.
 *
 * How the kernel does it: a non-blocking recvfrom() on an AF_XDP socket
 * with SO_BUSY_POLL set runs one NAPI poll of up to SO_BUSY_POLL_BUDGET
 * frames (xsk_recvmsg() -> sk_busy_loop() -> napi_busy_loop(), which polls
 * once when it has no loop_end callback). SO_PREFER_BUSY_POLL makes
 * softirq hand a NAPI it finds busy-polled back to the poller
 * (napi_prefer_busy_poll() in napi_poll()), and makes the end of a busy
 * poll arm the NAPI's timer for gro_flush_timeout instead of re-enabling
 * the device's interrupt (__busy_poll_stop()), napi_defer_hard_irqs times.
 * So while the worker polls at least once per gro_flush_timeout, nobody
 * else runs the queue's NAPI and nobody wakes anybody.
 *
 * The socket must know its NAPI (SO_INCOMING_NAPI_ID), or a busy poll is
 * a syscall that does nothing. Before Linux 6.13 it learnt it from the
 * first frame delivered (sk_mark_napi_id_once_xdp()); since then it is
 * resolved at bind from the queue's NAPI (xsk_bind(); the driver links
 * the two with netif_queue_set_napi()), at first for zero-copy sockets
 * only. So the id is read after bind and, if there is none yet, again
 * after the first frames: still none, and the queue is polled normally
 * (veth in copy mode on Linux 6.18 is such a case).
 *
 * An idle queue: a spinning worker burns its core at any rate, so after
 * busy_poll_usec of polls that found nothing the worker blocks in poll()
 * like one without busy polling. The NAPI's timer then runs it from
 * softirq, which delivers what came meanwhile and wakes the worker, who
 * polls again; an idle device goes back to interrupts after
 * napi_defer_hard_irqs empty polls (napi_complete_done()).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "afxdp/afxdp.h"

/* The socket's NAPI, 0 when it has none (yet). */
static unsigned int xrx_xsk_napi_id(const struct xrx_xsk *x)
{
	unsigned int id = 0;
	socklen_t len = sizeof(id);

	if (getsockopt(x->fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &id, &len))
		return 0;
	return id;
}

/* The socket options; without them the queue is polled normally. */
void xrx_xsk_busy_poll(struct xrx_live *l, struct xrx_xsk *x)
{
	int one = 1, usec = (int)l->o.busy_poll_usec;
	int budget = (int)l->o.busy_poll_budget;

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
	x->napi_id = xrx_xsk_napi_id(x);
}

/*
 * Frames came and the socket still has no NAPI: busy polls would do
 * nothing but cost a syscall each, so poll normally from now on.
 */
static void xrx_rxq_busy_check(struct xrx_rxq *q)
{
	struct xrx_live *l = q->l;

	q->xsk.napi_id = xrx_xsk_napi_id(&q->xsk);
	if (q->xsk.napi_id)
		return;
	q->xsk.busy_poll = false;
	xrx_log(l, XRX_LOG_WARN,
		"%s queue %u: busy polling has no NAPI to poll (the %s socket has none: since Linux 6.13 the kernel gives it one only where the driver links the queue to its NAPI, at first in zero-copy mode only); polling normally",
		l->ifname, q->xsk.queue, q->xsk.zerocopy ? "zero-copy" : "copy-mode");
}

/* One NAPI poll of the queue, on this thread. */
void xrx_rxq_busy_poll(struct xrx_rxq *q)
{
	q->stats[XRX_LIVE_STAT_BUSY_POLLS]++;
	recvfrom(q->xsk.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	if (!q->xsk.napi_id && q->stats[XRX_LIVE_STAT_RX_DESCS])
		xrx_rxq_busy_check(q);
}

/*
 * The RX ring is empty: poll NAPI until it has frames, for at most
 * busy_poll_usec and not past @until_ns (0: no bound; the oldest held
 * aggregate's flush timeout). Return: descriptors ready, 0 when the time
 * ran out (the caller then blocks in poll()).
 */
__u32 xrx_rxq_busy_wait(struct xrx_rxq *q, __u64 until_ns)
{
	__u64 end = xrx_now_ns() + (__u64)q->l->o.busy_poll_usec * 1000;
	__u32 n;

	if (until_ns && until_ns < end)
		end = until_ns;
	do {
		xrx_rxq_busy_poll(q);
		n = xsk_cons_nb_avail(&q->xsk.rx, 1);
		if (n)
			return n;
	} while (xrx_now_ns() < end);
	return 0;
}
