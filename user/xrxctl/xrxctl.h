/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrxctl's commands share the global options and the way an interface
 * argument is turned into the list of interfaces to show.
 */
#ifndef XRXCTL_H
#define XRXCTL_H

#include <stdbool.h>
#include <net/if.h>

#include "ctl_ustats.h"

#define EXIT_USAGE 2
#define XRXCTL_IFACES_MAX 256

struct ctx {
	const char *statedir;
	const char *pin_root;
	const char *confdir;	/* configured instances: NAME.conf */
};

/*
 * The interfaces a command shows: @arg alone (it must have a pin
 * directory), or every one under the pin root. Return: how many, 0 with
 * the "no xrxd" message printed, or -1 for bad usage.
 */
int xrxctl_ifaces(const struct ctx *ctx, const char *arg,
		  char (*names)[IF_NAMESIZE]);

/*
 * The counters of @ifname: from its pins or, where those are root's
 * (EACCES, EPERM: /sys/fs/bpf is 0700 under systemd), from the copy xrxd
 * keeps in the state directory for XRX_STATS_GROUP (ctl_ustats.h).
 * Return: 0 with *have_u and *have_k saying what was read (neither: no
 * xrxd), -EACCES when neither may be read (xrxctl_denied() said so), or
 * another -errno with the message printed.
 */
int xrxctl_read(const struct ctx *ctx, const char *ifname,
		struct xrx_ustats *u, bool *have_u,
		struct xrx_counter k[XRX_STAT_MAX], bool *have_k);
/* "permission denied" on @path: what to do about it, on stderr. */
void xrxctl_denied(const struct ctx *ctx, const char *path);

struct cli_cmd;
/*
 * The options of a subcommand whose table has at most one besides
 * --help, a flag (rules --json), from @argv[-1] (its name: getopt's
 * argv[0]); @flag is set if it was given. Return: the index in @argv of
 * its first argument (*ret untouched), or -1 with *ret the exit status
 * (0 after --help).
 */
int xrxctl_sub_args(const struct cli_cmd *cmd, int argc, char **argv,
		    bool *flag, int *ret);

int cmd_status(const struct ctx *ctx, int argc, char **argv);
int cmd_stats(const struct ctx *ctx, int argc, char **argv);
/* stats --losses IFACE: the loss ledger (losses.c); @fmt 0 text, 1 JSON,
 * 2 Prometheus. Return: the exit status. */
int xrxctl_losses(const struct ctx *ctx, const char *ifname, int fmt);
int cmd_rules(const struct ctx *ctx, int argc, char **argv);
int cmd_reload(const struct ctx *ctx, int argc, char **argv);

/* JSON string body: only what interface names and rule texts contain. */
void xrxctl_json_str(const char *s);

#endif /* XRXCTL_H */
