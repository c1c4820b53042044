/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Accelerate rules (map xrx_rules) and program configuration (map xrx_cfg).
 *
 * xrx_rules is one LPM trie for both address families. The key's data is
 *   proto (8 bits) | zero (8) | destination port (16, network order) |
 *   destination address (128; IPv4 as ::ffff:a.b.c.d)
 * so a rule's prefix length is 32 + the address prefix it covers:
 *   "tcp/5001"                 prefixlen 32       (any address, v4 and v6)
 *   "tcp/5001@198.18.0.0/15"   prefixlen 32+96+15 (IPv4 only)
 *   "tcp/5001@2001:db8::/32"   prefixlen 32+32
 * Port 0 means "any port": xrx_rx looks up the frame's port first and
 * port 0 second, so a specific port rule wins over a wildcard one.
 */
#ifndef XRX_RULES_H
#define XRX_RULES_H

#include <xrx/types.h>

#define XRX_RULES_MAX 1024
#define XRX_RULE_PREFIX_BASE 32	/* proto + zero + port bits */
#define XRX_RULE_PREFIX_V4 (XRX_RULE_PREFIX_BASE + 96)

struct xrx_rule_key {
	__u32 prefixlen;	/* LPM: bits of the fields below */
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	__u8 zero;
	__be16 port;		/* destination port, 0 = any */
	__u8 addr[16];		/* destination; IPv4 mapped into ::ffff:0:0/96 */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_rule_key) == 24, "xrx_rules key ABI");

enum xrx_action {
	XRX_ACT_PASS = 0,	/* hand the frame to the kernel */
	XRX_ACT_ACCEL = 1,	/* redirect it to the queue's AF_XDP socket */
};

struct xrx_rule_val {
	__u32 action;	/* enum xrx_action */
	__u32 id;	/* rule number, for the operator */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_rule_val) == 8, "xrx_rules value ABI");

/* xrx_cfg: a one-entry array, key 0. Zero-filled means pass everything. */
struct xrx_cfg {
	__u32 default_action;	/* enum xrx_action when no rule matches */
	__u32 flags;		/* reserved, zero */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_cfg) == 8, "xrx_cfg value ABI");

#endif /* XRX_RULES_H */
