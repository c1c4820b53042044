/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Counters of the XDP program, one table for BPF, CLI, JSON and bpftool.
 *
 * xrx_stats is a per-CPU array keyed by enum xrx_stat (BTF-typed, so
 * `bpftool map dump` prints the enumerator name) whose value is a
 * struct xrx_counter. Every frame is counted once in XRX_STAT_RX and once
 * in exactly one verdict counter (REDIRECT or one PASS_*); NO_META_ROOM
 * is an extra note on a redirected frame.
 */
#ifndef XRX_STATS_H
#define XRX_STATS_H

#include <xrx/types.h>

/* X(enumerator suffix, name shown to users, description) */
#define XRX_STATS_TABLE(X)                                                    \
	X(RX, "rx", "frames seen by xrx_rx")                                  \
	X(REDIRECT, "redirect", "frames redirected to an AF_XDP socket")      \
	X(PASS_NO_SOCKET, "pass_no_socket", "matched, but no socket on the queue") \
	X(PASS_NOT_IP, "pass_not_ip", "not IPv4/IPv6 (ARP, LLDP, ...)")       \
	X(PASS_NOT_L4, "pass_not_l4", "IP but neither TCP nor UDP (ICMP, ...)") \
	X(PASS_FRAG, "pass_frag", "IPv4 fragment or IPv6 fragment header")    \
	X(PASS_NO_RULE, "pass_no_rule", "no rule matched, default is pass")   \
	X(PASS_EXCLUDED, "pass_excluded", "a rule said pass")                 \
	X(PASS_MALFORMED, "pass_malformed", "truncated or inconsistent headers") \
	X(PASS_TOO_LONG, "pass_too_long", "headers beyond the parse window")  \
	X(NO_META_ROOM, "no_meta_room", "redirected without xrx_meta")

enum xrx_stat {
#define XRX_X_ENUM(e, n, d) XRX_STAT_##e,
	XRX_STATS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_STAT_MAX
};

struct xrx_counter {
	__u64 packets;
	__u64 bytes;
};

XRX_STATIC_ASSERT(sizeof(struct xrx_counter) == 16, "xrx_stats value ABI");

#ifndef __bpf__
/* Userspace: names and descriptions indexed by enum xrx_stat. */
static const char *const xrx_stat_names[XRX_STAT_MAX] = {
#define XRX_X_NAME(e, n, d) [XRX_STAT_##e] = n,
	XRX_STATS_TABLE(XRX_X_NAME)
#undef XRX_X_NAME
};
static const char *const xrx_stat_descs[XRX_STAT_MAX] = {
#define XRX_X_DESC(e, n, d) [XRX_STAT_##e] = d,
	XRX_STATS_TABLE(XRX_X_DESC)
#undef XRX_X_DESC
};
#endif

#endif /* XRX_STATS_H */
