// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * user/lib/sink/vnet.c: the virtio_net_hdr the TUN sink writes for engine
 * packets, and aggregates cut back into pieces. Packets come from the
 * real engine fed with user/util/frames.h trains; the expectations are
 * virtio_net_hdr_from_skb()'s for the skb the kernel's GRO would build,
 * and for pieces of one segment, the input frames themselves: cutting an
 * aggregate must give back, byte for byte, the IP packets it was made of.
 * VXLAN aggregates likewise: the extended header for GSO over a UDP
 * tunnel, and segments that are the VXLAN frames that went in.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "sink/vnet.h"

#define SLOT 2048
#define MAXF 64

struct vt {
	__u8 region[SLOT * MAXF];
	struct xrx_frame frames[MAXF];
	struct frame_info info[MAXF];
	int nr;
	struct xrx_engine *e;
	struct xrx_pkt *out[MAXF];
	int nr_out;
};

static void vt_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct vt *v = ctx;

	assert_true(v->nr_out < MAXF);
	v->out[v->nr_out++] = pkt;	/* kept until vt_free() */
}

static struct vt *vt_new_opts(bool udp, enum xrx_csum_mode csum,
			      __u16 vxlan_port)
{
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	struct vt *v = calloc(1, sizeof(*v));

	assert_non_null(v);
	if (vxlan_port) {
		o.vxlan_ports[0] = vxlan_port;
		o.nr_vxlan_ports = 1;
	}
	o.region = v->region;
	o.region_size = sizeof(v->region);
	o.udp = udp;
	o.csum = csum;
	o.deliver = vt_deliver;
	o.ctx = v;
	v->e = xrx_engine__new(&o);
	assert_non_null(v->e);
	return v;
}

static struct vt *vt_new(bool udp, enum xrx_csum_mode csum)
{
	return vt_new_opts(udp, csum, 0);
}

static void vt_add(struct vt *v, const struct frame_spec *s)
{
	int len = frame_build_info(s, v->region + v->nr * SLOT, SLOT,
				   &v->info[v->nr]);

	assert_true(len > 0);
	v->frames[v->nr].addr = (__u64)v->nr * SLOT;
	v->frames[v->nr].len = (__u32)len;
	v->nr++;
}

static void vt_run(struct vt *v)
{
	assert_int_equal(xrx_engine__rx(v->e, v->frames, v->nr, 1), v->nr);
	xrx_engine__flush_all(v->e);
}

static void vt_free(struct vt *v)
{
	int i;

	for (i = 0; i < v->nr_out; i++)
		xrx_pkt__release(v->e, v->out[i]);
	xrx_engine__free(v->e);
	free(v);
}

/* A train of @n segments of @size bytes of one flow. */
static struct vt *train(void (*init)(struct frame_spec *), bool udp, int n,
			__u32 size, __u8 first_flags)
{
	struct vt *v = vt_new(udp, XRX_CSUM_VERIFY);
	struct frame_spec s;
	int i;

	for (i = 0; i < n; i++) {
		init(&s);
		s.payload_len = size;
		s.seq = 1000 + i * size;
		s.ip_id = (__u16)(500 + i);
		if (i == 0)
			s.tcp_flags |= first_flags;
		if (i == n - 1 && !udp)
			s.tcp_flags |= 0x08;	/* PSH ends the train */
		vt_add(v, &s);
	}
	vt_run(v);
	return v;
}

static void test_tcp4_aggregate(void **state)
{
	struct vt *v = train(frame_spec_tcp4, false, 10, 1448, 0);
	struct virtio_net_hdr h;
	struct xrx_pkt *p;

	assert_int_equal(v->nr_out, 1);
	p = v->out[0];
	assert_int_equal(p->gso_segs, 10);
	/* IFF_TUN: offsets from the IP header */
	assert_int_equal(xrx_vnet_hdr_from_pkt(p, p->l3_off, &h), 0);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(h.gso_size, 1448);
	assert_int_equal(h.hdr_len, 20 + 32);	/* TCP with timestamps */
	assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h.csum_start, 20);
	assert_int_equal(h.csum_offset, 16);
	/* IFF_TAP: from the Ethernet header */
	assert_int_equal(xrx_vnet_hdr_from_pkt(p, 0, &h), 0);
	assert_int_equal(h.csum_start, 34);
	assert_int_equal(h.hdr_len, 14 + 52);
	assert_int_equal(xrx_vnet_nr_segs(p), 10);
	/* the header cannot start past the IP header */
	assert_int_equal(xrx_vnet_hdr_from_pkt(p, p->l3_off + 1, &h), -EINVAL);
	vt_free(v);
}

