// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: the TUN/TAP sink's packet writers (user/lib/sink/vnet.c)
 * on every packet the GRO engine delivers from fuzzed frames: the
 * virtio_net_hdr of a whole write, aggregates cut into pieces of 1, k and
 * all segments (xrx_vnet_piece(), k as the sink's 64 KiB split takes
 * them), VXLAN aggregates' tunnel header and full segments
 * (xrx_vnet_tnl_hdr_from_pkt(), xrx_vnet_tnl_seg()), and the iovecs
 * (xrx_vnet_iov()).
 *
 * Input: 2 option bytes, then operations until the input ends:
 *
 *   byte 0   bit 0 vxlan_ports 4789, bit 1 ipv6_jumbo hbh, bit 2 UDP
 *            GRO, bits 3-4 max_aggregate (65536, 131072, 185000,
 *            524280), bit 5 flush_timeout_us 1000 (aggregates kept
 *            across batches), bit 6 csum trust
 *   byte 1   max_segs (0: the engine's default)
 *
 *   op 0x00-0x3f  raw frame: 2 length bytes (at most SLOT), the bytes
 *   op 0x40-0x7f  a frame of flow (op >> 3) & 7 of kind op & 7: TCPv4,
 *                 TCPv6, UDPv4, UDPv6, TCPv4 in VXLAN over IPv4, TCPv6
 *                 in VXLAN over IPv4, TCPv4 in VXLAN over IPv6 (UDP
 *                 checksum set), TCPv6 with a destination options
 *                 header; then a parameter byte: bit 0 PSH, bit 1 a
 *                 sequence gap, bit 2 short payload (next byte), bit 3
 *                 CWR, bit 4 a bad checksum, bit 5 one byte changed
 *                 (next two bytes: where, xor)
 *   op 0x80-0xff  end of batch: xrx_engine__rx(), the clock moving on by
 *                 (op & 63) * 100 us
 *
 * Invariants, per delivered packet: its bytes (head and frags) add up to
 * len; a GSO write's header agrees with it (hdr_len, csum_start inside);
 * the pieces' payloads, in order, are the aggregate's payload exactly;
 * each piece is a valid packet of its own: IPv4 tot_len and header
 * checksum, IPv6 payload_len (and no jumbo option left in it), UDP
 * length, the TCP sequence advanced by the payload before it, the L4
 * checksum complete and correct or, with NEEDS_CSUM, the pseudo-header
 * sum of its length; a 64 KiB split piece fits the IP length field;
 * VXLAN segments get both IP headers, the UDP length and checksum and
 * the inner TCP checksum right. ASan and UBSan watch the reads.
 */
#include "fuzz.h"

#include <xrx/engine.h>
#include <xrx/hdr.h>

#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "sink/vnet.h"

#define SLOT 2048
#define MAX_FRAMES 512
#define BATCH 128
#define PKT_MAX (600 * 1024)
#define HDR_CAP 512
#define IOVS 1024

static const __u32 max_aggs[] = { 65536, 131072, 185000, 524280 };

static struct {
	__u8 region[SLOT * MAX_FRAMES];
	struct xrx_frame batch[BATCH];
	__u32 nb, nr;			/* in the batch, laid out in all */
	__u32 seq[8][8];		/* per flow and kind */
	__u16 ipid[8][8];
	struct xrx_engine *e;
	__u8 whole[PKT_MAX];		/* the delivered packet, linear */
	__u8 piece[HDR_CAP + PKT_MAX];	/* one piece, linear */
	struct iovec iov[IOVS];
	__u64 now;
	__u64 aggs, tnl;		/* checked, for FUZZ_VNET_VERBOSE */
} F;

/* Ones' complement sum, an implementation of our own (RFC 1071). */
static __u32 sum16(const __u8 *p, __u32 n, __u32 s)
{
	__u32 i;

	for (i = 0; i + 1 < n; i += 2)
		s += (__u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (__u32)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static __u16 rd16(const __u8 *p) { return (__u16)(p[0] << 8 | p[1]); }
static __u32 rd32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

/* The pseudo-header sum of the IP header at @ip for @len L4 bytes. */
static __u32 pseudo(const __u8 *ip, __u8 proto, __u32 len)
{
	__u32 s = proto + (len >> 16) + (len & 0xffff);

	if ((ip[0] >> 4) == 6)
		return sum16(ip + 8, 32, s);
	return sum16(ip + 12, 8, s);
}

/* The packet as one buffer, its pieces checked to add up to len. */
static void linearize(const struct xrx_pkt *p)
{
	__u32 off = p->head_len, i;

	FZ_CHECK(p->head_len <= p->len && p->len <= PKT_MAX,
		 "head_len %u len %u", p->head_len, p->len);
	memcpy(F.whole, p->head, p->head_len);
	for (i = 0; i < p->nr_frags; i++) {
		FZ_CHECK(off + p->frags[i].len <= p->len, "frag %u past len", i);
		memcpy(F.whole + off, p->frags[i].data, p->frags[i].len);
		off += p->frags[i].len;
	}
	FZ_CHECK(off == p->len, "head + frags %u != len %u", off, p->len);
}

/* Packet bytes [off, off + len) through xrx_vnet_iov() into @dst. */
static void gather(const struct xrx_pkt *p, __u32 off, __u32 len, __u8 *dst)
{
	int n = xrx_vnet_iov(p, off, len, F.iov, IOVS), i;
	__u32 got = 0;

	FZ_CHECK(n >= 0, "xrx_vnet_iov(%u, %u) = %d", off, len, n);
	for (i = 0; i < n; i++) {
		memcpy(dst + got, F.iov[i].iov_base, F.iov[i].iov_len);
		got += F.iov[i].iov_len;
	}
	FZ_CHECK(got == len, "iovecs carry %u of %u bytes", got, len);
	FZ_CHECK(!memcmp(dst, F.whole + off, len), "iovec bytes differ");
}

/* An IP header of a piece @ip_len long: its length field (and sum). */
static void check_ip(const __u8 *ip, __u32 ip_len, const char *what)
{
	if ((ip[0] >> 4) == 4) {
		FZ_CHECK(rd16(ip + 2) == ip_len, "%s: tot_len %u, packet %u",
			 what, rd16(ip + 2), ip_len);
		FZ_CHECK(sum16(ip, (ip[0] & 15) * 4u, 0) == 0xffff,
			 "%s: IPv4 header checksum", what);
		return;
	}
	FZ_CHECK(rd16(ip + 4) == ip_len - 40, "%s: payload_len %u, packet %u",
		 what, rd16(ip + 4), ip_len);
	/* RFC 2675: a jumbo option only with payload_len 0 */
	FZ_CHECK(!(ip[6] == 0 && ip[42] == 0xc2),
		 "%s: jumbo option left in a piece of payload_len %u", what,
		 rd16(ip + 4));
}

/* The L4 checksum: complete and right, or the partial sum for NEEDS_CSUM. */
static void check_l4(const __u8 *ip, const __u8 *l4, __u8 proto,
		     __u32 l4_len, bool partial, const char *what)
{
	const __u8 *c = l4 + (proto == XRX_IPPROTO_TCP ? 16 : 6);
	__u32 ps = pseudo(ip, proto, l4_len);

	if (proto == XRX_IPPROTO_UDP)
		FZ_CHECK(rd16(l4 + 4) == l4_len, "%s: UDP length %u of %u",
			 what, rd16(l4 + 4), l4_len);
	if (partial) {
		FZ_CHECK(rd16(c) == ps, "%s: partial sum 0x%04x, want 0x%04x",
			 what, rd16(c), ps);
		return;
	}
	if (proto == XRX_IPPROTO_UDP && !rd16(c))
		return;		/* no checksum */
	FZ_CHECK(sum16(l4, l4_len, ps) == 0xffff, "%s: L4 checksum wrong",
		 what);
}

/* Aggregate @p cut in pieces of @per segments (full sums if @full). */
static void check_pieces(const struct xrx_pkt *p, __u32 per, bool full,
			 bool fit)
{
	__u32 base = p->l3_off, hlen = xrx_vnet_hdr_len(p);
	__u32 nsegs = xrx_vnet_nr_segs(p), seg, next = hlen, po, pl;
	__u32 seq0 = p->l4_proto == XRX_IPPROTO_TCP ?
			     rd32(F.whole + p->l4_off + 4) : 0;
	struct virtio_net_hdr vh;
	int h;

	for (seg = 0; seg < nsegs; seg += per) {
		__u32 n = per < nsegs - seg ? per : nsegs - seg, l4o, ip_len;

		h = xrx_vnet_piece(p, base, seg, per, full, F.piece, HDR_CAP,
				   &vh, &po, &pl);
		if (h == -E2BIG && !fit) {
			/* refused: would its length overflow the field? */
			const __u8 *ip = F.whole + p->l3_off;
			__u32 v6 = (ip[0] >> 4) == 6, jumbo = v6 && !ip[6] &&
				   ip[42] == 0xc2 ? 8 : 0;

			FZ_CHECK(!seg && p->len - jumbo - p->l3_off - v6 * 40 >
						 65535,
				 "%u segments refused (E2BIG)", n);
			return;
		}
		FZ_CHECK(h > 0, "xrx_vnet_piece(seg %u, n %u) = %d", seg, per, h);
		FZ_CHECK(po == next, "piece %u payload at %u, want %u", seg,
			 po, next);
		FZ_CHECK(pl > 0 && po + pl <= p->len, "piece %u: %u + %u > %u",
			 seg, po, pl, p->len);
		gather(p, po, pl, F.piece + h);
		next += pl;
		ip_len = (__u32)h + pl;
		if (fit)
			FZ_CHECK(ip_len - ((F.piece[0] >> 4) == 6 ? 40 : 0) <= 65535,
				 "a split piece of %u bytes", ip_len);
		check_ip(F.piece, ip_len, "piece");
		l4o = (__u32)h - (hlen - p->l4_off);
		if (p->l4_proto == XRX_IPPROTO_TCP)
			FZ_CHECK(rd32(F.piece + l4o + 4) == seq0 + (po - hlen),
				 "piece %u: seq", seg);
		check_l4(F.piece, F.piece + l4o, p->l4_proto, ip_len - l4o,
			 vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM, "piece");
		if (n >= 2 && pl > p->gso_size)
			FZ_CHECK(vh.gso_type && vh.gso_size == p->gso_size &&
				 vh.hdr_len == (__u32)h,
				 "piece %u: GSO header", seg);
	}
	FZ_CHECK(next == p->len, "pieces carry payload up to %u of %u", next,
		 p->len);
}

/* VXLAN aggregate @p: the tunnel header, then every segment. */
static void check_tnl(const struct xrx_pkt *p)
{
	__u32 base = p->outer_l3_off, hlen = xrx_vnet_hdr_len(p);
	__u32 nsegs = xrx_vnet_nr_segs(p), seg, next = hlen, po, pl, len;
	__u32 seq0 = rd32(F.whole + p->l4_off + 4);
	__u32 o4 = p->outer_l4_off - base, i3 = p->l3_off - base;
	__u32 th = p->l4_off - base;
	struct xrx_vnet_hdr_tnl vht;
	int h;

	if (!xrx_vnet_tnl_hdr_from_pkt(p, 0, &vht))
		FZ_CHECK(vht.hdr.hdr_len == hlen &&
			 le16toh(vht.outer_th_offset) == p->outer_l4_off &&
			 le16toh(vht.inner_nh_offset) == p->l3_off &&
			 vht.hdr.csum_start == p->l4_off,
			 "tunnel virtio_net_hdr offsets");
	for (seg = 0; seg < nsegs; seg++) {
		h = xrx_vnet_tnl_seg(p, base, seg, F.piece, HDR_CAP, &po, &pl);
		if (h == -EINVAL && !seg)
			return;	/* not one it cuts: offsets out of order */
		FZ_CHECK(h > 0, "xrx_vnet_tnl_seg(%u) = %d", seg, h);
		FZ_CHECK(po == next && pl > 0, "segment %u payload at %u", seg,
			 po);
		gather(p, po, pl, F.piece + h);
		next += pl;
		len = (__u32)h + pl;
		check_ip(F.piece, len, "outer");
		check_ip(F.piece + i3, len - i3, "inner");
		FZ_CHECK(rd32(F.piece + th + 4) == seq0 + (po - hlen),
			 "segment %u: seq", seg);
		check_l4(F.piece + i3, F.piece + th, XRX_IPPROTO_TCP, len - th,
			 false, "inner TCP");
		check_l4(F.piece, F.piece + o4, XRX_IPPROTO_UDP, len - o4,
			 false, "outer UDP");
		FZ_CHECK(!!rd16(F.piece + o4 + 6) ==
				 !!(p->gso_flags & XRX_GSO_F_UDP_TUNNEL_CSUM),
			 "segment %u: outer UDP checksum 0x%04x", seg,
			 rd16(F.piece + o4 + 6));
	}
	FZ_CHECK(next == p->len, "segments carry up to %u of %u", next, p->len);
}

static void on_pkt(void *ctx, struct xrx_pkt *p)
{
	struct virtio_net_hdr vh;
	__u32 hlen, per;
	int err;

	(void)ctx;
	linearize(p);
	if (p->gso_type == XRX_GSO_NONE || !p->l4_off)
		goto out;
	hlen = xrx_vnet_hdr_len(p);
	FZ_CHECK(hlen > p->l4_off && hlen <= p->head_len && hlen < p->len,
		 "aggregate header length %u", hlen);
	FZ_CHECK(xrx_vnet_nr_segs(p) == p->gso_segs,
		 "%u segments, gso_segs %u", xrx_vnet_nr_segs(p), p->gso_segs);
	F.aggs++;
	if (xrx_vnet_is_tnl(p)) {
		F.tnl++;
		check_tnl(p);
		goto out;
	}
	err = xrx_vnet_hdr_from_pkt(p, p->l3_off, &vh);
	FZ_CHECK(!err, "xrx_vnet_hdr_from_pkt() = %d", err);
	FZ_CHECK(vh.hdr_len == hlen - p->l3_off &&
		 vh.csum_start + vh.csum_offset + 2u <= p->len - p->l3_off,
		 "virtio_net_hdr offsets");
	check_pieces(p, 1, true, true);
	check_pieces(p, 1, false, true);
	per = (XRX_VNET_MAX_IP_LEN - (hlen - p->l3_off)) / p->gso_size;
	if (per)
		check_pieces(p, per, false, true);
	check_pieces(p, p->gso_segs, false, false);
out:
	xrx_pkt__release(F.e, p);
}

static void on_release(void *ctx, __u64 addr)
{
	(void)ctx;
	(void)addr;
}

static void submit(void)
{
	int n;

	if (!F.nb)
		return;
	n = xrx_engine__rx(F.e, F.batch, F.nb, F.now);
	FZ_CHECK(n == (int)F.nb, "xrx_engine__rx() = %d of %u", n, F.nb);
	F.nb = 0;
}

/* A slot for the next frame, or NULL when every slot was used. */
static __u8 *slot(void)
{
	if (F.nr == MAX_FRAMES)
		return NULL;
	if (F.nb == BATCH)
		submit();
	return F.region + (size_t)F.nr * SLOT;
}

static void lay(__u32 len)
{
	F.batch[F.nb].addr = (__u64)F.nr * SLOT;
	F.batch[F.nb].len = len;
	F.nb++;
	F.nr++;
}

static void op_template(struct fz *c, __u32 op)
{
	__u32 kind = op & 7, flow = (op >> 3) & 7, p = fz_u8(c), mss = 1400;
	struct frame_spec s;
	struct vxlan_outer o;
	__u8 *buf = slot();
	int len;

	if (!buf)
		return;
	switch (kind) {
	case 0: case 4: case 6:
		frame_spec_tcp4(&s);
		break;
	case 2:
		frame_spec_udp4(&s);
		break;
	case 3:
		frame_spec_udp6(&s);
		break;
	default:
		frame_spec_tcp6(&s);
		break;
	}
	if (kind == 7) {
		s.ext[0].type = 60;
		s.ext[0].len = 8;
		s.nr_ext = 1;
	}
	if (kind >= 4 && kind <= 6)
		mss = 1350;
	s.sport = (__u16)(40000 + flow);
	s.tcp_flags = 0x10 | (p & 1 ? 0x08 : 0) | (p & 8 ? 0x80 : 0);
	if (p & 2)
		F.seq[flow][kind] += 100;
	s.seq = 1000 + F.seq[flow][kind];
	s.ip_id = F.ipid[flow][kind]++;
	s.frag_off = 0x4000;
	s.payload_len = p & 4 ? 1 + fz_u8(c) * 5 : mss;
	s.bad_l4_csum = !!(p & 16);
	s.stream_seed = flow;
	if (kind >= 4 && kind <= 6) {
		vxlan_outer_default(&o, F.ipid[flow][kind]);
		o.sport = (__u16)(49152 + flow);
		o.v6 = kind == 6;
		o.csum_zero = kind != 6;
		len = vxlan_frame_build(&s, &o, buf, SLOT, NULL);
	} else {
		len = frame_build(&s, buf, SLOT);
	}
	if (len <= 0)
		return;
	F.seq[flow][kind] += s.payload_len;
	if (p & 32) {
		__u32 at = fz_u8(c) % (__u32)len;

		buf[at] ^= (__u8)fz_u8(c);
	}
	lay((__u32)len);
}

static void op_raw(struct fz *c)
{
	__u32 want = fz_u16(c) % (SLOT + 1);
	const __u8 *p;
	size_t got;
	__u8 *buf = slot();

	p = fz_bytes(c, want, &got);
	if (!buf || !got)
		return;
	memcpy(buf, p, got);
	lay((__u32)got);
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	struct fz c;
	__u32 b0, op;

	fz_init(&c, data, size);
	memset(F.seq, 0, sizeof(F.seq));
	memset(F.ipid, 0, sizeof(F.ipid));
	F.nb = F.nr = 0;
	F.now = 1000000;
	b0 = fz_u8(&c);
	o.region = F.region;
	o.region_size = sizeof(F.region);
	o.flows = 64;
	o.max_aggregate = max_aggs[(b0 >> 3) & 3];
	o.max_segs = fz_u8(&c);
	o.flush_timeout_us = b0 & 32 ? 1000 : 0;
	o.csum = b0 & 64 ? XRX_CSUM_TRUST : XRX_CSUM_VERIFY;
	o.udp = b0 & 4;
	o.ipv6_jumbo = b0 & 2 ? XRX_IPV6_JUMBO_HBH : XRX_IPV6_JUMBO_ZERO;
	if (b0 & 1) {
		o.vxlan_ports[0] = 4789;
		o.nr_vxlan_ports = 1;
	}
	o.deliver = on_pkt;
	o.release_frame = on_release;
	o.hash_key = (struct xrx_hash_key)FZ_HASH_KEY;
	F.e = xrx_engine__new(&o);
	FZ_CHECK(F.e, "xrx_engine__new: %s", strerror(errno));
	while (fz_left(&c)) {
		op = fz_u8(&c);
		if (op < 0x40) {
			op_raw(&c);
		} else if (op < 0x80) {
			op_template(&c, op);
		} else {
			submit();
			F.now += (op & 63) * 100000ull;
		}
	}
	submit();
	xrx_engine__free(F.e);
	F.e = NULL;
	if (getenv("FUZZ_VNET_VERBOSE"))
		fprintf(stderr, "fuzz_vnet: %llu aggregates checked, %llu VXLAN\n",
			(unsigned long long)F.aggs, (unsigned long long)F.tnl);
	return 0;
}
