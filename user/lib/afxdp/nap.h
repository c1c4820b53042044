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
 * Bits one minimum-size Ethernet frame takes on the wire: 64 bytes, the
 * preamble and start delimiter (8) and the inter-frame gap (12). At 10
 * Gbit/s that is 14.88 Mpps, the fastest a link of that speed delivers.
 */
#define XRX_NAP_WIRE_BITS (84 * 8)
/*
 * The link speed assumed where the device reports none (SPEED_UNKNOWN:
 * virtio_net unless told, dummy): 10 Gbit/s, 14.88 Mpps. Such a link is
 * virtual and fed by a CPU, and one core feeds one AF_XDP queue at
 * a few Mpps at most (copy mode); veth reports 10000 itself.
 */
#define XRX_NAP_SPEED_UNKNOWN_MBPS 10000

/*
 * The longest nap the rings allow in ns: four fifths of the time @ring
 * entries (the smaller of the RX and fill rings: the kernel needs both a
 * fill entry and an RX slot per frame) take to fill at @speed_mbps (0:
 * unknown, XRX_NAP_SPEED_UNKNOWN_MBPS) with minimum-size frames. Four
 * fifths because the timer slack (a quarter of the nap) can stretch a
 * nap to 1.25 times, so even a line-rate burst that starts the moment a
 * nap does finds room when the worker wakes. 2048 entries at 10 Gbit/s:
 * 110 us; at 100 Gbit/s: 11 us, where a longer nap needs bigger rings.
 */
static inline __u64 xrx_nap_ring_ns(__u32 ring, __u32 speed_mbps)
{
	if (!speed_mbps)
		speed_mbps = XRX_NAP_SPEED_UNKNOWN_MBPS;
	return (__u64)ring * XRX_NAP_WIRE_BITS * 1000 / speed_mbps * 4 / 5;
}

/*
 * The longest nap in ns, 0: none (coalesce off). coalesce_usec, or where
 * it is unset, what suits where the frames go (@ops: the sink's, NULL
 * for a callback): the kind's coalesce_usec (include/xrx/sink.h). Into a
 * file (pcap) or nowhere (null), nothing waits on them and every wake-up
 * costs the worker CPU: XRX_LIVE_COALESCE_USEC_FILE, as tcpdump's
 * TPACKET_V3 ring lets a block wait out its timeout (a second by
 * default) before waking it. Into a stack (tun, tap), a kind that says
 * nothing or a callback, a peer may be waiting on them (an ACK, a
 * reply): XRX_LIVE_COALESCE_USEC_DEFAULT.
 *
 * Whatever coalesce_usec says, never longer than the rings hold at the
 * line rate (xrx_nap_ring_ns(), @speed_mbps: the link's, 0: unknown):
 * the rate of the last cycle, which xrx_nap_next() also bounds the nap
 * by, says nothing of a step from a trickle to line rate during the nap.
 */
static inline __u64 xrx_nap_max(const struct xrx_live_opts *o,
				const struct xrx_sink_ops *ops,
				__u32 speed_mbps)
{
	__u32 us = o->coalesce_usec;
	__u32 ring = o->rx_size < o->fill_size ? o->rx_size : o->fill_size;
	__u64 ns, ring_ns;

	if (o->no_coalesce)
		return 0;
	if (!us)
		us = ops && ops->coalesce_usec ? ops->coalesce_usec :
						 XRX_LIVE_COALESCE_USEC_DEFAULT;
	ns = (__u64)us * 1000;
	ring_ns = xrx_nap_ring_ns(ring, speed_mbps);
	return ns < ring_ns ? ns : ring_ns;
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
 * the last cycle takes to fill a quarter of the RX ring, so that the
 * batches stay well below the ring's size while the rate holds. A step
 * up in rate during a nap is what @max_ns bounds (xrx_nap_max(): what
 * the rings hold at line rate).
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

/*
 * @ns, or shorter: what the kernel can take now. A nap begins when a
 * batch emptied the RX ring, so its slots are free; each frame that
 * arrives also takes a buffer the kernel holds (@kernel_frames: in the
 * fill ring, or a zero-copy driver's). Those are fewer than the rings
 * hold while the engine keeps frames of aggregates in progress and the
 * sink those of a batch, and xrx_nap_max()'s line-rate bound assumes full
 * rings: one frame past them finds the fill ring empty and is dropped.
 */
static inline __u64 xrx_nap_room(__u64 ns, __u32 kernel_frames,
				 __u32 rx_size, __u32 speed_mbps)
{
	__u32 n = kernel_frames < rx_size ? kernel_frames : rx_size;
	__u64 room = xrx_nap_ring_ns(n, speed_mbps);

	return ns < room ? ns : room;
}

#endif /* XRX_AFXDP_NAP_H */