/*
 * tcp_gro_complete(): CWR in the aggregate's header -> SKB_GSO_TCP_ECN ->
 * GSO_ECN. The engine never starts an aggregate with CWR (Linux 6.18
 * delivers such a segment alone), so the header is given CWR here.
 */
static void test_tcp4_cwr_sets_ecn(void **state)
{
	struct vt *v = train(frame_spec_tcp4, false, 5, 1000, 0);
	struct virtio_net_hdr h;
	struct xrx_pkt *p;

	assert_int_equal(v->nr_out, 1);
	p = v->out[0];
	assert_int_equal(xrx_vnet_hdr_from_pkt(p, 14, &h), 0);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	p->head[p->l4_off + 13] |= 0x80;
	assert_int_equal(xrx_vnet_hdr_from_pkt(p, 14, &h), 0);
	assert_int_equal(h.gso_type,
			 VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN);
	vt_free(v);
}

static void test_tcp6_aggregate(void **state)
{
	struct vt *v = train(frame_spec_tcp6, false, 8, 1428, 0);
	struct virtio_net_hdr h;

	assert_int_equal(v->nr_out, 1);
	assert_int_equal(xrx_vnet_hdr_from_pkt(v->out[0], 14, &h), 0);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	assert_int_equal(h.gso_size, 1428);
	assert_int_equal(h.csum_start, 40);
	assert_int_equal(h.csum_offset, 16);
	assert_int_equal(h.hdr_len, 40 + 32);
	vt_free(v);
}

static void test_udp_aggregate(void **state)
{
	struct vt *v = train(frame_spec_udp4, true, 6, 1200, 0);
	struct virtio_net_hdr h;

	assert_int_equal(v->nr_out, 1);
	assert_int_equal(xrx_vnet_hdr_from_pkt(v->out[0], 14, &h), 0);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_UDP_L4);
	assert_int_equal(h.gso_size, 1200);
	assert_int_equal(h.hdr_len, 28);
	assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h.csum_start, 20);
	assert_int_equal(h.csum_offset, 6);
	vt_free(v);

	v = train(frame_spec_udp6, true, 3, 1000, 0);
	assert_int_equal(xrx_vnet_hdr_from_pkt(v->out[0], 14, &h), 0);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_UDP_L4);
	assert_int_equal(h.csum_start, 40);
	vt_free(v);
}

/* Singles: DATA_VALID when verified, nothing when trusted, never GSO. */
static void test_singles(void **state)
{
	enum xrx_csum_mode modes[2] = { XRX_CSUM_VERIFY, XRX_CSUM_TRUST };
	__u8 want[2] = { VIRTIO_NET_HDR_F_DATA_VALID, 0 };
	struct virtio_net_hdr h;
	struct frame_spec s;
	struct vt *v;
	int m;

	for (m = 0; m < 2; m++) {
		v = vt_new(false, modes[m]);
		frame_spec_tcp4(&s);
		s.payload_len = 500;
		s.tcp_flags |= 0x08;	/* PSH: delivered alone */
		vt_add(v, &s);
		vt_run(v);
		assert_int_equal(v->nr_out, 1);
		assert_int_equal(v->out[0]->gso_type, XRX_GSO_NONE);
		assert_int_equal(xrx_vnet_hdr_from_pkt(v->out[0], 14, &h), 0);
		assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(h.flags, want[m]);
		assert_int_equal(h.gso_size, 0);
		assert_int_equal(h.hdr_len, 0);
		assert_int_equal(xrx_vnet_nr_segs(v->out[0]), 1);
		vt_free(v);
	}
	/* a bad checksum is delivered alone and unverified */
	v = vt_new(false, XRX_CSUM_VERIFY);
	frame_spec_tcp4(&s);
	s.bad_l4_csum = 1;
	vt_add(v, &s);
	vt_run(v);
	assert_int_equal(xrx_vnet_hdr_from_pkt(v->out[0], 14, &h), 0);
	assert_int_equal(h.flags, 0);
	vt_free(v);
}

