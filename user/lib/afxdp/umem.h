/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A queue's UMEM and the book of where each of its frames is (umem.c).
 * The moves between the places are inline here, for the receive loop:
 * kernel -> engine when a descriptor is read from the RX ring
 * (xrx_umem_take()), engine -> free when the engine releases a frame
 * (xrx_umem_put()); free -> kernel is xrx_umem_refill(). Not installed;
 * not API.
 */
#ifndef XRX_LIB_AFXDP_UMEM_H
#define XRX_LIB_AFXDP_UMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <xdp/xsk.h>
#include <xrx/meta.h>

#define XRX_COMP_SIZE 64		/* no TX: the smallest useful ring */

/* Where a UMEM frame is (the ownership invariant, see live.h). */
enum xrx_frame_state {
	XRX_FS_FREE = 0,	/* on libxrx's free stack */
	XRX_FS_KERNEL,		/* fill ring, driver or RX ring */
	XRX_FS_ENGINE,		/* engine: aggregate or delivered packet */
};

struct xrx_umem {
	void *area;
	__u64 size;
	__u32 frame_size;
	__u32 frame_shift;
	__u32 nr_frames;
	__u32 fill_size;
	struct xsk_umem *umem;		/* NULL until registered */
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq;
	__u32 *free;			/* stack of frame indexes */
	__u32 nr_free;
	__u32 nr_kernel;
	__u32 nr_engine;
	__u8 *state;			/* enum xrx_frame_state per frame */
	__u64 errors;			/* ownership violations */
	__u64 to_engine;		/* chunks handed to the engine */
	__u64 from_engine;		/* chunks it gave back */
	__u64 dropped;			/* taken, then freed before the engine */
};

int xrx_umem_init(struct xrx_umem *u, __u32 nr_frames, __u32 frame_size,
		  __u32 fill_size);
int xrx_umem_register(struct xrx_umem *u);
void xrx_umem_unregister(struct xrx_umem *u);
void xrx_umem_fini(struct xrx_umem *u);
__u32 xrx_umem_refill(struct xrx_umem *u);
int xrx_umem_check(const struct xrx_umem *u, __u64 engine_released,
		   char *why, size_t len);

static inline __u32 xrx_umem_index(const struct xrx_umem *u, __u64 addr)
{
	return (__u32)(xsk_umem__extract_addr(addr) >> u->frame_shift);
}

/* A descriptor from the RX ring: the kernel hands the frame over. */
static inline bool xrx_umem_take(struct xrx_umem *u, __u64 addr)
{
	__u32 i = xrx_umem_index(u, addr);

	if (i >= u->nr_frames || u->state[i] != XRX_FS_KERNEL) {
		u->errors++;
		return false;
	}
	u->state[i] = XRX_FS_ENGINE;
	u->nr_kernel--;
	u->nr_engine++;
	u->to_engine++;
	return true;
}

/* A frame back from the engine (or dropped before it): free again. */
static inline void xrx_umem_put(struct xrx_umem *u, __u64 addr)
{
	__u32 i = xrx_umem_index(u, addr);
	__u64 off = addr & (u->frame_size - 1);

	if (i >= u->nr_frames || u->state[i] != XRX_FS_ENGINE) {
#ifdef XRX_DEBUG
		fprintf(stderr, "xrx: frame %#llx released but not held\n",
			(unsigned long long)addr);
		__builtin_trap();
#endif
		u->errors++;
		return;
	}
	/*
	 * Forget the metadata: a copy-mode kernel that does not carry it
	 * must not leave this frame's magic for the next packet to find.
	 */
	if (off >= sizeof(struct xrx_meta))	/* magic: the last 2 bytes;
						 * addr need not be aligned */
		memset((__u8 *)u->area + addr - sizeof(__u16), 0, sizeof(__u16));
	u->state[i] = XRX_FS_FREE;
	u->nr_engine--;
	u->from_engine++;
	u->free[u->nr_free++] = i;
}

/* A frame taken from the RX ring that never reached the engine. */
static inline void xrx_umem_drop(struct xrx_umem *u, __u64 addr)
{
	u->dropped++;
	xrx_umem_put(u, addr);
}

#endif /* XRX_LIB_AFXDP_UMEM_H */
