// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Properties of the GRO engine on random trains (fixed seeds, so a
 * failure reproduces): 1 to 10000 interleaved flows, random segment sizes,
 * reordering, duplicates, losses, flag/option/TTL/window changes and
 * malformed frames, fed in random batch sizes.
 *
 * Whatever the engine decides to merge, these must hold:
 *   - every frame is released exactly once;
 *   - re-segmenting each delivered aggregate at gso_size gives pieces
 *     that, together with the frames delivered alone, are exactly the
 *     input frames' payloads: per flow the multiset of (sequence number,
 *     payload bytes) out equals the one in (for UDP, of payloads);
 *   - a frame that is not TCP/UDP with consistent lengths comes out
 *     byte-identical;
 *   - an aggregate's IPv4 header checksum is valid.
 *
 * Flows and pieces are found by a parser of this file's own, not by
 * libxrx's: the check does not share code with what it checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include <xrx/engine.h>
#include <xrx/parse.h>
#include "util/frames.h"
#include "gro/engine_priv.h"	/* the fast path's switch */

#define FRAME_ALIGN 64
#define MAX_FRAME 2048

/* xorshift64*: a fixed, portable sequence per seed. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static __u32 rnd(__u64 *s, __u32 n)
{
	return n ? (__u32)(rng_next(s) >> 32) % n : 0;
}

/* One unit of payload: a frame's, or one gso_size chunk of an aggregate. */
struct piece {
	__u8 raw;		/* not parsable TCP/UDP: the whole frame */
	__u8 family;
	__u8 proto;
	__u8 pad;
	__u16 sport;
	__u16 dport;
	__u32 seq;		/* TCP; 0 for UDP and raw */
	__u32 len;
	__u64 hash;		/* FNV-1a of the bytes */
};

static __u64 fnv(const __u8 *p, __u32 len)
{
	__u64 h = 0xcbf29ce484222325ull;
	__u32 i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static __u32 rd16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

static __u32 rd32(const __u8 *p)
{
	return rd16(p) << 16 | rd16(p + 2);
}

struct l4view {
	__u8 family, proto;
	__u16 sport, dport;
	__u32 seq;
	__u32 l3, payload_off, end;	/* end: IP packet end in the frame */
};

/*
 * Parse Ethernet (two VLAN tags at most) / IPv4 or IPv6 (hop-by-hop,
 * routing, destination options) / TCP or UDP. IP length 0 means "the
 * frame's length" (BIG TCP aggregates). Return: 0, or -1 when the frame
 * is not TCP/UDP with consistent lengths.
 */
static int parse_l4(const __u8 *f, __u32 len, struct l4view *v)
{
	__u32 off = 14, type, nh, l4, ihl, iplen;
	int tags = 0;

	memset(v, 0, sizeof(*v));
	if (len < 14)
		return -1;
	type = rd16(f + 12);
	while ((type == 0x8100 || type == 0x88a8) && tags < 2) {
		if (off + 4 > len)
			return -1;
		type = rd16(f + off + 2);
		off += 4;
		tags++;
	}
	v->l3 = off;
	if (type == 0x0800) {
		if (off + 20 > len || (f[off] >> 4) != 4)
			return -1;
		ihl = (f[off] & 15) * 4;
		iplen = rd16(f + off + 2);
		if (ihl < 20 || (rd16(f + off + 6) & 0x3fff))
			return -1;
		v->end = iplen ? off + iplen : len;
		if (v->end > len || off + ihl > v->end)
			return -1;
		v->family = 4;
		nh = f[off + 9];
		l4 = off + ihl;
	} else if (type == 0x86dd) {
		if (off + 40 > len || (f[off] >> 4) != 6)
			return -1;
		iplen = rd16(f + off + 4);
		v->end = iplen ? off + 40 + iplen : len;
		if (v->end > len)
			return -1;
		v->family = 6;
		nh = f[off + 6];
		l4 = off + 40;
		while (nh == 0 || nh == 43 || nh == 60) {
			if (l4 + 8 > v->end)
				return -1;
			nh = f[l4];
			l4 += (f[l4 + 1] + 1) * 8;
		}
	} else {
		return -1;
	}
	v->proto = nh;
	if (nh == 6) {
		__u32 doff;

		if (l4 + 20 > v->end)
			return -1;
		doff = (f[l4 + 12] >> 4) * 4;
		if (doff < 20 || l4 + doff > v->end)
			return -1;
		v->seq = rd32(f + l4 + 4);
		v->payload_off = l4 + doff;
	} else if (nh == 17) {
		if (l4 + 8 > v->end)
			return -1;
		v->payload_off = l4 + 8;
	} else {
		return -1;
	}
	v->sport = rd16(f + l4);
	v->dport = rd16(f + l4 + 2);
	return 0;
}

struct pieces {
	struct piece *p;
	size_t n, cap;
};

static void add_piece(struct pieces *ps, const struct piece *p)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 4096;
		ps->p = realloc(ps->p, ps->cap * sizeof(*ps->p));
		assert_non_null(ps->p);
	}
	ps->p[ps->n++] = *p;
}

/* The piece(s) of @f: the whole frame when unparsable, else one per
 * @gso_size chunk of the payload (@gso_size 0: one piece). */
static void frame_pieces(struct pieces *ps, const __u8 *f, __u32 len,
			 __u32 gso_size)
{
	struct piece p = { 0 };
	struct l4view v;
	__u32 off, plen, take;

	if (parse_l4(f, len, &v)) {
		p.raw = 1;
		p.len = len;
		p.hash = fnv(f, len);
		add_piece(ps, &p);
		return;
	}
	p.family = v.family;
	p.proto = v.proto;
	p.sport = v.sport;
	p.dport = v.dport;
	plen = v.end - v.payload_off;
	if (!gso_size || !plen) {
		p.seq = v.proto == 6 ? v.seq : 0;
		p.len = plen;
		p.hash = fnv(f + v.payload_off, plen);
		add_piece(ps, &p);
		return;
	}
	for (off = 0; off < plen; off += take) {
		take = plen - off < gso_size ? plen - off : gso_size;
		p.seq = v.proto == 6 ? v.seq + off : 0;
		p.len = take;
		p.hash = fnv(f + v.payload_off + off, take);
		add_piece(ps, &p);
	}
}

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

