// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Link events of the interface (rtnetlink, RTMGRP_LINK): down and up are
 * logged and survived (the sockets stay bound; the kernel only unbinds
 * them when the device goes away, xsk_notifier()), an MTU change is
 * handled by xrxd_mtu_changed() below (which keeps the sockets when their frames hold the
 * new MTU, and reopens them otherwise), the XDP program each event
 * carries is looked at by xrxd_prog_watch() (health.c), and
 * RTM_DELLINK - the device unregistered or moved to another namespace -
 * ends xrxd.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <libmnl/libmnl.h>

#include <stdlib.h>
#include <linux/ethtool.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "xrxd.h"

int xrxd_linkmon_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

struct link_ev {
	struct xrxd *x;
	bool *restart;
	bool removed;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type <= IFLA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	struct link_ev *ev = data;
	struct xrxd *x = ev->x;
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	unsigned int mtu;
	bool up;

	if (ifi->ifi_index != x->link.ifindex)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELLINK) {
		ev->removed = true;
		return MNL_CB_STOP;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifi), attr_cb, tb);
	up = ifi->ifi_flags & IFF_UP;
	if (up != x->link.link_up) {
		x->link.link_up = up;
		ctl_notice("%s: link %s; xrx_rx and the workers stay in place",
			   x->ifname, up ? "up" : "down");
	}
	if (tb[IFLA_IFNAME] && strcmp(mnl_attr_get_str(tb[IFLA_IFNAME]), x->ifname))
		ctl_warn("%s: renamed to %s; xrxd keeps its pins under the old name until it stops",
			 x->ifname, mnl_attr_get_str(tb[IFLA_IFNAME]));
	/* The XDP program as it is now (rtnl_xdp_fill(); do_setlink()
	 * notifies each change made over netlink): xrxd_mtu_changed() looks whether
	 * it is still xrx_rx (xrxd_prog_watch()). */
	if (tb[IFLA_XDP])
		x->xdp.xdp_event = true;
	if (tb[IFLA_MTU]) {
		mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
		if (mtu != x->link.mtu) {
			ctl_notice("%s: MTU %u -> %u", x->ifname, x->link.mtu, mtu);
			x->link.mtu = mtu;
			*ev->restart = true;
		}
	}
	return MNL_CB_OK;
}

int xrxd_linkmon_read(struct xrxd *x, int fd, bool *restart)
{
	char buf[16384] __attribute__((aligned(4)));
	struct link_ev ev = { .x = x, .restart = restart };
	int rounds;
	ssize_t n;

	/* Bounded: the socket is non-blocking, a burst is drained here. */
	for (rounds = 0; rounds < 64 && !ev.removed; rounds++) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* Events were lost: re-read the state. */
				ctl_warn("%s: link events overflowed; some were lost",
					 x->ifname);
				continue;
			}
			break;
		}
		mnl_cb_run(buf, (size_t)n, 0, 0, link_cb, &ev);
	}
	return ev.removed ? 1 : 0;
}

/* The MTU changed: keep the sockets if their frames hold it. */
void xrxd_mtu_changed(struct xrxd *x)
{
	if (x->workers.degraded)
		return;		/* the retry opens for the MTU of then */
	if (xrxd_workers_cover_mtu(x, x->link.mtu)) {
		ctl_notice("%s: MTU %u: the AF_XDP sockets hold frames of it; sockets, UMEMs and workers kept",
			   x->ifname, x->link.mtu);
		return;
	}
	ctl_notice("%s: MTU %u is more than the sockets' frames hold; reopening them",
		   x->ifname, x->link.mtu);
	xrxd_restart_workers(x, x->conf);
}

/*
 * The RX queue count changed (ethtool -L): with queues = all, the workers
 * follow it, so that no queue is left without a socket (its frames would
 * go to the kernel, pass_no_socket) and none is served that no longer
 * exists. A fixed count stays; xrxd says when the interface no longer has
 * that many.
 */
void xrxd_channels_changed(struct xrxd *x)
{
	struct xrx_nic *nic;
	unsigned int n, have;

	nic = malloc(sizeof(*nic));
	if (!nic || xrxd_read_nic(x, nic)) {
		free(nic);
		return;
	}
	have = nic->channels_err ? 0 : nic->ch_combined + nic->ch_rx;
	n = xrxd_queue_count(x->conf, nic);
	free(nic);
	if (n > XRX_LIVE_QUEUES_MAX)
		n = XRX_LIVE_QUEUES_MAX;
	if (x->conf->queues) {
		if (have && have < x->conf->queues)
			ctl_warn("%s: the interface has %u RX queues now, fewer than queues = %u; workers of the missing queues idle (set queues = all, or restore the channels)",
				 x->ifname, have, x->conf->queues);
		return;
	}
	if (n == x->workers.nr_queues || x->workers.degraded)
		return;		/* degraded: the retry reads the count itself */
	ctl_notice("%s: RX queues %u -> %u (channels changed); reopening the AF_XDP workers",
		   x->ifname, x->workers.nr_queues, n);
	xrxd_restart_workers(x, x->conf);
}

/* Drain the ethtool monitor socket (bounded); true if our channels changed. */
bool xrxd_ethtool_events(struct xrxd *x, struct mnl_socket *mon)
{
	char buf[8192] __attribute__((aligned(4)));
	bool hit = false;
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 64; rounds++) {
		n = recv(mnl_socket_get_fd(mon), buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == ENOBUFS) {	/* lost some: look anyway */
				hit = true;
				continue;
			}
			break;
		}
		hit |= xrx_ethtool_channels_ntf(buf, (size_t)n,
						x->link.ifindex);
	}
	return hit;
}
