// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xdp_bench: nanoseconds per frame of xrx_rx, through BPF_PROG_TEST_RUN
 * with a repeat count, next to a program that only redirects into an
 * XSKMAP (the least an AF_XDP receiver runs), and what each stage of
 * xrx_rx costs. Prints a table and writes JSON (default
 * build/bench/xdp.json).
 *
 * Every program sees the same frames with an (unbound) AF_XDP socket in
 * its XSKMAP, so it returns XDP_REDIRECT (xrx_rx_pass: XDP_PASS, which
 * the run checks); test runs do not perform the redirect, so the numbers
 * are program cost only.
 *
 * In repeat mode the kernel reuses one xdp_buff, so from the second run
 * on the product build of xrx_rx (column xrx_rx) finds the metadata area
 * full: bpf_xdp_adjust_meta() fails, it counts no_meta_room and neither
 * fills xrx_meta nor computes the flow hash. What a live frame costs,
 * metadata and hash included, is column xrx_rx_meta: the same source
 * built with XRX_RX_BENCH (bpf/xrx_rx.bpf.c), which writes into the
 * metadata area the previous run left. The stage cuts are built the same
 * way and stop after a stage, so that (linear rows, no rule, default
 * accelerate):
 *
 *   test_run_redirect  xsk_redirect             the loop and a redirect
 *   parse              cut_parse - xsk_redirect counters, parse
 *   rules              cut_rules - cut_parse    xrx_cfg, the rule verdict
 *   meta               cut_nohash - cut_rules   xrx_meta (no hash), counters
 *   hash               xrx_rx_meta - cut_nohash the flow hash
 *
 * each the median over the trials of the difference within one trial.
 * xrx_rx_port and xrx_rx_prefix run the full program under a port rule
 * (tcp/5001, udp/5001: what most configurations are) and under prefix
 * rules of any port (tcp/any@198.18.0.0/15, ...@2001:db8::/32), both
 * with default pass.
 *
 * Each frame runs with all of it in the linear area (the headline, what
 * a driver without header split hands over; xrx_rx parses in place), and
 * as a multi-buffer frame with only ETH_HLEN linear (the headers in a
 * fragment: xrx_rx copies them out with bpf_xdp_load_bytes()). Which of
 * the two paths xrx_rx took is read back from its parse_linear and
 * parse_copy counters, per row. The programs take turns within every
 * trial, so a neighbour's load on the machine hits all of them alike;
 * each figure is the median of the trials, with the range beside it.
 *
 * -B DIR measures the objects of another build (DIR/xrx_rx.bpf.o and
 * DIR/bench/xrx_rx_b_*.bpf.o, e.g. a checkout of main built there) in the
 * same trials, as columns base_*: a before/after in one run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xrx/prog.h>
#include <xrx/rules.h>
#include <xrx/stats.h>

#include "util/frames.h"
#include "xsk_redirect.skel.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

#define TRIALS 9
#define TARGET_RATIO 2.0	/* xrx_rx against the bare redirect, linear */
#define MAX_TRIALS 99

enum { M_LINEAR, M_MULTIBUF, NR_MODES };
static const char *const mode_names[NR_MODES] = { "linear", "multi-buffer" };

struct bench_frame {
	const char *name;
	void (*init)(struct frame_spec *s);
	int vlans, exts;
	__u32 payload;
};

static const struct bench_frame frames[] = {
	{ "tcp4", frame_spec_tcp4, 0, 0, 1448 },
	{ "tcp6", frame_spec_tcp6, 0, 0, 1428 },
	{ "udp4", frame_spec_udp4, 0, 0, 1472 },
	{ "udp6", frame_spec_udp6, 0, 0, 1452 },
	{ "vlan_tcp4", frame_spec_tcp4, 1, 0, 1444 },
	{ "qinq_tcp6", frame_spec_tcp6, 2, 0, 1420 },
	{ "tcp6_3ext", frame_spec_tcp6, 0, 3, 1380 },
};

#define NR_FRAMES (sizeof(frames) / sizeof(frames[0]))

/* The rules and default a program instance runs under. */
enum scenario {
	SC_ACCEL,	/* no rule, xrx_cfg default accelerate */
	SC_PASS,	/* no rule, default pass */
	SC_PORT,	/* tcp/5001 and udp/5001, default pass */
	SC_PREFIX,	/* tcp/any and udp/any @198.18.0.0/15, @2001:db8::/32 */
};

