/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The GRO state and the rules every file of the engine shares, as the
 * kernel keeps them in include/net/gro.h: a held aggregate (struct
 * xrx_agg, what NAPI_GRO_CB(p) holds), a received segment (struct
 * xrx_seg), the flow table, and the per-queue state they live in
 * (struct xrx_engine, the kernel's struct gro_node). Not installed; not
 * API.
 */
#ifndef XRX_LIB_GRO_GRO_H
#define XRX_LIB_GRO_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <xrx/engine.h>
#include <xrx/parse.h>
#include <xrx/bytes.h>
#include <xrx/hdr.h>

#include "gro/csum.h"
#include "compiler.h"

/* skb_gro_receive(): beyond this only TCP grows (GRO_LEGACY_MAX_SIZE). */
#define XRX_GRO_LEGACY_MAX 65536

#define container_of_agg(p) \
	((struct xrx_agg *)((char *)(p) - offsetof(struct xrx_agg, pkt)))

enum xrx_agg_state {
	XRX_AGG_FREE = 0,
	XRX_AGG_HELD,		/* in the flow table, growing */
	XRX_AGG_OUT,		/* delivered, owned by the consumer */
};

/*
 * A packet buffer: the public packet plus what the engine needs while it
 * holds it as an aggregate (the kernel keeps this in NAPI_GRO_CB(skb)).
 */
struct xrx_agg {
	struct xrx_pkt pkt;		/* first: handed to the consumer */
	struct xrx_frag *frags;		/* pkt.frags, writable */
	__u8 *head;			/* pkt.head, writable */
	__u32 max_frags;
	__u8 state;			/* enum xrx_agg_state */
	bool fixedid;			/* NAPI_GRO_CB(p)->ip_fixedid */
	bool ipv6;
	bool in_table;			/* held in the flow table */
	__u16 count;			/* segments, NAPI_GRO_CB(p)->count */
	__u16 hdr_len;			/* l4_off + L4 header length */
	__u16 first_id;			/* IPv4 ID of the first segment */
	__u32 held_len;			/* p->len: after the Ethernet header */
	__u32 vlan_all;			/* out-of-band tag, as xrx_seg's */
	__u32 payload;			/* payload bytes so far */
	__u32 mss;			/* first segment's payload */
	__u64 born_ns;			/* when the first segment arrived */
	struct xrx_agg *hnext;		/* flow table bucket chain */
	struct xrx_agg *older, *newer;	/* age list; also the free list */
	/* VXLAN (tunnel.c); the fields above are the inner headers' */
	bool tnl;
	bool outer_fixedid;		/* ip_fixedid bit 0: the outer ID */
	__u16 outer_first_id;
	bool outer_ipv6;
	/* The one-flow fast path (fast.c): set when the full path merged a
	 * second segment that came with xrx_meta, and the aggregate
	 * qualifies */
	bool fast;
	__u8 fast_slot;			/* its header mask: engine fast_masks[] */
	__u16 fast_min_len;		/* shortest frame that may merge */
	__u32 fast_key;			/* the mask's layout key */
	__u64 fast_meta[3];		/* that segment's xrx_meta */
	__u64 fast_ipsum;		/* IPv4 header sum but length, ID, check */
};

/*
 * One received frame as the GRO rules see it: parsed (or from xrx_meta),
 * with the bytes in place in the region.
 */
struct xrx_seg {
	const __u8 *data;
	__u64 addr;
	__u32 len;			/* the whole frame, all pieces */
	__u32 first_len;		/* bytes at data (the first piece) */
	const struct xrx_chunk *chunks;	/* the other pieces (multi-buffer), */
	const __u8 *region;		/* at region + chunks[i].addr */
	__u32 nr_chunks;
	XRX_HDRS_GROUP;			/* from xrx_meta or the parser */
	__u32 payload_len;		/* bytes after the L4 header */
	__u16 hdr_len;			/* l4_off + L4 header length */
	__u32 vlan_all;			/* out-of-band tag: proto << 16 | tci,
					 * 0 if none (skb->vlan_all) */
	bool ipv6;
	bool ip_flush;			/* inet/ipv6_gro_receive's own flush:
					 * length mismatch, reserved bit */
	bool ip_short;			/* IP length runs past the frame */
	bool csum_ok;			/* L4 checksum verified good */
	/* VXLAN (tunnel.c): l3_off .. hdr_len above are the inner ones */
	bool tnl;
	bool outer_ipv6;
	__u16 outer_l3_off;
	__u16 outer_l4_off;
	__u16 inner_mac_off;
	const struct xrx_meta *meta;	/* the frame's, if hdrs came from it */
};

/* Header bytes the fast path compares: up to this many (8 vectors). */
#define XRX_FAST_HDR_MAX 128
#define XRX_FAST_MASKS 4

typedef __u64 xrx_fast_vec __attribute__((vector_size(16)));

/*
 * Which header bytes of one layout (IP version, l3_off, l4_off, hdr_len)
 * must be equal between a held head and a segment that merges into it:
 * all but the IPv4 length, ID and checksum, the IPv6 payload length, and
 * the TCP sequence number, checksum and urgent pointer, which fast.c
 * checks apart (or, as the kernel, does not compare). Compared 16 bytes
 * at a time at off[i]; the last vector overlaps the one before it.
 */
struct xrx_fast_mask {
	__u32 key;			/* 0: unused */
	__u32 nr;			/* vectors */
	__u16 off[XRX_FAST_HDR_MAX / 16];
	xrx_fast_vec m[XRX_FAST_HDR_MAX / 16];
};

/* The flow table: O(1) lookup by hash, age list for oldest-first. */
struct xrx_gro_table {
	struct xrx_agg **buckets;
	__u32 mask;
	__u32 held;
	__u32 max;
	struct xrx_agg *oldest, *newest;
};

struct xrx_engine {
	struct xrx_engine_opts opts;	/* defaults filled in */
	__u8 *region;
	__u64 region_size;
	__u32 head_size;		/* bytes per head buffer */
	__u32 limit;			/* max_aggregate */
	__u64 timeout_ns;
	struct xrx_gro_table table;
	struct xrx_agg *aggs;		/* opts.pkts of them */
	struct xrx_agg *free_list;	/* through agg->newer */
	__u8 *heads;			/* head buffers, head_size each */
	size_t heads_size;
	size_t mem_bytes;		/* allocated at creation, for xrx_engine__memory() */
	struct xrx_frag *frag_store;
	__u32 max_segs;			/* per aggregate, TCP */
	__u8 scratch[XRX_HEAD_SIZE];	/* max-head copies of merged frames */
	bool fast_off;			/* fast path disabled (tests) */
	__u64 fast_merged;		/* segments it merged (tests) */
	__u8 fast_next;			/* fast_masks[] slot to take next */
	struct xrx_fast_mask fast_masks[XRX_FAST_MASKS];
	__u64 stats[XRX_ENGINE_STAT_MAX];
};

static inline void xrx_count(struct xrx_engine *e, enum xrx_engine_stat s)
{
	e->stats[s]++;
}

/*
 * The network and transport identity of a flow, as gro_list_prepare(),
 * inet_gro_receive()/ipv6_gro_receive() and tcp_gro_receive() compare it
 * between the held head @h and a new segment's headers @d, whose IP header
 * is at @l3 and TCP/UDP header at @l4 in both: IPv4 protocol and
 * addresses; IPv6 version/flow label, next header, addresses and any
 * extension headers; then the ports. For plain and tunnelled (inner)
 * headers alike.
 */
static inline bool xrx_l3l4_same_flow(const __u8 *h, const __u8 *d, __u32 l3,
				      __u32 l4, bool ipv6)
{
	if (ipv6) {
		if ((xrx_get32(h + l3) ^ xrx_get32(d + l3)) & 0xf00fffff)
			return false;
		if (h[l3 + 6] != d[l3 + 6] ||
		    xrx_bytes_differ(h + l3 + 8, d + l3 + 8, 32) ||
		    xrx_bytes_differ(h + l3 + 40, d + l3 + 40, l4 - l3 - 40))
			return false;
	} else if (h[l3 + 9] != d[l3 + 9] ||
		   xrx_raw64(h + l3 + 12) != xrx_raw64(d + l3 + 12)) {
		return false;
	}
	return xrx_raw32(h + l4) == xrx_raw32(d + l4);
}

/*
 * engine.c: a parsed segment's header and payload lengths (hdr_len,
 * payload_len, ipv6, ip_flush) from its IP and TCP headers. False when
 * they do not fit the frame.
 */
bool xrx_seg_lengths(struct xrx_seg *s);

/* csum.c: what needs a segment; the rest is in csum.h */
__u32 xrx_csum_add_seg(const struct xrx_seg *s, __u32 off, __u32 len,
		       __u32 sum);
bool xrx_l4_csum_ok(const struct xrx_seg *s);

/* First aggregate of the chain @hash falls in; walk it with ->hnext. */
static inline struct xrx_agg *
xrx_gro_table_bucket(const struct xrx_gro_table *t, __u32 hash)
{
	return t->buckets[hash & t->mask];
}

/* flow_table.c */
int xrx_gro_table_init(struct xrx_gro_table *t, __u32 flows);
void xrx_gro_table_fini(struct xrx_gro_table *t);
void xrx_gro_table_insert(struct xrx_gro_table *t, struct xrx_agg *a);
void xrx_gro_table_remove(struct xrx_gro_table *t, struct xrx_agg *a);

/* pkt.c */
struct xrx_agg *xrx_agg_alloc(struct xrx_engine *e);
void xrx_agg_free(struct xrx_engine *e, struct xrx_agg *a);
void xrx_release_frame(struct xrx_engine *e, __u64 addr);
void xrx_release_seg(struct xrx_engine *e, const struct xrx_seg *s);
void xrx_deliver(struct xrx_engine *e, struct xrx_agg *a,
		 enum xrx_engine_stat reason);

/* head.c */
void xrx_head_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s);
void xrx_head_append_pieces(struct xrx_engine *e, struct xrx_agg *a,
			    const struct xrx_seg *s);

