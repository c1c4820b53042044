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
 * One IP header level of a frame, indexed as the kernel indexes them
 * (NAPI_GRO_CB(skb)->network_offsets[], the per-level bits of
 * ip_fixedid): level 0 is the outer or only IP header, level 1 the one
 * inside a UDP tunnel (VXLAN). The GRO rules on IP headers (same flow,
 * flush, completion) run over the levels; the TCP/UDP rules read the
 * innermost level's transport header, which the segment's and the
 * packet's l3_off/l4_off name too.
 */
#define XRX_LVLS 2

struct xrx_lvl {
	__u16 mac_off;			/* this level's Ethernet header */
	__u16 l3_off;			/* its IPv4 or IPv6 header */
	__u16 l4_off;			/* the UDP (tunnel) or TCP/UDP header */
	bool ipv6;
	__u8 tnl;			/* a tunnel's outer level: its kind
					 * + 1 (enum xrx_tnl_kind), else 0;
					 * levels compare whole */
};

/* 16 bytes the fast path (fast.h) compares at once */
typedef __u64 xrx_fast_vec __attribute__((vector_size(16)));

/*
 * Where head buffers start: on a cache line, so a header of up to 64
 * bytes is one line, and the fast path (fast.h) compares a head's header
 * 16 bytes at a time from aligned addresses.
 */
#define XRX_HEAD_ALIGN 64

/*
 * A packet buffer: the public packet plus what the engine needs while it
 * holds it as an aggregate (the kernel keeps this in NAPI_GRO_CB(skb)).
 * pkt.hdrs are the first segment's, of its innermost frame: pkt.headlen
 * is the aggregate's header length.
 */
struct xrx_agg {
	struct xrx_pkt pkt;		/* first: handed to the consumer */
	struct xrx_frag *frags;		/* pkt.frags, writable */
	__u8 *head;			/* pkt.head, writable; XRX_HEAD_ALIGN */
	__u32 max_frags;
	__u8 state;			/* enum xrx_agg_state */
	bool in_table;			/* held in the flow table */
	__u8 nr_lvls;			/* header levels, 1 or 2 */
	__u8 fixedid;			/* bit i: level i's IPv4 ID is fixed
					 * (NAPI_GRO_CB(p)->ip_fixedid) */
	__u16 count;			/* segments, NAPI_GRO_CB(p)->count */
	__u16 hcount;			/* bucket chain head: its length */
	__u32 held_len;			/* p->len (xrx_agg_start()) */
	__u32 limit;			/* what held_len must stay below */
	__u32 payload;			/* payload bytes so far */
	__u32 mss;			/* first segment's payload */
	struct xrx_lvl lvl[XRX_LVLS];
	__u32 vlan_all;			/* out-of-band tag, as xrx_seg's */
	__u64 born_ns;			/* when the first segment arrived */
	__u64 *seg_ts;			/* each segment's xrx_frame.ts_ns, in
					 * order, room for max_ts */
	__u32 max_ts;
	/* Segment records (segrec.c): the first frame, and whether every
	 * segment's frame stays in place, its header seg_hlen bytes before
	 * its fragment */
	__u64 first_addr;
	__u16 seg_hlen;
	bool seg_inplace;
	bool seg_csum_ok;		/* every segment's L4 checksum verified */
	struct xrx_agg *hnext;		/* flow table bucket chain, older */
	struct xrx_agg *hprev;		/* newer; the chain head: the oldest */
	struct xrx_agg *older, *newer;	/* age list; also the free list */
	/* The one-flow fast path (fast.c): set when the full path merged a
	 * second segment that came with xrx_meta, and the aggregate
	 * qualifies */
	bool fast;
	__u8 fast_slot;			/* its header mask: engine fast_masks[] */
	__u16 fast_min_len;		/* shortest frame that may merge */
	__u32 fast_key;			/* the mask's layout key */
	__u64 fast_ipsum;		/* IPv4 header sum but length, ID, check */
	xrx_fast_vec fast_meta[2];	/* that segment's xrx_meta from
					 * XRX_META_CMP_OFF: bytes 0 .. 15
					 * and 8 .. 23 of it */
};

