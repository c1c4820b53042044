// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's counters: the workers' (live handle), the engines', sinks' and
 * xrx_rx's, with the frames none accounts for, published about once a
 * second in the xrx_ustats map, in a copy in the state directory for
 * xrxctl without bpffs, and as STATUS= to systemd.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <systemd/sd-daemon.h>

#include "ctl_log.h"
#include "xrxd.h"

/*
 * Frames no counter accounts for. Each stage's input must equal what it
 * passed on plus what it counted dropped:
 *   xrx_rx:   rx = redirect + every pass_* verdict
 *   sockets:  redirect = taken from the RX rings (rx_frames,
 *             rx_chain_drops) + XDP_STATISTICS rx_dropped + rx_ring_full
 *             (rx_fill_ring_empty_descs is a part of rx_dropped)
 *   workers:  rx_frames = engine frames_in
 *   engines:  frames_in = segments delivered (pkts_out + segs_merged)
 *             + drop_no_buffer + drop_bad_frame
 *   sinks:    engine pkts_out = sink pkts_out + errors + dropped
 *   the tee:  tee pkts_in = tee pkts_out + errors + dropped (it gets
 *             what the sink gets while it is there)
 * Exact when idle; while traffic flows, frames in an RX ring or a held
 * aggregate show here until they move on.
 */
static __u64 unaccounted(const struct xrx_ustats *u, const __u64 *k)
{
	const __u64 *lv = u->live, *e = u->engine, *s = u->sink, *t = u->tee;
	__u64 pass = 0, n = 0;
	__s64 gap[6];
	int i;

	for (i = 0; i < XRX_STAT_MAX; i++)
		if (xrx_stat_is_verdict(i))
			pass += k[i];
	gap[0] = (__s64)(k[XRX_STAT_RX] - pass);
	gap[1] = (__s64)(k[XRX_STAT_REDIRECT] - lv[XRX_LIVE_STAT_RX_FRAMES] -
			 lv[XRX_LIVE_STAT_RX_CHAIN_DROPS] -
			 lv[XRX_LIVE_STAT_XSK_RX_DROPPED] -
			 lv[XRX_LIVE_STAT_XSK_RX_RING_FULL]);
	gap[2] = (__s64)(lv[XRX_LIVE_STAT_RX_FRAMES] - e[XRX_ENGINE_STAT_FRAMES_IN]);
	gap[3] = (__s64)(e[XRX_ENGINE_STAT_FRAMES_IN] - e[XRX_ENGINE_STAT_PKTS_OUT] -
			 e[XRX_ENGINE_STAT_SEGS_MERGED] -
			 e[XRX_ENGINE_STAT_DROP_NO_BUFFER] -
			 e[XRX_ENGINE_STAT_DROP_BAD_FRAME]);
	gap[4] = (__s64)(e[XRX_ENGINE_STAT_PKTS_OUT] - s[XRX_SINK_STAT_PKTS_OUT] -
			 s[XRX_SINK_STAT_ERRORS] - s[XRX_SINK_STAT_DROPPED]);
	gap[5] = (__s64)(t[XRX_SINK_STAT_PKTS_IN] - t[XRX_SINK_STAT_PKTS_OUT] -
			 t[XRX_SINK_STAT_ERRORS] - t[XRX_SINK_STAT_DROPPED]);
	for (i = 0; i < 6; i++)
		n += (__u64)(gap[i] < 0 ? -gap[i] : gap[i]);
	return n;
}

/*
 * The copy of the counters for readers that are not root (ctl_ustats.h):
 * the state directory is opened to XRX_STATS_GROUP when it exists, so
 * that a metrics job in that group reads the copy and nothing else (the
 * state, lock and reload files stay 0600). Without the group everything
 * stays root's.
 */
/*
 * The group as addgroup --system makes it: in /etc/group. Read there, not
 * through getgrnam(), which would load the NSS modules (dlopen()) into
 * the daemon for one lookup at start.
 */
static gid_t stats_group(void)
{
	FILE *f = fopen("/etc/group", "re");
	gid_t gid = (gid_t)-1;
	struct group *gr;

	if (!f)
		return gid;
	while ((gr = fgetgrent(f)))
		if (!strcmp(gr->gr_name, XRX_STATS_GROUP)) {
			gid = gr->gr_gid;
			break;
		}
	fclose(f);
	return gid;
}

