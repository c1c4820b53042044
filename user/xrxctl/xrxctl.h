/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrxctl's commands share the global options and the way an interface
 * argument is turned into the list of interfaces to show.
 */
#ifndef XRXCTL_H
#define XRXCTL_H

#include <net/if.h>

#define EXIT_USAGE 2
#define XRXCTL_IFACES_MAX 256

struct ctx {
	const char *statedir;
	const char *pin_root;
};

/*
 * The interfaces a command shows: @arg alone (it must have a pin
 * directory), or every one under the pin root. Return: how many, 0 with
 * the "no xrxd" message printed, or -1 for bad usage.
 */
int xrxctl_ifaces(const struct ctx *ctx, const char *arg,
		  char (*names)[IF_NAMESIZE]);

int cmd_status(const struct ctx *ctx, int argc, char **argv);
int cmd_stats(const struct ctx *ctx, int argc, char **argv);
int cmd_rules(const struct ctx *ctx, int argc, char **argv);
int cmd_reload(const struct ctx *ctx, int argc, char **argv);

/* JSON string body: only what interface names and rule texts contain. */
void xrxctl_json_str(const char *s);

#endif /* XRXCTL_H */
