// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Differential test: libxrx's GRO against DPDK 22.11's librte_gro on the
 * trains both support (TCP/IPv4, no VLAN, no IP options).
 *
 * Where the two rule sets agree, the output must be identical: the same
 * aggregates (first sequence number, segment count) with the same bytes,
 * except the IPv4 header checksum, which rte_gro does not recompute. Where
 * they differ, each test asserts exactly the documented difference, so
 * the test fails when either engine changes its rules:
 *
 *   rte_gro (lib/gro/gro_tcp4.c)       the kernel (so xrx)
 *   ACK number in the flow key         ack_seq compared, flushes
 *   prepends, keeps several items      contiguous appends only
 *   per flow (tolerates reordering)    (tcp_gro_receive)
 *   no TTL/TOS check                   inet_gro_flush(): TTL, TOS flush
 *   no mss rule                        (len - 1) >= mss flushes; shorter
 *                                      than mss completes the aggregate
 *   only flags == ACK                  PSH/FIN merge and complete
 *   window not compared                tcp_flag_word() includes window
 *   DF=1: IP ID ignored; DF=0: must    incrementing or fixed ID
 *   increment
 *   checksums never validated          bad checksum: delivered alone
 *   IPv4 header checksum stale         recomputed (inet_gro_complete)
 *   aggregate <= 65535 bytes           BIG TCP: up to 512 KiB
 *
 * rte_gro runs in both of its modes: rte_gro_reassemble_burst() per
 * batch, and a context (rte_gro_reassemble() + rte_gro_timeout_flush()).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_gro.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <xrx/engine.h>

#include "util/frames.h"
#include "util/dpdk_env.h"

#define MAX_SEGS 128		/* frames in one train */
#define MAX_AGGS MAX_SEGS	/* aggregates out of one train */
#define FRAME_CAP 9216
#define MSS 1448

/*
 * A train: frames in arrival order, cut into batches of @batch frames,
 * all in one region (as in a UMEM) at a fixed stride.
 */
struct train {
	int n;
	int batch;			/* 0: the whole train is one batch */
	__u8 *region;			/* MAX_SEGS * FRAME_CAP bytes */
	__u8 *frame[MAX_SEGS];
	__u32 len[MAX_SEGS];
	struct frame_info info[MAX_SEGS];
};

/* One delivered packet, linear: headers then all merged payload. */
struct agg {
	__u8 *data;
	__u32 len;
	__u32 segs;
	__u32 reason;			/* xrx only: enum xrx_engine_stat */
};

struct result {
	int n;
	struct agg agg[MAX_AGGS];
	__u64 released;			/* xrx only: frames handed back */
};

static struct rte_mempool *pool;

static void train_add(struct train *t, const struct frame_spec *s)
{
	int len;

	assert_true(t->n < MAX_SEGS);
	if (!t->region) {
		t->region = calloc(MAX_SEGS, FRAME_CAP);
		assert_non_null(t->region);
	}
	t->frame[t->n] = t->region + (size_t)t->n * FRAME_CAP;
	len = frame_build_info(s, t->frame[t->n], FRAME_CAP, &t->info[t->n]);
	assert_true(len > 0);
	t->len[t->n] = len;
	t->n++;
}

/* @count contiguous segments of @payload bytes from the spec's seq on. */
static void train_add_run(struct train *t, struct frame_spec *s, int count,
			  __u32 payload)
{
	int i;

	for (i = 0; i < count; i++) {
		s->payload_len = payload;
		train_add(t, s);
		s->seq += payload;
		s->ip_id++;
	}
}

static void train_free(struct train *t)
{
	free(t->region);
	memset(t, 0, sizeof(*t));
}

static void result_free(struct result *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->agg[i].data);
	r->n = 0;
	r->released = 0;
}

static __u32 agg_sport(const struct agg *a)
{
	return a->data[34] << 8 | a->data[35];
}

