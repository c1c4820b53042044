// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The outcome of each reload, for `xrxctl reload` to wait for and
 * `xrxctl status` to show (ctl_reload.h): written after READY=1, so
 * that by the time xrxctl returns to systemd's ExecReload=, the
 * notification that ends the reload is already on its way. An outcome
 * left by an earlier xrxd is removed at start, this one's at stop.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_unit.h"
#include "ctl_reload.h"
#include "xrxd.h"

/*
 * A reload that succeeded while xrxd is degraded: the new rules are in
 * place, but, e.g., nothing reaches them while xrx_rx is detached. The
 * outcome is ok, and its reason says what still stands in the way, so
 * that `xrxctl reload` does not report a plain success.
 */
static void degraded_note(const struct xrxd *x, char *buf, size_t len)
{
	__u32 mask = xrxd_degraded_mask(x);
	size_t n = 0;
	int r, k;

	buf[0] = '\0';
	for (r = 0; r < XRX_DEGRADED_MAX && n < len; r++) {
		if (!(mask & (1u << r)))
			continue;
		k = snprintf(buf + n, len - n, "%s%s",
			     n ? "; " : "xrxd is still DEGRADED: ",
			     xrx_degraded__desc(r));
		if (k < 0)
			break;
		n += (size_t)k;
	}
}

void xrxd_reload_record(struct xrxd *x, __u64 started_mono_ns, int ret,
			const char *reason)
{
	struct xrx_reload r;
	char err[PATH_MAX + 128];

	memset(&r, 0, sizeof(r));
	r.pid = getpid();
	r.generation = ++x->reload.reload_gen;
	r.started_mono_ns = started_mono_ns;
	r.finished_ns = xrxd_now_ns(CLOCK_REALTIME);
	r.ok = !ret;
	if (ret)
		snprintf(r.reason, sizeof(r.reason), "%s",
			 reason[0] ? reason : "the reload failed (see the log)");
	else
		degraded_note(x, r.reason, sizeof(r.reason));
	if (xrx_reload_write(x->o->statedir, x->ifname, &r, err, sizeof(err)))
		ctl_warn("%s: cannot record the reload's outcome for xrxctl: %s",
			 x->ifname, err);
}

void xrxd_reload_forget(struct xrxd *x)
{
	xrx_reload_remove(x->o->statedir, x->ifname);
}

/*
 * Offloads were decided at start, when no rule accelerated: if the NIC
 * strips VLAN tags that xrx_rx cannot read, only a restart can keep them
 * in the frame (xrxd_vlan_policy()).
 */
static void reload_vlan_check(struct xrxd *x)
{
	const struct xrx_nic_feature *f;
	struct xrx_nic *nic;

	if (x->xdp.tags_readable)
		return;
	nic = malloc(sizeof(*nic));
	if (!nic || xrxd_read_nic(x, nic)) {
		free(nic);
		return;
	}
	f = xrx_nic_feature(nic, "rx-vlan-hw-parse");
	if (f && f->active)
		ctl_warn("%s: reload: traffic is accelerated now, but rx-vlan-hw-parse is on and xrx_rx cannot read the VLAN tags it strips, so flows that differ only by VLAN are merged; restart xrxd so it turns the feature off",
			 x->ifname);
	free(nic);
}

/* What a reload must do: the keys that changed, by their class. */
struct reload_plan {
	bool refuse;		/* a REFUSE key changed */
	bool reopen;		/* a REOPEN key changed */
	char restart[256];	/* the RESTART keys that changed, for the log */
};

/*
 * Walk every key (XRX_CONF_KEYS, the options, the offloads): each change
 * is acted on by its key's reload class, so that none goes unsaid.
 */
static void reload_plan(const struct xrx_conf *old, const struct xrx_conf *fresh,
			struct reload_plan *pl)
{
	unsigned int k, n = 0;
	char name[64];

	memset(pl, 0, sizeof(*pl));
	for (k = 0; k < xrx_conf_key_max(); k++) {
		if (!xrx_conf_key_name(k, name, sizeof(name)) ||
		    !xrx_conf_key_differs(old, fresh, k))
			continue;
		switch (xrx_conf_key_reload(k)) {
		case XRX_RELOAD_IN_PLACE:
			break;		/* the rules are applied every reload */
		case XRX_RELOAD_REOPEN:
			pl->reopen = true;
			break;
		case XRX_RELOAD_RESTART:
			if (n < sizeof(pl->restart))
				n += (size_t)snprintf(pl->restart + n,
						      sizeof(pl->restart) - n,
						      "%s%s", n ? ", " : "", name);
			break;
		case XRX_RELOAD_REFUSE:
			pl->refuse = true;
			break;
		}
	}
}

