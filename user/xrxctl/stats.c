// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl stats: the kernel's counters (xrx_stats, per CPU, summed) and
 * xrxd's (xrx_ustats) from the pins, as text, JSON (one object per line)
 * or Prometheus text exposition (for node_exporter's textfile collector),
 * once or every --watch seconds with rates.
 *
 * Derived values: segments per aggregate ((aggs_out + segs_merged) /
 * aggs_out: an aggregate of n segments merged n - 1 of them), frames per
 * delivered packet (frames_in / pkts_out), bytes copied per frame
 * (bytes_copied / frames_in: what header-only copy saves).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_conf.h"
#include "ctl_log.h"
#include "ctl_pins.h"
#include "ctl_ustats.h"
#include "util/cli.h"
#include "xrxctl.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_PROM };

struct snap {
	char ifname[IF_NAMESIZE];
	bool have_k, have_u, alive;
	bool gone;	/* listed, but its pins went away (or are not there yet) */
	struct xrx_counter k[XRX_STAT_MAX];
	struct xrx_ustats u;
	double at;		/* CLOCK_MONOTONIC seconds */
};

struct derived {
	double segs_per_agg, frames_per_pkt, copied_per_frame;
	double csum_bad, csum_bad_ratio;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One interface's counters. @named: the user asked for this interface, so
 * nothing readable is an error; otherwise it was listed from the pin root
 * and an xrxd starting or stopping right now may have taken its pins away
 * in between: it is left out of this round (s->gone), not a failure.
 */
static int take(const struct ctx *ctx, const char *ifname, struct snap *s,
		bool named)
{
	int err;

	memset(s, 0, sizeof(s[0]));
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
	s->at = mono();
	/* Not readable is an error, named or not, and never xrx_up 0. */
	err = xrxctl_read(ctx, ifname, &s->u, &s->have_u, s->k, &s->have_k);
	if (err)
		return err;
	if (s->have_u)
		s->alive = s->u.hdr[XRX_USTATS_PID] &&
			   (kill((pid_t)s->u.hdr[XRX_USTATS_PID], 0) == 0 ||
			    errno == EPERM);
	if (!s->have_k && !s->have_u && !named) {
		s->gone = true;
		return 0;
	}
	if (!s->have_k && !s->have_u) {
		char unit[80];

		ctl_err("no xrxd on %s: nothing readable in %s/%s; start it with systemctl start %s",
			ifname, ctx->pin_root, ifname,
			xrx_unit_name(ifname, unit, sizeof(unit)));
		return -ENOENT;
	}
	return 0;
}

/* Over the whole run, or over an interval when @prev is given. */
static void derive(const struct snap *s, const struct snap *prev,
		   struct derived *d)
{
	const __u64 *e = s->u.engine, *p = prev ? prev->u.engine : NULL;
	double aggs, segs, frames, pkts, copied;

#define DELTA(i) ((double)(e[i] - (p ? p[i] : 0)))
	aggs = DELTA(XRX_ENGINE_STAT_AGGS_OUT);
	segs = DELTA(XRX_ENGINE_STAT_SEGS_MERGED);
	frames = DELTA(XRX_ENGINE_STAT_FRAMES_IN);
	pkts = DELTA(XRX_ENGINE_STAT_PKTS_OUT);
	copied = DELTA(XRX_ENGINE_STAT_BYTES_COPIED);
	d->csum_bad = DELTA(XRX_ENGINE_STAT_CSUM_BAD);
#undef DELTA
	d->segs_per_agg = aggs > 0 ? (aggs + segs) / aggs : 0;
	d->frames_per_pkt = pkts > 0 ? frames / pkts : 0;
	d->copied_per_frame = frames > 0 ? copied / frames : 0;
	d->csum_bad_ratio = frames > 0 ? d->csum_bad / frames : 0;
}

/*
 * Frames with bad checksums are not merged, and a TUN sink hands them to
 * a stack that drops them. More than 1 % of at least 100 frames is no
 * accident of the wire. Partial checksums (a sender's TX offload) are
 * counted apart (csum_partial) and said at the first one: one refused is
 * a connection that hangs.
 */
#define CSUM_BAD_MIN_FRAMES 100
#define CSUM_BAD_RATIO 0.01

static void csum_hint(const struct snap *s, const struct derived *d)
{
	double frames = (double)s->u.engine[XRX_ENGINE_STAT_FRAMES_IN];
	__u64 partial = s->u.engine[XRX_ENGINE_STAT_CSUM_PARTIAL];
	__u64 refused = s->u.engine[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL];

	if (refused)
		printf("  hint: %llu frame%s with a partial checksum refused (single_csum_partial): the sender leaves the sum to its TX offload and the stack behind the sink drops them; turn it off on the sender (ethtool -K PEER tx off), or set csum_partial = accept if the link hands such packets over (xrx.conf(5))\n",
		       (unsigned long long)refused, refused == 1 ? "" : "s");
	else if (partial)
		printf("  note: %llu segment%s with a partial checksum (csum_partial), taken unverified as the kernel takes them from a veth or tun peer; ethtool -K PEER tx off on the sender has them verified\n",
		       (unsigned long long)partial, partial == 1 ? "" : "s");
	if (frames < CSUM_BAD_MIN_FRAMES || d->csum_bad_ratio <= CSUM_BAD_RATIO)
		return;
	printf("  hint: %.0f%% of frames had a bad checksum (csum_bad): not merged, and dropped by the stack behind a TUN sink; corruption on the wire, or a sender whose checksums are wrong; csum = trust only if the NIC validated them (xrx.conf(5), TUN sink)\n",
	       d->csum_bad_ratio * 100);
}

static double rate(__u64 now, __u64 before, double secs)
{
	return secs > 0 && now >= before ? (double)(now - before) / secs : 0;
}

static void print_text(const struct snap *s, const struct snap *prev)
{
	double secs = prev ? s->at - prev->at : 0;
	const char *gname;
	struct derived d;
	unsigned int g, i;
	__u64 v;

	printf("%s:", s->ifname);
	if (s->have_u)
		printf(" xrxd pid %llu%s, xrx_rx id %llu, %llu queue%s\n",
		       (unsigned long long)s->u.hdr[XRX_USTATS_PID],
		       s->alive ? "" : " (not running: last counters of a stopped xrxd)",
		       (unsigned long long)s->u.hdr[XRX_USTATS_PROG_ID],
		       (unsigned long long)s->u.hdr[XRX_USTATS_QUEUES],
		       s->u.hdr[XRX_USTATS_QUEUES] == 1 ? "" : "s");
	else
		printf(" no xrx_ustats (xrx_rx attached without xrxd)\n");
	if (s->have_k) {
		printf("  %-28s %16s %18s%s\n", "xrx_rx (kernel)", "packets",
		       "bytes", prev ? "       packets/s" : "");
		for (i = 0; i < XRX_STAT_MAX; i++) {
			printf("  %-28s %16llu %18llu", xrx_stat_names[i],
			       (unsigned long long)s->k[i].packets,
			       (unsigned long long)s->k[i].bytes);
			if (prev)
				printf(" %15.0f", rate(s->k[i].packets,
						       prev->k[i].packets, secs));
			printf("\n");
		}
	}
	if (!s->have_u)
		return;
	for (g = XRX_USTATS_G_LIVE; g < XRX_USTATS_G_MAX; g++) {
		if (g == XRX_USTATS_G_TEE && !s->u.tee[XRX_SINK_STAT_PKTS_IN])
			continue;	/* no tee has had a packet */
		gname = xrx_ustats_group_name(g);
		printf("  %-28s %16s%s\n", gname, "", prev ? "                            /s" : "");
		for (i = 0; i < xrx_ustats_group_len(g); i++) {
			v = *xrx_ustats_at((struct xrx_ustats *)&s->u, g, i);
			printf("  %-28s %16llu", xrx_ustats_name(g, i),
			       (unsigned long long)v);
			if (prev && !xrx_ustats_is_gauge(g, i))
				printf(" %34.0f",
				       rate(v, *xrx_ustats_at((struct xrx_ustats *)&prev->u, g, i), secs));
			printf("\n");
		}
	}
	derive(s, prev, &d);
	printf("  %-28s %16.2f\n  %-28s %16.2f\n  %-28s %16.1f\n",
	       "segments_per_aggregate", d.segs_per_agg, "frames_per_packet",
	       d.frames_per_pkt, "bytes_copied_per_frame", d.copied_per_frame);
	printf("  %-28s %16llu   (no counter says where they went; in flight while traffic runs, 0 when idle)\n",
	       "unaccounted",
	       (unsigned long long)s->u.hdr[XRX_USTATS_UNACCOUNTED]);
	for (i = 0; i < XRX_DEGRADED_MAX; i++)
		if (s->u.hdr[XRX_USTATS_DEGRADED_REASONS] & (1ull << i))
			printf("  DEGRADED: %s\n", xrx_degraded__desc(i));
	if (s->u.hdr[XRX_USTATS_STUCK_WORKERS])
		printf("  STUCK: %llu worker(s) not running their loop (blocked in the sink?)\n",
		       (unsigned long long)s->u.hdr[XRX_USTATS_STUCK_WORKERS]);
	/* Over the whole run: an interval may be too short to judge. */
	if (prev)
		derive(s, NULL, &d);
	csum_hint(s, &d);
}

static void print_json(const struct snap *s, const struct snap *prev)
{
	double secs = prev ? s->at - prev->at : 0;
	struct derived d;
	unsigned int g, i;
	const char *sep;
	__u64 v;

	printf("{\"interface\":\"");
	xrxctl_json_str(s->ifname);
	printf("\",\"running\":%s", s->alive ? "true" : "false");
	if (s->have_k) {
		printf(",\"kernel\":{");
		for (i = 0; i < XRX_STAT_MAX; i++)
			printf("%s\"%s\":{\"packets\":%llu,\"bytes\":%llu}",
			       i ? "," : "", xrx_stat_names[i],
			       (unsigned long long)s->k[i].packets,
			       (unsigned long long)s->k[i].bytes);
		printf("}");
	}
	if (s->have_u) {
		printf(",\"user\":{");
		for (g = 0; g < XRX_USTATS_G_MAX; g++) {
			if (g != XRX_USTATS_G_HDR)
				printf(",\"%s\":{", xrx_ustats_group_name(g));
			for (i = 0; i < xrx_ustats_group_len(g); i++) {
				v = *xrx_ustats_at((struct xrx_ustats *)&s->u, g, i);
				sep = i ? "," : "";
				printf("%s\"%s\":%llu", sep, xrx_ustats_name(g, i),
				       (unsigned long long)v);
			}
			if (g != XRX_USTATS_G_HDR)
				printf("}");
		}
		derive(s, NULL, &d);
		printf("},\"derived\":{\"segments_per_aggregate\":%.3f,\"frames_per_packet\":%.3f,\"bytes_copied_per_frame\":%.3f,\"unaccounted\":%llu}",
		       d.segs_per_agg, d.frames_per_pkt, d.copied_per_frame,
		       (unsigned long long)s->u.hdr[XRX_USTATS_UNACCOUNTED]);
	}
	if (prev) {
		printf(",\"interval_s\":%.3f,\"rates\":{", secs);
		sep = "";
		if (s->have_k) {
			printf("\"kernel_rx_pps\":%.1f,\"kernel_rx_bps\":%.1f,\"kernel_redirect_pps\":%.1f",
			       rate(s->k[XRX_STAT_RX].packets, prev->k[XRX_STAT_RX].packets, secs),
			       rate(s->k[XRX_STAT_RX].bytes, prev->k[XRX_STAT_RX].bytes, secs) * 8,
			       rate(s->k[XRX_STAT_REDIRECT].packets,
				    prev->k[XRX_STAT_REDIRECT].packets, secs));
			sep = ",";
		}
		if (s->have_u) {
			derive(s, prev, &d);
			printf("%s\"frames_in_ps\":%.1f,\"pkts_out_ps\":%.1f,\"bytes_in_bps\":%.1f,\"segments_per_aggregate\":%.3f,\"bytes_copied_per_frame\":%.3f",
			       sep,
			       rate(s->u.engine[XRX_ENGINE_STAT_FRAMES_IN],
				    prev->u.engine[XRX_ENGINE_STAT_FRAMES_IN], secs),
			       rate(s->u.engine[XRX_ENGINE_STAT_PKTS_OUT],
				    prev->u.engine[XRX_ENGINE_STAT_PKTS_OUT], secs),
			       rate(s->u.engine[XRX_ENGINE_STAT_BYTES_IN],
				    prev->u.engine[XRX_ENGINE_STAT_BYTES_IN], secs) * 8,
			       d.segs_per_agg, d.copied_per_frame);
		}
		printf("}");
	}
	printf("}\n");
}

/*
 * Prometheus text format: one family at a time, every interface in it,
 * the families in the order of this table. A row is a family: its name,
 * type and help, which interfaces have it, and its value of one of them,
 * a counter (u64) or a ratio (real, printed to three places). A row with
 * per set is one series per counter of xrx_rx's, labelled
 * counter="NAME". The row marked ustats stands for one family per
 * counter of xrxd's (ctl_ustats.h), made from that table as it is
 * printed: xrx_GROUP_NAME, with _total where it only grows.
 */
struct prom_family {
	const char *name;
	bool counter;
	const char *help;
	bool (*has)(const struct snap *s);
	unsigned int per;
	__u64 (*u64)(const struct snap *s, const struct prom_family *f,
		     unsigned int i);
	double (*real)(const struct snap *s);
	bool ustats;
	/* the counter prom_ustat() reads */
	enum xrx_ustats_group group;
	unsigned int idx;
};

static bool prom_listed(const struct snap *s)
{
	return !s->gone;
}

static bool prom_has_k(const struct snap *s)
{
	return s->have_k;
}

static bool prom_has_u(const struct snap *s)
{
	return s->have_u;
}

static __u64 prom_alive(const struct snap *s, const struct prom_family *f,
			unsigned int i)
{
	return s->alive;
}

static __u64 prom_prog_packets(const struct snap *s,
			       const struct prom_family *f, unsigned int i)
{
	return s->k[i].packets;
}

static __u64 prom_prog_bytes(const struct snap *s, const struct prom_family *f,
			     unsigned int i)
{
	return s->k[i].bytes;
}

/* xrxd's counter f->idx of f->group (the daemon facts: XRX_USTATS_G_HDR) */
static __u64 prom_ustat(const struct snap *s, const struct prom_family *f,
			unsigned int i)
{
	return *xrx_ustats_at((struct xrx_ustats *)&s->u, f->group, f->idx);
}

static double prom_segs_per_agg(const struct snap *s)
{
	struct derived d;

	derive(s, NULL, &d);
	return d.segs_per_agg;
}

static double prom_copied_per_frame(const struct snap *s)
{
	struct derived d;

	derive(s, NULL, &d);
	return d.copied_per_frame;
}

#define PROM_U64(n, c, h, has_, get)                                           \
	{ .name = (n), .counter = (c), .help = (h), .has = (has_), .u64 = (get) }
#define PROM_HDR(n, h, field)                                                  \
	{ .name = (n), .help = (h), .has = prom_has_u, .u64 = prom_ustat,      \
	  .group = XRX_USTATS_G_HDR, .idx = XRX_USTATS_##field }
#define PROM_PER_STAT(n, h, get)                                               \
	{ .name = (n), .counter = true, .help = (h), .has = prom_has_k,        \
	  .per = XRX_STAT_MAX, .u64 = (get) }
#define PROM_REAL(n, h, get)                                                   \
	{ .name = (n), .help = (h), .has = prom_has_u, .real = (get) }

static const struct prom_family prom_families[] = {
	PROM_U64("xrx_up", false,
		 "1 if the xrxd that writes xrx_ustats is running",
		 prom_listed, prom_alive),
	PROM_PER_STAT("xrx_prog_packets_total",
		      "frames counted by xrx_rx, by verdict (xrx_stats)",
		      prom_prog_packets),
	PROM_PER_STAT("xrx_prog_bytes_total",
		      "bytes counted by xrx_rx, by verdict (xrx_stats)",
		      prom_prog_bytes),
	{ .ustats = true },
	PROM_HDR("xrx_degraded",
		 "1 while xrxd is degraded: no AF_XDP sockets, xrx_rx detached or replaced, or the sink losing writes (xrxctl status says which)",
		 DEGRADED),
	PROM_HDR("xrx_stuck_workers",
		 "workers whose heartbeat stopped (blocked in their sink)",
		 STUCK_WORKERS),
	PROM_HDR("xrx_unaccounted_frames",
		 "frames no counter accounts for (in flight while traffic runs, 0 when idle)",
		 UNACCOUNTED),
	PROM_REAL("xrx_segments_per_aggregate",
		  "segments per delivered aggregate since xrxd started",
		  prom_segs_per_agg),
	PROM_REAL("xrx_bytes_copied_per_frame",
		  "bytes copied per received frame since xrxd started",
		  prom_copied_per_frame),
};

static void prom_family(const struct prom_family *f, const struct snap *s,
			int n)
{
	unsigned int i;
	int j;

	printf("# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
	       f->counter ? "counter" : "gauge");
	for (j = 0; j < n; j++) {
		if (!f->has(&s[j]))
			continue;
		if (f->real)
			printf("%s{interface=\"%s\"} %.3f\n", f->name,
			       s[j].ifname, f->real(&s[j]));
		for (i = 0; i < f->per; i++)
			printf("%s{interface=\"%s\",counter=\"%s\"} %llu\n",
			       f->name, s[j].ifname, xrx_stat_names[i],
			       (unsigned long long)f->u64(&s[j], f, i));
		if (!f->real && !f->per)
			printf("%s{interface=\"%s\"} %llu\n", f->name,
			       s[j].ifname,
			       (unsigned long long)f->u64(&s[j], f, 0));
	}
}

/* One family per counter of xrxd's, as the ustats row says. */
static void prom_ustats(const struct snap *s, int n)
{
	struct prom_family f = { .has = prom_has_u, .u64 = prom_ustat };
	unsigned int g, i;
	char name[96];

	for (g = XRX_USTATS_G_LIVE; g < XRX_USTATS_G_MAX; g++) {
		for (i = 0; i < xrx_ustats_group_len(g); i++) {
			f.counter = !xrx_ustats_is_gauge(g, i);
			snprintf(name, sizeof(name), "xrx_%s_%s%s",
				 xrx_ustats_group_name(g), xrx_ustats_name(g, i),
				 f.counter ? "_total" : "");
			f.name = name;
			f.help = xrx_ustats_desc(g, i);
			f.group = g;
			f.idx = i;
			prom_family(&f, s, n);
		}
	}
}

static void print_prom(const struct snap *s, int n)
{
	size_t i;

	for (i = 0; i < sizeof(prom_families) / sizeof(prom_families[0]); i++)
		if (prom_families[i].ustats)
			prom_ustats(s, n);
		else
			prom_family(&prom_families[i], s, n);
}

/*
 * The interface asked for by name has no xrxd: for Prometheus that is
 * xrx_up 0, so that a textfile collector's `> tmp && mv` replaces the
 * last xrx_up 1 instead of keeping it (the command fails otherwise).
 */
static void prom_down(struct snap *s, bool named)
{
	if (named && s->gone)
		s->gone = false;	/* shown: xrx_up 0, nothing else */
}

/*
 * What `--prom` without an interface covers: every instance running (its
 * pins, or where those are root's the copies in the state directory) and
 * every one configured (CONFIG_DIR/NAME.conf, example.conf aside), so a
 * configured instance that is down shows xrx_up 0 instead of nothing.
 * Return: how many, with configured[i] set for the configured ones, or
 * -EACCES (said why).
 */
static int prom_ifaces(const struct ctx *ctx, char (*names)[IF_NAMESIZE],
		       bool *configured)
{
	char (*conf)[IF_NAMESIZE];
	int n, c, i, j;

	n = xrx_pin_ifaces(ctx->pin_root, names, XRXCTL_IFACES_MAX);
	if (n == -EACCES || n == -EPERM) {
		n = xrx_dir_ifaces(ctx->statedir, ".stats", names,
				   XRXCTL_IFACES_MAX);
		if (n == -EACCES || n == -EPERM) {
			xrxctl_denied(ctx, ctx->statedir);
			return -EACCES;
		}
	}
	if (n < 0)
		n = 0;		/* no pin root yet: nothing runs */
	conf = calloc(XRXCTL_IFACES_MAX, IF_NAMESIZE);
	if (!conf)
		return n;
	c = xrx_dir_ifaces(ctx->confdir, ".conf", conf, XRXCTL_IFACES_MAX);
	for (i = 0; i < c; i++) {
		/* the template to copy, not an instance's (xrxd says so) */
		if (!strcmp(conf[i], "example"))
			continue;
		for (j = 0; j < n && strcmp(names[j], conf[i]); j++)
			;
		if (j == n) {
			if (n == XRXCTL_IFACES_MAX)
				break;
			memcpy(names[n++], conf[i], IF_NAMESIZE);
		}
		configured[j] = true;
	}
	free(conf);
	return n;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = 1;
}

enum { OPT_JSON = CLI_KEY, OPT_PROM, OPT_WATCH, OPT_COUNT, OPT_LOSSES };

static const struct cli_opt stats_opts[] = {
	CLI_OPT("json", OPT_JSON, NULL, "one JSON object per interface and round"),
	CLI_OPT("prom", OPT_PROM, NULL, "Prometheus text exposition"),
	CLI_OPT("watch", OPT_WATCH, "SECONDS", "again every SECONDS, with rates"),
	CLI_OPT("count", OPT_COUNT, "N", "N rounds of --watch"),
	CLI_OPT("losses", OPT_LOSSES, NULL, "where received frames were lost, layer by layer"),
	CLI_OPT_HELP,
	CLI_OPT_END,
};

/* Its help is the usage line: xrxctl(8) tells the rest. */
static const struct cli_cmd stats_cli = {
	.name = "xrxctl stats",
	.usage = "usage: xrxctl stats [IFACE] [--json | --prom] [--watch SECONDS [--count N]]\n"
		 "       xrxctl stats --losses IFACE [--json | --prom]\n",
	.opts = stats_opts,
	.on_error = CLI_ERR_HELP,
};

int cmd_stats(const struct ctx *ctx, int argc, char **argv)
{
	char (*names)[IF_NAMESIZE] = NULL;
	struct snap *cur = NULL, *prev = NULL, *t;
	bool *configured = NULL;
	double watch = 0;
	long count = -1, round;
	enum fmt fmt = FMT_TEXT;
	const char *arg = NULL;
	char *end;
	int k, n, j, shown, ret = 1;
	struct cli c;
	bool losses = false;

	/* argv[-1] is the command name: getopt's argv[0]. */
	argv--;
	argc++;
	if (cli_init(&c, &stats_cli, argc, argv))
		return EXIT_USAGE;
	while ((k = cli_next(&c)) > 0) {
		switch (k) {
		case OPT_JSON:
			fmt = FMT_JSON;
			break;
		case OPT_PROM:
			fmt = FMT_PROM;
			break;
		case OPT_WATCH:
			watch = strtod(c.arg, &end);
			if (*end || watch < 0.1 || watch > 86400) {
				fprintf(stderr, "xrxctl: --watch %s: give seconds from 0.1 to 86400\n",
					c.arg);
				return EXIT_USAGE;
			}
			break;
		case OPT_COUNT:
			count = strtol(c.arg, &end, 10);
			if (*end || count < 1) {
				fprintf(stderr, "xrxctl: --count %s: give a positive number\n",
					c.arg);
				return EXIT_USAGE;
			}
			break;
		case OPT_LOSSES:
			losses = true;
			break;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 0 : EXIT_USAGE;
	if (c.ind < argc)
		arg = argv[c.ind++];
	if (c.ind < argc || (count > 0 && !watch)) {
		cli_help(&stats_cli, stderr);
		return EXIT_USAGE;
	}
	if (losses) {
		if (!arg || watch) {
			cli_help(&stats_cli, stderr);
			return EXIT_USAGE;
		}
		return xrxctl_losses(ctx, arg, fmt == FMT_JSON ? 1 :
					       fmt == FMT_PROM ? 2 : 0);
	}
	if (watch && count < 0)
		count = -1;	/* until SIGINT */
	else if (!watch)
		count = 1;
	names = calloc(XRXCTL_IFACES_MAX, IF_NAMESIZE);
	cur = calloc(XRXCTL_IFACES_MAX, sizeof(*cur));
	prev = calloc(XRXCTL_IFACES_MAX, sizeof(*prev));
	configured = calloc(XRXCTL_IFACES_MAX, sizeof(*configured));
	if (!names || !cur || !prev || !configured)
		goto out;
	if (fmt == FMT_PROM && arg) {
		/* Down is a value: xrx_up 0, not an error (prom_down()). */
		if (!xrx_ifname_valid(arg)) {
			fprintf(stderr, "xrxctl: '%s' is not a valid interface name; give it as 'ip link' shows it\n",
				arg);
			ret = EXIT_USAGE;
			goto out;
		}
		snprintf(names[0], IF_NAMESIZE, "%s", arg);
		n = 1;
	} else if (fmt == FMT_PROM) {
		n = prom_ifaces(ctx, names, configured);
		if (n < 0)
			goto out;	/* not readable: exit 1, no xrx_up */
	} else {
		n = xrxctl_ifaces(ctx, arg, names);
	}
	if (n < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (n == 0 && fmt == FMT_PROM) {
		print_prom(cur, 0);
		ret = 0;
		goto out;
	}
	if (n == 0)
		goto out;
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	for (round = 0; (count < 0 || round < count) && !stop; round++) {
		if (round) {
			usleep((useconds_t)(watch * 1e6));
			if (stop)
				break;
		}
		/* take() leaves out one whose pins went; a named one fails,
		 * but for Prometheus it is down. */
		for (j = 0; j < n; j++) {
			if (take(ctx, names[j], &cur[j],
				 arg != NULL && fmt != FMT_PROM))
				goto out;
			prom_down(&cur[j], fmt == FMT_PROM &&
					   (arg != NULL || configured[j]));
		}
		if (fmt == FMT_PROM) {
			/* prev is not used here: the shown ones move down. */
			for (j = 0, shown = 0; j < n; j++)
				if (!cur[j].gone)
					cur[shown++] = cur[j];
			print_prom(cur, shown);
		} else {
			for (j = 0; j < n; j++) {
				const struct snap *p = round && !prev[j].gone ?
						       &prev[j] : NULL;

				if (cur[j].gone)
					continue;
				if (fmt == FMT_JSON)
					print_json(&cur[j], p);
				else
					print_text(&cur[j], p);
			}
		}
		fflush(stdout);
		t = prev;
		prev = cur;
		cur = t;
	}
	ret = 0;
out:
	free(names);
	free(cur);
	free(prev);
	free(configured);
	return ret;
}