void xrxd_stats_file_open(struct xrxd *x)
{
	const char *dir = x->o->statedir;
	struct stat st;

	x->stats.stats_gid = stats_group();
	x->stats.stats_file = true;
	if (x->stats.stats_gid == (gid_t)-1)
		return;
	if (stat(dir, &st) ||
	    (st.st_gid != x->stats.stats_gid &&
	     chown(dir, (uid_t)-1, x->stats.stats_gid)) ||
	    chmod(dir, (st.st_mode & 07777) | S_IRGRP | S_IXGRP))
		ctl_warn("%s: cannot open %s to group %s (xrxctl as a member of it reads the counters there): %s%s",
			 x->ifname, dir, XRX_STATS_GROUP, strerror(errno),
			 errno == EPERM ? "; xrxd needs CAP_CHOWN for it" : "");
}

static void stats_file_write(struct xrxd *x, const struct xrx_live_stats *st)
{
	struct xrx_counter k[XRX_STAT_MAX];
	int i, err;

	if (!x->stats.stats_file)
		return;
	for (i = 0; i < XRX_STAT_MAX; i++) {
		k[i].packets = st->prog[i];
		k[i].bytes = st->prog_bytes[i];
	}
	err = xrx_ustats_file_write(x->o->statedir, x->ifname, &x->stats.us, k,
				    x->stats.stats_gid);
	if (err)
		ctl_debug("%s: cannot write the counters to %s: %s", x->ifname,
			  x->o->statedir, strerror(-err));
}

void xrxd_stats_file_remove(struct xrxd *x)
{
	char path[PATH_MAX];

	if (!x->stats.stats_file)
		return;
	x->stats.stats_file = false;
	if (!xrx_ustats_file_path(x->o->statedir, x->ifname, path,
				  sizeof(path)))
		unlink(path);
}

void xrxd_stats_refresh(struct xrxd *x)
{
	struct xrx_live_stats st;
	struct xrx_ustats *u = &x->stats.us;
	__u64 age = 0;
	__u32 q = 0;
	int i;

	memset(&st, 0, sizeof(st));
	if (x->workers.live)
		xrx_live__stats(x->workers.live, -1, &st);
	else
		xrx_prog__stats(x->xdp.prog, st.prog, st.prog_bytes);
	for (i = 0; i < XRX_LIVE_STAT_MAX; i++)
		u->live[i] = st.live[i] + x->workers.base.live[i];
	for (i = 0; i < XRX_ENGINE_STAT_MAX; i++)
		u->engine[i] = st.engine[i] + x->workers.base.engine[i];
	for (i = 0; i < XRX_SINK_STAT_MAX; i++) {
		u->sink[i] = st.sink[i] + x->workers.base.sink[i];
		u->tee[i] = st.tee[i] + x->workers.base.tee[i];
	}
	u->hdr[XRX_USTATS_UNACCOUNTED] = unaccounted(u, st.prog);
	u->hdr[XRX_USTATS_DEGRADED_REASONS] = xrxd_degraded_mask(x);
	u->hdr[XRX_USTATS_DEGRADED] = u->hdr[XRX_USTATS_DEGRADED_REASONS] != 0;
	u->hdr[XRX_USTATS_STUCK_WORKERS] = xrxd_workers_stuck(x, &q, &age);
	u->hdr[XRX_USTATS_PID] = (__u64)getpid();
	u->hdr[XRX_USTATS_IFINDEX] = (__u64)x->link.ifindex;
	u->hdr[XRX_USTATS_PROG_ID] = xrx_prog__id(x->xdp.prog);
	switch (xrx_prog__mode(x->xdp.prog)) {
	case XRX_LIVE_ATTACH_NATIVE:
		u->hdr[XRX_USTATS_ATTACH_MODE] = XRX_ATTACH_ID_NATIVE;
		break;
	case XRX_LIVE_ATTACH_SKB:
		u->hdr[XRX_USTATS_ATTACH_MODE] = XRX_ATTACH_ID_SKB;
		break;
	default:
		u->hdr[XRX_USTATS_ATTACH_MODE] = XRX_ATTACH_ID_NONE;
	}
	u->hdr[XRX_USTATS_MTU] = x->link.mtu;
	u->hdr[XRX_USTATS_RULES] = x->xdp.nrules;
	/* What the program and the sockets do without (logged once each). */
	u->hdr[XRX_USTATS_KERNEL_LACKS] = xrx_prog__lacks(x->xdp.prog);
	if (!x->conf->live.no_multi_buffer)
		u->hdr[XRX_USTATS_KERNEL_LACKS] |=
			xrx_kernel__lacks() & (1u << XRX_KERNEL_XSK_SG);
	if (!x->workers.live)
		u->hdr[XRX_USTATS_QUEUES] = 0;
	u->hdr[XRX_USTATS_UPDATED_NS] = xrxd_now_ns(CLOCK_REALTIME);
	if (x->stats.ustats_fd >= 0 && xrx_ustats_write(x->stats.ustats_fd, u))
		ctl_debug("%s: cannot write xrx_ustats: %s", x->ifname,
			  strerror(errno));
	stats_file_write(x, &st);
}

