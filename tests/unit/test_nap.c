// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interrupt moderation's nap (user/lib/afxdp/nap.h): its longest by the
 * sink, the ramp after a wait, and the bound that keeps a long nap from
 * overflowing the RX ring at a high rate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "afxdp/nap.h"

#define US 1000ull
#define RX 2048u		/* the default RX ring */

static void longest_by_sink(void **state)
{
	struct xrx_live_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	/* Unset: nobody waits on a file or on nothing... */
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops),
			 XRX_LIVE_COALESCE_USEC_FILE * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_null_ops),
			 XRX_LIVE_COALESCE_USEC_FILE * US);
	/* ...but a stack or a callback may. */
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tun_ops),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tap_ops),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	assert_int_equal(xrx_nap_max(&o, NULL),
			 XRX_LIVE_COALESCE_USEC_DEFAULT * US);
	/* Set, it holds for every sink; off is off. */
	o.coalesce_usec = 300;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops), 300 * US);
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_tun_ops), 300 * US);
	o.no_coalesce = true;
	assert_int_equal(xrx_nap_max(&o, &xrx_sink_pcap_ops), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(longest_by_sink),
		cmocka_unit_test(ramp_after_a_wait),
		cmocka_unit_test(ring_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