static __u32 agg_seq(const struct agg *a)
{
	const __u8 *p = a->data + 38;

	return (__u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static __u32 agg_payload(const struct agg *a)
{
	__u32 ihl = (a->data[14] & 0xf) * 4;
	__u32 doff = (a->data[14 + ihl + 12] >> 4) * 4;

	return a->len - 14 - ihl - doff;
}

static int agg_cmp(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (agg_sport(a) != agg_sport(b))
		return agg_sport(a) < agg_sport(b) ? -1 : 1;
	if (agg_seq(a) != agg_seq(b))
		return (__s32)(agg_seq(a) - agg_seq(b)) < 0 ? -1 : 1;
	return (int)agg_payload(a) - (int)agg_payload(b);
}

/*
 * Engines deliver in different orders (rte_gro_reassemble_burst() returns
 * its aggregates first and the packets it did not process after them), so
 * compare per flow in sequence order, as the kernel's GRO is checked.
 */
static void result_sort(struct result *r)
{
	qsort(r->agg, r->n, sizeof(r->agg[0]), agg_cmp);
}

static struct agg *result_add(struct result *r, const void *data, __u32 len,
			      __u32 segs)
{
	struct agg *a;

	assert_true(r->n < MAX_AGGS);
	a = &r->agg[r->n++];
	a->data = malloc(len);
	assert_non_null(a->data);
	memcpy(a->data, data, len);
	a->len = len;
	a->segs = segs;
	return a;
}

/* ---- DPDK ---------------------------------------------------------- */

static struct rte_mbuf *dpdk_mbuf(const struct train *t, int i)
{
	const struct frame_info *fi = &t->info[i];
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	assert_non_null(m);
	p = rte_pktmbuf_append(m, t->len[i]);
	assert_non_null(p);
	memcpy(p, t->frame[i], t->len[i]);
	/* What a NIC's packet-type parsing reports; rte_gro trusts it. */
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			 RTE_PTYPE_L4_TCP;
	m->l2_len = fi->l3_off;
	m->l3_len = fi->l4_off - fi->l3_off;
	m->l4_len = fi->l4_hdr_len;
	return m;
}

static void dpdk_collect(struct result *r, struct rte_mbuf **pkts, int n)
{
	static __u8 lin[RTE_MBUF_DEFAULT_BUF_SIZE * 64];
	const void *p;
	int i;

	for (i = 0; i < n; i++) {
		assert_true(pkts[i]->pkt_len <= sizeof(lin));
		p = rte_pktmbuf_read(pkts[i], 0, pkts[i]->pkt_len, lin);
		assert_non_null(p);
		result_add(r, p, pkts[i]->pkt_len, pkts[i]->nb_segs);
		rte_pktmbuf_free(pkts[i]);
	}
}

static int train_batch(const struct train *t)
{
	return t->batch > 0 ? t->batch : t->n;
}

/* rte_gro_reassemble_burst(): everything is delivered per batch. */
static void dpdk_burst(const struct train *t, struct result *r)
{
	struct rte_gro_param param = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = 64,
		.max_item_per_flow = 64,
	};
	struct rte_mbuf *pkts[MAX_SEGS];
	int i, n, done, batch = train_batch(t);

	for (done = 0; done < t->n; done += n) {
		n = t->n - done < batch ? t->n - done : batch;
		for (i = 0; i < n; i++)
			pkts[i] = dpdk_mbuf(t, done + i);
		dpdk_collect(r, pkts, rte_gro_reassemble_burst(pkts, n, &param));
	}
	result_sort(r);
}

/*
 * A context: aggregates stay in the table across batches until
 * rte_gro_timeout_flush(); flushing at every batch end with timeout 0
 * gives the same delivery points as the burst mode and xrx's default.
 */
static void dpdk_ctx(const struct train *t, struct result *r)
{
	struct rte_gro_param param = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = 64,
		.max_item_per_flow = 64,
		.socket_id = SOCKET_ID_ANY,
	};
	struct rte_mbuf *pkts[MAX_SEGS];
	int i, n, done, batch = train_batch(t);
	void *ctx = rte_gro_ctx_create(&param);

	assert_non_null(ctx);
	for (done = 0; done < t->n; done += n) {
		n = t->n - done < batch ? t->n - done : batch;
		for (i = 0; i < n; i++)
			pkts[i] = dpdk_mbuf(t, done + i);
		dpdk_collect(r, pkts, rte_gro_reassemble(pkts, n, ctx));
		dpdk_collect(r, pkts, rte_gro_timeout_flush(ctx, 0,
				RTE_GRO_TCP_IPV4, pkts, MAX_SEGS));
	}
	assert_int_equal(rte_gro_get_pkt_count(ctx), 0);
	rte_gro_ctx_destroy(ctx);
	result_sort(r);
}

