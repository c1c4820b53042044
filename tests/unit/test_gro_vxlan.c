// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * VXLAN: the tunnel parser (include/xrx/parse_tunnel.h) and the engine's
 * tunnel rules (user/lib/gro/tunnel.c). Frames come from
 * user/util/vxlan_frames.h (frames.h's inner frames, outer headers
 * written byte by byte), and every expected aggregate is computed with the
 * harness's own checksum code, not libxrx's. The kernel oracle
 * (tests/integration/test_vxlan_oracle.sh) checks the same rules against
 * Linux itself; these pin them down without a kernel.
 */
#include "gro_harness.h"

#include <xrx/parse_tunnel.h>
#include "util/vxlan_frames.h"

#define VX_PORT VXLAN_FRAME_PORT
#define VX_HDRS VXLAN_FRAME_HDRS

/* Frame @i of the harness: @in wrapped per @o; frame_info the inner one. */
static void vx_build(struct harness *h, int i, const struct frame_spec *in,
		     const struct vxlan_outer *o)
{
	int len;

	assert_true(i < H_FRAMES);
	len = vxlan_frame_build(in, o, h->region + (size_t)i * H_SLOT, H_SLOT,
				&h->info[i]);
	assert_true(len > 0);
	h->spec[i] = *in;
	h->frames[i].addr = (__u64)i * H_SLOT;
	h->frames[i].len = len;
	h->frames[i].meta = NULL;
	if (i >= h->nr)
		h->nr = i + 1;
}

/* Inner segment @k of a contiguous TCP flow (IPv4 unless @v6). */
static void vx_inner(struct frame_spec *s, int k, int v6)
{
	if (v6)
		frame_spec_tcp6(s);
	else
		frame_spec_tcp4(s);
	s->seq = 1000 + k * 1000;
	s->payload_len = 1000;
	s->ip_id = 100 + k;
}

static struct harness *vx_harness(int nr_ports)
{
	struct xrx_engine_opts o = { 0 };

	o.nr_vxlan_ports = nr_ports;
	o.vxlan_ports[0] = VX_PORT;
	o.vxlan_ports[1] = 8472;
	return h_new(&o);
}

/*
 * The aggregate of frames [first, first + n) as the kernel completes it:
 * the harness's h_expect() fixes the inner headers (it only knows the
 * offsets of frame_info); the outer ones are fixed here.
 */
static __u8 *vx_expect(const struct harness *h, int first, int n, __u32 *len)
{
	int idx[64], k;
	__u8 *b, *ip, *uh;
	__u32 sum;

	for (k = 0; k < n; k++)
		idx[k] = first + k;
	b = h_expect(h, idx, n, len);
	if (n == 1)
		return b;
	ip = b + 14;
	uh = b + 34;
	h_wr16(ip + 2, *len - 14);
	h_wr16(ip + 10, 0);
	h_wr16(ip + 10, (__u16)~h_fold(h_sum16(ip, 20, 0)));
	h_wr16(uh + 4, *len - 34);
	if (uh[6] | uh[7]) {
		sum = h_sum16(ip + 12, 8, 17 + *len - 34);
		h_wr16(uh + 6, h_fold(sum));
	}
	return b;
}

static void vx_assert_agg(const struct harness *h, int out, int first, int n)
{
	const struct h_out *o = &h->out[out];
	__u32 len;
	__u8 *want = vx_expect(h, first, n, &len);

	h_assert_bytes(o->bytes, o->len, want, len, "VXLAN aggregate");
	free(want);
	assert_int_equal(o->pkt.gso_segs, n);
	assert_int_equal(o->pkt.outer_l3_off, 14);
	assert_int_equal(o->pkt.outer_l4_off, 34);
	assert_int_equal(o->pkt.inner_mac_off, VX_HDRS);
	assert_int_equal(o->pkt.l3_off, VX_HDRS + 14);
}

