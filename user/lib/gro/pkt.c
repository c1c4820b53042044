// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Packet buffers: a pool sized at engine creation (no allocation per
 * packet), and the release of the frames a packet references (delivery
 * is complete.c's).
 */
#include <stdio.h>

#include "gro/gro.h"

struct xrx_agg *xrx_agg_alloc(struct xrx_engine *e)
{
	struct xrx_agg *a = e->free_list;

	if (!a)
		return NULL;
	e->free_list = a->newer;
	a->newer = NULL;
	a->state = XRX_AGG_HELD;
	a->count = 0;
	a->pkt.nr_frags = 0;
	a->pkt.head_len = 0;
	a->pkt.len = 0;
	a->pkt.gso_type = XRX_GSO_NONE;
	a->pkt.gso_flags = 0;
	a->pkt.gso_size = 0;
	a->pkt.gso_segs = 1;
	a->pkt.csum = XRX_PKT_CSUM_NONE;
	a->pkt.csum_start = 0;
	a->pkt.csum_offset = 0;
	a->fast = false;
	return a;
}

void xrx_agg_free(struct xrx_engine *e, struct xrx_agg *a)
{
	a->state = XRX_AGG_FREE;
	a->newer = e->free_list;
	e->free_list = a;
}

void xrx_release_frame(struct xrx_engine *e, __u64 addr)
{
	xrx_count(e, XRX_ENGINE_STAT_FRAMES_RELEASED);
	if (e->opts.release_frame)
		e->opts.release_frame(e->opts.ctx, addr);
}

/* Every piece of a frame the engine keeps no byte of. */
void xrx_release_seg(struct xrx_engine *e, const struct xrx_seg *s)
{
	__u32 i;

	xrx_release_frame(e, s->addr);
	for (i = 0; i < s->nr_chunks; i++)
		xrx_release_frame(e, s->chunks[i].addr);
}

void xrx_pkt__release(struct xrx_engine *e, struct xrx_pkt *pkt)
{
	struct xrx_agg *a;
	__u32 i;

	if (!e || !pkt)
		return;
	a = container_of_agg(pkt);
	if (a->state != XRX_AGG_OUT) {
		/* Not delivered, or released twice: the consumer's bug, which
		 * would hand the same frames to the fill ring twice. */
#ifdef XRX_DEBUG
		fprintf(stderr, "xrx: packet %p released but not delivered\n",
			(void *)pkt);
		__builtin_trap();
#endif
		xrx_count(e, XRX_ENGINE_STAT_BAD_RELEASE);
		return;
	}
	/* xrx_release_frame() for each, the counter added once */
	e->stats[XRX_ENGINE_STAT_FRAMES_RELEASED] += a->pkt.nr_frags;
	if (e->opts.release_frame)
		for (i = 0; i < a->pkt.nr_frags; i++)
			e->opts.release_frame(e->opts.ctx, a->frags[i].addr);
	a->pkt.nr_frags = 0;
	xrx_agg_free(e, a);
}
