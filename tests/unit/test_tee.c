// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tee (user/lib/sink/tee.c): both sinks get every packet, in the
 * order delivered; a packet goes back to its owner exactly once, after
 * the second of the two released it, whichever that is and whenever; a
 * failing tee counts its losses in its own counters while the primary
 * gets everything, and its episodes of losses begin and end once each.
 *
 * The sinks are test kinds registered here: "queue" holds packets until
 * its flush (as pcap does), "fail" releases at once and counts an error
 * while told to, "hoard" keeps everything until it is closed (a sink that
 * breaks the flush rule); the built-in "null" releases inside deliver.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/sink.h>
#include "sink/tee.h"

#define NPKTS 2000

/* Every packet sent, and who saw what in which order. */
struct world {
	struct xrx_pkt pkts[NPKTS];
	struct xrx_tee *tee;
	unsigned int back[NPKTS];	/* times given back to the owner */
	unsigned int order[NPKTS];	/* owner's releases, in order */
	unsigned int nr_back;
};

static struct world *W;

static unsigned int idx(const struct xrx_pkt *p)
{
	return (unsigned int)(p - W->pkts);
}

/* One queue of what a test sink saw (and, for "queue"/"hoard", holds). */
struct seen {
	struct xrx_pkt *held[NPKTS];
	unsigned int nr_held;
	unsigned int order[NPKTS];
	unsigned int n;
};

static bool fail_now;

static int seen_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *o)
{
	s->priv = calloc(1, sizeof(struct seen));
	return s->priv ? 0 : -ENOMEM;
}

static void seen_give_back(struct xrx_sink *s)
{
	struct seen *q = s->priv;
	unsigned int i;

	for (i = 0; i < q->nr_held; i++) {
		xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
		xrx_sink__release(s, q->held[i]);
	}
	q->nr_held = 0;
}

static int queue_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct seen *q = s->priv;

	q->order[q->n++] = idx(pkt);
	q->held[q->nr_held++] = pkt;
	return 0;
}

static int queue_flush(struct xrx_sink *s)
{
	seen_give_back(s);
	return 0;
}

static void seen_close(struct xrx_sink *s)
{
	seen_give_back(s);
	free(s->priv);
}

static int fail_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct seen *q = s->priv;

	q->order[q->n++] = idx(pkt);
	xrx_sink__count(s, fail_now ? XRX_SINK_STAT_ERRORS :
				      XRX_SINK_STAT_PKTS_OUT, 1);
	xrx_sink__release(s, pkt);
	return fail_now ? -ENOSPC : 0;
}

static const struct xrx_sink_ops queue_ops = {
	.name = "queue", .open = seen_open, .deliver = queue_deliver,
	.flush = queue_flush, .close = seen_close,
};
static const struct xrx_sink_ops fail_ops = {
	.name = "fail", .open = seen_open, .deliver = fail_deliver,
	.close = seen_close,
};
static const struct xrx_sink_ops hoard_ops = {
	.name = "hoard", .open = seen_open, .deliver = queue_deliver,
	.close = seen_close,
};

/* Both sinks give back here; the tee says whether it is the last. */
static void owner_release(void *ctx, struct xrx_pkt *pkt)
{
	struct world *w = ctx;

	if (!xrx_tee__release(w->tee, pkt))
		return;
	w->back[idx(pkt)]++;
	w->order[w->nr_back++] = idx(pkt);
}

static int setup(void **state)
{
	static bool registered;
	unsigned int i;

	if (!registered) {
		assert_int_equal(xrx_sink__register(&queue_ops), 0);
		assert_int_equal(xrx_sink__register(&fail_ops), 0);
		assert_int_equal(xrx_sink__register(&hoard_ops), 0);
		registered = true;
	}
	W = calloc(1, sizeof(*W));
	assert_non_null(W);
	for (i = 0; i < NPKTS; i++)
		W->pkts[i].len = 100 + i;
	fail_now = false;
	*state = W;
	return 0;
}

static int teardown(void **state)
{
	free(W);
	return 0;
}

static struct xrx_sink *open_sink(const char *spec)
{
	struct xrx_sink *s = xrx_sink__open(spec, NULL);

