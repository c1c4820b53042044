// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's AF_XDP workers: one libxrx live handle on the pins of the program
 * xrxd attached (XRX_LIVE_ATTACH_NONE), its options from the config, and
 * what it counts (published by stats.c).
 *
 * A new sink, tee or new engine options are swapped in place
 * (xrx_live__reconfigure_opts()): sockets and UMEMs stay, each worker switches
 * between two batches. Only a change of the queue count, or an MTU the
 * frames no longer hold, reopens the sockets: xrx_live__stop() takes the
 * sockets out of xrx_xsks and delivers what they and the engines hold, so
 * nothing is lost, and the counters of the old handle are folded into
 * x->workers.base so xrx_ustats keeps counting up. A reopen that cannot bind
 * leaves xrxd degraded (restart.c retries).
 *
 * Every worker beats a heartbeat (xrx_live_queue_info.heartbeat_ns) each
 * time round its loop, at least every 100 ms; the main loop counts the
 * ones older than XRXD_STUCK_NS as stuck.
 */
#include <errno.h>
#include <grp.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "ctl_log.h"
#include "xrxd.h"

/* 20 times the longest a healthy worker stays away from its loop. */
#define XRXD_STUCK_NS 2000000000ull

/* "all": every RX queue the driver has now (combined + RX-only). */
unsigned int xrxd_queue_count(const struct xrx_conf *conf,
			      const struct xrx_nic *nic)
{
	unsigned int n;

	if (conf->queues)
		return conf->queues;
	n = nic->channels_err ? 1 : nic->ch_combined + nic->ch_rx;
	return n ? n : 1;
}

static void live_log(void *ctx, enum xrx_log_level level, const char *msg)
{
	ctl_log(level == XRX_LOG_WARN ? CTL_LOG_WARN :
		level == XRX_LOG_INFO ? CTL_LOG_INFO : CTL_LOG_DEBUG,
		"%s", msg);
}

static bool sink_differs(const struct xrx_conf *a, const struct xrx_conf *b)
{
	return strcmp(a->sink, b->sink) ||
	       !xrx_conf_opts_equal(a, b, XRX_OPT_SET_SINK);
}

/* The tee takes the sink options too (tun_ipv6_jumbo). */
static bool tee_differs(const struct xrx_conf *a, const struct xrx_conf *b)
{
	return strcmp(a->tee, b->tee) ||
	       (b->tee[0] &&
		!xrx_conf_opts_equal(a, b, XRX_OPT_SET_SINK));
}

/* "sink tun:x" or "sink tun:x, tee pcap:/y", for log lines. */
static void sinks_text(const struct xrx_conf *c, char *buf, size_t len)
{
	if (!c->tee[0])
		snprintf(buf, len, "sink %s", c->sink);
	else
		snprintf(buf, len, "sink %s, tee %s", c->sink, c->tee);
}

static bool engine_differs(const struct xrx_conf *a, const struct xrx_conf *b)
{
	return !xrx_conf_opts_equal(a, b, XRX_OPT_SET_ENGINE);
}

/* What only closing and reopening the sockets can change. */
bool xrxd_workers_need_reopen(const struct xrx_conf *a,
			      const struct xrx_conf *b)
{
	/* The live options (busy polling) are the sockets' (setsockopt at
	 * open). */
	return a->queues != b->queues ||
	       !xrx_conf_opts_equal(a, b, XRX_OPT_SET_LIVE);
}

/* What a swap in place changes (sink, tee, engine options). */
bool xrxd_workers_differ(const struct xrx_conf *a, const struct xrx_conf *b)
{
	return xrxd_outputs_differ(a, b) || engine_differs(a, b);
}

/* A new sink or tee: what the start's checks must see again. */
bool xrxd_outputs_differ(const struct xrx_conf *a, const struct xrx_conf *b)
{
	return sink_differs(a, b) || tee_differs(a, b);
}

