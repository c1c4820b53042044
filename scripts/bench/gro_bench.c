// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gro_bench: libxrx's GRO engine against DPDK's librte_gro, in memory.
 *
 * Trains of segments are built once per shape in one memory region (as
 * frames sit in an AF_XDP UMEM), with the metadata xrx_rx would write in
 * front of each frame, and fed to the engines in batches of 64 on one
 * pinned core. Only the engine calls are timed (TSC): for xrx
 * xrx_engine__rx(), which includes delivery to a null consumer that
 * releases every packet at once; for rte_gro the reassembly and flush
 * calls. Resetting DPDK's mbufs between uses (the driver's work) is not
 * timed; the mbufs reference the same frames as external buffers, so
 * neither engine copies anything it would not copy in real use.
 *
 * Shapes: 1..16384 concurrent flows, sent in bursts of 16 segments per
 * flow (as TSO senders produce) or strictly round-robin; MSS 1448 and
 * 8948; TCPv4, TCPv6, UDPv4, and TCPv4 inside VXLAN over IPv4 (vxlan4,
 * next to tcp4: the cost of the tunnel rules). Engine settings: copy
 * header / max-head /
 * full, checksums verified or trusted, flush at every batch end or after
 * a timeout (persistent table). rte_gro sees the TCPv4 trains (with
 * gro_tcp4) and the vxlan4 ones (with gro_vxlan_tcp4), in burst
 * mode (rte_gro_reassemble_burst() per batch, as xrx's batch-end flush)
 * and with a context (rte_gro_reassemble() + rte_gro_timeout_flush(), as
 * xrx's timeout).
 *
 * Output: a table on stdout and the same rows as JSON (--json FILE).
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_gro.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <xrx/parse.h>
#include <xrx/engine.h>

#include "common/frames.h"
#include "common/vxlan_frames.h"
#include "dpdk/dpdk_env.h"

#define BATCH 64
#define BURST 16		/* segments per flow per burst (TSO) */
#define HEADROOM 256		/* frame offset in its chunk; meta before */
#define BIG_TCP XRX_AGGREGATE_MAX

enum proto { P_TCP4, P_TCP6, P_UDP4, P_VXLAN4, P_MAX };
enum order { O_BURST, O_RR };
enum flush { F_BATCH, F_TIMEOUT };

/* vxlan4: TCP/IPv4 inside VXLAN over IPv4 (xrx_engine_opts.vxlan_ports) */
static const char *const proto_names[] = { "tcp4", "tcp6", "udp4", "vxlan4" };
static const char *const order_names[] = { "burst", "rr" };
static const char *const copy_names[] = { "header", "max-head", "full" };
static const char *const csum_names[] = { "verify", "trust" };
static const char *const flush_names[] = { "batch", "timeout" };

struct opts {
	bool quick;
	bool dpdk;
	int cpu;
	const char *json;
	const char *only;		/* run rows whose label contains it */
	__u64 region_budget;		/* bytes of frames per train */
	double row_secs;		/* timed seconds per row */
	__u32 timeout_us;		/* flush timeout of the persistent rows */
	int reps;			/* measurements per row, best kept */
};

/* One train: frames laid out in arrival order in the region. */
struct train {
	enum proto proto;
	enum order order;
	__u32 mss;
	__u32 flows;
	__u32 segs;			/* frames in the train */
	__u32 per_flow;			/* segments of each flow */
	__u32 stride;			/* chunk size; frame at HEADROOM */
	__u8 *region;
	__u64 region_size;
	struct xrx_frame *frames;	/* arrival order */
	__u16 *tot_len;			/* IPv4 tot_len as built (rte_gro rewrites) */
	__u16 l3_len, l4_len;
};

struct row {
	char engine[16];		/* "xrx" or "rte_gro" */
	char label[96];
	enum proto proto;
	enum order order;
	__u32 mss, flows, per_flow;
	int copy, csum, flush;		/* -1 where it does not apply */
	__u32 max_aggregate;
	__u64 segs, pkts, aggs, agg_segs, cycles;
	double best_cps;		/* fewest cycles per segment of a chunk */
	__u64 bytes_copied, payload_copied;
	double ns_per_seg, mpps, mpps_mean, segs_per_pkt, segs_per_agg, ratio;
};

static double tsc_hz;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* TSC ticks per second, against CLOCK_MONOTONIC over 50 ms. */
static void tsc_calibrate(void)
{
	__u64 t0 = now_ns(), c0 = __rdtsc(), t1;

	do
		t1 = now_ns();
	while (t1 - t0 < 50000000ull);
	tsc_hz = (double)(__rdtsc() - c0) * 1e9 / (double)(t1 - t0);
}

/* ---- trains ------------------------------------------------------------ */

static int train_alloc(struct train *t, __u64 budget)
{
	__u32 max_segs = budget / 2048 + 1;

	t->region_size = budget;
	t->region = mmap(NULL, budget, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->region == MAP_FAILED) {
		fprintf(stderr, "gro_bench: cannot map %llu MiB for the "
			"trains: %s; use --quick or free memory\n",
			(unsigned long long)(budget >> 20), strerror(errno));
		return -errno;
	}
	/* 2 MiB pages when THP allows: frames, not TLB misses, are measured */
	madvise(t->region, budget, MADV_HUGEPAGE);
	t->frames = calloc(max_segs, sizeof(*t->frames));
	t->tot_len = calloc(max_segs, sizeof(*t->tot_len));
	if (!t->frames || !t->tot_len)
		return -ENOMEM;
	return 0;
}

static void spec_for(struct frame_spec *s, enum proto p)
{
	switch (p) {
	case P_TCP4:
	case P_VXLAN4:		/* the inner frame */
		frame_spec_tcp4(s);
		break;
	case P_TCP6:
		frame_spec_tcp6(s);
		break;
	default:
		frame_spec_udp4(s);
		break;
	}
}

/*
 * Lay the train out in arrival order: chunk i holds the i-th segment to
 * arrive. Flow f is port 10000 + f (TCP: sequence numbers run on per
 * flow). Every frame gets the xrx_meta the XDP program would write, from
 * the same parser (include/xrx/parse.h).
 */
static int train_build(struct train *t, enum proto p, enum order o,
		       __u32 mss, __u32 flows, __u64 budget)
{
	static __u8 payload[9000];
	struct frame_spec s;
	struct vxlan_outer vo;
	struct frame_info fi;
	struct xrx_parsed r;
	__u32 *next_seq, *sent, i, f, k, burst;
	__u32 n = 0;

	t->proto = p;
	t->order = o;
	t->mss = mss;
	t->flows = flows;
	t->stride = mss > 2048 - HEADROOM - 128 ? 9216 + HEADROOM : 2048;
	t->per_flow = budget / t->stride / flows;
	if (t->per_flow > 4096)		/* a bulk flow needs no more */
		t->per_flow = 4096;
	if (t->per_flow < 2)
		t->per_flow = 2;
	t->segs = t->per_flow * flows;
	if ((__u64)t->segs * t->stride > t->region_size)
		return -ENOSPC;
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i * 7 + 3;

	next_seq = calloc(flows, sizeof(*next_seq));
	sent = calloc(flows, sizeof(*sent));
	if (!next_seq || !sent) {
		free(next_seq);
		free(sent);
		return -ENOMEM;
	}
	burst = o == O_BURST ? BURST : 1;
	while (n < t->segs) {
		for (f = 0; f < flows; f++) {
			for (k = 0; k < burst && sent[f] < t->per_flow; k++) {
				__u8 *chunk = t->region + (__u64)n * t->stride;
				__u8 *frame = chunk + HEADROOM;
				struct xrx_meta *m;
				int len;

				spec_for(&s, p);
				s.sport = 10000 + f % 50000;
				s.dport = 5001 + f / 50000;
				s.seq = next_seq[f];
				s.ip_id = sent[f];
				s.payload = payload;
				s.payload_len = mss;
				if (p == P_VXLAN4) {
					/* Outer ID per flow, as a sender's
					 * tunnel device counts it. */
					vxlan_outer_default(&vo, sent[f]);
					len = vxlan_frame_build(&s, &vo, frame,
								t->stride - HEADROOM,
								&fi);
				} else {
					len = frame_build_info(&s, frame,
							       t->stride - HEADROOM,
							       &fi);
				}
				if (len < 0) {
					free(next_seq);
					free(sent);
					return len;
				}
				xrx_parse(frame, len < XRX_PARSE_WINDOW ? len :
					  XRX_PARSE_WINDOW, len, &r);
				m = (struct xrx_meta *)(frame - sizeof(*m));
				xrx_meta_fill(m, &r);
				t->frames[n] = (struct xrx_frame){
					.addr = (__u64)n * t->stride + HEADROOM,
					.len = len,
					.meta = m,
				};
				t->tot_len[n] = fi.ip_len;
				t->l3_len = fi.l4_off - fi.l3_off;
				t->l4_len = fi.l4_hdr_len;
				next_seq[f] += mss;
				sent[f]++;
				n++;
			}
		}
	}
	free(next_seq);
	free(sent);
	return 0;
}

/* ---- xrx --------------------------------------------------------------- */

struct sink {
	struct xrx_engine *e;
	__u64 pkts, aggs, segs;
};

static void sink_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct sink *k = ctx;

	k->pkts++;
	k->segs += pkt->gso_segs;
	k->aggs += pkt->gso_segs > 1;
	xrx_pkt__release(k->e, pkt);
}

static void sink_release(void *ctx, __u64 addr)
{
}

static __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

/*
 * This is a VM shared with other work: a row's rate is that of its
 * fastest chunk of CHUNK_SEGS segments (the least disturbed), and the
 * mean over the row is kept beside it in the JSON.
 */
#define CHUNK_SEGS 8192

struct chunk {
	__u64 cycles, segs;
};

static void chunk_add(struct row *w, struct chunk *c, __u64 cycles, __u32 n)
{
	double cps;

	c->cycles += cycles;
	c->segs += n;
	if (c->segs < CHUNK_SEGS)
		return;
	cps = (double)c->cycles / (double)c->segs;
	if (w->best_cps == 0 || cps < w->best_cps)
		w->best_cps = cps;
	c->cycles = 0;
	c->segs = 0;
}

/*
 * Feed the train in batches until @secs of engine time have passed and
 * the train went through at least once (or 4 s of wall time: the slow
 * rte_gro rows with many flows stop early, at a batch boundary). When the
 * train wraps around, sequence numbers jump back: the engines flush once
 * per flow there, as after a loss.
 */
static int run_xrx(const struct train *t, struct row *w, const struct opts *op)
{
	struct sink k = { 0 };
	struct xrx_engine_opts o = {
		.sz = sizeof(o),
		.region = t->region,
		.region_size = (__u64)t->segs * t->stride,
		.flows = t->flows * 2 > XRX_FLOWS_DEFAULT ? t->flows * 2 :
							     XRX_FLOWS_DEFAULT,
		.max_aggregate = w->max_aggregate,
		.flush_timeout_us = w->flush == F_TIMEOUT ? op->timeout_us : 0,
		.csum = w->csum,
		.copy = w->copy,
		.udp = t->proto == P_UDP4,
		.nr_vxlan_ports = t->proto == P_VXLAN4,
		.vxlan_ports = { VXLAN_FRAME_PORT },
		.deliver = sink_deliver,
		.release_frame = sink_release,
		.ctx = &k,
	};
	__u64 st[XRX_ENGINE_STAT_MAX], limit = op->row_secs * tsc_hz;
	__u64 wall = now_ns(), c0, c1, ts, cycles = 0, segs = 0;
	struct chunk ch = { 0 };
	__u32 pos = 0, n;
	int rc;

	k.e = xrx_engine__new(&o);
	if (!k.e) {
		fprintf(stderr, "gro_bench: xrx_engine__new for %s: %s\n",
			w->label, strerror(errno));
		return -errno;
	}
	while (segs < t->segs || cycles < limit) {
		if (now_ns() - wall > 4000000000ull && segs >= BATCH * 16)
			break;
		n = min_u32(BATCH, t->segs - pos);
		ts = now_ns();	/* the receive loop's clock read, untimed */
		c0 = __rdtsc();
		rc = xrx_engine__rx(k.e, t->frames + pos, n, ts);
		c1 = __rdtsc() - c0;
		cycles += c1;
		chunk_add(w, &ch, c1, n);
		if (rc < 0) {
			fprintf(stderr, "gro_bench: xrx_engine__rx for %s: %s\n",
				w->label, strerror(-rc));
			xrx_engine__free(k.e);
			return rc;
		}
		segs += n;
		pos += n;
		if (pos == t->segs)
			pos = 0;
	}
	xrx_engine__stats(k.e, st);
	xrx_engine__free(k.e);	/* delivers what is held: counted below */
	w->segs = segs;
	w->cycles = cycles;
	w->pkts = st[XRX_ENGINE_STAT_PKTS_OUT];
	w->aggs = st[XRX_ENGINE_STAT_AGGS_OUT];
	w->bytes_copied = st[XRX_ENGINE_STAT_BYTES_COPIED];
	w->payload_copied = st[XRX_ENGINE_STAT_PAYLOAD_BYTES_COPIED];
	/* Segments per packet over what was delivered while timed. */
	w->segs_per_pkt = w->pkts ? (double)st[XRX_ENGINE_STAT_FRAMES_IN] /
				    (double)w->pkts : 0;
	w->segs_per_agg = w->aggs ? (double)(st[XRX_ENGINE_STAT_SEGS_MERGED] +
					     w->aggs) / (double)w->aggs : 0;
	return 0;
}

/* ---- rte_gro ----------------------------------------------------------- */

static struct rte_mempool *mb_pool;
static struct rte_mbuf **mbufs;		/* one per train slot */
static __u32 nr_mbufs;
static struct rte_mbuf_ext_shared_info ext_info;

static void ext_free(void *addr, void *opaque)
{
}

static int dpdk_setup(__u32 max_segs)
{
	int rc;

	/* Data room 0: every mbuf points into the train's region instead. */
	mb_pool = rte_pktmbuf_pool_create("gro_bench", max_segs + 1024, 0, 0,
					  0, SOCKET_ID_ANY);
	if (!mb_pool) {
		fprintf(stderr, "gro_bench: rte_pktmbuf_pool_create(%u): %s\n",
			max_segs, rte_strerror(rte_errno));
		return -rte_errno;
	}
	mbufs = calloc(max_segs, sizeof(*mbufs));
	if (!mbufs)
		return -ENOMEM;
	rc = rte_pktmbuf_alloc_bulk(mb_pool, mbufs, max_segs);
	if (rc)
		return rc;
	nr_mbufs = max_segs;
	ext_info.free_cb = ext_free;
	rte_mbuf_ext_refcnt_set(&ext_info, 1);
	return 0;
}

static void mbuf_attach(const struct train *t)
{
	__u32 i;

	for (i = 0; i < t->segs; i++) {
		__u8 *chunk = t->region + (__u64)i * t->stride;

		rte_pktmbuf_attach_extbuf(mbufs[i], chunk,
					  (rte_iova_t)(uintptr_t)chunk,
					  t->stride, &ext_info);
	}
}

/*
 * What a driver does for each received frame: point the mbuf at it and
 * fill in what the NIC's parser found. rte_gro rewrote tot_len of the
 * frames it delivered as aggregate heads: restore it, as a NIC would
 * write a fresh frame.
 */
static void mbuf_reset(const struct train *t, __u32 i)
{
	struct rte_mbuf *m = mbufs[i];
	__u8 *ip = t->region + t->frames[i].addr + 14;
	__u32 outer;

	m->data_off = HEADROOM;
	m->data_len = t->frames[i].len;
	m->pkt_len = t->frames[i].len;
	m->nb_segs = 1;
	m->next = NULL;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			 RTE_PTYPE_L4_TCP;
	m->l2_len = 14;
	m->l3_len = t->l3_len;
	m->l4_len = t->l4_len;
	if (t->proto == P_VXLAN4) {
		/* gro_vxlan_tcp4 also rewrites the outer tot_len and UDP
		 * length; every frame has the same outer headers around
		 * its inner IP packet. */
		m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				 RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN |
				 RTE_PTYPE_INNER_L2_ETHER |
				 RTE_PTYPE_INNER_L3_IPV4 |
				 RTE_PTYPE_INNER_L4_TCP;
		m->outer_l2_len = 14;
		m->outer_l3_len = 20;
		m->l2_len = 8 + 8 + 14;
		outer = t->tot_len[i] + VXLAN_FRAME_HDRS - 14;
		ip[2] = outer >> 8;
		ip[3] = outer;
		ip[20 + 4] = (outer - 20) >> 8;
		ip[20 + 5] = outer - 20;
		ip += VXLAN_FRAME_HDRS;	/* the inner IP header */
	}
	ip[2] = t->tot_len[i] >> 8;
	ip[3] = t->tot_len[i];
}

/* The rte_gro type of a train. */
static __u64 dpdk_gro_type(const struct train *t)
{
	return t->proto == P_VXLAN4 ? RTE_GRO_IPV4_VXLAN_TCP_IPV4 :
				      RTE_GRO_TCP_IPV4;
}

static void dpdk_count(struct row *w, struct rte_mbuf **pkts, __u16 n)
{
	__u16 i;

	for (i = 0; i < n; i++) {
		w->pkts++;
		if (pkts[i]->nb_segs > 1) {
			w->aggs++;
			w->agg_segs += pkts[i]->nb_segs;
		}
	}
}

static int run_dpdk(const struct train *t, struct row *w,
		    const struct opts *op)
{
	struct rte_gro_param param = {
		.gro_types = dpdk_gro_type(t),
		.max_flow_num = BATCH,
		.max_item_per_flow = BATCH,
		.socket_id = SOCKET_ID_ANY,
	};
	struct rte_mbuf *pkts[BATCH], *out[BATCH];
	__u64 limit = op->row_secs * tsc_hz, wall = now_ns();
	__u64 tmo = (__u64)op->timeout_us * rte_get_tsc_hz() / 1000000;
	__u64 c0, c1, cycles = 0, segs = 0;
	struct chunk ch = { 0 };
	__u32 pos = 0, n, i;
	void *ctx = NULL;
	__u16 m;

	if (w->flush == F_TIMEOUT) {
		/*
		 * Two items per flow: one to spare for the sequence jump
		 * when the train wraps. The flow search, the free-item
		 * search and the timeout flush are linear scans of the
		 * table (flows * items entries): that is rte_gro's cost.
		 */
		param.max_flow_num = t->flows;
		param.max_item_per_flow = 2;
		ctx = rte_gro_ctx_create(&param);
		if (!ctx) {
			fprintf(stderr, "gro_bench: rte_gro_ctx_create(%u flows) "
				"failed; raise the EAL memory (-m)\n", t->flows);
			return -ENOMEM;
		}
	}
	while (segs < t->segs || cycles < limit) {
		if (now_ns() - wall > 4000000000ull && segs >= BATCH * 16)
			break;
		n = min_u32(BATCH, t->segs - pos);
		for (i = 0; i < n; i++) {
			mbuf_reset(t, pos + i);
			pkts[i] = mbufs[pos + i];
		}
		if (!ctx) {
			c0 = __rdtsc();
			m = rte_gro_reassemble_burst(pkts, n, &param);
			c1 = __rdtsc() - c0;
			dpdk_count(w, pkts, m);
		} else {
			c0 = __rdtsc();
			m = rte_gro_reassemble(pkts, n, ctx);
			c1 = __rdtsc() - c0;
			dpdk_count(w, pkts, m);
			do {
				c0 = __rdtsc();
				m = rte_gro_timeout_flush(ctx, tmo,
						dpdk_gro_type(t), out, BATCH);
				c1 += __rdtsc() - c0;
				dpdk_count(w, out, m);
			} while (m == BATCH);
		}
		cycles += c1;
		chunk_add(w, &ch, c1, n);
		segs += n;
		pos += n;
		if (pos == t->segs) {
			/* Wrapping: no mbuf may still be held. */
			pos = 0;
			while (ctx && rte_gro_get_pkt_count(ctx)) {
				m = rte_gro_timeout_flush(ctx, 0,
						dpdk_gro_type(t), out, BATCH);
				dpdk_count(w, out, m);
			}
		}
	}
	while (ctx && rte_gro_get_pkt_count(ctx)) {
		m = rte_gro_timeout_flush(ctx, 0, dpdk_gro_type(t), out,
					  BATCH);
		dpdk_count(w, out, m);
	}
	if (ctx)
		rte_gro_ctx_destroy(ctx);
	w->payload_copied = 0;		/* rte_gro chains mbufs: no copy */
	w->bytes_copied = 0;
	w->segs = segs;
	w->cycles = cycles;
	w->segs_per_pkt = w->pkts ? (double)segs / (double)w->pkts : 0;
	w->segs_per_agg = w->aggs ? (double)w->agg_segs / (double)w->aggs : 0;
	/* Restore every tot_len for the xrx rows of the next train. */
	for (i = 0; i < t->segs; i++)
		mbuf_reset(t, i);
	return 0;
}

/* ---- rows -------------------------------------------------------------- */

static struct row *rows;
static int nr_rows, cap_rows;

static struct row *row_new(const char *engine, const struct train *t,
			   int copy, int csum, int flush, __u32 max_agg)
{
	struct row *w;

	if (nr_rows == cap_rows) {
		cap_rows = cap_rows ? cap_rows * 2 : 256;
		rows = realloc(rows, cap_rows * sizeof(*rows));
		if (!rows)
			return NULL;
	}
	w = &rows[nr_rows];
	memset(w, 0, sizeof(*w));
	snprintf(w->engine, sizeof(w->engine), "%s", engine);
	w->proto = t->proto;
	w->order = t->order;
	w->mss = t->mss;
	w->flows = t->flows;
	w->per_flow = t->per_flow;
	w->copy = copy;
	w->csum = csum;
	w->flush = flush;
	w->max_aggregate = max_agg ? max_agg : XRX_AGGREGATE_DEFAULT;
	snprintf(w->label, sizeof(w->label), "%s %s/%u/f%u/%s %s/%s/%s%s",
		 engine, proto_names[t->proto], t->mss, t->flows,
		 order_names[t->order], copy >= 0 ? copy_names[copy] : "-",
		 csum >= 0 ? csum_names[csum] : "-", flush_names[flush],
		 max_agg > XRX_AGGREGATE_DEFAULT ? "/bigtcp" : "");
	return w;
}

static void row_finish(struct row *w)
{
	double secs = w->cycles / tsc_hz;
	double cps = w->best_cps;

	/* Rows shorter than one chunk: the mean is all there is. */
	if (cps == 0 && w->segs)
		cps = (double)w->cycles / (double)w->segs;
	w->ns_per_seg = cps * 1e9 / tsc_hz;
	w->mpps = cps > 0 ? tsc_hz / cps / 1e6 : 0;
	w->mpps_mean = secs > 0 ? (double)w->segs / secs / 1e6 : 0;
}

static void row_print_header(void)
{
	printf("%-52s %6s %7s %6s %6s %7s %7s %6s\n", "row", "segs/f", "Mpps",
	       "ns/seg", "copy/s", "pay/s", "seg/agg", "x/dpdk");
}

static void row_print(const struct row *w)
{
	char ratio[16] = "";

	if (w->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.1f", w->ratio);
	printf("%-52s %6u %7.2f %6.1f %6.1f %7.1f %7.1f %6s\n", w->label,
	       w->per_flow, w->mpps, w->ns_per_seg,
	       w->segs ? (double)w->bytes_copied / (double)w->segs : 0,
	       w->segs ? (double)w->payload_copied / (double)w->segs : 0,
	       w->segs_per_agg, ratio);
	fflush(stdout);
}

static bool wanted(const struct opts *op, const char *label)
{
	return !op->only || strstr(label, op->only);
}

/* Whether any row of a train would run: skip building the others. */
static bool train_wanted(const struct opts *op, const struct train *t)
{
	int copy, csum, flush;
	bool any = false;

	for (flush = 0; flush < 2; flush++) {
		for (copy = 0; copy < 3; copy++)
			for (csum = 0; csum < 2; csum++)
				any |= wanted(op, row_new("xrx", t, copy, csum,
							  flush, 0)->label);
		any |= wanted(op, row_new("xrx", t, 0, 1, flush,
					  BIG_TCP)->label);
		any |= wanted(op, row_new("rte_gro", t, -1, -1, flush,
					  0)->label);
	}
	return any;
}

/* xrx's ratio against the rte_gro row of the same train and flush kind. */
static void ratios(int first)
{
	int i, j;

	for (i = first; i < nr_rows; i++) {
		if (strcmp(rows[i].engine, "xrx"))
			continue;
		for (j = first; j < nr_rows; j++) {
			if (strcmp(rows[j].engine, "rte_gro") ||
			    rows[j].flush != rows[i].flush ||
			    rows[i].max_aggregate != XRX_AGGREGATE_DEFAULT ||
			    rows[j].mpps <= 0)
				continue;
			rows[i].ratio = rows[i].mpps / rows[j].mpps;
		}
	}
}

/*
 * One measurement of a row. The first sets its counters; later ones only
 * lower its best chunk, so repetitions spread over the run filter out
 * the moments another tenant of the machine took the core or the cache.
 */
static int measure(const struct train *t, struct row *w,
		   const struct opts *op)
{
	struct row m = *w;
	int rc;

	m.segs = m.pkts = m.aggs = m.agg_segs = m.cycles = 0;
	m.bytes_copied = m.payload_copied = 0;
	m.best_cps = 0;
	if (!strcmp(w->engine, "xrx"))
		rc = run_xrx(t, &m, op);
	else
		rc = run_dpdk(t, &m, op);
	if (rc)
		return rc;
	if (!w->segs)
		*w = m;
	else if (m.best_cps > 0 && m.best_cps < w->best_cps)
		w->best_cps = m.best_cps;
	return 0;
}

static int add_row(const struct opts *op, const char *engine,
		   const struct train *t, int copy, int csum, int flush,
		   __u32 max_agg)
{
	struct row *w = row_new(engine, t, copy, csum, flush, max_agg);

	if (!w)
		return -ENOMEM;
	if (wanted(op, w->label))
		nr_rows++;
	return 0;
}

static int run_train(const struct train *t, const struct opts *op)
{
	int copy, csum, flush, first = nr_rows, i, rep, rc = 0;

	for (flush = 0; flush < 2 && !rc; flush++)
		for (copy = 0; copy < 3 && !rc; copy++)
			for (csum = 0; csum < 2 && !rc; csum++)
				rc = add_row(op, "xrx", t, copy, csum, flush, 0);
	/* BIG TCP: the bulk-flow aggregates of up to 512 KiB. */
	if (!rc && (t->proto == P_TCP4 || t->proto == P_TCP6) &&
	    t->flows <= 64 && t->order == O_BURST)
		rc = add_row(op, "xrx", t, XRX_COPY_HEADER, XRX_CSUM_TRUST,
			     F_TIMEOUT, BIG_TCP);
	if (op->dpdk && (t->proto == P_TCP4 || t->proto == P_VXLAN4)) {
		mbuf_attach(t);
		for (flush = 0; flush < 2 && !rc; flush++)
			rc = add_row(op, "rte_gro", t, -1, -1, flush, 0);
	}
	for (rep = 0; rep < op->reps && !rc; rep++)
		for (i = first; i < nr_rows && !rc; i++)
			rc = measure(t, &rows[i], op);
	if (rc)
		return rc;
	for (i = first; i < nr_rows; i++)
		row_finish(&rows[i]);
	ratios(first);
	for (i = first; i < nr_rows; i++)
		row_print(&rows[i]);
	return 0;
}

static int write_json(const struct opts *op)
{
	FILE *f = fopen(op->json, "w");
	int i;

	if (!f) {
		fprintf(stderr, "gro_bench: cannot write %s: %s; create its "
			"folder or pass --json PATH\n", op->json, strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n  \"bench\": \"gro\",\n  \"batch\": %d,\n"
		"  \"burst\": %d,\n  \"timeout_us\": %u,\n  \"quick\": %s,\n"
		"  \"tsc_hz\": %.0f,\n  \"rows\": [\n", BATCH, BURST,
		op->timeout_us, op->quick ? "true" : "false", tsc_hz);
	for (i = 0; i < nr_rows; i++) {
		const struct row *w = &rows[i];

		fprintf(f, "    {\"engine\": \"%s\", \"label\": \"%s\", "
			"\"proto\": \"%s\", \"mss\": %u, \"flows\": %u, "
			"\"order\": \"%s\", \"segs_per_flow\": %u, "
			"\"copy\": %s%s%s, \"csum\": %s%s%s, \"flush\": \"%s\", "
			"\"max_aggregate\": %u, \"segs\": %llu, "
			"\"pkts\": %llu, \"aggs\": %llu, "
			"\"mpps\": %.3f, \"mpps_mean\": %.3f, "
			"\"ns_per_seg\": %.2f, "
			"\"bytes_copied_per_seg\": %.2f, "
			"\"payload_bytes_copied_per_seg\": %.2f, "
			"\"segs_per_pkt\": %.2f, \"segs_per_agg\": %.2f, "
			"\"ratio_vs_dpdk\": %.2f}%s\n",
			w->engine, w->label, proto_names[w->proto], w->mss,
			w->flows, order_names[w->order], w->per_flow,
			w->copy >= 0 ? "\"" : "",
			w->copy >= 0 ? copy_names[w->copy] : "null",
			w->copy >= 0 ? "\"" : "",
			w->csum >= 0 ? "\"" : "",
			w->csum >= 0 ? csum_names[w->csum] : "null",
			w->csum >= 0 ? "\"" : "",
			flush_names[w->flush], w->max_aggregate,
			(unsigned long long)w->segs,
			(unsigned long long)w->pkts,
			(unsigned long long)w->aggs, w->mpps,
			w->mpps_mean, w->ns_per_seg,
			w->segs ? (double)w->bytes_copied / w->segs : 0,
			w->segs ? (double)w->payload_copied / w->segs : 0,
			w->segs_per_pkt, w->segs_per_agg, w->ratio,
			i + 1 < nr_rows ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (fclose(f))
		return -errno;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: gro_bench [--quick] [--json FILE] [--cpu N] [--only TEXT]\n"
"                 [--timeout-us N] [--no-dpdk] [--secs S] [--reps N]\n"
"  Times libxrx's GRO engine and DPDK's rte_gro on in-memory trains and\n"
"  prints one row per train and setting:\n"
"    segs/f   segments per flow in the train\n"
"    Mpps     segments per second on one core; ns/seg its inverse\n"
"    copy/s   bytes copied per segment; pay/s the payload part of it\n"
"    seg/agg  segments per delivered aggregate (2 or more segments)\n"
"    x/dpdk   xrx's Mpps over rte_gro's on the same train and flush kind\n"
"  --quick        small trains, short rows (a smoke run, seconds)\n"
"  --json FILE    write the rows as JSON (default build/bench/gro.json)\n"
"  --cpu N        pin to CPU N (default: the last one)\n"
"  --only TEXT    only rows whose label contains TEXT, e.g. 'tcp4/1448'\n"
"  --timeout-us N flush timeout of the persistent-table rows (default 50)\n"
"  --no-dpdk      xrx rows only\n"
"  --secs S       engine time per measurement (default 0.02)\n"
"  --reps N       measurements per row, the fastest chunk counts (3)\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "timeout-us", required_argument, NULL, 't' },
		{ "no-dpdk", no_argument, NULL, 'n' },
		{ "secs", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const __u32 flow_counts[] = { 1, 64, 1024, 16384 };
	static const __u32 mss_values[] = { 1448, 8948 };
	struct opts op = {
		.dpdk = true,
		.cpu = -1,
		.json = "build/bench/gro.json",
		.region_budget = 512ull << 20,
		.row_secs = 0.02,
		.timeout_us = 50,
		.reps = 3,
	};
	struct train t = { 0 };
	int c, rc, p, o, m, f;
	cpu_set_t cpus;

	while ((c = getopt_long(argc, argv, "qj:c:o:t:ns:r:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			op.quick = true;
			op.region_budget = 48ull << 20;
			op.row_secs = 0.004;
			op.reps = 1;
			break;
		case 'j':
			op.json = optarg;
			break;
		case 'c':
			op.cpu = atoi(optarg);
			break;
		case 'o':
			op.only = optarg;
			break;
		case 't':
			op.timeout_us = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			op.dpdk = false;
			break;
		case 's':
			op.row_secs = strtod(optarg, NULL);
			break;
		case 'r':
			op.reps = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (op.cpu < 0) {
		if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
			for (c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &cpus))
					op.cpu = c;
		if (op.cpu < 0)
			op.cpu = 0;
	}

	if (op.dpdk) {
		/* The EAL pins this thread: xrx runs on the same core. */
		rc = dpdk_env_init(512, op.cpu);
		if (rc) {
			fprintf(stderr, "gro_bench: DPDK EAL did not start (%s); "
				"rte_gro rows need it (--no-dpdk to skip them)\n",
				strerror(-rc));
			return 1;
		}
	} else {
		CPU_ZERO(&cpus);
		CPU_SET(op.cpu, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			fprintf(stderr, "gro_bench: cannot pin to CPU %d: %s; "
				"running unpinned\n", op.cpu, strerror(errno));
	}
	tsc_calibrate();
	/*
	 * The region is mapped for the biggest train (16384 flows of two
	 * 9 KiB segments at least) and touched only as far as a train
	 * goes; the budget decides how many segments a train has.
	 */
	rc = train_alloc(&t, op.region_budget > (400ull << 20) ?
			 op.region_budget : (400ull << 20));
	if (!rc && op.dpdk)
		rc = dpdk_setup(t.region_size / 2048);
	if (rc)
		goto out;

	printf("# gro_bench: batch %d, burst %d, flush timeout %u us, cpu %d, "
	       "%.2f GHz TSC%s\n", BATCH, BURST, op.timeout_us, op.cpu,
	       tsc_hz / 1e9, op.quick ? ", quick" : "");
	row_print_header();
	for (p = 0; p < P_MAX; p++)
		for (m = 0; m < 2; m++)
			for (f = 0; f < 4; f++)
				for (o = 0; o < 2; o++) {
					t.proto = p;
					t.order = o;
					t.mss = mss_values[m];
					t.flows = flow_counts[f];
					if (!train_wanted(&op, &t))
						continue;
					rc = train_build(&t, p, o, mss_values[m],
							 flow_counts[f],
							 op.region_budget);
					if (rc) {
						fprintf(stderr, "gro_bench: "
							"building train %s/%u/f%u/%s: "
							"%s\n", proto_names[p],
							mss_values[m],
							flow_counts[f],
							order_names[o],
							strerror(-rc));
						goto out;
					}
					rc = run_train(&t, &op);
					if (rc)
						goto out;
				}
	rc = write_json(&op);
	if (!rc)
		printf("# %d rows, JSON in %s\n", nr_rows, op.json);
out:
	if (op.dpdk)
		dpdk_env_fini();
	return rc ? 1 : 0;
}