#define CMP(f)                                                                 \
	do {                                                                   \
		if (x->f != y->f)                                              \
			return x->f < y->f ? -1 : 1;                           \
	} while (0)
	CMP(raw);
	CMP(family);
	CMP(proto);
	CMP(sport);
	CMP(dport);
	CMP(seq);
	CMP(len);
	CMP(hash);
#undef CMP
	return 0;
}

/* What one run is made of. */
struct train_cfg {
	__u64 seed;
	__u32 flows;
	__u32 segs;		/* segments per flow, before losses/dups */
	__u32 table;		/* engine flows; 0 = default */
	int udp_pct;		/* flows that are UDP */
	int v6_pct;
	int vlan_pct;
	int reorder_pct;	/* per frame: swapped with its neighbour */
	int dup_pct;
	int loss_pct;
	int change_pct;		/* flags, options, TTL, window, ack changes */
	int bad_pct;		/* malformed frames */
	__u32 max_batch;
	__u32 max_aggregate;
	/* The fast-path differential only (0 elsewhere: no draws) */
	int fixed_id_pct;	/* flows whose IPv4 ID stays */
	int df_flip_pct;	/* per frame: DF toggled for good */
	int id_jump_pct;	/* per frame: the ID jumps */
};

struct run {
	__u8 *region;
	size_t region_size;
	struct xrx_frame *frames;
	__u32 nr;
	__u32 *idx_of;		/* region offset / FRAME_ALIGN -> frame */
	__u8 *released;
	__u32 bad_release, double_release;
	struct pieces in, out;
	__u32 bad_ipsum, bad_resegment;
	__u8 *scratch;		/* one delivered packet, contiguous */
	struct xrx_engine *e;
};

static void on_release(void *ctx, __u64 addr)
{
	struct run *r = ctx;
	__u32 i;

	if (addr % FRAME_ALIGN || addr >= r->region_size) {
		r->bad_release++;
		return;
	}
	i = r->idx_of[addr / FRAME_ALIGN];
	if (i == UINT32_MAX) {
		r->bad_release++;
		return;
	}
	if (r->released[i]++)
		r->double_release++;
}

static __u16 ipsum(const __u8 *p, __u32 len)
{
	__u32 s = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		s += rd16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static void on_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct run *r = ctx;
	__u32 off = pkt->head_len, i;
	struct l4view v;

	/* The test copies; the engine did not. */
	memcpy(r->scratch, pkt->head, pkt->head_len);
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(r->scratch + off, pkt->frags[i].data, pkt->frags[i].len);
		off += pkt->frags[i].len;
	}
	assert_int_equal(off, pkt->len);
	if (pkt->gso_segs > 1) {
		__u32 pieces_before = r->out.n;

		if (parse_l4(r->scratch, pkt->len, &v) ||
		    !pkt->gso_size) {
			r->bad_resegment++;
		} else {
			if (v.family == 4 &&
			    ipsum(r->scratch + v.l3,
				  (r->scratch[v.l3] & 15) * 4))
				r->bad_ipsum++;
			frame_pieces(&r->out, r->scratch, pkt->len,
				     pkt->gso_size);
			if (r->out.n - pieces_before != pkt->gso_segs)
				r->bad_resegment++;
		}
	} else {
		frame_pieces(&r->out, r->scratch, pkt->len, 0);
	}
	xrx_pkt__release(r->e, pkt);
}

/* Per-flow state of the generator. */
struct gflow {
	struct frame_spec s;
	__u32 mss;
	bool fixed_id;
};

static const __u8 ts_a[12] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0 };
static const __u8 ts_b[12] = { 1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 0 };
static const __u8 ipopt_nop[4] = { 1, 1, 1, 1 };

/* Random changes a real stream shows now and then. */
static void change(struct frame_spec *s, __u64 *rs)
{
	switch (rnd(rs, 8)) {
	case 0: s->tcp_flags |= 0x08; break;		/* PSH */
	case 1: s->window += 1 + rnd(rs, 100); break;
	case 2: s->ttl = s->ttl == 64 ? 63 : 64; s->hop_limit = s->ttl; break;
	case 3: s->tcp_opts = s->tcp_opts == ts_a ? ts_b : ts_a;
		s->tcp_opts_len = 12; break;
	case 4: s->ack += 1000; break;
	case 5: s->tcp_flags |= 0x40; break;		/* ECE */
	case 6: s->tcp_flags |= 0x80; break;		/* CWR */
	default: s->tos ^= 4; s->tclass ^= 4; break;
	}
}

/* Malformed variants; the engine must deliver them untouched. */
static void spoil(struct frame_spec *s, __u64 *rs)
{
	switch (rnd(rs, 6)) {
	case 0: s->bad_l4_csum = 1; break;
	case 1: s->bad_ip_csum = s->family == 4; s->bad_l4_csum = s->family != 4;
		break;
	case 2: s->pad = 1 + rnd(rs, 8); break;
	case 3: s->tot_len_delta = 4 + rnd(rs, 20); break;	/* truncated */
	case 4: s->tot_len_delta = -(int)(1 + rnd(rs, 4)); break;
	default:
		if (s->family == 4) {
			s->ip_opts = ipopt_nop;
			s->ip_opts_len = 4;
		} else {
			s->pad = 2;
		}
		break;
	}
}

