// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl stats --losses IFACE: where the frames the NIC received went, in
 * one ledger, layer by layer, in frames (an aggregate written counts as
 * its segments):
 *
 *   received  = the driver's rx_packets + rx_missed_errors (IFLA_STATS64
 *               over rtnetlink, what ip -s link shows). rx_dropped is
 *               shown but not summed: drivers count in it what XDP did
 *               with a frame they already counted in rx_packets (veth: a
 *               redirect the socket refused, which XDP_STATISTICS counts
 *               too), so adding it would count those frames twice.
 *   written   = the sink's segs_out
 *   rows      = the NIC's drops and misses; what xrx_rx passed to the
 *               stack (not captured, by the rules); the AF_XDP socket's
 *               RX ring full and other drops (XDP_STATISTICS); the
 *               engine's drops; the sink's filtered and lost segments
 *   remainder = received - written - rows, shown, never hidden: frames
 *               in flight (held by the engine, queued), a driver that
 *               counts its drops inside rx_packets or not at all, or
 *               counters reset by a restart of xrxd while the driver's
 *               went on.
 *
 * The tee's losses are its own capture's and not in the sum; they are
 * shown below it. The fill ring's empty events are shown too but not
 * summed: in copy mode each is also an rx_dropped of the socket. A slow
 * sink overflows the socket either way: the worker, blocked, neither
 * takes from the RX ring nor gives frames back to the fill ring, and
 * whichever runs out first (in copy mode: the fill ring, as the frames
 * the RX ring holds are all of the UMEM's) counts the drops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "ctl_nl.h"
#include "ctl_ustats.h"
#include "xrxctl.h"

struct ledger_row {
	const char *layer, *name, *desc;
	__s64 v;
};

#define LEDGER_ROWS 8

struct ledger {
	__u64 received, written;
	__s64 remainder;
	struct ledger_row rows[LEDGER_ROWS];
	int nr;
	__u64 nic_dropped, fill_empty, tee_filtered, tee_lost;
};

static void row(struct ledger *l, const char *layer, const char *name,
		const char *desc, __s64 v)
{
	l->rows[l->nr++] = (struct ledger_row){ layer, name, desc, v };
}

static void ledger_build(struct ledger *l, const struct rtnl_link_stats64 *st,
			 const struct xrx_ustats *u,
			 const struct xrx_counter *k)
{
	const __u64 *lv = u->live, *e = u->engine, *s = u->sink, *t = u->tee;
	__s64 sum = 0;
	int i;

	memset(l, 0, sizeof(*l));
	l->received = st->rx_packets + st->rx_missed_errors;
	l->nic_dropped = st->rx_dropped;
	l->written = s[XRX_SINK_STAT_SEGS_OUT];
	row(l, "nic", "rx_missed", "the NIC had no room (rx_missed_errors)",
	    (__s64)st->rx_missed_errors);
	row(l, "xdp", "passed",
	    "xrx_rx passed to the stack: not accelerated (rules, not IP, ...)",
	    (__s64)(k[XRX_STAT_RX].packets - k[XRX_STAT_REDIRECT].packets));
	row(l, "af_xdp", "rx_ring_full",
	    "redirected, but the socket's RX ring was full (XDP_STATISTICS)",
	    (__s64)lv[XRX_LIVE_STAT_XSK_RX_RING_FULL]);
	row(l, "af_xdp", "rx_dropped",
	    "redirected, but no fill-ring buffer or too long (XDP_STATISTICS)",
	    (__s64)lv[XRX_LIVE_STAT_XSK_RX_DROPPED]);
	row(l, "engine", "dropped",
	    "dropped by the engine (no buffer, bad frame, broken chain)",
	    (__s64)(e[XRX_ENGINE_STAT_DROP_NO_BUFFER] +
		    e[XRX_ENGINE_STAT_DROP_BAD_FRAME] +
		    lv[XRX_LIVE_STAT_RX_CHAIN_DROPS]));
	row(l, "sink", "filtered", "left out by the sink's filter= (no loss)",
	    (__s64)s[XRX_SINK_STAT_SEGS_FILTERED]);
	row(l, "sink", "lost",
	    "given to the sink, not written (write errors, full disk, dropped)",
	    (__s64)(s[XRX_SINK_STAT_SEGS_IN] - s[XRX_SINK_STAT_SEGS_OUT] -
		    s[XRX_SINK_STAT_SEGS_FILTERED]));
	for (i = 0; i < l->nr; i++)
		sum += l->rows[i].v;
	l->remainder = (__s64)(l->received - l->written) - sum;
	l->fill_empty = lv[XRX_LIVE_STAT_XSK_FILL_EMPTY];
	l->tee_filtered = t[XRX_SINK_STAT_SEGS_FILTERED];
	l->tee_lost = t[XRX_SINK_STAT_SEGS_IN] - t[XRX_SINK_STAT_SEGS_OUT] -
		      t[XRX_SINK_STAT_SEGS_FILTERED];
}

static void ledger_text(const char *ifname, const struct ledger *l)
{
	int i;

	printf("%s: where the frames the NIC received went\n", ifname);
	printf("  %-8s %-14s %16llu\n", "nic", "received",
	       (unsigned long long)l->received);
	for (i = 0; i < l->nr; i++)
		printf("  %-8s %-14s %16lld  %s\n", l->rows[i].layer,
		       l->rows[i].name, (long long)l->rows[i].v,
		       l->rows[i].desc);
	printf("  %-8s %-14s %16lld  %s\n", "", "remainder",
	       (long long)l->remainder,
	       "uncounted: in flight, or counted by no layer");
	printf("  %-8s %-14s %16llu  %s\n", "sink", "written",
	       (unsigned long long)l->written,
	       "frames in the records written");
	printf("  rows + remainder = received - written = %lld\n",
	       (long long)(l->received - l->written));
	printf("  not summed: nic rx_dropped %llu (counted within rx_packets by some drivers, e.g. XDP's drops), af_xdp fill_empty %llu (events; copy mode counts them in rx_dropped), tee filtered %llu, tee lost %llu\n",
	       (unsigned long long)l->nic_dropped,
	       (unsigned long long)l->fill_empty,
	       (unsigned long long)l->tee_filtered,
	       (unsigned long long)l->tee_lost);
}

static void ledger_json(const char *ifname, const struct ledger *l)
{
	int i;

	printf("{\"interface\":\"");
	xrxctl_json_str(ifname);
	printf("\",\"received\":%llu,\"written\":%llu,\"rows\":[",
	       (unsigned long long)l->received,
	       (unsigned long long)l->written);
	for (i = 0; i < l->nr; i++)
		printf("%s{\"layer\":\"%s\",\"name\":\"%s\",\"frames\":%lld}",
		       i ? "," : "", l->rows[i].layer, l->rows[i].name,
		       (long long)l->rows[i].v);
	printf("],\"remainder\":%lld,\"not_summed\":{\"nic_rx_dropped\":%llu,\"af_xdp_fill_empty\":%llu,\"tee_filtered\":%llu,\"tee_lost\":%llu}}\n",
	       (long long)l->remainder, (unsigned long long)l->nic_dropped,
	       (unsigned long long)l->fill_empty,
	       (unsigned long long)l->tee_filtered,
	       (unsigned long long)l->tee_lost);
}

static void ledger_prom(const char *ifname, const struct ledger *l)
{
	int i;

	printf("# HELP xrx_ledger_received_frames_total frames the NIC received (rx_packets + rx_missed_errors)\n# TYPE xrx_ledger_received_frames_total counter\n");
	printf("xrx_ledger_received_frames_total{interface=\"%s\"} %llu\n",
	       ifname, (unsigned long long)l->received);
	printf("# HELP xrx_ledger_written_frames_total frames in the records the sink wrote\n# TYPE xrx_ledger_written_frames_total counter\n");
	printf("xrx_ledger_written_frames_total{interface=\"%s\"} %llu\n",
	       ifname, (unsigned long long)l->written);
	printf("# HELP xrx_ledger_frames where received frames that were not written went, by layer\n# TYPE xrx_ledger_frames gauge\n");
	for (i = 0; i < l->nr; i++)
		printf("xrx_ledger_frames{interface=\"%s\",layer=\"%s\",row=\"%s\"} %lld\n",
		       ifname, l->rows[i].layer, l->rows[i].name,
		       (long long)l->rows[i].v);
	printf("xrx_ledger_frames{interface=\"%s\",layer=\"\",row=\"remainder\"} %lld\n",
	       ifname, (long long)l->remainder);
}

int xrxctl_losses(const struct ctx *ctx, const char *ifname, int fmt)
{
	struct xrx_counter k[XRX_STAT_MAX];
	struct rtnl_link_stats64 st;
	struct xrx_ustats u;
	struct xrx_nl *nl;
	struct ledger l;
	bool have_u, have_k;
	char err[256];
	int ret;

	ret = xrxctl_read(ctx, ifname, &u, &have_u, k, &have_k);
	if (ret)
		return 1;
	if (!have_u || !have_k) {
		fprintf(stderr, "xrxctl: no xrxd counters for %s; start xrxd on it first\n",
			ifname);
		return 1;
	}
	ret = xrx_nl_open(&nl, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "xrxctl: %s\n", err);
		return 1;
	}
	ret = xrx_nl_link_stats(nl, ifname, &st);
	xrx_nl_close(nl);
	if (ret) {
		fprintf(stderr, "xrxctl: %s: cannot read the driver's counters: %s; run xrxctl in the interface's network namespace\n",
			ifname, strerror(-ret));
		return 1;
	}
	ledger_build(&l, &st, &u, k);
	if (fmt == 1)
		ledger_json(ifname, &l);
	else if (fmt == 2)
		ledger_prom(ifname, &l);
	else
		ledger_text(ifname, &l);
	return 0;
}