/*
 * The running workers take @conf's sink and engine options in place.
 * Return: 0 (also with no workers: the next start uses @conf), or what
 * opening the new sink or engines failed with (nothing changed then).
 */
int xrxd_workers_swap(struct xrxd *x, const struct xrx_conf *conf)
{
	struct xrx_live_reconfigure_opts r = { .sz = sizeof(r) };
	struct xrx_engine_opts eng;
	char text[2 * PATH_MAX + 32];
	int err;

	if (!x->workers.live)
		return 0;
	sinks_text(conf, text, sizeof(text));
	/* The config holds the options as the library takes them. */
	if (sink_differs(x->conf, conf)) {
		r.sink = conf->sink;
		r.sink_opts = &conf->sink_opts;
	}
	if (tee_differs(x->conf, conf)) {
		r.tee = conf->tee[0] ? conf->tee : NULL;
		r.tee_opts = r.tee ? &conf->sink_opts : NULL;
		r.no_tee = !r.tee;
	}
	if (engine_differs(x->conf, conf)) {
		xrxd_engine_opts(x, conf, &eng);
		r.engine = &eng;
	}
	err = xrx_live__reconfigure_opts(x->workers.live, &r);
	if (err) {
		ctl_err("%s: cannot switch the workers to %s: %s; still running the previous sink, tee and engine settings",
			x->ifname, text, strerror(-err));
		return err;
	}
	x->stats.us.hdr[XRX_USTATS_LIVE_SWAPS]++;
	if (r.sink || r.tee || r.no_tee)
		ctl_notice("%s: workers switched in place to %s (sockets and UMEMs kept; held aggregates went to the old sink first)",
			   x->ifname, text);
	else
		ctl_notice("%s: engines switched in place to the new engine options, %s kept (sockets and UMEMs kept; held aggregates were delivered first)",
			   x->ifname, text);
	return 0;
}

/*
 * Can the open sockets take frames of @mtu? Multi-buffer sockets take
 * any (up to the jumbo size the engines are sized for); others as much
 * as one chunk holds after the kernel's XDP_PACKET_HEADROOM, with room
 * for two VLAN tags (xsk_rcv_check() drops longer ones).
 */
bool xrxd_workers_cover_mtu(struct xrxd *x, unsigned int mtu)
{
	struct xrx_live_queue_info qi;
	__u32 i;

	if (!x->workers.live)
		return false;
	for (i = 0; i < x->workers.nr_queues; i++) {
		if (xrx_live__queue_info(x->workers.live, i, &qi))
			return false;
		if (qi.multi_buffer ? mtu + 22 > 9216 :
				      mtu + 22 > qi.frame_size - 256)
			return false;
	}
	return true;
}

/* Workers whose heartbeat is older than XRXD_STUCK_NS; the first in *q. */
unsigned int xrxd_workers_stuck(struct xrxd *x, __u32 *first,
				__u64 *age_ns)
{
	struct xrx_live_queue_info qi;
	__u64 now = xrxd_now_ns(CLOCK_MONOTONIC);
	unsigned int n = 0;
	__u32 i;

	for (i = 0; x->workers.live && i < x->workers.nr_queues; i++) {
		if (xrx_live__queue_info(x->workers.live, i, &qi) ||
		    !qi.heartbeat_ns ||
		    now < qi.heartbeat_ns + XRXD_STUCK_NS)
			continue;
		if (!n++) {
			*first = qi.queue;
			*age_ns = now - qi.heartbeat_ns;
		}
	}
	return n;
}