/* Flatten a piece: header bytes, then its payload through xrx_vnet_iov(). */
static __u32 piece_bytes(const struct xrx_pkt *p, const __u8 *hdr, int hlen,
			 __u32 pay_off, __u32 pay_len, __u8 *out)
{
	struct iovec iov[64];
	__u32 len = (__u32)hlen;
	int n, i;

	memcpy(out, hdr, (size_t)hlen);
	n = xrx_vnet_iov(p, pay_off, pay_len, iov, 64);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
		len += (__u32)iov[i].iov_len;
	}
	return len;
}

/*
 * Pieces of one segment with the full checksum: each is the input frame's
 * IP packet, byte for byte (incrementing IDs, seq, PSH on the last only,
 * lengths, both checksums).
 */
static void check_resegment(void (*init)(struct frame_spec *), bool udp,
			    int n, __u32 size)
{
	struct vt *v = train(init, udp, n, size, 0);
	__u8 hdr[XRX_HEAD_SIZE], buf[SLOT];
	struct virtio_net_hdr h;
	__u32 pay_off, pay_len, len, l3;
	struct xrx_pkt *p;
	int i, hlen;

	assert_int_equal(v->nr_out, 1);
	p = v->out[0];
	l3 = p->l3_off;
	assert_int_equal(xrx_vnet_nr_segs(p), n);
	for (i = 0; i < n; i++) {
		hlen = xrx_vnet_piece(p, l3, i, 1, true, hdr, sizeof(hdr), &h,
				      &pay_off, &pay_len);
		assert_true(hlen > 0);
		assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(h.flags, VIRTIO_NET_HDR_F_DATA_VALID);
		len = piece_bytes(p, hdr, hlen, pay_off, pay_len, buf);
		assert_int_equal(len, v->info[i].ip_len);
		assert_memory_equal(buf, v->region + v->frames[i].addr + l3,
				    len);
	}
	assert_int_equal(xrx_vnet_piece(p, l3, n, 1, true, hdr, sizeof(hdr),
					&h, &pay_off, &pay_len), -EINVAL);
	assert_int_equal(xrx_vnet_piece(p, l3, 0, 1, true, hdr, 10, &h,
					&pay_off, &pay_len), -ENOSPC);
	vt_free(v);
}

static void test_resegment_tcp4(void **state)
{
	check_resegment(frame_spec_tcp4, false, 12, 1448);
}

static void test_resegment_tcp6(void **state)
{
	check_resegment(frame_spec_tcp6, false, 7, 1001);	/* odd size */
}

static void test_resegment_udp(void **state)
{
	check_resegment(frame_spec_udp4, true, 9, 777);
	check_resegment(frame_spec_udp6, true, 4, 1400);
}

/*
 * An IPv6 BIG TCP aggregate in the Linux 6.x form (the engine's
 * ipv6_jumbo HBH: payload_len 0, the 8-byte jumbo option): cut into
 * pieces, the option goes, as ipv6_gso_segment() takes it out. Pieces of
 * one segment are the input frames byte for byte; 64 KiB pieces carry
 * their own payload_len and no option; all 60 segments in one piece
 * would not fit payload_len: refused. (Pieces used to keep the option
 * next to a non-zero payload_len, which RFC 2675 and ip6_rcv_core()
 * refuse; the vnet fuzz target found it.)
 */