/*
 * One received frame as the GRO rules see it: parsed (or from xrx_meta),
 * with the bytes in place in the region. A tunnel's entry stage
 * (tunnel.c) moves hdrs and lvl[] on to the frame inside it.
 */
struct xrx_seg {
	const __u8 *data;
	__u64 addr;
	__u32 len;			/* the whole frame, all pieces */
	__u32 first_len;		/* bytes at data (the first piece) */
	const struct xrx_chunk *chunks;	/* the other pieces (multi-buffer), */
	const __u8 *region;		/* at region + chunks[i].addr */
	__u32 nr_chunks;
	XRX_HDRS_GROUP;			/* from xrx_meta or the parser, of
					 * the innermost frame; headlen is
					 * its header length once
					 * xrx_seg_lengths() has checked it */
	__u32 payload_len;		/* bytes after the L4 header */
	__u32 vlan_all;			/* out-of-band tag: proto << 16 | tci,
					 * 0 if none (skb->vlan_all) */
	struct xrx_lvl lvl[XRX_LVLS];
	__u8 nr_lvls;
	bool ip_flush;			/* inet/ipv6_gro_receive's own flush:
					 * length mismatch, reserved bit, on
					 * any level */
	bool ip_short;			/* IP length runs past the frame */
	bool csum_ok;			/* L4 checksum verified good */
	bool csum_partial;		/* ... or held the pseudo-header sum,
					 * taken as CHECKSUM_PARTIAL */
	bool sum_ok;			/* sum is known (CHECKSUM_COMPLETE) */
	__u16 sum_off;
	__u32 sum;			/* plain sum of bytes sum_off .. len,
					 * as a tunnel's UDP check left it
					 * (NAPI_GRO_CB(skb)->csum) */
	const struct xrx_meta *meta;	/* the frame's, if hdrs came from it */
	__u64 ts_ns;			/* xrx_frame.ts_ns */
	bool ts_nic;			/* ... is the NIC's (XRX_FRAME_F_TS_NIC) */
};

/* The innermost level of a segment or aggregate: its TCP/UDP header's. */
#define xrx_inner(x) (&(x)->lvl[(x)->nr_lvls - 1])

/*
 * The network header hdrs describe becomes the segment's level @i, its
 * Ethernet header at @mac_off, and the innermost (inet_gro_receive() and
 * ipv6_gro_receive() set NAPI_GRO_CB(skb)->network_offsets[encap_mark]).
 */
static __always_inline void xrx_seg_enter(struct xrx_seg *s, __u32 i,
					  __u16 mac_off)
{
	s->lvl[i] = (struct xrx_lvl){
		.mac_off = mac_off,
		.l3_off = s->l3_off,
		.l4_off = s->l4_off,
		.ipv6 = s->flags & XRX_META_F_IPV6,
	};
	s->nr_lvls = i + 1;
}

/* Header bytes the fast path compares: up to this many (8 vectors). */
#define XRX_FAST_HDR_MAX 128
#define XRX_FAST_MASKS 4

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

/*
 * Aggregates one hash bucket holds at most: MAX_GRO_SKBS, the kernel's
 * bound per GRO bucket (net/core/gro.c), so that a lookup walks at most
 * this many whoever chose the flows.
 */
#define XRX_GRO_BUCKET_MAX 8

