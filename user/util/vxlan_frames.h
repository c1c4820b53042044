/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * VXLAN and GENEVE frames for the tools, tests and benchmarks: an inner
 * frame from frames.h wrapped in outer Ethernet / IPv4 (198.18.0.1 ->
 * 198.18.0.2) or IPv6 (2001:db8::1 -> 2001:db8::2) / UDP / VXLAN (or
 * GENEVE, o.geneve) headers written byte by
 * byte, every outer field a GRO rule looks at settable. Plain C, no
 * libxrx: the checksums are frames.h's.
 *
 *	struct vxlan_outer o;
 *	vxlan_outer_default(&o, ipid);
 *	o.ttl = 63;
 *	len = vxlan_frame_build(&inner_spec, &o, buf, cap, &info);
 */
#ifndef XRX_UTIL_VXLAN_FRAMES_H
#define XRX_UTIL_VXLAN_FRAMES_H

#include <errno.h>
#include <string.h>

#include "util/frames.h"

#define VXLAN_FRAME_PORT 4789
#define VXLAN_FRAME_HDRS 50	/* outer eth 14 + IPv4 20 + UDP 8 + VXLAN 8 */

struct vxlan_outer {
	__u32 vni;
	__u16 ipid;
	__u16 sport, dport;
	__u8 ttl, tos;
	int no_df;
	int csum_zero;		/* outer UDP checksum 0 ("none") */
	int bad_csum;		/* a wrong non-zero outer UDP checksum */
	int v6;			/* outer IPv6 2001:db8::1 -> 2001:db8::2:
				 * ttl is the hop limit, tos the class */
	__u32 flowlabel;	/* outer IPv6 */
	/* GENEVE (RFC 8926) instead of VXLAN: the header's first two
	 * bytes (version, option length in words, O and C bits) are
	 * written as given, opt_words of options (opt, repeated) after
	 * it; proto 0 is Transparent Ethernet Bridging (0x6558) */
	int geneve;
	__u8 gver;		/* version, 0..3 */
	__u8 gflags;		/* second byte: 0x80 OAM, 0x40 critical */
	__u16 gproto;
	__u8 opt_words;		/* 0..63 */
	__u32 opt;		/* each option word */
	/* GENEVE carrying the inner IP header without an Ethernet header
	 * (the frame's own is left out); proto 0 is then 0x0800 or 0x86dd
	 * by the inner IP version */
	int no_inner_eth;
};

#define GENEVE_FRAME_PORT 6081

/* The tunnel header's length: VXLAN's 8 bytes, or GENEVE's with options. */
static inline __u32 vxlan_frame_tnl_len(const struct vxlan_outer *o)
{
	return o->geneve ? 8 + 4u * o->opt_words : 8;
}

/* Outer headers' length: Ethernet, IPv4 or IPv6, UDP, VXLAN or GENEVE. */
static inline __u32 vxlan_frame_hdrs(const struct vxlan_outer *o)
{
	return (o->v6 ? VXLAN_FRAME_HDRS + 20 : VXLAN_FRAME_HDRS) - 8 +
	       vxlan_frame_tnl_len(o);
}

/* vxlan_outer_default(), for GENEVE on 6081 with no options. */
static inline void geneve_outer_default(struct vxlan_outer *o, __u16 ipid)
{
	memset(o, 0, sizeof(*o));
	o->vni = 42;
	o->ipid = ipid;
	o->sport = 49152;
	o->dport = GENEVE_FRAME_PORT;
	o->ttl = 64;
	o->geneve = 1;
}

static inline void vxlan_outer_default(struct vxlan_outer *o, __u16 ipid)
{
	memset(o, 0, sizeof(*o));
	o->vni = 42;
	o->ipid = ipid;
	o->sport = 49152;
	o->dport = VXLAN_FRAME_PORT;
	o->ttl = 64;
}

