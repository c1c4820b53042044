// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Partial checksums (enum xrx_csum_partial in xrx/engine.h): segments
 * whose TCP/UDP checksum field holds the folded pseudo-header sum, as a
 * sender with TX checksum offload leaves it on a veth. With csum =
 * verify they are counted in csum_partial, never in csum_bad; accepted,
 * they merge like verified ones and one delivered alone carries
 * CHECKSUM_PARTIAL (csum_start at its L4 header), so the stack behind a
 * TUN finishes the sum; refused (auto, refuse), each goes alone as
 * single_csum_partial. A field one off that value is corruption
 * (csum_bad), and csum = trust looks at none of it.
 */
#include "unit/gro_harness.h"

/* Frame @i's L4 checksum: the folded, not inverted, pseudo-header sum
 * over its L4 length, plus @delta, computed apart from libxrx's. */
static void make_partial(struct harness *h, int i, int delta)
{
	const struct frame_info *fi = &h->info[i];
	const struct frame_spec *s = &h->spec[i];
	__u8 *f = h->region + (size_t)i * H_SLOT;
	__u32 l4len = fi->l3_off + fi->ip_len - fi->l4_off, sum;

	sum = s->family == 4 ? h_sum16(f + fi->l3_off + 12, 8, 0) :
			       h_sum16(f + fi->l3_off + 8, 32, 0);
	sum += s->l4 + (l4len >> 16) + (l4len & 0xffff);
	h_wr16(f + fi->l4_off + (s->l4 == 6 ? 16 : 6),
	       (__u16)(h_fold(sum) + delta));
}

static struct harness *train(void (*base)(struct frame_spec *), int nr,
			     enum xrx_csum_partial mode, bool trust)
{
	struct xrx_engine_opts o = { .udp = true, .csum_partial = mode,
				     .csum = trust ? XRX_CSUM_TRUST :
						     XRX_CSUM_VERIFY };
	struct harness *h = h_new(&o);
	struct frame_spec s;
	__u32 seq = 1000;
	int i;

	for (i = 0; i < nr; i++) {
		base(&s);
		s.payload_len = s.l4 == 17 ? 1000 : 1448;
		s.seq = seq;
		s.ip_id = (__u16)i;
		seq += s.payload_len;
		h_build(h, i, &s);
		make_partial(h, i, 0);
	}
	return h;
}

static void check_end(struct harness *h)
{
	h_assert_reasons_add_up(h);
	assert_int_equal(xrx_engine__held(h->e), 0);
	h_assert_released_once(h);
	h_free(h);
}

/* Accepted: they merge into one aggregate, whose completion writes its
 * own pseudo-header sum, counted apart from csum_bad. */
static void accept_merges(void **state)
{
	static void (*const bases[])(struct frame_spec *) = {
		frame_spec_tcp4, frame_spec_tcp6, frame_spec_udp4,
		frame_spec_udp6,
	};
	static const int all[] = { 0, 1, 2 };
	size_t b;

	(void)state;
	for (b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		struct harness *h = train(bases[b], 3, XRX_CSUM_PARTIAL_ACCEPT,
					  false);

		h_rx(h, 0, 3, 1);
		assert_int_equal(h->nr_out, 1);
		h_assert_out(h, 0, all, 3);
		assert_int_equal(h->out[0].pkt.csum, XRX_PKT_CSUM_PARTIAL);
		assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_PARTIAL], 3);
		assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_BAD], 0);
		assert_int_equal(h->stats[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL], 0);
		check_end(h);
	}
}

/* Accepted and alone: out as it came, CHECKSUM_PARTIAL at its L4 header
 * (never CHECKSUM_UNNECESSARY: the sum was not verified). */
static void accept_alone_is_partial(void **state)
{
	static const int one[] = { 0 };
	struct harness *h = train(frame_spec_tcp4, 1, XRX_CSUM_PARTIAL_ACCEPT,
				  false);

	(void)state;
	h_rx(h, 0, 1, 1);
	assert_int_equal(h->nr_out, 1);
	h_assert_out(h, 0, one, 1);
	assert_int_equal(h->out[0].pkt.csum, XRX_PKT_CSUM_PARTIAL);
	assert_int_equal(h->out[0].pkt.csum_start, h->info[0].l4_off);
	assert_int_equal(h->out[0].pkt.csum_offset, 16);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_PARTIAL], 1);
	check_end(h);
}

/* Refused (auto in the engine, as xrx-replay runs, and refuse): each
 * alone, unverified, as single_csum_partial, not csum_bad. */
static void refuse_alone(void **state)
{
	enum xrx_csum_partial modes[] = { XRX_CSUM_PARTIAL_AUTO,
					  XRX_CSUM_PARTIAL_REFUSE };
	size_t m;
	int k;

	(void)state;
	for (m = 0; m < 2; m++) {
		struct harness *h = train(frame_spec_tcp4, 3, modes[m], false);

		h_rx(h, 0, 3, 1);
		assert_int_equal(h->nr_out, 3);
		for (k = 0; k < 3; k++) {
			h_assert_out(h, k, &k, 1);
			assert_int_equal(h->out[k].pkt.reason,
					 XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL);
			assert_int_equal(h->out[k].pkt.csum, XRX_PKT_CSUM_NONE);
		}
		assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_PARTIAL], 3);
		assert_int_equal(h->stats[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL], 3);
		assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_BAD], 0);
		check_end(h);
	}
}

/* One off the pseudo-header sum is corruption, even where partial
 * checksums are accepted; a real sum in between merges as ever. */
static void near_miss_is_bad(void **state)
{
	struct harness *h = train(frame_spec_tcp4, 3, XRX_CSUM_PARTIAL_ACCEPT,
				  false);

	(void)state;
	make_partial(h, 1, 1);
	h_rx(h, 0, 3, 1);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_BAD], 1);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_PARTIAL], 2);
	check_end(h);
}

/* csum = trust: nothing is verified, so nothing is recognised. */
static void trust_counts_nothing(void **state)
{
	struct harness *h = train(frame_spec_tcp4, 3, XRX_CSUM_PARTIAL_REFUSE,
				  true);

	(void)state;
	h_rx(h, 0, 3, 1);
	assert_int_equal(h->nr_out, 1);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_CSUM_PARTIAL], 0);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL], 0);
	check_end(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accept_merges),
		cmocka_unit_test(accept_alone_is_partial),
		cmocka_unit_test(refuse_alone),
		cmocka_unit_test(near_miss_is_bad),
		cmocka_unit_test(trust_counts_nothing),
	};

	return cmocka_run_group_tests_name("partial checksums", tests, NULL,
					   NULL);
}
