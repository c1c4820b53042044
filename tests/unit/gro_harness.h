/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the GRO engine's unit tests: a region of 2 KiB frame slots
 * filled with user/util/frames.h, an engine whose deliver callback
 * flattens every packet, a release callback that counts per frame, and
 * an independent computation of what an aggregate of given frames must
 * look like (headers fixed up as the kernel's *_gro_complete() do,
 * payloads concatenated).
 */
#ifndef XRX_TESTS_GRO_HARNESS_H
#define XRX_TESTS_GRO_HARNESS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/parse.h>
#include "util/frames.h"

#define H_SLOT 2048
#define H_FRAMES 400
#define H_REGION (H_SLOT * H_FRAMES)
#define H_OUTS (2 * H_FRAMES)

struct h_out {
	__u8 *bytes;
	__u32 len;
	struct xrx_pkt pkt;	/* a copy: its pointers are not valid */
};

struct harness {
	__u8 *region;
	struct frame_spec spec[H_FRAMES];
	struct frame_info info[H_FRAMES];
	struct xrx_frame frames[H_FRAMES];
	int nr;
	int released[H_FRAMES];
	struct h_out out[H_OUTS];
	int nr_out;
	struct xrx_engine *e;
	__u64 stats[XRX_ENGINE_STAT_MAX];
	int keep;		/* do not release packets in deliver() */
	struct xrx_pkt *kept[H_OUTS];
	int nr_kept;
};

/*
 * The flow hash key of a harness engine unless the test gives one
 * (h_new()): what metadata the tests build with xrx_parse() hashes with.
 */
static const struct xrx_hash_key h_key = {
	{ 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL }
};

static inline void h_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct harness *h = ctx;
	struct h_out *o;
	__u32 i, off;

	assert_true(h->nr_out < H_OUTS);
	o = &h->out[h->nr_out++];
	o->pkt = *pkt;
	o->len = pkt->len;
	o->bytes = malloc(pkt->len ? pkt->len : 1);
	assert_non_null(o->bytes);
	memcpy(o->bytes, pkt->head, pkt->head_len);
	off = pkt->head_len;
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(o->bytes + off, pkt->frags[i].data, pkt->frags[i].len);
		off += pkt->frags[i].len;
	}
	assert_int_equal(off, pkt->len);
	if (h->keep)
		h->kept[h->nr_kept++] = pkt;
	else
		xrx_pkt__release(h->e, pkt);
}

static inline void h_release(void *ctx, __u64 addr)
{
	struct harness *h = ctx;

	assert_true(addr % H_SLOT == 0 && addr / H_SLOT < H_FRAMES);
	h->released[addr / H_SLOT]++;
}

static inline struct harness *h_new(struct xrx_engine_opts *o)
{
	struct harness *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	h->region = calloc(1, H_REGION);
	assert_non_null(h->region);
	o->sz = sizeof(*o);
	o->region = h->region;
	o->region_size = H_REGION;
	o->deliver = h_deliver;
	o->release_frame = h_release;
	o->ctx = h;
	if (xrx_hash_key_unset(&o->hash_key))
		o->hash_key = h_key;
	h->e = xrx_engine__new(o);
	assert_non_null(h->e);
	return h;
}

static inline void h_free(struct harness *h)
{
	int i;

	xrx_engine__free(h->e);
	for (i = 0; i < h->nr_out; i++)
		free(h->out[i].bytes);
	free(h->region);
	free(h);
}

/* Build frame @i from @s into its slot. */
static inline void h_build(struct harness *h, int i, const struct frame_spec *s)
{
	int len;

	assert_true(i < H_FRAMES);
	h->spec[i] = *s;
	len = frame_build_info(s, h->region + (size_t)i * H_SLOT, H_SLOT,
			       &h->info[i]);
	assert_true(len > 0);
	h->frames[i].addr = (__u64)i * H_SLOT;
	h->frames[i].len = len;
	h->frames[i].meta = NULL;
	if (i >= h->nr)
		h->nr = i + 1;
}

