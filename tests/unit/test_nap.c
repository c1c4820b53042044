// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interrupt moderation's nap (user/lib/afxdp/nap.h): its longest by the
 * sink, the ramp after a wait, the bound by the last cycle's rate, and
 * the bound by the line rate that keeps a nap from overflowing the rings
 * when the rate steps up from a trickle during it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "afxdp/nap.h"

#define US 1000ull
#define RX 2048u		/* the default RX ring */
#define BIG 65536u		/* rings that hold 1000 us at 10 Gbit/s */

/* Minimum-size frames that arrive at @mbps during a nap of @ns, which
 * the timer slack (a quarter of it) can stretch to 1.25 times. */
static __u64 line_frames(__u64 ns, __u32 mbps)
{
	return ns * 5 / 4 * mbps / (XRX_NAP_WIRE_BITS * 1000);
}

static void longest_by_sink(void **state)
{
	struct xrx_live_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rx_size = BIG;
	o.fill_size = BIG;
	/* Unset: nobody waits on a file or on nothing... */
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000),
			 XRX_LIVE_COALESCE_USEC_FILE * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_null_ops, 10000),
			 XRX_LIVE_COALESCE_USEC_FILE * US);
	/* ...but a stack or a callback may. */
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tun_ops, 10000),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tap_ops, 10000),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	assert_int_equal(xrx_nap_max(&o, NULL, 10000),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	/* Set, it holds for every sink; off is off. */
	o.coalesce_usec = 300;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000), 300 * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tun_ops, 10000), 300 * US);
	o.no_coalesce = true;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000), 0);
}

static void ramp_after_a_wait(void **state)
{
	__u64 max = XRX_LIVE_COALESCE_USEC_FILE * US, ns, want = 20 * US;
	int i;

	(void)state;
	/* After poll(): the default nap, even with frames counted. */
	ns = xrx_nap_next(640 * US, max, 0, 5, RX);
	assert_int_equal(ns, XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	/* At 100,000 frames/s (a quarter ring in 5 ms) the nap doubles per
	 * cycle up to the longest and stays there. */
	for (i = 0; i < 10; i++) {
		__u64 since = ns + 10 * US;		/* the nap and a batch */
		__u32 frames = (__u32)(since / 10000);	/* 100,000/s */

		ns = xrx_nap_next(ns, max, since, frames ? frames : 1, RX);
		want = want * 2 > max ? max : want * 2;
		assert_int_equal(ns, want);
	}
	assert_int_equal(ns, max);
	/* The stack's default never grows past its 20 us. */
	assert_int_equal(xrx_nap_next(20 * US, 20 * US, 30 * US, 3, RX),
			 20 * US);
	/* A shorter coalesce_usec bounds the first nap too. */
	assert_int_equal(xrx_nap_next(0, 5 * US, 0, 0, RX), 5 * US);
}

static void ring_bound(void **state)
{
	__u64 max = XRX_LIVE_COALESCE_USEC_MAX * US, since, ns;
	__u32 frames;

	(void)state;
	/* 14.88 Mpps (64-byte frames at 10 Gbit/s): 1488 frames in the
	 * last 100 us. A 1000 us nap would take 14,880 frames into a ring
	 * of 2048; the nap is cut to what fills a quarter of it. */
	since = 100 * US;
	frames = 1488;
	ns = xrx_nap_next(max, max, since, frames, RX);
	assert_true(ns < max);
	assert_true(ns * frames / since <= RX / 4);
	assert_int_equal(ns, since * (RX / 4) / frames);
	/* The bound follows the rate down as well as up. */
	assert_int_equal(xrx_nap_next(ns, max, 1000 * US, 10, RX), 2 * ns);
	/* A smaller ring, a shorter nap. */
	assert_true(xrx_nap_next(max, max, since, frames, 512) <
		    xrx_nap_next(max, max, since, frames, RX));
}

/*
 * Steady low traffic grows the nap to its longest; then the rate steps to
 * line rate. The last cycle's rate knows nothing of the step, so only
 * the longest nap bounds what arrives during the next one: never more
 * than the rings hold.
 */
static void rate_step(void **state)
{
	static const __u32 speeds[] = { 1000, 10000, 25000, 100000 };
	static const __u32 rings[] = { 512, 2048, 8192 };
	struct xrx_live_opts o;
	__u64 max, ns;
	unsigned int i, j, k;

	(void)state;
	memset(&o, 0, sizeof(o));
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		for (j = 0; j < sizeof(rings) / sizeof(rings[0]); j++) {
			o.rx_size = rings[j];
			o.fill_size = rings[j];
			max = xrx_nap_max(&o, &xrx_sink_pcap_ops, speeds[i]);
			/* 1,000 frames/s: a quarter ring takes long. */
			ns = xrx_nap_next(0, max, 0, 0, rings[j]);
			for (k = 0; k < 20; k++)
				ns = xrx_nap_next(ns, max, ns + 10 * US,
						  (__u32)((ns + 10 * US) /
							  (1000 * US)) + 1,
						  rings[j]);
			assert_int_equal(ns, max);
			/* The step: 14.88 Mpps at 10 Gbit/s. */
			assert_true(line_frames(ns, speeds[i]) <= rings[j]);
		}
	}
	/* The example: 5 Mpps after 1000 us naps would bring 5000 frames
	 * into a ring of 2048; a 10 Gbit/s link's rings hold 110 us. */
	o.rx_size = RX;
	o.fill_size = RX;
	max = xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000);
	assert_int_equal(max, xrx_nap_ring_ns(RX, 10000));
	assert_true(max * 5 / 4 * 5 / 1000 <= RX);	/* 5 frames/us */
	assert_true(max >= 100 * US && max < 120 * US);
	/* The smaller ring bounds: a fill ring of 512 beside an RX ring of
	 * 2048 feeds 512 frames. */
	o.fill_size = 512;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000),
			 xrx_nap_ring_ns(512, 10000));
	/* Unknown speed: 10 Gbit/s assumed. */
	o.fill_size = RX;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 0),
			 xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000));
	/* A short coalesce_usec stays as set. */
	o.coalesce_usec = 20;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops, 10000), 20 * US);
}

/*
 * The kernel's buffers bound the nap: with frames held by the engine
 * and the sink, fewer than the rings hold are left to receive into, and
 * a line-rate burst must not outlast them (the fill ring found empty).
 * The RX ring's free slots bound it too (a zero-copy driver may hold
 * more buffers than that).
 */
static void room_bound(void **state)
{
	__u64 max = xrx_nap_ring_ns(RX, 10000), ns;

	/* the rings full: the line-rate bound as it was */
	assert_int_equal(xrx_nap_room(max, RX, RX, 10000), max);
	/* 300 buffers left: a burst at 14.88 Mpps, stretched by the timer
	 * slack, still finds one for every frame */
	ns = xrx_nap_room(max, 300, RX, 10000);
	assert_true(ns < max);
	assert_true(line_frames(ns, 10000) <= 300);
	assert_true(line_frames(ns, 10000) >= 250);
	/* more buffers than RX slots: the RX ring bounds */
	assert_int_equal(xrx_nap_room(10 * max, 4 * RX, RX, 10000), max);
	/* a short nap stays as it is; none left: no nap */
	assert_int_equal(xrx_nap_room(10 * US, 300, RX, 10000), 10 * US);
	assert_int_equal(xrx_nap_room(max, 0, RX, 10000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(longest_by_sink),
		cmocka_unit_test(ramp_after_a_wait),
		cmocka_unit_test(ring_bound),
		cmocka_unit_test(rate_step),
		cmocka_unit_test(room_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
