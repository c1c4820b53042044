// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one-flow fast path: a TCP segment that merges into the aggregate
 * its flow already holds, decided without the full path's per-frame work.
 *
 * The full path (engine.c, gro.c) checks a frame's metadata, derives its
 * lengths, looks its flow up and runs tcp_gro_receive()'s checks one
 * field at a time. When the frame's xrx_meta is byte for byte the one
 * the held aggregate's first segment came with, and its header bytes are
 * those of the held head except the fields that may change from segment
 * to segment, most of those checks have one answer already: same flow
 * (gro_list_prepare(), inet/ipv6_gro_receive(), the ports), and none of
 * the flag, window, ack, option, TTL/hop limit, TOS/traffic class or DF
 * flushes. What is left is checked here: the frame's length against the
 * IP length (inet_gro_receive()'s flush), the IPv4 header checksum, the
 * L4 checksum when verifying, the IP ID rule, the size against mss, the
 * sequence number and the aggregate limit.
 *
 * Any difference, or any of those checks failing, sends the frame down
 * the full path, untouched: that path names the flush reason and does
 * everything else. The fast path changes no state before it has decided,
 * so the two decide the same and count the same (test_gro_property
 * compares them byte for byte).
 */
#include "gro/engine_priv.h"

void xrx_engine_fast_disable(struct xrx_engine *e, bool off)
{
	e->fast_off = off;
}

static __u32 xrx_fast_key(const struct xrx_seg *s)
{
	return 1u | (__u32)s->ipv6 << 1 | (__u32)s->l3_off << 2 |
	       (__u32)s->l4_off << 10 | (__u32)s->hdr_len << 18;
}

/* Build the mask of a layout (struct xrx_fast_mask) into @m. */
static void xrx_fast_mask_build(struct xrx_fast_mask *m,
				const struct xrx_seg *s, __u32 key)
{
	__u8 b[XRX_FAST_HDR_MAX];
	__u32 l3 = s->l3_off, l4 = s->l4_off, n = s->hdr_len, i;

	memset(b, 0, sizeof(b));
	memset(b, 0xff, n);
	if (s->ipv6) {
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
 * An aggregate just held (xrx_gro_hold()): may later segments take the
 * fast path into it? Only TCP outside tunnels, header copy, a frame in
 * one piece whose metadata was taken, and headers the masks cover.
 */
void xrx_fast_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s)
{
	__u32 key, i, min;

	if (e->fast_off || !s->meta || s->tnl || s->nr_chunks ||
	    s->l4_proto != XRX_IPPROTO_TCP ||
	    e->opts.copy != XRX_COPY_HEADER || s->hdr_len < 16 ||
	    s->hdr_len > XRX_FAST_HDR_MAX || a->pkt.head_len < s->hdr_len)
		return;
	key = xrx_fast_key(s);
	for (i = 0; i < XRX_FAST_MASKS; i++)
		if (e->fast_masks[i].key == key)
			break;
	if (i == XRX_FAST_MASKS) {
		i = e->fast_next++ % XRX_FAST_MASKS;
		xrx_fast_mask_build(&e->fast_masks[i], s, key);
	}
	/* xrx_seg_from_meta()'s length checks, and the headers */
	min = s->hdr_len;
	if (s->l4_off + 8u > min)
		min = s->l4_off + 8u;
	if (s->headlen > min)
		min = s->headlen;
	a->fast_slot = i;
	a->fast_key = key;
	a->fast_min_len = min;
	memcpy(a->fast_meta, s->meta, sizeof(a->fast_meta));
	a->fast = true;
}

/*
 * Merge frame @f into its flow's held aggregate if it qualifies (see the
 * top of this file). Return: false, with nothing changed, if the full
 * path must take it.
 */
bool xrx_fast_frame(struct xrx_engine *e, const struct xrx_frame *f)
{
	const struct xrx_meta *m = f->meta;
	const struct xrx_fast_mask *mk;
	__u32 len = f->len, l3_off, l4_off, hdr_len, ip_len, payload, count;
	const __u8 *d, *h, *l3;
	xrx_fast_vec acc = { 0, 0 }, x, y;
	__u64 fm[3];
	struct xrx_agg *a;
	struct xrx_frag *fr;
	bool fixedid;
	__u16 ipid;
	__u32 i;
	int done;

	if (!m || (f->flags & XRX_FRAME_F_CHAIN))
		return false;
	memcpy(fm, m, sizeof(fm));
	/* the first aggregate of the bucket: what xrx_gro_lookup() would
	 * find first, if the flow is the same */
	a = xrx_gro_table_bucket(&e->table, m->hash);
	if (!a || !a->fast ||
	    ((fm[0] ^ a->fast_meta[0]) | (fm[1] ^ a->fast_meta[1]) |
	     (fm[2] ^ a->fast_meta[2])))
		return false;
	if (f->addr > e->region_size || len > e->region_size - f->addr ||
	    len < a->fast_min_len)
		return false;
	mk = &e->fast_masks[a->fast_slot];
	if (mk->key != a->fast_key)
		return false;
	d = e->region + f->addr;
	h = a->head;
	for (i = 0; i < mk->nr; i++) {
		memcpy(&x, d + mk->off[i], sizeof(x));
		memcpy(&y, h + mk->off[i], sizeof(y));
		acc |= (x ^ y) & mk->m[i];
	}
	if (acc[0] | acc[1])
		return false;

	/* Same flow, same flags, window, ack, options, TTL, TOS, DF. */
	l3_off = a->pkt.l3_off;
	l4_off = a->pkt.l4_off;
	hdr_len = a->hdr_len;
	l3 = d + l3_off;
	count = a->count;
	fixedid = a->fixedid;
	if (a->ipv6) {
		ip_len = XRX_IP6H_LEN + xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN);
	} else {
		ip_len = xrx_get16(l3 + XRX_IPH_TOT_LEN);
		if (!xrx_ipv4_csum_ok(l3))
			return false;
		ipid = (__u16)(xrx_get16(l3 + XRX_IPH_ID) - a->first_id);
		if (count == 1 && ipid == 0)
			fixedid = true;
		if (ipid != (fixedid ? 0 : (__u16)count))
			return false;
	}
	/* no padding, nothing missing: else inet_gro_receive() flushes */
	if (l3_off + ip_len != len || len <= hdr_len)
		return false;
	payload = len - hdr_len;
	if (payload > a->mss ||
	    xrx_get32(d + l4_off + XRX_TCPH_SEQ) !=
		    xrx_get32(h + l4_off + XRX_TCPH_SEQ) + a->payload ||
	    a->held_len + payload >= e->limit)
		return false;
	if (e->opts.csum == XRX_CSUM_VERIFY &&
	    !xrx_l4_csum_ok_flat(l3, d + l4_off, a->ipv6, XRX_IPPROTO_TCP,
				 len - l4_off))
		return false;

	/* Merge, as xrx_engine_frame() and xrx_gro_merge() would. FIN and
	 * PSH are not set: the flags equal the head's, which has none. */
	xrx_count(e, XRX_ENGINE_STAT_FRAMES_IN);
	e->stats[XRX_ENGINE_STAT_BYTES_IN] += len;
	a->fixedid = fixedid;
	fr = &a->frags[a->pkt.nr_frags++];
	fr->data = d + hdr_len;
	fr->len = payload;
	fr->pad = 0;
	fr->addr = f->addr;
	a->pkt.len += payload;
	a->count = ++count;
	a->held_len += payload;
	a->payload += payload;
	xrx_count(e, XRX_ENGINE_STAT_SEGS_MERGED);
	e->fast_merged++;
	/* xrx_complete_reason() without the flags: none is set */
	done = payload < a->mss ? XRX_ENGINE_STAT_COMPLETE_SHORT :
	       count >= e->max_segs ? XRX_ENGINE_STAT_COMPLETE_SEGS : 0;
	if (done)
		xrx_deliver(e, a, done);
	return true;
}