int xrxd_workers_start(struct xrxd *x, const struct xrx_conf *conf)
{
	/* The config's live options (include/xrx/options.h), and xrxd's. */
	struct xrx_live_opts lo = conf->live;
	struct xrx_engine_opts eng;
	struct xrx_live_queue_info qi;
	char text[2 * PATH_MAX + 32];
	unsigned int zc = 0, mb = 0;
	__u32 i;
	int err;

	lo.sz = sizeof(lo);
	lo.nr_queues = x->workers.nr_queues;
	lo.attach = XRX_LIVE_ATTACH_NONE;
	lo.pin_root = x->o->pin_root;
	lo.log = live_log;
	lo.bind_busy_ms = x->workers.bind_busy_ms;
	lo.sink = conf->sink;
	if (conf->tee[0])
		lo.tee = conf->tee;
	sinks_text(conf, text, sizeof(text));
	lo.sink_opts = &conf->sink_opts;
	lo.tee_opts = &conf->sink_opts;
	xrxd_engine_opts(x, conf, &eng);
	lo.engine = &eng;

	x->workers.live = xrx_live__open(x->ifname, &lo);
	if (!x->workers.live) {
		err = -errno;
		/* xdp_umem_reg() charges the UMEM to RLIMIT_MEMLOCK unless
		 * CAP_IPC_LOCK (xdp_umem_account_pages()): ENOBUFS. */
		ctl_err("%s: cannot open the AF_XDP workers (%u queue%s, %s): %s%s",
			x->ifname, x->workers.nr_queues, x->workers.nr_queues == 1 ? "" : "s",
			text, strerror(-err),
			err == -ENOBUFS || err == -ENOMEM ?
			"; the UMEMs do not fit the locked-memory limit: give xrxd CAP_IPC_LOCK or LimitMEMLOCK=infinity (ulimit -l)" : "");
		return err;
	}
	err = xrx_live__start(x->workers.live);
	if (err) {
		ctl_err("%s: cannot start the worker threads: %s", x->ifname,
			strerror(-err));
		xrx_live__close(x->workers.live);
		x->workers.live = NULL;
		return err;
	}
	for (i = 0; i < x->workers.nr_queues; i++) {
		if (xrx_live__queue_info(x->workers.live, i, &qi))
			continue;
		zc += qi.zerocopy;
		mb += qi.multi_buffer;
	}
	x->stats.us.hdr[XRX_USTATS_QUEUES] = x->workers.nr_queues;
	x->stats.us.hdr[XRX_USTATS_FIRST_QUEUE] = 0;
	x->stats.us.hdr[XRX_USTATS_ZEROCOPY_QUEUES] = zc;
	x->stats.us.hdr[XRX_USTATS_MULTI_BUFFER_QUEUES] = mb;
	ctl_notice("%s: %u worker%s on queues 0-%u (%s), %s", x->ifname,
		   x->workers.nr_queues, x->workers.nr_queues == 1 ? "" : "s", x->workers.nr_queues - 1,
		   zc == x->workers.nr_queues ? "zero-copy" : zc ? "partly zero-copy" : "copy mode",
		   text);
	return 0;
}

/* Fold a finished handle's counters into the base (gauges excepted). */
static void add_base(struct xrxd *x, const struct xrx_live_stats *st)
{
	int i;

	for (i = 0; i < XRX_LIVE_STAT_MAX; i++)
		if (!xrx_ustats_is_gauge(XRX_USTATS_G_LIVE, (unsigned int)i))
			x->workers.base.live[i] += st->live[i];
	for (i = 0; i < XRX_ENGINE_STAT_MAX; i++)
		x->workers.base.engine[i] += st->engine[i];
	for (i = 0; i < XRX_SINK_STAT_MAX; i++) {
		x->workers.base.sink[i] += st->sink[i];
		x->workers.base.tee[i] += st->tee[i];
	}
}

bool xrxd_workers_stop(struct xrxd *x)
{
	struct xrx_live_stats st;

	if (!x->workers.live)
		return false;
	/* Stop first: held aggregates go to the sink, counters are final. */
	xrx_live__stop(x->workers.live);
	if (!xrx_live__stats(x->workers.live, -1, &st))
		add_base(x, &st);
	xrx_live__close(x->workers.live);
	x->workers.live = NULL;
	return true;
}