/*
 * SIGHUP: rules in place, workers only if their settings changed. A bad
 * config keeps the running one. Offload and attach changes need a restart.
 * Return: 0 when @fresh runs now, else nonzero (the old one runs on).
 */
static int reload_config(struct xrxd *x, struct xrx_conf *fresh)
{
	struct reload_plan pl;
	char err[2 * PATH_MAX];
	int ret;

	if (xrxd_config_load(x->o, fresh)) {
		ctl_err("%s: reload failed; still running the previous configuration",
			x->ifname);
		return -EINVAL;
	}
	reload_plan(x->conf, fresh, &pl);
	if (pl.refuse) {
		char unit[80];

		ctl_err("%s: %s now names interface %s; reload refused (start %s for it)",
			x->ifname, fresh->file, fresh->ifname,
			xrx_unit_name(fresh->ifname, unit, sizeof(unit)));
		return -EINVAL;
	}
	/* Before anything changes: what the checks at start would say. */
	if (xrxd_outputs_differ(x->conf, fresh) &&
	    xrxd_sink_check(fresh, true, err, sizeof(err))) {
		ctl_err("%s: reload failed: %s; still running the previous configuration",
			x->ifname, err);
		return -EINVAL;
	}
	if (xrxd_rules_apply(x, fresh)) {
		ctl_err("%s: reload: rules not fully applied; restoring the previous ones",
			x->ifname);
		xrxd_rules_apply(x, x->conf);
		return -EIO;
	}
	/*
	 * A key the swap in place does not cover (xrxd_workers_differ())
	 * is taken by reopening the sockets, which opens everything anew.
	 */
	if (xrxd_workers_need_reopen(x->conf, fresh) ||
	    (pl.reopen && !xrxd_workers_differ(x->conf, fresh))) {
		ctl_notice("%s: the queue count or the busy-poll settings changed; reopening the AF_XDP sockets (what they and the engines hold is delivered first)",
			   x->ifname);
		ret = xrxd_restart_workers(x, fresh);
		if (ret) {
			/* The workers run the old settings: so do the rules. */
			ctl_err("%s: reload failed: the new queues did not start; still running the previous configuration",
				x->ifname);
			xrxd_rules_apply(x, x->conf);
			return ret;
		}
	} else if (pl.reopen) {
		ret = xrxd_workers_swap(x, fresh);
		if (ret) {
			/* The workers run the old settings: so do the rules. */
			ctl_err("%s: reload failed: the new sink or engine settings did not start; still running the previous configuration",
				x->ifname);
			xrxd_rules_apply(x, x->conf);
			return ret;
		}
	}
	if (pl.restart[0])
		ctl_notice("%s: %s changes take effect when xrxd restarts",
			   x->ifname, pl.restart);
	if (!x->conf->nrules && x->conf->default_action != XRX_ACT_ACCEL &&
	    (fresh->nrules || fresh->default_action == XRX_ACT_ACCEL))
		reload_vlan_check(x);
	memcpy(x->conf, fresh, sizeof(*fresh));
	xrxd_consuming_note(x, x->conf);
	x->stats.us.hdr[XRX_USTATS_RELOADS]++;
	ctl_notice("%s: %s reloaded", x->ifname, x->conf->file);
	return 0;
}

/*
 * SIGHUP, between RELOADING=1 and READY=1; the outcome, with the first
 * error line it logged as the reason, goes to xrxctl (reload.c).
 */
int xrxd_reload(struct xrxd *x)
{
	char reason[XRX_RELOAD_REASON_MAX];
	__u64 started = xrxd_now_ns(CLOCK_MONOTONIC);
	struct xrx_conf *fresh;
	int ret = -ENOMEM;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)(started / 1000));
	ctl_log_capture(reason, sizeof(reason));
	fresh = malloc(sizeof(*fresh));
	if (fresh)
		ret = reload_config(x, fresh);
	else
		ctl_err("%s: reload failed: out of memory", x->ifname);
	ctl_log_capture(NULL, 0);
	free(fresh);
	xrxd_stats_refresh(x);
	sd_notify(0, "READY=1");
	xrxd_notify_status(x);
	xrxd_reload_record(x, started, ret, reason);
	return ret;
}
