// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Header-only copy: xrx_headlen() against where the frame builder put the
 * payload, and the three copy modes delivering the same bytes while
 * copying what each mode promises (header: headers only, no payload
 * byte; max-head: min(256, len) of every frame; full: everything).
 */
#include "unit/gro_harness.h"
#include <xrx/parse.h>

static void test_headlen(void **state)
{
	struct frame_spec s[6];
	struct frame_info fi;
	__u8 buf[2048];
	int i, len;

	frame_spec_tcp4(&s[0]);
	frame_spec_tcp6(&s[1]);
	s[1].ext[0].type = 0;
	s[1].ext[0].len = 16;
	s[1].nr_ext = 1;
	frame_spec_udp4(&s[2]);
	s[2].nr_vlans = 2;
	frame_spec_udp6(&s[3]);
	frame_spec_icmp4(&s[4]);
	frame_spec_tcp4(&s[5]);
	s[5].payload_len = 0;
	s[5].pad = 6;
	for (i = 0; i < 6; i++) {
		struct xrx_parsed r;

		len = frame_build_info(&s[i], buf, sizeof(buf), &fi);
		assert_true(len > 0);
		assert_int_equal(xrx_headlen(buf, len, &r), fi.payload_off);
		assert_int_equal(r.l3_off, fi.l3_off);
		assert_int_equal(r.l4_off, fi.l4_off);
		assert_int_equal(xrx_headlen(buf, len, NULL), fi.payload_off);
	}
	/* capped at the frame: a truncated header */
	assert_int_equal(xrx_headlen(buf, 10, NULL), 10);
	(void)state;
}

/*
 * A mixed train: an aggregate of 3, a single with payload (IPv4 options),
 * a pure ACK, an IPv6 aggregate of 2 with a hop-by-hop header, a UDP
 * aggregate of 2, a frame shorter than 256 bytes and an ICMP echo.
 */
static int build_mixed(struct harness *h)
{
	static const __u8 opts[4] = { 1, 1, 1, 0 };
	struct frame_spec s;
	int i, n = 0;

	for (i = 0; i < 3; i++) {
		frame_spec_tcp4(&s);
		s.payload_len = 1448;
		s.seq = 1000 + i * 1448;
		s.ip_id = 10 + i;
		h_build(h, n++, &s);
	}
	frame_spec_tcp4(&s);
	s.sport = 1;
	s.ip_opts = opts;
	s.ip_opts_len = 4;
	s.payload_len = 700;
	h_build(h, n++, &s);
	frame_spec_tcp4(&s);
	s.sport = 2;
	s.payload_len = 0;
	h_build(h, n++, &s);
	for (i = 0; i < 2; i++) {
		frame_spec_tcp6(&s);
		s.ext[0].type = 0;
		s.nr_ext = 1;
		s.payload_len = 1200;
		s.seq = 5 + i * 1200;
		h_build(h, n++, &s);
	}
	for (i = 0; i < 2; i++) {
		frame_spec_udp4(&s);
		s.payload_len = 1000;
		s.seq = i * 1000;
		h_build(h, n++, &s);
	}
	frame_spec_tcp4(&s);
	s.sport = 3;
	s.payload_len = 100;
	h_build(h, n++, &s);
	frame_spec_icmp4(&s);
	h_build(h, n++, &s);
	return n;
}

struct mode_run {
	struct harness *h;
	__u64 stats[XRX_ENGINE_STAT_MAX];
};

static void run_mode(struct mode_run *r, enum xrx_copy_mode mode)
{
	struct xrx_engine_opts o = { .copy = mode, .udp = true };
	int n;

	r->h = h_new(&o);
	n = build_mixed(r->h);
	h_rx(r->h, 0, n, 1);
	xrx_engine__stats(r->h->e, r->stats);
	h_assert_released_once(r->h);
}