/* ---- xrx ----------------------------------------------------------- */

struct xrx_cfg {
	__u32 max_aggregate;		/* 0: 65536, as rte_gro's 65535 */
	enum xrx_csum_mode csum;
};

struct xrx_run {
	struct xrx_engine *e;
	struct result *r;
};

static void xrx_deliver(void *ctx, struct xrx_pkt *pkt)
{
	static __u8 lin[XRX_AGGREGATE_MAX + XRX_HEAD_SIZE];
	struct xrx_run *x = ctx;
	struct agg *a;
	__u32 i, off;

	assert_true(pkt->len <= sizeof(lin));
	memcpy(lin, pkt->head, pkt->head_len);
	off = pkt->head_len;
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(lin + off, pkt->frags[i].data, pkt->frags[i].len);
		off += pkt->frags[i].len;
	}
	assert_int_equal(off, pkt->len);
	a = result_add(x->r, lin, off, pkt->gso_segs);
	a->reason = pkt->reason;
	xrx_pkt__release(x->e, pkt);
}

static void xrx_release(void *ctx, __u64 addr)
{
	struct xrx_run *x = ctx;

	x->r->released++;
}

/*
 * The engine as the kernel runs it on these trains: checksums verified,
 * header-only copy, flush at every batch end, and no segment bound of its
 * own (the kernel chains skbs beyond MAX_SKB_FRAGS; rte_gro 22.11 has
 * no segment bound either).
 */
static void xrx_run(const struct train *t, const struct xrx_cfg *cfg,
		    struct result *r)
{
	struct xrx_run x = { .r = r };
	struct xrx_engine_opts o = {
		.sz = sizeof(o),
		.region = t->region,
		.region_size = (__u64)MAX_SEGS * FRAME_CAP,
		.max_aggregate = cfg ? cfg->max_aggregate : 0,
		.max_segs = XRX_SEGS_MAX,
		.csum = cfg ? cfg->csum : XRX_CSUM_VERIFY,
		.copy = XRX_COPY_HEADER,
		.deliver = xrx_deliver,
		.release_frame = xrx_release,
		.ctx = &x,
	};
	struct xrx_frame frames[MAX_SEGS];
	int i, n, done, batch = train_batch(t);

	x.e = xrx_engine__new(&o);
	assert_non_null(x.e);
	for (done = 0; done < t->n; done += n) {
		n = t->n - done < batch ? t->n - done : batch;
		for (i = 0; i < n; i++) {
			frames[i] = (struct xrx_frame){
				.addr = (__u64)(done + i) * FRAME_CAP,
				.len = t->len[done + i],
			};
		}
		assert_int_equal(xrx_engine__rx(x.e, frames, n, 1000 * done), n);
		assert_int_equal(xrx_engine__held(x.e), 0);
	}
	xrx_engine__free(x.e);
	/* Every frame handed back exactly once, none held. */
	assert_int_equal(r->released, t->n);
	result_sort(r);
}

/* ---- comparing ------------------------------------------------------ */

static void result_print(const char *who, const struct result *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		print_message("# %-10s sport %u seq %u payload %u segs %u\n", who,
			      agg_sport(&r->agg[i]), agg_seq(&r->agg[i]),
			      agg_payload(&r->agg[i]), r->agg[i].segs);
}

