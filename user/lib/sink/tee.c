// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tee (sink/tee.h): a packet goes to two sinks and back to its owner
 * when the second of them releases it.
 *
 * A packet has two holders from the moment it is delivered. Each sink
 * releases it exactly once (include/xrx/sink.h), now or at the latest in
 * its flush(), so the first release only crosses the packet off and the
 * second passes it on. Which comes first depends on the pair: a TUN
 * primary releases inside its deliver, before the tee's pcap has even
 * queued the packet; a pcap primary beside a TUN tee the other way round.
 * The table holds the packets still held by both, which with one
 * synchronous sink of the two is at most one.
 *
 * The primary gets the packet first: what it hands to the stack does not
 * wait for the capture. Neither sink writes into the packet (the TUN sink
 * builds its headers in its own buffer), so both see the same bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <xrx/engine.h>
#include "sink/tee.h"

static __u32 tee_slot(const struct xrx_pkt *pkt)
{
	/* Fibonacci hashing of the address: packets are structs in an
	 * array, so the low bits alone would crowd a few slots. */
	__u64 h = (__u64)(uintptr_t)pkt * 0x9e3779b97f4a7c15ull;

	return (__u32)(h >> 32) & (XRX_TEE_SLOTS - 1);
}

static void tee_hold(struct xrx_tee *t, struct xrx_pkt *pkt)
{
	__u32 i = tee_slot(pkt);

	while (t->held[i])
		i = (i + 1) & (XRX_TEE_SLOTS - 1);
	t->held[i] = pkt;
	t->nr_held++;
}

/*
 * Empty slot @i, then move back every later entry of the run that its
 * home slot allows, so that lookups never stop early at a hole (linear
 * probing's deletion without tombstones).
 */
static void tee_unhold(struct xrx_tee *t, __u32 i)
{
	__u32 j = i, home;

	t->held[i] = NULL;
	t->nr_held--;
	for (;;) {
		j = (j + 1) & (XRX_TEE_SLOTS - 1);
		if (!t->held[j])
			return;
		home = tee_slot(t->held[j]);
		/* Stays if its home lies cyclically in (i, j]. */
		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		t->held[i] = t->held[j];
		t->held[j] = NULL;
		i = j;
	}
}

bool xrx_tee__release(struct xrx_tee *t, const struct xrx_pkt *pkt)
{
	__u32 i = tee_slot(pkt);

	for (; t->held[i]; i = (i + 1) & (XRX_TEE_SLOTS - 1)) {
		if (t->held[i] == pkt) {
			tee_unhold(t, i);
			return false;
		}
	}
	return true;
}

struct xrx_tee *xrx_tee__new(struct xrx_sink *sink)
{
	struct xrx_tee *t = calloc(1, sizeof(*t));

	if (t)
		t->sink = sink;
	return t;
}

void xrx_tee__free(struct xrx_tee *t)
{
	if (!t)
		return;
	xrx_sink__close(t->sink);
	free(t);
}

int xrx_tee__deliver(struct xrx_tee *t, struct xrx_sink *primary,
		     struct xrx_pkt *pkt)
{
	int err, terr;

	if (t->nr_held == XRX_TEE_HELD_MAX) {
		/* Both flush: each gives back all it holds (sink.h). */
		xrx_sink__flush(primary);
		terr = xrx_sink__flush(t->sink);
		if (terr)
			t->err = terr;
	}
	if (t->nr_held == XRX_TEE_HELD_MAX) {
		/* A sink that keeps packets past its flush: the tee goes
		 * without rather than hold the primary's packet up. */
		xrx_sink__count(t->sink, XRX_SINK_STAT_PKTS_IN, 1);
		xrx_sink__count(t->sink, XRX_SINK_STAT_BYTES_IN, pkt->len);
		xrx_sink__count(t->sink, XRX_SINK_STAT_DROPPED, 1);
		return xrx_sink__deliver(primary, pkt);
	}
	tee_hold(t, pkt);
	err = xrx_sink__deliver(primary, pkt);
	terr = xrx_sink__deliver(t->sink, pkt);
	if (terr)
		t->err = terr;
	return err;
}

enum xrx_tee_turn xrx_tee__flush(struct xrx_tee *t)
{
	const __u64 *st = t->sink->stats;
	enum xrx_tee_turn turn = XRX_TEE_SAME;
	__u64 lost, out;
	int err;

	err = xrx_sink__flush(t->sink);
	if (err)
		t->err = err;
	lost = st[XRX_SINK_STAT_ERRORS] + st[XRX_SINK_STAT_DROPPED];
	out = st[XRX_SINK_STAT_PKTS_OUT];
	if (lost != t->lost_seen && !t->losing) {
		t->losing = true;
		t->lost_from = t->lost_seen;
		turn = XRX_TEE_LOSING;
	} else if (lost == t->lost_seen && out != t->out_seen && t->losing) {
		t->losing = false;
		t->err = 0;
		turn = XRX_TEE_WRITING;
	}
	t->lost_seen = lost;
	t->out_seen = out;
	return turn;
}

__u64 xrx_tee__episode_lost(const struct xrx_tee *t)
{
	return t->lost_seen - t->lost_from;
}
