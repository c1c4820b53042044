// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target: the GRO engine (include/xrx/engine.h) fed a sequence of
 * frames and calls the input chooses.
 *
 * Input: 6 option bytes, then operations until the input ends:
 *
 *   byte 0   bits 0-1 copy mode (3 = header), bit 2 csum trust, bit 3 UDP
 *            GRO, bit 4 hold delivered packets until the next batch,
 *            bit 5 hand frames xrx_meta (as xrx_rx writes it), bit 6
 *            corrupt that metadata from the input, bit 7 flush timeout
 *   byte 1   flows - 1 (bits 0-5), max_chunks (bits 6-7: 1, 4, 18, 18),
 *   byte 2   max_aggregate (table below),
 *   byte 3   max_segs, byte 4 pkts (0: 2 * flows + 8, 0x80: the default;
 *            bit 7 also: at most 2 aggregates per hash bucket, not 8),
 *   byte 5   timeout / 10 us (only with bit 7 of byte 0)
 *
 *   op 0x00-0x3d  raw frame: 2 length bytes, then that many bytes
 *   op 0x3e       the next frame is multi-buffer (XRX_FRAME_F_CHAIN): a
 *                 byte for its first piece, then one per further chunk
 *   op 0x3f       a frame outside the region (must be dropped, released)
 *   op 0x40-0x9f  a frame of one of 4 flows x 8 kinds built with
 *                 user/util/frames.h, next in sequence unless the
 *                 parameter bytes say otherwise (gap, retransmit, flags,
 *                 bad checksum, one byte changed)
 *   op 0xa0-0xbf  end of batch: xrx_engine__rx() on the frames so far,
 *                 the clock moving on by (op & 31) * 50 us
 *   op 0xc0-0xdf  xrx_engine__flush_all()
 *   op 0xe0-0xef  xrx_engine__flush_oldest(op & 15)
 *   op 0xf0-0xff  xrx_engine__flush(now), held packets released
 *
 * Well-formed flows let the fuzzer reach the merge paths quickly; raw
 * frames and single-byte changes reach the rest. Invariants (see the
 * ownership rules in xrx.h): every piece of every frame released exactly
 * once, never while a delivered packet still references it; a packet's
 * bytes are its head plus fragments that lie inside their pieces; a
 * single frame comes out byte-identical; an aggregate keeps the size and segment limits;
 * no hash bucket holds more than its bound;
 * per flow, no more bytes come out than went in; the counters agree;
 * every packet's reason has words (include/xrx/explain.h), which fit,
 * and the per-flow summary of them counts every packet.
 */
#include "fuzz.h"

#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>
#include <xrx/engine.h>
#include "gro/engine_priv.h"	/* the bucket bound's test switch */
#include <xrx/explain.h>

#include "util/frames.h"

#define SLOT 2048		/* region bytes per frame piece */
#define MAX_SLOTS 512
#define MAX_FRAMES 256
#define REGION (SLOT * MAX_SLOTS)
#define FRAME_MAX 9216		/* a jumbo frame, in pieces */
#define CHUNKS_TRY (XRX_CHUNKS_MAX + 2)	/* a few more than allowed */
#define NR_FLOWS 4
#define NR_KINDS 8
#define HASHES 64		/* per-flow byte accounting, open addressing */

static const __u32 max_aggs[] = { 0, 1024, 1500, 3000, 9000, 65536,
				  65537, 131072, 524280 };
static const __u32 max_chunks[] = { 0, 4, XRX_CHUNKS_MAX, XRX_CHUNKS_MAX };

struct flow_state {
	__u32 seq;
	__u16 ip_id;
};

struct hash_bytes {
	__u32 hash;
	int used;
	__u64 in, out;
};