static inline const __u8 *h_frame(const struct harness *h, int i)
{
	return h->region + (size_t)i * H_SLOT;
}

/* The parse of frame @i, its hash keyed as the engine's (h_key). */
static inline void h_parse(const struct harness *h, int i,
			   struct xrx_parsed *r)
{
	__u32 len = h->frames[i].len;

	xrx_parse(h_frame(h, i), len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW,
		  len, r, &h_key);
}

static inline void h_rx(struct harness *h, int first, int n, __u64 now)
{
	assert_int_equal(xrx_engine__rx(h->e, &h->frames[first], n, now), n);
	xrx_engine__stats(h->e, h->stats);
}

static inline __u64 h_stat(struct harness *h, int stat)
{
	xrx_engine__stats(h->e, h->stats);
	return h->stats[stat];
}

/* Every frame built was released exactly once. */
static inline void h_assert_released_once(const struct harness *h)
{
	int i;

	for (i = 0; i < h->nr; i++)
		if (h->released[i] != 1)
			fail_msg("frame %d released %d times", i,
				 h->released[i]);
}

/* Plain 16-bit big-endian word sum, written apart from libxrx's. */
static inline __u32 h_sum16(const __u8 *p, __u32 len, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

static inline __u16 h_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static inline void h_wr16(__u8 *p, __u32 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/*
 * What the aggregate of the frames in @idx[0..n) must be: the first
 * frame's headers with IP length, IPv4 header checksum, FIN/PSH, UDP
 * length and the pseudo-header sum in the L4 checksum (tcp4_gro_complete()
 * etc.), then every frame's payload. One frame: the frame itself.
 * Return: a malloc()ed buffer, its length in *len.
 */
static __u8 *h_expect(const struct harness *h, const int *idx, int n,
		      __u32 *len)
{
	const struct frame_info *fi = &h->info[idx[0]];
	const struct frame_spec *s = &h->spec[idx[0]];
	__u32 total = fi->payload_off, off, l4len, iplen, sum;
	__u8 *b, *ip, *l4, fl = 0;
	int k;

	for (k = 0; k < n; k++)
		total += h->info[idx[k]].payload_len;
	if (n == 1)
		total = h->frames[idx[0]].len;
	b = malloc(total);
	assert_non_null(b);
	if (n == 1) {
		memcpy(b, h_frame(h, idx[0]), total);
		*len = total;
		return b;
	}
	memcpy(b, h_frame(h, idx[0]), fi->payload_off);
	off = fi->payload_off;
	for (k = 0; k < n; k++) {
		const struct frame_info *f = &h->info[idx[k]];

		memcpy(b + off, h_frame(h, idx[k]) + f->payload_off,
		       f->payload_len);
		off += f->payload_len;
		if (h->spec[idx[k]].l4 == 6)
			fl |= h_frame(h, idx[k])[f->l4_off + 13] & 0x09;
	}
	ip = b + fi->l3_off;
	l4 = b + fi->l4_off;
	iplen = total - fi->l3_off;
	l4len = total - fi->l4_off;
	if (s->family == 4) {
		h_wr16(ip + 2, iplen > 65535 ? 0 : iplen);
		h_wr16(ip + 10, 0);
		h_wr16(ip + 10, (__u16)~h_fold(h_sum16(ip, 20, 0)));
		sum = h_sum16(ip + 12, 8, 0);
	} else {
		h_wr16(ip + 4, iplen - 40 > 65535 ? 0 : iplen - 40);
		sum = h_sum16(ip + 8, 32, 0);
	}
	sum += s->l4 + (l4len >> 16) + (l4len & 0xffff);
	if (s->l4 == 6) {
		l4[13] |= fl;
		h_wr16(l4 + 16, h_fold(sum));
	} else {
		h_wr16(l4 + 4, l4len);
		h_wr16(l4 + 6, h_fold(sum));
	}
	*len = total;
	return b;
}

static inline void h_assert_bytes(const __u8 *got, __u32 got_len, const __u8 *want,
			   __u32 want_len, const char *what)
{
	__u32 i;

	if (got_len != want_len)
		fail_msg("%s: %u bytes, want %u", what, got_len, want_len);
	for (i = 0; i < got_len; i++)
		if (got[i] != want[i])
			fail_msg("%s: byte %u is 0x%02x, want 0x%02x", what, i,
				 got[i], want[i]);
}

/* Output @o is the aggregate of frames idx[0..n): bytes and GSO info. */
static inline void h_assert_out(const struct harness *h, int o, const int *idx,
			 int n)
{
	const struct h_out *out;
	char what[64];
	__u32 len;
	__u8 *want;

	if (o >= h->nr_out)
		fail_msg("packet %d not delivered (%d delivered)", o,
			 h->nr_out);
	out = &h->out[o];
	snprintf(what, sizeof(what), "packet %d (first frame %d, %d segs)", o,
		 idx[0], n);
	if (out->pkt.gso_segs != n)
		fail_msg("%s: gso_segs %u", what, out->pkt.gso_segs);
	want = h_expect(h, idx, n, &len);
	h_assert_bytes(out->bytes, out->len, want, len, what);
	free(want);
	if (n == 1) {
		assert_int_equal(out->pkt.gso_type, XRX_GSO_NONE);
		return;
	}
	assert_int_equal(out->pkt.gso_size, h->info[idx[0]].payload_len);
	assert_int_equal(out->pkt.csum, XRX_PKT_CSUM_PARTIAL);
	assert_int_equal(out->pkt.csum_start, h->info[idx[0]].l4_off);
	if (h->spec[idx[0]].l4 == 17)
		assert_int_equal(out->pkt.gso_type, XRX_GSO_UDP_L4);
	else
		assert_int_equal(out->pkt.gso_type, h->spec[idx[0]].family == 4 ?
							    XRX_GSO_TCPV4 :
							    XRX_GSO_TCPV6);
}

/* Parse "0-2 3" / "1 0,2" into packets of frame indexes. */
static inline int h_parse_outs(const char *p, int idx[][H_FRAMES], int *cnt)
{
	int n = 0, a, b, used;

	while (*p) {
		cnt[n] = 0;
		while (*p && *p != ' ') {
			if (sscanf(p, "%d-%d%n", &a, &b, &used) == 2) {
				p += used;
			} else {
				assert_int_equal(sscanf(p, "%d%n", &a, &used),
						 1);
				b = a;
				p += used;
			}
			for (; a <= b; a++)
				idx[n][cnt[n]++] = a;
			if (*p == ',')
				p++;
		}
		while (*p == ' ')
			p++;
		n++;
	}
	return n;
}

/* Every delivered packet counted in exactly one reason counter. */
static inline void h_assert_reasons_add_up(struct harness *h)
{
	__u64 sum = 0;
	int i;

	xrx_engine__stats(h->e, h->stats);
	for (i = XRX_ENGINE_STAT_FLUSH_CWR; i <= XRX_ENGINE_STAT_CSUM_BAD; i++)
		sum += h->stats[i];
	/* VXLAN's own reasons */
	for (i = XRX_ENGINE_STAT_FLUSH_OUTER_TTL;
	     i <= XRX_ENGINE_STAT_SINGLE_VXLAN_INNER; i++)
		sum += h->stats[i];
	/* GENEVE's */
	for (i = XRX_ENGINE_STAT_SINGLE_GENEVE_SHORT;
	     i <= XRX_ENGINE_STAT_SINGLE_GENEVE_INNER; i++)
		sum += h->stats[i];
	assert_int_equal(sum, h->stats[XRX_ENGINE_STAT_PKTS_OUT]);
	assert_int_equal(h->stats[XRX_ENGINE_STAT_PKTS_OUT], h->nr_out);
}

/* Run a cmocka group whose tests are built at run time. */
static inline int h_run_group(const char *name, struct CMUnitTest *tests, size_t n)
{
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}

#endif /* XRX_TESTS_GRO_HARNESS_H */
