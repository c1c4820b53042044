/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Frame builder for the tools (xrx-send), the tests and the benchmarks:
 * Ethernet frames with up to two VLAN tags, IPv4 (options, fragments) or
 * IPv6 (extension headers), and a TCP, UDP, ICMP or ICMPv6 header, with
 * correct checksums unless asked to corrupt them. Plain C, no libxrx: a
 * test that checks xrx against the builder checks it against an
 * independent implementation, and what xrx-send puts on the wire is what
 * the tests' oracles expect.
 *
 *	struct frame_spec s;
 *	__u8 buf[2048];
 *	int len;
 *
 *	frame_spec_tcp4(&s);		// 198.18.0.1:40000 -> 198.18.0.2:5001
 *	s.seq = 1000;
 *	s.payload_len = 1448;
 *	len = frame_build(&s, buf, sizeof(buf));
 *
 * frame_build() uses every field as given, except that all-zero addresses
 * and MAC addresses take the defaults below; start from one of the
 * frame_spec_*() initialisers to get sensible values for the rest.
 */
#ifndef XRX_UTIL_FRAMES_H
#define XRX_UTIL_FRAMES_H

#include <linux/types.h>

#define FRAME_ETH_HLEN 14
#define FRAME_MAX_EXT 16

/* Defaults for all-zero fields. */
#define FRAME_SMAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }
#define FRAME_DMAC { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }
#define FRAME_SPORT 40000
#define FRAME_DPORT 5001

struct frame_ext {
	__u8 type;	/* 0 hop-by-hop, 43 routing, 60 dest options, 44 fragment */
	__u16 len;	/* bytes, a multiple of 8; 0 = 8. Fragment: always 8 */
};

struct frame_spec {
	int family;		/* 4 or 6; 0 = no IP, see ethertype */
	__u8 l4;		/* IPPROTO_TCP, _UDP, _ICMP, _ICMPV6, or any other
				 * (then no L4 header is built: payload only) */
	__u16 ethertype;	/* family 0 only: 0x0806 = ARP request built from
				 * the addresses; anything else = raw payload */

	int nr_vlans;		/* 0, 1 or 2 (more are allowed, up to 4) */
	__u16 vlan_tpid[4];	/* outer first; 0 = 0x8100 */
	__u16 vlan_tci[4];

	__u8 saddr[16], daddr[16];	/* IPv4 in the last 4 bytes; all zero =
					 * 198.18.0.1 -> 198.18.0.2 or
					 * 2001:db8::1 -> 2001:db8::2 */
	__u8 smac[6], dmac[6];		/* all zero = FRAME_SMAC / FRAME_DMAC */

	__u16 sport, dport;
	__u32 seq, ack;
	__u8 tcp_flags;		/* TH_* bits: FIN 0x01 SYN 0x02 RST 0x04 PSH 0x08
				 * ACK 0x10 URG 0x20 ECE 0x40 CWR 0x80 */
	__u16 window;
	__u16 urg_ptr;
	const __u8 *tcp_opts;	/* padded with NOP to a multiple of 4 */
	__u8 tcp_opts_len;
	int doff_override;	/* > 0: raw data offset nibble (malformed cases) */

	__u8 ttl, tos;		/* IPv4 */
	__u16 ip_id;		/* IPv4 ID; IPv6 fragment identification */
	__u16 frag_off;		/* host order: DF 0x4000, MF 0x2000, offset in
				 * 8-byte units in the low 13 bits. IPv6: the
				 * offset and MF of the fragment header */
	const __u8 *ip_opts;	/* padded with EOL (0) to a multiple of 4 */
	__u8 ip_opts_len;
	int ihl_override;	/* > 0: raw IHL nibble */
	int version_override;	/* > 0: raw IP version nibble */

	__u32 flowlabel;	/* IPv6 */
	__u8 hop_limit, tclass;
	struct frame_ext ext[FRAME_MAX_EXT];	/* IPv6 extension headers */
	int nr_ext;

	const __u8 *payload;	/* NULL: frame_payload_byte(stream_seed, seq + i) */
	__u32 payload_len;
	__u32 stream_seed;

	int bad_ip_csum;	/* corrupt the IPv4 header checksum */
	int bad_l4_csum;	/* corrupt the TCP/UDP/ICMP checksum */
	int udp_csum_zero;	/* UDP checksum 0 ("none"; IPv4 only, legally) */
	__u32 pad;		/* zero bytes after the IP packet */
	int tot_len_delta;	/* added to IPv4 tot_len / IPv6 payload_len */
};

/* Where frame_build() put things. Offsets from the frame start; 0 = none. */
struct frame_info {
	__u32 len;		/* whole frame, = frame_build()'s return */
	__u32 l3_off;
	__u32 l4_off;		/* 0 for a non-first fragment or no L4 header */
	__u32 l4_hdr_len;	/* TCP 20 + options, UDP 8, ICMP 8, else 0 */
	__u32 payload_off;
	__u32 payload_len;
	__u32 ip_len;		/* the IP packet's real length (no padding) */
};

void frame_spec_tcp4(struct frame_spec *s);
void frame_spec_tcp6(struct frame_spec *s);
void frame_spec_udp4(struct frame_spec *s);
void frame_spec_udp6(struct frame_spec *s);
void frame_spec_icmp4(struct frame_spec *s);	/* echo request */
void frame_spec_icmp6(struct frame_spec *s);	/* echo request */
void frame_spec_arp(struct frame_spec *s);	/* who-has daddr tell saddr */

/* The default TCP options: NOP, NOP, timestamps (tsval 1, tsecr 0). */
extern const __u8 frame_tcp_opts_ts[12];

/*
 * frame_build() - write the frame @s describes into @buf.
 * Return: its length, -ENOSPC if it does not fit in @cap bytes, -EINVAL
 * for a spec it cannot express (unknown family, too many tags or headers).
 */
int frame_build(const struct frame_spec *s, __u8 *buf, __u32 cap);
int frame_build_info(const struct frame_spec *s, __u8 *buf, __u32 cap,
		     struct frame_info *info);

/* Payload byte at @stream_off of stream @seed: tests check reassembly. */
__u8 frame_payload_byte(__u32 seed, __u32 stream_off);

/*
 * Internet checksum (RFC 1071) of @len bytes, starting from partial sum
 * @sum, folded and complemented: 0 over data that includes a correct
 * checksum field.
 */
__u16 frame_csum(const void *data, __u32 len, __u32 sum);

#endif /* XRX_UTIL_FRAMES_H */
