/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The outcome of xrxd's last reload, in STATE-DIR/IFACE.reload: which
 * xrxd (pid), which attempt (generation), when it began (CLOCK_MONOTONIC,
 * to match a request against) and ended (CLOCK_REALTIME, to show), ok or
 * failed, and why it failed: the first error line the reload logged.
 *
 * `xrxctl reload IFACE` sends SIGHUP and waits for an outcome of that
 * pid that began after the signal was sent: one reload that begins later
 * reads the config as it is now, so signals that merge into one (SIGHUP
 * does not queue) are all answered by it. xrxctl status shows it.
 */
#ifndef XRX_CTL_RELOAD_H
#define XRX_CTL_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#define XRX_RELOAD_REASON_MAX 1024

struct xrx_reload {
	pid_t pid;
	__u64 generation;	/* 1 for the first reload of that xrxd */
	__u64 started_mono_ns;
	__u64 finished_ns;	/* CLOCK_REALTIME */
	bool ok;
	/* Failed: why. Ok: "", or what keeps the new configuration from
	 * taking full effect (xrxd still degraded). */
	char reason[XRX_RELOAD_REASON_MAX];
};

/* Text form and parser (@name for messages). */
int xrx_reload_format(const struct xrx_reload *r, char *buf, size_t len);
int xrx_reload_parse(const char *name, const char *text, size_t len,
		     struct xrx_reload *r, char *err, size_t errlen);

/* DIR/IFNAME.reload, written atomically like the state file. */
int xrx_reload_write(const char *dir, const char *ifname,
		     const struct xrx_reload *r, char *err, size_t errlen);
/* -ENOENT when there is none (no reload since xrxd started). */
int xrx_reload_read(const char *dir, const char *ifname, struct xrx_reload *r,
		    char *err, size_t errlen);
void xrx_reload_remove(const char *dir, const char *ifname);

#endif /* XRX_CTL_RELOAD_H */
