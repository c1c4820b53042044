/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the BPF_PROG_TEST_RUN tests of xrx_rx: the program loaded
 * from its skeleton with no pins (the test's maps are its own and vanish
 * with it), its fds, an AF_XDP socket in xrx_xsks[0], one test run, and
 * its counters summed over CPUs. No cmocka here: errors come back as
 * negative errnos and the test asserts.
 *
 * An unbound AF_XDP socket in xrx_xsks[0] makes bpf_redirect_map() return
 * XDP_REDIRECT (test runs do not perform the redirect), so an accelerated
 * frame shows as XDP_REDIRECT rather than the no-socket fallback.
 *
 *	static struct xrx_rx_env rx = { .xsk_fd = -1 };
 *	xrx_rx_env_open(&rx);		// group setup; then rx.skip, rx.broken
 *	xrx_rx_env_run(&rx, frame, len, len, &r);
 *	xrx_rx_env_close(&rx);		// group teardown
 */
#ifndef XRX_TESTS_XRX_RX_ENV_H
#define XRX_TESTS_XRX_RX_ENV_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xrx/parse.h>
#include <xrx/stats.h>

#include "util/frames.h"

/*
 * Which build of xrx_rx: the plain one, or with XRX_RX_ENV_COMPAT the
 * one for kernels without bpf_cast_to_kern_ctx()
 * (build/xrx_rx_compat.bpf.o), which must give the same answers.
 */
#ifdef XRX_RX_ENV_COMPAT
#include "xrx_rx_compat.skel.h"
#define XRX_RX_ENV(f) xrx_rx_compat##f
#define XRX_RX_ENV_OBJ "xrx_rx_compat"
#else
#include "xrx_rx.skel.h"
#define XRX_RX_ENV(f) xrx_rx##f
#define XRX_RX_ENV_OBJ "xrx_rx"
#endif

#ifndef AF_XDP
#define AF_XDP 44
#endif

struct xrx_rx_env {
	struct XRX_RX_ENV() *skel;
	int prog_fd;
	int stats_fd, rules_fd, cfg_fd, xsks_fd, ports_fd;
	int xsk_fd;		/* -1: no AF_XDP socket, accel -> PASS_NO_SOCKET */
	int nr_cpus;
	int small_linear;	/* kernel takes ctx_in.data_end < data_size_in */
	const char *skip;	/* why nothing can run */
	const char *broken;	/* why everything fails */
};

/* One run: what bpf_prog_test_run_opts() reports. */
struct xrx_rx_out {
	__u32 retval;
	__u32 meta_len;		/* ctx_out.data: bytes of metadata in out[] */
	__u32 out_len;		/* in: room in out[]; out: bytes written */
	__u8 *out;
};

static inline int xrx_rx_env_quiet(enum libbpf_print_level level,
				   const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * Run the program once on @frame with @linear bytes in the linear area
 * (the rest in fragments, as a multi-buffer driver hands it over).
 * Return: 0, or the negative errno of the test run.
 */
static inline int xrx_rx_env_run(const struct xrx_rx_env *e, const void *frame,
				 __u32 len, __u32 linear, struct xrx_rx_out *o)
{
	struct xdp_md ctx_in = { .data_end = linear }, ctx_out = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = frame,
		    .data_size_in = len,
		    .data_out = o->out,
		    .data_size_out = o->out_len,
		    .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in),
		    .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out),
		    .repeat = 1);
	int err;

	err = bpf_prog_test_run_opts(e->prog_fd, &opts) ? -errno : 0;
	o->retval = opts.retval;
	o->out_len = opts.data_size_out;
	o->meta_len = ctx_out.data;
	return err;
}

/*
 * How xrx_rx reads the headers of a frame of @len bytes with @linear of
 * them in the linear area (bpf/xrx_rx.bpf.c): in place, unless the linear
 * area is shorter than the parse window and the headers run past it.
 * Return: XRX_STAT_PARSE_LINEAR or XRX_STAT_PARSE_COPY.
 */
static inline enum xrx_stat xrx_rx_env_path(const __u8 *frame, __u32 len,
					    __u32 linear)
{
	__u32 win = len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW;
	struct xrx_parsed p;

	if (linear >= win)
		return XRX_STAT_PARSE_LINEAR;
	xrx_parse(frame, linear, len, &p, NULL);
	return p.result == XRX_PARSE_TOO_LONG ? XRX_STAT_PARSE_COPY :
						XRX_STAT_PARSE_LINEAR;
}

