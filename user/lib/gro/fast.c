// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one-flow fast path: TCP segments that merge into the aggregate
 * their flow already holds, decided without the full path's per-frame
 * work.
 *
 * The full path (engine.c, receive.c) checks a frame's metadata, derives its
 * lengths, looks its flow up and runs tcp_gro_receive()'s checks one
 * field at a time. When the frame's xrx_meta is byte for byte the one
 * the held aggregate's second segment came with, and its header bytes are
 * those of the held head except the fields that may change from segment
 * to segment, most of those checks have one answer already: same flow
 * (gro_list_prepare(), inet/ipv6_gro_receive(), the ports), and none of
 * the flag, window, ack, option, TTL/hop limit, TOS/traffic class or DF
 * flushes. What is left is checked here: the frame's length against the
 * IP length (inet_gro_receive()'s flush), the IPv4 header checksum, the
 * L4 checksum when verifying, the IP ID rule, the size against mss, the
 * sequence number and the aggregate limit.
 *
 * Consecutive frames of a batch that merge into one aggregate are a run,
 * merged in one loop (xrx_fast_merge()): the aggregate is looked up once,
 * what the frames are compared with is loaded once, and what the merges
 * change is kept in locals and written back once, when the run ends.
 *
 * Any difference, or any of those checks failing, ends the run and sends
 * the frame down the full path, untouched: that path names the flush
 * reason and does everything else. The fast path changes no state before
 * it has decided, and writes back what a run changed before any other
 * code runs, so the two decide the same and count the same
 * (test_gro_property compares them byte for byte, runs of every length
 * and every end among them).
 */
#include "gro/engine_priv.h"
#include "gro/fast.h"

/* The metadata is compared whole but its RX time, as two overlapping
 * vectors. */
XRX_STATIC_ASSERT(sizeof(struct xrx_meta) - XRX_META_CMP_OFF == 24,
		  "fast_meta holds one struct xrx_meta in two vectors");
XRX_STATIC_ASSERT(offsetof(struct xrx_meta, hdrs) == XRX_META_CMP_OFF,
		  "rx_ts first, outside the compare");

void xrx_engine_fast_disable(struct xrx_engine *e, bool off)
{
	e->fast_off = off;
}

static __u32 xrx_fast_key(const struct xrx_seg *s)
{
	return 1u | (__u32)s->lvl[0].ipv6 << 1 | (__u32)s->l3_off << 2 |
	       (__u32)s->l4_off << 10 | (__u32)s->headlen << 18;
}

/* Build the mask of a layout (struct xrx_fast_mask) into @m. */
static void xrx_fast_mask_build(struct xrx_fast_mask *m,
				const struct xrx_seg *s, __u32 key)
{
	__u8 b[XRX_FAST_HDR_MAX];
	__u32 l3 = s->l3_off, l4 = s->l4_off, n = s->headlen, i;

	memset(b, 0, sizeof(b));
	memset(b, 0xff, n);
	if (s->lvl[0].ipv6) {
		memset(b + l3 + XRX_IP6H_PAYLOAD_LEN, 0, 2);
	} else {
		memset(b + l3 + XRX_IPH_TOT_LEN, 0, 4);	/* tot_len, id */
		memset(b + l3 + XRX_IPH_CHECK, 0, 2);
	}
	memset(b + l4 + XRX_TCPH_SEQ, 0, 4);
	memset(b + l4 + XRX_TCPH_CHECK, 0, 4);		/* check, urg_ptr */
	m->nr = (n + 15) / 16;
	for (i = 0; i < m->nr; i++) {
		m->off[i] = i * 16 + 16 <= n ? i * 16 : n - 16;
		memcpy(&m->m[i], b + m->off[i], 16);
	}
	m->key = key;
}

/*
 * An aggregate the full path has just merged @s into, and still holds:
 * may later segments take the fast path into it? Only TCP of one header
 * level (no tunnel), header copy, a segment in one piece whose metadata
 * was taken, and headers the masks cover. Set up at the second segment,
 * not the first: an aggregate that never grows (many flows, few segments
 * per batch each) costs nothing here. @s is the same flow as the head and
 * passed the same checks, so its metadata serves as the first's would.
 */
void xrx_fast_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s)
{
	__u32 key, i, min;

	if (e->fast_off || !s->meta || s->nr_lvls != 1 || s->nr_chunks ||
	    s->l4_proto != XRX_IPPROTO_TCP ||
	    e->opts.copy != XRX_COPY_HEADER || s->headlen < 16 ||
	    s->headlen > XRX_FAST_HDR_MAX || a->pkt.head_len < s->headlen)
		return;
	key = xrx_fast_key(s);
	for (i = 0; i < XRX_FAST_MASKS; i++)
		if (e->fast_masks[i].key == key)
			break;
	if (i == XRX_FAST_MASKS) {
		i = e->fast_next++ % XRX_FAST_MASKS;
		xrx_fast_mask_build(&e->fast_masks[i], s, key);
	}
	/* the headers, and xrx_seg_from_meta()'s length checks */
	min = s->headlen;
	if (s->l4_off + 8u > min)
		min = s->l4_off + 8u;
	if (s->meta->headlen > min)
		min = s->meta->headlen;
	a->fast_slot = i;
	a->fast_key = key;
	a->fast_min_len = min;
	memcpy(&a->fast_meta[0], (const __u8 *)s->meta + XRX_META_CMP_OFF, 16);
	memcpy(&a->fast_meta[1], (const __u8 *)s->meta + XRX_META_CMP_OFF + 8,
	       16);
	if (!s->lvl[0].ipv6) {
		/* the IPv4 header sum without length, ID and checksum */
		const __u8 *ip = a->head + s->l3_off;

		a->fast_ipsum = (__u64)xrx_raw16(ip) + xrx_raw32(ip + 6) +
				xrx_raw32(ip + 12) + xrx_raw32(ip + 16);
	}
	a->fast = true;
}