static struct fuzz {
	__u8 region[REGION];
	struct xrx_frame frames[MAX_FRAMES];
	struct xrx_chunk chunks[MAX_FRAMES][CHUNKS_TRY];
	struct xrx_meta metas[MAX_FRAMES];
	__u8 bytes[MAX_FRAMES][FRAME_MAX];	/* each frame whole */
	__u32 frame_len[MAX_FRAMES];		/* all its pieces */
	/* Per slot (one frame piece): its frame, length, ownership. */
	int slot_frame[MAX_SLOTS];
	__u32 slot_len[MAX_SLOTS];
	int submitted[MAX_SLOTS];
	int released[MAX_SLOTS];
	__u32 nr;			/* frames laid out */
	__u32 nr_slots;
	__u32 batch_start;		/* first frame not yet submitted */
	int chain_next;			/* op 0x3e: lay the next one in pieces */
	struct xrx_engine *e;
	struct xrx_engine_opts o;
	__u32 max_segs;			/* effective, as xrx.h documents */
	bool hold, lying_meta;
	struct xrx_pkt *held[MAX_FRAMES * 2];
	__u32 nr_held;
	__u64 now;
	__u64 pkts, bytes_out;
	struct flow_state flows[NR_FLOWS][NR_KINDS];
	struct hash_bytes hb[HASHES];
	struct xrx_explain *x;		/* the packets' reasons, per flow */
} F;

static struct hash_bytes *hb_get(__u32 hash)
{
	__u32 i, k;

	for (i = 0; i < HASHES; i++) {
		k = (hash + i) % HASHES;
		if (!F.hb[k].used) {
			F.hb[k].used = 1;
			F.hb[k].hash = hash;
			return &F.hb[k];
		}
		if (F.hb[k].hash == hash)
			return &F.hb[k];
	}
	return NULL;	/* table full: that flow goes unaccounted */
}

/*
 * Slot of a released or referenced address: region slots, and the
 * out-of-region addresses op 0x3f hands out (REGION + slot * SLOT).
 * Return: -1 if no piece was laid out there.
 */
static int slot_of(__u64 addr)
{
	__u64 i;

	if (addr >= REGION)
		addr -= REGION;
	i = addr / SLOT;
	if (addr % SLOT || i >= F.nr_slots)
		return -1;
	return (int)i;
}

static void check_frags_live(const struct xrx_pkt *pkt, const char *when)
{
	__u32 i;

	for (i = 0; i < pkt->nr_frags; i++) {
		const struct xrx_frag *f = &pkt->frags[i];
		int k = slot_of(f->addr);
		const __u8 *base;

		FZ_CHECK(k >= 0 && f->addr < REGION && F.submitted[k],
			 "%s: frag %u addr %llu", when, i,
			 (unsigned long long)f->addr);
		FZ_CHECK(!F.released[k], "%s: frag %u references piece %d, "
			 "already released", when, i, k);
		base = F.region + (__u64)k * SLOT;
		FZ_CHECK(f->data >= base && f->data + f->len <= base + F.slot_len[k],
			 "%s: frag %u (%u bytes at +%td) outside piece %d (%u bytes)",
			 when, i, f->len, f->data - base, k, F.slot_len[k]);
	}
}

static void on_release(void *ctx, __u64 addr)
{
	int k = slot_of(addr);

	FZ_CHECK(k >= 0, "released unknown addr %llu", (unsigned long long)addr);
	FZ_CHECK(F.submitted[k], "piece %d released before it was given", k);
	FZ_CHECK(!F.released[k], "piece %d (frame %d) released twice", k,
		 F.slot_frame[k]);
	F.released[k] = 1;
}

/* Whatever its bytes, a delivered packet's reason is explained. */
static void check_explained(const struct xrx_pkt *pkt)
{
	char text[XRX_EXPLAIN_MAX];
	struct xrx_why why;
	int n;

	FZ_CHECK(!xrx_pkt__why(pkt, &why) && why.kind != XRX_WHY_NONE,
		 "reason %s has no explanation",
		 xrx_engine_stat__name(pkt->reason));
	n = xrx_pkt__explain(pkt, F.o.max_aggregate, text, sizeof(text));
	FZ_CHECK(n > 0 && n < (int)sizeof(text) && !text[n] &&
			 strlen(text) == (size_t)n,
		 "explanation of %d bytes", n);
	FZ_CHECK(!xrx_explain__add(F.x, pkt), "xrx_explain__add failed");
}

