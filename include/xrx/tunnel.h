/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The UDP tunnel kinds xrx knows, for everything that must agree on them:
 * the engine (its options and descriptor table, user/lib/gro/tunnel.c),
 * the header parser (xrx/parse_tunnel.h) and xrx_rx's configuration
 * (xrx/rules.h). Adding a kind is a value here, a row in the engine's
 * table, its header in the parser, and its ports in the options.
 */
#ifndef XRX_TUNNEL_H
#define XRX_TUNNEL_H

enum xrx_tnl_kind {
	XRX_TNL_K_VXLAN,	/* RFC 7348 */
	XRX_TNL_K_GENEVE,	/* RFC 8926 */
	XRX_TNL_KINDS,
};

/* Their names, as the options ("vxlan_ports") and the scope of a rule on
 * the frame inside ("vxlan:tcp/5201") spell them. */
#define XRX_TNL_NAME_VXLAN "vxlan"
#define XRX_TNL_NAME_GENEVE "geneve"
#define XRX_TNL_NAMES { [XRX_TNL_K_VXLAN] = XRX_TNL_NAME_VXLAN, \
			[XRX_TNL_K_GENEVE] = XRX_TNL_NAME_GENEVE }

/* UDP ports per kind, in xrx_engine_opts and in xrx_cfg alike
 * (user/xrxd/xdp.c asserts it). */
#define XRX_TNL_PORTS_MAX 8

/*
 * GENEVE (RFC 8926): ver(2) opt_len(6) | O C rsvd(6) | protocol type(16)
 * | VNI(24) rsvd(8) | opt_len 4-byte words of options.
 */
#define XRX_GENEVE_HLEN 8	/* without options */
#define XRX_GENEVE_PORT 6081	/* IANA */
#define XRX_GENEVE_OPTLEN 0x3f	/* first byte: option words */
#define XRX_GENEVE_VER 0xc0	/* first byte: version, must be 0 */
#define XRX_GENEVE_F_OAM 0x80	/* second byte */
#define XRX_GENEVE_F_CRIT 0x40	/* second byte: critical options */
#define XRX_GENEVE_PROTO 2	/* protocol type (an EtherType) */
#define XRX_ETH_P_TEB 0x6558	/* Transparent Ethernet Bridging */

#endif /* XRX_TUNNEL_H */
