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
 * Both engines start each batch in the same cache state, one of:
 *   cold  nothing of the batch (frames, metadata, mbufs) was touched since
 *         it went through a full pass earlier, and a pass touches more
 *         cache lines than the last-level cache holds (the default: a
 *         512 MiB train). DPDK's mbufs are reset right after rte_gro
 *         hands them back, not right before the next use, which no DPDK
 *         application does (its driver writes them in rte_eth_rx_burst()
 *         right before GRO): the warm rows are the realistic comparison.
 *   warm  right before the timed call the batch's metadata and header
 *         lines are read (xrx) and its mbufs reset and the same header
 *         lines read (rte_gro): everything either engine looks at first
 *         is in L1/L2, as after a copy-mode AF_XDP receive.
 *
 * Shapes: 1..16384 concurrent flows, sent in bursts of 16 segments per
 * flow (as TSO senders produce) or strictly round-robin; and 16384 flows
 * in runs of 4 segments, round-robin over the runs (run4: every flow
 * open the whole train, as in rr, but its segments merge); MSS 1448 and
 * 8948; TCPv4, TCPv6, UDPv4, and TCPv4 inside VXLAN over IPv4 (vxlan4,
 * next to tcp4: the cost of the tunnel rules). Engine settings: copy
 * header / max-head /
 * full, checksums verified or trusted, flush at every batch end or after
 * a timeout (persistent table). rte_gro sees the TCPv4 trains (with
 * gro_tcp4) and the vxlan4 ones (with gro_vxlan_tcp4), in burst
 * mode (rte_gro_reassemble_burst() per batch, as xrx's batch-end flush)
 * and with a context (rte_gro_reassemble() + rte_gro_timeout_flush(), as
 * xrx's timeout), the flush after every 1, 8 or 64 batches.
 *
 * The fast path (user/lib/gro/fast.c) can be measured against the
 * engine without it in the same run: --no-fast adds, next to each xrx
 * row, the same row with the fast path off (labels end in /nofast). The
 * one-flow TCPv4 1448-byte burst train's header/trust/batch rows get
 * that twin always. That train also gets csum rows: the L4 checksum over
 * its frames and nothing else, what a verified row is bound by; and read
 * rows: a load of each line of the same bytes, what the sum is bound by.
 *
 * Output: a table on stdout and the same rows as JSON (--json FILE).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_gro.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <xrx/parse.h>
#include <xrx/engine.h>
#include "gro/engine_priv.h"	/* the fast path's switch */

#include "bench.h"
#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "util/dpdk_env.h"

#define BATCH 64
#define BURST 16		/* segments per flow per burst (TSO) */
#define RUN 4			/* segments per flow per run (run4) */
#define HEADROOM 256		/* frame offset in its chunk; meta before */
#define BIG_TCP XRX_AGGREGATE_MAX

/* The flow hash key of the engine and of the metadata, as on the live
 * path where both take xrx_cfg's. */
static const struct xrx_hash_key bench_key = { { 0x0123, 0x4567 } };

enum proto { P_TCP4, P_TCP6, P_UDP4, P_VXLAN4, P_MAX };
enum order { O_BURST, O_RR, O_RUN4, O_MAX };
enum flush { F_BATCH, F_TIMEOUT };
enum cache { C_COLD, C_WARM };

/* vxlan4: TCP/IPv4 inside VXLAN over IPv4 (xrx_engine_opts.vxlan_ports) */
static const char *const proto_names[] = { "tcp4", "tcp6", "udp4", "vxlan4" };
static const char *const order_names[] = { "burst", "rr", "run4" };
static const char *const copy_names[] = { "header", "max-head", "full" };
static const char *const csum_names[] = { "verify", "trust" };
static const char *const flush_names[] = { "batch", "timeout" };
static const char *const cache_names[] = { "cold", "warm" };

/*
 * rte_gro_timeout_flush() cadences of the persistent-table rows, in
 * batches: it scans every flow slot of the context on each call, so how
 * often it runs decides whether that scan or the flow search dominates.
 */
static const __u32 flush_every_values[] = { 1, 8, 64 };
#define NR_FLUSH_EVERY 3

/* Cache lines a pass touches per frame: metadata, two of headers. */
#define LINES_PER_FRAME 3

struct opts {
	bool quick;
	bool dpdk;
	bool no_fast;			/* a fast-path-off twin of every xrx row */
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

/* Row variants (row_new()) */
#define VAR_NOFAST 1u		/* xrx: the fast path off (/nofast) */
#define VAR_NOPF 2u		/* read: no software prefetch (/nopf) */

struct row {
	char engine[16];		/* "xrx", "rte_gro", "csum" or "read" */
	char label[128];
	enum proto proto;
	enum order order;
	__u32 mss, flows, per_flow;
	int copy, csum, flush;		/* -1 where it does not apply */
	bool nofast;			/* xrx with its fast path off */
	bool nopf;			/* read: no software prefetch */
	enum cache cache;
	__u32 flush_every;		/* rte_gro timeout flush: batches */
	__u32 max_aggregate;
	__u64 segs, pkts, aggs, agg_segs, cycles;
	__u64 flush_cycles;		/* rte_gro: in rte_gro_timeout_flush() */
	double best_cps;		/* fewest cycles per segment of a chunk
					 * with the core to itself (core_quiet()) */
	double best_cps_any;		/* the same over every chunk */
	__u64 chunks, quiet_chunks;	/* chunks timed; with the core quiet */
	__u64 bytes_copied, payload_copied;
	double ns_per_seg, mpps, mpps_mean, segs_per_pkt, segs_per_agg, ratio;
	double ratio_every[NR_FLUSH_EVERY];	/* xrx timeout rows */
	double flush_share;		/* of rte_gro's cycles, in the flush */
};

static double tsc_hz;
static volatile __u32 sum_sink;		/* what nothing may fold away */
static __u64 llc_bytes;

/* Size of the last-level cache, from sysfs (0 when unknown). */
static __u64 llc_size(void)
{
	char path[96], buf[32];
	unsigned long long v = 0, best = 0;
	char unit = 0;
	FILE *f;
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(buf, sizeof(buf), f) &&
		    sscanf(buf, "%llu%c", &v, &unit) >= 1) {
			v <<= unit == 'K' ? 10 : unit == 'M' ? 20 : 0;
			if (v > best)
				best = v;
		}
		fclose(f);
	}
	return best;
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
	/*
	 * The budget decides, also for one flow: a train whose pass touches
	 * less than the last-level cache would leave the "cold" frames warm.
	 */
	t->per_flow = budget / t->stride / flows;
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
	burst = o == O_BURST ? BURST : o == O_RUN4 ? RUN : 1;
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
					  XRX_PARSE_WINDOW, len, &r, &bench_key);
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

/*
 * Warm rows: read what either engine reads first of each frame of the
 * batch (the metadata line and the header lines), untimed, so both start
 * with them in cache.
 */
static void touch_headers(const struct train *t, __u32 pos, __u32 n)
{
	volatile const __u8 *p;
	__u32 i;

	for (i = 0; i < n; i++) {
		p = t->region + t->frames[pos + i].addr;
		(void)p[-1];
		(void)p[0];
		(void)p[64];
	}
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
 * fastest chunk of CHUNK_SEGS segments (the least disturbed) among those
 * timed while the core was quiet (core_quiet()), and the mean over the
 * row is kept beside it in the JSON.
 */
#define CHUNK_SEGS 8192

/*
 * The core this runs on is, for stretches of 0.1 to 2 s, shared with work
 * outside the guest: code bound by the core's throughput runs 1.4 to 2
 * times slower in TSC cycles (an L1-resident sum 0.23 -> 0.46 cycles per
 * load, independent ALU chains 1.5 -> 2.1 cycles per step) while a
 * latency-bound chain of multiplies keeps its speed, so the clock holds
 * and another hardware thread takes the ports. Running our own load on
 * the other CPU does not cause it. Every row slows alike in those
 * stretches (xrx's one-flow warm row 15 -> 23 ns), and a row whose every
 * chunk fell in one read as a second "mode" (15 or 23 ns from run to
 * run). So such a probe (an ALU loop, and sums over 1 KiB of L1 for the
 * load ports; about 1 us) runs after every batch, untimed itself; a chunk
 * counts as quiet when CHUNK_QUIET_PCT of its probes ran both parts
 * within CORE_QUIET_PCT of their fastest seen, and run_train() measures
 * a row again while it has fewer than QUIET_CHUNKS quiet chunks. A row
 * with none is flagged in the table and the JSON (quiet_chunks 0).
 */
#define CORE_PROBE_STEPS 1000
#define CORE_PROBE_WORDS 128	/* 1 KiB: 16 of the L1's 512 lines */
#define CORE_PROBE_SUMS 8
#define CORE_QUIET_PCT 15
#define CHUNK_QUIET_PCT 90
#define QUIET_CHUNKS 8
#define QUIET_EXTRA_ROUNDS 8	/* measurements more at most, per row */

static __u64 core_probe_best[2];	/* ALU chains, L1 sums */
static __u64 core_probe_words[CORE_PROBE_WORDS] __attribute__((aligned(64)));

/* TSC cycles of @c's part, and whether it ran near its best */
static bool core_probe_near(int part, __u64 c)
{
	if (!core_probe_best[part] || c < core_probe_best[part])
		core_probe_best[part] = c;
	return c * 100 <= core_probe_best[part] * (100 + CORE_QUIET_PCT);
}

static bool core_quiet(void)
{
	__u64 a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, c0, c1, c2;
	__u64 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int i, r;

	/* The words into L1 first, untimed: a row that streams memory
	 * evicts them, which is not the core being shared. */
	for (i = 0; i < CORE_PROBE_WORDS; i += 8)
		s0 += ((volatile __u64 *)core_probe_words)[i];
	/* not before the row's loads are done: a memory-bound row leaves
	 * misses in flight, which would hold the probe up */
	_mm_lfence();
	c0 = __rdtsc();
	for (i = 0; i < CORE_PROBE_STEPS; i++) {
		a0 += i;
		a1 ^= a0;
		a2 += a1;
		a3 ^= i;
		a4 += a3;
		a5 ^= a2;
		/* six chains in registers, not folded away */
		__asm__ volatile("" : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3),
				 "+r"(a4), "+r"(a5));
	}
	_mm_lfence();
	c1 = __rdtsc();
	/* the load ports and L1: a sibling's memory work shows here more */
	for (r = 0; r < CORE_PROBE_SUMS; r++) {
		for (i = 0; i < CORE_PROBE_WORDS; i += 4) {
			s0 += core_probe_words[i] ^ r;
			s1 += core_probe_words[i + 1] + r;
			s2 ^= core_probe_words[i + 2] + s0;
			s3 += core_probe_words[i + 3] ^ s1;
		}
		__asm__ volatile("" : "+r"(s0), "+r"(s1), "+r"(s2), "+r"(s3));
	}
	_mm_lfence();
	c2 = __rdtsc();
	sum_sink = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ s0 ^ s1 ^ s2 ^ s3;
	/* both parts timed and both bests kept up to date */
	return core_probe_near(0, c1 - c0) & core_probe_near(1, c2 - c1);
}

struct chunk {
	__u64 cycles, segs;
	__u32 probes, quiet_probes;
};

static void chunk_add(struct row *w, struct chunk *c, __u64 cycles, __u32 n)
{
	double cps;

	c->cycles += cycles;
	c->segs += n;
	c->probes++;
	c->quiet_probes += core_quiet();
	if (c->segs < CHUNK_SEGS)
		return;
	cps = (double)c->cycles / (double)c->segs;
	w->chunks++;
	if (w->best_cps_any == 0 || cps < w->best_cps_any)
		w->best_cps_any = cps;
	if (c->quiet_probes * 100 >= c->probes * CHUNK_QUIET_PCT) {
		w->quiet_chunks++;
		if (w->best_cps == 0 || cps < w->best_cps)
			w->best_cps = cps;
	}
	*c = (struct chunk){ 0 };
}

/*
 * The next batch of a row at @pos, in @n, warmed as the row's cache
 * state says. False once the row has had its engine time and the train
 * went through at least once (or 4 s of wall time since @wall: the slow
 * rte_gro rows with many flows stop early, at a batch boundary).
 */
static bool batch_next(const struct train *t, const struct row *w,
		       __u64 segs, __u64 cycles, __u64 limit, __u64 wall,
		       __u32 pos, __u32 *n)
{
	if (segs >= t->segs && cycles >= limit)
		return false;
	if (now_ns() - wall > 4000000000ull && segs >= BATCH * 16)
		return false;
	*n = min_u32(BATCH, t->segs - pos);
	if (w->cache == C_WARM)
		touch_headers(t, pos, *n);
	return true;
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
		.hash_key = bench_key,
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
	xrx_engine_fast_disable(k.e, w->nofast);
	while (batch_next(t, w, segs, cycles, limit, wall, pos, &n)) {
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
		dpdk_mbuf_vxlan_tcp4(m, t->l4_len);
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

/*
 * Count what rte_gro handed back and reset each of its mbufs (every
 * segment of a chain) for its next use, a full pass later: the reset's
 * writes are long gone from the cache by then in the cold rows.
 */
static void dpdk_count(const struct train *t, struct row *w,
		       struct rte_mbuf **pkts, __u16 n)
{
	struct rte_mbuf *s, *next;
	__u16 i;

	for (i = 0; i < n; i++) {
		w->pkts++;
		if (pkts[i]->nb_segs > 1) {
			w->aggs++;
			w->agg_segs += pkts[i]->nb_segs;
		}
		for (s = pkts[i]; s; s = next) {
			next = s->next;
			mbuf_reset(t, ((__u8 *)s->buf_addr - t->region) /
					      t->stride);
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
	__u64 c0, c1, cf, cycles = 0, flush_cycles = 0, segs = 0, batches = 0;
	struct chunk ch = { 0 };
	__u32 pos = 0, n, i;
	void *ctx = NULL;
	__u16 m;

	if (w->flush == F_TIMEOUT) {
		/*
		 * Items: two per flow (one to spare for the sequence jump
		 * when the train wraps), and at least as many as segments
		 * arrive between two flushes, so that rte_gro never hands a
		 * segment back unmerged for want of a slot. The flow search
		 * and the timeout flush are linear scans of the flow table:
		 * that is rte_gro's cost.
		 */
		param.max_flow_num = t->flows;
		param.max_item_per_flow = (BATCH * w->flush_every + t->flows -
					   1) / t->flows + 1;
		if (param.max_item_per_flow < 2)
			param.max_item_per_flow = 2;
		ctx = rte_gro_ctx_create(&param);
		if (!ctx) {
			fprintf(stderr, "gro_bench: rte_gro_ctx_create(%u flows) "
				"failed; raise the EAL memory (-m)\n", t->flows);
			return -ENOMEM;
		}
	}
	/*
	 * Every mbuf ready (and every tot_len as built, for the xrx rows
	 * after this one); rte_gro hands each back before its next use. The
	 * train is larger than the cache: the first batches are cold again
	 * by the time the loop reaches them.
	 */
	for (i = 0; i < t->segs; i++)
		mbuf_reset(t, i);
	while (segs < t->segs || cycles < limit) {
		if (now_ns() - wall > 4000000000ull && segs >= BATCH * 16)
			break;
		n = min_u32(BATCH, t->segs - pos);
		/* Cold: the mbufs were reset when rte_gro handed them back. */
		for (i = 0; i < n; i++) {
			if (w->cache == C_WARM)
				mbuf_reset(t, pos + i);
			pkts[i] = mbufs[pos + i];
		}
		if (w->cache == C_WARM)
			touch_headers(t, pos, n);
		cf = 0;
		if (!ctx) {
			c0 = __rdtsc();
			m = rte_gro_reassemble_burst(pkts, n, &param);
			c1 = __rdtsc() - c0;
			dpdk_count(t, w, pkts, m);
		} else {
			c0 = __rdtsc();
			m = rte_gro_reassemble(pkts, n, ctx);
			c1 = __rdtsc() - c0;
			dpdk_count(t, w, pkts, m);
			if (++batches % w->flush_every == 0) {
				do {
					c0 = __rdtsc();
					m = rte_gro_timeout_flush(ctx, tmo,
							dpdk_gro_type(t),
							out, BATCH);
					cf += __rdtsc() - c0;
					dpdk_count(t, w, out, m);
				} while (m == BATCH);
			}
			c1 += cf;
		}
		cycles += c1;
		flush_cycles += cf;
		chunk_add(w, &ch, c1, n);
		segs += n;
		pos += n;
		if (pos == t->segs) {
			/* Wrapping: no mbuf may still be held. */
			pos = 0;
			while (ctx && rte_gro_get_pkt_count(ctx)) {
				m = rte_gro_timeout_flush(ctx, 0,
						dpdk_gro_type(t), out, BATCH);
				dpdk_count(t, w, out, m);
			}
		}
	}
	while (ctx && rte_gro_get_pkt_count(ctx)) {
		m = rte_gro_timeout_flush(ctx, 0, dpdk_gro_type(t), out, BATCH);
		dpdk_count(t, w, out, m);
	}
	if (ctx)
		rte_gro_ctx_destroy(ctx);
	w->payload_copied = 0;		/* rte_gro chains mbufs: no copy */
	w->bytes_copied = 0;
	w->segs = segs;
	w->cycles = cycles;
	w->flush_cycles = flush_cycles;
	w->segs_per_pkt = w->pkts ? (double)segs / (double)w->pkts : 0;
	w->segs_per_agg = w->aggs ? (double)w->agg_segs / (double)w->aggs : 0;
	return 0;
}

/* ---- the checksum alone, and reading alone --------------------------- */

/*
 * One load per 64-byte line of @len bytes at @data (the last byte's line
 * too, the bytes not being line-aligned), no arithmetic but an add per
 * line, each asking for the line XRX_CSUM_PREFETCH bytes on as the sum
 * does (@ahead) or not: what bringing the bytes into the core costs, the
 * bound of any sum over them.
 */
static __always_inline __u32 read_lines(const void *data, __u32 len,
					__u32 acc, bool ahead)
{
	const volatile __u8 *p = data;
	__u32 off;

	for (off = 0; off < len; off += 64) {
		if (ahead)
			__builtin_prefetch((const __u8 *)data + off +
					   XRX_CSUM_PREFETCH);
		acc += p[off];
	}
	return len ? acc + p[len - 1] : acc;
}

static __u32 read_ahead(const void *data, __u32 len, __u32 acc)
{
	return read_lines(data, len, acc, true);
}

static __u32 read_plain(const void *data, __u32 len, __u32 acc)
{
	return read_lines(data, len, acc, false);
}

/*
 * What verifying is bound by: the library's L4 sum (xrx_csum_add()) over
 * each frame's TCP header and payload and nothing else (csum rows), or
 * only a load of each of those bytes' lines (read_lines(), read rows), in
 * the same batches and cache state as the engine rows; the read rows ask
 * for lines ahead as the sum does, the /nopf ones leave it to the
 * hardware prefetcher. Where the csum row costs as much as the engine's
 * verified row, the engine's own work hides under the time the payload
 * takes to arrive; where it costs as much as the read row, so does the
 * sum's: the verified row is bound by memory.
 */
static int run_sum(const struct train *t, struct row *w,
		   const struct opts *op)
{
	__u32 (*pass)(const void *, __u32, __u32) =
		strcmp(w->engine, "read") ? xrx_csum_add :
		w->nopf ? read_plain : read_ahead;
	__u64 limit = op->row_secs * tsc_hz, wall = now_ns();
	__u64 c0, c1, cycles = 0, segs = 0;
	const struct xrx_frame *f;
	struct chunk ch = { 0 };
	__u32 pos = 0, n, i, acc = 0;
	const __u8 *p;

	while (batch_next(t, w, segs, cycles, limit, wall, pos, &n)) {
		c0 = __rdtsc();
		for (i = 0; i < n; i++) {
			f = &t->frames[pos + i];
			p = t->region + f->addr;
			acc += pass(p + f->meta->l4_off,
				    f->len - f->meta->l4_off, 0);
		}
		c1 = __rdtsc() - c0;
		cycles += c1;
		chunk_add(w, &ch, c1, n);
		segs += n;
		pos += n;
		if (pos == t->segs)
			pos = 0;
	}
	sum_sink = acc;
	w->segs = segs;
	w->pkts = segs;
	w->cycles = cycles;
	w->segs_per_pkt = 1;
	return 0;
}

/* ---- rows -------------------------------------------------------------- */

static struct row *rows;
static int nr_rows, cap_rows;

static struct row *row_new(const char *engine, const struct train *t,
			   int copy, int csum, int flush, __u32 max_agg,
			   enum cache cache, __u32 every, unsigned int var)
{
	char every_s[24];
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
	w->cache = cache;
	w->nofast = var & VAR_NOFAST;
	w->nopf = var & VAR_NOPF;
	w->flush_every = every ? every : 1;
	w->max_aggregate = max_agg ? max_agg : XRX_AGGREGATE_DEFAULT;
	snprintf(every_s, sizeof(every_s), "/every%u", w->flush_every);
	snprintf(w->label, sizeof(w->label), "%s %s/%u/f%u/%s %s/%s/%s%s%s%s%s%s",
		 engine, proto_names[t->proto], t->mss, t->flows,
		 order_names[t->order], copy >= 0 ? copy_names[copy] : "-",
		 csum >= 0 ? csum_names[csum] : "-", flush_names[flush],
		 w->flush_every > 1 ? every_s : "",
		 max_agg > XRX_AGGREGATE_DEFAULT ? "/bigtcp" : "",
		 cache == C_WARM ? "/warm" : "", w->nofast ? "/nofast" : "",
		 w->nopf ? "/nopf" : "");
	return w;
}

static void row_finish(struct row *w)
{
	double secs = w->cycles / tsc_hz;
	/* no chunk with the core quiet: the best of the others, flagged */
	double cps = w->quiet_chunks ? w->best_cps : w->best_cps_any;

	/* Rows shorter than one chunk: the mean is all there is. */
	if (cps == 0 && w->segs)
		cps = (double)w->cycles / (double)w->segs;
	w->ns_per_seg = cps * 1e9 / tsc_hz;
	w->mpps = cps > 0 ? tsc_hz / cps / 1e6 : 0;
	w->mpps_mean = secs > 0 ? (double)w->segs / secs / 1e6 : 0;
	w->flush_share = w->cycles ? (double)w->flush_cycles /
				     (double)w->cycles : 0;
}

/*
 * What an rte_gro persistent-table row spends most of its time on: the
 * timeout flush scans every flow slot of the context; the reassembly
 * searches the flow table linearly per segment, then walks every item
 * the flow holds for a neighbour (gro_tcp4_reassemble()), so the longer
 * items wait for a flush the more it walks.
 */
static const char *dominant_cost(const struct row *w)
{
	if (strcmp(w->engine, "rte_gro") || w->flush != F_TIMEOUT)
		return NULL;
	return w->flush_share > 0.5 ? "timeout-flush scan" :
				      "reassembly (flow and item search)";
}

static void row_print_header(void)
{
	printf("%-62s %6s %7s %6s %6s %7s %7s %6s  %s\n", "row", "segs/f",
	       "Mpps", "ns/seg", "copy/s", "pay/s", "seg/agg", "x/dpdk",
	       "note");
}

static void row_print(const struct row *w)
{
	const char *dom = dominant_cost(w);
	char ratio[16] = "", note[96] = "";

	if (w->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.2f", w->ratio);
	if (w->segs && !w->quiet_chunks)
		snprintf(note, sizeof(note), "core never quiet: best of %llu "
			 "busy chunks", (unsigned long long)w->chunks);
	else if (dom)
		snprintf(note, sizeof(note), "flush %.0f%% of cycles: %s",
			 100 * w->flush_share, dom);
	else if (w->ratio_every[1] > 0)
		snprintf(note, sizeof(note), "x/dpdk flush every 8: %.2f, "
			 "every 64: %.2f", w->ratio_every[1],
			 w->ratio_every[2]);
	printf("%-62s %6u %7.2f %6.1f %6.1f %7.1f %7.1f %6s  %s\n", w->label,
	       w->per_flow, w->mpps, w->ns_per_seg,
	       w->segs ? (double)w->bytes_copied / (double)w->segs : 0,
	       w->segs ? (double)w->payload_copied / (double)w->segs : 0,
	       w->segs_per_agg, ratio, note);
	fflush(stdout);
}

static bool wanted(const struct opts *op, const char *label)
{
	return !op->only || strstr(label, op->only);
}

/*
 * xrx's ratio against the rte_gro row of the same train, flush kind and
 * cache state; a persistent-table row also against each flush cadence.
 */
static void ratios(int first)
{
	struct row *x, *d;
	int i, j, k;

	for (i = first; i < nr_rows; i++) {
		x = &rows[i];
		if (strcmp(x->engine, "xrx") ||
		    x->max_aggregate != XRX_AGGREGATE_DEFAULT)
			continue;
		for (j = first; j < nr_rows; j++) {
			d = &rows[j];
			if (strcmp(d->engine, "rte_gro") ||
			    d->flush != x->flush || d->cache != x->cache ||
			    d->mpps <= 0)
				continue;
			for (k = 0; k < NR_FLUSH_EVERY; k++)
				if (d->flush_every == flush_every_values[k])
					x->ratio_every[k] = x->mpps / d->mpps;
			if (d->flush_every == 1)
				x->ratio = x->mpps / d->mpps;
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
	m.best_cps = m.best_cps_any = 0;
	m.chunks = m.quiet_chunks = 0;
	if (!strcmp(w->engine, "xrx"))
		rc = run_xrx(t, &m, op);
	else if (!strcmp(w->engine, "csum") || !strcmp(w->engine, "read"))
		rc = run_sum(t, &m, op);
	else
		rc = run_dpdk(t, &m, op);
	if (rc)
		return rc;
	if (!w->segs) {
		*w = m;
		return 0;
	}
	if (m.best_cps > 0 && (!w->best_cps || m.best_cps < w->best_cps))
		w->best_cps = m.best_cps;
	if (m.best_cps_any > 0 &&
	    (!w->best_cps_any || m.best_cps_any < w->best_cps_any))
		w->best_cps_any = m.best_cps_any;
	w->chunks += m.chunks;
	w->quiet_chunks += m.quiet_chunks;
	return 0;
}

/*
 * Put a row on the list when --only wants it (@commit), or only say
 * whether it would (@any, to skip building trains nobody wants).
 */
static int add_one_row(const struct opts *op, bool commit, bool *any,
		       const char *engine, const struct train *t, int copy,
		       int csum, int flush, __u32 max_agg, enum cache cache,
		       __u32 every, unsigned int var)
{
	struct row *w = row_new(engine, t, copy, csum, flush, max_agg, cache,
				every, var);

	if (!w)
		return -ENOMEM;
	if (!wanted(op, w->label))
		return 0;
	*any = true;
	if (commit)
		nr_rows++;
	return 0;
}

/*
 * The README's "with and without the fast path": the one-flow TCPv4
 * 1448-byte burst train, header copy, trusted sums, batch-end flush.
 */
static bool nofast_always(const struct train *t, int copy, int csum,
			  int flush, __u32 max_agg)
{
	return t->proto == P_TCP4 && t->mss == 1448 && t->flows == 1 &&
	       t->order == O_BURST && copy == XRX_COPY_HEADER &&
	       csum == XRX_CSUM_TRUST && flush == F_BATCH && !max_agg;
}

/* A row, and for xrx its fast-path-off twin where one is wanted. */
static int add_row(const struct opts *op, bool commit, bool *any,
		   const char *engine, const struct train *t, int copy,
		   int csum, int flush, __u32 max_agg, enum cache cache,
		   __u32 every)
{
	int rc = add_one_row(op, commit, any, engine, t, copy, csum, flush,
			     max_agg, cache, every, 0);

	if (!rc && !strcmp(engine, "xrx") &&
	    (op->no_fast || nofast_always(t, copy, csum, flush, max_agg)))
		rc = add_one_row(op, commit, any, engine, t, copy, csum, flush,
				 max_agg, cache, every, VAR_NOFAST);
	return rc;
}

/*
 * The rows of a train. Every row is cold; the TCPv4 trains, the ones
 * rte_gro runs, also get warm rows of header copy for both engines.
 */
static int plan_rows(const struct train *t, const struct opts *op,
		     bool commit, bool *any)
{
	int copy, csum, flush, k, rc = 0;
	bool dpdk = op->dpdk &&
		    (t->proto == P_TCP4 || t->proto == P_VXLAN4);

	for (flush = 0; flush < 2 && !rc; flush++)
		for (copy = 0; copy < 3 && !rc; copy++)
			for (csum = 0; csum < 2 && !rc; csum++)
				rc = add_row(op, commit, any, "xrx", t, copy,
					     csum, flush, 0, C_COLD, 1);
	/* BIG TCP: the bulk-flow aggregates of up to 512 KiB. */
	if (!rc && (t->proto == P_TCP4 || t->proto == P_TCP6) &&
	    t->flows <= 64 && t->order == O_BURST)
		rc = add_row(op, commit, any, "xrx", t, XRX_COPY_HEADER,
			     XRX_CSUM_TRUST, F_TIMEOUT, BIG_TCP, C_COLD, 1);
	if (dpdk) {
		rc = rc ?: add_row(op, commit, any, "rte_gro", t, -1, -1,
				   F_BATCH, 0, C_COLD, 1);
		for (k = 0; k < NR_FLUSH_EVERY && !rc; k++)
			rc = add_row(op, commit, any, "rte_gro", t, -1, -1,
				     F_TIMEOUT, 0, C_COLD,
				     flush_every_values[k]);
	}
	if (t->proto != P_TCP4)
		return rc;
	for (flush = 0; flush < 2 && !rc; flush++) {
		for (csum = 0; csum < 2 && !rc; csum++)
			rc = add_row(op, commit, any, "xrx", t, XRX_COPY_HEADER,
				     csum, flush, 0, C_WARM, 1);
		if (dpdk && !rc)
			rc = add_row(op, commit, any, "rte_gro", t, -1, -1,
				     flush, 0, C_WARM, 1);
	}
	/* what verifying at one flow is bound by, and what the sum is
	 * (run_sum()): csum, read, read/nopf */
	if (nofast_always(t, XRX_COPY_HEADER, XRX_CSUM_TRUST, F_BATCH, 0))
		for (k = 0; k < 6 && !rc; k++)
			rc = add_one_row(op, commit, any,
					 k < 2 ? "csum" : "read", t, -1,
					 k < 2 ? XRX_CSUM_VERIFY : -1, F_BATCH,
					 0, k & 1 ? C_WARM : C_COLD, 1,
					 k >= 4 ? VAR_NOPF : 0);
	return rc;
}

/* Whether any row of a train would run: skip building the others. */
static bool train_wanted(const struct opts *op, const struct train *t)
{
	bool any = false;

	plan_rows(t, op, false, &any);
	return any;
}

static int run_train(const struct train *t, const struct opts *op)
{
	int first = nr_rows, i, rep, rc;
	bool any = false;

	rc = plan_rows(t, op, true, &any);
	if (!rc && op->dpdk && (t->proto == P_TCP4 || t->proto == P_VXLAN4))
		mbuf_attach(t);
	for (rep = 0; rep < op->reps && !rc; rep++)
		for (i = first; i < nr_rows && !rc; i++)
			rc = measure(t, &rows[i], op);
	/* rows that met the core busy in most chunks, again (core_quiet());
	 * not in a smoke run, whose trains are a few chunks long */
	for (rep = 0; rep < (op->quick ? 0 : QUIET_EXTRA_ROUNDS) && !rc; rep++)
		for (i = first; i < nr_rows && !rc; i++)
			if (rows[i].quiet_chunks < QUIET_CHUNKS)
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
		"  \"tsc_hz\": %.0f,\n  \"llc_bytes\": %llu,\n"
		"  \"region_budget_bytes\": %llu,\n  \"reps\": %d,\n"
		"  \"secs_per_measurement\": %g,\n"
		"  \"core_probe_best_cycles\": {\"alu\": %llu, \"l1\": %llu}, "
		"\"core_quiet_pct\": %d,\n"
		"  \"rows\": [\n",
		BATCH, BURST, op->timeout_us, op->quick ? "true" : "false",
		tsc_hz, (unsigned long long)llc_bytes,
		(unsigned long long)op->region_budget, op->reps, op->row_secs,
		(unsigned long long)core_probe_best[0],
		(unsigned long long)core_probe_best[1], CORE_QUIET_PCT);
	for (i = 0; i < nr_rows; i++) {
		const struct row *w = &rows[i];
		const char *dom = dominant_cost(w);
		/* csum and read rows: what they do with each frame's L4 bytes */
		const char *pass = !strcmp(w->engine, "csum") ?
			"\"xrx_csum_add\"" : !strcmp(w->engine, "read") ?
			"\"one load per 64-byte line\"" : "null";

		/* Configuration first: what the numbers after it mean. */
		fprintf(f, "    {\"config\": {\"cache\": \"%s\", "
			"\"working_set_bytes\": %llu, \"llc_bytes\": %llu, "
			"\"flush_every_batches\": %u, \"batch\": %d, "
			"\"timeout_us\": %u, \"chunk_segs\": %d, "
			"\"l4_pass\": %s, \"l4_prefetch\": %s}, "
			"\"chunks\": %llu, \"quiet_chunks\": %llu, "
			"\"cache\": \"%s\", "
			"\"flush_every\": %u, \"flush_share\": %.3f, "
			"\"dominant_cost\": %s%s%s, "
			"\"ratio_vs_dpdk_flush_every\": {\"1\": %.2f, "
			"\"8\": %.2f, \"64\": %.2f},\n     ",
			cache_names[w->cache],
			(unsigned long long)w->flows * w->per_flow *
				LINES_PER_FRAME * 64,
			(unsigned long long)llc_bytes,
			w->flush == F_TIMEOUT ? w->flush_every : 1, BATCH,
			w->flush == F_TIMEOUT ? op->timeout_us : 0,
			CHUNK_SEGS, pass,
			!strcmp(pass, "null") ? "null" :
			w->nopf ? "false" : "true",
			(unsigned long long)w->chunks,
			(unsigned long long)w->quiet_chunks,
			cache_names[w->cache], w->flush_every, w->flush_share,
			dom ? "\"" : "", dom ? dom : "null", dom ? "\"" : "",
			w->ratio_every[0], w->ratio_every[1],
			w->ratio_every[2]);

		fprintf(f, "\"engine\": \"%s\", \"label\": \"%s\", "
			"\"proto\": \"%s\", \"mss\": %u, \"flows\": %u, "
			"\"order\": \"%s\", \"segs_per_flow\": %u, "
			"\"copy\": %s%s%s, \"csum\": %s%s%s, \"flush\": \"%s\", "
			"\"fast_path\": %s, "
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
			flush_names[w->flush],
			strcmp(w->engine, "xrx") ? "null" :
			w->nofast ? "false" : "true", w->max_aggregate,
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
"                 [--timeout-us N] [--no-dpdk] [--no-fast] [--secs S]\n"
"                 [--reps N]\n"
"  Times libxrx's GRO engine and DPDK's rte_gro on in-memory trains and\n"
"  prints one row per train and setting:\n"
"    segs/f   segments per flow in the train\n"
"    Mpps     segments per second on one core; ns/seg its inverse\n"
"    copy/s   bytes copied per segment; pay/s the payload part of it\n"
"    seg/agg  segments per delivered aggregate (2 or more segments)\n"
"    x/dpdk   xrx's Mpps over rte_gro's on the same train, flush kind and\n"
"             cache state (persistent rows: rte_gro flushing every batch)\n"
"    note     rte_gro: the share of cycles in its timeout flush and what\n"
"             dominates; xrx: the ratio to the other flush cadences\n"
"  Row labels end in /everyN (rte_gro flushes every N batches), /warm\n"
"  (headers touched right before the call; the others are cold) and\n"
"  /nofast (xrx with its one-flow fast path off). Trains: .../burst (16\n"
"  segments per flow at a time), .../rr (round robin), .../run4 (16384\n"
"  flows, runs of 4 segments in round robin). csum rows (one flow): the\n"
"  L4 checksum alone over the same frames, what verifying is bound by;\n"
"  read rows: one load per 64-byte line of the same bytes, what the sum\n"
"  is bound by, asking for lines ahead as the sum does (/nopf: not).\n"
"  --quick        small trains, short rows (a smoke run, seconds)\n"
"  --json FILE    write the rows as JSON (default $BENCH_OUT/gro.json,\n"
"                 BENCH_OUT being build/bench unless set, as run.sh sets it)\n"
"  --cpu N        pin to CPU N (default: the last one)\n"
"  --only TEXT    only rows whose label contains TEXT, e.g. 'tcp4/1448'\n"
"  --timeout-us N flush timeout of the persistent-table rows (default 50)\n"
"  --no-dpdk      xrx rows only\n"
"  --no-fast      also every xrx row with the fast path off, side by side\n"
"                 (always: tcp4/1448/f1/burst header/trust/batch)\n"
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
		{ "no-fast", no_argument, NULL, 'F' },
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
	static char json[4096];
	int c, rc, p, o, m, f;

	/* scripts/bench/run.sh says where every benchmark's JSON goes */
	if (getenv("BENCH_OUT")) {
		snprintf(json, sizeof(json), "%s/gro.json", getenv("BENCH_OUT"));
		op.json = json;
	}

	while ((c = getopt_long(argc, argv, "qj:c:o:t:nFs:r:h", lopts, NULL)) != -1) {
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
		case 'F':
			op.no_fast = true;
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
	if (op.cpu < 0)
		op.cpu = bench_last_cpu();
	if (op.cpu < 0)
		op.cpu = 0;

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
		bench_pin("gro_bench", op.cpu);
	}
	tsc_hz = tsc_calibrate();
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

	llc_bytes = llc_size();
	printf("# gro_bench: batch %d, burst %d, flush timeout %u us, cpu %d, "
	       "%.2f GHz TSC%s\n", BATCH, BURST, op.timeout_us, op.cpu,
	       tsc_hz / 1e9, op.quick ? ", quick" : "");
	printf("# cache: cold rows touch %d lines per frame a pass "
	       "(%.0f MiB for a %llu MiB train of 2 KiB chunks; last-level "
	       "cache %llu MiB%s); warm rows read those lines untimed right "
	       "before the call, and reset rte_gro's mbufs there\n",
	       LINES_PER_FRAME,
	       (double)(op.region_budget / 2048) * LINES_PER_FRAME * 64 /
		       (1 << 20),
	       (unsigned long long)(op.region_budget >> 20),
	       (unsigned long long)(llc_bytes >> 20),
	       (op.region_budget / 2048) * LINES_PER_FRAME * 64 > llc_bytes ?
		       "" : ": NOT cold, the train fits");
	printf("# rte_gro persistent rows: rte_gro_timeout_flush() every 1, 8 "
	       "or 64 batches (/everyN); xrx flushes by its own %u us "
	       "timeout; x/dpdk is against every 1\n", op.timeout_us);
	row_print_header();
	for (p = 0; p < P_MAX; p++)
		for (m = 0; m < 2; m++)
			for (f = 0; f < 4; f++)
				for (o = 0; o < O_MAX; o++) {
					/* run4: many open flows that merge */
					if (o == O_RUN4 &&
					    (p != P_TCP4 || m || flow_counts[f] < 16384))
						continue;
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