static void test_parse(void **state)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;
	struct xrx_parsed outer;
	struct xrx_tnl_parsed t;
	__u32 len;

	vx_inner(&in, 0, 0);
	in.nr_vlans = 1;
	in.vlan_tci[0] = 7;
	vxlan_outer_default(&o, 1);
	o.vni = 0xabcdef;
	vx_build(h, 0, &in, &o);
	len = h->frames[0].len;
	assert_int_equal(xrx_parse(h_frame(h, 0), len, len, &outer),
			 XRX_PARSE_L4);
	assert_int_equal(outer.dport, VX_PORT);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 0), len, len, &outer, &t),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.vni, 0xabcdef);
	assert_int_equal(t.outer_l3_off, 14);
	assert_int_equal(t.outer_l4_off, 34);
	assert_int_equal(t.vxlan_off, 42);
	assert_int_equal(t.inner_mac_off, VX_HDRS);
	assert_int_equal(t.inner.result, XRX_PARSE_L4);
	assert_int_equal(t.inner.nr_vlans, 1);
	assert_int_equal(t.inner.l3_off, VX_HDRS + 18);
	assert_int_equal(t.inner.l4_off, VX_HDRS + 38);
	assert_int_equal(t.inner.headlen, h->info[0].payload_off);
	assert_int_equal(t.inner.dport, FRAME_DPORT);
	assert_int_not_equal(t.inner.hash, outer.hash);

	/* A datagram to the VXLAN port too short for the VXLAN and inner
	 * Ethernet headers. */
	frame_spec_udp4(&in);
	in.dport = VX_PORT;
	in.payload_len = 12;
	h_build(h, 2, &in);
	len = h->frames[2].len;
	assert_int_equal(xrx_parse(h_frame(h, 2), len, len, &outer),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 2), len, len, &outer, &t),
			 XRX_TNL_SHORT);

	/* Plain TCP is no tunnel. */
	frame_spec_tcp4(&in);
	h_build(h, 1, &in);
	len = h->frames[1].len;
	xrx_parse(h_frame(h, 1), len, len, &outer);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 1), len, len, &outer, &t),
			 XRX_TNL_NONE);
	h_free(h);
	(void)state;
}

/* Contiguous inner TCPv4 and TCPv6: one aggregate, kernel fix-ups. */
static void run_contig(int v6)
{
	struct harness *h = vx_harness(2);
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	for (k = 0; k < 6; k++) {
		vx_inner(&in, k, v6);
		vxlan_outer_default(&o, 500 + k);
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 6, 1);
	assert_int_equal(h->nr_out, 1);
	vx_assert_agg(h, 0, 0, 6);
	assert_int_equal(h->out[0].pkt.gso_type,
			 v6 ? XRX_GSO_TCPV6 : XRX_GSO_TCPV4);
	assert_int_equal(h->out[0].pkt.gso_flags, XRX_GSO_F_UDP_TUNNEL_CSUM);
	assert_int_equal(h->out[0].pkt.csum, XRX_PKT_CSUM_PARTIAL);
	assert_int_equal(h->out[0].pkt.csum_start, h->info[0].l4_off);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_VXLAN_FRAMES_IN), 6);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_VXLAN_AGGS_OUT), 1);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_AGGS_OUT), 1);
	h_assert_released_once(h);
	h_free(h);
}

static void test_contig4(void **state)
{
	run_contig(0);
	(void)state;
}

static void test_contig6(void **state)
{
	run_contig(1);
	(void)state;
}

/* Outer UDP checksum zero: merges, stays zero, SKB_GSO_UDP_TUNNEL. Fixed
 * IDs, outer and inner: both fixed-ID flags. */
static void test_csum_zero_fixedid(void **state)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	for (k = 0; k < 4; k++) {
		vx_inner(&in, k, 0);
		in.ip_id = 100;
		vxlan_outer_default(&o, 9);
		o.csum_zero = 1;
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 4, 1);
	assert_int_equal(h->nr_out, 1);
	vx_assert_agg(h, 0, 0, 4);
	assert_int_equal(h->out[0].bytes[40], 0);
	assert_int_equal(h->out[0].bytes[41], 0);
	assert_int_equal(h->out[0].pkt.gso_flags,
			 XRX_GSO_F_UDP_TUNNEL | XRX_GSO_F_FIXEDID |
				 XRX_GSO_F_FIXEDID_INNER);
	h_free(h);
	(void)state;
}

