// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd: the per-interface daemon (xrxd@IFACE.service). This build runs the
 * control-plane lifecycle: config → restore leftovers of a crashed run →
 * record and apply the NIC offloads → READY → wait for a signal → restore.
 * Attaching xrx_rx and starting the AF_XDP workers slot in between apply
 * and READY (see run()).
 *
 * Exit status: 0 success, 1 runtime failure, 2 bad usage or config.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "ctl_conf.h"
#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_state.h"

#define EXIT_USAGE 2

enum mode {
	MODE_RUN,
	MODE_CHECK_CONFIG,
	MODE_APPLY_ONLY,
};

struct opts {
	const char *ifname;
	const char *config;
	const char *statedir;
	enum mode mode;
	int verbosity;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: xrxd [OPTIONS]\n"
		"Accelerate receive on one interface; restore its NIC settings on exit.\n"
		"\n"
		"  -i, --interface IFACE  interface (must match the config's 'interface')\n"
		"  -c, --config FILE      config file (default " XRX_CONF_DIR "/IFACE.conf)\n"
		"      --state-dir DIR    state files (default " XRX_STATE_DIR ")\n"
		"      --check-config     parse the config, print it with all defaults, exit\n"
		"      --apply-only       restore leftovers, apply the offloads, record the\n"
		"                         originals in the state file, exit (undo with\n"
		"                         'xrxctl restore IFACE')\n"
		"  -v, --verbose          more messages (twice: debug)\n"
		"  -q, --quiet            errors and warnings only\n"
		"  -h, --help             this text\n"
		"\n"
		"Without a mode option xrxd runs until SIGTERM or SIGINT (SIGHUP re-reads\n"
		"the config) and then restores the NIC. Exit status: 0 ok, 1 runtime\n"
		"failure, 2 bad usage or config. The config keys: docs/xrx.conf.md.\n");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_STATE_DIR = 256, OPT_CHECK, OPT_APPLY };
	static const struct option longopts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "config", required_argument, NULL, 'c' },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "apply-only", no_argument, NULL, OPT_APPLY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	o->statedir = XRX_STATE_DIR;
	while ((c = getopt_long(argc, argv, "i:c:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ifname = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case OPT_STATE_DIR:
			o->statedir = optarg;
			break;
		case OPT_CHECK:
			o->mode = MODE_CHECK_CONFIG;
			break;
		case OPT_APPLY:
			o->mode = MODE_APPLY_ONLY;
			break;
		case 'v':
			o->verbosity++;
			break;
		case 'q':
			o->verbosity = -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "xrxd: see 'xrxd --help'\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xrxd: unexpected argument '%s'; see 'xrxd --help'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (o->ifname && !xrx_ifname_valid(o->ifname)) {
		fprintf(stderr, "xrxd: '%s' is not a valid interface name; give -i NAME as 'ip link' shows it\n",
			o->ifname);
		return -EINVAL;
	}
	if (!o->ifname && !o->config) {
		fprintf(stderr, "xrxd: give -i IFACE (config " XRX_CONF_DIR "/IFACE.conf) or -c FILE\n");
		return -EINVAL;
	}
	return 0;
}

/* The config, or an exit status: one "FILE:LINE: ..." line on error. */
static int load_config(const struct opts *o, struct xrx_conf *conf)
{
	char err[PATH_MAX + XRX_CONF_ERR_MAX], path[PATH_MAX];
	const char *file = o->config;

	if (!file) {
		snprintf(path, sizeof(path), XRX_CONF_DIR "/%s.conf", o->ifname);
		file = path;
	}
	if (xrx_conf_parse_file(file, conf, err, sizeof(err))) {
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	if (o->ifname && strcmp(o->ifname, conf->ifname)) {
		snprintf(err, sizeof(err),
			 "%s:%d: interface = %s, but xrxd was started for %s; write interface = %s or start xrxd@%s",
			 conf->file, conf->ifname_line, conf->ifname, o->ifname,
			 o->ifname, conf->ifname);
		ctl_log_plain(CTL_LOG_ERR, err);
		return EXIT_USAGE;
	}
	return 0;
}

/* A state file left by a run that did not finish: put that NIC back first. */
static int restore_leftovers(struct xrx_nl *nl, const struct opts *o,
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

static int restore_now(struct xrx_nl *nl, const struct opts *o,
		       const char *ifname)
{
	char err[1024];
	int ret;

	ret = xrx_offload_restore_file(nl, o->statedir, ifname, err,
				       sizeof(err));
	if (ret && ret != -ENOENT) {
		ctl_err("%s", err);
		return ret;
	}
	ctl_info("%s: NIC settings restored", ifname);
	return 0;
}

/*
 * Wait for SIGTERM/SIGINT, petting the watchdog; SIGHUP re-reads the
 * config (offload changes take effect on restart).
 */
static void wait_for_stop(const struct opts *o, const struct xrx_conf *conf)
{
	struct timespec tick = { .tv_sec = 3600 };
	struct xrx_conf *fresh;
	uint64_t wd_usec = 0;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec) {
		tick.tv_sec = (time_t)(wd_usec / 2 / 1000000);
		tick.tv_nsec = (long)(wd_usec / 2 % 1000000) * 1000;
	}
	for (;;) {
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig < 0) {
			if (wd_usec)
				sd_notify(0, "WATCHDOG=1");
			continue;
		}
		if (sig != SIGHUP)
			break;
		sd_notify(0, "RELOADING=1");
		fresh = malloc(sizeof(*fresh));
		if (fresh && !load_config(o, fresh))
			ctl_notice("%s: %s re-read; offload changes take effect on restart",
				   conf->ifname, fresh->file);
		free(fresh);
		sd_notify(0, "READY=1");
	}
	sd_notify(0, "STOPPING=1");
}

static int run(const struct opts *o, const struct xrx_conf *conf)
{
	char err[1024];
	struct xrx_nl *nl = NULL;
	sigset_t set;
	int ret;

	/* Signals are taken synchronously; block them before anything changes. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);

	ret = xrx_nl_open(&nl, err, sizeof(err));
	if (ret) {
		ctl_err("%s", err);
		return 1;
	}
	if (restore_leftovers(nl, o, conf->ifname)) {
		ret = 1;
		goto out;
	}
	ret = xrx_offload_apply(nl, conf, o->statedir, err, sizeof(err));
	if (ret) {
		ctl_err("%s", err);
		ret = 1;
		goto out;
	}
	if (o->mode == MODE_APPLY_ONLY) {
		ctl_info("%s: offloads applied; undo with 'xrxctl restore %s'",
			 conf->ifname, conf->ifname);
		ret = 0;
		goto out;
	}

	/* Here the XDP program is attached and the queue workers started. */
	sd_notifyf(0, "READY=1\nSTATUS=offloads applied on %s", conf->ifname);
	wait_for_stop(o, conf);
	ret = restore_now(nl, o, conf->ifname) ? 1 : 0;
out:
	xrx_nl_close(nl);
	return ret;
}

int main(int argc, char **argv)
{
	struct xrx_conf *conf;
	struct opts o = { 0 };
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
	if (o.mode == MODE_CHECK_CONFIG) {
		ret = xrx_conf_write(stdout, conf) ? 1 : 0;
		goto out;
	}
	ret = run(&o, conf);
out:
	free(conf);
	return ret;
}