static void on_deliver(void *ctx, struct xrx_pkt *pkt)
{
	static __u8 flat[FRAME_MAX];
	__u32 i, len = pkt->head_len, acct = pkt->hash;
	struct xrx_parsed r;
	struct hash_bytes *h;

	FZ_CHECK(pkt->head_len <= pkt->len, "head_len %u > len %u",
		 pkt->head_len, pkt->len);
	if (F.o.copy != XRX_COPY_FULL)
		FZ_CHECK(pkt->head_len <= XRX_HEAD_SIZE, "head_len %u",
			 pkt->head_len);
	for (i = 0; i < pkt->nr_frags; i++)
		len += pkt->frags[i].len;
	FZ_CHECK(len == pkt->len, "head %u + frags = %u, len %u",
		 pkt->head_len, len, pkt->len);
	check_frags_live(pkt, "deliver");
	FZ_CHECK(pkt->gso_segs >= 1, "gso_segs 0");
	FZ_CHECK(pkt->gso_type <= XRX_GSO_UDP_L4, "gso_type %u", pkt->gso_type);
	FZ_CHECK(pkt->reason < XRX_ENGINE_STAT_MAX, "reason %u", pkt->reason);
	check_explained(pkt);

	if (pkt->gso_type == XRX_GSO_NONE) {
		FZ_CHECK(pkt->gso_segs == 1, "single with %u segs",
			 pkt->gso_segs);
		/* Held alone or never held: byte-identical to its frame. */
		if (pkt->nr_frags && pkt->len <= FRAME_MAX) {
			int k = F.slot_frame[slot_of(pkt->frags[0].addr)];
			__u32 off = pkt->head_len;

			memcpy(flat, pkt->head, pkt->head_len);
			for (i = 0; i < pkt->nr_frags; i++) {
				memcpy(flat + off, pkt->frags[i].data,
				       pkt->frags[i].len);
				off += pkt->frags[i].len;
			}
			FZ_CHECK(pkt->len == F.frame_len[k] &&
				 !memcmp(flat, F.bytes[k], pkt->len),
				 "single of %u bytes from frame %d (%u bytes) differs from it",
				 pkt->len, k, F.frame_len[k]);
		}
		/*
		 * A single is accounted to the flow its bytes parse to, as
		 * its frame was: one the parser calls malformed (an IP length
		 * past the frame) still carries the hash of the flow whose
		 * aggregate it flushed (inet_gro_receive()).
		 */
		if (!pkt->nr_frags || pkt->len <= FRAME_MAX) {
			const __u8 *b = pkt->nr_frags ? flat : pkt->head;

			xrx_parse(b, pkt->len < XRX_PARSE_WINDOW ? pkt->len :
				  XRX_PARSE_WINDOW, pkt->len, &r, &F.o.hash_key);
			acct = r.hash;
		}
	} else {
		FZ_CHECK(pkt->gso_segs >= 2 && pkt->gso_segs <=
			 (pkt->gso_type == XRX_GSO_UDP_L4 ? XRX_UDP_SEGS_MAX :
							    F.max_segs),
			 "gso_segs %u (max_segs %u)", pkt->gso_segs, F.max_segs);
		FZ_CHECK(pkt->len - pkt->l3_off <=
			 (F.o.max_aggregate ?: XRX_AGGREGATE_DEFAULT),
			 "aggregate of %u bytes from the network header, limit %u",
			 pkt->len - pkt->l3_off, F.o.max_aggregate);
		FZ_CHECK(pkt->gso_size > 0, "aggregate with gso_size 0");
	}

	F.pkts++;
	F.bytes_out += pkt->len;
	if (!F.lying_meta && (h = hb_get(acct)))
		h->out += pkt->len;

	if (F.hold && F.nr_held < sizeof(F.held) / sizeof(F.held[0]))
		F.held[F.nr_held++] = pkt;
	else
		xrx_pkt__release(F.e, pkt);
}

static void release_held(void)
{
	__u32 i;

	for (i = 0; i < F.nr_held; i++) {
		check_frags_live(F.held[i], "release");
		xrx_pkt__release(F.e, F.held[i]);
	}
	F.nr_held = 0;
}