#define BOTH ((1 << M_LINEAR) | (1 << M_MULTIBUF))
#define LINEAR (1 << M_LINEAR)

struct variant {
	const char *name;
	const char *obj;	/* relative to the build directory */
	enum scenario sc;
	int modes;
};

static const struct variant variants[] = {
	{ "xrx_rx", "xrx_rx.bpf.o", SC_ACCEL, BOTH },
	{ "xrx_rx_pass", "xrx_rx.bpf.o", SC_PASS, BOTH },
	{ "xrx_rx_meta", "bench/xrx_rx_b_full.bpf.o", SC_ACCEL, BOTH },
	{ "xrx_rx_port", "bench/xrx_rx_b_full.bpf.o", SC_PORT, LINEAR },
	{ "xrx_rx_prefix", "bench/xrx_rx_b_full.bpf.o", SC_PREFIX, LINEAR },
	{ "cut_parse", "bench/xrx_rx_b_parse.bpf.o", SC_ACCEL, LINEAR },
	{ "cut_rules", "bench/xrx_rx_b_rules.bpf.o", SC_ACCEL, LINEAR },
	{ "cut_nohash", "bench/xrx_rx_b_nohash.bpf.o", SC_ACCEL, LINEAR },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))
enum { V_XRX, V_PASS, V_META, V_PORT, V_PREFIX, V_PARSE, V_RULES, V_NOHASH };

/* Stages, each a difference of two columns (NR_VARIANTS: the floor). */
static const struct stage {
	const char *name;
	int hi, lo;
} stages[] = {
	{ "parse", V_PARSE, -1 },
	{ "rules", V_RULES, V_PARSE },
	{ "meta", V_NOHASH, V_RULES },
	{ "hash", V_META, V_NOHASH },
};

#define NR_STAGES (sizeof(stages) / sizeof(stages[0]))

/* One loaded program: this build's (set 0) or the -B build's (set 1). */
struct inst {
	const struct variant *v;
	struct bpf_object *obj;
	int prog_fd, stats_fd;
	long verifier_insns;	/* "processed N insns"; -1 unknown */
};

#define NR_SETS 2
#define FLOOR ((int)NR_VARIANTS)	/* the floor's index in the results */
#define NR_COLS (NR_VARIANTS + 1)

static struct inst insts[NR_SETS][NR_VARIANTS];
static int nr_sets = 1;
static char vlog[1 << 20];

/* Per frame, mode, set and column: every trial's ns per frame. */
static double res[NR_FRAMES][NR_MODES][NR_SETS][NR_COLS][MAX_TRIALS];

/*
 * One trial: ns per frame over @repeat runs, with @linear bytes of the
 * frame in the linear area (0: all of it), or a negative errno.
 */
