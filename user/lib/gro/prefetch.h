/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the receive loop asks the cache for ahead of the frames it works
 * on. Both loops over a batch's frames, the batch loop (engine.c) and a
 * fast-path run (fast.h), take one step per frame, so every frame's lines
 * are asked for once and as far ahead.
 */
#ifndef XRX_LIB_GRO_PREFETCH_H
#define XRX_LIB_GRO_PREFETCH_H

#include <stdint.h>

#include "gro/gro.h"

/*
 * Frames arrive cold (written by the NIC, or long ago): ask for the lines
 * the GRO rules read -- xrx_meta just before the frame and the first two
 * lines of headers (a TCP header with timestamps ends past byte 64) -- a
 * few frames before they are needed, so the misses overlap instead of
 * stalling one after the other.
 */
#define XRX_PREFETCH_AHEAD 8

/*
 * Where a batch's frames are and how far its steps ask: frames before
 * hdr_end ask for the headers of the frame XRX_PREFETCH_AHEAD on, those
 * before pay_end for the payload of the one XRX_PAYLOAD_AHEAD on (none:
 * pay_end is the first frame). One compare a step each.
 */
struct xrx_ahead {
	const __u8 *region;
	__u64 region_size;
	const struct xrx_frame *hdr_end;
	const struct xrx_frame *pay_end;
};

/*
 * Always inline: a function of nothing but prefetches is "const" to gcc's
 * pure-const pass, and a call to it is then removed as dead code. The
 * frame's address is formed as an integer: it is not checked yet (a bad
 * one is no pointer formed, and a prefetch never faults), nor is meta,
 * which may be NULL.
 */
static __always_inline void xrx_frame_prefetch(const struct xrx_ahead *ah,
					       const struct xrx_frame *f)
{
	uintptr_t p = (uintptr_t)ah->region + f->addr;

	__builtin_prefetch(f->meta);
	__builtin_prefetch((const void *)p);
	__builtin_prefetch((const void *)(p + 64));
}

/*
 * Copying whole frames reads every payload byte: the rest of a frame's
 * lines are asked for XRX_PAYLOAD_AHEAD frames ahead, nearer than the
 * headers, as one frame brings some twenty misses of its own. Every line:
 * in gro_bench's one-flow rows (payload cold) this took a fully copied
 * segment from 220 to 160 ns; 1 to 4 frames ahead did alike, while every
 * other line, or only the first few, did no better than none. Verifying
 * the L4 checksum reads them too. The sum also asks for its own lines as
 * it goes (XRX_CSUM_PREFETCH, csum.h), but only within the frame it sums,
 * so the first lines of each frame arrived late. With the 32-byte sum
 * (avx2) these prefetches made it worse (150 ns a verified segment
 * against 125 with the sum's alone); with the 64-byte VNNI sum (avx512),
 * which leaves the CPU room for more loads in flight, they took
 * gro_bench's one-flow header/verify/warm row from 100 to 83 ns a
 * segment, what a plain read of the same lines costs (the read row,
 * 82.6 ns in the same run).
 */
#define XRX_PAYLOAD_AHEAD 2

static __always_inline void xrx_payload_prefetch(const struct xrx_ahead *ah,
						 const struct xrx_frame *f)
{
	const __u8 *p;
	__u32 off;

	if (f->addr >= ah->region_size ||
	    f->len > ah->region_size - f->addr || f->len <= 128)
		return;
	p = ah->region + f->addr;
	for (off = 128; off < f->len; off += 64)
		__builtin_prefetch(p + off);
	__builtin_prefetch(p + f->len - 1);	/* a frame not line-aligned */
}

/* Before the batch's first frame: the lines of the frames no step asks
 * for, and where the steps stop. */
static __always_inline void xrx_prefetch_start(const struct xrx_engine *e,
					       const struct xrx_frame *frames,
					       __u32 n, struct xrx_ahead *ah)
{
	/* A full copy reads the payload, and so does the L4 sum (see
	 * XRX_PAYLOAD_AHEAD) */
	bool payload = e->opts.copy == XRX_COPY_FULL ||
		       e->opts.csum == XRX_CSUM_VERIFY;
	__u32 i;

	ah->region = e->region;
	ah->region_size = e->region_size;
	ah->hdr_end = frames + (n > XRX_PREFETCH_AHEAD ?
					n - XRX_PREFETCH_AHEAD : 0);
	ah->pay_end = frames + (payload && n > XRX_PAYLOAD_AHEAD ?
					n - XRX_PAYLOAD_AHEAD : 0);
	for (i = 0; i < n && i < XRX_PREFETCH_AHEAD; i++)
		xrx_frame_prefetch(ah, &frames[i]);
	for (i = 0; payload && i < n && i < XRX_PAYLOAD_AHEAD; i++)
		xrx_payload_prefetch(ah, &frames[i]);
}

/* The step for frame @f: the lines of the frames that far ahead. */
static __always_inline void xrx_prefetch_step(const struct xrx_ahead *ah,
					      const struct xrx_frame *f)
{
	if (f < ah->hdr_end)
		xrx_frame_prefetch(ah, f + XRX_PREFETCH_AHEAD);
	if (f < ah->pay_end)
		xrx_payload_prefetch(ah, f + XRX_PAYLOAD_AHEAD);
}

#endif /* XRX_LIB_GRO_PREFETCH_H */
