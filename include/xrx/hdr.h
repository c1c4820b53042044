/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Protocol header layouts as byte offsets and flag values, shared by
 * xrx_rx, the engine and the sinks. Offsets are relative to the start of
 * their own header, as the kernel's struct iphdr / ipv6hdr / tcphdr /
 * udphdr lay them out (include/uapi/linux/{ip,ipv6,tcp,udp}.h); kept as
 * constants because the code reads headers in a byte window, not through
 * pointers to those structs.
 */
#ifndef XRX_HDR_H
#define XRX_HDR_H

#define XRX_ETH_HLEN 14
#define XRX_ETH_PROTO 12	/* struct ethhdr h_proto */
#define XRX_ETH_P_IP 0x0800
#define XRX_ETH_P_IPV6 0x86dd
#define XRX_ETH_P_8021Q 0x8100
#define XRX_ETH_P_8021AD 0x88a8

/* struct vlan_hdr, behind the MAC addresses in place of h_proto */
#define XRX_VLAN_HLEN 4
#define XRX_VLAN_PROTO 2	/* h_vlan_encapsulated_proto */

#define XRX_IPPROTO_HOPOPTS 0

#define XRX_IPPROTO_TCP 6
#define XRX_IPPROTO_UDP 17
#define XRX_IPPROTO_ROUTING 43
#define XRX_IPPROTO_FRAGMENT 44
#define XRX_IPPROTO_DSTOPTS 60

/* struct iphdr */
#define XRX_IPH_VIHL 0		/* version (high nibble), ihl (low) */
#define XRX_IPH_TOS 1
#define XRX_IPH_TOT_LEN 2
#define XRX_IPH_ID 4
#define XRX_IPH_FRAG_OFF 6
#define XRX_IPH_TTL 8
#define XRX_IPH_PROTOCOL 9
#define XRX_IPH_CHECK 10
#define XRX_IPH_SADDR 12
#define XRX_IPH_DADDR 16
#define XRX_IPH_LEN 20		/* without options */
#define XRX_IP_RF 0x8000	/* in frag_off, host order: reserved */
#define XRX_IP_DF 0x4000	/* ... don't fragment */
#define XRX_IP_MF 0x2000	/* ... more fragments */
#define XRX_IP_OFFSET 0x1fff	/* ... the fragment offset */

/* struct ipv6hdr */
#define XRX_IP6H_VTF 0		/* version, traffic class, flow label */
#define XRX_IP6_TCLASS_MASK 0x0ff00000	/* class bits in that word */
#define XRX_IP6H_PAYLOAD_LEN 4
#define XRX_IP6H_NEXTHDR 6
#define XRX_IP6H_HOP_LIMIT 7
#define XRX_IP6H_SADDR 8
#define XRX_IP6H_DADDR 24
#define XRX_IP6H_LEN 40

/* IPv6 extension headers: struct ipv6_opt_hdr (hop-by-hop, routing,
 * destination options; hdrlen in 8-byte units, not counting the first 8)
 * and struct frag_hdr */
#define XRX_IP6OPT_NEXTHDR 0
#define XRX_IP6OPT_HDRLEN 1
#define XRX_FRAGH_FRAG_OFF 2	/* offset in 8-byte units, and MF */
#define XRX_FRAGH_LEN 8
#define XRX_IP6_OFFSET 0xfff8	/* the offset bits of that word */
#define XRX_IPV6_TLV_JUMBO 0xc2	/* RFC 2675 jumbo payload option */

/* struct tcphdr */
#define XRX_TCPH_SOURCE 0
#define XRX_TCPH_DEST 2
#define XRX_TCPH_SEQ 4
#define XRX_TCPH_ACK_SEQ 8
#define XRX_TCPH_DOFF 12	/* data offset in the high nibble */
#define XRX_TCPH_FLAGS 13
#define XRX_TCPH_WINDOW 14
#define XRX_TCPH_CHECK 16
#define XRX_TCPH_URG_PTR 18
#define XRX_TCPH_LEN 20		/* without options */

/* TCP flag bits in the byte at XRX_TCPH_FLAGS */
#define XRX_TH_FIN 0x01
#define XRX_TH_SYN 0x02
#define XRX_TH_RST 0x04
#define XRX_TH_PSH 0x08
#define XRX_TH_ACK 0x10
#define XRX_TH_URG 0x20
#define XRX_TH_ECE 0x40
#define XRX_TH_CWR 0x80

/* struct udphdr */
#define XRX_UDPH_SOURCE 0
#define XRX_UDPH_DEST 2
#define XRX_UDPH_LEN_OFF 4
#define XRX_UDPH_CHECK 6
#define XRX_UDPH_LEN 8

/* The IP length above which IPv4 tot_len / IPv6 payload_len read 0. */
#define XRX_IP_MAX_LEN 65535

#endif /* XRX_HDR_H */