static double ns_per_frame(int prog_fd, const __u8 *frame, __u32 len,
			   __u32 linear, __u32 repeat, __u32 want)
{
	struct xdp_md ctx = { .data_end = linear };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = len, .repeat = repeat);

	if (linear) {
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	if (opts.retval != want)
		return -EPROTO;
	return opts.duration;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_TRIALS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void range(const double *v, int n, double *lo, double *hi)
{
	int i;

	*lo = *hi = v[0];
	for (i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

/* Median over the trials of column @hi minus column @lo (-1: the floor). */
static double stage_cost(double cols[NR_COLS][MAX_TRIALS], int hi, int lo,
			 int trials)
{
	double d[MAX_TRIALS];
	int t;

	for (t = 0; t < trials; t++)
		d[t] = cols[hi][t] - cols[lo < 0 ? FLOOR : lo][t];
	return median(d, trials);
}

/* Frames the instance counted in @stat so far, summed over CPUs. */
static __u64 stat_packets(const struct inst *in, enum xrx_stat stat)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	struct xrx_stats *v;
	__u32 zero = 0;
	__u64 n = 0;

	if (ncpu <= 0)
		return 0;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(in->stats_fd, &zero, v))
		for (c = 0; c < ncpu; c++)
			n += xrx_stats_at(&v[c], stat)->packets;
	free(v);
	return n;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

/* "tcp/5001", "udp/any@198.18.0.0/15": rules as include/xrx/rules.h lays them out. */
static void rule_key(struct xrx_rule_key *k, __u8 proto, __u16 port,
		     const char *addr, int plen)
{
	memset(k, 0, sizeof(*k));
	k->proto = proto;
	k->port = htons(port);
	k->prefixlen = XRX_RULE_PREFIX_BASE;
	if (addr && strchr(addr, ':')) {
		inet_pton(AF_INET6, addr, k->addr);
		k->prefixlen += plen;
	} else if (addr) {
		k->addr[10] = k->addr[11] = 0xff;
		inet_pton(AF_INET, addr, k->addr + 12);
		k->prefixlen += 96 + plen;
	}
}

static int set_rules(struct inst *in)
{
	struct xrx_rule_val val = { .action = XRX_ACT_ACCEL, .id = 1 };
	struct xrx_cfg cfg = { .default_action = XRX_ACT_PASS };
	struct xrx_rule_key keys[4];
	struct xrx_rule_val vals[4];
	int n = 0, i, err;
	__u32 zero = 0;

	switch (in->v->sc) {
	case SC_ACCEL:
		cfg.default_action = XRX_ACT_ACCEL;
		break;
	case SC_PASS:
		break;
	case SC_PORT:
		rule_key(&keys[n++], IPPROTO_TCP, FRAME_DPORT, NULL, 0);
		rule_key(&keys[n++], IPPROTO_UDP, FRAME_DPORT, NULL, 0);
		break;
	case SC_PREFIX:
		rule_key(&keys[n++], IPPROTO_TCP, 0, "198.18.0.0", 15);
		rule_key(&keys[n++], IPPROTO_UDP, 0, "198.18.0.0", 15);
		rule_key(&keys[n++], IPPROTO_TCP, 0, "2001:db8::", 32);
		rule_key(&keys[n++], IPPROTO_UDP, 0, "2001:db8::", 32);
		break;
	}
	for (i = 0; i < n; i++)
		vals[i] = val;
	/* As xrxd writes them; a build without xrx_ports (-B) gets the
	 * trie alone. */
	err = xrx_rules__update(map_fd(in->obj, "xrx_rules"),
				map_fd(in->obj, "xrx_ports"), NULL, 0, keys, vals,
				(unsigned int)n);
	if (err)
		return err;
	return bpf_map_update_elem(map_fd(in->obj, "xrx_cfg"), &zero, &cfg, 0) ?
		       -errno : 0;
}

/* "processed N insns" from the verifier's log, or -1. */
static long processed_insns(const char *log)
{
	const char *p = strstr(log, "processed ");

	return p ? strtol(p + strlen("processed "), NULL, 10) : -1;
}

static int inst_load(struct inst *in, const struct variant *v,
		     const char *dir, int xsk)
{
	char path[PATH_MAX];
	struct bpf_program *prog;
	struct bpf_map *m;
	__u32 zero = 0;
	int err;

	in->v = v;
	if (snprintf(path, sizeof(path), "%s/%s", dir, v->obj) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	in->obj = bpf_object__open_file(path, NULL);
	if (!in->obj) {
		fprintf(stderr, "xdp_bench: cannot open %s: %s; run make benches\n",
			path, strerror(errno));
		return -errno;
	}
	bpf_object__for_each_map(m, in->obj)
		bpf_map__set_pin_path(m, NULL);
	prog = bpf_object__find_program_by_name(in->obj, "xrx_rx");
	if (!prog) {
		fprintf(stderr, "xdp_bench: %s has no program xrx_rx\n", path);
		return -ENOENT;
	}
	vlog[0] = '\0';
	bpf_program__set_log_buf(prog, vlog, sizeof(vlog));
	bpf_program__set_log_level(prog, 4);	/* BPF_LOG_STATS */
	err = bpf_object__load(in->obj);
	if (err) {
		fprintf(stderr, "xdp_bench: loading %s failed: %s; run as root\n",
			path, strerror(-err));
		return err;
	}
	in->verifier_insns = processed_insns(vlog);
	in->prog_fd = bpf_program__fd(prog);
	in->stats_fd = map_fd(in->obj, "xrx_stats");
	err = set_rules(in);
	if (!err && bpf_map_update_elem(map_fd(in->obj, "xrx_xsks"), &zero,
					&xsk, 0))
		err = -errno;
	if (err)
		fprintf(stderr, "xdp_bench: %s (%s): maps: %s\n", v->name, path,
			strerror(-err));
	return err;
}

static const char *col_name(int c)
{
	return c == FLOOR ? "xsk_redirect" : variants[c].name;
}

static bool measured(int c, int md)
{
	return c == FLOOR || (variants[c].modes & (1 << md));
}

static void json_col(FILE *f, const char *pfx, const char *name,
		     const double *v, int trials)
{
	double lo, hi;

	range(v, trials, &lo, &hi);
	fprintf(f, ", \"%s%s\": %.1f, \"%s%s_range\": [%.0f, %.0f]", pfx, name,
		median(v, trials), pfx, name, lo, hi);
}

static int write_json(const char *path, __u32 repeat, int trials,
		      const int *lens, const char *paths[NR_FRAMES][NR_MODES],
		      const char *base)
{
	FILE *f = fopen(path, "w");
	unsigned int i, m, c, k;
	int s;

	if (!f) {
		fprintf(stderr, "xdp_bench: cannot write %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n  \"bench\": \"xdp\",\n  \"unit\": \"ns/frame\",\n"
		   "  \"method\": \"BPF_PROG_TEST_RUN repeat, median of %d interleaved trials\",\n"
		   "  \"repeat\": %u,\n  \"target_ratio\": %.1f,\n"
		   "  \"config\": {\"trials\": %d, \"interleaved\": true, "
		   "\"linear\": \"the whole frame\", \"multi-buffer\": "
		   "\"%d bytes linear, the rest in fragments\", "
		   "\"rule\": \"none; xrx_cfg default accelerate\", "
		   "\"xrx_rx\": \"product build: no room for xrx_meta after the first run, no hash\", "
		   "\"xrx_rx_meta\": \"XRX_RX_BENCH build: xrx_meta and the hash written every run\", "
		   "\"xrx_rx_port\": \"rules tcp/%u, udp/%u, default pass\", "
		   "\"xrx_rx_prefix\": \"rules tcp/any, udp/any @198.18.0.0/15 and @2001:db8::/32, default pass\", "
		   "\"base\": \"%s\"},\n",
		trials, repeat, TARGET_RATIO, trials, FRAME_ETH_HLEN,
		FRAME_DPORT, FRAME_DPORT, base ? base : "");
	fprintf(f, "  \"verifier_insns\": {");
	for (s = 0; s < nr_sets; s++)
		fprintf(f, "%s\"%sxrx_rx\": %ld", s ? ", " : "", s ? "base_" : "",
			insts[s][V_XRX].verifier_insns);
	fprintf(f, "},\n  \"results\": [\n");
	for (i = 0; i < NR_FRAMES; i++) {
		for (m = 0; m < NR_MODES; m++) {
			fprintf(f, "    { \"frame\": \"%s\", \"len\": %d, "
				"\"path\": \"%s\", \"xrx_rx_parse\": \"%s\"",
				frames[i].name, lens[i], mode_names[m],
				paths[i][m]);
			for (s = 0; s < nr_sets; s++)
				for (c = 0; c < NR_COLS; c++)
					if (measured(c, m) && (!s || c != FLOOR))
						json_col(f, s ? "base_" : "", col_name(c),
							 res[i][m][s][c], trials);
			fprintf(f, ", \"ratio\": %.2f, \"ratio_meta\": %.2f",
				median(res[i][m][0][V_XRX], trials) /
					median(res[i][m][0][FLOOR], trials),
				median(res[i][m][0][V_META], trials) /
					median(res[i][m][0][FLOOR], trials));
			if (m == M_LINEAR) {
				for (s = 0; s < nr_sets; s++) {
					fprintf(f, ", \"%sstages\": {\"test_run_redirect\": %.1f",
						s ? "base_" : "",
						median(res[i][m][0][FLOOR], trials));
					for (k = 0; k < NR_STAGES; k++)
						fprintf(f, ", \"%s\": %.1f", stages[k].name,
							stage_cost(res[i][m][s], stages[k].hi,
								   stages[k].lo, trials));
					fprintf(f, "}");
				}
			}
			fprintf(f, " }%s\n",
				i + 1 < NR_FRAMES || m + 1 < NR_MODES ? "," : "");
		}
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? -errno : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xdp_bench [-n REPEAT] [-t TRIALS] [-o FILE] [-B BUILD_DIR]\n"
		   "  ns per frame of xrx_rx and of each of its stages vs. a bare XSKMAP redirect\n"
		   "  -n REPEAT  runs per measurement (default 1000000)\n"
		   "  -t TRIALS  interleaved trials, the median reported (default %d, at most %d)\n"
		   "  -o FILE    JSON output (default $BENCH_OUT/xdp.json or build/bench/xdp.json)\n"
		   "  -B DIR     also measure the objects of the build in DIR (base_* columns)\n",
		TRIALS, MAX_TRIALS);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The build directory this program was built in: BUILD/bench/xdp_bench. */
static int own_build_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;
	int i;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (i = 0; i < 2; i++) {
		slash = strrchr(buf, '/');
		if (!slash)
			return -1;
		*slash = '\0';
	}
	return 0;
}

int main(int argc, char **argv)
{
	static __u8 buf[NR_FRAMES][4096];
	const char *paths[NR_FRAMES][NR_MODES];
	const char *out = NULL, *dir = getenv("BENCH_OUT"), *base = NULL;
	struct xsk_redirect *floor_skel = NULL;
	char path[PATH_MAX], build[PATH_MAX];
	double worst = 0, worst_meta = 0, worst_mb = 0;
	__u32 repeat = 1000000, zero = 0;
	int lens[NR_FRAMES], floor_fd, trials = TRIALS;
	unsigned int i, c, md, k;
	int opt, xsk = -1, ret = 1, s, t;

	while ((opt = getopt(argc, argv, "n:t:o:B:h")) != -1) {
		switch (opt) {
		case 'n':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 't':
			trials = atoi(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'B':
			base = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!repeat || trials < 1 || trials > MAX_TRIALS || optind < argc) {
		usage(stderr);
		return 2;
	}
	if (!out) {
		snprintf(path, sizeof(path), "%s/xdp.json", dir ? dir : "build/bench");
		out = path;
	}
	if (own_build_dir(build, sizeof(build))) {
		fprintf(stderr, "xdp_bench: cannot tell its build directory from /proc/self/exe\n");
		return 1;
	}
	libbpf_set_print(libbpf_quiet);
	setvbuf(stdout, NULL, _IOLBF, 0);	/* a row as it is measured */

	for (i = 0; i < NR_FRAMES; i++) {
		struct frame_spec fs;
		int e;

		frames[i].init(&fs);
		fs.payload_len = frames[i].payload;
		fs.nr_vlans = frames[i].vlans;
		fs.vlan_tpid[0] = frames[i].vlans == 2 ? 0x88a8 : 0;
		for (e = 0; e < frames[i].exts; e++) {
			fs.ext[e].type = e == 0 ? 0 : 60;
			fs.ext[e].len = 8;
		}
		fs.nr_ext = frames[i].exts;
		lens[i] = frame_build(&fs, buf[i], sizeof(buf[i]));
		if (lens[i] < 0) {
			fprintf(stderr, "xdp_bench: frame %s: %s\n", frames[i].name,
				strerror(-lens[i]));
			return 1;
		}
	}

	xsk = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (xsk < 0) {
		fprintf(stderr, "xdp_bench: AF_XDP socket: %s\n", strerror(errno));
		return 1;
	}
	floor_skel = xsk_redirect__open_and_load();
	if (!floor_skel) {
		fprintf(stderr, "xdp_bench: cannot load xsk_redirect; run as root\n");
		goto out;
	}
	if (bpf_map_update_elem(bpf_map__fd(floor_skel->maps.bench_xsks), &zero,
				&xsk, 0)) {
		fprintf(stderr, "xdp_bench: AF_XDP socket into the XSKMAP: %s\n",
			strerror(errno));
		goto out;
	}
	floor_fd = bpf_program__fd(floor_skel->progs.xsk_redirect);
	nr_sets = base ? 2 : 1;
	for (s = 0; s < nr_sets; s++)
		for (c = 0; c < NR_VARIANTS; c++)
			if (inst_load(&insts[s][c], &variants[c], s ? base : build,
				      xsk))
				goto out;

	printf("xdp_bench: ns/frame, BPF_PROG_TEST_RUN repeat %u, median of %d "
	       "interleaved trials; no rule, xrx_cfg default accelerate; "
	       "linear: whole frame in the linear area, multi-buffer: %d bytes "
	       "linear; xrx_rx_meta: xrx_meta and its hash written every run\n",
	       repeat, trials, FRAME_ETH_HLEN);
	for (s = 0; s < nr_sets; s++)
		printf("verifier: %sxrx_rx processed %ld insns\n",
		       s ? "base_" : "", insts[s][V_XRX].verifier_insns);
	printf("%-10s %-12s %7s %7s %7s %7s %7s %7s %6s %6s  %s\n", "frame", "path",
	       "xrx_rx", "_pass", "_meta", "_port", "_prefix", "redir", "ratio",
	       "r_meta", "parsed");
	for (i = 0; i < NR_FRAMES; i++) {
		for (md = 0; md < NR_MODES; md++) {
			__u32 linear = md == M_MULTIBUF ? FRAME_ETH_HLEN : 0;
			struct inst *x = &insts[0][V_XRX];
			__u64 lin0 = stat_packets(x, XRX_STAT_PARSE_LINEAR);
			__u64 cp0 = stat_packets(x, XRX_STAT_PARSE_COPY);
			double (*r)[NR_COLS][MAX_TRIALS] = res[i][md];
			double d, ratio, ratio_meta;

			for (t = 0; t < trials; t++)
				for (c = 0; c < NR_COLS; c++)
					for (s = 0; s < nr_sets; s++) {
						int fd;

						if (!measured(c, md) || (s && c == FLOOR))
							continue;
						fd = c == FLOOR ? floor_fd :
							insts[s][c].prog_fd;
						d = ns_per_frame(fd, buf[i], lens[i],
								 linear, repeat,
								 c == V_PASS ? XDP_PASS :
									       XDP_REDIRECT);
						if (d < 0) {
							fprintf(stderr, "xdp_bench: %s%s on %s (%s): %s\n",
								s ? "base_" : "", col_name(c),
								frames[i].name, mode_names[md],
								strerror((int)-d));
							goto out;
						}
						r[s][c][t] = d;
					}
			for (s = 1; s < nr_sets; s++)
				memcpy(r[s][FLOOR], r[0][FLOOR], sizeof(r[s][FLOOR]));
			/* Every run of xrx_rx took the same path: say which. */
			if (stat_packets(x, XRX_STAT_PARSE_LINEAR) - lin0 ==
			    (__u64)trials * repeat)
				paths[i][md] = "in place";
			else if (stat_packets(x, XRX_STAT_PARSE_COPY) - cp0 ==
				 (__u64)trials * repeat)
				paths[i][md] = "copied";
			else
				paths[i][md] = "mixed";
			ratio = median(r[0][V_XRX], trials) / median(r[0][FLOOR], trials);
			ratio_meta = median(r[0][V_META], trials) /
				     median(r[0][FLOOR], trials);
			if (md == M_LINEAR) {
				worst = ratio > worst ? ratio : worst;
				worst_meta = ratio_meta > worst_meta ? ratio_meta :
								       worst_meta;
			} else {
				worst_mb = ratio > worst_mb ? ratio : worst_mb;
			}
			for (s = 0; s < nr_sets; s++) {
				printf("%-10s %-12s", s ? "  base" : frames[i].name,
				       mode_names[md]);
				for (c = V_XRX; c <= V_PREFIX; c++)
					if (measured(c, md))
						printf(" %7.1f", median(r[s][c], trials));
					else
						printf(" %7s", "-");
				printf(" %7.1f %5.2fx %5.2fx  %s\n",
				       median(r[0][FLOOR], trials),
				       median(r[s][V_XRX], trials) /
					       median(r[0][FLOOR], trials),
				       median(r[s][V_META], trials) /
					       median(r[0][FLOOR], trials),
				       s ? "" : paths[i][md]);
				if (md != M_LINEAR)
					continue;
				printf("%-10s %-12s test_run_redirect %.1f", "",
				       "  stages", median(r[0][FLOOR], trials));
				for (k = 0; k < NR_STAGES; k++)
					printf(", %s %.1f", stages[k].name,
					       stage_cost(r[s], stages[k].hi,
							  stages[k].lo, trials));
				printf("\n");
			}
		}
	}
	printf("worst ratio xrx_rx / xsk_redirect, linear: %.2fx, with xrx_meta "
	       "and hash: %.2fx (target <= %.1fx: %s); multi-buffer: %.2fx\n",
	       worst, worst_meta, TARGET_RATIO,
	       worst_meta <= TARGET_RATIO ? "met" :
	       worst <= TARGET_RATIO ? "met without the metadata, NOT with it" :
				       "NOT met",
	       worst_mb);
	if (write_json(out, repeat, trials, lens, paths, base))
		goto out;
	printf("wrote %s\n", out);
	ret = 0;
out:
	for (s = 0; s < NR_SETS; s++)
		for (c = 0; c < NR_VARIANTS; c++)
			bpf_object__close(insts[s][c].obj);
	xsk_redirect__destroy(floor_skel);
	if (xsk >= 0)
		close(xsk);
	return ret;
}