/* Build the whole train into r: frames in arrival order. */
static void build_train(struct run *r, const struct train_cfg *c)
{
	__u64 rs = c->seed;
	__u32 total = c->flows * c->segs, i, f, k, nr = 0;
	__u32 *order, *left, nleft;
	struct gflow *fl;
	size_t off = 0;
	__u8 *tmp;

	fl = calloc(c->flows, sizeof(*fl));
	left = calloc(c->flows, sizeof(*left));
	order = calloc(c->flows, sizeof(*order));
	tmp = malloc(MAX_FRAME);
	assert_true(fl && left && order && tmp);
	/* Worst case: every segment duplicated, each frame (at most 1448
	 * bytes of payload, two tags, IPv6, options, padding) in 1664. */
	r->region_size = (size_t)total * 2 * 1664 + MAX_FRAME;
	r->region = mmap(NULL, r->region_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(r->region != MAP_FAILED);
	r->frames = calloc((size_t)total * 2, sizeof(*r->frames));
	assert_non_null(r->frames);

	for (f = 0; f < c->flows; f++) {
		struct frame_spec *s = &fl[f].s;
		bool udp = (int)rnd(&rs, 100) < c->udp_pct;
		bool v6 = (int)rnd(&rs, 100) < c->v6_pct;

		if (udp)
			v6 ? frame_spec_udp6(s) : frame_spec_udp4(s);
		else
			v6 ? frame_spec_tcp6(s) : frame_spec_tcp4(s);
		s->sport = 1024 + f % 60000;
		s->dport = 5001 + f / 60000;
		s->stream_seed = f + 1;
		s->seq = rng_next(&rs);
		s->ip_id = rnd(&rs, 65536);
		if ((int)rnd(&rs, 100) < c->vlan_pct) {
			s->nr_vlans = 1 + rnd(&rs, 2);
			s->vlan_tci[0] = 100;
			s->vlan_tpid[0] = s->nr_vlans == 2 ? 0x88a8 : 0x8100;
			s->vlan_tci[1] = 200;
		}
		fl[f].mss = rnd(&rs, 2) ? 1448 : 200 + rnd(&rs, 1200);
		if (c->fixed_id_pct)
			fl[f].fixed_id = (int)rnd(&rs, 100) < c->fixed_id_pct;
		left[f] = c->segs;
		order[f] = f;
	}

	nleft = c->flows;
	while (nleft) {
		struct frame_spec s;
		struct frame_info info;
		__u32 j = rnd(&rs, nleft);
		int len, copies = 1;

		f = order[j];
		s = fl[f].s;
		/* Mostly full segments; sometimes a short one. */
		s.payload_len = rnd(&rs, 10) ? fl[f].mss : 1 + rnd(&rs, fl[f].mss);
		if ((int)rnd(&rs, 100) < c->change_pct) {
			change(&fl[f].s, &rs);
			s = fl[f].s;
			s.payload_len = fl[f].mss;
			fl[f].s.tcp_flags &= ~0xc8;	/* PSH/ECE/CWR: once */
		}
		if (c->df_flip_pct && (int)rnd(&rs, 100) < c->df_flip_pct) {
			if (fl[f].s.family == 4)
				fl[f].s.frag_off ^= 0x4000;
			s.frag_off = fl[f].s.frag_off;
		}
		if (c->id_jump_pct && (int)rnd(&rs, 100) < c->id_jump_pct) {
			fl[f].s.ip_id += 1 + rnd(&rs, 3);
			s.ip_id = fl[f].s.ip_id;
		}
		if ((int)rnd(&rs, 100) < c->bad_pct)
			spoil(&s, &rs);
		if ((int)rnd(&rs, 100) < c->dup_pct)
			copies = 2;
		if ((int)rnd(&rs, 100) < c->loss_pct)
			copies = 0;
		len = frame_build_info(&s, tmp, MAX_FRAME, &info);
		assert_true(len > 0);
		for (k = 0; k < (__u32)copies; k++) {
			assert_true(off + len <= r->region_size);
			memcpy(r->region + off, tmp, len);
			r->frames[nr].addr = off;
			r->frames[nr].len = len;
			nr++;
			off += (len + FRAME_ALIGN - 1) & ~(size_t)(FRAME_ALIGN - 1);
		}
		/* The stream moves on whether or not the frame arrived. */
		fl[f].s.seq += s.payload_len;
		if (!fl[f].fixed_id)
			fl[f].s.ip_id++;
		if (!--left[f])
			order[j] = order[--nleft];
	}
	/* Reordering: swap neighbours (the region stays in address order,
	 * only the arrival order changes). */
	for (i = 0; i + 1 < nr; i++) {
		if ((int)rnd(&rs, 100) < c->reorder_pct) {
			struct xrx_frame t = r->frames[i];

			r->frames[i] = r->frames[i + 1];
			r->frames[i + 1] = t;
		}
	}
	r->nr = nr;
	r->idx_of = malloc((r->region_size / FRAME_ALIGN + 1) * sizeof(__u32));
	r->released = calloc(nr ? nr : 1, 1);
	assert_true(r->idx_of && r->released);
	memset(r->idx_of, 0xff, (r->region_size / FRAME_ALIGN + 1) * sizeof(__u32));
	for (i = 0; i < nr; i++) {
		r->idx_of[r->frames[i].addr / FRAME_ALIGN] = i;
		frame_pieces(&r->in, r->region + r->frames[i].addr,
			     r->frames[i].len, 0);
	}
	free(fl);
	free(left);
	free(order);
	free(tmp);
}

static void run_property(const struct train_cfg *c)
{
	struct run r = { 0 };
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	__u64 vals[XRX_ENGINE_STAT_MAX], now = 1000000, rs = c->seed ^ 0xabcdef;
	__u32 i, n, missing = 0;
	size_t k;

	build_train(&r, c);
	r.scratch = malloc(XRX_AGGREGATE_MAX + 1024);
	assert_non_null(r.scratch);

	o.region = r.region;
	o.region_size = r.region_size;
	o.flows = c->table;
	o.max_aggregate = c->max_aggregate;
	o.udp = c->udp_pct > 0;
	o.deliver = on_deliver;
	o.release_frame = on_release;
	o.ctx = &r;
	r.e = xrx_engine__new(&o);
	assert_non_null(r.e);

	for (i = 0; i < r.nr; i += n) {
		n = 1 + rnd(&rs, c->max_batch);
		if (n > r.nr - i)
			n = r.nr - i;
		assert_int_equal(xrx_engine__rx(r.e, r.frames + i, n, now), n);
		now += 50000;
	}
	xrx_engine__stats(r.e, vals);
	xrx_engine__free(r.e);

	for (i = 0; i < r.nr; i++)
		missing += !r.released[i];
	if (missing || r.double_release || r.bad_release)
		fail_msg("frames: %u never released, %u twice, %u unknown of %u",
			 missing, r.double_release, r.bad_release, r.nr);
	assert_int_equal(vals[XRX_ENGINE_STAT_FRAMES_IN], r.nr);
	assert_int_equal(r.bad_ipsum, 0);
	if (r.bad_resegment)
		fail_msg("%u aggregate(s) whose gso_size/gso_segs do not re-segment",
			 r.bad_resegment);

	qsort(r.in.p, r.in.n, sizeof(*r.in.p), piece_cmp);
	qsort(r.out.p, r.out.n, sizeof(*r.out.p), piece_cmp);
	for (k = 0; k < r.in.n && k < r.out.n; k++) {
		if (piece_cmp(&r.in.p[k], &r.out.p[k]))
			break;
	}
	if (k < r.in.n || k < r.out.n) {
		const struct piece *a = k < r.in.n ? &r.in.p[k] : NULL;
		const struct piece *b = k < r.out.n ? &r.out.p[k] : NULL;

		fail_msg("pieces differ at %zu of %zu in / %zu out: in %s port %u seq %u len %u, out %s port %u seq %u len %u",
			 k, r.in.n, r.out.n, a && a->raw ? "raw" : "l4",
			 a ? a->sport : 0, a ? a->seq : 0, a ? a->len : 0,
			 b && b->raw ? "raw" : "l4", b ? b->sport : 0,
			 b ? b->seq : 0, b ? b->len : 0);
	}
	print_message("# seed %llu: %u flows, %u frames in, %llu packets out (%llu aggregates), %zu pieces\n",
		      (unsigned long long)c->seed, c->flows, r.nr,
		      (unsigned long long)vals[XRX_ENGINE_STAT_PKTS_OUT],
		      (unsigned long long)vals[XRX_ENGINE_STAT_AGGS_OUT],
		      r.out.n);

	free(r.in.p);
	free(r.out.p);
	free(r.scratch);
	free(r.frames);
	free(r.idx_of);
	free(r.released);
	munmap(r.region, r.region_size);
}

static void test_one_flow_clean(void **state)
{
	struct train_cfg c = { .seed = 1, .flows = 1, .segs = 2000,
			       .max_batch = 64 };
	int s;

	(void)state;
	for (s = 0; s < 5; s++, c.seed++)
		run_property(&c);
}

static void test_few_flows_changes(void **state)
{
	struct train_cfg c = { .seed = 100, .flows = 8, .segs = 500,
			       .v6_pct = 50, .vlan_pct = 25, .change_pct = 5,
			       .max_batch = 128 };
	int s;

	(void)state;
	for (s = 0; s < 10; s++, c.seed++)
		run_property(&c);
}

static void test_reorder_dup_loss(void **state)
{
	struct train_cfg c = { .seed = 200, .flows = 16, .segs = 300,
			       .v6_pct = 50, .reorder_pct = 5, .dup_pct = 3,
			       .loss_pct = 3, .change_pct = 3, .max_batch = 64 };
	int s;

	(void)state;
	for (s = 0; s < 10; s++, c.seed++)
		run_property(&c);
}

static void test_malformed(void **state)
{
	struct train_cfg c = { .seed = 300, .flows = 32, .segs = 200,
			       .v6_pct = 50, .vlan_pct = 10, .bad_pct = 8,
			       .reorder_pct = 2, .change_pct = 3,
			       .max_batch = 256 };
	int s;

	(void)state;
	for (s = 0; s < 10; s++, c.seed++)
		run_property(&c);
}

static void test_udp(void **state)
{
	struct train_cfg c = { .seed = 400, .flows = 20, .segs = 300,
			       .udp_pct = 50, .v6_pct = 50, .bad_pct = 3,
			       .dup_pct = 2, .loss_pct = 2, .max_batch = 64 };
	int s;

	(void)state;
	for (s = 0; s < 5; s++, c.seed++)
		run_property(&c);
}

static void test_many_flows(void **state)
{
	/* 1000 flows fit the table; 10000 overflow it (table-full flushes). */
	struct train_cfg c = { .seed = 500, .flows = 1000, .segs = 20,
			       .v6_pct = 50, .udp_pct = 10, .reorder_pct = 1,
			       .dup_pct = 1, .loss_pct = 1, .change_pct = 2,
			       .bad_pct = 1, .max_batch = 256 };

	(void)state;
	run_property(&c);
	c.seed++;
	c.flows = 10000;
	c.segs = 6;
	run_property(&c);
	c.seed++;
	c.table = 64;
	c.flows = 3000;
	run_property(&c);
}

static void test_big_tcp(void **state)
{
	struct train_cfg c = { .seed = 600, .flows = 3, .segs = 2000,
			       .v6_pct = 50, .change_pct = 1, .loss_pct = 1,
			       .max_batch = 1024,
			       .max_aggregate = XRX_AGGREGATE_MAX };
	int s;

	(void)state;
	for (s = 0; s < 3; s++, c.seed++)
		run_property(&c);
}


/*
 * The fast path (user/lib/gro/fast.c) against the full path: the same
 * train, every frame with the xrx_meta xrx_rx would write (some without,
 * some with metadata that must not be taken), through one engine with
 * the fast path off and one with it on. Every delivered packet (its
 * bytes and every field but pointers), every release in order, and every
 * counter must be the same.
 */
struct dlog {
	__u8 *b;
	size_t n, cap;
	struct xrx_engine *e;
	__u8 *scratch;
};

static void dlog_put(struct dlog *l, const void *p, size_t n)
{
	if (l->n + n > l->cap) {
		l->cap = (l->n + n) * 2;
		l->b = realloc(l->b, l->cap);
		assert_non_null(l->b);
	}
	memcpy(l->b + l->n, p, n);
	l->n += n;
}

static void dlog_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct dlog *l = ctx;
	struct xrx_pkt c = *pkt;
	__u32 off = pkt->head_len, i;
	__u8 tag = 'D';

	memcpy(l->scratch, pkt->head, pkt->head_len);
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(l->scratch + off, pkt->frags[i].data, pkt->frags[i].len);
		off += pkt->frags[i].len;
	}
	assert_int_equal(off, pkt->len);
	c.head = NULL;
	c.frags = NULL;
	dlog_put(l, &tag, 1);
	dlog_put(l, &c, sizeof(c));
	for (i = 0; i < pkt->nr_frags; i++) {
		dlog_put(l, &pkt->frags[i].len, sizeof(pkt->frags[i].len));
		dlog_put(l, &pkt->frags[i].addr, sizeof(pkt->frags[i].addr));
	}
	dlog_put(l, l->scratch, off);
	xrx_pkt__release(l->e, pkt);
}

