// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one-flow fast path: a TCP segment that merges into the aggregate
 * its flow already holds, decided without the full path's per-frame work.
 *
 * The full path (engine.c, gro.c) checks a frame's metadata, derives its
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
 * Any difference, or any of those checks failing, sends the frame down
 * the full path, untouched: that path names the flush reason and does
 * everything else. The fast path changes no state before it has decided,
 * so the two decide the same and count the same (test_gro_property
 * compares them byte for byte).
 */
#include "gro/engine_priv.h"

/* The metadata is compared whole, as three 64-bit words. */
XRX_STATIC_ASSERT(sizeof(struct xrx_meta) == sizeof(((struct xrx_agg *)0)->fast_meta),
		  "fast_meta holds one struct xrx_meta");

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
	memcpy(a->fast_meta, s->meta, sizeof(a->fast_meta));
	if (!s->lvl[0].ipv6) {
		/* the IPv4 header sum without length, ID and checksum */
		const __u8 *ip = a->head + s->l3_off;

		a->fast_ipsum = (__u64)xrx_raw16(ip) + xrx_raw32(ip + 6) +
				xrx_raw32(ip + 12) + xrx_raw32(ip + 16);
	}
	a->fast = true;
}
