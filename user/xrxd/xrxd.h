/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrxd's pieces (main.c lists them): the command line (main.c), the
 * config file (config.c), the start and stop (startup.c), the main loop
 * (serve.c), reloads (reload.c), worker restarts and the degraded state
 * (restart.c), link events (linkmon.c), its XDP side (xdp.c: xrx_rx
 * attached, its rules and pins), the AF_XDP workers and their counters
 * (workers.c), and what is watched (health.c, csum.c).
 */
#ifndef XRXD_H
#define XRXD_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include <xrx/xrx.h>

#include "ctl_conf.h"
#include "ctl_offload.h"
#include "ctl_ustats.h"

#define EXIT_USAGE 2

/* What xrxd was asked to do (main.c's command line). */
enum xrxd_mode {
	MODE_RUN,
	MODE_CHECK_CONFIG,
	MODE_APPLY_ONLY,
};

struct xrxd_opts {
	const char *ifname;
	const char *config;
	const char *statedir;
	const char *pin_root;
	int mode;		/* enum xrxd_mode */
	int verbosity;
	/* ifname came from the config file's name (xrxd_conf_instance()) */
	bool ifname_from_file;
	char instance[IF_NAMESIZE];
};

/* The interface as the link events tell it (linkmon.c, startup.c). */
struct xrxd_link {
	int ifindex;
	unsigned int mtu;
	bool link_up;
	bool gone;		/* the interface was removed */
};

/* xrx_rx and its rules (xdp.c), and what health.c saw of it. */
struct xrxd_xdp {
	struct xrx_prog *prog;	/* xrx_rx, attached and pinned */
	bool tags_readable;	/* the driver's stripped VLAN tags reach
				 * xrx_meta (device-bound build, kfunc) */
	bool tags_lost;		/* they would have, but the device-bound
				 * build could not be attached */
	/* While attaching, libxrx's last warning is held back: if the
	 * attach fails it is the reason (an error), else a warning. */
	bool attaching;
	bool held;
	char held_msg[1024];
	unsigned int nrules;
	bool xdp_event;		/* a link event carried IFLA_XDP */
	__u32 xdp_seen_id;	/* the XDP program last looked at */
	bool xdp_looked;
};

/* The AF_XDP workers (workers.c) and their restarts (restart.c). */
struct xrxd_workers {
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
};

/* The published counters (stats.c). */
struct xrxd_stats {
	struct xrx_ustats us;
	int ustats_fd;
	/* The copy in the state directory (ctl_ustats.h): its group, -1
	 * where XRX_STATS_GROUP does not exist; written since the start. */
	gid_t stats_gid;
	bool stats_file;
	/* For rates in STATUS=. */
	__u64 last_ns;
	__u64 last_frames, last_bytes;
};

/* What is watched (health.c, csum.c). */
struct xrxd_health {
	/* Degraded for other reasons than a failed bind (that one is
	 * workers.degraded), a bit per XRX_DEGRADED_*, each with the
	 * detail STATUS= shows. */
	__u32 degraded_why;
	char degraded_text[XRX_DEGRADED_MAX][192];
	/* The sink's counters at the last look, and the episode of lost
	 * writes under way (its start logged at most once a minute). */
	__u64 sink_errors, sink_nospace, sink_out, tee_errors;
	__u64 sink_lost;	/* in this episode */
	__u64 sink_logged_ns, sink_reminded_ns;
	unsigned int sink_quiet;	/* episodes not logged (rate limit) */
	bool sink_episode_logged;
	/* csum.c: whether the first partial checksum was logged,
	 * refusals at the last look and when the count last grew. */
	bool csum_partial_said;
	__u64 csum_refused, csum_refused_ns;
	/* The last consuming-sink warning: its rules and its sink. */
	char consuming_said[512];
	char consuming_sink[PATH_MAX + 8];
};

/* Reloads (reload.c). */
struct xrxd_reload {
	__u64 reload_gen;	/* reloads so far */
};

/* The daemon: what every piece shares, then each piece's own state. */
struct xrxd {
	const struct xrxd_opts *o;
	struct xrx_conf *conf;	/* the running configuration */
	struct xrx_nl *nl;
	char ifname[IF_NAMESIZE];

	struct xrxd_link link;
	struct xrxd_xdp xdp;
	struct xrxd_workers workers;
	struct xrxd_stats stats;
	struct xrxd_health health;
	struct xrxd_reload reload;
};

/* config.c: read the config file for @o. Return: 0, or EXIT_USAGE
 * having logged why. */
int xrxd_config_load(const struct xrxd_opts *o, struct xrx_conf *conf);

/* startup.c: start, serve, stop. Return: the exit status. */
int xrxd_run(const struct xrxd_opts *o, struct xrx_conf *conf);

