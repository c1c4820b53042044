// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's start, step by step, and its stop: each step takes something
 * (the lock, netlink, the NIC's settings, xrx_rx, the workers) and
 * run_unwind() gives back exactly what was taken, last first, on every
 * way out. See main.c for the order and why.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <linux/capability.h>
#include <systemd/sd-daemon.h>

#include "ctl_conf.h"
#include "ctl_lock.h"
#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_pins.h"
#include "ctl_state.h"
#include "xrxd.h"

#define UNIT_CAPS "CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON"

/*
 * The capabilities the unit grants, checked up front so that a missing one
 * is one clear line instead of an EPERM deep inside libbpf or netlink.
 */
static int check_caps(bool run)
{
	static const struct {
		int cap;
		const char *name;
		bool run_only;
	} need[] = {
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN", false },
		{ 39 /* CAP_BPF */, "CAP_BPF", true },
		{ CAP_NET_RAW, "CAP_NET_RAW", true },
	};
	unsigned long long eff = 0;
	char line[256], missing[128] = "";
	struct rlimit rl;
	unsigned int i;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;	/* cannot tell: let the kernel say */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if ((need[i].run_only && !run) || (eff >> need[i].cap) & 1)
			continue;
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
			 "%s%s", missing[0] ? ", " : "", need[i].name);
	}
	if (missing[0]) {
		ctl_err("missing capability %s: run xrxd as root or with the unit's AmbientCapabilities=" UNIT_CAPS,
			missing);
		return -EPERM;
	}
	if (run && !((eff >> CAP_IPC_LOCK) & 1) && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY)
		ctl_warn("no CAP_IPC_LOCK and a %llu KiB memlock limit: the UMEMs may not fit (LimitMEMLOCK=infinity or CAP_IPC_LOCK)",
			 (unsigned long long)rl.rlim_cur / 1024);
	return 0;
}

/* A state file left by a run that did not finish: put that NIC back first. */
static int restore_leftovers(struct xrx_nl *nl, const struct xrxd_opts *o,
			     const char *ifname)
{
	char err[1024];
	int ret;

	ret = xrx_offload_restore_file(nl, o->statedir, ifname, err,
				       sizeof(err));
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		ctl_err("%s", err);
		return ret;
	}
	ctl_notice("%s: restored the settings a previous xrxd left changed",
		   ifname);
	return 0;
}

/* Put the NIC back. An interface that is gone has nothing to restore. */
static int restore_now(struct xrxd *x)
{
	char err[1024];
	int ret;

	ret = xrx_offload_restore_file(x->nl, x->o->statedir, x->ifname, err,
				       sizeof(err));
	if (ret == -ENODEV && x->link.gone) {
		xrx_state_remove(x->o->statedir, x->ifname, err, sizeof(err));
		ctl_notice("%s: the interface is gone, so there are no settings left to restore; state file removed",
			   x->ifname);
		return 0;
	}
	if (ret && ret != -ENOENT) {
		ctl_err("%s", err);
		return ret;
	}
	ctl_info("%s: NIC settings restored", x->ifname);
	return 0;
}