/* The aggregates' segment counts, in flow and sequence order. */
static void assert_segs(const char *who, const struct result *r,
			const int *segs, int n)
{
	int i, ok = r->n == n;

	for (i = 0; ok && i < n; i++)
		ok = (int)r->agg[i].segs == segs[i];
	if (!ok) {
		print_message("# %s: segment counts differ from:", who);
		for (i = 0; i < n; i++)
			print_message(" %d", segs[i]);
		print_message("\n");
		result_print(who, r);
	}
	assert_true(ok);
}

static __u32 ip_hlen(const struct agg *a)
{
	return (a->data[14] & 0xf) * 4;
}

/*
 * Identical output, but for what rte_gro leaves stale in an aggregate of
 * two or more segments: the IPv4 header checksum (bytes 10-11 of the IP
 * header) and the TCP checksum, which xrx sets for CHECKSUM_PARTIAL.
 */
static void assert_same(const struct result *x, const struct result *d)
{
	int i, ok = x->n == d->n;

	for (i = 0; ok && i < x->n; i++) {
		const struct agg *a = &x->agg[i], *b = &d->agg[i];
		__u32 tcsum = 14 + ip_hlen(a) + 16;
		__u32 j;

		ok = a->len == b->len && a->segs == b->segs;
		for (j = 0; ok && j < a->len; j++) {
			if (a->segs > 1 && (j == 24 || j == 25 ||
					    j == tcsum || j == tcsum + 1))
				continue;
			ok = a->data[j] == b->data[j];
		}
		if (!ok)
			print_message("# aggregate %d differs (byte %u)\n", i,
				      j ? j - 1 : 0);
	}
	if (!ok) {
		result_print("xrx", x);
		result_print("rte_gro", d);
	}
	assert_true(ok);
}

/*
 * Run a train through xrx and both modes of rte_gro. Both rte_gro modes
 * must agree with each other on every train here (every batch is
 * flushed), so one result stands for both.
 */
static void run_all(const struct train *t, const struct xrx_cfg *cfg,
		    struct result *x, struct result *d)
{
	struct result c = { 0 };

	xrx_run(t, cfg, x);
	dpdk_burst(t, d);
	dpdk_ctx(t, &c);
	assert_int_equal(c.n, d->n);
	assert_same(&c, d);
	result_free(&c);
}

static void results_free(struct train *t, struct result *x, struct result *d)
{
	train_free(t);
	result_free(x);
	result_free(d);
}

/* Reasons of xrx's packets, in the sorted order. */
static void assert_reason(const struct result *x, int i, int reason)
{
	assert_true(i < x->n);
	if ((int)x->agg[i].reason != reason)
		print_message("# packet %d: reason %s, expected %s\n", i,
			      xrx_engine_stat__name(x->agg[i].reason),
			      xrx_engine_stat__name(reason));
	assert_int_equal(x->agg[i].reason, reason);
}

static struct frame_spec spec(void)
{
	struct frame_spec s;

	frame_spec_tcp4(&s);
	return s;
}

/* ---- the trains -------------------------------------------------------- */

/* A bulk flow: one aggregate of everything. */
static void t_bulk(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 20, MSS);
}

/*
 * The 64 KiB limit: 40 + 45 * 1448 = 65200 fits, one more does not, in
 * skb_gro_receive() (held + add >= 65536) as in merge_two_tcp4_packets()
 * (> 65535): the same rule. rte_gro 22.11 has no segment bound (23.07
 * added "nb_segs >= 20"), so it merges 45 too.
 */
static void t_limit_64k(struct train *t)
{
	struct frame_spec s = spec();

	s.tcp_opts = NULL;
	s.tcp_opts_len = 0;
	train_add_run(t, &s, 50, MSS);
}

/*
 * The exact edge: with timestamps (20 + 32 bytes of headers) eleven
 * 5953-byte segments make an IP length of exactly 65535, which both
 * accept; the twelfth would make it larger.
 */
static void t_limit_exact(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 12, 5953);
}

static void c_limit_exact(const struct train *t, const struct result *x,
			  const struct result *d)
{
	assert_int_equal(x->agg[0].len - 14, 65535);
}

