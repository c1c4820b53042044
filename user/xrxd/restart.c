// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workers reopened (a queue count or an MTU they do not hold), and
 * degraded when they cannot be: no sockets, xrx_rx passes the traffic to
 * the kernel, and the timer retries with a back-off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "xrxd.h"

/* No sockets: xrx_rx passes everything; retry from the timer. */
void xrxd_enter_degraded(struct xrxd *x, int err)
{
	x->workers.bind_err = err;
	if (!x->workers.degraded)
		x->workers.retry_gap_ns = 250000000ull;
	x->workers.degraded = true;
	x->workers.retry_ns = xrxd_now_ns(CLOCK_MONOTONIC) +
			      x->workers.retry_gap_ns;
	ctl_err("%s: DEGRADED: cannot open the AF_XDP sockets (%s); xrx_rx stays attached and passes the traffic to the kernel (pass_no_socket); retrying in %.2f s",
		x->ifname, strerror(-err),
		(double)x->workers.retry_gap_ns / 1e9);
}

/*
 * The queue count @conf asks for on the NIC as it is now (with queues =
 * all, ethtool -L may have changed it since), at most the workers xrxd
 * runs; @fallback if the NIC cannot be read.
 */
static unsigned int queues_now(struct xrxd *x, const struct xrx_conf *conf,
			       unsigned int fallback)
{
	struct xrx_nic *nic;
	unsigned int n = fallback;

	nic = malloc(sizeof(*nic));
	if (nic && !xrxd_read_nic(x, nic))
		n = xrxd_queue_count(conf, nic);
	free(nic);
	return n > XRX_LIVE_QUEUES_MAX ? XRX_LIVE_QUEUES_MAX : n;
}

/* From the timer: one more try at the sockets, backing off to 8 s. */
void xrxd_retry_degraded(struct xrxd *x)
{
	unsigned int n;
	int err;

	if (!x->workers.degraded ||
	    xrxd_now_ns(CLOCK_MONOTONIC) < x->workers.retry_ns)
		return;
	/* The channels may have changed while degraded: a queue gone is
	 * a bind that fails forever, a queue added one left unserved. */
	n = queues_now(x, x->conf, x->workers.nr_queues);
	if (n != x->workers.nr_queues) {
		ctl_notice("%s: RX queues %u -> %u while degraded; retrying with %u",
			   x->ifname, x->workers.nr_queues, n, n);
		x->workers.nr_queues = n;
	}
	/* The timer retries anyway: do not hold up the main loop long. */
	x->workers.bind_busy_ms = 200;
	err = xrxd_workers_start(x, x->conf);
	x->workers.bind_busy_ms = 1000;
	if (!err) {
		x->workers.degraded = false;
		x->stats.us.hdr[XRX_USTATS_WORKER_RESTARTS]++;
		ctl_notice("%s: AF_XDP sockets open again; no longer degraded",
			   x->ifname);
		return;
	}
	x->workers.bind_err = err;
	x->stats.us.hdr[XRX_USTATS_BIND_FAILURES]++;
	if (x->workers.retry_gap_ns < 8000000000ull)
		x->workers.retry_gap_ns *= 2;
	x->workers.retry_ns = xrxd_now_ns(CLOCK_MONOTONIC) +
			      x->workers.retry_gap_ns;
	ctl_warn("%s: still degraded (%s); next try in %.1f s", x->ifname,
		 strerror(-err), (double)x->workers.retry_gap_ns / 1e9);
}

/*
 * Close and reopen the sockets with @conf (queue count change, an MTU the
 * frames do not hold). On failure, the running config's; failing that,
 * degraded: xrxd stays up and retries. Return: 0 when @conf's workers
 * run, else the error of that attempt.
 */
int xrxd_restart_workers(struct xrxd *x, const struct xrx_conf *conf)
{
	unsigned int n, old_n = x->workers.nr_queues;
	int ret, ret2;

	n = queues_now(x, conf, x->workers.nr_queues);
	if (xrxd_workers_stop(x))
		xrxd_stats_refresh(x);
	x->workers.nr_queues = n;
	x->stats.us.hdr[XRX_USTATS_WORKER_RESTARTS]++;
	ret = xrxd_workers_start(x, conf);
	if (!ret) {
		x->workers.degraded = false;
		return 0;
	}
	x->stats.us.hdr[XRX_USTATS_BIND_FAILURES]++;
	ret2 = ret;
	if (conf != x->conf) {
		ctl_warn("%s: going back to the running sink, engine and queue settings",
			 x->ifname);
		x->workers.nr_queues = old_n;
		ret2 = xrxd_workers_start(x, x->conf);
		if (!ret2) {
			x->workers.degraded = false;
			return ret;
		}
		x->stats.us.hdr[XRX_USTATS_BIND_FAILURES]++;
	}
	xrxd_enter_degraded(x, ret2);
	return ret;
}
