/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one-flow fast path's entry, inline in the receive loop (engine.c);
 * what it decides and why is at the top of fast.c.
 */
#ifndef XRX_LIB_GRO_FAST_H
#define XRX_LIB_GRO_FAST_H

#include "gro/gro.h"
#include "gro/prefetch.h"

/* fast.c */
__u32 xrx_fast_merge(struct xrx_engine *e, struct xrx_agg *a,
		     const struct xrx_frame *f, const struct xrx_frame *end,
		     const struct xrx_ahead *ah);

/*
 * A run of frames, from @f on, that merge into the aggregate its flow
 * holds, if @f does (xrx_fast_merge()). Inline, the lookup: the first
 * aggregate of the bucket, what xrx_gro_lookup() would find first if the
 * flow is the same. Return: frames merged; 0, with nothing changed, if
 * @f must take the full path.
 */
static __always_inline __u32 xrx_fast_run(struct xrx_engine *e,
					  const struct xrx_frame *f,
					  const struct xrx_frame *end,
					  const struct xrx_ahead *ah)
{
	const struct xrx_meta *m = f->meta;
	struct xrx_agg *a;

	if (!m || (f->flags & XRX_FRAME_F_CHAIN))
		return 0;
	a = xrx_gro_table_bucket(&e->table, m->hash);
	if (!a || !a->fast)
		return 0;
	return xrx_fast_merge(e, a, f, end, ah);
}

#endif /* XRX_LIB_GRO_FAST_H */