/* Four flows, strictly interleaved: four aggregates. */
static void t_interleaved(struct train *t)
{
	struct frame_spec s[4];
	int i, f;

	for (f = 0; f < 4; f++) {
		s[f] = spec();
		s[f].sport = FRAME_SPORT + f;
		s[f].seq = 1000 + f * 1000000;
	}
	for (i = 0; i < 10; i++)
		for (f = 0; f < 4; f++)
			train_add_run(t, &s[f], 1, MSS);
}

/* A lost segment: the aggregate ends at the gap in both. */
static void t_seq_gap(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 5, MSS);
	s.seq += MSS;
	train_add_run(t, &s, 5, MSS);
}

/* Batches of 8: everything is delivered at each batch end. */
static void t_batch_end(struct train *t)
{
	struct frame_spec s = spec();

	t->batch = 8;
	train_add_run(t, &s, 30, MSS);
}

/* DF clear, IP ID incrementing: both accept (inet_gro_flush(), DPDK +1). */
static void t_ipid_incrementing(struct train *t)
{
	struct frame_spec s = spec();

	s.frag_off = 0;
	s.ip_id = 4242;
	train_add_run(t, &s, 20, MSS);
}

/*
 * The ACK number changes: the kernel compares ack_seq and flushes
 * (tcp_gro_receive); rte_gro has it in the flow key, so the segments go
 * to another flow of its table. Different rules, same boundaries: ACK in
 * the key never merges what the kernel would not, as both demand equal
 * ACK numbers.
 */
static void t_ack_change(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.ack += 1000;
	train_add_run(t, &s, 3, MSS);
}

/* Timestamp option changes: both compare options byte by byte. */
static void t_option_change(struct train *t)
{
	static const __u8 ts2[12] = { 1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 0 };
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.tcp_opts = ts2;
	train_add_run(t, &s, 3, MSS);
}

/*
 * ECE in the middle: the kernel flushes on the flag difference both ways;
 * rte_gro does not process it at all and the next segment is not the
 * neighbour of the held aggregate. Three packets in both.
 */
static void t_ece(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.tcp_flags = 0x50;	/* ECE | ACK */
	train_add_run(t, &s, 1, MSS);
	s.tcp_flags = 0x10;
	train_add_run(t, &s, 3, MSS);
}

/*
 * One bad TCP checksum in the middle. Trusted (CHECKSUM_UNNECESSARY): it
 * merges in both. Verified: the kernel delivers the segment alone without
 * flushing, and the next one is then not contiguous; rte_gro validates
 * nothing and merges all five.
 */
static void t_bad_csum(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 2, MSS);
	s.bad_l4_csum = 1;
	train_add_run(t, &s, 1, MSS);
	s.bad_l4_csum = 0;
	train_add_run(t, &s, 2, MSS);
}

/*
 * Reordering: rte_gro prepends s1 to the held s2 and keeps appending
 * (check_seq_option() returns -1 for a predecessor); the kernel only
 * appends the next sequence number and flushes otherwise.
 */
static void t_reorder(struct train *t)
{
	struct frame_spec s = spec(), s1;

	s1 = s;
	s.seq += MSS;
	s.ip_id++;
	train_add_run(t, &s, 1, MSS);		/* s2 */
	train_add_run(t, &s1, 1, MSS);		/* s1 */
	train_add_run(t, &s, 2, MSS);		/* s3, s4 */
}

/* TTL or TOS change: inet_gro_flush() flushes, rte_gro never looks. */
static void t_ttl(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.ttl--;
	train_add_run(t, &s, 3, MSS);
}

static void t_tos(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.tos = 0x10;
	train_add_run(t, &s, 3, MSS);
}

/*
 * The mss rule: a short segment completes the kernel's aggregate, and a
 * segment longer than the first flushes it ((len - 1) >= mss). rte_gro
 * checks only contiguity and the 65535-byte limit.
 */
static void t_mss_short(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 2, MSS);
	train_add_run(t, &s, 1, 500);
	train_add_run(t, &s, 2, MSS);
}

static void t_mss_long(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 1, 1000);
	train_add_run(t, &s, 2, MSS);
}

