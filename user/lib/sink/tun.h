/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the TUN sink (sink/tun.c) found and did, beyond the common sink
 * counters: the offloads the running kernel accepted and how packets
 * were written. For tests, benchmarks and status output.
 */
#ifndef XRX_LIB_SINK_TUN_H
#define XRX_LIB_SINK_TUN_H

#include <net/if.h>
#include <xrx/types.h>

struct xrx_sink;

/* Debian 12's linux-libc-dev (6.1) predates USO (Linux 6.2). */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6 0x40
#endif

/* GSO over a UDP tunnel (Linux 6.17+), absent from 6.1's headers too. */
#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x80
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO_CSUM
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

struct xrx_tun_info {
	char name[IF_NAMESIZE];
	int ifindex;
	int fd;			/* the TUN file: what the stack sends out
				 * through the device is read from it */
	__u32 offloads;		/* TUN_F_* TUNSETOFFLOAD accepted, each probed */
	bool gso;		/* aggregates are written as GSO packets */
	bool big_ipv4;		/* IPv4 above 64 KiB written whole (6.3+) */
	__u8 ipv6_jumbo;	/* enum xrx_tun_ipv6_jumbo in use (never
				 * AUTO: what it resolved to) */
	__u64 gso_writes;	/* writes of one GSO packet (2+ segments) */
	__u64 plain_writes;	/* writes of one plain packet */
	__u64 split_pkts;	/* aggregates written in pieces */
	__u64 split_big;	/* ... of them because IP length > 65535 */
	bool tnl_gso;		/* VXLAN aggregates written whole (GSO over
				 * a UDP tunnel); else as their segments */
	__u64 jumbo_writes;	/* IPv6 above 64 KiB written whole with the
				 * hop-by-hop jumbo option inserted */
};

/* Return: 0, or -EINVAL if @s is not a TUN sink. */
int xrx_sink_tun__info(const struct xrx_sink *s, struct xrx_tun_info *info);

#endif /* XRX_LIB_SINK_TUN_H */