static void dlog_release(void *ctx, __u64 addr)
{
	struct dlog *l = ctx;
	__u8 tag = 'R';

	dlog_put(l, &tag, 1);
	dlog_put(l, &addr, sizeof(addr));
}

struct diff_cfg {
	struct train_cfg t;
	enum xrx_csum_mode csum;
	enum xrx_copy_mode copy;
	__u32 max_segs;
	__u32 timeout_us;
	int meta_spoil_pct;	/* per frame: no meta, or one not to take */
};

/* Both engines' flow hash key, and the metadata's. */
static const struct xrx_hash_key diff_key = { { 0x5eed, 0xfa57 } };

/*
 * The metadata xrx_rx writes for the frame @f of @region into @m, and
 * @f pointed at it; none if xrx_rx writes none. Return: whether written.
 */
static bool diff_meta(const __u8 *region, struct xrx_frame *f,
		      struct xrx_meta *m)
{
	struct xrx_parsed p;

	xrx_parse(region + f->addr,
		  f->len < XRX_PARSE_WINDOW ? f->len : XRX_PARSE_WINDOW,
		  f->len, &p, &diff_key);
	if (p.result != XRX_PARSE_L4)
		return false;
	xrx_meta_fill(m, &p);
	f->meta = m;
	return true;
}

