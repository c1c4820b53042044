/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How long a worker naps after a batch that emptied its RX ring
 * (interrupt moderation, xrx_live_opts.coalesce_usec): a rule of its own
 * so that it can be tested without a socket.
 */
#ifndef XRX_AFXDP_NAP_H
#define XRX_AFXDP_NAP_H

#include <xrx/live.h>
#include <xrx/sink.h>

/*
 * The longest nap in ns, 0: none (coalesce off). coalesce_usec, or where
 * it is unset, what suits where the frames go (@ops: the sink's, NULL
 * for a callback). Into a file (pcap) or nowhere (null), nothing waits
 * on them and every wake-up costs the worker CPU:
 * XRX_LIVE_COALESCE_USEC_FILE, as tcpdump's TPACKET_V3 ring lets a block
 * wait out its timeout (a second by default) before waking it. Into a
 * stack (tun, tap), a registered sink or a callback, a peer may be
 * waiting on them (an ACK, a reply): XRX_LIVE_COALESCE_USEC_DEFAULT.
 */
static inline __u64 xrx_nap_max(const struct xrx_live_opts *o,
				const struct xrx_sink_ops *ops)
{
	__u32 us = o->coalesce_usec;

	if (o->no_coalesce)
		return 0;
	if (!us)
		us = ops == &xrx_sink_pcap_ops || ops == &xrx_sink_null_ops ?
			     XRX_LIVE_COALESCE_USEC_FILE :
			     XRX_LIVE_COALESCE_USEC_DEFAULT;
	return (__u64)us * 1000;
}

/*
 * The next nap in ns. @last_ns: the last nap; @max_ns: the longest
 * (coalesce_usec); @since_ns: time since the last nap began, 0 when the
 * worker has waited in poll() since (traffic starting again: no rate
 * known); @frames: frames received since; @rx_size: RX ring entries.
 *
 * After a wait the nap is the default one, then twice the last per nap
 * up to the longest, as adaptive NIC moderation moves to fewer
 * interrupts while the rate holds. It is never longer than the rate of
 * the last cycle takes to fill a quarter of the RX ring, whatever
 * coalesce_usec says, so that a long nap cannot overflow the ring
 * however high the rate.
 */
static inline __u64 xrx_nap_next(__u64 last_ns, __u64 max_ns, __u64 since_ns,
				 __u32 frames, __u32 rx_size)
{
	__u64 ns, fill;

	ns = since_ns ? 2 * last_ns :
			(__u64)XRX_LIVE_COALESCE_USEC_DEFAULT * 1000;
	if (ns > max_ns)
		ns = max_ns;
	if (since_ns && frames) {
		fill = since_ns * (rx_size / 4) / frames;
		if (fill < ns)
			ns = fill;
	}
	return ns;
}

#endif /* XRX_AFXDP_NAP_H */