static void test_modes_same_bytes(void **state)
{
	struct mode_run m[3];
	__u64 hdr = 0, maxhead = 0, maxhead_pl = 0, full = 0, payload = 0;
	int i, k, singles[] = { 3, 4, 10, 9 };
	struct harness *h;

	for (i = 0; i < 3; i++)
		run_mode(&m[i], (enum xrx_copy_mode)i);
	h = m[0].h;
	assert_int_equal(h->nr_out, 7);
	for (i = 1; i < 3; i++) {
		assert_int_equal(m[i].h->nr_out, h->nr_out);
		for (k = 0; k < h->nr_out; k++) {
			h_assert_bytes(m[i].h->out[k].bytes,
				       m[i].h->out[k].len, h->out[k].bytes,
				       h->out[k].len, "same bytes in every mode");
			assert_int_equal(m[i].h->out[k].pkt.gso_segs,
					 h->out[k].pkt.gso_segs);
			assert_int_equal(m[i].h->out[k].pkt.gso_size,
					 h->out[k].pkt.gso_size);
		}
	}
	/* and they are the right ones: frames never held first, then
	 * the held ones at the batch end, oldest first */
	{
		int a[] = { 0, 1, 2 }, b[] = { 5, 6 }, c[] = { 7, 8 };

		h_assert_out(h, 0, &singles[0], 1);
		h_assert_out(h, 1, &singles[1], 1);
		h_assert_out(h, 2, &singles[2], 1);
		h_assert_out(h, 3, a, 3);
		h_assert_out(h, 4, b, 2);
		h_assert_out(h, 5, c, 2);
		h_assert_out(h, 6, &singles[3], 1);	/* held alone */
	}

	/* What each mode copies, from the builder's offsets. */
	for (i = 0; i < h->nr; i++) {
		const struct frame_info *fi = &h->info[i];
		bool merged = i == 1 || i == 2 || i == 6 || i == 8;
		__u32 len = h->frames[i].len, mh = len < 256 ? len : 256;
		__u32 hl = h->spec[i].l4 == 1 ? fi->l4_off + 8 : fi->payload_off;

		if (!merged)
			hdr += hl;
		maxhead += mh;
		maxhead_pl += mh - hl;
		full += merged ? fi->payload_len : len;
		payload += merged ? fi->payload_len : len - hl;
	}
	assert_int_equal(m[XRX_COPY_HEADER].stats[XRX_ENGINE_STAT_BYTES_COPIED],
			 hdr);
	assert_int_equal(
		m[XRX_COPY_HEADER].stats[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED], 0);
	assert_int_equal(
		m[XRX_COPY_MAX_HEAD].stats[XRX_ENGINE_STAT_BYTES_COPIED], maxhead);
	assert_int_equal(
		m[XRX_COPY_MAX_HEAD].stats[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED],
		maxhead_pl);
	assert_int_equal(m[XRX_COPY_FULL].stats[XRX_ENGINE_STAT_BYTES_COPIED],
			 full);
	assert_int_equal(
		m[XRX_COPY_FULL].stats[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED],
		payload);
	for (i = 0; i < 3; i++)
		h_free(m[i].h);
	(void)state;
}

/*
 * Header mode: the head holds exactly the headers; every payload byte is
 * read in place from the region; a frame with no payload is released at
 * once, one with payload only when its packet is.
 */
static void test_header_only(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h = h_new(&o);
	struct frame_spec s;
	__u32 i;

	h->keep = 1;
	frame_spec_tcp4(&s);
	s.payload_len = 1448;
	h_build(h, 0, &s);
	s.seq += 1448;
	s.ip_id++;
	h_build(h, 1, &s);
	s.payload_len = 0;
	s.sport = 9;
	h_build(h, 2, &s);
	h_rx(h, 0, 3, 1);
	assert_int_equal(h->nr_kept, 2);
	assert_int_equal(h->released[2], 1);	/* all of it in the head */
	assert_int_equal(h->released[0], 0);
	assert_int_equal(h->released[1], 0);
	for (i = 0; i < 2; i++) {
		struct xrx_pkt *p = h->kept[i];
		__u32 f;

		assert_int_equal(p->head_len, h->info[0].payload_off);
		for (f = 0; f < p->nr_frags; f++)
			assert_true(p->frags[f].data >= h->region &&
				    p->frags[f].data + p->frags[f].len <=
					    h->region + H_REGION);
	}
	assert_int_equal(h->kept[1]->nr_frags, 2);
	for (i = 0; i < (__u32)h->nr_kept; i++)
		xrx_pkt__release(h->e, h->kept[i]);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headlen),
		cmocka_unit_test(test_modes_same_bytes),
		cmocka_unit_test(test_header_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
