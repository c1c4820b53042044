/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xrx_ustats: xrxd's userspace counters in a pinned BPF map next to the
 * kernel's xrx_stats, so one `bpftool map dump pinned
 * /sys/fs/bpf/xrx/IFACE/xrx_ustats` shows both sides by name.
 *
 * The map is created from userspace, not by xrx_rx (the program never
 * touches it): a one-entry BPF_MAP_TYPE_ARRAY whose value type is BTF that
 * xrxd builds at run time from the counter tables of libxrx (live.h,
 * xrx.h, sink.h), so the names bpftool prints are the names xrxctl, the
 * JSON and the Prometheus output use, with no second copy to keep in step:
 *
 *   struct xrx_ustats {
 *           __u64 pid, updated_ns, ...;          daemon facts (table below)
 *           struct xrx_ustats_live live;     live path, summed over queues
 *           struct xrx_ustats_engine engine; GRO engines, summed
 *           struct xrx_ustats_sink sink;     sinks, summed
 *           struct xrx_ustats_tee tee;       the tee beside them (sink
 *                                            counters), summed
 *   };
 *
 * One writer (xrxd's main thread, about once a second), any number of
 * readers; a reader may see a refresh half done, which for counters that
 * only grow is harmless.
 */
#ifndef XRX_CTL_USTATS_H
#define XRX_CTL_USTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <xrx/xrx.h>

#define XRX_USTATS_NAME XRX_PIN_USTATS	/* include/xrx/prog.h */

/* X(enumerator suffix, name, description): daemon facts, not summed. */
#define XRX_USTATS_HDR_TABLE(X)                                                \
	X(PID, "pid", "process id of the xrxd that writes this map")          \
	X(STARTED_NS, "started_ns", "when it started (CLOCK_REALTIME, ns)")    \
	X(UPDATED_NS, "updated_ns", "last refresh (CLOCK_REALTIME, ns)")       \
	X(IFINDEX, "ifindex", "the interface's index")                        \
	X(PROG_ID, "prog_id", "id of the xrx_rx program xrxd attached")        \
	X(ATTACH_MODE, "attach_mode", "1 native, 2 skb (generic)")             \
	X(MTU, "mtu", "the interface's MTU")                                  \
	X(QUEUES, "queues", "RX queues with an AF_XDP worker")                \
	X(FIRST_QUEUE, "first_queue", "the first of them")                    \
	X(ZEROCOPY_QUEUES, "zerocopy_queues", "queues bound in zero-copy mode") \
	X(MULTI_BUFFER_QUEUES, "multi_buffer_queues",                          \
	  "queues bound with XDP_USE_SG")                                      \
	X(RULES, "rules", "accelerate rules in xrx_rules")                    \
	X(RELOADS, "reloads", "configurations reloaded (SIGHUP)")              \
	X(WORKER_RESTARTS, "worker_restarts",                                  \
	  "sockets closed and reopened (queue count change, MTU beyond the frames)") \
	X(LIVE_SWAPS, "live_swaps",                                            \
	  "sink/engine changes made in place, sockets kept (SIGHUP)")          \
	X(BIND_FAILURES, "bind_failures",                                      \
	  "attempts to (re)open the AF_XDP sockets that failed")              \
	X(DEGRADED, "degraded",                                                \
	  "1: something fails that xrxd cannot mend by itself; degraded_reasons says what") \
	X(DEGRADED_REASONS, "degraded_reasons",                                \
	  "bit mask of XRX_DEGRADED_TABLE: why degraded is 1")                 \
	X(STUCK_WORKERS, "stuck_workers",                                      \
	  "workers whose heartbeat stopped (blocked in their sink)")           \
	X(UNACCOUNTED, "unaccounted",                                          \
	  "frames no counter accounts for (0 when idle; in flight otherwise)") \
	X(KERNEL_LACKS, "kernel_lacks",                                        \
	  "bit mask of enum xrx_kernel_feature: what xrxd does without because this kernel lacks it")

enum xrx_ustats_hdr {
#define XRX_X_ENUM(e, n, d) XRX_USTATS_##e,
	XRX_USTATS_HDR_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_USTATS_HDR_MAX
};

/*
 * Why xrxd is degraded: X(enumerator suffix, name, what it means to the
 * traffic). Bit i of degraded_reasons is the i-th row; xrxd sets them
 * (xrxd_degraded_set()), xrxctl status and stats print them.
 */
#define XRX_DEGRADED_TABLE(X)                                                  \
	X(NO_SOCKETS, "no_sockets",                                            \
	  "no AF_XDP sockets: xrx_rx passes the traffic to the kernel (pass_no_socket) and xrxd keeps retrying") \
	X(PROG_DETACHED, "prog_detached",                                      \
	  "xrx_rx was detached by someone else: nothing is accelerated; xrxd does not attach it again by itself (restart xrxd for that)") \
	X(PROG_REPLACED, "prog_replaced",                                      \
	  "another XDP program replaced xrx_rx: nothing reaches xrxd; xrxd leaves that program alone (detach it and restart xrxd)") \
	X(SINK_FULL, "sink_full",                                              \
	  "the sink's file system is full: delivered packets are lost (never a torn record) until space returns") \
	X(SINK_ERRORS, "sink_errors",                                          \
	  "the sink fails to write: delivered packets are lost until writes succeed again") \
	X(TEE_FULL, "tee_full",                                                \
	  "the tee's file system is full: the capture beside the sink loses packets (never a torn record) until space returns; the sink still gets every packet") \
	X(TEE_ERRORS, "tee_errors",                                            \
	  "the tee fails to write: the capture beside the sink loses packets until writes succeed again; the sink still gets every packet") \
	X(CSUM_PARTIAL, "csum_partial",                                        \
	  "frames with partial checksums (a sender's TX checksum offload) are refused: the stack behind the sink drops them and those connections hang; turn the offload off on the sender (ethtool -K PEER tx off) or set csum_partial = accept")

enum xrx_degraded_reason {
#define XRX_X_ENUM(e, n, d) XRX_DEGRADED_##e,
	XRX_DEGRADED_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_DEGRADED_MAX
};

/* Name and meaning of reason @r; NULL if out of range. */
const char *xrx_degraded__name(int r);
const char *xrx_degraded__desc(int r);

enum xrx_attach_mode_id {
	XRX_ATTACH_ID_NONE = 0,
	XRX_ATTACH_ID_NATIVE = 1,
	XRX_ATTACH_ID_SKB = 2,
};

/* The map value; its BTF is built from the same tables. */
struct xrx_ustats {
	__u64 hdr[XRX_USTATS_HDR_MAX];
	__u64 live[XRX_LIVE_STAT_MAX];
	__u64 engine[XRX_ENGINE_STAT_MAX];
	__u64 sink[XRX_SINK_STAT_MAX];
	__u64 tee[XRX_SINK_STAT_MAX];
};

/* The groups of the value, in order, as the BTF names them. */
enum xrx_ustats_group {
	XRX_USTATS_G_HDR,
	XRX_USTATS_G_LIVE,
	XRX_USTATS_G_ENGINE,
	XRX_USTATS_G_SINK,
	XRX_USTATS_G_TEE,
	XRX_USTATS_G_MAX
};

/* "live", "engine", "sink", "tee" ("" for the daemon facts). */
const char *xrx_ustats_group_name(enum xrx_ustats_group g);
/* Counters in group g, and the name/description/value of number i. */
unsigned int xrx_ustats_group_len(enum xrx_ustats_group g);
const char *xrx_ustats_name(enum xrx_ustats_group g, unsigned int i);
const char *xrx_ustats_desc(enum xrx_ustats_group g, unsigned int i);
__u64 *xrx_ustats_at(struct xrx_ustats *u, enum xrx_ustats_group g,
		     unsigned int i);
/* Gauges (umem_* snapshots, daemon facts): not summed, not rated. */
bool xrx_ustats_is_gauge(enum xrx_ustats_group g, unsigned int i);

/*
 * Create the map with its BTF and pin it at @path (a stale pin there is
 * replaced). Return: the map fd, or a negative errno with err filled.
 */
int xrx_ustats_create(const char *path, char *err, size_t errlen);
int xrx_ustats_write(int fd, const struct xrx_ustats *u);
/*
 * Read the value; -EPROTO (err says so) when the map's value size is not
 * this build's (xrxd and xrxctl from different builds).
 */
int xrx_ustats_read(int fd, struct xrx_ustats *u, char *err, size_t errlen);

/*
 * The copy for readers that are not root: /sys/fs/bpf is root's (systemd
 * mounts it 0700), so xrxd also writes the map's value and xrx_rx's
 * counters to STATEDIR/IFACE.stats at every refresh, mode 0640, in group
 * XRX_STATS_GROUP when that group exists (docs/xrxd.md, Monitoring as a
 * user). Written whole to a temporary name and renamed, so a reader sees
 * one refresh or the one before.
 */
#define XRX_STATS_GROUP "xrx"

struct xrx_ustats_file {
	char magic[8];			/* XRX_USTATS_FILE_MAGIC */
	__u32 sizes[4];			/* sizeof the parts below, this
					 * build's: another build's file is
					 * refused */
	struct xrx_ustats u;
	struct xrx_counter k[XRX_STAT_MAX];
};

#define XRX_USTATS_FILE_MAGIC "xrxust1"

/* STATEDIR/IFACE.stats; -ENAMETOOLONG if it does not fit. */
int xrx_ustats_file_path(const char *statedir, const char *ifname,
			 char *buf, size_t len);
/* Write it, group @gid unless it is (gid_t)-1. Return: 0 or -errno. */
int xrx_ustats_file_write(const char *statedir, const char *ifname,
			  const struct xrx_ustats *u,
			  const struct xrx_counter k[XRX_STAT_MAX], gid_t gid);
/* Read it. Return: 0, -errno of the open (err empty), or -EPROTO with
 * err saying why. */
int xrx_ustats_file_read(const char *statedir, const char *ifname,
			 struct xrx_ustats *u, struct xrx_counter k[XRX_STAT_MAX],
			 char *err, size_t errlen);

#endif /* XRX_CTL_USTATS_H */