static void test_resegment_tcp6_jumbo(void **state)
{
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	struct vt *v = calloc(1, sizeof(*v));
	__u8 hdr[XRX_HEAD_SIZE], *buf = malloc(66000);
	__u32 pay_off, pay_len, len, l3, hlen, per, seg, done = 0;
	struct virtio_net_hdr h;
	struct frame_spec s;
	struct xrx_pkt *p;
	int i, n = 60, hl;

	assert_non_null(v);
	assert_non_null(buf);
	o.region = v->region;
	o.region_size = sizeof(v->region);
	o.max_aggregate = 185000;
	o.max_segs = 64;
	o.ipv6_jumbo = XRX_IPV6_JUMBO_HBH;
	o.deliver = vt_deliver;
	o.ctx = v;
	v->e = xrx_engine__new(&o);
	assert_non_null(v->e);
	for (i = 0; i < n; i++) {
		frame_spec_tcp6(&s);
		s.payload_len = 1400;
		s.seq = 1000 + i * 1400;
		if (i == n - 1)
			s.tcp_flags |= 0x08;
		vt_add(v, &s);
	}
	vt_run(v);
	assert_int_equal(v->nr_out, 1);
	p = v->out[0];
	l3 = p->l3_off;
	hlen = xrx_vnet_hdr_len(p);
	/* the 6.x form: payload_len 0, next header hop-by-hop, jumbo */
	assert_int_equal(p->head[l3 + 4] | p->head[l3 + 5], 0);
	assert_int_equal(p->head[l3 + 6], 0);
	assert_int_equal(p->head[l3 + 42], 0xc2);
	for (i = 0; i < n; i++) {
		hl = xrx_vnet_piece(p, l3, i, 1, true, hdr, sizeof(hdr), &h,
				    &pay_off, &pay_len);
		assert_int_equal(hl, hlen - l3 - 8);
		len = piece_bytes(p, hdr, hl, pay_off, pay_len, buf);
		assert_int_equal(len, v->info[i].ip_len);
		assert_memory_equal(buf, v->region + v->frames[i].addr + l3,
				    len);
	}
	per = (65535 - (hlen - l3)) / 1400;
	for (seg = 0; seg < (__u32)n; seg += per) {
		hl = xrx_vnet_piece(p, l3, seg, per, false, hdr, sizeof(hdr),
				    &h, &pay_off, &pay_len);
		assert_int_equal(hl, hlen - l3 - 8);
		assert_int_equal(hdr[6], 6);		/* TCP follows */
		assert_int_equal(hdr[4] << 8 | hdr[5], hl - 40 + pay_len);
		assert_int_equal(h.csum_start, 40);	/* the TCP header */
		assert_int_equal(pay_off, hlen + seg * 1400);
		done += pay_len;
	}
	assert_int_equal(done, n * 1400);
	assert_int_equal(xrx_vnet_piece(p, l3, 0, n, false, hdr, sizeof(hdr),
					&h, &pay_off, &pay_len), -E2BIG);
	free(buf);
	vt_free(v);
}

/*
 * GSO pieces: 10 segments in pieces of 4 -> 4 + 4 + 2; each piece's
 * headers are those of its first segment with the piece's lengths and the
 * pseudo-header sum, and the last keeps PSH.
 */
static void test_gso_pieces(void **state)
{
	struct vt *v = train(frame_spec_tcp4, false, 10, 1000, 0);
	__u8 hdr[XRX_HEAD_SIZE], buf[8 * SLOT];
	struct virtio_net_hdr h;
	__u32 pay_off, pay_len, len, seg;
	const __u8 *orig;
	struct xrx_pkt *p;
	int hlen;

	p = v->out[0];
	for (seg = 0; seg < 10; seg += 4) {
		hlen = xrx_vnet_piece(p, 14, seg, 4, false, hdr, sizeof(hdr),
				      &h, &pay_off, &pay_len);
		assert_int_equal(hlen, 52);
		assert_int_equal(pay_len, seg < 8 ? 4000 : 2000);
		assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
		assert_int_equal(h.gso_size, 1000);
		assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(h.csum_start, 20);
		len = piece_bytes(p, hdr, hlen, pay_off, pay_len, buf);
		orig = v->region + v->frames[seg].addr + 14;
		assert_int_equal(buf[2] << 8 | buf[3], len);	/* tot_len */
		assert_int_equal(frame_csum(buf, 20, 0), 0);	/* IP csum */
		assert_memory_equal(buf + 4, orig + 4, 2);	/* IP ID */
		assert_memory_equal(buf + 24, orig + 24, 4);	/* seq */
		assert_int_equal(buf[33] & 0x08, seg == 8 ? 0x08 : 0);
		/* payload: the segments' own, in order */
		assert_memory_equal(buf + 52, orig + 52, 1000);
	}
	/* a piece of one segment without the full sum: partial, not GSO */
	hlen = xrx_vnet_piece(p, 14, 9, 1, false, hdr, sizeof(hdr), &h,
			      &pay_off, &pay_len);
	assert_int_equal(hlen, 52);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	vt_free(v);
}

/* CWR stays on the first piece only, and the ECN bit with it. */
static void test_pieces_cwr(void **state)
{
	struct vt *v = train(frame_spec_tcp6, false, 6, 1000, 0);
	__u8 hdr[XRX_HEAD_SIZE];
	struct virtio_net_hdr h;
	__u32 po, pl;

	assert_int_equal(v->nr_out, 1);
	v->out[0]->head[v->out[0]->l4_off + 13] |= 0x80;

	assert_true(xrx_vnet_piece(v->out[0], 14, 0, 3, false, hdr,
				   sizeof(hdr), &h, &po, &pl) > 0);
	assert_true(hdr[40 + 13] & 0x80);
	assert_int_equal(h.gso_type,
			 VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN);
	assert_true(xrx_vnet_piece(v->out[0], 14, 3, 3, false, hdr,
				   sizeof(hdr), &h, &po, &pl) > 0);
	assert_false(hdr[40 + 13] & 0x80);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	vt_free(v);
}