/* No VXLAN port configured: the frames are UDP, as before. */
static void test_off_by_default(void **state)
{
	struct harness *h = vx_harness(0);
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	for (k = 0; k < 4; k++) {
		vx_inner(&in, k, 0);
		vxlan_outer_default(&o, 500 + k);
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 4, 1);
	assert_int_equal(h->nr_out, 4);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_SINGLE_UDP_OFF), 4);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_VXLAN_FRAMES_IN), 0);
	assert_int_equal(h->out[0].pkt.outer_l3_off, 0);
	h_free(h);
	(void)state;
}

/*
 * Frames 3..@last of six changed by @mod; @flush: the counter that must
 * be 1 (or -1: none to check). @outs: packets expected.
 */
static struct harness *run_mod(void (*mod)(struct frame_spec *,
					   struct vxlan_outer *),
			       int last, int flush, int outs)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	for (k = 0; k < 6; k++) {
		vx_inner(&in, k, 0);
		vxlan_outer_default(&o, 500 + k);
		if (k >= 3 && k <= last)
			mod(&in, &o);
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 6, 1);
	assert_int_equal(h->nr_out, outs);
	if (flush >= 0)
		assert_int_equal(h_stat(h, flush), 1);
	h_assert_released_once(h);
	return h;
}

static void mod_vni(struct frame_spec *in, struct vxlan_outer *o)
{
	o->vni = 43;
	(void)in;
}

static void mod_ttl(struct frame_spec *in, struct vxlan_outer *o)
{
	o->ttl = 63;
	(void)in;
}

static void mod_tos(struct frame_spec *in, struct vxlan_outer *o)
{
	o->tos = 4;
	(void)in;
}

static void mod_df(struct frame_spec *in, struct vxlan_outer *o)
{
	o->no_df = 1;
	(void)in;
}

static void mod_id(struct frame_spec *in, struct vxlan_outer *o)
{
	o->ipid = 7;
	(void)in;
}

static void mod_bad_csum(struct frame_spec *in, struct vxlan_outer *o)
{
	o->bad_csum = 1;
	(void)in;
}

static void mod_csum_zero(struct frame_spec *in, struct vxlan_outer *o)
{
	o->csum_zero = 1;
	(void)in;
}

static void mod_inner_window(struct frame_spec *in, struct vxlan_outer *o)
{
	in->window = 1;
	(void)o;
}

static void test_flush_rules(void **state)
{
	struct harness *h;

	/* Another VNI, or checksum presence: another flow, no flush; both
	 * aggregates go out at the end of the batch. */
	h = run_mod(mod_vni, 5, -1, 2);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_FLUSH_BATCH_END), 2);
	vx_assert_agg(h, 0, 0, 3);
	vx_assert_agg(h, 1, 3, 3);
	h_free(h);
	h = run_mod(mod_csum_zero, 5, -1, 2);
	assert_int_equal(h->out[1].pkt.gso_flags & XRX_GSO_F_UDP_TUNNEL,
			 XRX_GSO_F_UDP_TUNNEL);
	h_free(h);
	/* Outer header flush rules: frames 3..5 make a second aggregate. */
	h = run_mod(mod_ttl, 5, XRX_ENGINE_STAT_FLUSH_OUTER_TTL, 2);
	vx_assert_agg(h, 0, 0, 3);
	vx_assert_agg(h, 1, 3, 3);
	h_free(h);
	h = run_mod(mod_tos, 5, XRX_ENGINE_STAT_FLUSH_OUTER_TOS, 2);
	h_free(h);
	h = run_mod(mod_df, 5, XRX_ENGINE_STAT_FLUSH_OUTER_DF, 2);
	h_free(h);
	/* ID 7 where 503 was due flushes; 7, 7, 7 is then a fixed-ID run
	 * (the outer header's own decision: the inner IDs increment). */
	h = run_mod(mod_id, 5, XRX_ENGINE_STAT_FLUSH_OUTER_IPID, 2);
	assert_int_equal(h->out[1].pkt.gso_flags,
			 XRX_GSO_F_UDP_TUNNEL_CSUM | XRX_GSO_F_FIXEDID);
	h_free(h);
	/* One ID 7 between 502 and 504: 503 due, then 8 due: two flushes. */
	h = run_mod(mod_id, 3, -1, 3);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_FLUSH_OUTER_IPID), 2);
	h_free(h);
	/* A bad outer checksum: delivered alone, not merged, no flush; the
	 * next frame then misses it in the outer ID sequence (checked
	 * before the inner sequence number). */
	h = run_mod(mod_bad_csum, 3, XRX_ENGINE_STAT_CSUM_BAD, 3);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_FLUSH_OUTER_IPID), 1);
	h_free(h);
	/* The inner rules are the plain ones. */
	h = run_mod(mod_inner_window, 5, XRX_ENGINE_STAT_FLUSH_WINDOW, 2);
	h_free(h);
	(void)state;
}