/* An engine of the options @o that logs into @l, its fast path on or off. */
static void diff_engine(struct xrx_engine_opts *o, struct dlog *l, bool fast)
{
	o->hash_key = diff_key;
	o->deliver = dlog_deliver;
	o->release_frame = dlog_release;
	o->ctx = l;
	l->e = xrx_engine__new(o);
	assert_non_null(l->e);
	xrx_engine_fast_disable(l->e, !fast);
}

/* Run @r's frames through one engine. Return: merges the fast path made. */
static __u64 diff_run(struct run *r, const struct diff_cfg *c, bool fast,
		      struct dlog *l, __u64 vals[XRX_ENGINE_STAT_MAX])
{
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	__u64 now = 1000000, rs = c->t.seed ^ 0x5eed, merged;
	__u32 i, n;

	o.region = r->region;
	o.region_size = r->region_size;
	o.flows = c->t.table;
	o.max_aggregate = c->t.max_aggregate;
	o.max_segs = c->max_segs;
	o.flush_timeout_us = c->timeout_us;
	o.csum = c->csum;
	o.copy = c->copy;
	o.udp = c->t.udp_pct > 0;
	diff_engine(&o, l, fast);
	for (i = 0; i < r->nr; i += n) {
		n = 1 + rnd(&rs, c->t.max_batch);
		if (n > r->nr - i)
			n = r->nr - i;
		assert_int_equal(xrx_engine__rx(l->e, r->frames + i, n, now),
				 n);
		now += 1000 * rnd(&rs, 40);
	}
	xrx_engine__stats(l->e, vals);
	merged = l->e->fast_merged;
	xrx_engine__free(l->e);
	return merged;
}

static void run_fast_diff(const struct diff_cfg *c)
{
	struct run r = { 0 };
	struct dlog slow = { 0 }, fast = { 0 };
	__u64 vs[XRX_ENGINE_STAT_MAX], vf[XRX_ENGINE_STAT_MAX], merged;
	__u64 rs = c->t.seed ^ 0x3e7a;
	struct xrx_meta *metas;
	__u32 i, j;
	size_t k;

	build_train(&r, &c->t);
	metas = calloc(r.nr ? r.nr : 1, sizeof(*metas));
	slow.scratch = malloc(XRX_AGGREGATE_MAX + 1024);
	fast.scratch = malloc(XRX_AGGREGATE_MAX + 1024);
	assert_true(metas && slow.scratch && fast.scratch);
	for (i = 0; i < r.nr; i++) {
		if (!diff_meta(r.region, &r.frames[i], &metas[i]))
			continue;	/* xrx_rx writes none */
		if ((int)rnd(&rs, 100) >= c->meta_spoil_pct)
			continue;
		switch (rnd(&rs, 6)) {
		case 0: r.frames[i].meta = NULL; break;
		case 5:		/* a tag the NIC took out: another flow */
			metas[i].flags |= XRX_META_F_HW_VLAN;
			metas[i].vlan_proto = 0x8100;
			metas[i].vlan_tci = 1 + rnd(&rs, 2);
			break;
		case 1: metas[i].hash_type = XRX_HASH_HW_L3; break;
		case 2: metas[i].magic ^= 1; break;
		case 3: metas[i].hash ^= 1 + rnd(&rs, 1000); break;
		default: metas[i].pad = 1; break;
		}
	}

	diff_run(&r, c, false, &slow, vs);
	merged = diff_run(&r, c, true, &fast, vf);
	for (j = 0; j < XRX_ENGINE_STAT_MAX; j++)
		if (vs[j] != vf[j])
			fail_msg("seed %llu: counter %s: %llu full path, %llu fast",
				 (unsigned long long)c->t.seed,
				 xrx_engine_stat__name(j),
				 (unsigned long long)vs[j],
				 (unsigned long long)vf[j]);
	for (k = 0; k < slow.n && k < fast.n; k++)
		if (slow.b[k] != fast.b[k])
			break;
	if (k < slow.n || k < fast.n)
		fail_msg("seed %llu: output differs at byte %zu of %zu/%zu",
			 (unsigned long long)c->t.seed, k, slow.n, fast.n);
	print_message("# seed %llu: %u frames, %llu merged, %llu by the fast path\n",
		      (unsigned long long)c->t.seed, r.nr,
		      (unsigned long long)vf[XRX_ENGINE_STAT_SEGS_MERGED],
		      (unsigned long long)merged);
	/* the fast path must have merged something, or this tests nothing
	 * (it starts at the third segment of an aggregate) */
	if (c->copy == XRX_COPY_HEADER && (!c->max_segs || c->max_segs > 2))
		assert_true(merged > 0);

	free(slow.b);
	free(fast.b);
	free(slow.scratch);
	free(fast.scratch);
	free(metas);
	free(r.in.p);
	free(r.out.p);
	free(r.frames);
	free(r.idx_of);
	free(r.released);
	munmap(r.region, r.region_size);
}

