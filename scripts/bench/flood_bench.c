// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * flood_bench: what flows crafted to share one flow-table bucket cost the
 * GRO engine, against as many ordinary flows, in the same run.
 *
 * 1024 TCPv4 flows of 1448-byte segments, with the xrx_meta xrx_rx
 * writes (its hash keyed with key K), go through the engine in batches of
 * 1024 frames, as `xrx-replay --batch 1024` feeds them. The flow sets:
 *
 *   ordinary     source ports and addresses in sequence: the baseline
 *   crafted      chosen so that all 1024 fall into one bucket of the
 *                engine's table under K: an attacker who learnt the key
 *   crafted/cap-off  the same flows and key, the bucket bound switched off
 *                (a test hook): what an attacker got before, when the hash
 *                was public and a bucket's chain had no bound
 *   crafted/other-key  the same flows, the engine (and the metadata) keyed
 *                with another key: an attacker who does not know it
 *
 * each in two orders (rr: one segment of every flow per batch, the order
 * that makes every lookup search; burst: 16 segments of a flow in a row)
 * and two flush modes (flush at every batch end, and a flush timeout with
 * the table kept across batches, the clock moving a fixed step per
 * batch). Only xrx_engine__rx() is timed (TSC), delivery to a consumer
 * that releases every packet at once included; a measurement is the
 * median of its batches. The rows take turns in every round, each on a
 * fresh engine; a row's ns/frame is the median of its rounds, and its
 * ratio the median of the per-round ratios to the ordinary row of the
 * same order and flush mode (min and max beside it).
 *
 * Output: a table on stdout and the rows as JSON (--json, default
 * $BENCH_OUT/flood.json or build/bench/flood.json).
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

#include <xrx/engine.h>
#include <xrx/parse.h>

#include "util/frames.h"
#include "gro/engine_priv.h"	/* the table's mask, the bound's switch */

#define FLOWS 1024
#define BATCH 1024
#define SEGS 16			/* per flow in the train */
#define MSS 1448
#define STRIDE 2048
#define HEADROOM 256		/* frame offset in its chunk; meta before */
#define BURST 16
#define TIMEOUT_US 50
#define STEP_NS 10000		/* the clock per batch, timeout rows */
#define TARGET 1.5		/* crafted against ordinary */

enum set { S_ORDINARY, S_CRAFTED, S_CAP_OFF, S_OTHER_KEY, S_MAX };
enum order { O_RR, O_BURST, O_MAX };
enum flush { F_BATCH, F_TIMEOUT, F_MAX };

static const char *const set_names[S_MAX] = {
	"ordinary", "crafted", "crafted/cap-off", "crafted/other-key",
};
static const char *const set_what[S_MAX] = {
	"sequential ports and addresses",
	"one bucket under the engine's key: the attacker knows it",
	"as crafted, no bucket bound: the public hash and unbounded chains before",
	"one bucket under a key the engine does not use",
};
static const char *const order_names[O_MAX] = { "rr", "burst" };
static const char *const flush_names[F_MAX] = { "batch", "timeout" };

static const struct xrx_hash_key key_k = { { 0x6b65792d6b6e6f77ULL, 1 } };
static const struct xrx_hash_key key_other = { { 0x6f746865726b6579ULL, 2 } };

/* The trains: ordinary, crafted (cap-off runs it too), crafted with the
 * metadata under the other key. */
enum { T_ORDINARY, T_CRAFTED, T_OTHER_KEY, T_MAX };

static int train_of(enum set s)
{
	return s == S_ORDINARY ? T_ORDINARY :
	       s == S_OTHER_KEY ? T_OTHER_KEY : T_CRAFTED;
}

struct opts {
	int rounds;
	int passes;
	int cpu;
	const char *json;
	const char *only;
	bool alone;		/* --only without the ordinary rows */
};

/* A flow: its addresses and ports, as the frame builder takes them. */
struct flow {
	__u8 saddr3, saddr4;	/* 198.18.saddr3.saddr4 */
	__u16 sport;
};

struct row {
	enum set set;
	enum order order;
	enum flush flush;
	char label[64];
	double *ns;		/* per round */
	double *ratio;		/* per round, against the ordinary row */
	double ns_med, ratio_med, ratio_min, ratio_max;
	__u64 frames, pkts, aggs, bucket_full, table_full;
};

