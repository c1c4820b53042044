// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxctl: operator commands for xrx. Options and subcommands are tables
 * (util/cli.h); each subcommand takes its own arguments after the global
 * options. status, stats and rules read a running xrxd's pins (status.c,
 * stats.c); restore and offloads work on the NIC through netlink.
 *
 * Exit status: 0 success, 1 runtime failure, 2 bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xrx/xrx.h>
#include "util/cli.h"

#include "ctl_conf.h"
#include "ctl_lock.h"
#include "ctl_log.h"
#include "ctl_offload.h"
#include "ctl_pins.h"
#include "ctl_state.h"
#include "ctl_ustats.h"
#include "xrxctl.h"

int xrxctl_sub_args(const struct cli_cmd *cmd, int argc, char **argv,
		    bool *flag, int *ret)
{
	struct cli c;
	int k;

	if (cli_init(&c, cmd, argc + 1, argv - 1)) {
		*ret = EXIT_USAGE;
		return -1;
	}
	while ((k = cli_next(&c)) > 0)
		*flag = true;
	if (k < 0) {
		*ret = k == CLI_EXIT_OK ? 0 : EXIT_USAGE;
		return -1;
	}
	return c.ind - 1;
}

static const struct cli_opt help_only[] = {
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd restore_cli = {
	.name = "xrxctl restore",
	.usage = "xrxctl: usage: xrxctl restore IFACE\n",
	.opts = help_only,
	.on_error = CLI_ERR_HELP,
};

static const struct cli_cmd offloads_cli = {
	.name = "xrxctl offloads",
	.usage = "xrxctl: usage: xrxctl offloads IFACE\n",
	.opts = help_only,
	.on_error = CLI_ERR_HELP,
};

/*
 * The one argument of @cmd, an interface name. Return: it, or NULL with
 * *ret the exit status (said why; 0 after --help).
 */
static const char *one_iface(const struct cli_cmd *cmd, int argc,
			     char **argv, int *ret)
{
	bool none = false;
	int i;

	i = xrxctl_sub_args(cmd, argc, argv, &none, ret);
	if (i < 0)
		return NULL;
	*ret = EXIT_USAGE;
	if (argc - i != 1) {
		cli_help(cmd, stderr);
		return NULL;
	}
	if (!xrx_ifname_valid(argv[i])) {
		fprintf(stderr, "xrxctl: '%s' is not a valid interface name; give it as 'ip link' shows it\n",
			argv[i]);
		return NULL;
	}
	return argv[i];
}

/*
 * The ifindex a state file recorded, if a device still has it: the
 * interface was renamed after xrxd started (pins and state keep the old
 * name). 0 if none.
 */
static unsigned int renamed_ifindex(const struct ctx *ctx, const char *ifname)
{
	char err[1024], now[IF_NAMESIZE];
	struct xrx_state *st;
	unsigned int ifindex = 0;

	st = calloc(1, sizeof(*st));
	if (!st)
		return 0;
	if (!xrx_state_read(ctx->statedir, ifname, st, err, sizeof(err)) &&
	    st->ifindex > 0 && if_indextoname((unsigned int)st->ifindex, now))
		ifindex = (unsigned int)st->ifindex;
	free(st);
	return ifindex;
}

/*
 * How the xrxd before us ended, for ExecStopPost= messages: systemd passes
 * SERVICE_RESULT, EXIT_CODE and EXIT_STATUS to the stop commands. NULL
 * when xrxctl was not started by systemd.
 */
static const char *how_xrxd_ended(char *buf, size_t len)
{
	const char *res = getenv("SERVICE_RESULT");
	const char *code = getenv("EXIT_CODE");
	const char *status = getenv("EXIT_STATUS");

	if (!res)
		return NULL;
	if (!strcmp(res, "success"))
		snprintf(buf, len, "xrxd stopped");
	else if (!strcmp(res, "watchdog"))
		snprintf(buf, len, "the watchdog killed xrxd");
	else if (code && status && (!strcmp(code, "killed") ||
				    !strcmp(code, "dumped")))
		snprintf(buf, len, "xrxd was killed by SIG%s", status);
	else if (code && status && !strcmp(code, "exited"))
		snprintf(buf, len, "xrxd failed with exit status %s", status);
	else
		snprintf(buf, len, "xrxd ended (%s)", res);
	return buf;
}

/* xrxd exited (any status), rather than being killed: it cleaned up. */
static bool xrxd_ended_by_itself(void)
{
	const char *code = getenv("EXIT_CODE");

	return code && !strcmp(code, "exited");
}

static int restore_locked(const struct ctx *ctx, const char *ifname,
			  unsigned int ifindex)
{
	__u32 detached, foreign;
	const char *ended;
	char how[128], err[1024], path[PATH_MAX];
	struct xrx_nl *nl;
	int ret;

	/* A killed xrxd's program goes before its offloads: veth, for one,
	 * refuses channel changes under XDP (veth_set_channels()). */
	if (ifindex) {
		ret = xrx_leftover_clear(ctx->pin_root, ifname, (int)ifindex,
					 &detached, &foreign, err, sizeof(err));
		if (ret) {
			ctl_err("%s", err);
			return 1;
		}
		if (detached && how_xrxd_ended(how, sizeof(how)))
			ctl_notice("%s: %s; detached the xrx_rx (id %u) it left attached",
				   ifname, how, detached);
		else if (detached)
			ctl_notice("%s: detached the xrx_rx (id %u) an xrxd that did not stop cleanly left attached",
				   ifname, detached);
		if (!foreign && !xrx_pin_path(ctx->pin_root, ifname, NULL, path,
					      sizeof(path)))
			rmdir(path);
		/* and the copy of its counters (ctl_ustats.h) */
		if (!foreign && !xrx_ustats_file_path(ctx->statedir, ifname, path,
						     sizeof(path)))
			unlink(path);
	}
	ret = xrx_nl_open(&nl, err, sizeof(err));
	if (ret) {
		ctl_err("%s", err);
		return 1;
	}
	ret = xrx_offload_restore_file(nl, ctx->statedir, ifname, err,
				       sizeof(err));
	xrx_nl_close(nl);
	ended = how_xrxd_ended(how, sizeof(how));
	if (ret == -ENOENT) {
		/*
		 * Nothing on record is not a failure: the NIC is as found.
		 * When xrxd exited by itself, with any status, that is the
		 * expected case (it restored what it had changed before it
		 * exited), so the unit's ExecStopPost= says nothing.
		 */
		if (ended && xrxd_ended_by_itself())
			ctl_info("nothing to restore: %s", err);
		else
			ctl_notice("nothing to restore: %s", err);
		return 0;
	}
	if (ret) {
		ctl_err("%s", err);
		return 1;
	}
	if (ended)
		ctl_notice("%s: %s; restored the settings it had changed",
			   ifname, ended);
	else
		ctl_notice("%s: restored the settings xrxd had changed", ifname);
	return 0;
}

static int cmd_restore(const struct ctx *ctx, int argc, char **argv)
{
	char how[128], err[1024];
	unsigned int ifindex;
	const char *ifname;
	int lock_fd = -1, ret;
	pid_t holder;

	ifname = one_iface(&restore_cli, argc, argv, &ret);
	if (!ifname)
		return ret;
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		ifindex = renamed_ifindex(ctx, ifname);
	/* xrxd's own lock, held while restoring: no xrxd starts meanwhile,
	 * and a running one restores by itself on exit. */
	if (ifindex) {
		lock_fd = xrx_lock_take(ifname, (int)ifindex, &holder, err,
					sizeof(err));
		if (lock_fd == -EBUSY) {
			ctl_err("xrxd is running on %s (pid %d): stop it instead (systemctl stop %s); it restores on exit",
				ifname, (int)holder,
				xrx_unit_name(ifname, how, sizeof(how)));
			return 1;
		}
		if (lock_fd < 0) {
			ctl_err("%s", err);
			return 1;
		}
	}
	ret = restore_locked(ctx, ifname, ifindex);
	xrx_lock_release((int)ifindex, lock_fd);
	return ret;
}

static int cmd_offloads(const struct ctx *ctx, int argc, char **argv)
{
	struct xrx_nic *nic;
	struct xrx_nl *nl;
	const char *ifname;
	char err[1024];
	int ret;

	ifname = one_iface(&offloads_cli, argc, argv, &ret);
	if (!ifname)
		return ret;
	ret = xrx_nl_open(&nl, err, sizeof(err));
	if (ret) {
		ctl_err("%s", err);
		return 1;
	}
	nic = malloc(sizeof(*nic));
	ret = nic ? xrx_nic_read(nl, ifname, nic, err, sizeof(err)) : -ENOMEM;
	xrx_nl_close(nl);
	if (ret) {
		ctl_err("%s", ret == -ENOMEM ? "out of memory" : err);
		free(nic);
		return 1;
	}
	xrx_nic_print(stdout, nic);
	free(nic);
	return 0;
}

/* A subcommand of the table below: the type its fn is called through. */
typedef int (*cmd_fn)(const struct ctx *ctx, int argc, char **argv);

static const struct cli_sub cmds[] = {
	{ "status", "[IFACE]",
	  "xrxd, program and mode, queues, offloads now vs before",
	  CLI_FN(cmd_status) },
	{ "stats", "[IFACE]",
	  "counters; --json, --prom, --watch SECONDS [--count N]",
	  CLI_FN(cmd_stats) },
	{ "rules", "[IFACE]", "accelerate rules in xrx_rules; --json",
	  CLI_FN(cmd_rules) },
	{ "reload", "IFACE",
	  "reload xrxd's config, wait, say whether it took effect",
	  CLI_FN(cmd_reload) },
	{ "restore", "IFACE",
	  "after a crash: detach xrx_rx, put back the NIC settings",
	  CLI_FN(cmd_restore) },
	{ "offloads", "IFACE", "show the NIC settings xrxd manages",
	  CLI_FN(cmd_offloads) },
	{ .name = NULL },
};

enum { OPT_STATE_DIR = CLI_KEY, OPT_PIN_ROOT, OPT_CONFIG_DIR };

static const struct cli_opt opts[] = {
	CLI_OPT("state-dir", OPT_STATE_DIR, "DIR",
		"state and outcome files (default " XRX_STATE_DIR ")"),
	CLI_OPT("pin-root", OPT_PIN_ROOT, "DIR",
		"xrxd's pins (default " XRX_PIN_ROOT_DEFAULT ")"),
	CLI_OPT("config-dir", OPT_CONFIG_DIR, "DIR",
		"IFACE.conf files for stats --prom (default " XRX_CONF_DIR ")"),
	CLI_OPT_VERBOSE("more messages"),
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_VERSION,
	CLI_OPT_END,
};

static const struct cli_cmd xrxctl_cli = {
	.name = "xrxctl",
	.version = XRX_VERSION,
	.usage = "Usage: xrxctl [OPTIONS] COMMAND [ARGS]\n"
		 "Inspect, reload and clean up after xrxd. Without IFACE: every\n"
		 "interface under the pin root.\n\nCommands:\n",
	.subs = cmds,
	.opts_head = "\nOptions:\n",
	.opts = opts,
	.width = 20,
	.footer = "\nRun it in xrxd's network namespace for the program and NIC parts.\n"
		  "Exit status: 0 ok (restore: also when nothing was recorded),\n"
		  "1 runtime failure or no xrxd, 2 bad usage.\n",
	.on_error = CLI_ERR_HINT,
	/* stop at the command: its arguments are its own */
	.stop_at_arg = true,
};

/* -v, -q: more (-v, -vv) or fewer (-q) messages than notices. */
static enum ctl_log_level log_level(int verbosity)
{
	if (verbosity < 0)
		return CTL_LOG_WARN;
	if (verbosity == 0)
		return CTL_LOG_NOTICE;
	return verbosity == 1 ? CTL_LOG_INFO : CTL_LOG_DEBUG;
}

int main(int argc, char **argv)
{
	struct ctx ctx = { .statedir = XRX_STATE_DIR,
			   .pin_root = XRX_PIN_ROOT_DEFAULT,
			   .confdir = XRX_CONF_DIR };
	const struct cli_sub *sub;
	struct cli c;
	int k;

	ctl_log_init("xrxctl", CTL_LOG_NOTICE);
	if (cli_init(&c, &xrxctl_cli, argc, argv))
		return EXIT_USAGE;
	while ((k = cli_next(&c)) > 0) {
		switch (k) {
		case OPT_STATE_DIR:
			ctx.statedir = c.arg;
			break;
		case OPT_PIN_ROOT:
			ctx.pin_root = c.arg;
			break;
		case OPT_CONFIG_DIR:
			ctx.confdir = c.arg;
			break;
		}
	}
	if (k < 0)
		return k == CLI_EXIT_OK ? 0 : EXIT_USAGE;
	ctl_log_set_level(log_level(c.verbosity));
	if (c.ind >= argc) {
		cli_help(&xrxctl_cli, stderr);
		return EXIT_USAGE;
	}
	sub = cli_sub_of(&xrxctl_cli, argv[c.ind]);
	if (sub)
		return ((cmd_fn)sub->fn)(&ctx, argc - c.ind - 1,
					 argv + c.ind + 1);
	fprintf(stderr, "xrxctl: unknown command '%s'; see 'xrxctl --help'\n",
		argv[c.ind]);
	return EXIT_USAGE;
}
