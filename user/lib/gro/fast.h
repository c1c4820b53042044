/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one-flow fast path's per-frame half, inline in the receive loop
 * (engine.c); what it decides and why is at the top of fast.c.
 */
#ifndef XRX_LIB_GRO_FAST_H
#define XRX_LIB_GRO_FAST_H

#include "gro/gro.h"

static __always_inline xrx_fast_vec xrx_fast_load(const __u8 *p)
{
	xrx_fast_vec v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Header bytes of the frame @d that differ from the head @h where the
 * mask says they must not: vectors 0 .. nr - 2 at 16 * i, the last at
 * off[nr - 1] (it may overlap the one before).
 */
static __always_inline bool xrx_fast_hdr_differ(const struct xrx_fast_mask *mk,
						const __u8 *d, const __u8 *h)
{
	xrx_fast_vec acc = { 0, 0 };
	__u32 last = mk->nr - 1;

#define XRX_FAST_CMP(i) \
	acc |= (xrx_fast_load(d + 16 * (i)) ^ xrx_fast_load(h + 16 * (i))) & \
	       mk->m[i]
	switch (last) {
	case 7: XRX_FAST_CMP(6); __attribute__((fallthrough));
	case 6: XRX_FAST_CMP(5); __attribute__((fallthrough));
	case 5: XRX_FAST_CMP(4); __attribute__((fallthrough));
	case 4: XRX_FAST_CMP(3); __attribute__((fallthrough));
	case 3: XRX_FAST_CMP(2); __attribute__((fallthrough));
	case 2: XRX_FAST_CMP(1); __attribute__((fallthrough));
	case 1: XRX_FAST_CMP(0); __attribute__((fallthrough));
	default: break;
	}
#undef XRX_FAST_CMP
	acc |= (xrx_fast_load(d + mk->off[last]) ^
		xrx_fast_load(h + mk->off[last])) & mk->m[last];
	return acc[0] | acc[1];
}

/*
 * Merge frame @f into its flow's held aggregate if it qualifies (see the
 * top of fast.c). What the masked compare leaves open is decided by the
 * full path's own rules (gro.h). Return: false, with nothing changed, if
 * the full path must take it.
 */
static __always_inline bool xrx_fast_frame(struct xrx_engine *e,
					   const struct xrx_frame *f)
{
	const struct xrx_meta *m = f->meta;
	const struct xrx_fast_mask *mk;
	__u32 len = f->len, ip_len, payload;
	const __u8 *d, *h, *l3;
	const struct xrx_lvl *l;
	__u64 fm[3], sum;
	struct xrx_agg *a;
	__u8 fixedid;
	int done;

	if (!m || (f->flags & XRX_FRAME_F_CHAIN))
		return false;
	/* the first aggregate of the bucket: what xrx_gro_lookup() would
	 * find first, if the flow is the same */
	a = xrx_gro_table_bucket(&e->table, m->hash);
	if (!a || !a->fast)
		return false;
	memcpy(fm, m, sizeof(fm));
	if (((fm[0] ^ a->fast_meta[0]) | (fm[1] ^ a->fast_meta[1]) |
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
	if (xrx_fast_hdr_differ(mk, d, h))
		return false;

	/* Same flow, same flags, window, ack, options, TTL, TOS, DF. */
	l = &a->lvl[0];
	l3 = d + l->l3_off;
	fixedid = a->fixedid;
	if (l->ipv6) {
		ip_len = XRX_IP6H_LEN + xrx_get16(l3 + XRX_IP6H_PAYLOAD_LEN);
	} else {
		ip_len = xrx_get16(l3 + XRX_IPH_TOT_LEN);
		/* ip_fast_csum(): the rest of the header is the head's */
		sum = a->fast_ipsum + xrx_raw32(l3 + XRX_IPH_TOT_LEN) +
		      xrx_raw16(l3 + XRX_IPH_CHECK);
		sum = (sum & 0xffffffff) + (sum >> 32);
		sum = (sum & 0xffffffff) + (sum >> 32);
		if (xrx_csum_fold((__u32)sum) != 0xffff)
			return false;
		if (xrx_ipid_flush(xrx_get16(l3 + XRX_IPH_ID),
				   xrx_get16(h + l->l3_off + XRX_IPH_ID),
				   a->count, &fixedid, 1))
			return false;
	}
	/* no padding, nothing missing: else inet_gro_receive() flushes
	 * (len >= headlen: fast_min_len) */
	if (l->l3_off + ip_len != len)
		return false;
	payload = len - a->pkt.headlen;
	if (xrx_tcp_seq_flush(a, xrx_get32(d + l->l4_off + XRX_TCPH_SEQ),
			      payload) ||
	    xrx_too_big(a->held_len, payload, a->limit))
		return false;
	if (e->opts.csum == XRX_CSUM_VERIFY &&
	    !xrx_l4_csum_ok_flat(l3, d + l->l4_off, l->ipv6, XRX_IPPROTO_TCP,
				 len - l->l4_off))
		return false;

	/* Merge, as xrx_engine_frame() and xrx_gro_merge() would. FIN and
	 * PSH are not set: the flags equal the head's, which has none. */
	xrx_count_frame(e, len);
	a->fixedid = fixedid;
	xrx_frag_add(a, d + a->pkt.headlen, payload, f->addr);
	xrx_agg_grow(e, a, 1, payload);
	e->fast_merged++;
	/* xrx_complete_reason() without the flags: none is set */
	done = xrx_complete_len(payload, a->mss, a->count, e->max_segs);
	if (done)
		xrx_deliver(e, a, done);
	return true;
}

#endif /* XRX_LIB_GRO_FAST_H */
