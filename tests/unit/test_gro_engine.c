// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The engine around the rules: batch-end and timeout flushing, the flow
 * table when full and a hash bucket when full, fill-ring pressure,
 * packet buffers running out, frame
 * ownership (release exactly once, also for packets still held at free),
 * xrx_meta instead of parsing, option checks and counter names.
 */
#include "unit/gro_harness.h"
#include <xrx/parse.h>
#include "gro/engine_priv.h"	/* the flow table's buckets */

#define S(x) XRX_ENGINE_STAT_##x

/* Frame @i: segment @k of flow @flow (source port 40000 + flow). */
static void build_seg(struct harness *h, int i, int flow, int k)
{
	struct frame_spec s;

	frame_spec_tcp4(&s);
	s.sport = 40000 + flow;
	s.payload_len = 1000;
	s.seq = 1 + k * 1000;
	s.ip_id = k;
	h_build(h, i, &s);
}

static void test_batch_end(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h = h_new(&o);
	int a[] = { 0 }, b[] = { 1, 2 };

	build_seg(h, 0, 0, 0);
	build_seg(h, 1, 0, 1);
	build_seg(h, 2, 0, 2);
	h_rx(h, 0, 1, 1);	/* aggregates never span batches */
	assert_int_equal(h->nr_out, 1);
	h_rx(h, 1, 2, 2);
	assert_int_equal(h->nr_out, 2);
	h_assert_out(h, 0, a, 1);
	h_assert_out(h, 1, b, 2);
	assert_int_equal(h_stat(h, S(FLUSH_BATCH_END)), 2);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

static void test_timeout(void **state)
{
	struct xrx_engine_opts o = { .flush_timeout_us = 100 };
	struct harness *h = h_new(&o);
	int all[] = { 0, 1, 2 };

	build_seg(h, 0, 0, 0);
	build_seg(h, 1, 0, 1);
	build_seg(h, 2, 0, 2);
	h_rx(h, 0, 2, 1000);
	assert_int_equal(h->nr_out, 0);
	assert_int_equal(xrx_engine__held(h->e), 1);
	assert_int_equal(xrx_engine__next_timeout(h->e), 1000 + 100000);
	h_rx(h, 2, 1, 1000 + 50000);	/* merges across batches */
	assert_int_equal(h->nr_out, 0);
	xrx_engine__flush(h->e, 1000 + 99999);
	assert_int_equal(h->nr_out, 0);
	xrx_engine__flush(h->e, 1000 + 100000);
	assert_int_equal(h->nr_out, 1);
	h_assert_out(h, 0, all, 3);
	assert_int_equal(h_stat(h, S(FLUSH_TIMEOUT)), 1);
	assert_int_equal(xrx_engine__next_timeout(h->e), 0);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

/* Table of 2: a third flow delivers the oldest (gro_flush_oldest()). */
static void test_table_full(void **state)
{
	struct xrx_engine_opts o = { .flows = 2, .flush_timeout_us = 1000 };
	struct harness *h = h_new(&o);
	int f0[] = { 0, 3 }, f1[] = { 1 }, f2[] = { 2 };

	build_seg(h, 0, 0, 0);
	build_seg(h, 1, 1, 0);
	build_seg(h, 2, 2, 0);
	build_seg(h, 3, 0, 1);	/* flow 0 again: starts anew */
	h_rx(h, 0, 3, 1);
	assert_int_equal(h->nr_out, 1);
	h_assert_out(h, 0, f0, 1);
	assert_int_equal(h_stat(h, S(FLUSH_TABLE_FULL)), 1);
	h_rx(h, 3, 1, 2);	/* evicts flow 1, the oldest now */
	assert_int_equal(h->nr_out, 2);
	h_assert_out(h, 1, f1, 1);
	xrx_engine__flush_all(h->e);
	assert_int_equal(h->nr_out, 4);
	h_assert_out(h, 2, f2, 1);
	h_assert_out(h, 3, &f0[1], 1);
	assert_int_equal(h_stat(h, S(FLUSH_EXPLICIT)), 2);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

/*
 * Source ports whose TCPv4 flows fall into the same bucket of @h's table
 * as port 40000 under key @key: what an attacker who learnt the key would
 * send. @n of them into @ports. Return: the bucket.
 */
static __u32 colliding_ports(struct harness *h, const struct xrx_hash_key *key,
			     __u16 *ports, int n)
{
	__u32 mask = h->e->table.mask, want = 0, port;
	struct xrx_parsed r;
	struct frame_spec s;
	__u8 buf[2048];
	int len, k = 0;

	for (port = 40000; port < 65536 && k < n; port++) {
		frame_spec_tcp4(&s);
		s.sport = port;
		s.payload_len = 1000;
		len = frame_build(&s, buf, sizeof(buf));
		xrx_parse(buf, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW,
			  len, &r, key);
		if (port == 40000)
			want = r.hash & mask;
		if ((r.hash & mask) == want)
			ports[k++] = port;
	}
	assert_int_equal(k, n);
	return want;
}

/* Aggregates in the chain of bucket @b. */
static int bucket_len(const struct harness *h, __u32 b)
{
	const struct xrx_agg *a;
	int n = 0;

	for (a = xrx_gro_table_bucket(&h->e->table, b); a; a = a->hnext)
		n++;
	return n;
}

/*
 * 20 flows crafted into one bucket (the key known to the crafter): the
 * bucket never holds more than 8 (MAX_GRO_SKBS), a new flow delivers the
 * bucket's oldest with flush_bucket_full, as gro_flush_oldest() does, and
 * flows still held keep merging. The same flows under another key spread
 * out and nothing is flushed early.
 */
static void test_bucket_full(void **state)
{
	static const struct xrx_hash_key other = { { 0xfeed, 0xbeef } };
	struct xrx_engine_opts o = { .flows = 64, .flush_timeout_us = 1000 };
	struct xrx_engine_opts o2 = { .flows = 64, .flush_timeout_us = 1000,
				      .hash_key = other };
	struct harness *h = h_new(&o), *h2 = h_new(&o2);
	struct frame_spec s;
	__u16 ports[20];
	__u32 b;
	int i, k, seg19[] = { 19, 21 };

	b = colliding_ports(h, &h_key, ports, 20);
	for (i = 0; i < 20; i++) {
		frame_spec_tcp4(&s);
		s.sport = ports[i];
		s.payload_len = 1000;
		s.seq = 1;
		h_build(h, i, &s);
		h_build(h2, i, &s);
	}
	for (i = 0; i < 20; i++) {	/* the bucket never holds more */
		h_rx(h, i, 1, 1 + i);
		assert_int_equal(bucket_len(h, b), i < 8 ? i + 1 : 8);
	}
	assert_int_equal(bucket_len(h, b), 8);
	assert_int_equal(xrx_engine__held(h->e), 8);
	assert_int_equal(h->nr_out, 12);
	assert_int_equal(h_stat(h, S(FLUSH_BUCKET_FULL)), 12);
	for (k = 0; k < 12; k++) {	/* the oldest first, each alone */
		h_assert_out(h, k, &k, 1);
		assert_int_equal(h->out[k].pkt.reason, S(FLUSH_BUCKET_FULL));
		assert_int_equal(h->out[k].pkt.hash & h->e->table.mask, b);
	}

	/* A held flow still merges; an evicted one starts anew and
	 * pushes the oldest held one (flow 12) out. */
	frame_spec_tcp4(&s);
	s.sport = ports[19];
	s.payload_len = 1000;
	s.seq = 1001;
	s.ip_id = 1;
	h_build(h, 21, &s);
	frame_spec_tcp4(&s);
	s.sport = ports[0];
	s.payload_len = 1000;
	s.seq = 1001;
	s.ip_id = 1;
	h_build(h, 20, &s);
	h_rx(h, 20, 2, 100);
	assert_int_equal(h->nr_out, 13);
	k = 12;
	h_assert_out(h, 12, &k, 1);
	assert_int_equal(bucket_len(h, b), 8);
	xrx_engine__flush_all(h->e);
	for (k = 13, i = 0; k < h->nr_out; k++) {
		if (h->out[k].pkt.gso_segs != 2)
			continue;
		h_assert_out(h, k, seg19, 2);
		i++;
	}
	assert_int_equal(i, 1);
	assert_int_equal(h_stat(h, S(FLUSH_BUCKET_FULL)), 13);
	h_assert_released_once(h);

	/* Under a key the crafter did not know: no early flush. */
	h_rx(h2, 0, 20, 1);
	assert_int_equal(xrx_engine__held(h2->e), 20);
	assert_int_equal(h_stat(h2, S(FLUSH_BUCKET_FULL)), 0);
	h_free(h);
	h_free(h2);
	(void)state;
}

/*
 * Without a key each engine draws its own, so two engines (two hosts, two
 * runs) put a flow into unrelated buckets; a key given is kept.
 */
static void test_own_key(void **state)
{
	static __u8 region[4096];
	struct xrx_engine_opts o = { .sz = sizeof(o), .region = region,
				     .region_size = sizeof(region) };
	struct xrx_engine *a, *b, *c;

	a = xrx_engine__new(&o);
	b = xrx_engine__new(&o);
	o.hash_key = h_key;
	c = xrx_engine__new(&o);
	assert_true(a && b && c);
	assert_false(xrx_hash_key_unset(&a->opts.hash_key));
	assert_false(xrx_hash_key_unset(&b->opts.hash_key));
	assert_memory_not_equal(&a->opts.hash_key, &b->opts.hash_key,
				sizeof(h_key));
	assert_memory_equal(&c->opts.hash_key, &h_key, sizeof(h_key));
	xrx_engine__free(a);
	xrx_engine__free(b);
	xrx_engine__free(c);
	(void)state;
}

static void test_flush_oldest(void **state)
{
	struct xrx_engine_opts o = { .flush_timeout_us = 1000 };
	struct harness *h = h_new(&o);
	int i;

	for (i = 0; i < 4; i++)
		build_seg(h, i, i, 0);
	h_rx(h, 0, 4, 1);
	assert_int_equal(xrx_engine__flush_oldest(h->e, 3), 3);
	assert_int_equal(h->nr_out, 3);
	for (i = 0; i < 3; i++)
		h_assert_out(h, i, &i, 1);
	assert_int_equal(h_stat(h, S(FLUSH_PRESSURE)), 3);
	assert_int_equal(xrx_engine__flush_oldest(h->e, 3), 1);
	assert_int_equal(xrx_engine__flush_oldest(h->e, 3), 0);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

/*
 * The consumer keeps packets: frames stay referenced until it releases
 * them; when buffers run out, held aggregates are given up first, then
 * frames are dropped (and released); free() releases what is left.
 */
static void test_ownership(void **state)
{
	struct xrx_engine_opts o = { .flows = 2, .pkts = 3,
				     .flush_timeout_us = 1000 };
	struct harness *h = h_new(&o);
	int i;

	h->keep = 1;
	for (i = 0; i < 5; i++)
		build_seg(h, i, i, 0);
	h_rx(h, 0, 5, 1);
	/* 3 buffers: flows 0, 1 held; 2 evicts 0 (table full); 3 evicts
	 * 1, finds no free buffer, gives up 2 and still finds none: drop;
	 * 4 finds none either. */
	assert_int_equal(h_stat(h, S(DROP_NO_BUFFER)), 2);
	assert_int_equal(h->released[3] + h->released[4], 2);
	assert_int_equal(h->nr_kept, 3);
	assert_int_equal(h->released[0] + h->released[1] + h->released[2], 0);
	xrx_pkt__release(h->e, h->kept[0]);
#ifndef XRX_DEBUG	/* debug builds trap on it instead */
	xrx_pkt__release(h->e, h->kept[0]);	/* twice: counted, no effect */
	assert_int_equal(h_stat(h, S(BAD_RELEASE)), 1);
#endif
	assert_int_equal(h->released[0], 1);
	xrx_engine__free(h->e);	/* flushes flow 2, releases the rest */
	h->e = NULL;
	h_assert_released_once(h);
	h->e = xrx_engine__new(&o);
	h_free(h);
	(void)state;
}

/* Frames with xrx_meta from xrx_rx give what parsing gives. */
static void test_meta(void **state)
{
	struct xrx_engine_opts o1 = { 0 }, o2 = { 0 };
	struct harness *h1 = h_new(&o1), *h2 = h_new(&o2);
	struct xrx_meta meta[6];
	int i, k;

	for (i = 0; i < 6; i++) {
		struct xrx_parsed r;

		build_seg(h1, i, i / 3, i % 3);
		build_seg(h2, i, i / 3, i % 3);
		h_parse(h2, i, &r);
		xrx_meta_fill(&meta[i], &r);
		h2->frames[i].meta = &meta[i];
	}
	meta[5].hash ^= 1;	/* a wrong hash: another flow, no harm */
	h_rx(h1, 0, 6, 1);
	h_rx(h2, 0, 6, 1);
	assert_int_equal(h1->nr_out, 2);
	assert_int_equal(h2->nr_out, 3);
	for (k = 0; k < 2; k++)
		assert_int_equal(h1->out[k].pkt.gso_segs, 3);
	h_assert_bytes(h2->out[0].bytes, h2->out[0].len, h1->out[0].bytes,
		       h1->out[0].len, "meta");
	assert_int_equal(h2->out[1].pkt.gso_segs, 2);
	assert_int_equal(h2->out[2].pkt.gso_segs, 1);
	h_assert_released_once(h2);
	h_free(h1);
	h_free(h2);
	(void)state;
}

/*
 * A tag the NIC stripped (xrx_meta, XRX_META_F_HW_VLAN) is flow identity,
 * as skb->vlan_all is in gro_list_prepare(): one 5-tuple on VLAN 10 and
 * on VLAN 20, interleaved, gives two aggregates, each carrying its tag.
 */
static void test_meta_hw_vlan(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h = h_new(&o);
	struct xrx_meta meta[6];
	int ten[] = { 0, 2, 4 }, twenty[] = { 1, 3, 5 }, i;

	for (i = 0; i < 6; i++) {
		struct xrx_parsed r;

		build_seg(h, i, 0, i / 2);
		h_parse(h, i, &r);
		xrx_meta_fill(&meta[i], &r);
		meta[i].flags |= XRX_META_F_HW_VLAN | XRX_META_F_HW_META;
		meta[i].vlan_proto = 0x8100;
		meta[i].vlan_tci = i % 2 ? 20 : 10;
		h->frames[i].meta = &meta[i];
	}
	h_rx(h, 0, 6, 1);
	assert_int_equal(h->nr_out, 2);
	h_assert_out(h, 0, ten, 3);
	h_assert_out(h, 1, twenty, 3);
	assert_int_equal(h->out[0].pkt.vlan_tci, 10);
	assert_int_equal(h->out[1].pkt.vlan_tci, 20);
	assert_int_equal(h->out[0].pkt.vlan_proto, 0x8100);
	assert_int_equal(h_stat(h, S(FRAMES_NO_META)), 0);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

/*
 * The NIC's L4 hash is the flow hash; one over addresses only is not
 * trusted for the lookup: the frame is parsed and hashed by xrx, so it
 * still meets its flow's aggregate, which a bogus L3 hash would miss.
 */
static void test_meta_hw_hash(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h = h_new(&o);
	struct xrx_meta meta[5];
	int l4[] = { 0, 1 }, l3[] = { 2, 3, 4 }, i;

	for (i = 0; i < 5; i++) {
		struct xrx_parsed r;

		/* 0-1: flow 0; 2-4: flow 1 */
		build_seg(h, i, i < 2 ? 0 : 1, i < 2 ? i : i - 2);
		h_parse(h, i, &r);
		xrx_meta_fill(&meta[i], &r);
		h->frames[i].meta = &meta[i];
	}
	for (i = 0; i < 2; i++) {
		meta[i].hash = 0x12345678;
		meta[i].hash_type = XRX_HASH_HW_L4;
	}
	meta[4].hash ^= 0xdead;		/* another bucket, if it were used */
	meta[4].hash_type = XRX_HASH_HW_L3;
	h_rx(h, 0, 5, 1);
	assert_int_equal(h->nr_out, 2);
	h_assert_out(h, 0, l4, 2);
	assert_int_equal(h->out[0].pkt.hash, 0x12345678);
	h_assert_out(h, 1, l3, 3);
	assert_int_equal(h->out[1].pkt.hash, meta[2].hash);
	assert_int_equal(h_stat(h, S(FRAMES_NO_META)), 1);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

static void test_bad_frame(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h = h_new(&o);
	struct xrx_frame f = { .addr = H_REGION - H_SLOT, .len = H_SLOT + 1 };

	build_seg(h, 0, 0, 0);
	assert_int_equal(xrx_engine__rx(h->e, &f, 1, 1), 1);
	assert_int_equal(h_stat(h, S(DROP_BAD_FRAME)), 1);
	assert_int_equal(h->nr_out, 0);
	assert_int_equal(h->released[H_FRAMES - 1], 1);
	h_free(h);
	(void)state;
}

static void test_opts(void **state)
{
	__u8 region[64];
	struct xrx_engine_opts o = { .sz = sizeof(o), .region = region,
				     .region_size = sizeof(region) };
	struct xrx_engine *e;

	o.max_aggregate = 1000;
	assert_null(xrx_engine__new(&o));
	assert_int_equal(errno, EINVAL);
	o.max_aggregate = 524281;
	assert_null(xrx_engine__new(&o));
	o.max_aggregate = 0;
	o.max_segs = 65536;
	assert_null(xrx_engine__new(&o));
	o.max_segs = 0;
	o.ipv6_jumbo = XRX_IPV6_JUMBO_HBH + 1;
	assert_null(xrx_engine__new(&o));
	o.ipv6_jumbo = XRX_IPV6_JUMBO_HBH;
	e = xrx_engine__new(&o);
	assert_non_null(e);
	xrx_engine__free(e);
	o.ipv6_jumbo = XRX_IPV6_JUMBO_ZERO;
	o.region = NULL;
	assert_null(xrx_engine__new(&o));
	assert_null(xrx_engine__new(NULL));
	o.region = region;
	e = xrx_engine__new(&o);
	assert_non_null(e);
	xrx_engine__free(e);
	xrx_engine__free(NULL);

	/* A newer caller's larger struct: unknown bytes must be zero. */
	struct {
		struct xrx_engine_opts o;
		__u64 newer;
	} big = { .o = o };
	big.o.sz = sizeof(big);
	big.newer = 1;
	errno = 0;
	assert_null(xrx_engine__new(&big.o));
	assert_int_equal(errno, EINVAL);
	big.newer = 0;
	e = xrx_engine__new(&big.o);
	assert_non_null(e);
	xrx_engine__free(e);
	/* An older caller's smaller struct, short of the fields all have. */
	o.sz = offsetof(struct xrx_engine_opts, ctx) - 1;
	assert_null(xrx_engine__new(&o));
	(void)state;
}

/*
 * IPv6 BIG TCP in the Linux 6.x form (ipv6_jumbo = HBH): the aggregate is
 * the default form with the 8-byte hop-by-hop jumbo option inserted after
 * the IPv6 header, in every copy mode; nothing more is copied from the
 * frames; an aggregate of 64 KiB or less, and IPv4, stay as they were.
 */
static void jumbo_run(enum xrx_copy_mode copy, enum xrx_ipv6_jumbo form,
		      int family, int n, __u8 **bytes, __u32 *len,
		      struct xrx_pkt *pkt, __u64 *copied)
{
	struct xrx_engine_opts o = { .max_aggregate = 185000, .copy = copy,
				     .ipv6_jumbo = form };
	struct harness *h = h_new(&o);
	struct frame_spec s;
	int i;

	for (i = 0; i < n; i++) {
		if (family == 6)
			frame_spec_tcp6(&s);
		else
			frame_spec_tcp4(&s);
		s.tcp_opts = NULL;
		s.tcp_opts_len = 0;
		s.payload_len = 1448;
		s.seq = 1000 + (__u32)i * s.payload_len;
		s.ip_id = (__u16)i;
		h_build(h, i, &s);
	}
	h_rx(h, 0, n, 0);
	assert_int_equal(h->nr_out, 1);
	*len = h->out[0].len;
	*bytes = malloc(*len);
	assert_non_null(*bytes);
	memcpy(*bytes, h->out[0].bytes, *len);
	*pkt = h->out[0].pkt;
	*copied = h_stat(h, S(BYTES_COPIED));
	h_assert_released_once(h);
	h_free(h);
}

static void test_ipv6_jumbo(void **state)
{
	static const enum xrx_copy_mode modes[] = {
		XRX_COPY_HEADER, XRX_COPY_MAX_HEAD, XRX_COPY_FULL };
	__u8 *zero, *hbh, *want;
	__u32 zlen, hlen, nh;
	struct xrx_pkt zp, hp;
	__u64 zc, hc;
	unsigned int m;

	for (m = 0; m < 3; m++) {
		/* 60 x 1448 = 86880 bytes of payload: above 65535 */
		jumbo_run(modes[m], XRX_IPV6_JUMBO_ZERO, 6, 60, &zero, &zlen,
			  &zp, &zc);
		jumbo_run(modes[m], XRX_IPV6_JUMBO_HBH, 6, 60, &hbh, &hlen,
			  &hp, &hc);
		nh = zp.l3_off + 40;
		assert_int_equal(zp.gso_segs, 60);
		assert_int_equal(hlen, zlen + 8);
		assert_int_equal(hp.len, zp.len + 8);
		assert_int_equal(hp.head_len, zp.head_len + 8);
		assert_int_equal(hp.l4_off, zp.l4_off + 8);
		assert_int_equal(hp.csum_start, hp.l4_off);
		assert_int_equal(hp.csum_offset, 16);
		assert_int_equal(hp.gso_type, XRX_GSO_TCPV6);
		if (hc != zc)
			fail_msg("mode %u: %llu bytes copied, %llu without the option",
				 m, (unsigned long long)hc,
				 (unsigned long long)zc);
		/* want: the default form, option inserted, next header 0 */
		want = malloc(hlen);
		assert_non_null(want);
		memcpy(want, zero, nh);
		want[zp.l3_off + 6] = 0;
		want[nh] = 6;
		want[nh + 1] = 0;
		want[nh + 2] = 0xc2;
		want[nh + 3] = 4;
		want[nh + 4] = (zlen - nh + 8) >> 24;
		want[nh + 5] = (zlen - nh + 8) >> 16;
		want[nh + 6] = (zlen - nh + 8) >> 8;
		want[nh + 7] = zlen - nh + 8;
		memcpy(want + nh + 8, zero + nh, zlen - nh);
		assert_int_equal(zero[zp.l3_off + 4], 0);	/* payload_len 0 */
		assert_int_equal(zero[zp.l3_off + 5], 0);
		assert_int_equal(zlen - nh + 8, 86908);
		h_assert_bytes(hbh, hlen, want, hlen, "ipv6 jumbo HBH");
		free(want);
		free(zero);
		free(hbh);
	}
	/* 45 segments (64 KiB and less) and IPv4: no option */
	jumbo_run(XRX_COPY_HEADER, XRX_IPV6_JUMBO_ZERO, 6, 45, &zero, &zlen,
		  &zp, &zc);
	jumbo_run(XRX_COPY_HEADER, XRX_IPV6_JUMBO_HBH, 6, 45, &hbh, &hlen,
		  &hp, &hc);
	h_assert_bytes(hbh, hlen, zero, zlen, "ipv6 64 KiB, HBH asked");
	assert_int_equal(hp.l4_off, zp.l4_off);
	free(zero);
	free(hbh);
	jumbo_run(XRX_COPY_HEADER, XRX_IPV6_JUMBO_ZERO, 4, 60, &zero, &zlen,
		  &zp, &zc);
	jumbo_run(XRX_COPY_HEADER, XRX_IPV6_JUMBO_HBH, 4, 60, &hbh, &hlen,
		  &hp, &hc);
	h_assert_bytes(hbh, hlen, zero, zlen, "ipv4 BIG TCP, HBH asked");
	free(zero);
	free(hbh);
	(void)state;
}

static void test_stat_names(void **state)
{
	int i, j;

	for (i = 0; i < XRX_ENGINE_STAT_MAX; i++) {
		assert_non_null(xrx_engine_stat__name(i));
		assert_non_null(xrx_engine_stat__desc(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(xrx_engine_stat__name(i),
						xrx_engine_stat__name(j));
	}
	assert_null(xrx_engine_stat__name(XRX_ENGINE_STAT_MAX));
	assert_null(xrx_engine_stat__name(-1));
	assert_string_equal(xrx_engine_stat__name(S(FLUSH_ACK)), "flush_ack");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_end),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_bucket_full),
		cmocka_unit_test(test_own_key),
		cmocka_unit_test(test_flush_oldest),
		cmocka_unit_test(test_ownership),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_meta_hw_vlan),
		cmocka_unit_test(test_meta_hw_hash),
		cmocka_unit_test(test_bad_frame),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_ipv6_jumbo),
		cmocka_unit_test(test_stat_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
