// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tee (user/lib/sink/tee.c): the primary gets every packet at once
 * and alone decides when it goes back to its owner, exactly once; the
 * tee's sink gets a copy of each (the same bytes, linear, in the order
 * delivered) from the tee's writer thread, so a tee whose writes block
 * (a slow or frozen disk) never holds the primary up: the tee counts what
 * its full hand-off ring cannot take as dropped, and written + dropped
 * is every packet. A failing tee counts its losses in its own counters
 * and its episodes of losses begin and end once each. Stopping a tee
 * writes everything handed off before it.
 *
 * The sinks are test kinds registered here: "queue" holds packets until
 * its flush (as pcap does), "rec" records what the tee wrote and checks
 * its bytes, "fail" counts an error while told to, "gate" blocks its
 * first write until the test opens the gate; the built-in "null"
 * releases inside deliver (as a TUN does).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/sink.h>
#include "sink/tee.h"

#define NPKTS 2000
#define HEAD 16
#define PAY 20000		/* 2000 x 20 KB: more than the ring holds */

struct world {
	struct xrx_pkt pkts[NPKTS];
	__u8 heads[NPKTS][HEAD];
	struct xrx_frag frags[NPKTS][2];
	struct xrx_tee *tee;
	unsigned int back[NPKTS];	/* times given back to the owner */
	unsigned int order[NPKTS];	/* owner's releases, in order */
	unsigned int nr_back;
};

static struct world *W;
static __u8 payload[PAY];

/* What the tee's sink saw: written by its writer thread. */
static unsigned int tee_order[NPKTS];
static _Atomic unsigned int tee_n;
static _Atomic bool tee_bad;		/* a copy with the wrong bytes */
static _Atomic bool fail_now;
static _Atomic bool gate_open;
static _Atomic bool gate_waiting;

static unsigned int idx(const struct xrx_pkt *p)
{
	return (unsigned int)(p - W->pkts);
}

/* The primary's queue. */
struct held {
	struct xrx_pkt *pkt[NPKTS];
	unsigned int n;
};

static int held_open(struct xrx_sink *s, const char *arg,
		     const struct xrx_sink_opts *o)
{
	s->priv = calloc(1, sizeof(struct held));
	return s->priv ? 0 : -ENOMEM;
}

static void held_give_back(struct xrx_sink *s)
{
	struct held *h = s->priv;
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
		xrx_sink__release(s, h->pkt[i]);
	}
	h->n = 0;
}

static int queue_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct held *h = s->priv;

	h->pkt[h->n++] = pkt;
	return 0;
}

static int queue_flush(struct xrx_sink *s)
{
	held_give_back(s);
	return 0;
}

static void held_close(struct xrx_sink *s)
{
	held_give_back(s);
	free(s->priv);
}

/* The tee's side: a linear copy whose first bytes say which packet. */
static void rec_check(const struct xrx_pkt *pkt)
{
	unsigned int i;

	memcpy(&i, pkt->head, sizeof(i));
	if (i >= NPKTS || pkt->nr_frags || pkt->len != HEAD + PAY ||
	    pkt->head_len != pkt->len || pkt->head == W->heads[i] ||
	    memcmp(pkt->head + HEAD, payload, PAY) || pkt->gso_segs != i % 7 + 1)
		atomic_store(&tee_bad, true);
	/* A test may hand a packet over once more than NPKTS (one that
	 * ends a losing episode): counted, not recorded. */
	if (atomic_load(&tee_n) < NPKTS)
		tee_order[atomic_load(&tee_n)] = i;
	atomic_fetch_add(&tee_n, 1);
}

static int nop_open(struct xrx_sink *s, const char *arg,
		    const struct xrx_sink_opts *o)
{
	return 0;
}

static int rec_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	rec_check(pkt);
	xrx_sink__count(s, XRX_SINK_STAT_PKTS_OUT, 1);
	xrx_sink__release(s, pkt);
	return 0;
}

static int fail_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	bool f = atomic_load(&fail_now);

	rec_check(pkt);
	xrx_sink__count(s, f ? XRX_SINK_STAT_ERRORS : XRX_SINK_STAT_PKTS_OUT, 1);
	xrx_sink__release(s, pkt);
	return f ? -ENOSPC : 0;
}

/* A write that blocks, as on a frozen file system, until the gate opens
 * (bounded: 5 s, so that a tee that blocks its caller fails, not hangs). */
static int gate_deliver(struct xrx_sink *s, struct xrx_pkt *pkt)
{
	struct timespec ts = { .tv_nsec = 1000000 };
	int i;

	atomic_store(&gate_waiting, true);
	for (i = 0; i < 5000 && !atomic_load(&gate_open); i++)
		nanosleep(&ts, NULL);
	atomic_store(&gate_waiting, false);
	return rec_deliver(s, pkt);
}

