// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd: the per-interface daemon (xrxd@IFACE.service).
 *
 * Start: config → instance lock → the XDP program and NIC settings a
 * killed xrxd left behind are put back → checks that need the NIC (queues,
 * sink path) → record the originals in the state file and apply the
 * offloads → attach xrx_rx (libxdp), pin it and its maps, write the rules
 * → xrx_ustats → AF_XDP workers → READY=1.
 *
 * Serve: one thread polls a signalfd, a timerfd and an rtnetlink socket.
 * SIGHUP reloads rules (in place) and sink/tee/engine settings (workers
 * restarted, held aggregates flushed to the old sink first); link events
 * are handled in linkmon.c; about once a second the counters go to
 * xrx_ustats and STATUS=, and WATCHDOG=1 goes out at half WATCHDOG_USEC.
 *
 * Stop (SIGTERM/SIGINT, or the interface went away): workers stopped
 * (aggregates flushed), xrx_rx detached, pins removed, and only then the
 * NIC restored - veth, for one, refuses channel changes while an XDP
 * program is attached (veth_set_channels()) - and the state file deleted.
 *
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or config.
 */
#include <errno.h>
#include <libgen.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <linux/capability.h>
#include <libmnl/libmnl.h>
#include <systemd/sd-daemon.h>

#include "ctl_conf.h"
#include "ctl_lock.h"
#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_pins.h"
#include "ctl_reload.h"
#include "ctl_state.h"
#include "util/cli.h"
#include "xrxd.h"

enum mode {
	MODE_RUN,
	MODE_CHECK_CONFIG,
	MODE_APPLY_ONLY,
};

#define UNIT_CAPS "CAP_BPF CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_PERFMON"

