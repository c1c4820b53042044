// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Header-only copy: what goes into a packet's head buffer and what stays
 * in the frame, referenced as a fragment.
 *
 *   header    eth_get_headlen() bytes, as mlx5e copies since its
 *             header-only change (mlx5e_skb_from_cqe_nonlinear()); the
 *             rest of the first frame and the payload of every merged
 *             frame are fragments. No payload byte is copied.
 *   max-head  min(256, len) bytes of every frame, as mlx5e did before
 *             (MLX5E_RX_MAX_HEAD): the first frame's copy is the head
 *             (payload included), merged frames' copies are the cost a
 *             driver pays without header split; their payload is still
 *             referenced in place.
 *   full      every byte into one contiguous buffer, as naive userspace
 *             GRO does; the frame is released at once.
 * The delivered bytes are the same in every mode.
 */
#include "gro/gro.h"

static void xrx_copied(struct xrx_engine *e, __u32 n, __u32 hdr)
{
	e->stats[XRX_ENGINE_STAT_BYTES_COPIED] += n;
	if (n > hdr)
		e->stats[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED] += n - hdr;
}

/*
 * Reference bytes [off, off + len) of a frame whose bytes may lie in
 * several pieces (multi-buffer): one fragment per piece touched, and a
 * piece none of whose bytes is referenced is released now, as its page
 * would be freed by the kernel. A plain frame is one piece.
 */
static void xrx_frag_range_pieces(struct xrx_engine *e, struct xrx_agg *a,
				  const struct xrx_seg *s, __u32 off,
				  __u32 len)
{
	const __u8 *base = s->data;
	__u64 addr = s->addr;
	__u32 pos = 0, plen = s->first_len, i = 0, lo, hi;

	for (;;) {
		lo = off > pos ? off : pos;
		hi = off + len < pos + plen ? off + len : pos + plen;
		if (lo < hi)
			xrx_frag_add(a, base + (lo - pos), hi - lo, addr);
		else
			xrx_release_frame(e, addr);
		pos += plen;
		if (i == s->nr_chunks)
			break;
		base = s->region + s->chunks[i].addr;
		addr = s->chunks[i].addr;
		plen = s->chunks[i++].len;
	}
}

/* A frame in one piece, the common case, without the walk above. */
static inline void xrx_frag_range(struct xrx_engine *e, struct xrx_agg *a,
				  const struct xrx_seg *s, __u32 off,
				  __u32 len)
{
	if (s->nr_chunks)
		xrx_frag_range_pieces(e, a, s, off, len);
	else if (len)
		xrx_frag_add(a, s->data + off, len, s->addr);
	else
		xrx_release_frame(e, s->addr);
}

/* Copy bytes [off, off + len) of a frame, across its pieces. */
static void xrx_seg_copy_pieces(__u8 *dst, const struct xrx_seg *s,
				__u32 off, __u32 len)
{
	const __u8 *base = s->data;
	__u32 pos = 0, plen = s->first_len, i = 0, lo, hi;

	for (;;) {
		lo = off > pos ? off : pos;
		hi = off + len < pos + plen ? off + len : pos + plen;
		if (lo < hi)
			memcpy(dst + (lo - off), base + (lo - pos), hi - lo);
		pos += plen;
		if (i == s->nr_chunks || pos >= off + len)
			break;
		base = s->region + s->chunks[i].addr;
		plen = s->chunks[i++].len;
	}
}

static inline void xrx_seg_copy(__u8 *dst, const struct xrx_seg *s,
				__u32 off, __u32 len)
{
	if (s->nr_chunks)
		xrx_seg_copy_pieces(dst, s, off, len);
	else
		memcpy(dst, s->data + off, len);
}

/* Header bytes of a frame: headlen, capped at the head and the frame. */
static __u32 xrx_seg_headlen(const struct xrx_seg *s)
{
	__u32 n = s->headlen;

	if (n > XRX_HEAD_SIZE)
		n = XRX_HEAD_SIZE;
	if (n > s->len)
		n = s->len;
	return n;
}

/* The first (or only) frame of a packet: its head and first fragment. */
void xrx_head_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s)
{
	__u32 hdr = xrx_seg_headlen(s), n;

	switch (e->opts.copy) {
	case XRX_COPY_FULL:
		n = s->len;
		break;
	case XRX_COPY_MAX_HEAD:
		n = s->len < XRX_HEAD_SIZE ? s->len : XRX_HEAD_SIZE;
		break;
	default:
		n = hdr;
		break;
	}
	xrx_seg_copy(a->head, s, 0, n);
	xrx_copied(e, n, hdr);
	a->first_addr = s->addr;
	a->seg_hlen = hdr;
	a->seg_inplace = n == hdr && n < s->len && !s->nr_chunks;
	a->pkt.head_len = n;
	a->pkt.len = s->len;
	a->pkt.nr_frags = 0;
	/* The rest by reference; a piece wholly in the head is released. */
	xrx_frag_range(e, a, s, n, s->len - n);

	a->pkt.hdrs = s->hdrs;
	a->pkt.vlan_proto = s->vlan_all >> 16;
	a->pkt.vlan_tci = s->vlan_all & 0xffff;
	a->vlan_all = s->vlan_all;
	/* struct xrx_pkt names a tunnel's outer level apart; 0 without one */
	a->pkt.outer_l3_off = s->nr_lvls > 1 ? s->lvl[0].l3_off : 0;
	a->pkt.outer_l4_off = s->nr_lvls > 1 ? s->lvl[0].l4_off : 0;
	a->pkt.inner_mac_off = s->nr_lvls > 1 ? s->lvl[1].mac_off : 0;
}

/*
 * A merged segment: its payload (never its headers, never padding: a
 * padded frame is not merged) is appended, as skb_gro_receive() appends
 * the frags past skb_gro_offset(). Header copy of a one-piece frame is
 * inline in gro.h (xrx_head_append()); every mode and frame works here.
 */
void xrx_head_append_pieces(struct xrx_engine *e, struct xrx_agg *a,
			    const struct xrx_seg *s)
{
	__u32 n;

	/* a copy, or a frame in pieces: its header is not where a segment
	 * record would look for it (segrec.c) */
	a->seg_inplace = false;
	switch (e->opts.copy) {
	case XRX_COPY_FULL:
		xrx_seg_copy(a->head + a->pkt.head_len, s, s->headlen,
			     s->payload_len);
		xrx_copied(e, s->payload_len, 0);
		a->pkt.head_len += s->payload_len;
		xrx_release_seg(e, s);
		break;
	case XRX_COPY_MAX_HEAD:
		n = s->len < XRX_HEAD_SIZE ? s->len : XRX_HEAD_SIZE;
		memcpy(e->scratch, s->data, n);
		xrx_copied(e, n, s->headlen);
		xrx_frag_range(e, a, s, s->headlen, s->payload_len);
		break;
	default:
		xrx_frag_range(e, a, s, s->headlen, s->payload_len);
		break;
	}
}

__u32 xrx_headlen(const void *frame, __u32 len, struct xrx_parsed *out)
{
	struct xrx_parsed r;

	if (!out)
		out = &r;
	xrx_parse(frame, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len,
		  out, NULL);
	return out->headlen <= len ? out->headlen : len;
}