struct train {
	__u8 *region;
	__u64 region_size;
	struct xrx_frame frames[FLOWS * SEGS];
	struct xrx_meta metas[FLOWS * SEGS];
};

static double tsc_hz;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void tsc_calibrate(void)
{
	__u64 t0 = now_ns(), c0 = __rdtsc(), t1;

	do
		t1 = now_ns();
	while (t1 - t0 < 50000000ull);
	tsc_hz = (double)(__rdtsc() - c0) * 1e9 / (double)(t1 - t0);
}

static void flow_spec(struct frame_spec *s, const struct flow *f)
{
	frame_spec_tcp4(s);
	s->saddr[12] = 198;
	s->saddr[13] = 18;
	s->saddr[14] = f->saddr3;
	s->saddr[15] = f->saddr4;
	s->sport = f->sport;
	s->payload_len = MSS;
}

/* What xrx_rx hashes a flow to under @key, from its frame. */
static __u32 flow_hash(const struct flow *f, const struct xrx_hash_key *key)
{
	static __u8 buf[STRIDE];
	struct frame_spec s;
	struct xrx_parsed r;
	int len;

	flow_spec(&s, f);
	s.payload_len = 0;	/* the headers are what counts */
	len = frame_build(&s, buf, sizeof(buf));
	xrx_parse(buf, len, len, &r, key);
	return r.hash;
}

static void ordinary_flows(struct flow *fl)
{
	__u32 i;

	for (i = 0; i < FLOWS; i++) {
		fl[i].saddr3 = 0;
		fl[i].saddr4 = 1 + i / 4096;
		fl[i].sport = 10000 + i % 4096;
	}
}

/*
 * FLOWS flows whose hashes under @key agree in the bits @mask keeps: the
 * engine's bucket index. Source ports, then source addresses, are tried
 * in turn, as an attacker with the key would search them.
 * Return: candidates tried, 0 if too few were found.
 */
static __u64 crafted_flows(struct flow *fl, const struct xrx_hash_key *key,
			   __u32 mask)
{
	struct flow c = { .saddr3 = 0, .saddr4 = 1, .sport = 1024 };
	__u32 n = 0, want = 0;
	__u64 tried = 0;

	for (;;) {
		__u32 h = flow_hash(&c, key) & mask;

		if (!tried++)
			want = h;
		if (h == want) {
			fl[n++] = c;
			if (n == FLOWS)
				return tried;
		}
		if (c.sport++ == 65535) {
			c.sport = 1024;
			if (++c.saddr4 == 0 && ++c.saddr3 == 0)
				return 0;
		}
	}
}

/*
 * Lay the train out: chunk i holds the i-th segment to arrive, with the
 * metadata xrx_rx would write in front of it (hash under @key).
 */
static void train_build(struct train *t, const struct flow *fl,
			enum order o)
{
	static __u8 payload[MSS];
	__u32 seq[FLOWS] = { 0 }, sent[FLOWS] = { 0 }, n = 0, f, k, burst;
	struct frame_spec s;

	for (k = 0; k < MSS; k++)
		payload[k] = k * 7 + 3;
	burst = o == O_BURST ? BURST : 1;
	while (n < FLOWS * SEGS)
		for (f = 0; f < FLOWS; f++)
			for (k = 0; k < burst && sent[f] < SEGS; k++) {
				__u8 *frame = t->region + (__u64)n * STRIDE +
					      HEADROOM;
				int len;

				flow_spec(&s, &fl[f]);
				s.seq = seq[f];
				s.ip_id = sent[f];
				s.payload = payload;
				len = frame_build(&s, frame, STRIDE - HEADROOM);
				t->frames[n] = (struct xrx_frame){
					.addr = (__u64)n * STRIDE + HEADROOM,
					.len = len,
					.meta = &t->metas[n],
				};
				seq[f] += MSS;
				sent[f]++;
				n++;
			}
}

/* The metadata of every frame, its hash under @key (untimed). */
static void train_meta(struct train *t, const struct xrx_hash_key *key)
{
	struct xrx_parsed r;
	__u32 i;

	for (i = 0; i < FLOWS * SEGS; i++) {
		xrx_parse(t->region + t->frames[i].addr, XRX_PARSE_WINDOW,
			  t->frames[i].len, &r, key);
		xrx_meta_fill(&t->metas[i], &r);
	}
}