/* serve.c: until a stop signal or the interface going away. Return: 0
 * for a normal stop, 1 otherwise. */
int xrxd_serve(struct xrxd *x, const sigset_t *sigs);

/* reload.c: SIGHUP. Return: 0 when the new config runs. */
int xrxd_reload(struct xrxd *x);

/* restart.c */
void xrxd_enter_degraded(struct xrxd *x, int err);
void xrxd_retry_degraded(struct xrxd *x);
int xrxd_restart_workers(struct xrxd *x, const struct xrx_conf *conf);

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
/* Stop and close the workers, their counters folded into x->base.
 * Return: true when there were workers (xrxd_stats_refresh() then
 * publishes their last counts). */
bool xrxd_workers_stop(struct xrxd *x);
bool xrxd_workers_differ(const struct xrx_conf *a, const struct xrx_conf *b);
bool xrxd_outputs_differ(const struct xrx_conf *a, const struct xrx_conf *b);
bool xrxd_workers_need_reopen(const struct xrx_conf *a,
			      const struct xrx_conf *b);
int xrxd_workers_swap(struct xrxd *x, const struct xrx_conf *conf);
bool xrxd_workers_cover_mtu(struct xrxd *x, unsigned int mtu);
unsigned int xrxd_workers_stuck(struct xrxd *x, __u32 *first, __u64 *age_ns);
void xrxd_stats_refresh(struct xrxd *x);
void xrxd_stats_file_open(struct xrxd *x);
void xrxd_stats_file_remove(struct xrxd *x);
void xrxd_status(struct xrxd *x, char *buf, size_t len);
/* STATUS= to systemd. */
void xrxd_notify_status(struct xrxd *x);

/* check.c: the sink and the tee. 0, or a negative errno with one line
 * in @err. @run: xrxd runs (its runtime directory exists); else
 * --check-config. */
int xrxd_sink_check(const struct xrx_conf *c, bool run, char *err,
		    size_t errlen);
/* The instance a file XRX_CONF_DIR/NAME.conf is the config of, or NULL. */
const char *xrxd_conf_instance(const char *file, char *buf, size_t len);
/* Config checks that need the NIC: 0, or EXIT_USAGE having said why. */
int xrxd_check_nic(struct xrxd *x, const struct xrx_nic *nic);
/* Read the NIC; 0, or a negative errno having said why. */
int xrxd_read_nic(struct xrxd *x, struct xrx_nic *nic);

/* reload.c */
void xrxd_reload_record(struct xrxd *x, __u64 started_mono_ns, int ret,
			const char *reason);
void xrxd_reload_forget(struct xrxd *x);
/* health.c */
/* Degraded for @r (not NO_SOCKETS: that is x->degraded), detail for
 * STATUS=; return: true when @r was not set before. */
bool xrxd_degraded_set(struct xrxd_health *h, enum xrx_degraded_reason r,
		       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Return: true when @r was set. */
bool xrxd_degraded_clear(struct xrxd_health *h, enum xrx_degraded_reason r);
__u32 xrxd_degraded_mask(const struct xrxd *x);
/* "; DEGRADED: ..." for each reason but NO_SOCKETS; return: its length. */
int xrxd_degraded_status(const struct xrxd_health *h, char *buf, size_t len);
void xrxd_prog_watch(struct xrxd *x);
/* Return: true when it changed the degraded reasons. */
bool xrxd_sink_watch(struct xrxd *x);
void xrxd_consuming_note(struct xrxd *x, const struct xrx_conf *conf);

/* linkmon.c */
struct ethtool_drvinfo;
int xrxd_drvinfo(const char *name, struct ethtool_drvinfo *di);
void xrxd_engine_opts(struct xrxd *x, const struct xrx_conf *conf,
		      struct xrx_engine_opts *eng);
bool xrxd_csum_watch(struct xrxd *x);

int xrxd_linkmon_open(void);
struct mnl_socket;
/* The MTU changed: keep the sockets if their frames hold it. */
void xrxd_mtu_changed(struct xrxd *x);
/* The RX queue count changed: with queues = all, the workers follow. */
void xrxd_channels_changed(struct xrxd *x);
/* Drain the ethtool monitor; true if this interface's channels changed. */
bool xrxd_ethtool_events(struct xrxd *x, struct mnl_socket *mon);
/* Read pending link events. Return: 1 when the interface was removed. */
int xrxd_linkmon_read(struct xrxd *x, int fd, bool *restart);

/* @clock (CLOCK_MONOTONIC, CLOCK_REALTIME) in ns: read by the workers,
 * the health checks, the retry timer and the reload record alike. */
static inline __u64 xrxd_now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

#endif /* XRXD_H */