static void test_fast_path_same(void **state)
{
	struct diff_cfg c = { .t = { .seed = 700, .flows = 1, .segs = 3000,
				     .max_batch = 64 } };
	int s;

	(void)state;
	for (s = 0; s < 64; s++, c.t.seed++) {
		c.t.flows = s % 4 == 0 ? 1 : 1 + s % 24;
		c.t.segs = 3000 / c.t.flows;
		c.t.v6_pct = s % 3 == 0 ? 0 : 50;
		c.t.vlan_pct = s % 5 == 1 ? 30 : 0;
		c.t.udp_pct = s % 7 == 3 ? 20 : 0;
		c.t.reorder_pct = s % 2 ? 2 : 0;
		c.t.dup_pct = s % 3 == 1 ? 2 : 0;
		c.t.loss_pct = s % 4 == 2 ? 2 : 0;
		c.t.change_pct = s % 2 ? 0 : 3;
		c.t.bad_pct = s % 3 == 2 ? 4 : 0;
		c.t.fixed_id_pct = 30;
		c.t.df_flip_pct = s % 4 == 3 ? 1 : 0;
		c.t.id_jump_pct = s % 5 == 2 ? 1 : 0;
		c.t.table = s % 8 == 5 ? 4 : 0;
		c.t.max_batch = s % 6 == 0 ? 512 : 64;
		c.t.max_aggregate = s % 9 == 4 ? XRX_AGGREGATE_MAX :
				    s % 9 == 7 ? 16384 : 0;
		c.csum = s % 2 ? XRX_CSUM_TRUST : XRX_CSUM_VERIFY;
		c.copy = s % 16 == 15 ? XRX_COPY_MAX_HEAD : XRX_COPY_HEADER;
		c.max_segs = s % 5 == 3 ? 1 + s % 7 : 0;
		c.timeout_us = s % 3 == 0 ? 20 : 0;
		c.meta_spoil_pct = s % 2 ? 3 : 0;
		run_fast_diff(&c);
	}
}

/*
 * Runs (user/lib/gro/fast.c): frames that merge one after the other into
 * one aggregate, merged by the fast path in one loop with the
 * aggregate's state in locals. For every position p of a batch, p
 * segments that merge, then at p one frame that ends the run for one
 * reason, then the stream goes on to the batch's end; and runs of every
 * length that end with the batch. Each case goes through an engine with
 * the fast path and one without, compared as test_fast_path_same does
 * (every delivered byte and field, every release in order, every
 * counter), and the fast path must have merged the run, in one run.
 */
#define RUN_BATCH 64		/* the longest run */
#define RUN_SETUP 4		/* frames before: two full path, two fast */
#define RUN_AFTER 8		/* a batch after, the aggregate goes on */
#define RUN_FRAMES (RUN_SETUP + RUN_BATCH + RUN_AFTER)
#define RUN_SLOT 1024
#define RUN_MSS 256

/* What ends the run at position p. */
enum run_end {
	RE_BATCH,	/* nothing: the run ends with the batch */
	RE_NO_META, RE_CHAIN, RE_BAD_ADDR, RE_SHORT_FRAME,
	RE_META_HASH, RE_META_MAGIC, RE_HW_VLAN, RE_OTHER_FLOW,
	RE_BUCKET_FULL,	/* another flow, its bucket bounded at one */
	RE_PSH, RE_FIN, RE_SYN, RE_RST, RE_URG, RE_CWR, RE_ECE,
	RE_WINDOW, RE_ACK, RE_OPTS, RE_TTL, RE_TOS,
	RE_DF, RE_IP_CSUM, RE_IP_ID,	/* IPv4 only */
	RE_PAD, RE_TRUNC, RE_PURE_ACK, RE_OVER_MSS, RE_SEQ_GAP, RE_SEQ_DUP,
	RE_SIZE, RE_SEGS, RE_SHORT_SEG, RE_L4_CSUM,
	RE_MAX
};

static const char *const run_end_names[RE_MAX] = {
	"batch end", "no meta", "chain", "bad addr", "short frame",
	"meta hash", "meta magic", "hw vlan", "other flow", "bucket full",
	"psh", "fin", "syn", "rst", "urg", "cwr", "ece",
	"window", "ack", "options", "ttl", "tos", "df", "ip csum", "ip id",
	"padding", "truncated", "pure ack", "over mss", "seq gap", "seq dup",
	"size", "max_segs", "short segment", "l4 csum",
};

/* The full path's counter that names each end: the case does what its
 * name says (0: no counter of its own, another flow or none at all). */
static const int run_end_stat[RE_MAX] = {
	[RE_CHAIN] = XRX_ENGINE_STAT_DROP_BAD_FRAME,
	[RE_BAD_ADDR] = XRX_ENGINE_STAT_DROP_BAD_FRAME,
	[RE_SHORT_FRAME] = XRX_ENGINE_STAT_SINGLE_MALFORMED,
	[RE_BUCKET_FULL] = XRX_ENGINE_STAT_FLUSH_BUCKET_FULL,
	[RE_PSH] = XRX_ENGINE_STAT_COMPLETE_FLAGS,
	[RE_FIN] = XRX_ENGINE_STAT_COMPLETE_FLAGS,
	[RE_SYN] = XRX_ENGINE_STAT_SINGLE_TCP_FLAGS,
	[RE_RST] = XRX_ENGINE_STAT_SINGLE_TCP_FLAGS,
	[RE_URG] = XRX_ENGINE_STAT_SINGLE_TCP_FLAGS,
	[RE_CWR] = XRX_ENGINE_STAT_FLUSH_CWR,
	[RE_ECE] = XRX_ENGINE_STAT_FLUSH_FLAGS,
	[RE_WINDOW] = XRX_ENGINE_STAT_FLUSH_WINDOW,
	[RE_ACK] = XRX_ENGINE_STAT_FLUSH_ACK,
	[RE_OPTS] = XRX_ENGINE_STAT_FLUSH_OPTS,
	[RE_TTL] = XRX_ENGINE_STAT_FLUSH_TTL,
	[RE_TOS] = XRX_ENGINE_STAT_FLUSH_TOS,
	[RE_DF] = XRX_ENGINE_STAT_FLUSH_DF,
	[RE_IP_CSUM] = XRX_ENGINE_STAT_CSUM_BAD,
	[RE_IP_ID] = XRX_ENGINE_STAT_FLUSH_IPID,
	[RE_PAD] = XRX_ENGINE_STAT_SINGLE_LEN,
	[RE_TRUNC] = XRX_ENGINE_STAT_SINGLE_LEN,
	[RE_PURE_ACK] = XRX_ENGINE_STAT_SINGLE_PURE_ACK,
	[RE_OVER_MSS] = XRX_ENGINE_STAT_FLUSH_MSS,
	[RE_SEQ_GAP] = XRX_ENGINE_STAT_FLUSH_SEQ,
	[RE_SEQ_DUP] = XRX_ENGINE_STAT_FLUSH_SEQ,
	[RE_SIZE] = XRX_ENGINE_STAT_FLUSH_SIZE,
	[RE_SEGS] = XRX_ENGINE_STAT_COMPLETE_SEGS,
	[RE_SHORT_SEG] = XRX_ENGINE_STAT_COMPLETE_SHORT,
	[RE_L4_CSUM] = XRX_ENGINE_STAT_CSUM_BAD,	/* when verified */
};