struct sink {
	struct xrx_engine *e;
};

static void sink_deliver(void *ctx, struct xrx_pkt *pkt)
{
	struct sink *k = ctx;

	xrx_pkt__release(k->e, pkt);
}

static void sink_release(void *ctx, __u64 addr)
{
}

static struct xrx_engine *engine_new(const struct train *t, enum flush fl,
				     const struct xrx_hash_key *key,
				     struct sink *k)
{
	struct xrx_engine_opts o = {
		.sz = sizeof(o),
		.region = t->region,
		.region_size = t->region_size,
		.flush_timeout_us = fl == F_TIMEOUT ? TIMEOUT_US : 0,
		.csum = XRX_CSUM_TRUST,
		.deliver = sink_deliver,
		.release_frame = sink_release,
		.ctx = k,
		.hash_key = *key,
	};

	k->e = xrx_engine__new(&o);
	return k->e;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[n];

	memcpy(s, v, sizeof(s));
	qsort(s, n, sizeof(s[0]), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * One measurement: @passes passes over the train on a fresh engine.
 * Return: ns per frame, the median over its batches (a batch the machine
 * took the core from does not count), or a negative errno.
 */
static double measure(const struct train *t, struct row *w, int passes)
{
	const struct xrx_hash_key *key = w->set == S_OTHER_KEY ? &key_other :
								 &key_k;
	__u64 st[XRX_ENGINE_STAT_MAX], now = 1000000, c0;
	int nb = passes * FLOWS * SEGS / BATCH, b = 0, p;
	double ns[nb];
	struct sink k;
	__u32 i;

	if (!engine_new(t, w->flush, key, &k)) {
		fprintf(stderr, "flood_bench: xrx_engine__new: %s\n",
			strerror(errno));
		return -errno;
	}
	if (w->set == S_CAP_OFF)
		xrx_engine_bucket_max(k.e, 0);
	for (p = 0; p < passes; p++)
		for (i = 0; i < FLOWS * SEGS; i += BATCH) {
			c0 = __rdtsc();
			xrx_engine__rx(k.e, t->frames + i, BATCH, now);
			ns[b++] = (double)(__rdtsc() - c0) * 1e9 / tsc_hz /
				  BATCH;
			now += STEP_NS;
		}
	xrx_engine__stats(k.e, st);
	xrx_engine__free(k.e);
	w->frames = st[XRX_ENGINE_STAT_FRAMES_IN];
	w->pkts = st[XRX_ENGINE_STAT_PKTS_OUT];
	w->aggs = st[XRX_ENGINE_STAT_AGGS_OUT];
	w->bucket_full = st[XRX_ENGINE_STAT_FLUSH_BUCKET_FULL];
	w->table_full = st[XRX_ENGINE_STAT_FLUSH_TABLE_FULL];
	return median(ns, nb);
}

static int write_json(const struct opts *op, const struct row *rows, int n,
		      __u64 tried)
{
	FILE *f = fopen(op->json, "w");
	int i;

	if (!f) {
		fprintf(stderr, "flood_bench: cannot write %s: %s; create its folder or pass --json PATH\n",
			op->json, strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n  \"bench\": \"flood\",\n  \"unit\": \"ns/frame\",\n"
		"  \"config\": {\"flows\": %d, \"segs_per_flow\": %d, "
		"\"mss\": %d, \"batch\": %d, \"burst\": %d, "
		"\"timeout_us\": %d, \"clock_step_ns_per_batch\": %d, "
		"\"csum\": \"trust\", \"metadata\": true, "
		"\"bucket_max\": %d, \"rounds\": %d, \"passes\": %d, "
		"\"interleaved\": true, \"tsc_hz\": %.0f, "
		"\"crafting_candidates_tried\": %llu},\n"
		"  \"target_ratio\": %.1f,\n  \"rows\": [\n",
		FLOWS, SEGS, MSS, BATCH, BURST, TIMEOUT_US, STEP_NS,
		XRX_GRO_BUCKET_MAX, op->rounds, op->passes, tsc_hz,
		(unsigned long long)tried, TARGET);
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];

		fprintf(f, "    {\"config\": {\"flows\": \"%s\", \"what\": \"%s\", "
			"\"order\": \"%s\", \"flush\": \"%s\", \"batch\": %d, "
			"\"timeout_us\": %d}, \"label\": \"%s\", "
			"\"ns_per_frame\": %.2f, \"ratio_vs_ordinary\": %.3f, "
			"\"ratio_min\": %.3f, \"ratio_max\": %.3f, "
			"\"frames\": %llu, \"pkts\": %llu, \"aggs\": %llu, "
			"\"segs_per_pkt\": %.2f, \"flush_bucket_full\": %llu, "
			"\"flush_table_full\": %llu}%s\n",
			set_names[w->set], set_what[w->set],
			order_names[w->order], flush_names[w->flush], BATCH,
			w->flush == F_TIMEOUT ? TIMEOUT_US : 0, w->label,
			w->ns_med, w->ratio_med, w->ratio_min, w->ratio_max,
			(unsigned long long)w->frames,
			(unsigned long long)w->pkts,
			(unsigned long long)w->aggs,
			w->pkts ? (double)w->frames / (double)w->pkts : 0,
			(unsigned long long)w->bucket_full,
			(unsigned long long)w->table_full,
			i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? -errno : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: flood_bench [--rounds N] [--passes N] [--cpu N] [--only TEXT]\n"
"                   [--json FILE]\n"
"  1024 flows crafted into one flow-table bucket against 1024 ordinary\n"
"  flows, in the GRO engine, batches of 1024: ns per frame and the ratio\n"
"  to the ordinary flows of the same order and flush mode (target %.1fx).\n"
"  --rounds N   rounds, every row once each, interleaved (default 7)\n"
"  --passes N   passes over the train per measurement (default 4)\n"
"  --cpu N      pin to CPU N (default: the last one allowed)\n"
"  --only TEXT  rows whose label contains TEXT (the ordinary rows run too)\n"
"  --alone      with --only: not the ordinary rows either (no ratio; for\n"
"               valgrind --tool=callgrind, one row per run)\n"
"  --json FILE  JSON output (default $BENCH_OUT/flood.json)\n", TARGET);
}

static bool wanted(const struct opts *op, const char *label, enum set s)
{
	return !op->only || (s == S_ORDINARY && !op->alone) ||
	       strstr(label, op->only);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "passes", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "alone", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct train t[T_MAX][O_MAX];
	static struct flow ordinary[FLOWS], crafted[FLOWS];
	struct opts op = { .rounds = 7, .passes = 4, .cpu = -1 };
	const char *dir = getenv("BENCH_OUT");
	struct row rows[S_MAX * O_MAX * F_MAX];
	char path[4096], label[64];
	int c, n = 0, i, j, r, s, o, fl;
	struct sink k;
	cpu_set_t cpus;
	__u32 mask;
	__u64 tried;
	double d;

	while ((c = getopt_long(argc, argv, "r:p:c:o:j:ah", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			op.rounds = atoi(optarg);
			break;
		case 'p':
			op.passes = atoi(optarg);
			break;
		case 'c':
			op.cpu = atoi(optarg);
			break;
		case 'o':
			op.only = optarg;
			break;
		case 'j':
			op.json = optarg;
			break;
		case 'a':
			op.alone = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || op.rounds < 1 || op.passes < 1) {
		usage(stderr);
		return 2;
	}
	if (!op.json) {
		snprintf(path, sizeof(path), "%s/flood.json",
			 dir ? dir : "build/bench");
		op.json = path;
	}
	if (op.cpu < 0 && sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cpus))
				op.cpu = c;
	CPU_ZERO(&cpus);
	CPU_SET(op.cpu < 0 ? 0 : op.cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		fprintf(stderr, "flood_bench: cannot pin to CPU %d: %m; running unpinned\n",
			op.cpu);
	tsc_calibrate();

	for (s = 0; s < T_MAX; s++)
		for (o = 0; o < O_MAX; o++) {
			t[s][o].region_size = (__u64)FLOWS * SEGS * STRIDE;
			t[s][o].region = mmap(NULL, t[s][o].region_size,
					      PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (t[s][o].region == MAP_FAILED) {
				fprintf(stderr, "flood_bench: no memory for the trains: %m\n");
				return 1;
			}
		}
	/* The bucket index is the hash under the engine's table mask. */
	if (!engine_new(&t[0][0], F_BATCH, &key_k, &k)) {
		fprintf(stderr, "flood_bench: xrx_engine__new: %s\n",
			strerror(errno));
		return 1;
	}
	mask = k.e->table.mask;
	xrx_engine__free(k.e);
	ordinary_flows(ordinary);
	tried = crafted_flows(crafted, &key_k, mask);
	if (!tried) {
		fprintf(stderr, "flood_bench: found no %d flows sharing a bucket\n",
			FLOWS);
		return 1;
	}
	for (s = 0; s < T_MAX; s++)
		for (o = 0; o < O_MAX; o++) {
			train_build(&t[s][o], s == T_ORDINARY ? ordinary : crafted,
				    o);
			train_meta(&t[s][o], s == T_OTHER_KEY ? &key_other :
								 &key_k);
		}
	for (o = 0; o < O_MAX; o++)
		for (fl = 0; fl < F_MAX; fl++)
			for (s = 0; s < S_MAX; s++) {
				snprintf(label, sizeof(label), "%s %s/%s",
					 set_names[s], order_names[o],
					 flush_names[fl]);
				if (!wanted(&op, label, s))
					continue;
				memset(&rows[n], 0, sizeof(rows[n]));
				rows[n].set = s;
				rows[n].order = o;
				rows[n].flush = fl;
				snprintf(rows[n].label, sizeof(rows[n].label),
					 "%s", label);
				rows[n].ns = calloc(op.rounds, sizeof(double));
				rows[n].ratio = calloc(op.rounds, sizeof(double));
				n++;
			}

	printf("# flood_bench: %d TCPv4 flows x %d segments of %d B, batch %d, "
	       "metadata keyed, csum trust, bucket bound %d; timeout rows "
	       "%d us with the clock at %d us per batch; %d rounds "
	       "interleaved, %d passes each, cpu %d, %.2f GHz TSC\n",
	       FLOWS, SEGS, MSS, BATCH, XRX_GRO_BUCKET_MAX, TIMEOUT_US,
	       STEP_NS / 1000, op.rounds, op.passes, op.cpu, tsc_hz / 1e9);
	printf("# crafted: %d flows in one bucket of %u, found among %llu "
	       "candidates with the key\n", FLOWS, mask + 1,
	       (unsigned long long)tried);
	for (r = 0; r < op.rounds; r++)
		for (i = 0; i < n; i++) {
			d = measure(&t[train_of(rows[i].set)][rows[i].order],
				    &rows[i], op.passes);
			if (d < 0)
				return 1;
			rows[i].ns[r] = d;
		}
	for (i = 0; i < n; i++) {
		struct row *w = &rows[i], *base = NULL;

		for (j = 0; j < n; j++)
			if (rows[j].set == S_ORDINARY &&
			    rows[j].order == w->order &&
			    rows[j].flush == w->flush)
				base = &rows[j];
		for (r = 0; r < op.rounds; r++)
			w->ratio[r] = base ? w->ns[r] / base->ns[r] : 0;
		w->ns_med = median(w->ns, op.rounds);
		w->ratio_med = median(w->ratio, op.rounds);
		w->ratio_min = w->ratio_max = w->ratio[0];
		for (r = 1; r < op.rounds; r++) {
			if (w->ratio[r] < w->ratio_min)
				w->ratio_min = w->ratio[r];
			if (w->ratio[r] > w->ratio_max)
				w->ratio_max = w->ratio[r];
		}
	}
	printf("%-34s %8s %7s %13s %8s %11s  %s\n", "row", "ns/frame", "ratio",
	       "(min-max)", "seg/pkt", "bucket_full", "note");
	for (i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		const char *note = "";

		if (w->set == S_CRAFTED)
			note = w->ratio_med <= TARGET ? "target 1.5x: met" :
							"target 1.5x: MISSED";
		printf("%-34s %8.1f %6.2fx %6.2f-%-6.2f %8.2f %11llu  %s\n",
		       w->label, w->ns_med, w->ratio_med, w->ratio_min,
		       w->ratio_max,
		       w->pkts ? (double)w->frames / (double)w->pkts : 0,
		       (unsigned long long)w->bucket_full, note);
	}
	if (write_json(&op, rows, n, tried))
		return 1;
	printf("# JSON in %s\n", op.json);
	return 0;
}