/*
 * PSH or FIN on the last segment: the kernel merges it and completes the
 * aggregate with the flag OR-ed in; rte_gro processes only segments whose
 * flags are exactly ACK and delivers it alone.
 */
static void t_last_flag(struct train *t, __u8 flag)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 4, MSS);
	s.tcp_flags |= flag;
	train_add_run(t, &s, 1, MSS);
}

static void t_psh(struct train *t)
{
	t_last_flag(t, 0x08);
}

static void t_fin(struct train *t)
{
	t_last_flag(t, 0x01);
}

/* The flag is in xrx's aggregate and not in rte_gro's first packet. */
static void c_last_flag(const struct result *x, const struct result *d,
			__u8 flag)
{
	assert_true(x->agg[0].data[14 + 20 + 13] & flag);
	assert_false(d->agg[0].data[14 + 20 + 13] & flag);
}

static void c_psh(const struct train *t, const struct result *x,
		  const struct result *d)
{
	c_last_flag(x, d, 0x08);
}

static void c_fin(const struct train *t, const struct result *x,
		  const struct result *d)
{
	c_last_flag(x, d, 0x01);
}

/* A window update: tcp_flag_word() includes the window, rte_gro's key not. */
static void t_window(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	s.window += 100;
	train_add_run(t, &s, 3, MSS);
}

/*
 * IPv4 ID. DF set: rte_gro ignores the ID (is_atomic), the kernel wants
 * it incrementing or fixed. DF clear: rte_gro wants +1, the kernel also
 * accepts a fixed ID (mainline dropped "fixed ID needs DF").
 */
static void t_ipid_df_random(struct train *t)
{
	static const __u16 random_ids[] = { 100, 7, 3000, 9, 512 };
	struct frame_spec s = spec();
	int i;

	for (i = 0; i < 5; i++) {
		s.ip_id = random_ids[i];
		s.payload_len = MSS;
		train_add(t, &s);
		s.seq += MSS;
	}
}

static void t_ipid_nodf_fixed(struct train *t)
{
	struct frame_spec s = spec();
	int i;

	s.frag_off = 0;
	s.ip_id = 77;
	for (i = 0; i < 5; i++) {
		s.payload_len = MSS;
		train_add(t, &s);
		s.seq += MSS;
	}
}

/*
 * The delivered headers: xrx recomputes the IPv4 header checksum
 * (inet_gro_complete()) and leaves the TCP checksum as the pseudo-header
 * sum for CHECKSUM_PARTIAL (tcp4_gro_complete()); rte_gro updates only
 * tot_len, so both checksums are the first segment's.
 */