static int parse_args(int argc, char **argv, struct xrxd_opts *o)
{
	enum { OPT_STATE_DIR = CLI_KEY, OPT_PIN_ROOT, OPT_CHECK, OPT_APPLY };
	static const struct cli_opt opts[] = {
		CLI_OPT("interface", 'i', "IFACE",
			"interface (must match the config's 'interface')"),
		CLI_OPT("config", 'c', "FILE",
			"config file (default " XRX_CONF_DIR "/IFACE.conf)"),
		CLI_OPT("state-dir", OPT_STATE_DIR, "DIR",
			"state files (default " XRX_STATE_DIR ")"),
		CLI_OPT("pin-root", OPT_PIN_ROOT, "DIR",
			"bpffs pins (default " XRX_PIN_ROOT_DEFAULT ")"),
		CLI_OPT("check-config", OPT_CHECK, NULL,
			"parse the config, print it with all defaults, exit\n"
			"(with -q: print nothing, only the exit status)"),
		CLI_OPT("apply-only", OPT_APPLY, NULL,
			"restore leftovers, apply the offloads, record the\n"
			"originals in the state file, exit (undo with\n"
			"'xrxctl restore IFACE')"),
		CLI_OPT_VERBOSE("more messages (twice: debug)"),
		CLI_OPT_QUIET,
		CLI_OPT_HELP,
		CLI_OPT_VERSION,
		CLI_OPT_END,
	};
	static const struct cli_cmd cmd = {
		.name = "xrxd",
		.version = XRX_VERSION,
		.usage = "Usage: xrxd [OPTIONS] [IFACE]\n"
			 "Accelerate receive on one interface; restore its NIC settings on exit.\n"
			 "\n",
		.opts = opts,
		.width = 22,
		.footer = "\n"
			  "Runs until SIGTERM or SIGINT, then detaches and restores the NIC.\n"
			  "SIGHUP ('xrxctl reload IFACE' waits for the outcome) reloads rules\n"
			  "and sink/tee/engine settings. Inspect it with 'xrxctl status IFACE'.\n"
			  "Exit status: 0 ok, 1 runtime failure, 2 what a restart cannot mend\n"
			  "(bad usage or config, no bpffs, no such interface, another program).\n"
			  "Config keys: xrx.conf(5).\n",
		.on_error = CLI_ERR_HINT,
	};
	struct cli c;
	int k;

	o->statedir = XRX_STATE_DIR;
	o->pin_root = XRX_PIN_ROOT_DEFAULT;
	if (cli_init(&c, &cmd, argc, argv))
		return -EINVAL;
	while ((k = cli_next(&c)) > 0) {
		switch (k) {
		case 'i':
			o->ifname = c.arg;
			break;
		case 'c':
			o->config = c.arg;
			break;
		case OPT_STATE_DIR:
			o->statedir = c.arg;
			break;
		case OPT_PIN_ROOT:
			o->pin_root = c.arg;
			break;
		case OPT_CHECK:
			o->mode = MODE_CHECK_CONFIG;
			break;
		case OPT_APPLY:
			o->mode = MODE_APPLY_ONLY;
			break;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 1 : -EINVAL;
	o->verbosity = c.verbosity;
	/* "xrxd IFACE" is "xrxd -i IFACE". */
	if (c.ind < argc && !o->ifname)
		o->ifname = argv[c.ind++];
	if (c.ind < argc) {
		fprintf(stderr, "xrxd: unexpected argument '%s'; see 'xrxd --help'\n",
			argv[c.ind]);
		return -EINVAL;
	}
	if (o->ifname && !xrx_ifname_valid(o->ifname)) {
		/* xrxd@op-b hands over "op/b": "-" is an escaped "/". */
		if (strchr(o->ifname, '/'))
			fprintf(stderr, "xrxd: '%s' is not a valid interface name; for an interface with a '-' in its name, escape it in the unit instance: systemctl start \"xrxd@$(systemd-escape NAME)\"\n",
				o->ifname);
		else
			fprintf(stderr, "xrxd: '%s' is not a valid interface name; give -i NAME as 'ip link' shows it\n",
				o->ifname);
		return -EINVAL;
	}
	if (!o->ifname && !o->config) {
		fprintf(stderr, "xrxd: give IFACE (config " XRX_CONF_DIR "/IFACE.conf) or -c FILE\n");
		return -EINVAL;
	}
	/* -c /etc/xrx/NAME.conf alone: checked as xrxd@NAME reads it. */
	if (!o->ifname &&
	    xrxd_conf_instance(o->config, o->instance, sizeof(o->instance))) {
		o->ifname = o->instance;
		o->ifname_from_file = true;
	}
	return 0;
}

/* The config, or an exit status: one "FILE:LINE: ..." line on error. */
/*
 * The config decides which traffic leaves the kernel stack and which NIC
 * settings change: it is trusted only if nobody but its owner (root, or
 * xrxd's own uid) can have written it. A symlink is refused outright
 * (lstat), as is a file or directory that others may write (a directory
 * with the sticky bit, like /tmp, protects the file from renames by
 * others, so its mode is not held against it).
 */
static int conf_file_trusted(const char *file, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (lstat(file, &st) < 0)
		return 0;	/* the parser names a missing file */
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s: is a symlink; xrxd reads only a regular config file: name the file itself (or replace the link with a copy)",
			 file);
		return -EPERM;
	}
	if ((st.st_mode & 022) || (st.st_uid && st.st_uid != geteuid())) {
		snprintf(err, errlen,
			 "%s: refused: writable by others or not owned by root (uid %u, mode %04o), so anyone could have written it; chown root and chmod go-w it",
			 file, (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	if (stat(dirname(dir), &st) == 0 && (st.st_mode & 002) &&
	    !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen,
			 "%s: the config file's directory is writable by everyone, so anyone could have replaced the file; refused: chmod o-w it",
			 dir);
		return -EPERM;
	}
	return 0;
}

static int load_config(const struct xrxd_opts *o, struct xrx_conf *conf)
{
	char err[PATH_MAX + XRX_CONF_ERR_MAX], path[PATH_MAX];
	const char *file = o->config;

	if (!file) {
		snprintf(path, sizeof(path), XRX_CONF_DIR "/%s.conf", o->ifname);
		file = path;
	}
	if (conf_file_trusted(file, err, sizeof(err)) ||
	    xrx_conf_parse_file_for(file, o->ifname, conf, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	if (o->ifname && strcmp(o->ifname, conf->ifname)) {
		char unit[80];

		if (o->ifname_from_file)
			snprintf(err, sizeof(err),
				 "%s:%d: interface = %s, but this file is the config of %s (" XRX_CONF_DIR "/%s.conf); write interface = %s, or move the file to " XRX_CONF_DIR "/%s.conf",
				 conf->file, conf->ifname_line, conf->ifname,
				 xrx_unit_name(o->ifname, unit, sizeof(unit)),
				 o->ifname, o->ifname, conf->ifname);
		else
			snprintf(err, sizeof(err),
				 "%s:%d: interface = %s, but xrxd was started for %s; write interface = %s or start %s",
				 conf->file, conf->ifname_line, conf->ifname,
				 o->ifname, o->ifname,
				 xrx_unit_name(conf->ifname, unit, sizeof(unit)));
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	return 0;
}

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
	if (ret == -ENODEV && x->gone) {
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
		x->mtu = (unsigned int)ifr.ifr_mtu;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
		x->link_up = ifr.ifr_flags & IFF_UP;
	close(fd);
	return 0;
}

/*
 * Config checks that need the NIC, before anything changes: a failure is
 * a config error (exit 2) and the NIC is untouched.
 */
static int check_against_nic(struct xrxd *x, const struct xrx_nic *nic)
{
	const struct xrx_conf_offload *ch = &x->conf->offload[XRX_OFF_CHANNELS];
	const struct xrx_conf *c = x->conf;
	char err[2 * PATH_MAX];
	unsigned int have;

	if (c->queues) {
		if (nic->channels_err)
			have = 1;
		else if (ch->set && ch->value == XRX_CONF_VAL_MAX)
			have = nic->ch_max_combined + nic->ch_max_rx;
		else if (ch->set)
			have = ch->value;
		else
			have = nic->ch_combined + nic->ch_rx;
		if (c->queues > have) {
			ctl_err("%s: queues = %u, but %s has %u RX queue%s (ethtool -l %s); write queues = %u or all, or raise offload.channels",
				c->file, c->queues, x->ifname, have,
				have == 1 ? "" : "s", x->ifname, have);
			return EXIT_USAGE;
		}
	}
	if (c->queues > XRX_LIVE_QUEUES_MAX) {
		ctl_err("%s: queues = %u is more than the %u workers xrxd runs; write queues = %u or fewer",
			c->file, c->queues, XRX_LIVE_QUEUES_MAX, XRX_LIVE_QUEUES_MAX);
		return EXIT_USAGE;
	}
	if (xrxd_sink_check(c, true, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	return 0;
}

static int read_nic(struct xrxd *x, struct xrx_nic *nic)
{
	char err[1024];
	int ret;

	ret = xrx_nic_read(x->nl, x->ifname, nic, err, sizeof(err));
	if (ret)
		ctl_err("%s", err);
	return ret;
}

static void notify_status(struct xrxd *x)
{
	char status[256];

	xrxd_status(x, status, sizeof(status));
	sd_notifyf(0, "STATUS=%s", status);
}

/* No sockets: xrx_rx passes everything; retry from the timer. */
static void enter_degraded(struct xrxd *x, int err)
{
	x->bind_err = err;
	if (!x->degraded)
		x->retry_gap_ns = 250000000ull;
	x->degraded = true;
	x->retry_ns = xrxd_now_ns(CLOCK_MONOTONIC) + x->retry_gap_ns;
	ctl_err("%s: DEGRADED: cannot open the AF_XDP sockets (%s); xrx_rx stays attached and passes the traffic to the kernel (pass_no_socket); retrying in %.2f s",
		x->ifname, strerror(-err), (double)x->retry_gap_ns / 1e9);
}

/*
 * The queue count @conf asks for on the NIC as it is now (with queues =
 * all, ethtool -L may have changed it since), at most the workers xrxd
 * runs; @fallback if the NIC cannot be read.
 */
static unsigned int queues_now(struct xrxd *x, const struct xrx_conf *conf,
			       unsigned int fallback)
{
	struct xrx_nic *nic;
	unsigned int n = fallback;

	nic = malloc(sizeof(*nic));
	if (nic && !read_nic(x, nic))
		n = xrxd_queue_count(conf, nic);
	free(nic);
	return n > XRX_LIVE_QUEUES_MAX ? XRX_LIVE_QUEUES_MAX : n;
}

/* From the timer: one more try at the sockets, backing off to 8 s. */
static void retry_degraded(struct xrxd *x)
{
	unsigned int n;
	int err;

	if (!x->degraded || xrxd_now_ns(CLOCK_MONOTONIC) < x->retry_ns)
		return;
	/* The channels may have changed while degraded: a queue gone is
	 * a bind that fails forever, a queue added one left unserved. */
	n = queues_now(x, x->conf, x->nr_queues);
	if (n != x->nr_queues) {
		ctl_notice("%s: RX queues %u -> %u while degraded; retrying with %u",
			   x->ifname, x->nr_queues, n, n);
		x->nr_queues = n;
	}
	/* The timer retries anyway: do not hold up the main loop long. */
	x->bind_busy_ms = 200;
	err = xrxd_workers_start(x, x->conf);
	x->bind_busy_ms = 1000;
	if (!err) {
		x->degraded = false;
		x->us.hdr[XRX_USTATS_WORKER_RESTARTS]++;
		ctl_notice("%s: AF_XDP sockets open again; no longer degraded",
			   x->ifname);
		return;
	}
	x->bind_err = err;
	x->us.hdr[XRX_USTATS_BIND_FAILURES]++;
	if (x->retry_gap_ns < 8000000000ull)
		x->retry_gap_ns *= 2;
	x->retry_ns = xrxd_now_ns(CLOCK_MONOTONIC) + x->retry_gap_ns;
	ctl_warn("%s: still degraded (%s); next try in %.1f s", x->ifname,
		 strerror(-err), (double)x->retry_gap_ns / 1e9);
}

/*
 * Close and reopen the sockets with @conf (queue count change, an MTU the
 * frames do not hold). On failure, the running config's; failing that,
 * degraded: xrxd stays up and retries. Return: 0 when @conf's workers
 * run, else the error of that attempt.
 */
static int restart_workers(struct xrxd *x, const struct xrx_conf *conf)
{
	unsigned int n, old_n = x->nr_queues;
	int ret, ret2;

	n = queues_now(x, conf, x->nr_queues);
	xrxd_workers_stop(x);
	x->nr_queues = n;
	x->us.hdr[XRX_USTATS_WORKER_RESTARTS]++;
	ret = xrxd_workers_start(x, conf);
	if (!ret) {
		x->degraded = false;
		return 0;
	}
	x->us.hdr[XRX_USTATS_BIND_FAILURES]++;
	ret2 = ret;
	if (conf != x->conf) {
		ctl_warn("%s: going back to the running sink, engine and queue settings",
			 x->ifname);
		x->nr_queues = old_n;
		ret2 = xrxd_workers_start(x, x->conf);
		if (!ret2) {
			x->degraded = false;
			return ret;
		}
		x->us.hdr[XRX_USTATS_BIND_FAILURES]++;
	}
	enter_degraded(x, ret2);
	return ret;
}

/* The MTU changed: keep the sockets if their frames hold it. */
static void mtu_changed(struct xrxd *x)
{
	if (x->degraded)
		return;		/* the retry opens for the MTU of then */
	if (xrxd_workers_cover_mtu(x, x->mtu)) {
		ctl_notice("%s: MTU %u: the AF_XDP sockets hold frames of it; sockets, UMEMs and workers kept",
			   x->ifname, x->mtu);
		return;
	}
	ctl_notice("%s: MTU %u is more than the sockets' frames hold; reopening them",
		   x->ifname, x->mtu);
	restart_workers(x, x->conf);
}

/*
 * The RX queue count changed (ethtool -L): with queues = all, the workers
 * follow it, so that no queue is left without a socket (its frames would
 * go to the kernel, pass_no_socket) and none is served that no longer
 * exists. A fixed count stays; xrxd says when the interface no longer has
 * that many.
 */
static void channels_changed(struct xrxd *x)
{
	struct xrx_nic *nic;
	unsigned int n, have;

	nic = malloc(sizeof(*nic));
	if (!nic || read_nic(x, nic)) {
		free(nic);
		return;
	}
	have = nic->channels_err ? 0 : nic->ch_combined + nic->ch_rx;
	n = xrxd_queue_count(x->conf, nic);
	free(nic);
	if (n > XRX_LIVE_QUEUES_MAX)
		n = XRX_LIVE_QUEUES_MAX;
	if (x->conf->queues) {
		if (have && have < x->conf->queues)
			ctl_warn("%s: the interface has %u RX queues now, fewer than queues = %u; workers of the missing queues idle (set queues = all, or restore the channels)",
				 x->ifname, have, x->conf->queues);
		return;
	}
	if (n == x->nr_queues || x->degraded)
		return;		/* degraded: the retry reads the count itself */
	ctl_notice("%s: RX queues %u -> %u (channels changed); reopening the AF_XDP workers",
		   x->ifname, x->nr_queues, n);
	restart_workers(x, x->conf);
}

/* Drain the ethtool monitor socket (bounded); true if our channels changed. */
static bool ethtool_events(struct xrxd *x, struct mnl_socket *mon)
{
	char buf[8192] __attribute__((aligned(4)));
	bool hit = false;
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		n = recv(mnl_socket_get_fd(mon), buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == ENOBUFS) {	/* lost some: look anyway */
				hit = true;
				continue;
			}
			break;
		}
		hit |= xrx_ethtool_channels_ntf(buf, (size_t)n, x->ifindex);
	}
	return hit;
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

	if (x->tags_readable)
		return;
	nic = malloc(sizeof(*nic));
	if (!nic || read_nic(x, nic)) {
		free(nic);
		return;
	}
	f = xrx_nic_feature(nic, "rx-vlan-hw-parse");
	if (f && f->active)
		ctl_warn("%s: reload: traffic is accelerated now, but rx-vlan-hw-parse is on and xrx_rx cannot read the VLAN tags it strips, so flows that differ only by VLAN are merged; restart xrxd so it turns the feature off",
			 x->ifname);
	free(nic);
}

/*
 * SIGHUP: rules in place, workers only if their settings changed. A bad
 * config keeps the running one. Offload and attach changes need a restart.
 * Return: 0 when @fresh runs now, else nonzero (the old one runs on).
 */
static int reload_config(struct xrxd *x, struct xrx_conf *fresh)
{
	char err[2 * PATH_MAX];
	unsigned int i;
	bool off = false;
	int ret;

	if (load_config(x->o, fresh)) {
		ctl_err("%s: reload failed; still running the previous configuration",
			x->ifname);
		return -EINVAL;
	}
	if (strcmp(fresh->ifname, x->ifname)) {
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
	if (xrxd_workers_need_reopen(x->conf, fresh)) {
		ctl_notice("%s: the queue count or the busy-poll settings changed; reopening the AF_XDP sockets (what they and the engines hold is delivered first)",
			   x->ifname);
		ret = restart_workers(x, fresh);
		if (ret) {
			/* The workers run the old settings: so do the rules. */
			ctl_err("%s: reload failed: the new queues did not start; still running the previous configuration",
				x->ifname);
			xrxd_rules_apply(x, x->conf);
			return ret;
		}
	} else if (xrxd_workers_differ(x->conf, fresh)) {
		ret = xrxd_workers_swap(x, fresh);
		if (ret) {
			/* The workers run the old settings: so do the rules. */
			ctl_err("%s: reload failed: the new sink or engine settings did not start; still running the previous configuration",
				x->ifname);
			xrxd_rules_apply(x, x->conf);
			return ret;
		}
	}
	for (i = 0; i < XRX_OFF_MAX; i++)
		off |= memcmp(&fresh->offload[i].value, &x->conf->offload[i].value,
			      sizeof(fresh->offload[i].value)) ||
		       fresh->offload[i].set != x->conf->offload[i].set ||
		       fresh->offload[i].required != x->conf->offload[i].required;
	if (off || fresh->attach != x->conf->attach)
		ctl_notice("%s: %s changes take effect when xrxd restarts",
			   x->ifname, off ? "offload" : "attach mode");
	if (!x->conf->nrules && x->conf->default_action != XRX_ACT_ACCEL &&
	    (fresh->nrules || fresh->default_action == XRX_ACT_ACCEL))
		reload_vlan_check(x);
	memcpy(x->conf, fresh, sizeof(*fresh));
	xrxd_consuming_note(x, x->conf);
	x->us.hdr[XRX_USTATS_RELOADS]++;
	ctl_notice("%s: %s reloaded", x->ifname, x->conf->file);
	return 0;
}

/*
 * SIGHUP, between RELOADING=1 and READY=1; the outcome, with the first
 * error line it logged as the reason, goes to xrxctl (reload.c).
 */
static int reload(struct xrxd *x)
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
	notify_status(x);
	xrxd_reload_record(x, started, ret, reason);
	return ret;
}

static int timer_fd(__u64 period_ns)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = (time_t)(period_ns / 1000000000ull),
				 .tv_nsec = (long)(period_ns % 1000000000ull) },
	};
	int fd;

	its.it_value = its.it_interval;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * Serve until a stop signal, the interface going away, or a fatal worker
 * error. Return: 0 for a normal stop, 1 otherwise.
 */
static int serve(struct xrxd *x, const sigset_t *sigs)
{
	__u64 wd_usec = 0, period = 1000000000ull, last_refresh = 0, now, tick;
	struct signalfd_siginfo si;
	struct pollfd pfd[4];
	struct mnl_socket *mon;
	bool restart, wd;
	unsigned int stuck;
	__u64 sage = 0;
	__u32 sq = 0;
	char name[IF_NAMESIZE];
	int sfd, tfd, lfd, ret = 1;

	wd = sd_watchdog_enabled(0, (uint64_t *)&wd_usec) > 0 && wd_usec;
	if (wd && wd_usec * 1000 / 2 < period)
		period = wd_usec * 1000 / 2;
	sfd = signalfd(-1, sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	tfd = timer_fd(period);
	lfd = xrxd_linkmon_open();
	mon = xrx_ethtool_monitor_open(x->nl);
	if (sfd < 0 || tfd < 0) {
		ctl_err("%s: cannot set up the event loop: %s", x->ifname,
			strerror(errno));
		goto out;
	}
	if (lfd < 0)
		ctl_warn("%s: no link events (%s): removal is noticed within a second, MTU changes are not",
			 x->ifname, strerror(-lfd));
	if (!mon)
		ctl_warn("%s: no ethtool events (%s): a change of the RX queue count is not followed",
			 x->ifname, strerror(errno));
	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	/* A negative fd is skipped by poll(). */
	pfd[2] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	pfd[3] = (struct pollfd){ .fd = mon ? mnl_socket_get_fd(mon) : -1,
				  .events = POLLIN };
	for (;;) {
		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			ctl_err("%s: poll: %s", x->ifname, strerror(errno));
			goto out;
		}
		if (pfd[0].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				reload(x);
				continue;
			}
			ctl_notice("%s: %s received; stopping", x->ifname,
				   strsignal((int)si.ssi_signo));
			ret = 0;
			goto out;
		}
		if (lfd >= 0 && pfd[2].revents & POLLIN) {
			restart = false;
			if (xrxd_linkmon_read(x, lfd, &restart)) {
				x->gone = true;
				ctl_notice("%s: the interface was removed (or moved to another network namespace); shutting down",
					   x->ifname);
				ret = 0;
				goto out;
			}
			if (restart)
				mtu_changed(x);
			if (x->xdp_event)
				xrxd_prog_watch(x);
		}
		if (mon && pfd[3].revents & POLLIN && ethtool_events(x, mon))
			channels_changed(x);
		if (pfd[1].revents & POLLIN &&
		    read(tfd, &tick, sizeof(tick)) == sizeof(tick)) {
			/* A stuck worker withholds the watchdog: systemd
			 * restarts a service that no longer moves frames. */
			stuck = xrxd_workers_stuck(x, &sq, &sage);
			if (wd && !stuck)
				sd_notify(0, "WATCHDOG=1");
			if (stuck && !x->stuck_logged)
				ctl_err("%s: the worker of queue %u has not come round its loop for %.1f s (blocked in its sink?)%s",
					x->ifname, sq, (double)sage / 1e9,
					wd ? "; WATCHDOG=1 withheld" : "");
			else if (!stuck && x->stuck_logged)
				ctl_notice("%s: every worker runs again", x->ifname);
			x->stuck_logged = stuck != 0;
			retry_degraded(x);
			now = xrxd_now_ns(CLOCK_MONOTONIC);
			if (now - last_refresh < 900000000ull)
				continue;
			last_refresh = now;
			/* Events can be lost (ENOBUFS): look for ourselves. */
			if (!if_indextoname((unsigned int)x->ifindex, name)) {
				x->gone = true;
				ctl_notice("%s: the interface no longer exists; shutting down",
					   x->ifname);
				ret = 0;
				goto out;
			}
			xrxd_prog_watch(x);
			xrxd_stats_refresh(x);
			if (xrxd_sink_watch(x))
				xrxd_stats_refresh(x);	/* publish the change */
			if (xrxd_csum_watch(x))
				xrxd_stats_refresh(x);
			notify_status(x);
		}
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	if (lfd >= 0)
		close(lfd);
	if (mon)
		mnl_socket_close(mon);
	return ret;
}

/*
 * What run() has taken so far, so that one function gives back exactly
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

	x->ifindex = (int)if_nametoindex(x->ifname);
	if (!x->ifindex) {
		ctl_err("%s: no such interface in this network namespace (ip link show; is it created yet?)",
			x->ifname);
		return EXIT_USAGE;
	}
	return 0;
}

static int step_lock(struct run_state *r)
{
	pid_t owner;

	r->lock_fd = xrx_lock_take(r->x.ifname, r->x.ifindex, &owner, r->err,
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
	if (read_nic(&r->x, r->nic))
		return 1;
	return check_against_nic(&r->x, r->nic);
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

	if (!x->tags_lost || read_nic(x, r->nic) ||
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

	if (read_nic(x, r->nic))
		return 1;
	x->nr_queues = xrxd_queue_count(x->conf, r->nic);
	if (x->nr_queues > XRX_LIVE_QUEUES_MAX) {
		ctl_warn("%s: %u RX queues; xrxd runs workers on the first %u",
			 x->ifname, x->nr_queues, XRX_LIVE_QUEUES_MAX);
		x->nr_queues = XRX_LIVE_QUEUES_MAX;
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
	x->us.hdr[XRX_USTATS_STARTED_NS] = xrxd_now_ns(CLOCK_REALTIME);
	x->bind_busy_ms = 1000;
	err = xrxd_workers_start(x, x->conf);
	if (err == -EBUSY) {
		/* A queue still held (a stopping xrxd's sockets, another
		 * AF_XDP user): serve degraded rather than fail. */
		x->us.hdr[XRX_USTATS_BIND_FAILURES]++;
		enter_degraded(x, err);
	} else if (err) {
		return 1;
	}
	return 0;
}

/* Give back what the steps took, last first. Return: @ret, or 1. */
static int run_unwind(struct run_state *r, int ret)
{
	struct xrxd *x = &r->x;

	xrxd_workers_stop(x);
	xrxd_prog_detach(x);
	if (r->applied && restore_now(x))
		ret = 1;
	free(r->aconf);
	free(r->nic);
	xrx_nl_close(x->nl);
	if (r->lock_fd >= 0) {
		if (x->o->mode == MODE_RUN)
			xrxd_reload_forget(x);
		xrx_lock_release(x->ifindex, r->lock_fd);
	}
	return ret;
}

static int run(const struct xrxd_opts *o, struct xrx_conf *conf)
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
	x->ustats_fd = -1;
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
		notify_status(x);
		ctl_notice("%s: ready: xrx_rx (id %u) in %s mode, %u accelerate rule%s, pins in %s%s",
			   x->ifname, xrx_prog__id(x->prog),
			   xrx_prog__mode_name(x->prog), x->nrules,
			   x->nrules == 1 ? "" : "s", xrx_prog__pin_dir(x->prog),
			   x->degraded ? " (degraded: no AF_XDP sockets yet)" : "");
		xrxd_consuming_note(x, x->conf);
		ret = serve(x, &set);
		sd_notify(0, "STOPPING=1");
	}
	ret = run_unwind(r, ret);
	free(r);
	return ret;
}

