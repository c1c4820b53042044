/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Counters of the XDP program, one table for BPF, CLI, JSON and bpftool.
 *
 * xrx_stats is a per-CPU array with ONE entry (key 0) whose value is
 * struct xrx_stats: one named struct xrx_counter member per row of the
 * table below, generated from it. `bpftool map dump` therefore prints
 * every counter by name ("rx": {"packets": .., "bytes": ..}, ...), which a
 * map keyed by an enum cannot do (the kernel accepts only an integer
 * BTF key for arrays). Code indexes the same value as an array of
 * struct xrx_counter by enum xrx_stat.
 *
 * Every frame is counted once in rx and once in exactly one verdict
 * counter (redirect or one pass_*); no_meta_room is an extra note on a
 * redirected frame. Every frame that reaches the parser is also counted
 * once in parse_linear or parse_copy: how xrx_rx read its headers.
 * vxlan and vxlan_inner_rule describe VXLAN frames (include/xrx/rules.h),
 * geneve and geneve_inner_rule GENEVE frames, the same way;
 * hash_nic counts accelerated frames whose xrx_meta hash is the NIC's L4
 * RX hash rather than xrx_flow_hash(): 0 with the plain build, and with
 * the device-bound one on a NIC that gives no L4 hash (rx-hashing off).
 */
#ifndef XRX_STATS_H
#define XRX_STATS_H

#include <xrx/types.h>
#include <xrx/tunnel.h>

/* X(enumerator suffix, name shown to users and in BTF, description) */
#define XRX_STATS_TABLE(X)                                                    \
	X(RX, rx, "frames seen by xrx_rx")                                  \
	X(REDIRECT, redirect, "frames redirected to an AF_XDP socket")      \
	X(PASS_NO_SOCKET, pass_no_socket, "matched, but no socket on the queue") \
	X(PASS_NOT_IP, pass_not_ip, "not IPv4/IPv6 (ARP, LLDP, ...)")       \
	X(PASS_NOT_L4, pass_not_l4, "IP but neither TCP nor UDP (ICMP, ...)") \
	X(PASS_FRAG, pass_frag, "IPv4 fragment or IPv6 fragment header")    \
	X(PASS_NO_RULE, pass_no_rule, "no rule matched, default is pass")   \
	X(PASS_EXCLUDED, pass_excluded, "a rule said pass")                 \
	X(PASS_MALFORMED, pass_malformed, "truncated or inconsistent headers") \
	X(PASS_TOO_LONG, pass_too_long, "headers beyond the parse window")  \
	X(NO_META_ROOM, no_meta_room, "redirected without xrx_meta")        \
	X(PARSE_LINEAR, parse_linear, "headers parsed in the linear area")   \
	X(PARSE_COPY, parse_copy, "headers copied out of fragments to parse") \
	X(VXLAN, vxlan, "UDP frames to a VXLAN port (xrx_cfg vxlan_ports)") \
	X(VXLAN_INNER_RULE, vxlan_inner_rule, "VXLAN frames an inner rule gave the verdict") \
	X(HASH_NIC, hash_nic, "accelerated frames whose flow hash is the NIC's (device-bound build)") \
	X(GENEVE, geneve, "UDP frames to a GENEVE port (xrx_cfg geneve_ports)") \
	X(GENEVE_INNER_RULE, geneve_inner_rule, "GENEVE frames an inner rule gave the verdict")

enum xrx_stat {
#define XRX_X_ENUM(e, n, d) XRX_STAT_##e,
	XRX_STATS_TABLE(XRX_X_ENUM)
#undef XRX_X_ENUM
	XRX_STAT_MAX
};

/*
 * Every frame xrx_rx sees is counted in RX and in exactly one verdict,
 * REDIRECT or one of the PASS_ reasons; the counters after them
 * (no_meta_room, parse_linear, parse_copy, vxlan, vxlan_inner_rule,
 * hash_nic, geneve, geneve_inner_rule) say
 * more about some of those frames and add up to nothing.
 */
#define XRX_STAT_VERDICT_FIRST XRX_STAT_REDIRECT
#define XRX_STAT_VERDICT_LAST XRX_STAT_PASS_TOO_LONG

/* A tunnel kind's two counters: frames to its ports, and those an inner
 * rule decided (enum xrx_tnl_kind). */
XRX_STATIC_ASSERT(XRX_TNL_KINDS == 2, "a counter pair for every tunnel kind");
#define XRX_STAT_TNL(kind) ((kind) ? XRX_STAT_GENEVE : XRX_STAT_VXLAN)
#define XRX_STAT_TNL_INNER_RULE(kind)                                         \
	((kind) ? XRX_STAT_GENEVE_INNER_RULE : XRX_STAT_VXLAN_INNER_RULE)

static __always_inline int xrx_stat_is_verdict(unsigned int stat)
{
	return stat >= XRX_STAT_VERDICT_FIRST && stat <= XRX_STAT_VERDICT_LAST;
}

struct xrx_counter {
	__u64 packets;
	__u64 bytes;
};

XRX_STATIC_ASSERT(sizeof(struct xrx_counter) == 16, "xrx_counter ABI");

/* The value of xrx_stats' single entry. */
struct xrx_stats {
#define XRX_X_FIELD(e, n, d) struct xrx_counter n;
	XRX_STATS_TABLE(XRX_X_FIELD)
#undef XRX_X_FIELD
};

XRX_STATIC_ASSERT(sizeof(struct xrx_stats) ==
			  XRX_STAT_MAX * sizeof(struct xrx_counter),
		  "struct xrx_stats is indexable by enum xrx_stat");

/* The counter for @stat inside an xrx_stats value. */
static __always_inline struct xrx_counter *xrx_stats_at(struct xrx_stats *s,
						       unsigned int stat)
{
	return &((struct xrx_counter *)s)[stat];
}

#ifndef __bpf__
#include <xrx/counters.h>

/* Userspace: xrx_stat_names[], xrx_stat__name(), ... by enum xrx_stat. */
XRX_COUNTERS_DEFINE(static inline, xrx_stat, XRX_STATS_TABLE, XRX_STAT_MAX,
		    XRX_COUNTER_NAME_ID)
#endif

#endif /* XRX_STATS_H */
