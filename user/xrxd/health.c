// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What xrxd watches so that it never says "ok" while it is not, and
 * what it says about a configuration that takes traffic from the host.
 *
 * Degraded reasons (XRX_DEGRADED_TABLE in ctl_ustats.h): one bit each in
 * the degraded_reasons gauge of xrx_ustats, the degraded gauge 1 while
 * any is set, a "; DEGRADED: ..." part of STATUS= each, and a line of
 * `xrxctl status`. A failed bind is the oldest of them and keeps its own
 * flag and retry (x->workers.degraded, restart.c); any other part of
 * xrxd reports its trouble with xrxd_degraded_set() and its end with
 * xrxd_degraded_clear().
 *
 * The program: someone may detach xrx_rx (xdp-loader unload, ip link set
 * dev X xdp off) or put another program in its place. xrxd attaches
 * nothing again by itself: an unload is an operator's decision that a
 * daemon must not undo behind their back, and a foreign program is
 * someone else's, never replaced. It says so, once, and is degraded
 * until xrx_rx is back (re-attached from its pin) or xrxd restarts. It
 * looks when a link event carries IFLA_XDP (do_setlink() notifies every
 * XDP change made over netlink) and once a second, for changes that no
 * event announces (a bpf_link).
 *
 * The sink and the tee beside it: packets lost to write errors are an
 * episode, from the first second with new errors to the first second
 * that delivers with none.
 * Its start is logged (at most once a minute; the episodes in between
 * are counted in the next line), a reminder at most once a minute while
 * it lasts, its end once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>

#include <bpf/libbpf.h>

#include "ctl_log.h"
#include "ctl_pins.h"
#include "xrxd.h"

#define SINK_LOG_GAP_NS 60000000000ull

bool xrxd_degraded_set(struct xrxd_health *h, enum xrx_degraded_reason r,
		       const char *fmt, ...)
{
	bool was = h->degraded_why & (1u << r);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->degraded_text[r], sizeof(h->degraded_text[r]), fmt, ap);
	va_end(ap);
	h->degraded_why |= 1u << r;
	return !was;
}

bool xrxd_degraded_clear(struct xrxd_health *h, enum xrx_degraded_reason r)
{
	bool was = h->degraded_why & (1u << r);

	h->degraded_why &= ~(1u << r);
	return was;
}

__u32 xrxd_degraded_mask(const struct xrxd *x)
{
	return x->health.degraded_why |
	       (x->workers.degraded ? 1u << XRX_DEGRADED_NO_SOCKETS : 0);
}

int xrxd_degraded_status(const struct xrxd_health *h, char *buf, size_t len)
{
	size_t n = 0;
	int r, k;

	for (r = 0; r < XRX_DEGRADED_MAX && n < len; r++) {
		if (r == XRX_DEGRADED_NO_SOCKETS || !(h->degraded_why & (1u << r)))
			continue;
		k = snprintf(buf + n, len - n, "; DEGRADED: %s",
			     h->degraded_text[r]);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	return (int)(n < len ? n : len ? len - 1 : 0);
}

void xrxd_prog_watch(struct xrxd *x)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 ours = xrx_prog__id(x->xdp.prog), now;
	char name[IF_NAMESIZE];

	x->xdp.xdp_event = false;
	/* A failed query is a link going away: linkmon.c says so. */
	if (!ours || bpf_xdp_query(x->link.ifindex, 0, &q))
		return;
	now = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id :
	      q.skb_prog_id ? q.skb_prog_id : q.hw_prog_id;
	if (x->xdp.xdp_looked && now == x->xdp.xdp_seen_id)
		return;
	/* An interface being removed is unlisted before its program goes
	 * (unregister_netdevice_many_notify(): unlist_netdevice(), then
	 * dev_xdp_uninstall()): no program on a name that no longer
	 * resolves is the removal, which serve() handles, not a detach. */
	if (!xrx_xdp_attached_flags(&q, ours) &&
	    !if_indextoname((unsigned int)x->link.ifindex, name))
		return;
	x->xdp.xdp_looked = true;
	x->xdp.xdp_seen_id = now;
	if (xrx_xdp_attached_flags(&q, ours) ||
	    (now && xrx_xdp_behind_dispatcher(x->link.ifindex, ours))) {
		if (xrxd_degraded_clear(&x->health, XRX_DEGRADED_PROG_DETACHED) |
		    xrxd_degraded_clear(&x->health, XRX_DEGRADED_PROG_REPLACED))
			ctl_notice("%s: xrx_rx (id %u) is attached again; no longer degraded",
				   x->ifname, ours);
		return;
	}
	if (!now) {
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_PROG_REPLACED);
		if (xrxd_degraded_set(&x->health, XRX_DEGRADED_PROG_DETACHED,
				      "xrx_rx (id %u) was detached by someone else, nothing is accelerated; restart xrxd to attach it",
				      ours))
			ctl_err("%s: DEGRADED: xrx_rx (id %u) was detached by someone else (xdp-loader unload, ip link set dev %s xdp off?): nothing is accelerated. xrxd does not undo an unload by itself: restart xrxd to attach it again, or stop xrxd",
				x->ifname, ours, x->ifname);
		return;
	}
	xrxd_degraded_clear(&x->health, XRX_DEGRADED_PROG_DETACHED);
	xrxd_degraded_set(&x->health, XRX_DEGRADED_PROG_REPLACED,
			  "XDP program id %u replaced xrx_rx (id %u), nothing reaches xrxd; xrxd leaves it alone",
			  now, ours);
	/* Logged for each new foreign program, once. */
	ctl_err("%s: DEGRADED: XDP program id %u replaced xrx_rx (id %u): nothing reaches xrxd. xrxd leaves that program alone: detach it and restart xrxd, or stop xrxd",
		x->ifname, now, ours);
}

