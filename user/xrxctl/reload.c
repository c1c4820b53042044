// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl reload IFACE: SIGHUP to the xrxd that holds the device's lock,
 * then wait for the outcome it records (ctl_reload.h) and report it:
 * exit 0 when the new configuration runs, 1 with the reason when it did
 * not take effect. xrxd@.service's ExecReload=, so that `systemctl
 * reload` fails when the reload did.
 *
 * Why a signal and a file rather than a control socket: SIGHUP is how
 * xrxd has always reloaded (and what systemd's own reload conventions
 * use), it needs no listener in the daemon and nothing new in the unit's
 * sandbox, and the outcome file is read like the state file beside it.
 * The time the reload began (CLOCK_MONOTONIC, recorded by xrxd after it
 * took the signal) tells a reload this request caused from an earlier
 * one; SIGHUP does not queue, but any reload that begins after the
 * signal was sent reads the config as it is now.
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_conf.h"
#include "ctl_lock.h"
#include "ctl_log.h"
#include "ctl_reload.h"
#include "util/cli.h"
#include "xrxctl.h"

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

enum { OPT_TIMEOUT = CLI_KEY };

static const struct cli_opt reload_opts[] = {
	CLI_OPT("timeout", OPT_TIMEOUT, "SECONDS",
		"how long to wait for the outcome (default 60)"),
	CLI_OPT_HELP,
	CLI_OPT_END,
};

/* Its help is the usage line: xrxctl(8) tells the rest. */
static const struct cli_cmd reload_cli = {
	.name = "xrxctl reload",
	.usage = "usage: xrxctl reload IFACE [--timeout SECONDS]\n",
	.opts = reload_opts,
	.on_error = CLI_ERR_HELP,
};

/* Wait for an outcome of @pid that began at or after @t0. */
static int wait_outcome(const struct ctx *ctx, const char *ifname, pid_t pid,
			__u64 t0, double timeout, struct xrx_reload *r)
{
	const struct timespec pause = { 0, 20000000 };
	__u64 deadline = t0 + (__u64)(timeout * 1e9);
	char err[1024];

	for (;;) {
		if (!xrx_reload_read(ctx->statedir, ifname, r, err, sizeof(err)) &&
		    r->pid == pid && r->started_mono_ns >= t0)
			return 0;
		if (kill(pid, 0) && errno == ESRCH) {
			ctl_err("%s: xrxd (pid %d) ended during the reload; see its log (journalctl -u xrxd@%s)",
				ifname, (int)pid, ifname);
			return -ESRCH;
		}
		if (mono_ns() >= deadline) {
			ctl_err("%s: xrxd (pid %d) gave no outcome within %.0f s (in %s/%s.reload); see its log",
				ifname, (int)pid, timeout, ctx->statedir, ifname);
			return -ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
}

int cmd_reload(const struct ctx *ctx, int argc, char **argv)
{
	const char *ifname = NULL;
	double timeout = 60;
	struct xrx_reload *r;
	char unit[80], *end;
	unsigned int ifindex;
	size_t n;
	pid_t pid;
	__u64 t0;
	struct cli c;
	int k, ret;

	/* argv[-1] is the command name: getopt's argv[0]. */
	argv--;
	argc++;
	if (cli_init(&c, &reload_cli, argc, argv))
		return EXIT_USAGE;
	while ((k = cli_next(&c)) == OPT_TIMEOUT) {
		timeout = strtod(c.arg, &end);
		if (*end || timeout < 0.1 || timeout > 3600) {
			fprintf(stderr, "xrxctl: --timeout %s: give seconds from 0.1 to 3600\n",
				c.arg);
			return EXIT_USAGE;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 0 : EXIT_USAGE;
	if (c.ind == argc - 1)
		ifname = argv[c.ind];
	if (!ifname) {
		cli_help(&reload_cli, stderr);
		return EXIT_USAGE;
	}
	if (!xrx_ifname_valid(ifname)) {
		fprintf(stderr, "xrxctl: '%s' is not a valid interface name; give it as 'ip link' shows it\n",
			ifname);
		return EXIT_USAGE;
	}
	xrx_unit_name(ifname, unit, sizeof(unit));
	ifindex = if_nametoindex(ifname);
	pid = ifindex ? xrx_lock_holder((int)ifindex) : 0;
	if (!pid) {
		ctl_err("no xrxd on %s in this network namespace: start it with systemctl start %s (or run xrxctl where xrxd runs: nsenter --net=...)",
			ifname, unit);
		return 1;
	}
	t0 = mono_ns();
	if (kill(pid, SIGHUP)) {
		ctl_err("%s: cannot signal xrxd (pid %d): %s", ifname, (int)pid,
			strerror(errno));
		return 1;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	ret = wait_outcome(ctx, ifname, pid, t0, timeout, r);
	if (!ret && r->ok && r->reason[0]) {
		/* The new configuration runs, but not as well as it reads. */
		ctl_warn("%s: reloaded (reload %llu of xrxd pid %d), but %s",
			 ifname, (unsigned long long)r->generation, (int)pid,
			 r->reason);
	} else if (!ret && r->ok) {
		ctl_notice("%s: reloaded (reload %llu of xrxd pid %d)", ifname,
			   (unsigned long long)r->generation, (int)pid);
	} else if (!ret) {
		/* xrxd's own line; its messages name the interface first. */
		n = strlen(ifname);
		if (!strncmp(r->reason, ifname, n) && r->reason[n] == ':')
			ctl_err("%s", r->reason);
		else
			ctl_err("%s: reload failed: %s", ifname, r->reason);
		ret = -EINVAL;
	}
	free(r);
	return ret ? 1 : 0;
}