static void test_iov(void **state)
{
	struct vt *v = train(frame_spec_tcp4, false, 3, 100, 0);
	struct iovec iov[4];
	struct xrx_pkt *p = v->out[0];
	__u32 hl = p->head_len;

	/* whole packet: head + one frag per segment (or fewer) */
	assert_true(xrx_vnet_iov(p, 0, p->len, iov, 4) >= 1);
	/* a range inside the head */
	assert_int_equal(xrx_vnet_iov(p, 2, 10, iov, 4), 1);
	assert_ptr_equal(iov[0].iov_base, p->head + 2);
	assert_int_equal(iov[0].iov_len, 10);
	/* crossing from the head into the payload */
	if (p->nr_frags) {
		assert_int_equal(xrx_vnet_iov(p, hl - 1, 2, iov, 4), 2);
		assert_int_equal(xrx_vnet_iov(p, hl - 1, 2, iov, 1), -E2BIG);
	}
	assert_int_equal(xrx_vnet_iov(p, p->len - 1, 2, iov, 4), -EINVAL);
	assert_int_equal(xrx_vnet_iov(p, p->len, 0, iov, 4), 0);
	vt_free(v);
}

/* ---- VXLAN aggregates -------------------------------------------------- */

struct vx_case {
	int outer_v6, inner_v6;
	int csum_zero;		/* outer UDP checksum 0 */
	int fixed_outer_id, fixed_inner_id;
	int n;
	__u32 size;
};

/*
 * A VXLAN train per @c: @c->n segments of one inner flow, PSH on the
 * last, outer and inner IPv4 IDs incrementing unless fixed. One aggregate.
 */
static struct vt *vx_train(const struct vx_case *c)
{
	struct vt *v = vt_new_opts(false, XRX_CSUM_VERIFY, VXLAN_FRAME_PORT);
	struct vxlan_outer o;
	struct frame_spec in;
	int i, len;

	for (i = 0; i < c->n; i++) {
		if (c->inner_v6)
			frame_spec_tcp6(&in);
		else
			frame_spec_tcp4(&in);
		in.payload_len = c->size;
		in.seq = 1000 + i * c->size;
		in.ip_id = (__u16)(c->fixed_inner_id ? 77 : 500 + i);
		if (i == c->n - 1)
			in.tcp_flags |= 0x08;	/* PSH ends the train */
		vxlan_outer_default(&o, (__u16)(c->fixed_outer_id ? 9 : 300 + i));
		o.v6 = c->outer_v6;
		o.csum_zero = c->csum_zero;
		len = vxlan_frame_build(&in, &o, v->region + v->nr * SLOT, SLOT,
					&v->info[v->nr]);
		assert_true(len > 0);
		v->frames[v->nr].addr = (__u64)v->nr * SLOT;
		v->frames[v->nr].len = (__u32)len;
		v->nr++;
	}
	vt_run(v);
	assert_int_equal(v->nr_out, 1);
	assert_int_equal(v->out[0]->gso_segs, c->n);
	return v;
}

static const struct vx_case vx_cases[] = {
	{ .n = 12, .size = 1400 },				/* UDP csum set */
	{ .n = 9, .size = 1001, .csum_zero = 1 },		/* odd mss */
	{ .n = 5, .size = 1300, .outer_v6 = 1 },
	{ .n = 6, .size = 1200, .inner_v6 = 1, .csum_zero = 1 },
	{ .n = 4, .size = 999, .outer_v6 = 1, .inner_v6 = 1 },
	{ .n = 7, .size = 1000, .fixed_outer_id = 1 },
	{ .n = 7, .size = 1000, .fixed_inner_id = 1, .csum_zero = 1 },
	{ .n = 3, .size = 1000, .fixed_outer_id = 1, .fixed_inner_id = 1 },
};

