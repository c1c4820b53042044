// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrxd's main loop: one thread polls a signalfd (SIGHUP reloads,
 * SIGTERM/SIGINT stop), a timerfd (the watchdog, the degraded retry, the
 * counters and health about once a second), the link events
 * (linkmon.c) and the ethtool events (the channel count).
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include <libmnl/libmnl.h>
#include <systemd/sd-daemon.h>

#include "ctl_log.h"
#include "ctl_offload.h"
#include "xrxd.h"

static int timer_fd(__u64 period_ns)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = (time_t)(period_ns / 1000000000ull),
				 .tv_nsec = (long)(period_ns % 1000000000ull) },
	};
	int fd;

	its.it_value = its.it_interval;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * Serve until a stop signal, the interface going away, or a fatal worker
 * error. Return: 0 for a normal stop, 1 otherwise.
 */
int xrxd_serve(struct xrxd *x, const sigset_t *sigs)
{
	__u64 wd_usec = 0, period = 1000000000ull, last_refresh = 0, now, tick;
	struct signalfd_siginfo si;
	struct pollfd pfd[4];
	struct mnl_socket *mon;
	bool restart, wd;
	unsigned int stuck;
	__u64 sage = 0;
	__u32 sq = 0;
	char name[IF_NAMESIZE];
	int sfd, tfd, lfd, ret = 1;

	wd = sd_watchdog_enabled(0, (uint64_t *)&wd_usec) > 0 && wd_usec;
	if (wd && wd_usec * 1000 / 2 < period)
		period = wd_usec * 1000 / 2;
	sfd = signalfd(-1, sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	tfd = timer_fd(period);
	lfd = xrxd_linkmon_open();
	mon = xrx_ethtool_monitor_open(x->nl);
	if (sfd < 0 || tfd < 0) {
		ctl_err("%s: cannot set up the event loop: %s", x->ifname,
			strerror(errno));
		goto out;
	}
	if (lfd < 0)
		ctl_warn("%s: no link events (%s): removal is noticed within a second, MTU changes are not",
			 x->ifname, strerror(-lfd));
	if (!mon)
		ctl_warn("%s: no ethtool events (%s): a change of the RX queue count is not followed",
			 x->ifname, strerror(errno));
	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	/* A negative fd is skipped by poll(). */
	pfd[2] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	pfd[3] = (struct pollfd){ .fd = mon ? mnl_socket_get_fd(mon) : -1,
				  .events = POLLIN };
	for (;;) {
		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			ctl_err("%s: poll: %s", x->ifname, strerror(errno));
			goto out;
		}
		if (pfd[0].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGHUP) {
				xrxd_reload(x);
				continue;
			}
			ctl_notice("%s: %s received; stopping", x->ifname,
				   strsignal((int)si.ssi_signo));
			ret = 0;
			goto out;
		}
		if (lfd >= 0 && pfd[2].revents & POLLIN) {
			restart = false;
			if (xrxd_linkmon_read(x, lfd, &restart)) {
				x->link.gone = true;
				ctl_notice("%s: the interface was removed (or moved to another network namespace); shutting down",
					   x->ifname);
				ret = 0;
				goto out;
			}
			if (restart)
				xrxd_mtu_changed(x);
			if (x->xdp.xdp_event)
				xrxd_prog_watch(x);
		}
		if (mon && pfd[3].revents & POLLIN && xrxd_ethtool_events(x, mon))
			xrxd_channels_changed(x);
		if (pfd[1].revents & POLLIN &&
		    read(tfd, &tick, sizeof(tick)) == sizeof(tick)) {
			/* A stuck worker withholds the watchdog: systemd
			 * restarts a service that no longer moves frames. */
			stuck = xrxd_workers_stuck(x, &sq, &sage);
			if (wd && !stuck)
				sd_notify(0, "WATCHDOG=1");
			if (stuck && !x->workers.stuck_logged)
				ctl_err("%s: the worker of queue %u has not come round its loop for %.1f s (blocked in its sink?)%s",
					x->ifname, sq, (double)sage / 1e9,
					wd ? "; WATCHDOG=1 withheld" : "");
			else if (!stuck && x->workers.stuck_logged)
				ctl_notice("%s: every worker runs again", x->ifname);
			x->workers.stuck_logged = stuck != 0;
			xrxd_retry_degraded(x);
			now = xrxd_now_ns(CLOCK_MONOTONIC);
			if (now - last_refresh < 900000000ull)
				continue;
			last_refresh = now;
			/* Events can be lost (ENOBUFS): look for ourselves. */
			if (!if_indextoname((unsigned int)x->link.ifindex,
					    name)) {
				x->link.gone = true;
				ctl_notice("%s: the interface no longer exists; shutting down",
					   x->ifname);
				ret = 0;
				goto out;
			}
			xrxd_prog_watch(x);
			xrxd_stats_refresh(x);
			if (xrxd_sink_watch(x))
				xrxd_stats_refresh(x);	/* publish the change */
			if (xrxd_csum_watch(x))
				xrxd_stats_refresh(x);
			xrxd_notify_status(x);
		}
	}
out:
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	if (lfd >= 0)
		close(lfd);
	if (mon)
		mnl_socket_close(mon);
	return ret;
}