/*
 * STATUS= text: input rate, delivered rate, and how much aggregation
 * happens (frames per delivered packet; segments per aggregate).
 */
void xrxd_status(struct xrxd *x, char *buf, size_t len)
{
	const __u64 *e = x->stats.us.engine;
	__u64 now = xrxd_now_ns(CLOCK_MONOTONIC);
	double secs = x->stats.last_ns ?
			      (double)(now - x->stats.last_ns) / 1e9 : 0;
	double fps = 0, mbps = 0, ratio = 0, segs = 0;
	unsigned int stuck;
	__u64 age = 0;
	__u32 q = 0;
	int n;

	if (secs > 0) {
		fps = (double)(e[XRX_ENGINE_STAT_FRAMES_IN] -
			       x->stats.last_frames) / secs;
		mbps = (double)(e[XRX_ENGINE_STAT_BYTES_IN] -
				x->stats.last_bytes) * 8 / secs / 1e6;
	}
	if (e[XRX_ENGINE_STAT_PKTS_OUT])
		ratio = (double)e[XRX_ENGINE_STAT_FRAMES_IN] /
			(double)e[XRX_ENGINE_STAT_PKTS_OUT];
	if (e[XRX_ENGINE_STAT_AGGS_OUT])
		segs = (double)(e[XRX_ENGINE_STAT_AGGS_OUT] +
				e[XRX_ENGINE_STAT_SEGS_MERGED]) /
		       (double)e[XRX_ENGINE_STAT_AGGS_OUT];
	n = snprintf(buf, len,
		     "%s: %llu queue%s, %.0f frames/s, %.1f Mbit/s in; %.2f frames per packet, %.1f segments per aggregate",
		     x->ifname,
		     (unsigned long long)x->stats.us.hdr[XRX_USTATS_QUEUES],
		     x->stats.us.hdr[XRX_USTATS_QUEUES] == 1 ? "" : "s", fps, mbps,
		     ratio, segs);
	if (x->workers.degraded && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "; DEGRADED: no AF_XDP sockets (%s), traffic goes to the kernel, retrying",
			      strerror(-x->workers.bind_err));
	if (n > 0 && (size_t)n < len)
		n += xrxd_degraded_status(&x->health, buf + n, len - (size_t)n);
	stuck = xrxd_workers_stuck(x, &q, &age);
	if (stuck && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; STUCK: %u worker%s (queue %u for %.1f s), blocked in the sink?",
			 stuck, stuck == 1 ? "" : "s", q, (double)age / 1e9);
	x->stats.last_ns = now;
	x->stats.last_frames = e[XRX_ENGINE_STAT_FRAMES_IN];
	x->stats.last_bytes = e[XRX_ENGINE_STAT_BYTES_IN];
}

void xrxd_notify_status(struct xrxd *x)
{
	char status[256];

	xrxd_status(x, status, sizeof(status));
	sd_notifyf(0, "STATUS=%s", status);
}