static void mark_given(const struct xrx_frame *f)
{
	__u32 i;

	F.submitted[slot_of(f->addr)] = 1;
	if (f->flags & XRX_FRAME_F_CHAIN)
		for (i = 0; i < f->nr_chunks; i++)
			F.submitted[slot_of(f->chunks[i].addr)] = 1;
}

/*
 * Every hash bucket within its bound, its chain whole (flow_table.c): the
 * head knows the length and the oldest, every other entry its newer
 * neighbour.
 */
static void check_buckets(void)
{
	const struct xrx_gro_table *t = &F.e->table;
	const struct xrx_agg *a, *head, *newer;
	__u32 i, n, all = 0;

	for (i = 0; i <= t->mask; i++) {
		n = 0;
		head = t->buckets[i];
		for (a = head, newer = NULL; a; newer = a, a = a->hnext) {
			FZ_CHECK((a->pkt.hash & t->mask) == i,
				 "aggregate of hash %#x in bucket %u",
				 a->pkt.hash, i);
			FZ_CHECK(a == head || a->hprev == newer,
				 "bucket %u: entry %u's newer link broken", i, n);
			n++;
		}
		FZ_CHECK(!head || (head->hcount == n && head->hprev == newer),
			 "bucket %u: head says %u entries, oldest %p; %u, %p",
			 i, head ? head->hcount : 0,
			 head ? (void *)head->hprev : NULL, n, (void *)newer);
		FZ_CHECK(n <= t->bucket_max, "bucket %u holds %u (bound %u)",
			 i, n, t->bucket_max);
		all += n;
	}
	FZ_CHECK(all == t->held, "buckets hold %u, the table %u", all,
		 t->held);
}

static void submit(void)
{
	__u32 i, n = F.nr - F.batch_start, held;
	int ret;

	for (i = F.batch_start; i < F.nr; i++)
		mark_given(&F.frames[i]);
	ret = xrx_engine__rx(F.e, F.frames + F.batch_start, n, F.now);
	FZ_CHECK(ret == (int)n, "xrx_engine__rx %d of %u", ret, n);
	F.batch_start = F.nr;
	/* Without a timeout a batch's end flushes everything held. */
	held = xrx_engine__held(F.e);
	FZ_CHECK(held <= F.o.flows && (F.o.flush_timeout_us || !held),
		 "%u aggregates held after a batch (flows %u, timeout %u us)",
		 held, F.o.flows, F.o.flush_timeout_us);
	FZ_CHECK(held || !xrx_engine__next_timeout(F.e),
		 "a timeout with nothing held");
	check_buckets();
}

/* A new slot for one piece of frame @k, @len bytes from @src. */
static __u64 slot_add(__u32 k, const __u8 *src, __u32 len)
{
	__u32 sl = F.nr_slots++;

	F.slot_frame[sl] = (int)k;
	F.slot_len[sl] = len;
	memcpy(F.region + (__u64)sl * SLOT, src, len);
	return (__u64)sl * SLOT;
}

/*
 * Lay frame @k (F.bytes[k], F.frame_len[k] bytes) into the region: one
 * slot, or after op 0x3e a first piece of at least min(len, 256) bytes
 * and chunks of input-chosen sizes. Account it for its flow, and give it
 * metadata if asked.
 */