static const struct xrx_sink_ops queue_ops = {
	.name = "queue", .open = held_open, .deliver = queue_deliver,
	.flush = queue_flush, .close = held_close,
};
static const struct xrx_sink_ops rec_ops = {
	.name = "rec", .open = nop_open, .deliver = rec_deliver,
};
static const struct xrx_sink_ops fail_ops = {
	.name = "fail", .open = nop_open, .deliver = fail_deliver,
};
static const struct xrx_sink_ops gate_ops = {
	.name = "gate", .open = nop_open, .deliver = gate_deliver,
};

/* The primary gives back here. */
static void owner_release(void *ctx, struct xrx_pkt *pkt)
{
	struct world *w = ctx;

	w->back[idx(pkt)]++;
	/* As in rec_check(): a release past NPKTS is counted only. */
	if (w->nr_back < NPKTS)
		w->order[w->nr_back] = idx(pkt);
	w->nr_back++;
}

static int setup(void **state)
{
	static bool registered;
	unsigned int i;

	if (!registered) {
		assert_int_equal(xrx_sink__register(&queue_ops), 0);
		assert_int_equal(xrx_sink__register(&rec_ops), 0);
		assert_int_equal(xrx_sink__register(&fail_ops), 0);
		assert_int_equal(xrx_sink__register(&gate_ops), 0);
		registered = true;
		for (i = 0; i < PAY; i++)
			payload[i] = (__u8)(i * 7 + 3);
	}
	W = calloc(1, sizeof(*W));
	assert_non_null(W);
	for (i = 0; i < NPKTS; i++) {
		memcpy(W->heads[i], &i, sizeof(i));
		W->frags[i][0].data = payload;
		W->frags[i][0].len = PAY / 2;
		W->frags[i][1].data = payload + PAY / 2;
		W->frags[i][1].len = PAY / 2;
		W->pkts[i].head = W->heads[i];
		W->pkts[i].head_len = HEAD;
		W->pkts[i].frags = W->frags[i];
		W->pkts[i].nr_frags = 2;
		W->pkts[i].len = HEAD + PAY;
		W->pkts[i].gso_segs = (__u16)(i % 7 + 1);
	}
	atomic_store(&tee_n, 0);
	atomic_store(&tee_bad, false);
	atomic_store(&fail_now, false);
	atomic_store(&gate_open, false);
	*state = W;
	return 0;
}

static int teardown(void **state)
{
	free(W);
	return 0;
}

static struct xrx_sink *pair(const char *primary, const char *tee)
{
	struct xrx_sink *p = xrx_sink__open(primary, NULL), *t;

	assert_non_null(p);
	xrx_sink__bind(p, owner_release, W);
	t = xrx_sink__open(tee, NULL);
	assert_non_null(t);
	W->tee = xrx_tee__new(t);
	assert_non_null(W->tee);
	return p;
}

static void unpair(struct xrx_sink *p)
{
	xrx_sink__close(p);
	xrx_tee__free(W->tee);
}

static void all_back_once(unsigned int n)
{
	unsigned int i;

	assert_int_equal(W->nr_back, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(W->back[i], 1);
		assert_int_equal(W->order[i], i);
	}
}

static void tee_in_order(unsigned int n)
{
	unsigned int i;

	assert_int_equal(atomic_load(&tee_n), n);
	assert_false(atomic_load(&tee_bad));
	for (i = 0; i < n; i++)
		assert_int_equal(tee_order[i], i);
}

/*
 * A primary that releases inside deliver (a TUN's way): every packet is
 * back at once, the tee still writes a copy of each, same bytes, in order.
 */
static void test_copies_in_order(void **state)
{
	struct xrx_sink *p = pair("null", "rec");
	__u64 st[XRX_SINK_STAT_MAX];
	unsigned int i;

	for (i = 0; i < 500; i++) {
		assert_int_equal(xrx_tee__deliver(W->tee, p, &W->pkts[i]), 0);
		assert_int_equal(W->nr_back, i + 1);
	}
	xrx_sink__flush(p);
	xrx_tee__drain(W->tee);
	assert_int_equal(xrx_tee__flush(W->tee), XRX_TEE_SAME);
	all_back_once(500);
	tee_in_order(500);
	xrx_tee__stats(W->tee, st);
	assert_int_equal(st[XRX_SINK_STAT_PKTS_IN], 500);
	assert_int_equal(st[XRX_SINK_STAT_BYTES_IN], 500 * (HEAD + PAY));
	assert_int_equal(st[XRX_SINK_STAT_PKTS_OUT], 500);
	assert_int_equal(st[XRX_SINK_STAT_DROPPED], 0);
	unpair(p);
}