/*
 * A merged segment's payload (see head.c). The common case is inline:
 * header copy of a frame in one piece is exactly one fragment, as a
 * merged segment always has payload. Copy modes and multi-buffer frames
 * take xrx_head_append_pieces().
 */
static inline void xrx_head_append(struct xrx_engine *e, struct xrx_agg *a,
				   const struct xrx_seg *s)
{
	struct xrx_frag *f;

	if (e->opts.copy != XRX_COPY_HEADER || s->nr_chunks) {
		xrx_head_append_pieces(e, a, s);
		return;
	}
	f = &a->frags[a->pkt.nr_frags++];
	f->data = s->data + s->hdr_len;
	f->len = s->payload_len;
	f->pad = 0;
	f->addr = s->addr;
	a->pkt.len += s->payload_len;
}

/* gro.c */
void xrx_gro_receive(struct xrx_engine *e, const struct xrx_seg *s,
		     __u64 now_ns);
void xrx_gro_single(struct xrx_engine *e, const struct xrx_seg *s, int why);
void xrx_gro_complete(struct xrx_agg *a);
void xrx_gro_ipv6_jumbo(struct xrx_agg *a);

/* fast.c: the one-flow fast path; the per-frame half is in fast.h */
void xrx_fast_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s);
bool xrx_l4_csum_ok_flat(const __u8 *l3, const __u8 *l4, bool ipv6,
			 __u8 proto, __u32 l4_len);

/* tunnel.c: VXLAN, hooked into the steps above where s->tnl / a->tnl */
bool xrx_tnl_frame(struct xrx_engine *e, struct xrx_seg *s, __u64 now_ns);
bool xrx_tnl_same_flow(const struct xrx_agg *a, const struct xrx_seg *s);
int xrx_tnl_outer_flush(struct xrx_agg *a, const struct xrx_seg *s);
void xrx_tnl_start(struct xrx_agg *a, const struct xrx_seg *s);
void xrx_tnl_complete(struct xrx_engine *e, struct xrx_agg *a);

#endif /* XRX_LIB_GRO_GRO_H */
