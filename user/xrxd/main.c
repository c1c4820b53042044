// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd: the per-interface daemon (xrxd@IFACE.service): its command line
 * (this file) and the pieces that make it, one file each:
 *   config.c   the config file: trusted, read, meant for this interface
 *   startup.c  the start's steps, each given back on the way out
 *   serve.c    the main loop: signals, the timer, link and ethtool events
 *   reload.c   SIGHUP: the daemon's keys, each with its reload behaviour
 *   restart.c  the workers reopened, and degraded when they cannot be
 *   linkmon.c  link events: MTU, channels, the interface going away
 *   check.c    the config against the sink's output and the NIC
 *   xdp.c, workers.c, stats.c, health.c, csum.c: the program, the
 *              workers, their counters, what is watched
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_conf.h"
#include "ctl_log.h"
#include "ctl_state.h"
#include "util/cli.h"
#include "xrxd.h"

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
	ret = xrxd_config_load(&o, conf);
	if (ret)
		goto out;
	/* --quiet: only the exit status (and any error). */
	if (o.mode == MODE_CHECK_CONFIG) {
		ret = check_config(conf);
		if (!ret)
			ret = o.verbosity >= 0 && xrx_conf_write(stdout, conf) ? 1 : 0;
		goto out;
	}
	ret = xrxd_run(&o, conf);
out:
	free(conf);
	return ret;
}