/* The flow table: O(1) lookup by hash, age list for oldest-first. */
struct xrx_gro_table {
	struct xrx_agg **buckets;
	__u32 mask;
	__u32 held;
	__u32 max;
	__u32 bucket_max;		/* XRX_GRO_BUCKET_MAX; 0: unbounded */
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
	__u64 *ts_store;		/* the aggregates' seg_ts */
	__u32 max_segs;			/* per aggregate, TCP */
	__u8 scratch[XRX_HEAD_SIZE];	/* max-head copies of merged frames */
	bool tnl;			/* some tunnel port is configured */
	bool fast_off;			/* fast path disabled (tests) */
	__u64 fast_merged;		/* segments it merged (tests) */
	__u64 fast_runs;		/* runs it merged them in (tests) */
	__u8 fast_next;			/* fast_masks[] slot to take next */
	struct xrx_fast_mask fast_masks[XRX_FAST_MASKS];
	__u64 stats[XRX_ENGINE_STAT_MAX];
};

static inline void xrx_count(struct xrx_engine *e, enum xrx_engine_stat s)
{
	e->stats[s]++;
}

/* @n frames of @bytes in all given to the engine (both paths count so). */
static __always_inline void xrx_count_frames(struct xrx_engine *e, __u32 n,
					     __u64 bytes)
{
	e->stats[XRX_ENGINE_STAT_FRAMES_IN] += n;
	e->stats[XRX_ENGINE_STAT_BYTES_IN] += bytes;
}

/*
 * The rules below are the ones the full path (receive.c) and the fast path
 * (fast.h) both apply, inline and on plain values, so each is written
 * once.
 */

/*
 * The network and transport identity of a flow, as gro_list_prepare(),
 * inet_gro_receive()/ipv6_gro_receive() and tcp_gro_receive() compare it
 * between the held head @h and a new segment's headers @d, whose IP header
 * is at @l3 and TCP/UDP header at @l4 in both: IPv4 protocol and
 * addresses; IPv6 version/flow label, next header, addresses and any
 * extension headers; then the ports (a UDP tunnel's too).
 */
static inline bool xrx_l3l4_same_flow(const __u8 *h, const __u8 *d, __u32 l3,
				      __u32 l4, bool ipv6)
{
	const __u8 *ip = h + l3, *ip2 = d + l3;

	if (ipv6) {
		if ((xrx_get32(ip + XRX_IP6H_VTF) ^
		     xrx_get32(ip2 + XRX_IP6H_VTF)) & ~XRX_IP6_TCLASS_MASK)
			return false;
		if (ip[XRX_IP6H_NEXTHDR] != ip2[XRX_IP6H_NEXTHDR] ||
		    xrx_bytes_differ(ip + XRX_IP6H_SADDR, ip2 + XRX_IP6H_SADDR,
				     32) ||
		    xrx_bytes_differ(ip + XRX_IP6H_LEN, ip2 + XRX_IP6H_LEN,
				     l4 - l3 - XRX_IP6H_LEN))
			return false;
	} else if (ip[XRX_IPH_PROTOCOL] != ip2[XRX_IPH_PROTOCOL] ||
		   xrx_raw64(ip + XRX_IPH_SADDR) !=
			   xrx_raw64(ip2 + XRX_IPH_SADDR)) {
		return false;
	}
	return xrx_raw32(h + l4) == xrx_raw32(d + l4);
}

/*
 * The IPv4 ID the next segment of an aggregate of @count segments must
 * carry on the level whose ip_fixedid bit is @bit of @fixedid (see
 * xrx_ipid_flush()): the first segment's, @first, if the ID is fixed,
 * else @first + @count.
 */
static __always_inline __u16 xrx_ipid_next(__u16 first, __u16 count,
					   __u8 fixedid, __u8 bit)
{
	return first + ((fixedid & bit) ? 0 : count);
}

/*
 * inet_gro_flush()'s IP ID rule for one IPv4 header, whose ID is @id in
 * the segment and @first in the held head (the first segment's, as the
 * kernel reads iph2->id), with @count segments held: the second segment
 * decides whether the header's ID is fixed (same ID, DF or not:
 * mainline's rule since 2025) or incrementing, and sets @bit of
 * *@fixedid, the kernel's ip_fixedid bit of the level. From the third
 * segment on the ID is xrx_ipid_next() or a flush.
 * Return: true if the ID does not follow, a flush.
 */
