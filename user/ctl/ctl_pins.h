/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What xrxd pins for an interface in PIN_ROOT/IFACE (PIN_ROOT is
 * /sys/fs/bpf/xrx): the program xrx_rx, its maps (xrx_xsks, xrx_stats,
 * xrx_rules, xrx_cfg, xrx_scratch) and xrx_ustats (ctl_ustats.h). The pins
 * are how xrxctl and bpftool find a running xrxd's counters and rules, and
 * how a new xrxd finds the program a killed one left attached.
 */
#ifndef XRX_CTL_PINS_H
#define XRX_CTL_PINS_H

#include <net/if.h>
#include <stddef.h>

#include <bpf/libbpf.h>
#include <xrx/live.h>	/* with prog.h: names, xrx_prog__unpin() */
#include <xrx/stats.h>

/* PIN_ROOT/IFACE[/NAME] into buf; -ENAMETOOLONG if it does not fit. */
int xrx_pin_path(const char *root, const char *ifname, const char *name,
		 char *buf, size_t len);

/*
 * Before xrxd pins anything: @root (or, before the first start, its
 * parent) is on a bpffs mounted read-write, and @root and @root/@ifname,
 * where they exist, are directories owned by the effective uid, writable
 * by it alone, not symlinks. Return: 0, or a negative errno with err naming the path and
 * the fix (-ENOTSUP: not bpffs, -EROFS: read-only, -EPERM: not trusted).
 */
/*
 * Is program @id one of those behind a libxdp dispatcher on @ifindex?
 * libxdp puts xrx_rx there where the kernel allows freplace; the id
 * attached is then the dispatcher's.
 */
bool xrx_xdp_behind_dispatcher(int ifindex, __u32 id);

int xrx_pin_root_check(const char *root, const char *ifname, char *err,
		       size_t errlen);

/*
 * Interfaces with a pin directory under @root, sorted by name, at most
 * @max. Return: how many, or a negative errno (-ENOENT: no root).
 */
int xrx_pin_ifaces(const char *root, char (*names)[IF_NAMESIZE], int max);
/* The NAMEs of the files NAME@suffix in @dir that are valid interface
 * names ("eth0" of "eth0.conf"), sorted. Return: how many, or -errno. */
int xrx_dir_ifaces(const char *dir, const char *suffix,
		   char (*names)[IF_NAMESIZE], int max);

/* An fd for PIN_ROOT/IFACE/NAME, or a negative errno. */
int xrx_pin_open(const char *root, const char *ifname, const char *name);

/*
 * What a killed xrxd left: if the XDP program on @ifindex is the xrx_rx
 * pinned in PIN_ROOT/IFNAME, detach it (only it: XDP_FLAGS_REPLACE) and
 * remove the pins (also when no program is attached). A program that is
 * not that one is left alone and its id stored in *foreign_id; the pins
 * then stay too (they may be its maps). *detached_id: the id detached,
 * 0 if none. Return: 0 or a negative errno with err filled.
 */
int xrx_leftover_clear(const char *root, const char *ifname, int ifindex,
		       __u32 *detached_id, __u32 *foreign_id, char *err,
		       size_t errlen);

/* xrx_stats' one per-CPU entry, summed over CPUs. */
int xrx_pin_read_stats(int fd, struct xrx_counter out[XRX_STAT_MAX]);

#endif /* XRX_CTL_PINS_H */