/* Does the kernel run a frame with only the Ethernet header linear? */
static inline int xrx_rx_env_probe_small_linear(const struct xrx_rx_env *e)
{
	static __u8 frame[2048], out[2048 + 256];
	struct xrx_rx_out o = { .out = out, .out_len = sizeof(out) };
	struct frame_spec s;
	int len;

	frame_spec_tcp4(&s);
	len = frame_build(&s, frame, sizeof(frame));
	if (len <= 0)
		return 0;
	return xrx_rx_env_run(e, frame, (__u32)len, FRAME_ETH_HLEN, &o) == 0;
}

/*
 * Load xrx_rx and fill @e. Without privileges the program cannot load:
 * e->skip says so. As root a load failure is the program's fault (the
 * verifier refused it): e->broken. Return: 0 either way.
 */
static inline int xrx_rx_env_open(struct xrx_rx_env *e)
{
	struct bpf_map *m;
	__u32 zero = 0;
	int err;

	e->xsk_fd = -1;
	libbpf_set_print(xrx_rx_env_quiet);
	e->nr_cpus = libbpf_num_possible_cpus();
	e->skel = XRX_RX_ENV(__open)();
	if (!e->skel) {
		e->skip = "cannot open the " XRX_RX_ENV_OBJ " skeleton";
		return 0;
	}
	/* No pins: the test's maps are its own and vanish with it. */
	bpf_object__for_each_map(m, e->skel->obj)
		bpf_map__set_pin_path(m, NULL);
	err = XRX_RX_ENV(__load)(e->skel);
	if (err) {
		fprintf(stderr, "loading " XRX_RX_ENV_OBJ ": %s (run as root)\n",
			strerror(-err));
		if (geteuid() == 0)
			e->broken = XRX_RX_ENV_OBJ " does not load: the verifier refused it (see the log above)";
		else
			e->skip = XRX_RX_ENV_OBJ " does not load here (needs root and BPF)";
		return 0;
	}
	e->prog_fd = bpf_program__fd(e->skel->progs.xrx_rx);
	e->stats_fd = bpf_map__fd(e->skel->maps.xrx_stats);
	e->rules_fd = bpf_map__fd(e->skel->maps.xrx_rules);
	e->cfg_fd = bpf_map__fd(e->skel->maps.xrx_cfg);
	e->xsks_fd = bpf_map__fd(e->skel->maps.xrx_xsks);
	e->ports_fd = bpf_map__fd(e->skel->maps.xrx_ports);

	e->xsk_fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (e->xsk_fd >= 0 &&
	    bpf_map_update_elem(e->xsks_fd, &zero, &e->xsk_fd, 0)) {
		close(e->xsk_fd);
		e->xsk_fd = -1;
	}
	if (e->xsk_fd < 0)
		fprintf(stderr, "# no AF_XDP socket in xrx_xsks: accelerated frames show as pass_no_socket\n");
	e->small_linear = xrx_rx_env_probe_small_linear(e);
	return 0;
}

static inline void xrx_rx_env_close(struct xrx_rx_env *e)
{
	if (e->xsk_fd >= 0)
		close(e->xsk_fd);
	e->xsk_fd = -1;
	XRX_RX_ENV(__destroy)(e->skel);
	e->skel = NULL;
}

/* Zero xrx_stats on every CPU. Return: 0 or a negative errno. */
static inline int xrx_rx_env_stats_reset(const struct xrx_rx_env *e)
{
	struct xrx_stats zero[e->nr_cpus];
	__u32 key = 0;

	memset(zero, 0, sizeof(zero));
	return bpf_map_update_elem(e->stats_fd, &key, zero, 0) ? -errno : 0;
}

/* xrx_stats summed over CPUs into @sum. Return: 0 or a negative errno. */
static inline int xrx_rx_env_stats_read(const struct xrx_rx_env *e,
					struct xrx_counter sum[XRX_STAT_MAX])
{
	struct xrx_stats v[e->nr_cpus];
	__u32 k, key = 0;
	int c;

	if (bpf_map_lookup_elem(e->stats_fd, &key, v))
		return -errno;
	for (k = 0; k < XRX_STAT_MAX; k++) {
		sum[k].packets = sum[k].bytes = 0;
		for (c = 0; c < e->nr_cpus; c++) {
			sum[k].packets += xrx_stats_at(&v[c], k)->packets;
			sum[k].bytes += xrx_stats_at(&v[c], k)->bytes;
		}
	}
	return 0;
}

#endif /* XRX_TESTS_XRX_RX_ENV_H */
