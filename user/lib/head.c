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
#include "engine.h"

static void xrx_copied(struct xrx_engine *e, __u32 n, __u32 hdr)
{
	e->stats[XRX_ENGINE_STAT_BYTES_COPIED] += n;
	if (n > hdr)
		e->stats[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED] += n - hdr;
}

static void xrx_frag_add(struct xrx_agg *a, const struct xrx_seg *s,
			 __u32 off, __u32 len)
{
	struct xrx_frag *f = &a->frags[a->pkt.nr_frags++];

	f->data = s->data + off;
	f->len = len;
	f->pad = 0;
	f->addr = s->addr;
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
	memcpy(a->head, s->data, n);
	xrx_copied(e, n, hdr);
	a->pkt.head_len = n;
	a->pkt.len = s->len;
	a->pkt.nr_frags = 0;
	if (n < s->len)
		xrx_frag_add(a, s, n, s->len - n);
	else
		xrx_release_frame(e, s->addr);	/* every byte is in the head */

	a->pkt.hash = s->hash;
	a->pkt.l3_off = s->l3_off;
	a->pkt.l4_off = s->l4_off;
	a->pkt.l4_proto = s->l4_proto;
	a->pkt.nr_vlans = s->nr_vlans;
}

/*
 * A merged segment: its payload (never its headers, never padding: a
 * padded frame is not merged) is appended, as skb_gro_receive() appends
 * the frags past skb_gro_offset().
 */
void xrx_head_append(struct xrx_engine *e, struct xrx_agg *a,
		     const struct xrx_seg *s)
{
	__u32 n;

	switch (e->opts.copy) {
	case XRX_COPY_FULL:
		memcpy(a->head + a->pkt.head_len, s->data + s->hdr_len,
		       s->payload_len);
		xrx_copied(e, s->payload_len, 0);
		a->pkt.head_len += s->payload_len;
		xrx_release_frame(e, s->addr);
		break;
	case XRX_COPY_MAX_HEAD:
		n = s->len < XRX_HEAD_SIZE ? s->len : XRX_HEAD_SIZE;
		memcpy(e->scratch, s->data, n);
		xrx_copied(e, n, s->hdr_len);
		xrx_frag_add(a, s, s->hdr_len, s->payload_len);
		break;
	default:
		xrx_frag_add(a, s, s->hdr_len, s->payload_len);
		break;
	}
	a->pkt.len += s->payload_len;
}

__u32 xrx_headlen(const void *frame, __u32 len, struct xrx_parsed *out)
{
	struct xrx_parsed r;

	if (!out)
		out = &r;
	xrx_parse(frame, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len,
		  out);
	return out->headlen <= len ? out->headlen : len;
}