	assert_non_null(s);
	xrx_sink__bind(s, owner_release, W);
	return s;
}

static struct xrx_sink *pair(const char *primary, const char *tee)
{
	struct xrx_sink *p = open_sink(primary);

	W->tee = xrx_tee__new(open_sink(tee));
	assert_non_null(W->tee);
	return p;
}

static void unpair(struct xrx_sink *p)
{
	xrx_sink__close(p);
	xrx_tee__free(W->tee);
}

/* Every packet back exactly once. */
static void all_back_once(unsigned int n)
{
	unsigned int i;

	assert_int_equal(W->nr_back, n);
	for (i = 0; i < n; i++)
		assert_int_equal(W->back[i], 1);
}

static void in_order(const unsigned int *order, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		assert_int_equal(order[i], i);
}

/*
 * A primary that releases inside deliver (a TUN sink's way) beside a tee
 * that queues until its flush (pcap's): nothing goes back before the
 * tee's flush, everything after it, in order.
 */
static void test_sync_primary_queued_tee(void **state)
{
	struct xrx_sink *p = pair("null", "queue");
	struct seen *t = W->tee->sink->priv;
	__u64 st[XRX_SINK_STAT_MAX];
	unsigned int i;

	for (i = 0; i < 50; i++)
		assert_int_equal(xrx_tee__deliver(W->tee, p, &W->pkts[i]), 0);
	assert_int_equal(W->nr_back, 0);	/* the tee holds them all */
	assert_int_equal(W->tee->nr_held, 0);	/* none held by both */
	xrx_sink__flush(p);
	assert_int_equal(xrx_tee__flush(W->tee), XRX_TEE_SAME);
	all_back_once(50);
	in_order(W->order, 50);
	in_order(t->order, 50);
	xrx_sink__stats(p, st);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_IN], 50);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_OUT], 50);
	xrx_sink__stats(W->tee->sink, st);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_IN], 50);
	assert_int_equal(st[XRX_SINK_STAT_BYTES_IN], 50 * 100 + 49 * 50 / 2);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_OUT], 50);
	unpair(p);
}