static __always_inline xrx_fast_vec xrx_fast_load(const __u8 *p)
{
	xrx_fast_vec v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Header bytes of the frame @d that differ from the head @h where the
 * mask says they must not, OR-ed into @acc: vectors 0 .. @last - 1 at
 * 16 * i (aligned in the head, XRX_HEAD_ALIGN), the last at off[@last]
 * (it may overlap the one before).
 */
static __always_inline xrx_fast_vec
xrx_fast_hdr_diff(const struct xrx_fast_mask *mk, __u32 last, const __u8 *d,
		  const __u8 *h, xrx_fast_vec acc)
{
	h = __builtin_assume_aligned(h, 16);
#define XRX_FAST_CMP(i) \
	acc |= (xrx_fast_load(d + 16 * (i)) ^ xrx_fast_load(h + 16 * (i))) & \
	       mk->m[i]
	switch (last & 7) {	/* nr: 1 .. 8 */
	case 7: XRX_FAST_CMP(6); __attribute__((fallthrough));
	case 6: XRX_FAST_CMP(5); __attribute__((fallthrough));
	case 5: XRX_FAST_CMP(4); __attribute__((fallthrough));
	case 4: XRX_FAST_CMP(3); __attribute__((fallthrough));
	case 3: XRX_FAST_CMP(2); __attribute__((fallthrough));
	case 2: XRX_FAST_CMP(1); __attribute__((fallthrough));
	case 1: XRX_FAST_CMP(0); __attribute__((fallthrough));
	case 0: break;
	}
#undef XRX_FAST_CMP
	return acc | ((xrx_fast_load(d + mk->off[last]) ^
		       xrx_fast_load(h + mk->off[last])) & mk->m[last]);
}

/*
 * A run: frames @f, @f + 1, ... before @end that merge, one after the
 * other, into @a, the aggregate @f's flow holds (xrx_fast_run()), each if
 * it qualifies. A later frame whose metadata is the same fast_meta
 * has the same hash, so the same aggregate, as nothing else touches the
 * table during a run. What a merge changes (count, length, fragments,
 * counters) stays in locals until the run ends; what a frame is compared
 * with does not change. What the masked compare leaves open is decided
 * by the full path's own rules (gro.h). Each merged frame takes the
 * batch loop's prefetch step (prefetch.h).
 * Return: frames merged; 0, with nothing changed, if @f must take the
 * full path.
 */
__u32 xrx_fast_merge(struct xrx_engine *e, struct xrx_agg *a,
		     const struct xrx_frame *f, const struct xrx_frame *end,
		     const struct xrx_ahead *ah)
{
	__u32 count, held, len, payload, last, seq0, l3_off, word, k;
	bool verify = e->opts.csum == XRX_CSUM_VERIFY;
	const struct xrx_meta *m = f->meta;
	const struct xrx_fast_mask *mk;
	const struct xrx_frame *stop;
	struct xrx_ahead ahead = *ah;
	const __u8 *d, *h, *l3;
	struct xrx_frag *frag;
	xrx_fast_vec acc;
	__u16 first_id;
	int done = 0;

	mk = &e->fast_masks[a->fast_slot];
	if (mk->key != a->fast_key)
		return 0;
	h = a->head;
	last = mk->nr - 1;
	/* in registers for the run: gcc would rather work them out from the
	 * slot and the aggregate again at every use */
	xrx_hide_var(mk);
	xrx_hide_var(h);
	l3_off = a->lvl[0].l3_off;
	/* at the second segment the ID's kind was decided
	 * (xrx_ipid_flush()): from the third on the next ID is all there is
	 * to check */
	first_id = xrx_get16(h + l3_off + XRX_IPH_ID);
	/* What the merges change: the count and p->len; the next sequence
	 * number follows the length (seq0 + held), the fragments the
	 * count. */
	count = a->count;
	held = a->held_len;
	seq0 = xrx_tcp_next_seq(a) - held;
	frag = &a->frags[a->pkt.nr_frags];
	/* the run stops at the batch's end, or where max_segs completes the
	 * aggregate (held: count < max_segs) */
	stop = e->max_segs - count < (__u32)(end - f) ?
		       f + (e->max_segs - count) : end;
	for (;;) {
		/* The metadata compared whole, then the header bytes: same
		 * flow, same flags, window, ack, options, TTL, TOS, DF. */
		acc = (xrx_fast_load((const __u8 *)m + XRX_META_CMP_OFF) ^
		       a->fast_meta[0]) |
		      (xrx_fast_load((const __u8 *)m + XRX_META_CMP_OFF + 8) ^
		       a->fast_meta[1]);
		len = f->len;
		if (f->addr > ahead.region_size ||
		    len > ahead.region_size - f->addr || len < a->fast_min_len)
			break;
		d = ahead.region + f->addr;
		acc = xrx_fast_hdr_diff(mk, last, d, h, acc);
		if (acc[0] | acc[1])
			break;
		/* The IP length is the frame's: no padding, nothing missing
		 * (else inet_gro_receive() flushes; len >= headlen:
		 * fast_min_len). */
		l3 = d + l3_off;
		if (a->lvl[0].ipv6) {
			if (l3_off + XRX_IP6H_LEN +
				    xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN) != len)
				break;
		} else {
			/* tot_len and the ID (xrx_ipid_next()) as one word;
			 * a length past 16 bits never matches */
			word = xrx_get32(l3 + XRX_IPH_TOT_LEN);
			if (word != ((__u64)(len - l3_off) << 16 |
				     xrx_ipid_next(first_id, count, a->fixedid,
						   1)))
				break;
			/* ip_fast_csum(): the rest of the header is the
			 * head's */
			if (!xrx_csum64_ok(a->fast_ipsum +
					   xrx_raw32(l3 + XRX_IPH_TOT_LEN) +
					   xrx_raw16(l3 + XRX_IPH_CHECK)))
				break;
		}
		payload = len - a->pkt.headlen;
		if (xrx_tcp_seq_check(seq0 + held, a->mss,
				      xrx_get32(d + a->lvl[0].l4_off +
						XRX_TCPH_SEQ),
				      payload) ||
		    xrx_too_big(held, payload, a->limit))
			break;
		if (verify && !xrx_l4_csum_ok_flat(l3, d + a->lvl[0].l4_off,
					 a->lvl[0].ipv6, XRX_IPPROTO_TCP,
					 len - a->lvl[0].l4_off))
			break;

		/* Merge, as xrx_engine_frame() and xrx_gro_merge() would.
		 * FIN and PSH are not set: the flags equal the head's, which
		 * has none. */
		xrx_frag_set(frag++, d + a->pkt.headlen, payload, f->addr);
		xrx_agg_seg_time(a, count, f->ts_ns,
				 f->flags & XRX_FRAME_F_TS_NIC);
		count++;
		held += payload;
		xrx_prefetch_step(&ahead, f);
		/* xrx_complete_reason() without the flags: none is set */
		if (++f == stop || payload < a->mss) {
			done = xrx_complete_len(payload, a->mss, count,
						e->max_segs);
			break;
		}
		m = f->meta;
		if (!m || (f->flags & XRX_FRAME_F_CHAIN))
			break;
	}
	k = count - a->count;
	if (!k)
		return 0;
	/* the run's merges: its frames counted as they came, its segments
	 * as merged */
	xrx_count_frames(e, k, held - a->held_len + (__u64)k * a->pkt.headlen);
	a->pkt.nr_frags += k;
	xrx_agg_grow(e, a, k, held - a->held_len);
	a->seg_csum_ok &= verify;	/* the run checked each, or none */
	e->fast_merged += k;
	e->fast_runs++;
	if (done)
		xrx_deliver(e, a, done);
	return k;
}