/*
 * Checksums: a bad inner TCP checksum under a good outer UDP checksum
 * (the inner check then works from the outer sum), under a zero one, and
 * a good one under a bad outer one: each frame alone, counted csum_bad;
 * with csum = trust all of them merge.
 */
static void run_csum(enum xrx_csum_mode mode)
{
	struct xrx_engine_opts eo = { 0 };
	struct harness *h;
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	eo.csum = mode;
	eo.nr_vxlan_ports = 1;
	eo.vxlan_ports[0] = VX_PORT;
	h = h_new(&eo);
	for (k = 0; k < 8; k++) {
		vx_inner(&in, k, 0);
		vxlan_outer_default(&o, 500 + k);
		in.bad_l4_csum = k == 1 || k == 2;
		o.csum_zero = k == 2 || k == 5;
		o.bad_csum = k == 3;
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 8, 1);
	if (mode == XRX_CSUM_TRUST) {
		/* Nothing refused: [0 1] [2] [3 4] [5] [6 7], the breaks
		 * where the outer checksum's presence or the outer ID
		 * sequence changes. */
		assert_int_equal(h_stat(h, XRX_ENGINE_STAT_CSUM_BAD), 0);
		assert_int_equal(h->nr_out, 5);
		assert_int_equal(h_stat(h, XRX_ENGINE_STAT_VXLAN_AGGS_OUT), 3);
	} else {
		/* 1, 2 and 3 alone, refused; then [0] [4] [5] [6 7]. */
		assert_int_equal(h_stat(h, XRX_ENGINE_STAT_CSUM_BAD), 3);
		assert_int_equal(h->nr_out, 7);
		assert_int_equal(h_stat(h, XRX_ENGINE_STAT_VXLAN_AGGS_OUT), 1);
		for (k = 0; k < 3; k++)
			assert_int_equal(h->out[k].pkt.reason,
					 XRX_ENGINE_STAT_CSUM_BAD);
	}
	h_assert_released_once(h);
	h_free(h);
}

static void test_csum(void **state)
{
	run_csum(XRX_CSUM_VERIFY);
	run_csum(XRX_CSUM_TRUST);
	(void)state;
}

/* A VXLAN packet carrying UDP, and one carrying ARP: alone, as the kernel
 * (without rx-udp-gro-forwarding) delivers them. */
static void test_inner_not_tcp(void **state)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;

	frame_spec_udp4(&in);
	in.payload_len = 300;
	vxlan_outer_default(&o, 1);
	vx_build(h, 0, &in, &o);
	frame_spec_udp4(&in);
	in.payload_len = 300;
	vxlan_outer_default(&o, 2);
	vx_build(h, 1, &in, &o);
	frame_spec_arp(&in);
	vxlan_outer_default(&o, 3);
	vx_build(h, 2, &in, &o);
	h_rx(h, 0, 3, 1);
	assert_int_equal(h->nr_out, 3);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_SINGLE_VXLAN_INNER), 3);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