/* A primary that queues: nothing back before its flush, all after. */
static void test_queued_primary(void **state)
{
	struct xrx_sink *p = pair("queue", "rec");
	unsigned int i;

	for (i = 0; i < 300; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	xrx_tee__drain(W->tee);
	assert_int_equal(W->nr_back, 0);
	tee_in_order(300);
	xrx_sink__flush(p);
	all_back_once(300);
	unpair(p);
}

/*
 * The tee's writes block (a frozen disk): the primary gets and gives
 * back every packet meanwhile, the tee keeps what its ring holds and
 * counts the rest dropped; once the writes go on, written + dropped is
 * every packet, the losses one episode.
 */
static void test_blocked_tee_never_holds_primary(void **state)
{
	struct xrx_sink *p = pair("null", "gate");
	__u64 ps[XRX_SINK_STAT_MAX], ts[XRX_SINK_STAT_MAX];
	struct timespec ns = { .tv_nsec = 1000000 };
	unsigned int i;

	xrx_tee__deliver(W->tee, p, &W->pkts[0]);
	xrx_tee__flush(W->tee);
	/* The writer is in the blocked write (bounded wait). */
	for (i = 0; i < 5000 && !atomic_load(&gate_waiting); i++)
		nanosleep(&ns, NULL);
	assert_true(atomic_load(&gate_waiting));
	for (i = 1; i < NPKTS; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	/* All of it while the tee's first write still waits. */
	assert_true(atomic_load(&gate_waiting));
	assert_int_equal(atomic_load(&tee_n), 0);
	all_back_once(NPKTS);
	xrx_sink__stats(p, ps);
	assert_int_equal(ps[XRX_SINK_STAT_PKTS_OUT], NPKTS);
	assert_int_equal(xrx_tee__flush(W->tee), XRX_TEE_LOSING);
	atomic_store(&gate_open, true);
	xrx_tee__drain(W->tee);
	xrx_tee__stats(W->tee, ts);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_IN], NPKTS);
	assert_true(ts[XRX_SINK_STAT_DROPPED] > 0);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_OUT] + ts[XRX_SINK_STAT_DROPPED],
			 NPKTS);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_OUT], atomic_load(&tee_n));
	assert_false(atomic_load(&tee_bad));
	/* What it wrote is in order: a prefix of the packets... */
	for (i = 1; i < atomic_load(&tee_n); i++)
		assert_true(tee_order[i] > tee_order[i - 1]);
	/* ...and writing again ends the episode. */
	xrx_tee__deliver(W->tee, p, &W->pkts[0]);
	xrx_tee__drain(W->tee);
	assert_int_equal(xrx_tee__flush(W->tee), XRX_TEE_WRITING);
	assert_int_equal(xrx_tee__episode_lost(W->tee),
			 ts[XRX_SINK_STAT_DROPPED]);
	unpair(p);
}

/*
 * A failing tee: the primary gets every packet; the tee counts each one
 * it loses as its own error; one turn to losing, one back to writing,
 * with the count lost in between.
 */
static void test_failing_tee(void **state)
{
	struct xrx_sink *p = pair("null", "fail");
	__u64 ps[XRX_SINK_STAT_MAX], ts[XRX_SINK_STAT_MAX];
	unsigned int i, batch, losing = 0, writing = 0;
	enum xrx_tee_turn turn;

	/* 10 batches of 20: good, 4 failing, good, 3 failing, good. */
	for (batch = 0; batch < 10; batch++) {
		atomic_store(&fail_now, (batch >= 1 && batch <= 4) ||
					(batch >= 6 && batch <= 8));
		for (i = batch * 20; i < batch * 20 + 20; i++)
			xrx_tee__deliver(W->tee, p, &W->pkts[i]);
		xrx_sink__flush(p);
		xrx_tee__drain(W->tee);
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
	xrx_sink__stats(p, ps);
	xrx_tee__stats(W->tee, ts);
	assert_int_equal(ps[XRX_SINK_STAT_PKTS_OUT], 200);
	assert_int_equal(ps[XRX_SINK_STAT_ERRORS], 0);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_IN], 200);
	assert_int_equal(ts[XRX_SINK_STAT_ERRORS], 140);
	assert_int_equal(ts[XRX_SINK_STAT_PKTS_OUT], 60);
	unpair(p);
}

/* Freed right after the deliveries: everything handed off is written. */
static void test_free_writes_everything(void **state)
{
	struct xrx_sink *p = pair("null", "rec");
	unsigned int i;

	for (i = 0; i < 800; i++)
		xrx_tee__deliver(W->tee, p, &W->pkts[i]);
	unpair(p);
	tee_in_order(800);
	all_back_once(800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copies_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queued_primary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocked_tee_never_holds_primary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_tee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_writes_everything, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
