// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xdp_bench: nanoseconds per frame of xrx_rx, through BPF_PROG_TEST_RUN
 * with a repeat count, next to a program that only redirects into an
 * XSKMAP (the least an AF_XDP receiver runs). Prints a table and writes
 * JSON (default build/bench/xdp.json).
 *
 * Both programs see the same frames with an (unbound) AF_XDP socket in
 * their XSKMAP, so both return XDP_REDIRECT; test runs do not perform the
 * redirect, so the numbers are program cost only. In repeat mode the
 * kernel reuses one xdp_buff, so after the first run xrx_rx finds the
 * metadata area full and counts no_meta_room instead of writing it: a
 * counter bump in place of five stores, close enough for a ratio.
 *
 * Each frame runs twice: with all of it in the linear area (the
 * headline, what a driver without header split hands over; xrx_rx
 * parses in place), and as a multi-buffer frame with only ETH_HLEN
 * linear (the headers in a fragment: xrx_rx copies them out with
 * bpf_xdp_load_bytes()). Which of the two paths xrx_rx took is read
 * back from its parse_linear and parse_copy counters, per row. The
 * programs take turns within every trial, so a neighbour's load on the
 * machine hits all of them alike.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xrx/rules.h>
#include <xrx/stats.h>

#include "util/frames.h"
#include "xrx_rx.skel.h"
#include "xsk_redirect.skel.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

#define TRIALS 7
#define TARGET_RATIO 1.5	/* xrx_rx against the bare redirect, linear */

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

enum { P_XRX, P_XRX_PASS, P_FLOOR, NR_PROGS };
static const char *const prog_names[NR_PROGS] = {
	"xrx_rx", "xrx_rx_pass", "xsk_redirect",
};

/*
 * One trial: ns per frame over @repeat runs, with @linear bytes of the
 * frame in the linear area (0: all of it), or a negative errno.
 */
static double ns_per_frame(int prog_fd, const __u8 *frame, __u32 len,
			   __u32 linear, __u32 repeat)
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
	if (opts.retval != XDP_REDIRECT && opts.retval != XDP_PASS)
		return -EPROTO;
	return opts.duration;
}

/* Frames xrx_rx counted in @stat so far, summed over CPUs. */
static __u64 stat_packets(struct xrx_rx *skel, enum xrx_stat stat)
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
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.xrx_stats), &zero, v))
		for (c = 0; c < ncpu; c++)
			n += xrx_stats_at(&v[c], stat)->packets;
	free(v);
	return n;
}

static int set_default(struct xrx_rx *skel, __u32 action)
{
	struct xrx_cfg cfg = { .default_action = action };
	__u32 zero = 0;

	return bpf_map_update_elem(bpf_map__fd(skel->maps.xrx_cfg), &zero,
				   &cfg, 0);
}