static int link_info(struct xrxd *x)
{
	struct ifreq ifr = { 0 };
	int fd;

	/* Any socket reaches dev_ioctl(); AF_UNIX is in the unit's list. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", x->ifname);
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		x->link.mtu = (unsigned int)ifr.ifr_mtu;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
		x->link.link_up = ifr.ifr_flags & IFF_UP;
	close(fd);
	return 0;
}

/*
 * What xrxd_run() has taken so far, so that one function gives back exactly
 * that, in reverse order, on every way out.
 */
struct run_state {
	struct xrxd x;
	int lock_fd;			/* -1: not taken */
	struct xrx_nic *nic;
	struct xrx_conf *aconf;		/* the offloads' copy of conf, if any */
	bool applied;			/* offloads changed: restore them */
	bool done;			/* nothing more to start (apply-only) */
	char err[PATH_MAX + 256];
};

/*
 * The steps of a start, in order. Each returns 0 or the exit status
 * (1 runtime, 2 a setup error no restart mends), having said why.
 */
static int step_preflight(struct run_state *r)
{
	const struct xrxd_opts *o = r->x.o;

	if (check_caps(o->mode == MODE_RUN))
		return 1;
	/* A kernel no build of xrx_rx loads on stays so: exit 2. */
	if (o->mode == MODE_RUN && xrx_kernel__check(r->err, sizeof(r->err))) {
		ctl_err("%s: %s", r->x.ifname, r->err);
		return EXIT_USAGE;
	}
	/* Before anything is touched: the pins need a bpffs we trust. No
	 * (trusted) bpffs is a host setup error that a restart cannot
	 * mend: exit 2, which the unit does not retry. */
	if (o->mode == MODE_RUN &&
	    xrx_pin_root_check(o->pin_root, r->x.ifname, r->err,
			       sizeof(r->err))) {
		ctl_err("%s", r->err);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The device, before anything else: the lock is the device's. A missing
 * one is a setup error a restart does not mend (exit 2): the unit waits
 * for its device unit where udev runs, so it is missing only where it
 * never came or the name is wrong.
 */
static int step_iface(struct run_state *r)
{
	struct xrxd *x = &r->x;

	x->link.ifindex = (int)if_nametoindex(x->ifname);
	if (!x->link.ifindex) {
		ctl_err("%s: no such interface in this network namespace (ip link show; is it created yet?)",
			x->ifname);
		return EXIT_USAGE;
	}
	return 0;
}

static int step_lock(struct run_state *r)
{
	pid_t owner;

	r->lock_fd = xrx_lock_take(r->x.ifname, r->x.link.ifindex, &owner, r->err,
				   sizeof(r->err));
	if (r->lock_fd < 0) {
		ctl_err("%s", r->err);
		return 1;
	}
	/* An outcome an earlier xrxd left is not this one's. */
	if (r->x.o->mode == MODE_RUN)
		xrxd_reload_forget(&r->x);
	return 0;
}

static int step_netlink(struct run_state *r)
{
	if (xrx_nl_open(&r->x.nl, r->err, sizeof(r->err))) {
		ctl_err("%s", r->err);
		return 1;
	}
	return 0;
}

/* The interface, and what a killed xrxd left on it. */
static int step_leftovers(struct run_state *r)
{
	struct xrxd *x = &r->x;
	int ret;

	/* Detach a killed xrxd's program before its offloads are restored.
	 * Someone else's program stays until they remove it: exit 2. */
	ret = xrxd_prog_check_leftover(x, x->o->mode == MODE_RUN);
	if (ret)
		return ret == -EBUSY ? EXIT_USAGE : 1;
	return restore_leftovers(x->nl, x->o, x->ifname) ? 1 : 0;
}

/* What the NIC is now, and whether the config can run on it. */
static int step_check_nic(struct run_state *r)
{
	r->nic = malloc(sizeof(*r->nic));
	if (!r->nic)
		return 1;
	if (r->x.o->mode != MODE_RUN)
		return 0;
	if (xrxd_read_nic(&r->x, r->nic))
		return 1;
	return xrxd_check_nic(&r->x, r->nic);
}

/* Record, then change, the NIC's offloads (the state file first). */
static int step_offloads(struct run_state *r)
{
	struct xrxd *x = &r->x;
	struct xrx_conf_offload rx_vlan;
	bool vlan;
	int ret;

	vlan = x->o->mode == MODE_RUN &&
	       xrxd_vlan_policy(x, x->conf, r->nic, &rx_vlan);
	if (vlan || (x->o->mode == MODE_RUN &&
		     xrx_offload_has(x->conf, XRX_OFFK_NAPI))) {
		/* Applied from a copy: the configuration stays what the
		 * file says, for reloads to compare against. */
		r->aconf = malloc(sizeof(*r->aconf));
		if (!r->aconf)
			return 1;
		*r->aconf = *x->conf;
		if (vlan)
			r->aconf->offload[XRX_OFF_RX_VLAN] = rx_vlan;
		/* The NAPI settings wait for xrx_rx (napi_after_attach()). */
		xrx_offload_select(r->aconf, XRX_OFFK_NAPI, false);
	}
	ret = xrx_offload_apply(x->nl, r->aconf ? r->aconf : x->conf,
				x->o->statedir, r->err, sizeof(r->err));
	if (ret) {
		ctl_err("%s", r->err);
		/* A required setting this NIC cannot take (unsupported, out
		 * of range, refused as invalid) fails the same way again. */
		return ret == -EOPNOTSUPP || ret == -ERANGE || ret == -EINVAL ?
			       EXIT_USAGE : 1;
	}
	if (x->o->mode == MODE_APPLY_ONLY) {
		/* The state file stays, for xrxctl restore. */
		ctl_info("%s: offloads applied; undo with 'xrxctl restore %s'",
			 x->ifname, x->ifname);
		r->done = true;
		return 0;
	}
	r->applied = true;
	return 0;
}

/*
 * The device-bound xrx_rx was meant to read the VLAN tags the NIC strips,
 * but only the plain build could be attached (attach = auto fell back to
 * skb mode, or the driver refused the device-bound program): the tags
 * are lost now, so the policy xrxd_vlan_policy() applied at the offload
 * step is applied again, and rx-vlan-hw-parse is turned off (added to
 * the state file's record, restored on stop) unless the config says.
 */
static void vlan_after_attach(struct run_state *r)
{
	struct xrxd *x = &r->x;
	struct xrx_conf_offload rx_vlan;
	struct xrx_conf *only;
	unsigned int i;

	if (!x->xdp.tags_lost || xrxd_read_nic(x, r->nic) ||
	    !xrxd_vlan_policy(x, x->conf, r->nic, &rx_vlan))
		return;
	only = malloc(sizeof(*only));
	if (!only)
		return;
	*only = *x->conf;
	for (i = 0; i < XRX_OFF_MAX; i++)
		memset(&only->offload[i], 0, sizeof(only->offload[i]));
	only->offload[XRX_OFF_RX_VLAN] = rx_vlan;
	if (xrx_offload_apply(x->nl, only, x->o->statedir, r->err,
			      sizeof(r->err)))
		ctl_warn("%s: %s; accelerated flows that differ only by VLAN are merged",
			 x->ifname, r->err);
	free(only);
}

/*
 * The NAPI instances' own settings (busy_poll's, or [offload]'s), once
 * xrx_rx is attached: veth, for one, makes its NAPIs only then
 * (veth_enable_xdp()). Recorded in the state file like the others. A
 * required one that cannot be applied fails the start as at the
 * offload step.
 */
static int napi_after_attach(struct run_state *r)
{
	struct xrxd *x = &r->x;
	struct xrx_conf *only;
	int ret;

	if (!xrx_offload_has(x->conf, XRX_OFFK_NAPI))
		return 0;
	only = malloc(sizeof(*only));
	if (!only)
		return 1;
	*only = *x->conf;
	xrx_offload_select(only, XRX_OFFK_NAPI, true);
	ret = xrx_offload_apply(x->nl, only, x->o->statedir, r->err,
				sizeof(r->err));
	free(only);
	if (!ret)
		return 0;
	ctl_err("%s", r->err);
	return ret == -EOPNOTSUPP || ret == -ERANGE || ret == -EINVAL ?
		       EXIT_USAGE : 1;
}

/* xrx_rx, its rules and counters, and the workers. */
static int step_datapath(struct run_state *r)
{
	struct xrxd *x = &r->x;
	int err;

	if (xrxd_read_nic(x, r->nic))
		return 1;
	x->workers.nr_queues = xrxd_queue_count(x->conf, r->nic);
	if (x->workers.nr_queues > XRX_LIVE_QUEUES_MAX) {
		ctl_warn("%s: %u RX queues; xrxd runs workers on the first %u",
			 x->ifname, x->workers.nr_queues, XRX_LIVE_QUEUES_MAX);
		x->workers.nr_queues = XRX_LIVE_QUEUES_MAX;
	}
	link_info(x);
	if (xrxd_prog_attach(x))
		return 1;
	vlan_after_attach(r);
	err = napi_after_attach(r);
	if (err)
		return err;
	if (xrxd_rules_apply(x, x->conf) || xrxd_ustats_open(x))
		return 1;
	xrxd_stats_file_open(x);
	x->stats.us.hdr[XRX_USTATS_STARTED_NS] = xrxd_now_ns(CLOCK_REALTIME);
	x->workers.bind_busy_ms = 1000;
	err = xrxd_workers_start(x, x->conf);
	if (err == -EBUSY) {
		/* A queue still held (a stopping xrxd's sockets, another
		 * AF_XDP user): serve degraded rather than fail. */
		x->stats.us.hdr[XRX_USTATS_BIND_FAILURES]++;
		xrxd_enter_degraded(x, err);
	} else if (err) {
		return 1;
	}
	return 0;
}

/* Give back what the steps took, last first. Return: @ret, or 1. */
static int run_unwind(struct run_state *r, int ret)
{
	struct xrxd *x = &r->x;

	if (xrxd_workers_stop(x))
		xrxd_stats_refresh(x);
	xrxd_prog_detach(x);
	if (r->applied && restore_now(x))
		ret = 1;
	free(r->aconf);
	free(r->nic);
	xrx_nl_close(x->nl);
	if (r->lock_fd >= 0) {
		if (x->o->mode == MODE_RUN)
			xrxd_reload_forget(x);
		xrx_lock_release(x->link.ifindex, r->lock_fd);
	}
	return ret;
}

int xrxd_run(const struct xrxd_opts *o, struct xrx_conf *conf)
{
	static int (*const steps[])(struct run_state *r) = {
		step_preflight, step_iface, step_lock, step_netlink,
		step_leftovers,
		step_check_nic, step_offloads, step_datapath,
	};
	struct run_state *r;
	struct xrxd *x;
	unsigned int i;
	sigset_t set;
	int ret = 0;

	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	x = &r->x;
	x->o = o;
	x->conf = conf;
	x->stats.ustats_fd = -1;
	r->lock_fd = -1;
	snprintf(x->ifname, sizeof(x->ifname), "%s", conf->ifname);
	/* Signals are taken synchronously (signalfd), by this thread only:
	 * the worker threads inherit the blocked mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* A pcap FIFO whose reader left must not kill the daemon. */
	signal(SIGPIPE, SIG_IGN);

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]) && !ret && !r->done;
	     i++)
		ret = steps[i](r);
	if (!ret && !r->done) {
		xrxd_prog_watch(x);
		xrxd_stats_refresh(x);
		sd_notify(0, "READY=1");
		xrxd_notify_status(x);
		ctl_notice("%s: ready: xrx_rx (id %u) in %s mode, %u accelerate rule%s, pins in %s%s",
			   x->ifname, xrx_prog__id(x->xdp.prog),
			   xrx_prog__mode_name(x->xdp.prog), x->xdp.nrules,
			   x->xdp.nrules == 1 ? "" : "s", xrx_prog__pin_dir(x->xdp.prog),
			   x->workers.degraded ? " (degraded: no AF_XDP sockets yet)" : "");
		xrxd_consuming_note(x, x->conf);
		ret = xrxd_serve(x, &set);
		sd_notify(0, "STOPPING=1");
	}
	ret = run_unwind(r, ret);
	free(r);
	return ret;
}