static void frame_place(struct fz *c, __u32 k, bool meta)
{
	struct xrx_frame *f = &F.frames[k];
	const __u8 *b = F.bytes[k];
	__u32 len = F.frame_len[k], first, off, n;
	struct xrx_parsed r;
	struct xrx_tnl_parsed t;
	struct hash_bytes *h;

	memset(f, 0, sizeof(*f));
	if (!F.chain_next || F.nr_slots + CHUNKS_TRY > MAX_SLOTS) {
		if (len > SLOT)
			len = F.frame_len[k] = SLOT;
		f->addr = slot_add(k, b, len);
		f->len = len;
	} else {
		first = len < XRX_HEAD_SIZE ? len : XRX_HEAD_SIZE;
		first += (fz_u8(c) * 8) % (SLOT - first + 1);
		if (first > len)
			first = len;
		f->addr = slot_add(k, b, first);
		f->len = first;
		f->flags = XRX_FRAME_F_CHAIN;
		f->chunks = F.chunks[k];
		for (off = first; off < len && f->nr_chunks < CHUNKS_TRY; off += n) {
			n = 1 + (fz_u8(c) * 8) % SLOT;
			if (n > len - off || f->nr_chunks + 1 == CHUNKS_TRY)
				n = len - off < SLOT ? len - off : SLOT;
			F.chunks[k][f->nr_chunks].addr = slot_add(k, b + off, n);
			F.chunks[k][f->nr_chunks].len = n;
			f->nr_chunks++;
		}
		F.frame_len[k] = len = off;
	}
	F.chain_next = 0;

	/* What xrx_rx sees: the frame whole. */
	xrx_parse(b, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len, &r,
		  &F.o.hash_key);
	if (!F.lying_meta && (h = hb_get(r.hash)))
		h->in += len;
	/* A VXLAN frame the engine takes past its outer checks is delivered
	 * under the tunnel hash (outer + VNI + inner): count it there too. */
	if (!F.lying_meta && r.result == XRX_PARSE_L4 && r.dport == 4789 &&
	    xrx_parse_vxlan(b, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW,
			    len, &r, &t, &F.o.hash_key) == XRX_TNL_VXLAN &&
	    (h = hb_get(t.inner.hash)))
		h->in += len;
	/* ... and so is a GENEVE one (port 6081 below). */
	if (!F.lying_meta && r.result == XRX_PARSE_L4 && r.dport == 6081 &&
	    xrx_parse_tnl(b, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW,
			  len, &r, XRX_TNL_K_GENEVE, &t, &F.o.hash_key) ==
		    XRX_TNL_VXLAN &&
	    (h = hb_get(t.inner.hash)))
		h->in += len;
	if (!meta)
		return;
	xrx_meta_fill(&F.metas[k], &r);
	if (F.lying_meta && (fz_u8(c) & 1)) {
		size_t got;
		const __u8 *m = fz_bytes(c, sizeof(F.metas[k]), &got);

		memcpy(&F.metas[k], m, got);
	}
	f->meta = &F.metas[k];
}

static void op_raw(struct fz *c, __u32 k, bool meta)
{
	__u32 want = fz_u16(c) % (F.chain_next ? FRAME_MAX : SLOT);
	size_t got;
	const __u8 *b = fz_bytes(c, want, &got);

	memcpy(F.bytes[k], b, got);
	memset(F.bytes[k] + got, 0, want - got);
	F.frame_len[k] = want;
	frame_place(c, k, meta);
}

static void op_template(struct fz *c, __u32 op, __u32 k, bool meta)
{
	__u32 fl = op & 3, kind = (op >> 2) & 7, p = fz_u8(c);
	struct flow_state *st = &F.flows[fl][kind];
	struct frame_spec s;
	int len;

	switch (kind) {
	case 0:
	case 4:
	case 6:
		frame_spec_tcp4(&s);
		break;
	case 1:
	case 5:
		frame_spec_tcp6(&s);
		break;
	case 2:
	case 7:
		frame_spec_udp4(&s);
		break;
	default:
		frame_spec_udp6(&s);
		break;
	}
	if (kind == 4) {
		s.nr_vlans = 1;
		s.vlan_tci[0] = 100;
	} else if (kind == 7) {
		s.nr_vlans = 2;
		s.vlan_tpid[0] = 0x88a8;
	} else if (kind == 5) {
		s.ext[0].type = 60;
		s.ext[0].len = 8;
		s.nr_ext = 1;
	} else if (kind == 6) {
		s.tcp_opts = NULL;
		s.tcp_opts_len = 0;
	}
	s.sport = 40000 + fl;
	s.payload_len = (p & 0x80) ? fz_u16(c) % (F.chain_next ? 9001 : 1601) :
				     1448;
	if (s.l4 == 17 && s.payload_len > 1472 && !F.chain_next)
		s.payload_len = 1472;
	if (p & 0x01)
		st->seq += fz_u8(c) + 1;		/* gap */
	if (p & 0x02)
		st->seq -= s.payload_len;		/* retransmit */
	s.seq = st->seq;
	s.ip_id = st->ip_id;
	if (p & 0x04)
		s.tcp_flags = fz_u8(c);			/* any flags */
	if (p & 0x08) {					/* IP header fields */
		__u32 v = fz_u8(c);

		s.frag_off = v & 1 ? 0x4000 : 0;
		s.ttl = v & 2 ? 1 : s.ttl;
		s.tos = v & 4 ? 0x10 : s.tos;
		s.ip_id = v & 8 ? s.ip_id : (__u16)(st->ip_id + v);
		s.pad = v & 0x10 ? v >> 5 : 0;
		s.window = v & 0x80 ? 17 : s.window;
	}
	if (p & 0x10)
		s.bad_l4_csum = 1;
	len = frame_build(&s, F.bytes[k], FRAME_MAX);
	if (len < 0)
		len = 0;
	if (p & 0x20 && len) {				/* one byte changed */
		__u32 at = fz_u8(c) % (__u32)len;

		F.bytes[k][at] ^= fz_u8(c) | 1;
	}
	if (p & 0x40 && len)				/* cut short */
		len -= fz_u8(c) % (__u32)len;
	st->seq = s.seq + s.payload_len;
	st->ip_id++;
	F.frame_len[k] = (__u32)len;
	frame_place(c, k, meta);
}