struct run_case {
	int family;
	bool fixed_id;
	enum xrx_csum_mode csum;
	enum run_end why;
	__u32 pos;		/* where the run ends */
};

struct run_train {
	__u8 *region;
	size_t region_size;
	struct xrx_frame frames[RUN_FRAMES];
	struct xrx_meta metas[RUN_FRAMES];
	__u32 nr, batch;	/* frames; those of the run's batch */
	__u32 max_aggregate, max_segs;
};

/* Frame @i: built from @s into its slot, with the metadata xrx_rx writes. */
static __u32 run_frame(struct run_train *t, __u32 i,
		       const struct frame_spec *s)
{
	int len;

	len = frame_build(s, t->region + (size_t)i * RUN_SLOT, RUN_SLOT);
	assert_true(len > 0);
	t->frames[i] = (struct xrx_frame){ .addr = (__u64)i * RUN_SLOT,
					   .len = len };
	diff_meta(t->region, &t->frames[i], &t->metas[i]);
	return len;
}

/* p->len of the aggregate after @n segments of the first frame's kind */
static __u32 run_held(__u32 first_len, __u32 n)
{
	return first_len - 14 + (n - 1) * RUN_MSS;
}

static void run_build(struct run_train *t, const struct run_case *c)
{
	static const __u8 ts_other[12] = { 1, 1, 8, 10, 0, 0, 0, 9,
					   0, 0, 0, 0 };
	struct frame_spec s, b;
	__u32 i, first_len = 0, len, bi;

	c->family == 4 ? frame_spec_tcp4(&s) : frame_spec_tcp6(&s);
	s.payload_len = RUN_MSS;
	s.seq = 0xfffff000;	/* the sequence numbers wrap in the run */
	s.ip_id = 0xffe0;	/* and the IDs */
	t->nr = 0;
	t->batch = c->why == RE_BATCH ? c->pos : RUN_BATCH;
	t->max_aggregate = 0;
	t->max_segs = 200;
	bi = RUN_SETUP + c->pos;	/* the frame that ends the run */
	for (i = 0; i < RUN_SETUP + t->batch + RUN_AFTER; i++) {
		b = s;
		if (i == bi && c->why != RE_BATCH) {
			switch (c->why) {
			case RE_OTHER_FLOW:
			case RE_BUCKET_FULL: b.sport++; break;
			case RE_PSH: b.tcp_flags |= 0x08; break;
			case RE_FIN: b.tcp_flags |= 0x01; break;
			case RE_SYN: b.tcp_flags |= 0x02; break;
			case RE_RST: b.tcp_flags |= 0x04; break;
			case RE_URG: b.tcp_flags |= 0x20; b.urg_ptr = 1; break;
			case RE_CWR: b.tcp_flags |= 0x80; break;
			case RE_ECE: b.tcp_flags |= 0x40; break;
			case RE_WINDOW: b.window++; break;
			case RE_ACK: b.ack++; break;
			case RE_OPTS: b.tcp_opts = ts_other; break;
			case RE_TTL: b.ttl--; b.hop_limit--; break;
			case RE_TOS: b.tos ^= 4; b.tclass ^= 4; break;
			case RE_DF: b.frag_off ^= 0x4000; break;
			case RE_IP_CSUM: b.bad_ip_csum = 1; break;
			case RE_IP_ID: b.ip_id += 5; break;
			case RE_PAD: b.pad = 6; break;
			case RE_TRUNC: b.tot_len_delta = 4; break;
			case RE_PURE_ACK: b.payload_len = 0; break;
			case RE_OVER_MSS: b.payload_len = RUN_MSS + 10; break;
			case RE_SEQ_GAP: b.seq += 1000; break;
			case RE_SEQ_DUP: b.seq -= RUN_MSS; break;
			case RE_SHORT_SEG: b.payload_len = RUN_MSS / 2; break;
			case RE_L4_CSUM: b.bad_l4_csum = 1; break;
			default: break;
			}
		}
		len = run_frame(t, i, &b);
		if (i == 0)
			first_len = len;
		if (i == bi) {
			struct xrx_frame *f = &t->frames[i];

			switch (c->why) {
			case RE_NO_META: f->meta = NULL; break;
			case RE_CHAIN: f->flags |= XRX_FRAME_F_CHAIN; break;
			case RE_BAD_ADDR: f->addr = t->region_size + 64; break;
			case RE_SHORT_FRAME: f->len = t->metas[i].headlen - 1;
				break;
			case RE_META_HASH: t->metas[i].hash ^= 0x5a5a; break;
			case RE_META_MAGIC: t->metas[i].magic ^= 1; break;
			case RE_HW_VLAN:
				t->metas[i].flags |= XRX_META_F_HW_VLAN;
				t->metas[i].vlan_proto = 0x8100;
				t->metas[i].vlan_tci = 7;
				break;
			case RE_OTHER_FLOW:	/* the same hash: its bucket */
			case RE_BUCKET_FULL:
				t->metas[i] = t->metas[i - 1];
				break;
			case RE_SIZE:	/* this segment reaches the limit */
				t->max_aggregate = run_held(first_len, bi) +
						   RUN_MSS;
				break;
			case RE_SEGS:	/* this segment completes it */
				t->max_segs = bi + 1;
				break;
			default: break;
			}
		}
		/* the stream goes on after whatever came */
		s.seq = b.seq + b.payload_len;
		s.ip_id = c->fixed_id ? s.ip_id : (__u16)(b.ip_id + 1);
	}
	t->nr = i;
}

