/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Accelerate rules (map xrx_rules) and program configuration (map xrx_cfg).
 *
 * xrx_rules is one LPM trie for both address families. The key's data is
 *   proto (8 bits) | scope (8) | destination port (16, network order) |
 *   destination address (128; IPv4 as ::ffff:a.b.c.d)
 * so a rule's prefix length is 32 + the address prefix it covers:
 *   "tcp/5001"                 prefixlen 32       (any address, v4 and v6)
 *   "tcp/5001@198.18.0.0/15"   prefixlen 32+96+15 (IPv4 only)
 *   "tcp/5001@2001:db8::/32"   prefixlen 32+32
 * Port 0 means "any port": xrx_rx looks up the frame's port first and
 * port 0 second, so a specific port rule wins over a wildcard one.
 *
 * The scope says which headers a rule matches. XRX_RULE_SCOPE_OUTER (0)
 * matches the frame's own IP and TCP/UDP headers. A tunnel kind's scope,
 * XRX_RULE_SCOPE_TNL(kind) ("vxlan:tcp/5201", "geneve:tcp/5201" in xrxd's
 * config), matches the frame inside that tunnel: for a UDP frame to one
 * of the kind's ports in xrx_cfg, with XRX_CFG_F_INNER_RULES set, xrx_rx
 * parses the inner frame and looks up its protocol, port and address in
 * that scope first; the verdict of an inner rule is the frame's, and when
 * none matches the outer rules decide. The scope is inside the 32 bits
 * every rule's prefix covers, so no scope matches another's rules.
 *
 * xrx_ports answers most frames without the trie. It is an array keyed by
 * the destination port (host order), whose value holds, for TCP and UDP
 * in each scope (struct xrx_port_val: column scope * 2 + (UDP)), what the two trie lookups above give for that port when
 * the answer does not depend on the address (enum xrx_port_verdict):
 * the action of the port's own address-less rule ("tcp/5001"), else,
 * when the port has no rule, that of an address-less any-port rule
 * ("tcp/any"), else XRX_PORT_DEFAULT (no rule matches: xrx_cfg's default
 * decides). Where a rule with an address prefix could match (the
 * port's own, or, for a port without rules, an any-port one), the entry
 * is XRX_PORT_LPM and xrx_rx looks up the trie as before, so the longest
 * prefix still wins; a rule whose prefix ends inside the proto, scope or
 * port bits makes every entry it covers XRX_PORT_LPM.
 * XRX_PORT_LPM is 0: a table nobody filled (xrx_rx loaded with xdp-loader
 * and rules written with bpftool into xrx_rules alone) sends every frame
 * to the trie, as before the table existed. libxrx's xrx_rules__update()
 * (include/xrx/prog.h) is the one writer of both maps: it writes a rule
 * into the trie and every xrx_ports entry that rule changes; xrxd and
 * the library's rule functions (include/xrx/live.h) go through it.
 */
#ifndef XRX_RULES_H
#define XRX_RULES_H

#include <xrx/types.h>
#include <xrx/hash.h>
#include <xrx/tunnel.h>

#define XRX_RULES_MAX 1024
#define XRX_RULE_PREFIX_BASE 32	/* proto + zero + port bits */
#define XRX_RULE_PREFIX_V4 (XRX_RULE_PREFIX_BASE + 96)

struct xrx_rule_key {
	__u32 prefixlen;	/* LPM: bits of the fields below */
	__u8 proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	union {
		__u8 scope;	/* enum xrx_rule_scope */
		__u8 zero;	/* its name before scopes: always 0 then */
	};
	__be16 port;		/* destination port, 0 = any */
	__u8 addr[16];		/* destination; IPv4 mapped into ::ffff:0:0/96 */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_rule_key) == 24, "xrx_rules key ABI");

enum xrx_rule_scope {
	XRX_RULE_SCOPE_OUTER = 0,	/* the frame's own headers */
	XRX_RULE_SCOPE_INNER = 1,	/* the frame inside VXLAN, the first
					 * tunnel kind: XRX_RULE_SCOPE_TNL(0) */
	XRX_RULE_SCOPE_GENEVE = 2,	/* the frame inside GENEVE */
	XRX_RULE_SCOPES
};