/* The extended virtio_net_hdr of a whole VXLAN aggregate, per case. */
static void test_vxlan_tnl_hdr(void **state)
{
	struct xrx_vnet_hdr_tnl h;
	struct virtio_net_hdr plain;
	const struct vx_case *c;
	__u32 o3len, i3len, base;
	struct xrx_pkt *p;
	struct vt *v;
	size_t k;

	for (k = 0; k < sizeof(vx_cases) / sizeof(vx_cases[0]); k++) {
		c = &vx_cases[k];
		v = vx_train(c);
		p = v->out[0];
		o3len = c->outer_v6 ? 40 : 20;
		i3len = c->inner_v6 ? 40 : 20;
		assert_true(xrx_vnet_is_tnl(p));
		for (base = 0; base <= 14; base += 14) {
			assert_int_equal(xrx_vnet_tnl_hdr_from_pkt(p, base, &h), 0);
			assert_int_equal(h.hdr.gso_type,
					 (c->inner_v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
							VIRTIO_NET_HDR_GSO_TCPV4) |
					 (c->outer_v6 ? VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 :
							VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4));
			assert_int_equal(h.hdr.flags,
					 VIRTIO_NET_HDR_F_NEEDS_CSUM |
					 (c->csum_zero ? 0 : VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM));
			assert_int_equal(h.hdr.gso_size, c->size);
			/* the inner TCP header, from the write's start */
			assert_int_equal(h.hdr.csum_start,
					 14 + o3len + 16 + 14 + i3len - base);
			assert_int_equal(h.hdr.csum_offset, 16);
			assert_int_equal(h.hdr.hdr_len, h.hdr.csum_start + 32);
			assert_int_equal(le16toh(h.outer_th_offset), 14 + o3len - base);
			assert_int_equal(le16toh(h.inner_nh_offset),
					 14 + o3len + 16 + 14 - base);
			assert_int_equal(h.num_buffers | h.hash_value_lo |
					 h.hash_value_hi | h.hash_report | h.padding, 0);
		}
		/* virtio_net_hdr_tnl_to_skb()'s offset rules hold from the
		 * Ethernet header (tap) */
		xrx_vnet_tnl_hdr_from_pkt(p, 0, &h);
		assert_true(le16toh(h.outer_th_offset) >= 14 + o3len);
		assert_true(le16toh(h.inner_nh_offset) >= le16toh(h.outer_th_offset) + 8);
		assert_true(h.hdr.csum_start >= le16toh(h.inner_nh_offset) + i3len);
		/* not past the outer IP header */
		assert_int_equal(xrx_vnet_tnl_hdr_from_pkt(p, 15, &h), -EINVAL);
		/* inner CWR: ECN, as for plain TCP */
		p->head[p->l4_off + 13] |= 0x80;
		assert_int_equal(xrx_vnet_tnl_hdr_from_pkt(p, 0, &h), 0);
		assert_true(h.hdr.gso_type & VIRTIO_NET_HDR_GSO_ECN);
		/* the plain header of the same packet stays plain TCP */
		assert_int_equal(xrx_vnet_hdr_from_pkt(p, 0, &plain), 0);
		assert_false(plain.gso_type & (VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 |
					       VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6));
		vt_free(v);
	}
	/* a plain TCP aggregate is not a tunnel one */
	v = train(frame_spec_tcp4, false, 4, 1000, 0);
	assert_false(xrx_vnet_is_tnl(v->out[0]));
	assert_int_equal(xrx_vnet_tnl_hdr_from_pkt(v->out[0], 0, &h), -EINVAL);
	vt_free(v);
}

/*
 * Every segment of every case, written from the outer IP header (tun)
 * and from the Ethernet header (tap), is the VXLAN frame that went in,
 * byte for byte: outer length, ID and checksum, UDP length and checksum
 * (zero or complete), inner length, ID and checksum, TCP seq, flags and
 * checksum. Also checked field by field, so a failure names the field.
 */
