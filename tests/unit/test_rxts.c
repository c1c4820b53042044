// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A NIC's RX timestamp moved onto CLOCK_REALTIME (user/lib/afxdp/rxts.h):
 * a NIC clock kept on CLOCK_REALTIME is taken as it is; one that runs
 * elsewhere (TAI, free-running) is moved by the smallest (ring read -
 * stamp) seen, so that intervals stay the NIC's and no time is later
 * than the ring read of its batch; the offset follows a drift within
 * two windows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "afxdp/rxts.h"

#define US 1000ull
#define SEC 1000000000ull
#define NOW (1800000000ull * SEC)

static void synced_clock_as_is(void **state)
{
	struct xrx_rxts t = { 0 };

	(void)state;
	/* 30 us before the ring read, on the same clock */
	xrx_rxts_see(&t, NOW - 30 * US, NOW);
	assert_true(xrx_rxts_nic(&t, NOW - 30 * US, NOW) == NOW - 30 * US);
	/* a NIC clock a little ahead (not yet in step) too */
	xrx_rxts_see(&t, NOW + 2 * US, NOW);
	assert_true(xrx_rxts_nic(&t, NOW + 2 * US, NOW) == NOW + 2 * US);
}

static void other_clock_moved(void **state)
{
	/* TAI: 37 s ahead of UTC */
	__u64 tai = 37 * SEC, a, b, c;
	struct xrx_rxts t = { 0 };

	(void)state;
	/* a batch read at NOW: frames stamped 50, 40 and 35 us before it */
	xrx_rxts_see(&t, NOW + tai - 50 * US, NOW);
	xrx_rxts_see(&t, NOW + tai - 40 * US, NOW);
	xrx_rxts_see(&t, NOW + tai - 35 * US, NOW);
	a = xrx_rxts_nic(&t, NOW + tai - 50 * US, NOW);
	b = xrx_rxts_nic(&t, NOW + tai - 40 * US, NOW);
	c = xrx_rxts_nic(&t, NOW + tai - 35 * US, NOW);
	/* the last frame at the ring read, the others the NIC's intervals
	 * before it */
	assert_true(c == NOW);
	assert_true(c - b == 5 * US && b - a == 10 * US);
	/* the next batch, 1 ms later, a frame 10 us in the ring: the
	 * offset tightens, times stay the NIC's apart, none later than
	 * the ring read */
	xrx_rxts_see(&t, NOW + tai + 500 * US, NOW + 1000 * US);
	xrx_rxts_see(&t, NOW + tai + 990 * US, NOW + 1000 * US);
	a = xrx_rxts_nic(&t, NOW + tai + 990 * US, NOW + 1000 * US);
	b = xrx_rxts_nic(&t, NOW + tai + 500 * US, NOW + 1000 * US);
	assert_true(a == NOW + 1000 * US);
	assert_true(a - b == 490 * US);
	/* a free-running clock far behind */
	memset(&t, 0, sizeof(t));
	xrx_rxts_see(&t, 123 * SEC, NOW);
	assert_true(xrx_rxts_nic(&t, 123 * SEC, NOW) == NOW);
	xrx_rxts_see(&t, 123 * SEC + 7, NOW + 20);
	assert_true(xrx_rxts_nic(&t, 123 * SEC + 7, NOW + 20) == NOW + 7);
}

static void drift_followed(void **state)
{
	struct xrx_rxts t = { 0 };
	__u64 now = NOW, off = 5 * SEC, ts;
	int i;

	(void)state;
	/* the NIC's clock loses 10 us a second against CLOCK_REALTIME:
	 * after a few windows the time is its stamp moved by the offset
	 * of the last window or two, within the drift of two windows */
	for (i = 0; i < 10; i++) {
		xrx_rxts_see(&t, now - off - 20 * US, now);
		ts = xrx_rxts_nic(&t, now - off - 20 * US, now);
		assert_true(ts <= now);
		now += SEC;
		off += 10 * US;
	}
	xrx_rxts_see(&t, now - off - 20 * US, now);
	ts = xrx_rxts_nic(&t, now - off - 20 * US, now);
	assert_true(ts <= now && now - ts <= 20 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(synced_clock_as_is),
		cmocka_unit_test(other_clock_moved),
		cmocka_unit_test(drift_followed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