static __u64 grew(__u64 now, __u64 before)
{
	return now > before ? now - before : 0;
}

/* The sink's and the tee's counter @st, together. */
static __u64 both(const struct xrxd *x, enum xrx_sink_stat st)
{
	return x->stats.us.sink[st] + x->stats.us.tee[st];
}

bool xrxd_sink_watch(struct xrxd *x)
{
	__u64 errs = grew(both(x, XRX_SINK_STAT_ERRORS), x->health.sink_errors);
	__u64 full = grew(both(x, XRX_SINK_STAT_NOSPACE),
			  x->health.sink_nospace);
	__u64 out = grew(both(x, XRX_SINK_STAT_PKTS_OUT), x->health.sink_out);
	bool tee = x->stats.us.tee[XRX_SINK_STAT_ERRORS] > x->health.tee_errors;
	__u64 now = xrxd_now_ns(CLOCK_MONOTONIC);
	/* A tee's losses are the capture's, not the sink's: reasons of
	 * their own, so that status does not say delivery lost packets. */
	enum xrx_degraded_reason r, r_full = tee ? XRX_DEGRADED_TEE_FULL :
						   XRX_DEGRADED_SINK_FULL,
				    r_err = tee ? XRX_DEGRADED_TEE_ERRORS :
						  XRX_DEGRADED_SINK_ERRORS;
	const __u32 any = 1u << XRX_DEGRADED_SINK_FULL |
			  1u << XRX_DEGRADED_SINK_ERRORS |
			  1u << XRX_DEGRADED_TEE_FULL |
			  1u << XRX_DEGRADED_TEE_ERRORS;
	char name[PATH_MAX + 16];
	bool started;

	x->health.sink_errors = both(x, XRX_SINK_STAT_ERRORS);
	x->health.sink_nospace = both(x, XRX_SINK_STAT_NOSPACE);
	x->health.sink_out = both(x, XRX_SINK_STAT_PKTS_OUT);
	x->health.tee_errors = x->stats.us.tee[XRX_SINK_STAT_ERRORS];
	/* Named after the one that fails now (a pcap tee beside a TUN). */
	snprintf(name, sizeof(name), "%s %s", tee ? "tee" : "sink",
		 tee ? x->conf->tee : x->conf->sink);
	if (!errs) {
		if (!out || !(x->health.degraded_why & any))
			return false;
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_SINK_FULL);
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_SINK_ERRORS);
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_TEE_FULL);
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_TEE_ERRORS);
		if (x->health.sink_episode_logged)
			ctl_notice("%s: %s writes again; %llu packet%s lost while it could not; no longer degraded",
				   x->ifname, name,
				   (unsigned long long)x->health.sink_lost,
				   x->health.sink_lost == 1 ? "" : "s");
		return true;
	}
	r = full ? r_full : r_err;
	started = !(x->health.degraded_why & any);
	if (started)
		x->health.sink_lost = 0;
	x->health.sink_lost += errs;
	x->health.degraded_why &= ~any;
	xrxd_degraded_set(&x->health, r, "%s %s, %llu packets lost so far", name,
			  r == r_full ?
				  "has no space left on its file system" :
				  "cannot write",
			  (unsigned long long)x->health.sink_lost);
	if (started) {
		/* The live path logs a tee's losses itself, per queue. */
		x->health.sink_episode_logged =
			!tee && (!x->health.sink_logged_ns ||
				 now - x->health.sink_logged_ns >=
					 SINK_LOG_GAP_NS);
		if (tee)
			return true;
		if (!x->health.sink_episode_logged) {
			x->health.sink_quiet++;
			return true;
		}
		ctl_err("%s: DEGRADED: %s %s: %llu packet%s lost (never a torn record); xrxd goes on and recovers when writes succeed%s",
			x->ifname, name,
			r == r_full ?
				"has no space left on its file system (ENOSPC)" :
				"fails to write (xrxctl stats: sink.errors)",
			(unsigned long long)errs, errs == 1 ? "" : "s",
			r == r_full ? " (free space, or bound the capture: size=, files=)" : "");
		if (x->health.sink_quiet)
			ctl_warn("%s: and %u earlier episode%s of lost writes in the last minute, not logged",
				 x->ifname, x->health.sink_quiet, x->health.sink_quiet == 1 ? "" : "s");
		x->health.sink_quiet = 0;
		x->health.sink_logged_ns = now;
		x->health.sink_reminded_ns = now;
		return true;
	}
	if (x->health.sink_episode_logged &&
	    now - x->health.sink_reminded_ns >= SINK_LOG_GAP_NS) {
		x->health.sink_reminded_ns = now;
		ctl_warn("%s: still DEGRADED: %s: %llu packets lost so far",
			 x->ifname, name,
			 (unsigned long long)x->health.sink_lost);
	}
	return false;
}

