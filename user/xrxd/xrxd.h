/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrxd's pieces: its XDP side (xdp.c: xrx_rx attached, its rules and
 * pins), the AF_XDP workers and their counters (workers.c), link events
 * (linkmon.c), and the lifecycle that ties them together (xrxd.c).
 */
#ifndef XRXD_H
#define XRXD_H

#include <limits.h>
#include <stdbool.h>

#include <xrx/xrx.h>

#include "ctl_conf.h"
#include "ctl_offload.h"
#include "ctl_ustats.h"

#define EXIT_USAGE 2

struct xrxd_opts {
	const char *ifname;
	const char *config;
	const char *statedir;
	const char *pin_root;
	int mode;		/* enum mode in xrxd.c */
	int verbosity;
};

struct xrxd {
	const struct xrxd_opts *o;
	struct xrx_conf *conf;	/* the running configuration */
	struct xrx_nl *nl;
	char ifname[IF_NAMESIZE];
	int ifindex;
	unsigned int mtu;
	bool link_up;
	bool gone;		/* the interface was removed */

	struct xrx_prog *prog;	/* xrx_rx, attached and pinned */
	bool tags_readable;	/* the driver's stripped VLAN tags reach
				 * xrx_meta (device-bound build, kfunc) */
	bool attaching;		/* its warnings are errors meanwhile */
	unsigned int nrules;

	struct xrx_live *live;
	__u32 nr_queues;
	__u32 bind_busy_ms;	/* EBUSY back-off budget per open */
	/* Degraded: no sockets (a bind failed); retried at retry_ns. */
	bool degraded;
	int bind_err;
	__u64 retry_ns, retry_gap_ns;
	bool stuck_logged;
	/* Counters of the live handles closed so far (worker restarts). */
	struct xrx_live_stats base;
	struct xrx_ustats us;
	int ustats_fd;

	/* For rates in STATUS=. */
	__u64 last_ns;
	__u64 last_frames, last_bytes;
};

/* xdp.c */
int xrxd_prog_check_leftover(struct xrxd *x, bool refuse_foreign);
int xrxd_prog_attach(struct xrxd *x);
bool xrxd_vlan_policy(struct xrxd *x, const struct xrx_conf *conf,
		      const struct xrx_nic *nic, struct xrx_conf_offload *rx_vlan);
void xrxd_prog_detach(struct xrxd *x);
int xrxd_rules_apply(struct xrxd *x, const struct xrx_conf *conf);
int xrxd_ustats_open(struct xrxd *x);

/* workers.c */
unsigned int xrxd_queue_count(const struct xrx_conf *conf,
			      const struct xrx_nic *nic);
int xrxd_workers_start(struct xrxd *x, const struct xrx_conf *conf);
void xrxd_workers_stop(struct xrxd *x);
bool xrxd_workers_differ(const struct xrx_conf *a, const struct xrx_conf *b);
bool xrxd_workers_need_reopen(const struct xrx_conf *a,
			      const struct xrx_conf *b);
int xrxd_workers_swap(struct xrxd *x, const struct xrx_conf *conf);
bool xrxd_workers_cover_mtu(struct xrxd *x, unsigned int mtu);
unsigned int xrxd_workers_stuck(struct xrxd *x, __u32 *first, __u64 *age_ns);
void xrxd_stats_refresh(struct xrxd *x);
void xrxd_status(struct xrxd *x, char *buf, size_t len);

/* linkmon.c */
int xrxd_linkmon_open(void);
/* Read pending link events. Return: 1 when the interface was removed. */
int xrxd_linkmon_read(struct xrxd *x, int fd, bool *restart);

__u64 xrxd_now_ns(int clock);

#endif /* XRXD_H */