static inline void vxlan_wr16(__u8 *p, __u32 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/*
 * The frame @in describes, wrapped per @o, into @buf. @fi (may be NULL):
 * the inner frame's offsets, counted from the start of the outer frame.
 * Return: the frame's length, or a negative errno as frame_build().
 */
static inline int vxlan_frame_build(const struct frame_spec *in,
				    const struct vxlan_outer *o, __u8 *buf,
				    __u32 cap, struct frame_info *fi)
{
	static const __u8 omac[12] = { 2, 0, 0, 0, 0, 0x12,
				       2, 0, 0, 0, 0, 0x11 };
	__u32 hdrs = vxlan_frame_hdrs(o), l3len = o->v6 ? 40 : 20;
	__u32 tlen = vxlan_frame_tnl_len(o);
	__u8 *ip = buf + 14, *uh = buf + 14 + l3len;
	__u32 eth = o->geneve && o->no_inner_eth ? 14 : 0;
	struct frame_info inf;
	__u32 ulen, sum, i;
	__u16 c, proto;
	int len;

	if (cap < hdrs)
		return -ENOSPC;
	/* Without the inner Ethernet header: built over the end of the
	 * tunnel header, which is written after it. */
	len = frame_build_info(in, buf + hdrs - eth, cap - hdrs + eth, &inf);
	if (len < 0)
		return len;
	len -= eth;
	proto = o->gproto ? o->gproto :
		!eth ? 0x6558 : (buf[hdrs] >> 4) == 6 ? 0x86dd : 0x0800;
	memcpy(buf, omac, 12);
	vxlan_wr16(buf + 12, o->v6 ? 0x86dd : 0x0800);
	ulen = 8 + tlen + len;
	memset(ip, 0, l3len);
	if (o->v6) {
		ip[0] = 0x60 | o->tos >> 4;
		ip[1] = (o->tos & 0xf) << 4 | (o->flowlabel >> 16 & 0xf);
		vxlan_wr16(ip + 2, o->flowlabel);
		vxlan_wr16(ip + 4, ulen);
		ip[6] = 17;
		ip[7] = o->ttl;
		ip[8] = 0x20; ip[9] = 0x01; ip[10] = 0x0d; ip[11] = 0xb8;
		ip[24] = 0x20; ip[25] = 0x01; ip[26] = 0x0d; ip[27] = 0xb8;
		ip[23] = 1;
		ip[39] = 2;
	} else {
		ip[0] = 0x45;
		ip[1] = o->tos;
		vxlan_wr16(ip + 2, 20 + ulen);
		vxlan_wr16(ip + 4, o->ipid);
		vxlan_wr16(ip + 6, o->no_df ? 0 : 0x4000);
		ip[8] = o->ttl;
		ip[9] = 17;
		ip[12] = 198; ip[13] = 18; ip[14] = 0; ip[15] = 1;
		ip[16] = 198; ip[17] = 18; ip[18] = 0; ip[19] = 2;
		vxlan_wr16(ip + 10, frame_csum(ip, 20, 0));
	}
	vxlan_wr16(uh, o->sport);
	vxlan_wr16(uh + 2, o->dport);
	vxlan_wr16(uh + 4, ulen);
	memset(uh + 6, 0, 2 + tlen);
	if (o->geneve) {
		uh[8] = o->gver << 6 | (o->opt_words & 0x3f);
		uh[9] = o->gflags;
		vxlan_wr16(uh + 10, proto);
		for (i = 0; i < o->opt_words; i++) {
			vxlan_wr16(uh + 16 + 4 * i, o->opt >> 16);
			vxlan_wr16(uh + 18 + 4 * i, o->opt);
		}
	} else {
		uh[8] = 0x08;		/* I: the VNI is valid */
	}
	uh[12] = o->vni >> 16;
	uh[13] = o->vni >> 8;
	uh[14] = o->vni;
	if (!o->csum_zero) {
		/* pseudo-header: addresses, protocol, length */
		sum = 17 + ulen;
		for (i = o->v6 ? 8 : 12; i < (o->v6 ? 40u : 20u); i += 2)
			sum += (__u32)ip[i] << 8 | ip[i + 1];
		c = frame_csum(uh, ulen, sum);
		vxlan_wr16(uh + 6, (c ? c : 0xffff) ^ (o->bad_csum ? 0x5a5a : 0));
	}
	if (fi) {
		*fi = inf;
		fi->len += hdrs - eth;
		fi->l3_off += hdrs - eth;
		if (fi->l4_off)
			fi->l4_off += hdrs - eth;
		fi->payload_off += hdrs - eth;
	}
	return len + hdrs;
}

#endif /* XRX_UTIL_VXLAN_FRAMES_H */