static void test_vxlan_segments(void **state)
{
	__u8 hdr[XRX_HEAD_SIZE], buf[SLOT];
	__u32 pay_off, pay_len, len, base, o3len, o4, i3, i4;
	const struct vx_case *c;
	const __u8 *orig;
	struct xrx_pkt *p;
	struct vt *v;
	size_t k;
	int i, hlen;

	for (k = 0; k < sizeof(vx_cases) / sizeof(vx_cases[0]); k++) {
		c = &vx_cases[k];
		v = vx_train(c);
		p = v->out[0];
		o3len = c->outer_v6 ? 40 : 20;
		o4 = 14 + o3len;
		i3 = o4 + 16 + 14;
		i4 = i3 + (c->inner_v6 ? 40 : 20);
		assert_int_equal(xrx_vnet_nr_segs(p), c->n);
		for (base = 0; base <= 14; base += 14) {
			for (i = 0; i < c->n; i++) {
				hlen = xrx_vnet_tnl_seg(p, base, i, hdr, sizeof(hdr),
							&pay_off, &pay_len);
				assert_int_equal(hlen, i4 + 32 - base);
				assert_int_equal(pay_len, c->size);
				len = piece_bytes(p, hdr, hlen, pay_off, pay_len,
						  buf + base);
				memcpy(buf, v->region + v->frames[i].addr, base);
				len += base;
				orig = v->region + v->frames[i].addr;
				assert_int_equal(len, v->frames[i].len);
				/* outer IP: length, ID, checksum */
				if (c->outer_v6) {
					assert_int_equal(buf[18] << 8 | buf[19], len - 54);
				} else {
					assert_int_equal(buf[16] << 8 | buf[17], len - 14);
					assert_int_equal(buf[18] << 8 | buf[19],
							 c->fixed_outer_id ? 9 : 300 + i);
					assert_int_equal(frame_csum(buf + 14, 20, 0), 0);
				}
				/* UDP length and checksum */
				assert_int_equal(buf[o4 + 4] << 8 | buf[o4 + 5], len - o4);
				if (c->csum_zero)
					assert_int_equal(buf[o4 + 6] | buf[o4 + 7], 0);
				assert_memory_equal(buf + o4 + 6, orig + o4 + 6, 2);
				/* inner IP */
				if (!c->inner_v6) {
					assert_int_equal(buf[i3 + 2] << 8 | buf[i3 + 3], len - i3);
					assert_int_equal(buf[i3 + 4] << 8 | buf[i3 + 5],
							 c->fixed_inner_id ? 77 : 500 + i);
					assert_int_equal(frame_csum(buf + i3, 20, 0), 0);
				} else {
					assert_int_equal(buf[i3 + 4] << 8 | buf[i3 + 5],
							 len - i3 - 40);
				}
				/* TCP: seq, PSH on the last only, checksum */
				assert_memory_equal(buf + i4 + 4, orig + i4 + 4, 4);
				assert_int_equal(buf[i4 + 13] & 0x08,
						 i == c->n - 1 ? 0x08 : 0);
				assert_memory_equal(buf + i4 + 16, orig + i4 + 16, 2);
				/* and every other byte */
				assert_memory_equal(buf, orig, len);
			}
			assert_int_equal(xrx_vnet_tnl_seg(p, base, c->n, hdr,
							  sizeof(hdr), &pay_off,
							  &pay_len), -EINVAL);
		}
		assert_int_equal(xrx_vnet_tnl_seg(p, 0, 0, hdr, 40, &pay_off,
						  &pay_len), -ENOSPC);
		assert_int_equal(xrx_vnet_tnl_seg(p, 15, 0, hdr, sizeof(hdr),
						  &pay_off, &pay_len), -EINVAL);
		vt_free(v);
	}
	v = train(frame_spec_tcp4, false, 4, 1000, 0);
	assert_int_equal(xrx_vnet_tnl_seg(v->out[0], 14, 0, hdr, sizeof(hdr),
					  &pay_off, &pay_len), -EINVAL);
	vt_free(v);
}

/*
 * GENEVE with options takes the same UDP-tunnel GSO: the header for a
 * whole write (tap) puts the inner network header behind the GENEVE
 * header and its options, and every segment (tun, tap) is the frame that
 * went in, byte for byte.
 */
/* @ip: IPv4 carried without an inner Ethernet header (protocol type
 * 0x0800), whose aggregate has inner_mac_off == l3_off; virtio's tunnel
 * GSO takes it the same (virtio_net_hdr_tnl_to_skb() sets the inner MAC
 * header at the inner network header either way). */
