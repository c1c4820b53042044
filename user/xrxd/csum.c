// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Partial checksums (enum xrx_csum_partial in xrx/engine.h): what xrxd
 * decides for csum_partial = auto, and what it says when they arrive.
 *
 * A veth or tun moves the sender's skb in memory: a packet whose sum the
 * sender left to TX offload arrives CHECKSUM_PARTIAL and the kernel takes
 * it (skb_csum_unnecessary()). XDP sees only its bytes, so the engine
 * recognises the form instead, and on those links auto takes the packet
 * as the kernel would. On any other link the kernel would have dropped it
 * as corrupt, and auto refuses it: it goes alone, unverified, and the
 * stack behind a TUN drops it, so its connection hangs.
 *
 * Either way the first of them is logged within the second it is counted
 * (the main loop's refresh), once per xrxd run: accepted, a warning that
 * they are not verified and how to have them verified; refused, an error
 * naming the fix, and xrxd is degraded (xrxctl status, STATUS=) until a
 * minute passes with no new one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "ctl_log.h"
#include "xrxd.h"

#define CSUM_REFUSED_QUIET_NS 60000000000ull

int xrxd_drvinfo(const char *name, struct ethtool_drvinfo *di)
{
	struct ifreq ifr = { 0 };
	int fd, ret = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(di, 0, sizeof(*di));
	di->cmd = ETHTOOL_GDRVINFO;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)di;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		ret = -errno;
	close(fd);
	return ret;
}

/* Links that hand the peer's skb over in memory, CHECKSUM_PARTIAL kept
 * (veth_xmit() -> veth_forward_skb(); tun_get_user() with a vnet header
 * asking for NEEDS_CSUM). */
static bool link_keeps_partial(const char *ifname)
{
	struct ethtool_drvinfo di;

	if (xrxd_drvinfo(ifname, &di))
		return false;
	return !strcmp(di.driver, "veth") || !strcmp(di.driver, "tun");
}

void xrxd_engine_opts(struct xrxd *x, const struct xrx_conf *conf,
		      struct xrx_engine_opts *eng)
{
	*eng = conf->engine;
	if (eng->csum_partial == XRX_CSUM_PARTIAL_AUTO)
		eng->csum_partial = link_keeps_partial(x->ifname) ?
					    XRX_CSUM_PARTIAL_ACCEPT :
					    XRX_CSUM_PARTIAL_REFUSE;
}

bool xrxd_csum_watch(struct xrxd *x)
{
	__u64 seen = x->stats.us.engine[XRX_ENGINE_STAT_CSUM_PARTIAL];
	__u64 refused = x->stats.us.engine[XRX_ENGINE_STAT_SINGLE_CSUM_PARTIAL];
	__u64 now = xrxd_now_ns(CLOCK_MONOTONIC);
	bool changed = false;

	if (seen && !x->health.csum_partial_said) {
		x->health.csum_partial_said = true;
		if (!refused)
			ctl_warn("%s: %llu segment%s with a partial checksum (the sender's TX checksum offload: the field holds the pseudo-header sum), taken unverified as the kernel takes them from a veth or tun peer (csum_partial = %s); to have every sum verified, turn the offload off on the sender: ethtool -K PEER tx off",
				 x->ifname, (unsigned long long)seen,
				 seen == 1 ? "" : "s",
				 x->conf->engine.csum_partial ==
						 XRX_CSUM_PARTIAL_ACCEPT ?
					 "accept" : "auto");
	}
	if (refused > x->health.csum_refused) {
		x->health.csum_refused_ns = now;
		changed = xrxd_degraded_set(&x->health, XRX_DEGRADED_CSUM_PARTIAL,
					    "%llu frames with partial checksums (a sender's TX offload) refused, the stack drops them: ethtool -K PEER tx off on the sender, or csum_partial = accept",
					    (unsigned long long)refused);
		if (changed || !x->health.csum_refused)
			ctl_err("%s: DEGRADED: %llu frame%s with a partial checksum (the sender left the sum to its TX offload: the field holds the pseudo-header sum), refused on this link (csum_partial = %s): delivered unverified, the stack behind the sink drops them and those connections hang. Turn the offload off on the sender (ethtool -K PEER tx off), or set csum_partial = accept (or csum = trust) if this link hands such packets over (xrx.conf(5))",
				x->ifname, (unsigned long long)refused,
				refused == 1 ? "" : "s",
				x->conf->engine.csum_partial ==
						XRX_CSUM_PARTIAL_REFUSE ?
					"refuse" : "auto");
		x->health.csum_refused = refused;
		return true;
	}
	if ((x->health.degraded_why & (1u << XRX_DEGRADED_CSUM_PARTIAL)) &&
	    now - x->health.csum_refused_ns >= CSUM_REFUSED_QUIET_NS) {
		xrxd_degraded_clear(&x->health, XRX_DEGRADED_CSUM_PARTIAL);
		ctl_notice("%s: no frame with a partial checksum for a minute; no longer degraded",
			   x->ifname);
		return true;
	}
	return changed;
}