static __always_inline bool xrx_ipid_flush(__u16 id, __u16 first,
					   __u16 count, __u8 *fixedid,
					   __u8 bit)
{
	if (count == 1 && id == first)
		*fixedid |= bit;
	return id != xrx_ipid_next(first, count, *fixedid, bit);
}

/* The sequence number that continues the TCP aggregate @a. */
static __always_inline __u32 xrx_tcp_next_seq(const struct xrx_agg *a)
{
	return xrx_get32(a->head + a->pkt.l4_off + XRX_TCPH_SEQ) + a->payload;
}

/*
 * tcp_gro_receive(), once the headers compare: a segment of @payload
 * bytes without any ((len - 1) >= mss also ends the aggregate at a pure
 * ACK), one above @mss, or one whose sequence number @seq is not @next
 * (xrx_tcp_next_seq()) flushes it. Return: 0, or the flush counter.
 */
static __always_inline int xrx_tcp_seq_check(__u32 next, __u32 mss, __u32 seq,
					     __u32 payload)
{
	if (unlikely(payload == 0))
		return XRX_ENGINE_STAT_FLUSH_NO_PAYLOAD;
	if (unlikely(payload > mss))
		return XRX_ENGINE_STAT_FLUSH_MSS;
	if (unlikely(seq != next))
		return XRX_ENGINE_STAT_FLUSH_SEQ;
	return 0;
}

/* The same for a segment that would join @a. */
static __always_inline int xrx_tcp_seq_flush(const struct xrx_agg *a,
					     __u32 seq, __u32 payload)
{
	return xrx_tcp_seq_check(xrx_tcp_next_seq(a), a->mss, seq, payload);
}

/*
 * skb_gro_receive()'s refusal: an aggregate of @held bytes, counted as
 * p->len, and @add more reach its @limit (xrx_agg_limit()).
 */
static __always_inline bool xrx_too_big(__u32 held, __u32 add, __u32 limit)
{
	return held + add >= limit;
}

/* Fragment @f: @len bytes at @data, of the frame at @addr. */
static __always_inline void xrx_frag_set(struct xrx_frag *f, const __u8 *data,
					 __u32 len, __u64 addr)
{
	f->data = data;
	f->len = len;
	f->pad = 0;
	f->addr = addr;
}

/* One fragment more for @a (xrx_frag_set()). */
static __always_inline void xrx_frag_add(struct xrx_agg *a, const __u8 *data,
					 __u32 len, __u64 addr)
{
	xrx_frag_set(&a->frags[a->pkt.nr_frags++], data, len, addr);
}

/*
 * skb_gro_receive(), once the payload is appended: what @segs more
 * segments of @payload bytes in all add to the aggregate's length, count
 * and sizes.
 */
/* Segment @i (from 0) of @a arrived at @ts_ns, by the NIC's clock if
 * @nic; the last so far. */
static __always_inline void xrx_agg_seg_time(struct xrx_agg *a, __u32 i,
					     __u64 ts_ns, bool nic)
{
	if (likely(i < a->max_ts))
		a->seg_ts[i] = ts_ns;
	a->pkt.ts_last_ns = ts_ns;
	a->pkt.ts_flags = (a->pkt.ts_flags & ~XRX_PKT_TS_NIC_LAST) |
			  (nic ? XRX_PKT_TS_NIC_LAST : 0);
}

static __always_inline void xrx_agg_grow(struct xrx_engine *e,
					 struct xrx_agg *a, __u32 segs,
					 __u32 payload)
{
	a->pkt.len += payload;
	a->count += segs;
	a->held_len += payload;
	a->payload += payload;
	e->stats[XRX_ENGINE_STAT_SEGS_MERGED] += segs;
}

/*
 * After a merge of @payload bytes into an aggregate of @count segments:
 * does it end here, shorter than @mss (tcp_gro_receive()'s
 * out_check_final, the UDP rule) or at @max segments? The flags that end
 * it are the caller's to check. Return: 0, or the complete counter.
 */
