/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A frame's arrival time on the live path (xrx_frame.ts_ns): the
 * CLOCK_REALTIME read once per RX batch as its descriptors leave the
 * ring, or, where the device-bound xrx_rx got one from the driver
 * (xrx_meta.rx_ts), the NIC's own timestamp moved onto that clock. A
 * rule of its own so that it can be tested without a NIC.
 *
 * The NIC stamps with its clock (a PTP hardware clock, mlx5, ice,
 * igc, stmmac ...), which is CLOCK_REALTIME where phc2sys keeps it so,
 * TAI where ptp4l does, or free-running. xrx does not know which
 * device clock it is and reads none: it measures. Every stamp is earlier
 * than the ring read of its batch, by the delivery latency; the smallest
 * (ring read - stamp) of the last one to two seconds is the clocks'
 * offset plus the shortest latency seen, and stamp + that offset is the
 * time on CLOCK_REALTIME, late by that shortest latency (microseconds).
 * Intervals between stamps stay the NIC's. Within XRX_RXTS_SYNCED of the
 * ring read a stamp is taken as it is: the NIC's clock is kept on
 * CLOCK_REALTIME already.
 */
#ifndef XRX_AFXDP_RXTS_H
#define XRX_AFXDP_RXTS_H

#include <stdbool.h>
#include <xrx/types.h>

#define XRX_RXTS_SYNCED 10000000ll	/* 10 ms */
#define XRX_RXTS_WINDOW 1000000000ull	/* 1 s */

struct xrx_rxts {
	__s64 cur_min;			/* this window's smallest offset */
	__s64 prev_min;			/* the last window's */
	__u64 win_start;		/* 0: no stamp seen yet */
};

static inline bool xrx_rxts_synced(__s64 d)
{
	return d > -XRX_RXTS_SYNCED && d < XRX_RXTS_SYNCED;
}

/*
 * A frame stamped @nic by the NIC was read from the ring at @now (both
 * ns; @now on CLOCK_REALTIME). Every frame of a batch is seen before any
 * is converted: the batch's last frame, the nearest to the ring read,
 * sets the offset for all of them, so their intervals stay the NIC's.
 */
static inline void xrx_rxts_see(struct xrx_rxts *t, __u64 nic, __u64 now)
{
	__s64 d = (__s64)(now - nic);

	if (xrx_rxts_synced(d))
		return;
	if (!t->win_start) {
		t->win_start = now;
		t->cur_min = t->prev_min = d;
	} else if (now - t->win_start >= XRX_RXTS_WINDOW) {
		/* a new window: the old one's minimum still counts, so the
		 * offset follows the clocks' drift without jumping */
		t->win_start = now;
		t->prev_min = t->cur_min;
		t->cur_min = d;
	} else if (d < t->cur_min) {
		t->cur_min = d;
	}
}

/* The stamp @nic of a frame of the batch read at @now (seen before), on
 * CLOCK_REALTIME. */
static inline __u64 xrx_rxts_nic(const struct xrx_rxts *t, __u64 nic,
				 __u64 now)
{
	__s64 off;

	if (xrx_rxts_synced((__s64)(now - nic)) || !t->win_start)
		return nic;
	off = t->cur_min < t->prev_min ? t->cur_min : t->prev_min;
	return nic + (__u64)off;
}

#endif /* XRX_AFXDP_RXTS_H */