static void c_checksums(const struct train *t, const struct result *x,
			const struct result *d)
{
	const struct agg *a = &x->agg[0], *b = &d->agg[0];
	const __u8 *first = t->frame[0];
	__u32 l4len, sum;
	int i;

	/* tot_len: updated by both */
	assert_memory_equal(a->data + 16, b->data + 16, 2);
	/* IPv4 header checksum: valid in xrx, stale in rte_gro */
	assert_int_equal(frame_csum(a->data + 14, 20, 0), 0);
	assert_int_not_equal(frame_csum(b->data + 14, 20, 0), 0);
	assert_memory_equal(b->data + 24, first + 24, 2);
	/* TCP checksum: the pseudo-header sum over the aggregate, not inverted */
	l4len = a->len - 34;
	sum = 6 + l4len;
	for (i = 0; i < 8; i += 2)
		sum += a->data[26 + i] << 8 | a->data[27 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	assert_int_equal(a->data[50] << 8 | a->data[51], sum);
	assert_memory_equal(b->data + 50, first + 50, 2);
}

/*
 * Size: with BIG TCP (max_aggregate 524280) the kernel and xrx grow one
 * aggregate past 65535 with tot_len 0; rte_gro stops at 65535.
 */
static void t_big_tcp(struct train *t)
{
	struct frame_spec s = spec();

	s.tcp_opts = NULL;
	s.tcp_opts_len = 0;
	train_add_run(t, &s, 60, MSS);
}

static void c_big_tcp(const struct train *t, const struct result *x,
		      const struct result *d)
{
	assert_int_equal(x->agg[0].data[16] << 8 | x->agg[0].data[17], 0);
	assert_int_equal(x->agg[0].len, 14 + 40 + 60 * MSS);
}

/*
 * A pure ACK inside the train: the kernel flushes the held aggregate
 * ((len - 1) >= mss with len 0) and delivers the ACK; rte_gro leaves the
 * ACK out of its table (tcp_dl <= 0) and keeps merging across it.
 */
static void t_pure_ack(struct train *t)
{
	struct frame_spec s = spec();

	train_add_run(t, &s, 3, MSS);
	train_add_run(t, &s, 1, 0);
	train_add_run(t, &s, 3, MSS);
}

/* ---- the cases ------------------------------------------------------------ */

#define CASE_AGGS 8	/* expected packets of one case, at most */

/*
 * A train and what both make of it: the segment counts of xrx's packets
 * in flow and sequence order, and rte_gro's. Where rte_gro's are left
 * empty the rules agree and the output must be identical, byte for byte
 * but for the checksums rte_gro leaves stale (assert_same()).
 */
struct gro_case {
	const char *name;
	void (*train)(struct train *t);
	struct xrx_cfg cfg;		/* zero: 64 KiB, checksums verified */
	int xrx[CASE_AGGS];		/* ends at the first 0 */
	int dpdk[CASE_AGGS];		/* all 0: identical to xrx's */
	int reason_at;			/* xrx's packet whose reason is checked */
	int reason;			/* 1 + enum xrx_engine_stat; 0: none */
	void (*check)(const struct train *t, const struct result *x,
		      const struct result *d);
};

#define REASON(i, r) .reason_at = (i), .reason = 1 + XRX_ENGINE_STAT_##r

static const struct gro_case cases[] = {
	/* Where the rules agree. */
	{ "agree_bulk", t_bulk, .xrx = { 20 } },
	{ "agree_limit_64k", t_limit_64k, .xrx = { 45, 5 },
	  REASON(0, FLUSH_SIZE) },
	{ "agree_limit_exact", t_limit_exact, .xrx = { 11, 1 },
	  .check = c_limit_exact },
	{ "agree_interleaved", t_interleaved, .xrx = { 10, 10, 10, 10 } },
	{ "agree_seq_gap", t_seq_gap, .xrx = { 5, 5 } },
	{ "agree_batch_end", t_batch_end, .xrx = { 8, 8, 8, 6 },
	  REASON(0, FLUSH_BATCH_END) },
	{ "agree_ipid_incrementing", t_ipid_incrementing, .xrx = { 20 } },
	{ "agree_ack_change", t_ack_change, .xrx = { 3, 3 },
	  REASON(0, FLUSH_ACK) },
	{ "agree_option_change", t_option_change, .xrx = { 3, 3 },
	  REASON(0, FLUSH_OPTS) },
	{ "agree_ece", t_ece, .xrx = { 3, 1, 3 }, REASON(0, FLUSH_FLAGS) },
	{ "agree_csum_trusted", t_bad_csum, .cfg = { .csum = XRX_CSUM_TRUST },
	  .xrx = { 5 } },

	/* The documented differences. */
	{ "differ_reorder", t_reorder, .xrx = { 1, 1, 2 }, .dpdk = { 4 } },
	{ "differ_ttl", t_ttl, .xrx = { 3, 3 }, .dpdk = { 6 },
	  REASON(0, FLUSH_TTL) },
	{ "differ_tos", t_tos, .xrx = { 3, 3 }, .dpdk = { 6 },
	  REASON(0, FLUSH_TOS) },
	{ "differ_mss_short", t_mss_short, .xrx = { 3, 2 }, .dpdk = { 5 },
	  REASON(0, COMPLETE_SHORT) },
	{ "differ_mss_long", t_mss_long, .xrx = { 1, 2 }, .dpdk = { 3 },
	  REASON(0, FLUSH_MSS) },
	{ "differ_psh", t_psh, .xrx = { 5 }, .dpdk = { 4, 1 },
	  REASON(0, COMPLETE_FLAGS), .check = c_psh },
	{ "differ_fin", t_fin, .xrx = { 5 }, .dpdk = { 4, 1 },
	  REASON(0, COMPLETE_FLAGS), .check = c_fin },
	{ "differ_window", t_window, .xrx = { 3, 3 }, .dpdk = { 6 },
	  REASON(0, FLUSH_WINDOW) },
	{ "differ_ipid_df", t_ipid_df_random, .xrx = { 1, 1, 1, 1, 1 },
	  .dpdk = { 5 }, REASON(0, FLUSH_IPID) },
	{ "differ_ipid_nodf", t_ipid_nodf_fixed, .xrx = { 5 },
	  .dpdk = { 1, 1, 1, 1, 1 } },
	{ "differ_csum_verify", t_bad_csum, .xrx = { 2, 1, 2 }, .dpdk = { 5 },
	  REASON(1, CSUM_BAD) },
	{ "differ_checksums", t_bulk, .xrx = { 20 }, .dpdk = { 20 },
	  .check = c_checksums },
	{ "differ_big_tcp", t_big_tcp,
	  .cfg = { .max_aggregate = XRX_AGGREGATE_MAX }, .xrx = { 60 },
	  .dpdk = { 45, 15 }, .check = c_big_tcp },
	{ "differ_pure_ack", t_pure_ack, .xrx = { 3, 1, 3 }, .dpdk = { 6, 1 },
	  REASON(0, FLUSH_NO_PAYLOAD) },
};

#define NR_CASES ((int)(sizeof(cases) / sizeof(cases[0])))

static int nr_aggs(const int *segs)
{
	int n = 0;

	while (n < CASE_AGGS && segs[n])
		n++;
	return n;
}

static void run_case(void **state)
{
	const struct gro_case *c = *state;
	struct train t = { 0 };
	struct result x = { 0 }, d = { 0 };

	c->train(&t);
	run_all(&t, &c->cfg, &x, &d);
	assert_segs("xrx", &x, c->xrx, nr_aggs(c->xrx));
	if (c->reason)
		assert_reason(&x, c->reason_at, c->reason - 1);
	if (nr_aggs(c->dpdk))
		assert_segs("rte_gro", &d, c->dpdk, nr_aggs(c->dpdk));
	else
		assert_same(&x, &d);
	if (c->check)
		c->check(&t, &x, &d);
	results_free(&t, &x, &d);
}

/* ---- setup ------------------------------------------------------------ */

static int group_setup(void **state)
{
	/*
	 * A handful of mbufs per frame of the biggest train is plenty; the
	 * room of 9216 bytes takes the 5953-byte segments. 256 MB of EAL
	 * memory: the 64 MB default is too small for this pool.
	 */
	pool = rte_pktmbuf_pool_create("xrx_gro_test", 1023, 0, 0,
				       RTE_PKTMBUF_HEADROOM + FRAME_CAP,
				       SOCKET_ID_ANY);
	if (!pool) {
		print_message("# rte_pktmbuf_pool_create: %s\n",
			      rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	rte_mempool_free(pool);
	return 0;
}

int main(void)
{
	struct CMUnitTest tests[NR_CASES];
	int i, rc;

	for (i = 0; i < NR_CASES; i++)
		tests[i] = (struct CMUnitTest){
			.name = cases[i].name,
			.test_func = run_case,
			.initial_state = (void *)&cases[i],
		};
	rc = dpdk_env_init(256, -1);
	if (rc) {
		/* The EAL refused to start: say why, as a skip, not a pass. */
		printf("1..1\nok 1 # SKIP DPDK EAL did not start (%s); "
		       "rte_gro cannot run in this process\n", strerror(-rc));
		return 0;
	}
	rc = _cmocka_run_group_tests("gro_dpdk", tests, NR_CASES, group_setup,
				     group_teardown);
	dpdk_env_fini();
	return rc;
}