/*
 * The case through one engine. Return: merges the fast path made up to
 * the end of the run's batch; in @runs, the runs it made them in within
 * that batch.
 */
static __u64 run_engine(const struct run_train *t, const struct run_case *c,
			bool fast, struct dlog *l,
			__u64 vals[XRX_ENGINE_STAT_MAX], __u64 *runs)
{
	struct xrx_engine_opts o = { .sz = sizeof(o) };
	__u32 batches[3] = { RUN_SETUP, t->batch, RUN_AFTER }, i, k;
	__u64 merged = 0;

	o.region = t->region;
	o.region_size = t->region_size;
	o.flows = 16;
	o.pkts = 64;
	o.max_aggregate = t->max_aggregate;
	o.max_segs = t->max_segs;
	o.flush_timeout_us = 1000000;	/* held from batch to batch */
	o.csum = c->csum;
	diff_engine(&o, l, fast);
	/* the other flow delivers the run's aggregate, the bucket's oldest
	 * (gro_flush_oldest()) */
	if (c->why == RE_BUCKET_FULL)
		xrx_engine_bucket_max(l->e, 1);
	for (i = 0, k = 0; k < 3; i += batches[k++]) {
		assert_int_equal(xrx_engine__rx(l->e, t->frames + i,
						batches[k], 1000),
				 batches[k]);
		if (k == 0)
			*runs = l->e->fast_runs;
		if (k == 1) {
			merged = l->e->fast_merged;
			*runs = l->e->fast_runs - *runs;
		}
	}
	xrx_engine__stats(l->e, vals);
	xrx_engine__free(l->e);
	return merged;
}

/* Return: whether the case's engines differed, or the run was not merged. */
static bool run_case_check(struct run_train *t, const struct run_case *c,
			   struct dlog *slow, struct dlog *fast)
{
	__u64 vs[XRX_ENGINE_STAT_MAX], vf[XRX_ENGINE_STAT_MAX], merged, runs;
	__u32 j;

	run_build(t, c);
	slow->n = 0;
	fast->n = 0;
	run_engine(t, c, false, slow, vs, &runs);
	merged = run_engine(t, c, true, fast, vf, &runs);
	for (j = 0; j < XRX_ENGINE_STAT_MAX; j++)
		if (vs[j] != vf[j]) {
			print_message("# IPv%d%s %s, %s at %u: counter %s: %llu full path, %llu fast\n",
				      c->family, c->fixed_id ? " fixed ID" : "",
				      c->csum == XRX_CSUM_VERIFY ? "verify" : "trust",
				      run_end_names[c->why], c->pos,
				      xrx_engine_stat__name(j),
				      (unsigned long long)vs[j],
				      (unsigned long long)vf[j]);
			return true;
		}
	if (slow->n != fast->n || memcmp(slow->b, fast->b, slow->n)) {
		print_message("# IPv%d%s %s, %s at %u: output differs (%zu/%zu bytes)\n",
			      c->family, c->fixed_id ? " fixed ID" : "",
			      c->csum == XRX_CSUM_VERIFY ? "verify" : "trust",
			      run_end_names[c->why], c->pos, slow->n, fast->n);
		return true;
	}
	if (run_end_stat[c->why] && !vs[run_end_stat[c->why]] &&
	    (c->why != RE_L4_CSUM || c->csum == XRX_CSUM_VERIFY)) {
		print_message("# IPv%d %s at %u: no %s\n", c->family,
			      run_end_names[c->why], c->pos,
			      xrx_engine_stat__name(run_end_stat[c->why]));
		return true;
	}
	/* the setup's two, and every segment of the run before pos: all
	 * of them when the batch ends the run */
	if (merged < 2 + c->pos ||
	    (c->why == RE_BATCH && merged != 2 + c->pos)) {
		print_message("# IPv%d %s at %u: the fast path merged %llu\n",
			      c->family, run_end_names[c->why], c->pos,
			      (unsigned long long)merged);
		return true;
	}
	/* in one run: the segments before pos are one; after the frame at
	 * pos, at most one for each frame left in the batch */
	if ((c->why == RE_BATCH && runs != 1) ||
	    runs > (c->pos > 0) + RUN_BATCH - c->pos) {
		print_message("# IPv%d %s at %u: %llu runs\n",
			      c->family, run_end_names[c->why], c->pos,
			      (unsigned long long)runs);
		return true;
	}
	return false;
}

static void test_fast_path_runs(void **state)
{
	static const struct run_case kinds[] = {
		{ .family = 4, .csum = XRX_CSUM_TRUST },
		{ .family = 6, .csum = XRX_CSUM_TRUST },
		{ .family = 4, .fixed_id = true, .csum = XRX_CSUM_VERIFY },
	};
	struct dlog slow = { 0 }, fast = { 0 };
	struct run_train t = { 0 };
	__u32 k, bad = 0, cases = 0;
	struct run_case c;

	(void)state;
	t.region_size = (size_t)RUN_FRAMES * RUN_SLOT;
	t.region = calloc(1, t.region_size);
	slow.scratch = malloc(XRX_AGGREGATE_MAX + 1024);
	fast.scratch = malloc(XRX_AGGREGATE_MAX + 1024);
	assert_true(t.region && slow.scratch && fast.scratch);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		c = kinds[k];
		for (c.why = 0; c.why < RE_MAX; c.why++) {
			if (c.family == 6 && (c.why == RE_DF ||
					      c.why == RE_IP_CSUM ||
					      c.why == RE_IP_ID))
				continue;	/* IPv4 header fields */
			for (c.pos = c.why == RE_BATCH ? 1 : 0;
			     c.pos <= RUN_BATCH - (c.why != RE_BATCH);
			     c.pos++) {
				bad += run_case_check(&t, &c, &slow, &fast);
				cases++;
			}
		}
	}
	print_message("# %u runs, %u differ\n", cases, bad);
	assert_int_equal(bad, 0);
	free(slow.b);
	free(fast.b);
	free(slow.scratch);
	free(fast.scratch);
	free(t.region);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow_clean),
		cmocka_unit_test(test_few_flows_changes),
		cmocka_unit_test(test_reorder_dup_loss),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_many_flows),
		cmocka_unit_test(test_big_tcp),
		cmocka_unit_test(test_fast_path_same),
		cmocka_unit_test(test_fast_path_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