/* The scope of the frame inside tunnel kind @kind (enum xrx_tnl_kind). */
#define XRX_RULE_SCOPE_TNL(kind) (XRX_RULE_SCOPE_INNER + (kind))

XRX_STATIC_ASSERT(XRX_RULE_SCOPE_TNL(XRX_TNL_K_GENEVE) ==
			  XRX_RULE_SCOPE_GENEVE &&
		  XRX_RULE_SCOPES == XRX_RULE_SCOPE_TNL(XRX_TNL_KINDS),
		  "a rule scope for every tunnel kind");

enum xrx_action {
	XRX_ACT_PASS = 0,	/* hand the frame to the kernel */
	XRX_ACT_ACCEL = 1,	/* redirect it to the queue's AF_XDP socket */
};

struct xrx_rule_val {
	__u32 action;	/* enum xrx_action */
	__u32 id;	/* rule number, for the operator */
};

XRX_STATIC_ASSERT(sizeof(struct xrx_rule_val) == 8, "xrx_rules value ABI");

/* What xrx_ports says for one port, protocol and scope. */
enum __attribute__((packed)) xrx_port_verdict {
	XRX_PORT_LPM = 0,	/* an address decides: look up xrx_rules */
	XRX_PORT_DEFAULT = 1,	/* no rule matches: xrx_cfg's default_action */
	XRX_PORT_PASS = 2,	/* a rule says pass, for every address */
	XRX_PORT_ACCEL = 3,	/* a rule says accelerate, for every address */
};

#define XRX_PORTS_MAX 65536	/* xrx_ports entries: every port */

/* xrx_ports' value: one verdict per protocol and scope, column
 * scope * 2 for TCP and scope * 2 + 1 for UDP. */
struct xrx_port_val {
	enum xrx_port_verdict tcp;	/* XRX_RULE_SCOPE_OUTER */
	enum xrx_port_verdict udp;
	enum xrx_port_verdict vxlan_tcp;	/* XRX_RULE_SCOPE_INNER */
	enum xrx_port_verdict vxlan_udp;
	enum xrx_port_verdict geneve_tcp;	/* XRX_RULE_SCOPE_GENEVE */
	enum xrx_port_verdict geneve_udp;
};

XRX_STATIC_ASSERT(sizeof(struct xrx_port_val) == 2 * XRX_RULE_SCOPES,
		  "xrx_ports value ABI: two columns per scope");

/* The UDP ports xrx_rx takes for each tunnel kind: as many as the engine
 * takes (include/xrx/tunnel.h); user/xrxd/xdp.c asserts they are equal. */
#define XRX_CFG_TNL_PORTS XRX_TNL_PORTS_MAX
#define XRX_CFG_VXLAN_PORTS XRX_CFG_TNL_PORTS

enum xrx_cfg_flags {
	/* Parse the frame inside a tunnel (to one of tnl_ports) and look up
	 * its kind's XRX_RULE_SCOPE_TNL() rules; without it tunnel frames
	 * are only counted. */
	XRX_CFG_F_INNER_RULES = 1u << 0,
};

/*
 * xrx_cfg: a one-entry array, key 0. Zero-filled means pass everything.
 * Whoever writes it keeps hash_key as it is (read, change, write back):
 * the key is chosen once, when the program is attached.
 */
struct xrx_cfg {
	__u32 default_action;	/* enum xrx_action when no rule matches */
	__u32 flags;		/* enum xrx_cfg_flags; other bits zero */
	/* UDP destination ports that carry each tunnel kind, host order;
	 * 0 = unused. A row per kind (enum xrx_tnl_kind), also by name. */
	union {
		__u16 tnl_ports[XRX_TNL_KINDS][XRX_CFG_TNL_PORTS];
		struct {
			__u16 vxlan_ports[XRX_CFG_TNL_PORTS];
			__u16 geneve_ports[XRX_CFG_TNL_PORTS];
		};
	};
	/* The flow hash key (include/xrx/hash.h): random, chosen by
	 * xrx_prog__attach() before any rule is written; the engines that
	 * take the program's frames hash with it too. Root reads it, as it
	 * reads every pin (SECURITY.md). */
	struct xrx_hash_key hash_key;
};

XRX_STATIC_ASSERT(sizeof(struct xrx_cfg) == 56, "xrx_cfg value ABI");

#endif /* XRX_RULES_H */