/*
 * A sink that consumes (XRX_SINK_F_CONSUMES: pcap, null) takes what the rules accelerate away
 * from the host stack: a service on an accelerated port, a VXLAN device
 * on an accelerated UDP port, no longer get their frames. Said once at
 * start and again when a reload changes the rules or the sink.
 */
void xrxd_consuming_note(struct xrxd *x, const struct xrx_conf *conf)
{
	char text[sizeof(x->health.consuming_said)], rule[96];
	char name[sizeof(x->health.consuming_sink)];
	const struct xrx_sink_ops *ops = xrx_sink__kind(conf->sink);
	bool consuming = ops && (ops->flags & XRX_SINK_F_CONSUMES);
	size_t n = 0;
	unsigned int i;

	text[0] = '\0';
	if (consuming && conf->default_action == XRX_ACT_ACCEL)
		snprintf(text, sizeof(text), "all TCP and UDP traffic (default = accel)");
	else if (consuming && conf->nrules)
		n = (size_t)snprintf(text, sizeof(text), "rules");
	for (i = 0; n && i < conf->nrules; i++) {
		if (xrx_rule_format(&conf->rules[i], rule, sizeof(rule)))
			continue;
		if (n + strlen(rule) + 8 >= sizeof(text)) {
			snprintf(text + n, sizeof(text) - n, ", ...");
			break;
		}
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s %s",
				      i ? "," : "", rule);
	}
	snprintf(name, sizeof(name), "%s", conf->sink);
	if (!strcmp(text, x->health.consuming_said) &&
	    (!text[0] || !strcmp(name, x->health.consuming_sink)))
		return;
	snprintf(x->health.consuming_said, sizeof(x->health.consuming_said), "%s", text);
	snprintf(x->health.consuming_sink, sizeof(x->health.consuming_sink), "%s", name);
	if (!text[0])
		return;
	ctl_warn("%s: %s deliver to %s only: the host stack will not see these frames (sink = %s; sink = tun:NAME delivers them to the stack, tee = pcap:PATH keeps a copy)",
		 x->ifname, text, ops->name, name);
}