/* The summary, as JSON into memory, counts every packet delivered. */
static void check_summary(void)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned long long pkts;

	FZ_CHECK(f, "open_memstream");
	FZ_CHECK(!xrx_explain__print(F.x, f, true), "xrx_explain__print");
	fclose(f);
	p = strstr(buf, "\"pkts_out\": ");
	FZ_CHECK(p && sscanf(p, "\"pkts_out\": %llu", &pkts) == 1 &&
			 pkts == F.pkts,
		 "summary counts %s packets, %llu were delivered",
		 p ? p : "no", (unsigned long long)F.pkts);
	free(buf);
}

static void reset(void)
{
	/* The region is rewritten piece by piece; only state is cleared. */
	memset(F.submitted, 0, sizeof(F.submitted));
	memset(F.released, 0, sizeof(F.released));
	memset(F.flows, 0, sizeof(F.flows));
	memset(F.hb, 0, sizeof(F.hb));
	F.nr = F.nr_slots = F.batch_start = F.nr_held = 0;
	F.chain_next = 0;
	F.now = 1000000000ull;
	F.pkts = F.bytes_out = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	__u64 st[XRX_ENGINE_STAT_MAX];
	struct fz c;
	__u32 b0, b, i;
	bool meta;

	reset();
	fz_init(&c, data, size);
	b0 = fz_u8(&c);
	memset(&F.o, 0, sizeof(F.o));
	F.o.sz = sizeof(F.o);
	F.o.region = F.region;
	F.o.region_size = REGION;
	F.o.copy = (b0 & 3) == 3 ? XRX_COPY_HEADER : (enum xrx_copy_mode)(b0 & 3);
	F.o.csum = b0 & 4 ? XRX_CSUM_TRUST : XRX_CSUM_VERIFY;
	F.o.udp = b0 & 8;
	F.hold = b0 & 16;
	meta = b0 & 32;
	F.lying_meta = meta && (b0 & 64);
	b = fz_u8(&c);
	F.o.flows = 1 + (b & 0x3f);
	F.o.max_chunks = max_chunks[b >> 6];
	F.o.max_aggregate = max_aggs[fz_u8(&c) % (sizeof(max_aggs) / sizeof(max_aggs[0]))];
	F.o.max_segs = fz_u8(&c);
	b = fz_u8(&c);
	F.o.pkts = b & 0x7f;
	/* The default pool (flows + 1024 packets) costs more to set up
	 * than a whole run: only byte 0x80 asks for it. */
	if (b == 0)
		F.o.pkts = 2 * F.o.flows + 8;
	F.o.flush_timeout_us = b0 & 128 ? fz_u8(&c) * 10 : 0;
	/* Always: UDP to 4789 from any input takes the VXLAN rules. */
	F.o.nr_vxlan_ports = 1;
	F.o.vxlan_ports[0] = 4789;
	/* ... and UDP to 6081 the GENEVE ones. */
	F.o.nr_geneve_ports = 1;
	F.o.geneve_ports[0] = 6081;
	F.o.deliver = on_deliver;
	F.o.release_frame = on_release;
	F.o.hash_key = (struct xrx_hash_key)FZ_HASH_KEY;
	F.max_segs = F.o.max_segs;
	if (!F.max_segs) {
		__u32 agg = F.o.max_aggregate ?: XRX_AGGREGATE_DEFAULT;

		F.max_segs = agg / 1024 > XRX_SEGS_DEFAULT ? agg / 1024 :
							     XRX_SEGS_DEFAULT;
	}
	F.e = xrx_engine__new(&F.o);
	FZ_CHECK(F.e, "xrx_engine__new refused valid options: %s",
		 strerror(errno));
	/* The pool byte's top bit (unused by it): buckets of two, so that
	 * flows meet full buckets (flush_bucket_full) without knowing
	 * which share one. */
	if (b & 0x80)
		xrx_engine_bucket_max(F.e, 2);
	F.x = xrx_explain__new(F.o.max_aggregate);
	FZ_CHECK(F.x, "xrx_explain__new: no memory");

	while (fz_left(&c) && F.nr < MAX_FRAMES &&
	       F.nr_slots + CHUNKS_TRY < MAX_SLOTS) {
		__u32 op = fz_u8(&c), k = F.nr;

		if (op == 0x3e) {
			F.chain_next = 1;
		} else if (op < 0xa0) {
			F.nr++;
			if (op < 0x3e) {
				op_raw(&c, k, meta);
			} else if (op == 0x3f) {
				memset(&F.frames[k], 0, sizeof(F.frames[k]));
				F.frame_len[k] = 64;
				F.slot_frame[F.nr_slots] = (int)k;
				F.slot_len[F.nr_slots] = 64;
				F.frames[k].addr = REGION + (__u64)F.nr_slots++ * SLOT;
				F.frames[k].len = 64;
			} else {
				op_template(&c, op, k, meta);
			}
		} else {
			submit();
			if (op < 0xc0) {
				F.now += (op & 31) * 50000ull;
				release_held();
			} else if (op < 0xe0) {
				xrx_engine__flush_all(F.e);
			} else if (op < 0xf0) {
				xrx_engine__flush_oldest(F.e, op & 15);
			} else {
				xrx_engine__flush(F.e, F.now);
				release_held();
			}
		}
	}
	submit();
	release_held();
	xrx_engine__stats(F.e, st);
	FZ_CHECK(st[XRX_ENGINE_STAT_PKTS_OUT] == F.pkts &&
		 st[XRX_ENGINE_STAT_BYTES_OUT] == F.bytes_out,
		 "pkts_out %llu bytes_out %llu, delivered %llu/%llu",
		 (unsigned long long)st[XRX_ENGINE_STAT_PKTS_OUT],
		 (unsigned long long)st[XRX_ENGINE_STAT_BYTES_OUT],
		 (unsigned long long)F.pkts, (unsigned long long)F.bytes_out);
	F.hold = false;
	xrx_engine__free(F.e);
	F.e = NULL;
	check_summary();	/* the packets free() delivered too */
	xrx_explain__free(F.x);
	F.x = NULL;

	for (i = 0; i < F.nr_slots; i++)
		FZ_CHECK(F.released[i], "piece %u of frame %d never released",
			 i, F.slot_frame[i]);
	FZ_CHECK(st[XRX_ENGINE_STAT_FRAMES_IN] == F.nr, "frames_in %llu of %u",
		 (unsigned long long)st[XRX_ENGINE_STAT_FRAMES_IN], F.nr);
	for (i = 0; i < HASHES; i++)
		FZ_CHECK(F.hb[i].out <= F.hb[i].in,
			 "flow %#x: %llu bytes out, %llu in", F.hb[i].hash,
			 (unsigned long long)F.hb[i].out,
			 (unsigned long long)F.hb[i].in);
	return 0;
}
