// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Frame builder for the tools, tests and benchmarks; see frames.h. Byte order is
 * written out by hand (wr16/wr32) so the frame is the same on any host.
 */
#include <errno.h>
#include <string.h>

#include "util/frames.h"

#define IPPROTO_ICMP_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58

const __u8 frame_tcp_opts_ts[12] = {
	1, 1,			/* NOP, NOP */
	8, 10,			/* timestamps */
	0, 0, 0, 1,		/* tsval */
	0, 0, 0, 0,		/* tsecr */
};

static void wr16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void wr32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static int all_zero(const __u8 *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

__u8 frame_payload_byte(__u32 seed, __u32 stream_off)
{
	/* murmur3's finaliser: neighbouring offsets give unrelated bytes. */
	__u32 h = seed * 0x9e3779b1u + stream_off;

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static __u32 csum_add(const void *data, __u32 len, __u32 sum)
{
	const __u8 *p = data;
	__u64 acc = sum;
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		acc += (__u32)p[len - 1] << 8;
	/* end-around carry into 32 bits: long buffers overflow them */
	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (__u32)acc;
}

static __u16 csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

__u16 frame_csum(const void *data, __u32 len, __u32 sum)
{
	return csum_fold(csum_add(data, len, sum));
}

static void defaults_common(struct frame_spec *s, int family, __u8 l4)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	s->l4 = l4;
	s->sport = FRAME_SPORT;
	s->dport = FRAME_DPORT;
	s->ttl = 64;
	s->hop_limit = 64;
	s->frag_off = family == 4 ? 0x4000 : 0;	/* DF, as Linux sends TCP */
	s->payload_len = 100;
	s->stream_seed = 1;
}

static void defaults_tcp(struct frame_spec *s)
{
	s->seq = 1000;
	s->ack = 1;
	s->tcp_flags = 0x10;	/* ACK */
	s->window = 8192;
	s->tcp_opts = frame_tcp_opts_ts;
	s->tcp_opts_len = sizeof(frame_tcp_opts_ts);
}

void frame_spec_tcp4(struct frame_spec *s)
{
	defaults_common(s, 4, IPPROTO_TCP_);
	defaults_tcp(s);
}

void frame_spec_tcp6(struct frame_spec *s)
{
	defaults_common(s, 6, IPPROTO_TCP_);
	defaults_tcp(s);
}

void frame_spec_udp4(struct frame_spec *s)
{
	defaults_common(s, 4, IPPROTO_UDP_);
}

void frame_spec_udp6(struct frame_spec *s)
{
	defaults_common(s, 6, IPPROTO_UDP_);
}

void frame_spec_icmp4(struct frame_spec *s)
{
	defaults_common(s, 4, IPPROTO_ICMP_);
	s->payload_len = 56;	/* ping's default */
}

void frame_spec_icmp6(struct frame_spec *s)
{
	defaults_common(s, 6, IPPROTO_ICMPV6_);
	s->payload_len = 56;
}

void frame_spec_arp(struct frame_spec *s)
{
	defaults_common(s, 0, 0);
	s->ethertype = 0x0806;
	s->payload_len = 0;
}

static void fill_addrs(const struct frame_spec *s, __u8 *saddr, __u8 *daddr)
{
	static const __u8 v4s[4] = { 198, 18, 0, 1 }, v4d[4] = { 198, 18, 0, 2 };
	static const __u8 v6s[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const __u8 v6d[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	memcpy(saddr, s->saddr, 16);
	memcpy(daddr, s->daddr, 16);
	if (s->family == 6) {
		if (all_zero(saddr, 16))
			memcpy(saddr, v6s, 16);
		if (all_zero(daddr, 16))
			memcpy(daddr, v6d, 16);
	} else {
		if (all_zero(saddr + 12, 4))
			memcpy(saddr + 12, v4s, 4);
		if (all_zero(daddr + 12, 4))
			memcpy(daddr + 12, v4d, 4);
	}
}

/* An options header (hop-by-hop, destination) of @len bytes, PadN-filled. */
static void build_opts_ext(__u8 *p, __u32 len, __u8 next)
{
	__u32 rest = len - 2;

	memset(p, 0, len);
	p[0] = next;
	p[1] = len / 8 - 1;
	if (rest == 1) {
		p[2] = 0;		/* Pad1 */
	} else {
		p[2] = 1;		/* PadN */
		p[3] = rest - 2;
	}
}

static __u32 l4_hdr_len(const struct frame_spec *s, __u32 tcp_opts)
{
	switch (s->l4) {
	case IPPROTO_TCP_:
		return 20 + tcp_opts;
	case IPPROTO_UDP_:
	case IPPROTO_ICMP_:
	case IPPROTO_ICMPV6_:
		return 8;
	}
	return 0;
}

static int build_l2(const struct frame_spec *s, __u8 *buf, __u16 ethertype)
{
	static const __u8 smac[6] = FRAME_SMAC, dmac[6] = FRAME_DMAC;
	__u32 off = 12;
	int i;

	memcpy(buf, all_zero(s->dmac, 6) ? dmac : s->dmac, 6);
	memcpy(buf + 6, all_zero(s->smac, 6) ? smac : s->smac, 6);
	for (i = 0; i < s->nr_vlans; i++) {
		wr16(buf + off, s->vlan_tpid[i] ? s->vlan_tpid[i] : 0x8100);
		wr16(buf + off + 2, s->vlan_tci[i]);
		off += 4;
	}
	wr16(buf + off, ethertype);
	return off + 2;
}

static void fill_payload(const struct frame_spec *s, __u8 *p)
{
	__u32 i;

	if (s->payload) {
		memcpy(p, s->payload, s->payload_len);
		return;
	}
	for (i = 0; i < s->payload_len; i++)
		p[i] = frame_payload_byte(s->stream_seed, s->seq + i);
}

static int build_arp(const struct frame_spec *s, __u8 *buf, __u32 cap,
		     __u32 l2, struct frame_info *info)
{
	__u8 saddr[16], daddr[16];
	__u8 *p = buf + l2;
	__u32 len = l2 + 28 + s->pad;

	if (len > cap)
		return -ENOSPC;
	fill_addrs(s, saddr, daddr);
	wr16(p, 1);		/* Ethernet */
	wr16(p + 2, 0x0800);
	p[4] = 6;
	p[5] = 4;
	wr16(p + 6, 1);		/* request */
	memcpy(p + 8, buf + 6, 6);
	memcpy(p + 14, saddr + 12, 4);
	memset(p + 18, 0, 6);
	memcpy(p + 24, daddr + 12, 4);
	memset(p + 28, 0, s->pad);
	info->payload_off = l2;
	info->payload_len = 28;
	info->len = len;
	return len;
}

int frame_build_info(const struct frame_spec *s, __u8 *buf, __u32 cap,
		     struct frame_info *info)
{
	__u8 saddr[16], daddr[16];
	__u32 l2, l3hl, l4hl, ipopt, tcpopt, l4len, iplen, len, off, i;
	int frag_nonfirst = 0;
	__u8 next, *ip, *l4;
	__u32 sum;
	__u16 c;

	memset(info, 0, sizeof(*info));
	if (s->nr_vlans < 0 || s->nr_vlans > 4 || s->nr_ext < 0 ||
	    s->nr_ext > FRAME_MAX_EXT)
		return -EINVAL;
	if (s->family != 0 && s->family != 4 && s->family != 6)
		return -EINVAL;
	if (cap < FRAME_ETH_HLEN + 4 * (__u32)s->nr_vlans)
		return -ENOSPC;

	if (s->family == 0) {
		l2 = build_l2(s, buf, s->ethertype);
		if (s->ethertype == 0x0806 && !s->payload)
			return build_arp(s, buf, cap, l2, info);
		len = l2 + s->payload_len + s->pad;
		if (len > cap)
			return -ENOSPC;
		fill_payload(s, buf + l2);
		memset(buf + l2 + s->payload_len, 0, s->pad);
		info->payload_off = l2;
		info->payload_len = s->payload_len;
		info->len = len;
		return len;
	}

	/* Sizes first, so nothing is written past @cap. */
	ipopt = (s->ip_opts_len + 3u) & ~3u;
	tcpopt = (s->tcp_opts_len + 3u) & ~3u;
	if (s->family == 4) {
		l3hl = 20 + ipopt;
		frag_nonfirst = (s->frag_off & 0x1fff) != 0;
	} else {
		l3hl = 40;
		for (i = 0; i < (__u32)s->nr_ext; i++) {
			if (s->ext[i].type == 44) {
				l3hl += 8;
				frag_nonfirst = (s->frag_off & 0x1fff) != 0;
			} else {
				if (s->ext[i].len % 8)
					return -EINVAL;
				l3hl += s->ext[i].len ? s->ext[i].len : 8;
			}
		}
	}
	l4hl = frag_nonfirst ? 0 : l4_hdr_len(s, tcpopt);
	l4len = l4hl + s->payload_len;
	iplen = l3hl + l4len;
	l2 = FRAME_ETH_HLEN + 4 * s->nr_vlans;
	len = l2 + iplen + s->pad;
	if (len > cap || iplen > 0xffff + 40)
		return -ENOSPC;

	build_l2(s, buf, s->family == 4 ? 0x0800 : 0x86dd);
	fill_addrs(s, saddr, daddr);
	ip = buf + l2;
	l4 = ip + l3hl;
	memset(ip, 0, l3hl + l4hl);

	if (s->family == 4) {
		__u32 ihl = s->ihl_override > 0 ? (__u32)s->ihl_override : l3hl / 4;

		ip[0] = (s->version_override > 0 ? s->version_override : 4) << 4 |
			(ihl & 0xf);
		ip[1] = s->tos;
		wr16(ip + 2, iplen + s->tot_len_delta);
		wr16(ip + 4, s->ip_id);
		wr16(ip + 6, s->frag_off);
		ip[8] = s->ttl;
		ip[9] = s->l4;
		memcpy(ip + 12, saddr + 12, 4);
		memcpy(ip + 16, daddr + 12, 4);
		if (s->ip_opts_len)
			memcpy(ip + 20, s->ip_opts, s->ip_opts_len);
		c = frame_csum(ip, l3hl, 0);
		if (s->bad_ip_csum)
			c ^= 0x5a5a;
		wr16(ip + 10, c);
		/* Pseudo-header: addresses, protocol, L4 length (RFC 793). */
		sum = csum_add(ip + 12, 8, 0) + s->l4 + l4len;
	} else {
		wr32(ip, (__u32)(s->version_override > 0 ? s->version_override : 6) << 28 |
			 (__u32)s->tclass << 20 | (s->flowlabel & 0xfffff));
		wr16(ip + 4, iplen - 40 + s->tot_len_delta);
		ip[7] = s->hop_limit;
		memcpy(ip + 8, saddr, 16);
		memcpy(ip + 24, daddr, 16);
		/* Next-header chain: each header names the one after it. */
		next = s->nr_ext ? s->ext[0].type : s->l4;
		ip[6] = next;
		off = 40;
		for (i = 0; i < (__u32)s->nr_ext; i++) {
			__u8 nh = i + 1 < (__u32)s->nr_ext ? s->ext[i + 1].type : s->l4;
			__u32 elen = s->ext[i].len ? s->ext[i].len : 8;
			__u8 *e = ip + off;

			switch (s->ext[i].type) {
			case 44:
				elen = 8;
				memset(e, 0, 8);
				e[0] = nh;
				wr16(e + 2, (s->frag_off & 0x1fff) << 3 |
					    !!(s->frag_off & 0x2000));
				wr32(e + 4, s->ip_id);
				break;
			case 43:
				/* Type 4 (segment routing) with no segments left. */
				memset(e, 0, elen);
				e[0] = nh;
				e[1] = elen / 8 - 1;
				e[2] = 4;
				break;
			default:
				build_opts_ext(e, elen, nh);
				break;
			}
			off += elen;
		}
		sum = csum_add(ip + 8, 32, 0) + s->l4 + l4len;
	}

	fill_payload(s, l4 + l4hl);
	memset(l4 + l4len, 0, s->pad);

	info->len = len;
	info->l3_off = l2;
	info->l4_off = l4hl ? l2 + l3hl : 0;
	info->l4_hdr_len = l4hl;
	info->payload_off = l2 + l3hl + l4hl;
	info->payload_len = s->payload_len;
	info->ip_len = iplen;
	if (!l4hl)
		return len;

	switch (s->l4) {
	case IPPROTO_TCP_:
		wr16(l4, s->sport);
		wr16(l4 + 2, s->dport);
		wr32(l4 + 4, s->seq);
		wr32(l4 + 8, s->ack);
		l4[12] = (s->doff_override > 0 ? (__u32)s->doff_override :
						 l4hl / 4) << 4;
		l4[13] = s->tcp_flags;
		wr16(l4 + 14, s->window);
		wr16(l4 + 18, s->urg_ptr);
		if (s->tcp_opts_len) {
			memset(l4 + 20, 1, tcpopt);	/* NOP padding */
			memcpy(l4 + 20, s->tcp_opts, s->tcp_opts_len);
		}
		c = frame_csum(l4, l4len, sum);
		if (s->bad_l4_csum)
			c ^= 0x5a5a;
		wr16(l4 + 16, c);
		break;
	case IPPROTO_UDP_:
		wr16(l4, s->sport);
		wr16(l4 + 2, s->dport);
		wr16(l4 + 4, l4len);
		c = frame_csum(l4, l4len, sum);
		if (!c)
			c = 0xffff;	/* RFC 768: 0 means "no checksum" */
		if (s->bad_l4_csum)
			c ^= 0x5a5a;
		if (s->udp_csum_zero)
			c = 0;
		wr16(l4 + 6, c);
		break;
	case IPPROTO_ICMP_:
	case IPPROTO_ICMPV6_:
		l4[0] = s->l4 == IPPROTO_ICMP_ ? 8 : 128;	/* echo request */
		wr16(l4 + 4, s->sport);	/* identifier */
		wr16(l4 + 6, s->seq);	/* sequence */
		/* ICMPv4 has no pseudo-header; ICMPv6 does (RFC 4443). */
		c = frame_csum(l4, l4len, s->l4 == IPPROTO_ICMP_ ? 0 : sum);
		if (s->bad_l4_csum)
			c ^= 0x5a5a;
		wr16(l4 + 2, c);
		break;
	}
	return len;
}

int frame_build(const struct frame_spec *s, __u8 *buf, __u32 cap)
{
	struct frame_info info;

	return frame_build_info(s, buf, cap, &info);
}