static int write_json(const char *path, __u32 repeat,
		      double res[NR_FRAMES][NR_MODES][NR_PROGS], const int *lens,
		      const char *paths[NR_FRAMES][NR_MODES])
{
	FILE *f = fopen(path, "w");
	unsigned int i, p, m;

	if (!f) {
		fprintf(stderr, "xdp_bench: cannot write %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n  \"bench\": \"xdp\",\n  \"unit\": \"ns/frame\",\n"
		   "  \"method\": \"BPF_PROG_TEST_RUN repeat, best of %d\",\n"
		   "  \"repeat\": %u,\n  \"target_ratio\": %.1f,\n"
		   "  \"config\": {\"trials\": %d, \"interleaved\": true, "
		   "\"linear\": \"the whole frame\", \"multi-buffer\": "
		   "\"%d bytes linear, the rest in fragments\", "
		   "\"rule\": \"none; xrx_cfg default accelerate\"},\n"
		   "  \"results\": [\n", TRIALS, repeat, TARGET_RATIO, TRIALS,
		FRAME_ETH_HLEN);
	for (i = 0; i < NR_FRAMES; i++) {
		for (m = 0; m < NR_MODES; m++) {
			fprintf(f, "    { \"frame\": \"%s\", \"len\": %d, "
				"\"path\": \"%s\", \"xrx_rx_parse\": \"%s\"",
				frames[i].name, lens[i], mode_names[m],
				paths[i][m]);
			for (p = 0; p < NR_PROGS; p++)
				fprintf(f, ", \"%s\": %.1f", prog_names[p],
					res[i][m][p]);
			fprintf(f, ", \"ratio\": %.2f }%s\n",
				res[i][m][P_XRX] / res[i][m][P_FLOOR],
				i + 1 < NR_FRAMES || m + 1 < NR_MODES ? "," : "");
		}
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? -errno : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xdp_bench [-n REPEAT] [-o FILE]\n"
		   "  ns per frame of xrx_rx vs. a bare XSKMAP redirect\n"
		   "  -n REPEAT  runs per measurement (default 1000000)\n"
		   "  -o FILE    JSON output (default $BENCH_OUT/xdp.json or build/bench/xdp.json)\n");
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	static __u8 buf[NR_FRAMES][4096];
	double res[NR_FRAMES][NR_MODES][NR_PROGS], worst_mb = 0;
	const char *paths[NR_FRAMES][NR_MODES];
	int lens[NR_FRAMES], fds[NR_PROGS];
	const char *out = NULL, *dir = getenv("BENCH_OUT");
	struct xsk_redirect *floor_skel = NULL;
	struct xrx_rx *xrx = NULL, *xrx_pass = NULL;
	char path[4096];
	__u32 repeat = 1000000, zero = 0;
	unsigned int i, p, md, t;
	double worst = 0;
	struct bpf_map *m;
	int opt, xsk = -1, ret = 1;

	while ((opt = getopt(argc, argv, "n:o:h")) != -1) {
		switch (opt) {
		case 'n':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!repeat) {
		usage(stderr);
		return 2;
	}
	if (!out) {
		snprintf(path, sizeof(path), "%s/xdp.json", dir ? dir : "build/bench");
		out = path;
	}
	libbpf_set_print(libbpf_quiet);

	for (i = 0; i < NR_FRAMES; i++) {
		struct frame_spec s;
		int e;

		frames[i].init(&s);
		s.payload_len = frames[i].payload;
		s.nr_vlans = frames[i].vlans;
		s.vlan_tpid[0] = frames[i].vlans == 2 ? 0x88a8 : 0;
		for (e = 0; e < frames[i].exts; e++) {
			s.ext[e].type = e == 0 ? 0 : 60;
			s.ext[e].len = 8;
		}
		s.nr_ext = frames[i].exts;
		lens[i] = frame_build(&s, buf[i], sizeof(buf[i]));
		if (lens[i] < 0) {
			fprintf(stderr, "xdp_bench: frame %s: %s\n", frames[i].name,
				strerror(-lens[i]));
			return 1;
		}
	}

	/* Two xrx_rx instances: everything accelerated, and default pass. */
	xrx = xrx_rx__open();
	xrx_pass = xrx_rx__open();
	floor_skel = xsk_redirect__open_and_load();
	if (!xrx || !xrx_pass || !floor_skel) {
		fprintf(stderr, "xdp_bench: cannot open the BPF objects; run make\n");
		goto out;
	}
	bpf_object__for_each_map(m, xrx->obj)
		bpf_map__set_pin_path(m, NULL);
	bpf_object__for_each_map(m, xrx_pass->obj)
		bpf_map__set_pin_path(m, NULL);
	if (xrx_rx__load(xrx) || xrx_rx__load(xrx_pass)) {
		fprintf(stderr, "xdp_bench: loading xrx_rx failed; run as root\n");
		goto out;
	}
	if (set_default(xrx, XRX_ACT_ACCEL)) {
		fprintf(stderr, "xdp_bench: xrx_cfg: %s\n", strerror(errno));
		goto out;
	}
	xsk = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (xsk < 0 ||
	    bpf_map_update_elem(bpf_map__fd(xrx->maps.xrx_xsks), &zero, &xsk, 0) ||
	    bpf_map_update_elem(bpf_map__fd(floor_skel->maps.bench_xsks), &zero,
				&xsk, 0)) {
		fprintf(stderr, "xdp_bench: AF_XDP socket into the XSKMAPs: %s\n",
			strerror(errno));
		goto out;
	}
	fds[P_XRX] = bpf_program__fd(xrx->progs.xrx_rx);
	fds[P_XRX_PASS] = bpf_program__fd(xrx_pass->progs.xrx_rx);
	fds[P_FLOOR] = bpf_program__fd(floor_skel->progs.xsk_redirect);

	printf("xdp_bench: ns/frame, BPF_PROG_TEST_RUN repeat %u, best of %d "
	       "trials, programs interleaved; no rule, xrx_cfg default "
	       "accelerate; linear: whole frame in the linear area, "
	       "multi-buffer: %d bytes linear\n", repeat, TRIALS, FRAME_ETH_HLEN);
	printf("%-10s %5s %-12s %9s %12s %13s %7s  %s\n", "frame", "len", "path",
	       "xrx_rx", "xrx_rx_pass", "xsk_redirect", "ratio", "xrx_rx parsed");
	for (i = 0; i < NR_FRAMES; i++) {
		for (md = 0; md < NR_MODES; md++) {
			__u32 linear = md == M_MULTIBUF ? FRAME_ETH_HLEN : 0;
			__u64 lin0 = stat_packets(xrx, XRX_STAT_PARSE_LINEAR);
			__u64 cp0 = stat_packets(xrx, XRX_STAT_PARSE_COPY);
			double ratio, d;

			for (p = 0; p < NR_PROGS; p++)
				res[i][md][p] = -1;
			for (t = 0; t < TRIALS; t++)
				for (p = 0; p < NR_PROGS; p++) {
					d = ns_per_frame(fds[p], buf[i], lens[i],
							 linear, repeat);
					if (d < 0) {
						fprintf(stderr, "xdp_bench: %s on %s (%s): %s\n",
							prog_names[p], frames[i].name,
							mode_names[md], strerror((int)-d));
						goto out;
					}
					if (res[i][md][p] < 0 || d < res[i][md][p])
						res[i][md][p] = d;
				}
			/* Every run of xrx_rx took the same path: say which. */
			if (stat_packets(xrx, XRX_STAT_PARSE_LINEAR) - lin0 ==
			    (__u64)TRIALS * repeat)
				paths[i][md] = "in place";
			else if (stat_packets(xrx, XRX_STAT_PARSE_COPY) - cp0 ==
				 (__u64)TRIALS * repeat)
				paths[i][md] = "copied";
			else
				paths[i][md] = "mixed";
			ratio = res[i][md][P_XRX] /
				(res[i][md][P_FLOOR] > 0 ? res[i][md][P_FLOOR] : 1);
			if (md == M_LINEAR)
				worst = ratio > worst ? ratio : worst;
			else
				worst_mb = ratio > worst_mb ? ratio : worst_mb;
			printf("%-10s %5d %-12s %9.1f %12.1f %13.1f %6.2fx  %s\n",
			       frames[i].name, lens[i], mode_names[md],
			       res[i][md][P_XRX], res[i][md][P_XRX_PASS],
			       res[i][md][P_FLOOR], ratio, paths[i][md]);
		}
	}
	printf("worst ratio xrx_rx / xsk_redirect, linear: %.2fx (target <= %.1fx: %s); "
	       "multi-buffer: %.2fx\n", worst, TARGET_RATIO,
	       worst <= TARGET_RATIO ? "met" : "NOT met", worst_mb);
	if (write_json(out, repeat, res, lens, paths))
		goto out;
	printf("wrote %s\n", out);
	ret = 0;
out:
	if (xsk >= 0)
		close(xsk);
	xsk_redirect__destroy(floor_skel);
	xrx_rx__destroy(xrx_pass);
	xrx_rx__destroy(xrx);
	return ret;
}
