// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The outcome of each reload, for `xrxctl reload` to wait for and
 * `xrxctl status` to show (ctl_reload.h): written after READY=1, so
 * that by the time xrxctl returns to systemd's ExecReload=, the
 * notification that ends the reload is already on its way. An outcome
 * left by an earlier xrxd is removed at start, this one's at stop.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_log.h"
#include "ctl_reload.h"
#include "xrxd.h"

/*
 * A reload that succeeded while xrxd is degraded: the new rules are in
 * place, but, e.g., nothing reaches them while xrx_rx is detached. The
 * outcome is ok, and its reason says what still stands in the way, so
 * that `xrxctl reload` does not report a plain success.
 */
static void degraded_note(const struct xrxd *x, char *buf, size_t len)
{
	__u32 mask = xrxd_degraded_mask(x);
	size_t n = 0;
	int r, k;

	buf[0] = '\0';
	for (r = 0; r < XRX_DEGRADED_MAX && n < len; r++) {
		if (!(mask & (1u << r)))
			continue;
		k = snprintf(buf + n, len - n, "%s%s",
			     n ? "; " : "xrxd is still DEGRADED: ",
			     xrx_degraded__desc(r));
		if (k < 0)
			break;
		n += (size_t)k;
	}
}

void xrxd_reload_record(struct xrxd *x, __u64 started_mono_ns, int ret,
			const char *reason)
{
	struct xrx_reload r;
	char err[PATH_MAX + 128];

	memset(&r, 0, sizeof(r));
	r.pid = getpid();
	r.generation = ++x->reload_gen;
	r.started_mono_ns = started_mono_ns;
	r.finished_ns = xrxd_now_ns(CLOCK_REALTIME);
	r.ok = !ret;
	if (ret)
		snprintf(r.reason, sizeof(r.reason), "%s",
			 reason[0] ? reason : "the reload failed (see the log)");
	else
		degraded_note(x, r.reason, sizeof(r.reason));
	if (xrx_reload_write(x->o->statedir, x->ifname, &r, err, sizeof(err)))
		ctl_warn("%s: cannot record the reload's outcome for xrxctl: %s",
			 x->ifname, err);
}

void xrxd_reload_forget(struct xrxd *x)
{
	xrx_reload_remove(x->o->statedir, x->ifname);
}
