// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Segment records: what splitting an aggregate rebuilds of each segment,
 * and the few bytes in which the real segment differs from that, so that
 * a capture of aggregates loses nothing (docs/lossless.md).
 *
 * The rebuild (xrx_segrec_base(), then xrx_segrec_finish()) is the one
 * definition both sides use: the recorder encodes against it, the split
 * (xrx_segrec__split()) applies it. It follows the kernel's GSO
 * segmentation (tcp_gso_segment(), inet_gso_segment(),
 * ipv6_gso_segment(), __udp_gso_segment()): each segment gets the
 * aggregate's headers, then its own IP length, IPv4 ID (first + i unless
 * the aggregate is fixed-ID), TCP sequence number, CWR only on the first
 * and PSH/FIN only on the last segment, UDP length, and freshly computed
 * checksums. What a sender did differently (a checksum left for offload,
 * an ID that jumps, a flag) is in the record's byte runs.
 *
 * The record (docs/lossless.md has the byte layout):
 *   version, n, hlen, aoff - hlen, l3_off, l4_off, kind,
 *   then per segment: payload length (zigzag delta from the previous
 *   one's), arrival time (zigzag ns delta from the previous one's, the
 *   first's from the block's timestamp), runs, and each run as
 *   (gap from the previous run's end, length - 1, bytes).
 * All numbers are unsigned LEB128 varints. A bulk TCP segment costs 3 to
 * 5 bytes: 0 for its length, its time delta, 0 runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xrx/bytes.h>
#include <xrx/hdr.h>
#include <xrx/engine.h>

#include "gro/gro.h"
#include "gro/segrec.h"

/* A segment header is at most this long: the engine's head buffer. */
#define SEGREC_HDR_MAX XRX_HEAD_SIZE

static __u64 zz_enc(__s64 v)
{
	return ((__u64)v << 1) ^ (__u64)(v >> 63);
}

static __s64 zz_dec(__u64 v)
{
	return (__s64)(v >> 1) ^ -(__s64)(v & 1);
}

/*
 * The next payload length: @prev plus the zigzag delta @zz, which comes
 * from the file. A delta that leaves [0, @max] is malformed (*@bad); the
 * sum is never formed then, so no delta can overflow it.
 */
static __u32 plen_next(__u32 prev, __u64 zz, __u32 max, bool *bad)
{
	__s64 d = zz_dec(zz);

	if (d < -(__s64)prev || d > (__s64)max - (__s64)prev) {
		*bad = true;
		return 0;
	}
	return (__u32)((__s64)prev + d);
}

struct wbuf {
	__u8 *p;
	__u32 len, max;
	bool over;
};

static void put_byte(struct wbuf *w, __u8 b)
{
	if (w->len < w->max)
		w->p[w->len++] = b;
	else
		w->over = true;
}

static void put_var(struct wbuf *w, __u64 v)
{
	while (v >= 0x80) {
		put_byte(w, (__u8)(v | 0x80));
		v >>= 7;
	}
	put_byte(w, (__u8)v);
}

struct rbuf {
	const __u8 *p;
	__u32 len, pos;
	bool bad;
};

static __u64 get_var(struct rbuf *r)
{
	__u64 v = 0;
	__u32 shift = 0;
	__u8 b;

	do {
		if (r->pos >= r->len || shift > 63) {
			r->bad = true;
			return 0;
		}
		b = r->p[r->pos++];
		v |= (__u64)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

static bool segrec_layout_ok(const struct xrx_segrec_layout *l)
{
	bool v6 = l->kind & XRX_SEGREC_K_IPV6;
	__u32 l4_len = (l->kind & XRX_SEGREC_K_UDP) ? XRX_UDPH_LEN :
						      XRX_TCPH_LEN;

	/* each offset bounded first, so no sum below can wrap: a file's
	 * record gives them */
	if (l->kind & ~XRX_SEGREC_K_ALL || l->hlen > SEGREC_HDR_MAX ||
	    l->l3_off > l->hlen || l->l4_off > l->hlen ||
	    l->l3_off + (v6 ? XRX_IP6H_LEN : XRX_IPH_LEN) > l->l4_off ||
	    l->l4_off + l4_len > l->hlen)
		return false;
	/* the one insertion an aggregate's header has: an IPv6 jumbo
	 * option right after the fixed header */
	return l->aoff == l->hlen ||
	       (v6 && l->aoff == l->hlen + XRX_HBH_JUMBO_LEN);
}

/* The L4 checksum field's offset from the TCP/UDP header. */
static __u32 segrec_l4_check(const struct xrx_segrec_layout *l)
{
	return (l->kind & XRX_SEGREC_K_UDP) ? XRX_UDPH_CHECK : XRX_TCPH_CHECK;
}

/*
 * Segment @i of @n, @off payload bytes of the aggregate before it, @plen
 * of its own: the aggregate's header @ahdr (l->aoff bytes) made that
 * segment's, checksums aside, into @out (l->hlen bytes).
 */
static void xrx_segrec_base(const struct xrx_segrec_layout *l,
			    const __u8 *ahdr, __u32 i, __u32 n, __u32 off,
			    __u32 plen, __u8 *out)
{
	__u32 nh = l->l3_off + XRX_IP6H_LEN;
	__u8 *ip = out + l->l3_off, *l4 = out + l->l4_off, fl;

	if (l->aoff == l->hlen) {
		memcpy(out, ahdr, l->hlen);
	} else {
		/* without the jumbo option; its next header is the TCP one */
		memcpy(out, ahdr, nh);
		memcpy(out + nh, ahdr + nh + XRX_HBH_JUMBO_LEN, l->hlen - nh);
		ip[XRX_IP6H_NEXTHDR] = ahdr[nh + XRX_IP6OPT_NEXTHDR];
	}
	if (l->kind & XRX_SEGREC_K_IPV6) {
		xrx_put16(ip + XRX_IP6H_PAYLOAD_LEN,
			  l->hlen - nh + plen);
	} else {
		xrx_put16(ip + XRX_IPH_TOT_LEN, l->hlen - l->l3_off + plen);
		if (!(l->kind & XRX_SEGREC_K_FIXEDID))
			xrx_put16(ip + XRX_IPH_ID,
				  xrx_get16(ip + XRX_IPH_ID) + i);
	}
	if (l->kind & XRX_SEGREC_K_UDP) {
		xrx_put16(l4 + XRX_UDPH_LEN_OFF, l->hlen - l->l4_off + plen);
		return;
	}
	xrx_put32(l4 + XRX_TCPH_SEQ, xrx_get32(l4 + XRX_TCPH_SEQ) + off);
	fl = l4[XRX_TCPH_FLAGS];
	if (i > 0)
		fl &= ~XRX_TH_CWR;
	if (i + 1 < n)
		fl &= ~(XRX_TH_PSH | XRX_TH_FIN);
	l4[XRX_TCPH_FLAGS] = fl;
}

/*
 * The checksums of the segment header @out whose payload is @plen bytes
 * at @payload, unless the record gives the field (@keep_ip, @keep_l4):
 * the IPv4 header checksum (a 20-byte header), and the TCP/UDP checksum
 * if the whole payload is at hand (@whole).
 */
static void xrx_segrec_finish(const struct xrx_segrec_layout *l, __u8 *out,
			      const __u8 *payload, __u32 plen, bool whole,
			      bool keep_ip, bool keep_l4)
{
	bool v6 = l->kind & XRX_SEGREC_K_IPV6;
	__u8 *ip = out + l->l3_off, *l4 = out + l->l4_off;
	__u32 l4_hlen = l->hlen - l->l4_off, sum, c = segrec_l4_check(l);
	__u16 check;

	if (!v6 && !keep_ip && ip[XRX_IPH_VIHL] == 0x45)
		xrx_ipv4_csum_set(ip);
	if (!whole || keep_l4)
		return;
	l4[c] = 0;
	l4[c + 1] = 0;
	sum = xrx_csum_pseudo(ip, v6, (l->kind & XRX_SEGREC_K_UDP) ?
					      XRX_IPPROTO_UDP :
					      XRX_IPPROTO_TCP,
			      l4_hlen + plen);
	sum = xrx_csum_add(l4, l4_hlen, sum);
	sum = xrx_csum_add(payload, plen, sum);
	check = ~xrx_csum_fold(sum);
	if (!check && (l->kind & XRX_SEGREC_K_UDP))
		check = 0xffff;		/* RFC 768: 0 means none */
	xrx_put16(l4 + c, check);
}

static bool segrec_csum_ambiguous(const __u8 *c)
{
	__u16 v = xrx_get16(c);

	return v == 0 || v == 0xffff;
}

/* Do bytes [a, a + 2) meet a run of the mask? */
static bool segrec_marked(const __u8 *mask, __u32 a)
{
	return mask[a] || mask[a + 1];
}

int xrx_segrec_encode(const struct xrx_segrec_layout *l, const __u8 *ahdr,
		      __u32 cap, const struct xrx_segrec_seg *segs, __u32 n,
		      __u64 ts_ns, __u8 ok, __u8 *out, __u32 max)
{
	__u8 base[SEGREC_HDR_MAX], mask[SEGREC_HDR_MAX];
	__u32 i, j, k, runs, off = 0, prev_plen = 0, ipc, l4c, end;
	struct wbuf w = { .p = out, .max = max };
	__u64 prev_ts = ts_ns;
	const __u8 *f;
	bool kip, kl4;

	if (!segrec_layout_ok(l) || !n)
		return -EINVAL;
	ipc = l->l3_off + XRX_IPH_CHECK;
	l4c = l->l4_off + segrec_l4_check(l);
	put_byte(&w, XRX_SEGREC_VERSION);
	put_var(&w, n);
	put_var(&w, l->hlen);
	put_var(&w, l->aoff - l->hlen);
	put_var(&w, l->l3_off);
	put_var(&w, l->l4_off);
	put_byte(&w, l->kind);
	for (i = 0; i < n; i++) {
		__u32 plen = segs[i].len - l->hlen;
		bool whole = (__u64)l->aoff + off + plen <= cap;

		f = segs[i].frame;
		if (segs[i].len < l->hlen)
			return -EINVAL;
		xrx_segrec_base(l, ahdr, i, n, off, plen, base);
		/* what differs but the checksums, then the checksums over
		 * the segment as those bytes make it */
		for (j = 0; j < l->hlen; j++)
			mask[j] = base[j] != f[j];
		mask[l4c] = mask[l4c + 1] = 0;
		if (!(l->kind & XRX_SEGREC_K_IPV6))
			mask[ipc] = mask[ipc + 1] = 0;
		for (j = 0; j < l->hlen; j++)
			if (mask[j])
				base[j] = f[j];
		/* A checksum the engine verified is what the rebuild computes
		 * over these bytes: no need to sum the payload again (but for
		 * 0x0000 and 0xffff, which both verify: ones' complement
		 * zero). One it did not verify (csum = trust) goes into the
		 * record as it is, rather than summing every payload the
		 * engine was told not to. What the split does not compute
		 * (!whole) is compared below as it stands. */
		kip = (ok & XRX_SEGREC_OK_IP) && !segrec_csum_ambiguous(f + ipc);
		kl4 = whole && !((ok & XRX_SEGREC_OK_L4) &&
				 segrec_csum_ambiguous(f + l4c));
		if (kip && !(l->kind & XRX_SEGREC_K_IPV6))
			memcpy(base + ipc, f + ipc, 2);
		if (kl4)
			memcpy(base + l4c, f + l4c, 2);
		xrx_segrec_finish(l, base, f + l->hlen, plen, whole, kip, kl4);
		if (kl4 && !(ok & XRX_SEGREC_OK_L4))
			mask[l4c] = mask[l4c + 1] = 1;
		if (base[l4c] != f[l4c] || base[l4c + 1] != f[l4c + 1])
			mask[l4c] = mask[l4c + 1] = 1;
		if (!(l->kind & XRX_SEGREC_K_IPV6) &&
		    (base[ipc] != f[ipc] || base[ipc + 1] != f[ipc + 1]))
			mask[ipc] = mask[ipc + 1] = 1;

		put_var(&w, zz_enc((__s64)plen - (__s64)prev_plen));
		put_var(&w, zz_enc((__s64)(segs[i].ts_ns - prev_ts)));
		for (runs = 0, j = 0; j < l->hlen; j++)
			runs += mask[j] && (!j || !mask[j - 1]);
		put_var(&w, runs);
		for (end = 0, j = 0; j < l->hlen; j = k) {
			if (!mask[j]) {
				k = j + 1;
				continue;
			}
			for (k = j; k < l->hlen && mask[k]; k++)
				;
			put_var(&w, j - end);
			put_var(&w, k - j - 1);
			while (j < k)
				put_byte(&w, f[j++]);
			end = k;
		}
		off += plen;
		prev_plen = plen;
		prev_ts = segs[i].ts_ns;
	}
	return w.over ? -E2BIG : (int)w.len;
}

/*
 * Read the runs of a segment at @r into @hdr (NULL: only check them)
 * and mark them in @mask. Return: false if they are malformed.
 */
static bool segrec_runs(struct rbuf *r, __u32 runs, __u32 hlen, __u8 *hdr,
			__u8 *mask)
{
	__u32 end = 0, gap, len, k;

	for (k = 0; k < runs; k++) {
		gap = (__u32)get_var(r);
		len = (__u32)get_var(r) + 1;
		if (r->bad || gap > hlen || len > hlen ||
		    end + gap + len > hlen || r->pos + len > r->len)
			return false;
		end += gap;
		if (hdr)
			memcpy(hdr + end, r->p + r->pos, len);
		memset(mask + end, 1, len);
		r->pos += len;
		end += len;
	}
	return true;
}

int xrx_segrec__split(const __u8 *agg, __u32 cap, __u32 len, __u64 ts_ns,
		      const __u8 *rec, __u32 rec_len, xrx_segrec_emit_fn emit,
		      void *ctx)
{
	struct rbuf r = { .p = rec, .len = rec_len };
	__u8 hdr[SEGREC_HDR_MAX], mask[SEGREC_HDR_MAX];
	struct xrx_segrec_layout l;
	__u32 n, i, off, plen, avail, maxp = 0, ipc, l4c, frame_cap;
	__u64 ts, total, v;
	size_t run_start;
	__u8 *buf;
	int ret = 0;

	if (rec_len < 1 || rec[0] != XRX_SEGREC_VERSION)
		return -EINVAL;
	r.pos = 1;
	n = (__u32)get_var(&r);
	l.hlen = (__u32)get_var(&r);
	v = get_var(&r);
	l.aoff = l.hlen + (__u32)(v > 8 ? 9 : v);
	l.l3_off = (__u32)get_var(&r);
	l.l4_off = (__u32)get_var(&r);
	if (r.pos >= r.len || r.bad || !n || n > XRX_SEGREC_MAX)
		return -EINVAL;
	l.kind = rec[r.pos++];
	if (!segrec_layout_ok(&l) || cap < l.aoff || cap > len)
		return -EINVAL;
	/* Check it all before emitting anything: the lengths must add up
	 * to the aggregate's. */
	run_start = r.pos;
	plen = 0;
	total = l.aoff;
	for (i = 0; i < n; i++) {
		__u32 runs;

		plen = plen_next(plen, get_var(&r), len, &r.bad);
		get_var(&r);
		runs = (__u32)get_var(&r);
		if (r.bad || runs > l.hlen ||
		    !segrec_runs(&r, runs, l.hlen, NULL, mask))
			return -EINVAL;
		total += plen;
		if (plen > maxp)
			maxp = plen;
	}
	if (r.pos != r.len || total != len)
		return -EINVAL;
	buf = malloc(l.hlen + maxp + 1);
	if (!buf)
		return -ENOMEM;
	ipc = l.l3_off + XRX_IPH_CHECK;
	l4c = l.l4_off + segrec_l4_check(&l);
	r.pos = run_start;
	plen = 0;
	off = 0;
	ts = ts_ns;
	for (i = 0; i < n && !ret; i++) {
		__u32 runs;

		plen = plen_next(plen, get_var(&r), len, &r.bad);
		ts += (__u64)zz_dec(get_var(&r));
		runs = (__u32)get_var(&r);
		xrx_segrec_base(&l, agg, i, n, off, plen, hdr);
		memset(mask, 0, l.hlen);
		segrec_runs(&r, runs, l.hlen, hdr, mask);
		/* the payload there is of it, from the aggregate */
		avail = l.aoff + off >= cap ? 0 :
			cap - (l.aoff + off) < plen ? cap - (l.aoff + off) :
						      plen;
		memcpy(buf, hdr, l.hlen);
		memcpy(buf + l.hlen, agg + l.aoff + off, avail);
		xrx_segrec_finish(&l, buf, buf + l.hlen, plen, avail == plen,
				  !(l.kind & XRX_SEGREC_K_IPV6) &&
					  segrec_marked(mask, ipc),
				  segrec_marked(mask, l4c));
		frame_cap = l.hlen + avail;
		ret = emit(ctx, buf, frame_cap, l.hlen + plen, ts);
		off += plen;
	}
	free(buf);
	return ret;
}

/*
 * The engine's side. A delivered aggregate of header-only copy keeps
 * every segment's frame in place: its head is the first frame's header
 * (all of it that was copied, XRX_COPY_HEADER), and fragment i is
 * segment i's payload, right behind that segment's header in its frame
 * (head.c, fast.c). So segment i's frame starts seg_hlen bytes before
 * fragment i. The engine noted at the start whether that holds.
 */
int xrx_pkt_segs(const struct xrx_pkt *pkt, struct xrx_segrec_seg *segs,
		 __u32 max, __u32 *hlen, __u8 *ok)
{
	const struct xrx_agg *a = container_of_agg(pkt);
	__u32 i, n = pkt->gso_segs > 1 ? pkt->gso_segs : 1;
	const __u8 *base;

	if (n > max)
		return -E2BIG;
	*hlen = a->seg_hlen;
	*ok = XRX_SEGREC_OK_IP | (a->seg_csum_ok ? XRX_SEGREC_OK_L4 : 0);
	if (n == 1) {
		segs[0] = (struct xrx_segrec_seg){ .addr = a->first_addr,
						   .ts_ns = pkt->ts_ns };
		return 1;
	}
	if (!a->seg_inplace || pkt->nr_frags != n)
		return -ENODATA;
	/* the same distance from every frame's address to its fragment: the
	 * frames are where fragment - seg_hlen says */
	base = pkt->frags[0].data - pkt->frags[0].addr;
	for (i = 0; i < n; i++) {
		const struct xrx_frag *f = &pkt->frags[i];

		if (f->data - f->addr != base)
			return -ENODATA;
		segs[i].frame = f->data - a->seg_hlen;
		segs[i].len = a->seg_hlen + f->len;
		segs[i].addr = f->addr;
		segs[i].ts_ns = i < a->max_ts ? a->seg_ts[i] : pkt->ts_last_ns;
	}
	return (int)n;
}

int xrx_segrec_layout_of(const struct xrx_pkt *pkt, __u32 hlen,
			 struct xrx_segrec_layout *l)
{
	/* the rebuild's IP header is the innermost: a tunnel's inner one */
	__u8 fixed = pkt->outer_l3_off ? XRX_GSO_F_FIXEDID_INNER :
					 XRX_GSO_F_FIXEDID;
	bool v6;

	if (pkt->gso_segs < 2 || pkt->vlan_proto ||
	    (pkt->l4_proto != XRX_IPPROTO_TCP &&
	     pkt->l4_proto != XRX_IPPROTO_UDP))
		return -EOPNOTSUPP;
	v6 = (pkt->head[pkt->l3_off] >> 4) == 6;
	*l = (struct xrx_segrec_layout){
		.hlen = hlen,
		.aoff = pkt->head_len,
		.l3_off = pkt->l3_off,
		.l4_off = pkt->l4_off - (pkt->head_len - hlen),
		.kind = (v6 ? XRX_SEGREC_K_IPV6 : 0) |
			(pkt->l4_proto == XRX_IPPROTO_UDP ? XRX_SEGREC_K_UDP :
							    0) |
			((pkt->gso_flags & fixed) ? XRX_SEGREC_K_FIXEDID : 0),
	};
	return segrec_layout_ok(l) ? 0 : -EOPNOTSUPP;
}