static __always_inline int xrx_complete_len(__u32 payload, __u32 mss,
					    __u32 count, __u32 max)
{
	if (payload < mss)
		return XRX_ENGINE_STAT_COMPLETE_SHORT;
	if (count >= max)
		return XRX_ENGINE_STAT_COMPLETE_SEGS;
	return 0;
}

/* csum.c: what needs a segment; the rest is in csum.h */
__u32 xrx_csum_add_seg(const struct xrx_seg *s, __u32 off, __u32 len,
		       __u32 sum);
bool xrx_l4_csum_ok(const struct xrx_seg *s);
bool xrx_l4_csum_partial(const struct xrx_seg *s);
bool xrx_l4_csum_ok_flat(const __u8 *l3, const __u8 *l4, bool ipv6,
			 __u8 proto, __u32 l4_len);

/* First aggregate of the chain @hash falls in; walk it with ->hnext. */
static inline struct xrx_agg *
xrx_gro_table_bucket(const struct xrx_gro_table *t, __u32 hash)
{
	return t->buckets[hash & t->mask];
}

/*
 * gro_flush_oldest()'s victim: the oldest aggregate of @hash's bucket if
 * the bucket is full, which the caller delivers before it holds one more
 * there; NULL if there is room. The chain head keeps the count and the
 * oldest (flow_table.c).
 */
static inline struct xrx_agg *
xrx_gro_table_crowded(const struct xrx_gro_table *t, __u32 hash)
{
	const struct xrx_agg *head = t->buckets[hash & t->mask];

	if (!head || head->hcount < t->bucket_max || !t->bucket_max)
		return NULL;
	return head->hprev;
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
	if (e->opts.copy != XRX_COPY_HEADER || s->nr_chunks)
		xrx_head_append_pieces(e, a, s);
	else
		xrx_frag_add(a, s->data + s->headlen, s->payload_len, s->addr);
}

/* receive.c */
void xrx_gro_receive(struct xrx_engine *e, const struct xrx_seg *s,
		     __u64 now_ns);
void xrx_gro_single(struct xrx_engine *e, const struct xrx_seg *s, int why);

/* complete.c */
void xrx_deliver(struct xrx_engine *e, struct xrx_agg *a,
		 enum xrx_engine_stat reason);

/* fast.c: the one-flow fast path; its entry is in fast.h */
void xrx_fast_start(struct xrx_engine *e, struct xrx_agg *a,
		    const struct xrx_seg *s);

/*
 * tunnel.c: VXLAN's entry stage, which checks a frame's outer headers and
 * moves the segment on to the frame inside (Return: 0, also for a frame
 * that is no VXLAN, or why it goes alone), and its exit stage, which
 * completes the UDP header around level @l of an aggregate (Return: the
 * gso_flags it adds).
 */
int xrx_tnl_frame(struct xrx_engine *e, struct xrx_seg *s);
int xrx_tnl_opts_check(const struct xrx_engine_opts *o, bool *any);

/*
 * A tunnel kind (include/xrx/tunnel.h), described once: its name, the
 * IANA port, where its ports are in the options, and its counters (the
 * reasons a frame of the kind goes alone: tunnel header cut short, the
 * kind's own refusal (GENEVE OAM), a protocol type without Ethernet
 * inside, an inner frame without GRO).
 */
struct xrx_tnl_desc {
	const char *name;
	__u16 iana_port;
	size_t ports_off;		/* __u16[XRX_TNL_PORTS_MAX] */
	size_t nr_ports_off;		/* __u32 */
	enum xrx_engine_stat frames_in, aggs_out;
	enum xrx_engine_stat single_short, single_alone, single_proto,
		single_inner;
};

extern const struct xrx_tnl_desc xrx_tnl_descs[XRX_TNL_KINDS];
__u8 xrx_tnl_complete(struct xrx_engine *e, struct xrx_agg *a,
		      const struct xrx_lvl *l);

#endif /* XRX_LIB_GRO_GRO_H */