static void geneve_tnl(bool ip)
{
	__u8 hdr[XRX_HEAD_SIZE], buf[SLOT];
	__u32 pay_off, pay_len, len, base, i3;
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	struct xrx_vnet_hdr_tnl h;
	struct vxlan_outer go;
	struct frame_spec in;
	struct xrx_pkt *p;
	struct vt *v = calloc(1, sizeof(*v));
	int i, hlen, len0;

	assert_non_null(v);
	o.geneve_ports[0] = GENEVE_FRAME_PORT;
	o.nr_geneve_ports = 1;
	o.region = v->region;
	o.region_size = sizeof(v->region);
	o.deliver = vt_deliver;
	o.ctx = v;
	v->e = xrx_engine__new(&o);
	assert_non_null(v->e);
	for (i = 0; i < 5; i++) {
		frame_spec_tcp4(&in);
		in.payload_len = 1100;
		in.seq = 1000 + i * 1100;
		in.ip_id = (__u16)(500 + i);
		geneve_outer_default(&go, (__u16)(300 + i));
		go.opt_words = 3;
		go.opt = 0x01020304;
		go.no_inner_eth = ip;
		len0 = vxlan_frame_build(&in, &go, v->region + v->nr * SLOT,
					 SLOT, &v->info[v->nr]);
		assert_true(len0 > 0);
		v->frames[v->nr].addr = (__u64)v->nr * SLOT;
		v->frames[v->nr].len = (__u32)len0;
		v->nr++;
	}
	vt_run(v);
	assert_int_equal(v->nr_out, 1);
	p = v->out[0];
	assert_int_equal(p->gso_segs, 5);
	i3 = 14 + 20 + 8 + 8 + 12 + (ip ? 0 : 14);
	assert_int_equal(p->inner_mac_off, ip ? i3 : i3 - 14);
	assert_int_equal(xrx_vnet_tnl_hdr_from_pkt(p, 0, &h), 0);
	assert_int_equal(h.hdr.gso_type, VIRTIO_NET_HDR_GSO_TCPV4 |
					 VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4);
	assert_int_equal(le16toh(h.outer_th_offset), 14 + 20);
	assert_int_equal(le16toh(h.inner_nh_offset), i3);
	assert_int_equal(h.hdr.csum_start, i3 + 20);
	assert_int_equal(h.hdr.gso_size, 1100);
	for (base = 0; base <= 14; base += 14) {
		for (i = 0; i < 5; i++) {
			hlen = xrx_vnet_tnl_seg(p, base, i, hdr, sizeof(hdr),
						&pay_off, &pay_len);
			assert_int_equal(hlen, i3 + 20 + 32 - base);
			len = piece_bytes(p, hdr, hlen, pay_off, pay_len,
					  buf + base);
			memcpy(buf, v->region + v->frames[i].addr, base);
			len += base;
			assert_int_equal(len, v->frames[i].len);
			assert_memory_equal(buf, v->region + v->frames[i].addr,
					    len);
		}
	}
	vt_free(v);
}

static void test_geneve_tnl(void **state)
{
	geneve_tnl(false);
	(void)state;
}

static void test_geneve_ip_tnl(void **state)
{
	geneve_tnl(true);
	(void)state;
}

/* CWR on the first segment only, FIN on the last only. */
static void test_vxlan_segments_flags(void **state)
{
	static const struct vx_case c = { .n = 4, .size = 1000 };
	struct vt *v = vx_train(&c);
	struct xrx_pkt *p = v->out[0];
	__u8 hdr[XRX_HEAD_SIZE];
	__u32 po, pl, th = p->l4_off;
	int i;

	p->head[th + 13] |= 0x80 | 0x01;	/* CWR, FIN */
	for (i = 0; i < 4; i++) {
		assert_true(xrx_vnet_tnl_seg(p, 0, i, hdr, sizeof(hdr), &po,
					     &pl) > 0);
		assert_int_equal(hdr[th + 13] & 0x80, i == 0 ? 0x80 : 0);
		assert_int_equal(hdr[th + 13] & 0x09, i == 3 ? 0x09 : 0);
		assert_int_equal(hdr[th + 13] & 0x10, 0x10);	/* ACK */
	}
	vt_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4_aggregate),
		cmocka_unit_test(test_tcp4_cwr_sets_ecn),
		cmocka_unit_test(test_tcp6_aggregate),
		cmocka_unit_test(test_udp_aggregate),
		cmocka_unit_test(test_singles),
		cmocka_unit_test(test_resegment_tcp4),
		cmocka_unit_test(test_resegment_tcp6),
		cmocka_unit_test(test_resegment_udp),
		cmocka_unit_test(test_resegment_tcp6_jumbo),
		cmocka_unit_test(test_gso_pieces),
		cmocka_unit_test(test_pieces_cwr),
		cmocka_unit_test(test_iov),
		cmocka_unit_test(test_vxlan_tnl_hdr),
		cmocka_unit_test(test_vxlan_segments),
		cmocka_unit_test(test_vxlan_segments_flags),
		cmocka_unit_test(test_geneve_tnl),
		cmocka_unit_test(test_geneve_ip_tnl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