/* 64 KiB counted from the outer IP header: 90 bytes of headers + n x
 * 1448 stays below 65536 for n = 45. */
static void test_size_limit(void **state)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;
	int k;

	for (k = 0; k < 50; k++) {
		frame_spec_tcp4(&in);
		in.tcp_opts_len = 0;
		in.seq = 1000 + k * 1448;
		in.payload_len = 1448;
		in.ip_id = k;
		vxlan_outer_default(&o, 500 + k);
		vx_build(h, k, &in, &o);
	}
	h_rx(h, 0, 50, 1);
	assert_int_equal(h->nr_out, 2);
	assert_int_equal(h->out[0].pkt.gso_segs, 45);
	assert_int_equal(h->out[1].pkt.gso_segs, 5);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_FLUSH_SIZE), 1);
	vx_assert_agg(h, 0, 0, 45);
	h_free(h);
	(void)state;
}

/*
 * Outer IPv6 (udp6_gro_receive(), ipv6_gro_receive()): the aggregate's
 * payload_len and UDP length, the UDP checksum as the IPv6 pseudo-header
 * sum (~udp_v6_check()), no ID rules, and ipv6_gro_flush()'s hop limit.
 */
static void test_outer_ipv6(void **state)
{
	struct harness *h = vx_harness(1);
	struct frame_spec in;
	struct vxlan_outer o;
	const struct h_out *out;
	__u32 len, sum, i;
	int idx[6], k;
	__u8 *want;

	for (k = 0; k < 6; k++) {
		vx_inner(&in, k, 0);
		vxlan_outer_default(&o, 7);
		o.v6 = 1;
		o.ttl = k < 4 ? 64 : 63;	/* 0-3, then 4-5 */
		vx_build(h, k, &in, &o);
		idx[k] = k;
	}
	h_rx(h, 0, 6, 1);
	assert_int_equal(h->nr_out, 2);
	assert_int_equal(h_stat(h, XRX_ENGINE_STAT_FLUSH_OUTER_TTL), 1);
	out = &h->out[0];
	assert_int_equal(out->pkt.gso_segs, 4);
	assert_int_equal(out->pkt.outer_l3_off, 14);
	assert_int_equal(out->pkt.outer_l4_off, 54);
	assert_int_equal(out->pkt.inner_mac_off, 70);
	assert_int_equal(out->pkt.gso_flags, XRX_GSO_F_UDP_TUNNEL_CSUM);
	/* The inner headers as h_expect() has them, the outer ones here. */
	want = h_expect(h, idx, 4, &len);
	h_wr16(want + 18, len - 54);
	h_wr16(want + 58, len - 54);
	sum = 17 + len - 54;
	for (i = 22; i < 54; i += 2)
		sum += (__u32)want[i] << 8 | want[i + 1];
	h_wr16(want + 60, h_fold(sum));
	h_assert_bytes(out->bytes, out->len, want, len, "outer IPv6 aggregate");
	free(want);
	h_assert_released_once(h);
	h_free(h);
	(void)state;
}

static void test_opts(void **state)
{
	struct xrx_engine_opts o = { 0 };
	static __u8 region[4096];
	struct xrx_engine *e;

	o.sz = sizeof(o);
	o.region = region;
	o.region_size = sizeof(region);
	o.nr_vxlan_ports = 1;
	o.vxlan_ports[0] = 0;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = 2;
	o.vxlan_ports[0] = 4789;
	o.vxlan_ports[1] = 4789;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = XRX_VXLAN_PORTS_MAX + 1;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = 2;
	o.vxlan_ports[1] = 8472;
	e = xrx_engine__new(&o);
	assert_non_null(e);
	xrx_engine__free(e);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_contig4),
		cmocka_unit_test(test_contig6),
		cmocka_unit_test(test_csum_zero_fixedid),
		cmocka_unit_test(test_off_by_default),
		cmocka_unit_test(test_flush_rules),
		cmocka_unit_test(test_inner_not_tcp),
		cmocka_unit_test(test_csum),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_outer_ipv6),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
