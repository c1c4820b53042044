/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libxrx internals shared by the engine's files: the private side of a
 * packet (struct xrx_agg), a parsed segment (struct xrx_seg), the flow
 * table and the engine itself. Not installed; not API.
 */
#ifndef XRX_LIB_ENGINE_H
#define XRX_LIB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <xrx/xrx.h>
#include <xrx/parse.h>

#define XRX_IPPROTO_TCP 6
#define XRX_IPPROTO_UDP 17

/* TCP flag bits in byte 13 of the header */
#define XRX_TH_FIN 0x01
#define XRX_TH_SYN 0x02
#define XRX_TH_RST 0x04
#define XRX_TH_PSH 0x08
#define XRX_TH_ACK 0x10
#define XRX_TH_URG 0x20
#define XRX_TH_ECE 0x40
#define XRX_TH_CWR 0x80

/* The IP length above which IPv4 tot_len / IPv6 payload_len read 0. */
#define XRX_IP_MAX_LEN 65535
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
	__u32 hash;
	__u32 payload_len;		/* bytes after the L4 header */
	__u16 headlen;			/* eth_get_headlen() */
	__u16 l3_off;
	__u16 l4_off;
	__u16 hdr_len;			/* l4_off + L4 header length */
	__u16 flags;			/* enum xrx_meta_flags */
	__u8 l4_proto;
	__u8 nr_vlans;
	__u8 result;			/* enum xrx_parse_result */
	__u32 vlan_all;			/* out-of-band tag: proto << 16 | tci,
					 * 0 if none (skb->vlan_all) */
	bool ipv6;
	bool ip_flush;			/* inet/ipv6_gro_receive's own flush:
					 * length mismatch, reserved bit */
	bool ip_short;			/* IP length runs past the frame */
	bool csum_ok;			/* L4 checksum verified good */
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
	__u64 stats[XRX_ENGINE_STAT_MAX];
};

static inline void xrx_count(struct xrx_engine *e, enum xrx_engine_stat s)
{
	e->stats[s]++;
}

static inline __u16 xrx_get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 xrx_get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static inline void xrx_put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* Unaligned loads in host order, for comparing bytes: one mov each. */
static inline __u64 xrx_load64(const __u8 *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __u32 xrx_load32(const __u8 *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Nonzero if the @len bytes at @a and @b differ. Header fields are a few
 * bytes long, so word XORs beat a memcmp() call, as compare_ether_header()
 * and tcp_gro_receive()'s option loop do it: 8-byte words, the last one
 * overlapping its predecessor when @len is not a multiple of 8.
 */
static inline __u64 xrx_bytes_differ(const __u8 *a, const __u8 *b, __u32 len)
{
	__u64 diff = 0;
	__u32 i;

	if (len < 8) {
		for (i = 0; i < len; i++)
			diff |= a[i] ^ b[i];
		return diff;
	}
	/* An Ethernet header, TCP timestamps: two words, no loop */
	for (i = 0; i + 16 < len; i += 8)
		diff |= xrx_load64(a + i) ^ xrx_load64(b + i);
	return diff | (xrx_load64(a + i) ^ xrx_load64(b + i)) |
	       (xrx_load64(a + len - 8) ^ xrx_load64(b + len - 8));
}

/* Fold a 32-bit ones' complement sum to 16 bits, not complemented. */
static inline __u16 xrx_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/*
 * The IPv4 header sum inet_gro_receive() checks with ip_fast_csum(): the
 * five 32-bit words of a 20-byte header (options never reach GRO) added
 * in 64 bits and folded, as the kernel's unrolled version does. Loaded in
 * host order: the sum comes out in host order too (RFC 1071 2(B)), so it
 * is compared with 0xffff or stored back as loaded.
 */
static inline __u16 xrx_ipv4_hdr_sum(const __u8 *iph)
{
	__u64 sum = (__u64)xrx_load32(iph) + xrx_load32(iph + 4) +
		    xrx_load32(iph + 8) + xrx_load32(iph + 12) +
		    xrx_load32(iph + 16);

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return xrx_csum_fold((__u32)sum);
}

static inline bool xrx_ipv4_csum_ok(const __u8 *iph)
{
	return xrx_ipv4_hdr_sum(iph) == 0xffff;
}

/* csum.c */
__u32 xrx_csum_add(const void *data, __u32 len, __u32 sum);
__u32 xrx_csum_add_seg(const struct xrx_seg *s, __u32 off, __u32 len,
		       __u32 sum);
__u32 xrx_csum_pseudo(const __u8 *l3, bool ipv6, __u8 proto, __u32 l4_len);
void xrx_ipv4_csum_set(__u8 *iph);
bool xrx_l4_csum_ok(const struct xrx_seg *s);

/* First aggregate of the chain @hash falls in; walk it with ->hnext. */
static inline struct xrx_agg *
xrx_gro_table_bucket(const struct xrx_gro_table *t, __u32 hash)
{
	return t->buckets[hash & t->mask];
}

/* gro_table.c */
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

#endif /* XRX_LIB_ENGINE_H */