/* What --check-config can see of the start's checks without the NIC. */
static int check_config(const struct xrx_conf *conf)
{
	char err[2 * PATH_MAX], why[1024];

	if (xrxd_sink_check(conf, false, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	/* As the start would say it (step_preflight()). */
	if (xrx_kernel__check(why, sizeof(why))) {
		ctl_err("%s: %s", conf->ifname, why);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct xrxd_opts o = { 0 };
	struct xrx_conf *conf;
	int ret;

	ctl_log_init("xrxd", CTL_LOG_NOTICE);
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	ctl_log_set_level(o.verbosity < 0 ? CTL_LOG_WARN :
			  o.verbosity == 0 ? CTL_LOG_NOTICE :
			  o.verbosity == 1 ? CTL_LOG_INFO : CTL_LOG_DEBUG);

	conf = malloc(sizeof(*conf));
	if (!conf) {
		ctl_err("out of memory");
		return 1;
	}
	ret = load_config(&o, conf);
	if (ret)
		goto out;
	/* --quiet: only the exit status (and any error). */
	if (o.mode == MODE_CHECK_CONFIG) {
		ret = check_config(conf);
		if (!ret)
			ret = o.verbosity >= 0 && xrx_conf_write(stdout, conf) ? 1 : 0;
		goto out;
	}
	ret = run(&o, conf);
out:
	free(conf);
	return ret;
}
