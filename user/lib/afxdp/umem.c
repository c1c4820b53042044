// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * UMEM of one queue: the frame area, its fill ring, and the book of where
 * every frame is. A frame is free (libxrx's stack), in the kernel (fill
 * ring, driver, RX ring) or in the engine (an open aggregate or a
 * delivered packet); it moves free -> kernel in xrx_umem_refill() (a
 * batch, one submit), kernel -> engine when read from the RX ring, and
 * engine -> free when the engine releases it. One byte per frame records
 * the place, so a double release or an unknown address is caught
 * (counted; a trap in XRX_DEBUG builds) instead of corrupting the rings.
 *
 * Frames are aligned chunks of frame_size (a power of two), so a
 * descriptor's address, whatever its offset, names its frame by a shift
 * (xsk_umem__extract_addr(), aligned mode).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "afxdp/umem.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

int xrx_umem_init(struct xrx_umem *u, __u32 nr_frames, __u32 frame_size,
		  __u32 fill_size)
{
	__u32 i;

	memset(u, 0, sizeof(*u));
	if (frame_size != 2048 && frame_size != 4096)
		return -EINVAL;
	if (!nr_frames || (fill_size & (fill_size - 1)) || !fill_size)
		return -EINVAL;
	u->frame_size = frame_size;
	u->frame_shift = __builtin_ctz(frame_size);
	u->nr_frames = nr_frames;
	u->fill_size = fill_size;
	u->size = (__u64)nr_frames * frame_size;
	u->area = mmap(NULL, u->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->area == MAP_FAILED) {
		u->area = NULL;
		return -errno;
	}
	/*
	 * 2 MiB pages where the kernel has them to give (transparent huge
	 * pages, "madvise" on Debian): the kernel's copy into the UMEM and
	 * the engine's header reads walk every frame of it, 16 MiB by
	 * default, 4096 TLB entries in 4 KiB pages, more than a core's
	 * second-level TLB holds. A hint; without it, 4 KiB pages. Then
	 * fault it all in, as MAP_POPULATE would have before the hint.
	 */
	madvise(u->area, u->size, MADV_HUGEPAGE);
	if (madvise(u->area, u->size, MADV_POPULATE_WRITE))
		memset(u->area, 0, u->size);	/* before Linux 5.14 */
	u->free = calloc(nr_frames, sizeof(*u->free));
	u->state = calloc(nr_frames, 1);
	if (!u->free || !u->state) {
		xrx_umem_fini(u);
		return -ENOMEM;
	}
	/* Lowest addresses on top: the first fill hands out frame 0 first. */
	for (i = 0; i < nr_frames; i++)
		u->free[i] = nr_frames - 1 - i;
	u->nr_free = nr_frames;
	return 0;
}

/*
 * Register the area with the kernel (fill and completion rings). Every
 * frame must be free: a failed bind is retried on a fresh registration
 * (libxdp cannot reuse the rings of a UMEM whose first bind failed).
 */
int xrx_umem_register(struct xrx_umem *u)
{
	struct xsk_umem_config cfg = {
		.fill_size = u->fill_size,
		.comp_size = XRX_COMP_SIZE,
		.frame_size = u->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};

	if (u->nr_free != u->nr_frames)
		return -EBUSY;
	return xsk_umem__create(&u->umem, u->area, u->size, &u->fq, &u->cq,
				&cfg);
}

/*
 * Forget the kernel's side: after the socket is gone, frames it held are
 * free again (the kernel returns nothing once unbound).
 */
void xrx_umem_unregister(struct xrx_umem *u)
{
	__u32 i;

	if (u->umem)
		xsk_umem__delete(u->umem);
	u->umem = NULL;
	for (i = 0; i < u->nr_frames; i++) {
		if (u->state[i] != XRX_FS_KERNEL)
			continue;
		u->state[i] = XRX_FS_FREE;
		u->free[u->nr_free++] = i;
	}
	u->nr_kernel = 0;
}

void xrx_umem_fini(struct xrx_umem *u)
{
	xrx_umem_unregister(u);
	if (u->area)
		munmap(u->area, u->size);
	free(u->free);
	free(u->state);
	memset(u, 0, sizeof(*u));
}

/* Move free frames to the fill ring, as many as fit, in one submit. */
__u32 xrx_umem_refill(struct xrx_umem *u)
{
	__u32 n, idx, i, f;

	if (!u->nr_free || !u->umem)
		return 0;
	n = xsk_prod_nb_free(&u->fq, u->nr_free);
	if (n > u->nr_free)
		n = u->nr_free;
	if (!n || xsk_ring_prod__reserve(&u->fq, n, &idx) != n)
		return 0;
	for (i = 0; i < n; i++) {
		f = u->free[--u->nr_free];
		u->state[f] = XRX_FS_KERNEL;
		*xsk_ring_prod__fill_addr(&u->fq, idx + i) =
			(__u64)f << u->frame_shift;
	}
	xsk_ring_prod__submit(&u->fq, n);
	u->nr_kernel += n;
	return n;
}

/*
 * The invariant: every frame in exactly one place, the counts agree with
 * the states, the free stack holds each free frame once, and the engine
 * holds exactly what it was given and did not give back.
 * @engine_released: the engine's frames_released counter.
 */
int xrx_umem_check(const struct xrx_umem *u, __u64 engine_released,
		   char *why, size_t len)
{
	__u32 cnt[3] = { 0, 0, 0 }, i, f;
	__u8 *seen;
	int err = 0;

	if (u->errors) {
		snprintf(why, len, "%llu ownership violations recorded",
			 (unsigned long long)u->errors);
		return -EUCLEAN;
	}
	for (i = 0; i < u->nr_frames; i++) {
		if (u->state[i] > XRX_FS_ENGINE) {
			snprintf(why, len, "frame %u in unknown state %u", i,
				 u->state[i]);
			return -EUCLEAN;
		}
		cnt[u->state[i]]++;
	}
	if (cnt[XRX_FS_FREE] != u->nr_free || cnt[XRX_FS_KERNEL] != u->nr_kernel ||
	    cnt[XRX_FS_ENGINE] != u->nr_engine) {
		snprintf(why, len,
			 "states free %u kernel %u engine %u, counts %u %u %u",
			 cnt[0], cnt[1], cnt[2], u->nr_free, u->nr_kernel,
			 u->nr_engine);
		return -EUCLEAN;
	}
	if (u->to_engine - u->from_engine != u->nr_engine ||
	    u->from_engine - u->dropped != engine_released) {
		snprintf(why, len,
			 "engine given %llu, released %llu (engine says %llu), holds %u",
			 (unsigned long long)(u->to_engine - u->dropped),
			 (unsigned long long)(u->from_engine - u->dropped),
			 (unsigned long long)engine_released, u->nr_engine);
		return -EUCLEAN;
	}
	seen = calloc(u->nr_frames, 1);
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < u->nr_free && !err; i++) {
		f = u->free[i];
		if (f >= u->nr_frames || seen[f] || u->state[f] != XRX_FS_FREE) {
			snprintf(why, len, "free stack entry %u: frame %u bad or twice",
				 i, f);
			err = -EUCLEAN;
		}
		if (f < u->nr_frames)
			seen[f] = 1;
	}
	free(seen);
	return err;
}