/* The other way round: the primary queues, the tee releases at once. */
static void test_queued_primary_sync_tee(void **state)
{
	struct xrx_sink *p = pair("queue", "null");
	struct seen *ps = p->priv;
	unsigned int i;

	for (i = 0; i < 50; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	assert_int_equal(W->nr_back, 0);
	xrx_sink__flush(p);
	all_back_once(50);
	in_order(W->order, 50);
	in_order(ps->order, 50);
	unpair(p);
}

/*
 * Both queue: a packet goes back at the second flush, not the first,
 * whichever order the flushes come in.
 */
static void test_both_queue(void **state)
{
	struct xrx_sink *p = pair("queue", "queue");
	unsigned int i;

	for (i = 0; i < 30; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	assert_int_equal(W->tee->nr_held, 30);
	xrx_tee__flush(W->tee);
	assert_int_equal(W->nr_back, 0);
	xrx_sink__flush(p);
	all_back_once(30);
	in_order(W->order, 30);
	for (i = 30; i < 60; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	xrx_sink__flush(p);
	assert_int_equal(W->nr_back, 30);
	xrx_tee__flush(W->tee);
	assert_int_equal(W->nr_back, 60);
	assert_int_equal(W->tee->nr_held, 0);
	in_order(W->order, 60);
	unpair(p);
}

/*
 * More packets held by both than the table takes: both sinks are flushed
 * early, every packet still goes to both in order and back once.
 */
static void test_table_full_flushes(void **state)
{
	struct xrx_sink *p = pair("queue", "queue");
	struct seen *ps = p->priv, *ts = W->tee->sink->priv;
	__u64 st[XRX_SINK_STAT_MAX];
	unsigned int i;

	for (i = 0; i < NPKTS; i++) {
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
		assert_true(W->tee->nr_held <= XRX_TEE_HELD_MAX);
	}
	assert_true(W->nr_back >= NPKTS - XRX_TEE_HELD_MAX);
	xrx_sink__flush(p);
	xrx_tee__flush(W->tee);
	all_back_once(NPKTS);
	in_order(W->order, NPKTS);
	in_order(ps->order, NPKTS);
	in_order(ts->order, NPKTS);
	xrx_sink__stats(W->tee->sink, st);
	assert_int_equal(st[XRX_SINK_STAT_DROPPED], 0);
	unpair(p);
}

/*
 * Random interleavings of deliveries and flushes of either side, two
 * queueing sinks: the table must find every packet it holds (deletion
 * in the middle of probe runs).
 */
static void test_random_flushes(void **state)
{
	struct xrx_sink *p = pair("queue", "queue");
	unsigned int i, seed = 1;

	for (i = 0; i < NPKTS; i++) {
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) % 7 == 0)
			xrx_sink__flush(p);
		else if ((seed >> 16) % 7 == 1)
			xrx_tee__flush(W->tee);
	}
	xrx_sink__flush(p);
	xrx_tee__flush(W->tee);
	all_back_once(NPKTS);
	assert_int_equal(W->tee->nr_held, 0);
	unpair(p);
}

/*
 * A failing tee: the primary gets and writes every packet; the tee
 * counts each one it loses as its own error; one turn to losing, one
 * back to writing, with the count lost in between.
 */
static void test_failing_tee(void **state)
{
	struct xrx_sink *p = pair("null", "fail");
	__u64 ps[XRX_SINK_STAT_MAX], ts[XRX_SINK_STAT_MAX];
	unsigned int i, batch, losing = 0, writing = 0;
	enum xrx_tee_turn turn;

	/* 10 batches of 20: good, 4 failing, good, 3 failing, good. */
	for (batch = 0; batch < 10; batch++) {
		fail_now = (batch >= 1 && batch <= 4) || (batch >= 6 && batch <= 8);
		for (i = batch * 20; i < batch * 20 + 20; i++)
			xrx_tee__deliver(W->tee, p, &W->pkts[i]);
		xrx_sink__flush(p);
		turn = xrx_tee__flush(W->tee);
		if (turn == XRX_TEE_LOSING) {
			losing++;
			assert_true(batch == 1 || batch == 6);
			assert_int_equal(W->tee->err, -ENOSPC);
		} else if (turn == XRX_TEE_WRITING) {
			writing++;
			assert_true(batch == 5 || batch == 9);
			assert_int_equal(xrx_tee__episode_lost(W->tee),
					 batch == 5 ? 80 : 60);
		}
	}
	assert_int_equal(losing, 2);
	assert_int_equal(writing, 2);
	all_back_once(200);
	in_order(W->order, 200);
	xrx_sink__stats(p, ps);
	xrx_sink__stats(W->tee->sink, ts);
	assert_int_equal(ps[XRX_SINK_STAT_PKTS_OUT], 200);
	assert_int_equal(ps[XRX_SINK_STAT_ERRORS], 0);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_IN], 200);
	assert_int_equal(ts[XRX_SINK_STAT_ERRORS], 140);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_OUT], 60);
	unpair(p);
}

/*
 * A tee that keeps packets past its flush (against sink.h's rule) beside
 * a primary that does the same: once the table is full the tee goes
 * without and counts each as dropped; the primary still gets every
 * packet, and closing gives each back exactly once.
 */
static void test_hoarding_tee_drops(void **state)
{
	struct xrx_sink *p = pair("hoard", "hoard");
	struct seen *ps = p->priv;
	__u64 ts[XRX_SINK_STAT_MAX];
	unsigned int i;

	for (i = 0; i < XRX_TEE_HELD_MAX + 100; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	assert_int_equal(ps->n, XRX_TEE_HELD_MAX + 100);
	in_order(ps->order, XRX_TEE_HELD_MAX + 100);
	xrx_sink__stats(W->tee->sink, ts);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_IN], XRX_TEE_HELD_MAX + 100);
	assert_int_equal(ts[XRX_SINK_STAT_DROPPED], 100);
	assert_int_equal(xrx_tee__flush(W->tee), XRX_TEE_LOSING);
	unpair(p);
	all_back_once(XRX_TEE_HELD_MAX + 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sync_primary_queued_tee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queued_primary_sync_tee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_both_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full_flushes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_flushes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_tee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hoarding_tee_drops, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
