// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * xrx_rx through BPF_PROG_TEST_RUN: for every kind of frame, the verdict,
 * the per-CPU counters, every field of the xrx_meta written in front of
 * an accelerated frame, and the same frames through userspace xrx_parse()
 * (the BPF and the library side must agree byte for byte).
 *
 * Expected values come from the frame builder (user/util/frames.c) and
 * from the tables below, never from parse.h: offsets and header lengths
 * are what the builder laid out, as eth_get_headlen() would count them.
 * The program, its maps and the AF_XDP socket that makes accelerated
 * frames XDP_REDIRECT come from xrx_rx_env.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xrx/meta.h>
#include <xrx/parse.h>
#include <xrx/prog.h>
#include <xrx/rules.h>
#include <xrx/stats.h>

#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "bpf/xrx_rx_env.h"

#define FRAME_CAP 16384
#define OUT_CAP (FRAME_CAP + 256)

/* The flow hash key every xrx_cfg of these tests holds. */
static const struct xrx_hash_key rx_key = {
	{ 0x1122334455667788ULL, 0x99aabbccddeeff00ULL }
};

static struct env {
	struct xrx_rx_env rx;
	struct xrx_rule_key keys[16];
	int nr_keys;
} env = { .rx.xsk_fd = -1 };

/* ------------------------------------------------------------------ */
/* Program, maps, counters                                            */

struct run {
	int err;
	__u32 retval;
	__u32 meta_len;		/* ctx_out.data: bytes of metadata in out[] */
	__u32 out_len;
	__u8 out[OUT_CAP];
	struct xrx_counter stat[XRX_STAT_MAX];
	enum xrx_stat path;	/* parse_linear or parse_copy, as expected */
};

/* Run the program once on @frame with @linear bytes in the linear area. */
static void run_prog(const __u8 *frame, __u32 len, __u32 linear, struct run *r)
{
	struct xrx_rx_out o = { .out = r->out, .out_len = sizeof(r->out) };

	assert_int_equal(xrx_rx_env_stats_reset(&env.rx), 0);
	r->err = xrx_rx_env_run(&env.rx, frame, len, linear, &o);
	r->retval = o.retval;
	r->out_len = o.out_len;
	r->meta_len = o.meta_len;
	r->path = xrx_rx_env_path(frame, len, linear);
	assert_int_equal(xrx_rx_env_stats_read(&env.rx, r->stat), 0);
}

/*
 * Rules go in and out through xrx_rules__update(), the one writer of
 * xrx_rules and xrx_ports, as xrxd and the library write them.
 */
static void rules_clear(void)
{
	struct xrx_cfg cfg = { .hash_key = rx_key };
	__u32 zero = 0;

	assert_int_equal(xrx_rules__update(env.rx.rules_fd, env.rx.ports_fd,
					   env.keys, env.nr_keys, NULL, NULL, 0),
			 0);
	env.nr_keys = 0;
	assert_int_equal(bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0), 0);
}

static void set_default(__u32 action)
{
	struct xrx_cfg cfg = { .default_action = action, .hash_key = rx_key };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0), 0);
}

/*
 * Add "proto/port[@addr/plen]" -> action. @addr NULL: any address.
 * The key layout is the one include/xrx/rules.h documents.
 */
static void rule_add_scoped(__u8 scope, __u8 proto, __u16 port,
			    const char *addr, int plen, __u32 action)
{
	struct xrx_rule_val val = { .action = action, .id = env.nr_keys + 1 };
	struct xrx_rule_key key = { .proto = proto, .scope = scope,
				    .port = htons(port) };

	key.prefixlen = XRX_RULE_PREFIX_BASE;
	if (addr && strchr(addr, ':')) {
		assert_int_equal(inet_pton(AF_INET6, addr, key.addr), 1);
		key.prefixlen += plen;
	} else if (addr) {
		key.addr[10] = key.addr[11] = 0xff;
		assert_int_equal(inet_pton(AF_INET, addr, key.addr + 12), 1);
		key.prefixlen += 96 + plen;
	}
	assert_true(env.nr_keys < (int)(sizeof(env.keys) / sizeof(env.keys[0])));
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, env.rx.ports_fd,
					   NULL, 0, &key, &val, 1),
			 0);
	env.keys[env.nr_keys++] = key;
}

static void rule_add(__u8 proto, __u16 port, const char *addr, int plen,
		     __u32 action)
{
	rule_add_scoped(XRX_RULE_SCOPE_OUTER, proto, port, addr, plen, action);
}

/* The configuration the frame-kind table runs under. */
static void rules_base(void)
{
	rules_clear();
	rule_add(IPPROTO_TCP, 5001, NULL, 0, XRX_ACT_ACCEL);
	rule_add(IPPROTO_UDP, 5001, NULL, 0, XRX_ACT_ACCEL);
}

/* ------------------------------------------------------------------ */
/* Expectations independent of parse.h                               */

enum { HL_AUTO = 0, HL_ANY = -1 };

/*
 * What eth_get_headlen() returns for a well-formed frame the builder
 * laid out: the transport header's end (__skb_get_poff(): TCP
 * max(20, doff * 4), UDP 8, ICMP 8, ICMPv6 4, SCTP 12), or the end of
 * the network headers when there is no transport header (non-first
 * fragment), capped at the frame length.
 */
static __u32 expect_headlen(const struct frame_spec *s,
			    const struct frame_info *fi)
{
	__u32 hl = fi->payload_off;

	if (fi->l4_off) {
		switch (s->l4) {
		case IPPROTO_TCP: {
			__u32 doff = s->doff_override > 0 ?
				     (__u32)s->doff_override * 4 : fi->l4_hdr_len;

			hl = fi->l4_off + (doff < 20 ? 20 : doff);
			break;
		}
		case IPPROTO_ICMPV6:
			hl = fi->l4_off + 4;
			break;
		default:
			hl = fi->l4_off + 8;
			break;
		}
	} else if (s->family && s->l4 == IPPROTO_SCTP) {
		hl = fi->payload_off + 12;
	}
	return hl < fi->len ? hl : fi->len;
}

#define ACCEL XRX_STAT_REDIRECT

struct row {
	const char *name;
	void (*make)(struct frame_spec *s);
	enum xrx_stat stat;	/* verdict counter; ACCEL = accelerated */
	__u8 result;		/* enum xrx_parse_result */
	__u16 flags;		/* enum xrx_meta_flags */
	int headlen;		/* HL_AUTO: expect_headlen(); HL_ANY: unchecked */
	int l4_off;		/* -1: as the builder laid out */
};

#define F4 XRX_META_F_IPV4
#define F6 XRX_META_F_IPV6
#define FT XRX_META_F_TCP
#define FU XRX_META_F_UDP

static void m_tcp4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->payload_len = 1448;
}

static void m_tcp4_ipopt(struct frame_spec *s)
{
	/* Router alert (RFC 2113) + NOP padding: 24-byte header. */
	static const __u8 ra[4] = { 0x94, 0x04, 0x00, 0x00 };

	frame_spec_tcp4(s);
	s->ip_opts = ra;
	s->ip_opts_len = sizeof(ra);
}

static void m_tcp4_noopt(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->tcp_opts = NULL;
	s->tcp_opts_len = 0;
}

static void m_tcp4_maxopt(struct frame_spec *s)
{
	/* MSS, SACK-permitted, timestamps, window scale, NOPs: 40 bytes. */
	static const __u8 o[40] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1,
				    0, 0, 0, 0, 1, 3, 3, 7, 1, 1, 1, 1, 1, 1,
				    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };

	frame_spec_tcp4(s);
	s->tcp_flags = 0x02;	/* SYN */
	s->tcp_opts = o;
	s->tcp_opts_len = sizeof(o);
	s->payload_len = 0;
}

static void m_tcp6(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	s->payload_len = 1428;
}

static void ext(struct frame_spec *s, __u8 type, __u16 len)
{
	s->ext[s->nr_ext].type = type;
	s->ext[s->nr_ext].len = len;
	s->nr_ext++;
}

static void m_tcp6_hbh(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	ext(s, 0, 8);
}

static void m_tcp6_rt(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	ext(s, 43, 24);
}

static void m_tcp6_dst(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	ext(s, 60, 16);
}

static void m_tcp6_3ext(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	ext(s, 0, 8);
	ext(s, 43, 24);
	ext(s, 60, 8);
}

static void m_tcp6_frag1(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	ext(s, 44, 8);
	s->frag_off = 0x2000;	/* offset 0, more fragments */
	s->ip_id = 77;
}

static void m_tcp6_frag2(struct frame_spec *s)
{
	m_tcp6_frag1(s);
	s->frag_off = 0x2000 | 100;
}

static void m_udp4(struct frame_spec *s)
{
	frame_spec_udp4(s);
	s->payload_len = 1472;
}

static void m_udp6(struct frame_spec *s)
{
	frame_spec_udp6(s);
	s->payload_len = 512;
}

static void m_vlan_tcp4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->nr_vlans = 1;
	s->vlan_tci[0] = 100;
}

static void m_qinq_tcp6(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	s->nr_vlans = 2;
	s->vlan_tpid[0] = 0x88a8;	/* 802.1ad S-tag outside */
	s->vlan_tci[0] = 10;
	s->vlan_tci[1] = 20;
}

static void m_qinq_udp4(struct frame_spec *s)
{
	frame_spec_udp4(s);
	s->nr_vlans = 2;		/* old-style 8100/8100 stacking */
	s->vlan_tci[0] = 10;
	s->vlan_tci[1] = 20;
}

static void m_vlan3(struct frame_spec *s)
{
	m_qinq_udp4(s);
	s->nr_vlans = 3;
	s->vlan_tci[2] = 30;
}

static void m_arp(struct frame_spec *s)
{
	frame_spec_arp(s);
}

static void m_vlan_arp(struct frame_spec *s)
{
	frame_spec_arp(s);
	s->nr_vlans = 1;
	s->vlan_tci[0] = 5;
}

static void m_icmp4(struct frame_spec *s)
{
	frame_spec_icmp4(s);
}

static void m_icmp6(struct frame_spec *s)
{
	frame_spec_icmp6(s);
}

static void m_sctp4(struct frame_spec *s)
{
	frame_spec_udp4(s);
	s->l4 = IPPROTO_SCTP;
}

static void m_frag4_first(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->frag_off = 0x2000;	/* MF, offset 0 */
}

static void m_frag4_next(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->frag_off = 185;	/* offset 1480, last */
}

static void m_frag4_udp_mid(struct frame_spec *s)
{
	frame_spec_udp4(s);
	s->frag_off = 0x2000 | 185;
}

static void m_ihl4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->ihl_override = 4;
}

static void m_ihl_long(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->ihl_override = 15;	/* 60 bytes claimed, 20 there */
	s->payload_len = 0;
	s->tcp_opts_len = 0;
}

static void m_ipver(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->version_override = 6;
}

static void m_ip6ver(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	s->version_override = 4;
}

static void m_doff4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->doff_override = 4;
}

static void m_doff_long(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->tcp_opts = NULL;
	s->tcp_opts_len = 0;
	s->payload_len = 0;
	s->doff_override = 15;	/* 60 bytes claimed, 20 in the frame */
}

static void m_ext9(struct frame_spec *s)
{
	int i;

	frame_spec_tcp6(s);
	for (i = 0; i < XRX_MAX_EXT_HDRS + 1; i++)
		ext(s, 60, 8);
}

static void m_ext8(struct frame_spec *s)
{
	int i;

	frame_spec_tcp6(s);
	for (i = 0; i < XRX_MAX_EXT_HDRS; i++)
		ext(s, i ? 60 : 0, 8);
	s->payload_len = 200;
}

static void m_ext_window(struct frame_spec *s)
{
	/* 14 + 40 + 2 * 96 + 32 = 278 > XRX_PARSE_WINDOW */
	frame_spec_tcp6(s);
	ext(s, 0, 96);
	ext(s, 60, 96);
}

static void m_pad(struct frame_spec *s)
{
	frame_spec_tcp4(s);	/* a pure ACK padded to the 60-byte minimum */
	s->tcp_opts = NULL;
	s->tcp_opts_len = 0;
	s->payload_len = 0;
	s->pad = 6;
}

static void m_pad6(struct frame_spec *s)
{
	frame_spec_udp6(s);
	s->payload_len = 1;
	s->pad = 7;
}

static void m_len_long4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->tot_len_delta = 10;	/* claims 10 bytes the frame does not have */
}

static void m_len_short4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->tot_len_delta = -10;	/* trailing bytes beyond tot_len */
}

static void m_len_long6(struct frame_spec *s)
{
	frame_spec_udp6(s);
	s->tot_len_delta = 1;
}

static void m_len_tiny4(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->tot_len_delta = -(int)(20 + 32 + 100 - 10);	/* tot_len 10 < ihl */
}

static void m_port80(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->dport = 80;
}

static void m_udp6_53(struct frame_spec *s)
{
	frame_spec_udp6(s);
	s->dport = 53;
}

static void m_badcsum(struct frame_spec *s)
{
	frame_spec_tcp4(s);
	s->bad_ip_csum = 1;
	s->bad_l4_csum = 1;
}

static const struct row rows[] = {
	{ "tcp4", m_tcp4, ACCEL, XRX_PARSE_L4, F4 | FT, HL_AUTO, -1 },
	{ "tcp4 ip options", m_tcp4_ipopt, ACCEL, XRX_PARSE_L4,
	  F4 | FT | XRX_META_F_IPV4_OPT, HL_AUTO, -1 },
	{ "tcp4 no tcp options", m_tcp4_noopt, ACCEL, XRX_PARSE_L4, F4 | FT,
	  HL_AUTO, -1 },
	{ "tcp4 40 bytes of tcp options", m_tcp4_maxopt, ACCEL, XRX_PARSE_L4,
	  F4 | FT, HL_AUTO, -1 },
	{ "tcp6", m_tcp6, ACCEL, XRX_PARSE_L4, F6 | FT, HL_AUTO, -1 },
	{ "tcp6 hop-by-hop", m_tcp6_hbh, ACCEL, XRX_PARSE_L4,
	  F6 | FT | XRX_META_F_IPV6_EXT, HL_AUTO, -1 },
	{ "tcp6 routing", m_tcp6_rt, ACCEL, XRX_PARSE_L4,
	  F6 | FT | XRX_META_F_IPV6_EXT, HL_AUTO, -1 },
	{ "tcp6 destination options", m_tcp6_dst, ACCEL, XRX_PARSE_L4,
	  F6 | FT | XRX_META_F_IPV6_EXT, HL_AUTO, -1 },
	{ "tcp6 hbh+routing+dstopt", m_tcp6_3ext, ACCEL, XRX_PARSE_L4,
	  F6 | FT | XRX_META_F_IPV6_EXT, HL_AUTO, -1 },
	{ "tcp6 eight extension headers", m_ext8, ACCEL, XRX_PARSE_L4,
	  F6 | FT | XRX_META_F_IPV6_EXT, HL_AUTO, -1 },
	{ "tcp6 first fragment", m_tcp6_frag1, XRX_STAT_PASS_FRAG,
	  XRX_PARSE_FRAG, F6 | FT | XRX_META_F_FRAG, HL_AUTO, -1 },
	{ "tcp6 later fragment", m_tcp6_frag2, XRX_STAT_PASS_FRAG,
	  XRX_PARSE_FRAG, F6 | XRX_META_F_FRAG, HL_AUTO, -1 },
	{ "udp4", m_udp4, ACCEL, XRX_PARSE_L4, F4 | FU, HL_AUTO, -1 },
	{ "udp6", m_udp6, ACCEL, XRX_PARSE_L4, F6 | FU, HL_AUTO, -1 },
	{ "vlan tcp4", m_vlan_tcp4, ACCEL, XRX_PARSE_L4,
	  XRX_META_F_VLAN | F4 | FT, HL_AUTO, -1 },
	{ "qinq 802.1ad tcp6", m_qinq_tcp6, ACCEL, XRX_PARSE_L4,
	  XRX_META_F_VLAN | XRX_META_F_QINQ | F6 | FT, HL_AUTO, -1 },
	{ "qinq 8100/8100 udp4", m_qinq_udp4, ACCEL, XRX_PARSE_L4,
	  XRX_META_F_VLAN | XRX_META_F_QINQ | F4 | FU, HL_AUTO, -1 },
	{ "three vlan tags", m_vlan3, XRX_STAT_PASS_NOT_IP, XRX_PARSE_NOT_IP,
	  XRX_META_F_VLAN | XRX_META_F_QINQ, 22, 0 },
	{ "arp", m_arp, XRX_STAT_PASS_NOT_IP, XRX_PARSE_NOT_IP, 0, 14, 0 },
	{ "vlan arp", m_vlan_arp, XRX_STAT_PASS_NOT_IP, XRX_PARSE_NOT_IP,
	  XRX_META_F_VLAN, 18, 0 },
	{ "icmp4 echo", m_icmp4, XRX_STAT_PASS_NOT_L4, XRX_PARSE_NOT_L4, F4,
	  HL_AUTO, -1 },
	{ "icmp6 echo", m_icmp6, XRX_STAT_PASS_NOT_L4, XRX_PARSE_NOT_L4, F6,
	  HL_AUTO, -1 },
	{ "sctp4", m_sctp4, XRX_STAT_PASS_NOT_L4, XRX_PARSE_NOT_L4, F4,
	  HL_AUTO, 14 + 20 },
	{ "ipv4 first fragment", m_frag4_first, XRX_STAT_PASS_FRAG,
	  XRX_PARSE_FRAG, F4 | FT | XRX_META_F_FRAG, HL_AUTO, -1 },
	{ "ipv4 last fragment", m_frag4_next, XRX_STAT_PASS_FRAG,
	  XRX_PARSE_FRAG, F4 | XRX_META_F_FRAG, HL_AUTO, -1 },
	{ "ipv4 middle fragment udp", m_frag4_udp_mid, XRX_STAT_PASS_FRAG,
	  XRX_PARSE_FRAG, F4 | XRX_META_F_FRAG, HL_AUTO, -1 },
	{ "ipv4 ihl 4", m_ihl4, XRX_STAT_PASS_MALFORMED, XRX_PARSE_MALFORMED,
	  F4, HL_ANY, 0 },
	{ "ipv4 ihl past tot_len", m_ihl_long, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F4 | XRX_META_F_IPV4_OPT, HL_ANY, 0 },
	{ "ipv4 version 6", m_ipver, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F4, HL_ANY, 0 },
	{ "ipv6 version 4", m_ip6ver, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F6, HL_ANY, 0 },
	{ "tcp doff 4", m_doff4, XRX_STAT_PASS_MALFORMED, XRX_PARSE_MALFORMED,
	  F4 | FT, HL_AUTO, -1 },
	{ "tcp doff past the frame", m_doff_long, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F4 | FT, HL_AUTO, -1 },
	{ "ipv6 nine extension headers", m_ext9, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F6 | XRX_META_F_IPV6_EXT, HL_ANY, 0 },
	{ "ipv6 headers past the parse window", m_ext_window,
	  XRX_STAT_PASS_TOO_LONG, XRX_PARSE_TOO_LONG,
	  F6 | XRX_META_F_IPV6_EXT | FT, HL_ANY, -1 },
	{ "tcp4 ethernet padding", m_pad, ACCEL, XRX_PARSE_L4,
	  F4 | FT | XRX_META_F_LEN_PAD, HL_AUTO, -1 },
	{ "udp6 ethernet padding", m_pad6, ACCEL, XRX_PARSE_L4,
	  F6 | FU | XRX_META_F_LEN_PAD, HL_AUTO, -1 },
	{ "ipv4 tot_len beyond frame", m_len_long4, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F4, HL_ANY, 0 },
	{ "ipv4 tot_len short of frame", m_len_short4, ACCEL, XRX_PARSE_L4,
	  F4 | FT | XRX_META_F_LEN_PAD, HL_AUTO, -1 },
	{ "ipv4 tot_len below ihl", m_len_tiny4, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F4, HL_ANY, 0 },
	{ "ipv6 payload_len beyond frame", m_len_long6, XRX_STAT_PASS_MALFORMED,
	  XRX_PARSE_MALFORMED, F6, HL_ANY, 0 },
	{ "tcp4 port without rule", m_port80, XRX_STAT_PASS_NO_RULE,
	  XRX_PARSE_L4, F4 | FT, HL_AUTO, -1 },
	{ "udp6 port without rule", m_udp6_53, XRX_STAT_PASS_NO_RULE,
	  XRX_PARSE_L4, F6 | FU, HL_AUTO, -1 },
	{ "bad checksums are not xrx_rx's business", m_badcsum, ACCEL,
	  XRX_PARSE_L4, F4 | FT, HL_AUTO, -1 },
};

/* ------------------------------------------------------------------ */
/* Checks                                                             */

static const char *stat_name(int s)
{
	return s >= 0 && s < XRX_STAT_MAX ? xrx_stat_names[s] : "?";
}

/* The verdict counter the program should bump for @want. */
static enum xrx_stat verdict_stat(enum xrx_stat want)
{
	if (want == ACCEL && env.rx.xsk_fd < 0)
		return XRX_STAT_PASS_NO_SOCKET;
	return want;
}

/*
 * Exactly RX, @want and the parse path moved, by one frame of @len bytes
 * each (and nothing else: every frame is counted once in RX, once in a
 * verdict and once in the way its headers were read).
 */
static void check_counters(const struct run *r, enum xrx_stat want, __u32 len)
{
	int k;

	for (k = 0; k < XRX_STAT_MAX; k++) {
		__u64 p = (k == XRX_STAT_RX || k == (int)want ||
			   k == (int)r->path) ? 1 : 0;

		if (r->stat[k].packets != p || r->stat[k].bytes != p * len)
			fail_msg("counter %s: %llu packets %llu bytes, want %llu/%llu (verdict %s)",
				 stat_name(k),
				 (unsigned long long)r->stat[k].packets,
				 (unsigned long long)r->stat[k].bytes,
				 (unsigned long long)p,
				 (unsigned long long)(p * len), stat_name(want));
	}
}

/* Verdict, counters, and the frame bytes coming back unchanged. */
static void check_verdict(const struct run *r, const __u8 *frame, __u32 len,
			  enum xrx_stat want)
{
	int accel = want == ACCEL;

	if (r->err)
		fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-r->err));
	want = verdict_stat(want);
	assert_int_equal(r->retval,
			 want == XRX_STAT_REDIRECT ? XDP_REDIRECT : XDP_PASS);
	check_counters(r, want, len);
	/* Metadata only on accelerated frames, and never a changed payload. */
	assert_int_equal(r->meta_len, accel ? sizeof(struct xrx_meta) : 0);
	assert_int_equal(r->out_len, len + r->meta_len);
	assert_memory_equal(r->out + r->meta_len, frame, len);
}

/* Every field of @m against what the builder laid out and the row says. */
static void check_meta(const struct xrx_meta *m, const struct row *row,
		       const struct frame_spec *s, const struct frame_info *fi,
		       __u32 headlen)
{
	assert_int_equal(m->magic, XRX_META_MAGIC);
	assert_int_equal(m->version, XRX_META_VERSION);
	assert_int_equal(m->pad, 0);
	/* The plain build: its own hash, no out-of-band tag. */
	assert_int_equal(m->hash_type, XRX_HASH_SW);
	assert_int_equal(m->vlan_tci, 0);
	assert_int_equal(m->vlan_proto, 0);
	assert_int_equal(m->headlen, headlen);
	assert_int_equal(m->l3_off, fi->l3_off);
	assert_int_equal(m->l4_off, fi->l4_off);
	assert_int_equal(m->flags, row->flags);
	assert_int_equal(m->l4_proto, s->l4);
	assert_int_equal(m->nr_vlans, s->nr_vlans);
}

/* xrx_parse() in userspace on the same bytes: same answer as the table. */
static void check_parse(const __u8 *frame, __u32 len, const struct row *row,
			const struct frame_spec *s, const struct frame_info *fi,
			int headlen, struct xrx_parsed *p)
{
	__u32 win = len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW;

	xrx_parse(frame, win, len, p, &rx_key);
	if (p->result != row->result)
		fail_msg("xrx_parse result %u, want %u", p->result, row->result);
	assert_int_equal(p->flags, row->flags);
	assert_int_equal(p->nr_vlans, s->nr_vlans < 2 ? s->nr_vlans : 2);
	if (headlen >= 0)
		assert_int_equal(p->headlen, headlen);
	if (row->l4_off >= 0)
		assert_int_equal(p->l4_off, row->l4_off);
	else
		assert_int_equal(p->l4_off, fi->l4_off);
	if (row->result == XRX_PARSE_L4) {
		assert_int_equal(p->sport, s->sport);
		assert_int_equal(p->dport, s->dport);
	}
}

/*
 * Without privileges the program cannot load: a skip. As root a load
 * failure is the program's fault (the verifier refused it): a failure.
 */
static void need_env(void)
{
	if (env.rx.broken)
		fail_msg("%s", env.rx.broken);
	if (env.rx.skip)
		skip();
}

static void test_row(void **state)
{
	const struct row *row = *state;
	static __u8 frame[FRAME_CAP];
	static struct run r;
	struct frame_spec s;
	struct frame_info fi;
	struct xrx_parsed p;
	int len, headlen;

	need_env();
	rules_base();
	row->make(&s);
	len = frame_build_info(&s, frame, sizeof(frame), &fi);
	assert_true(len > 0);
	headlen = row->headlen == HL_AUTO ? (int)expect_headlen(&s, &fi) :
					    row->headlen;

	check_parse(frame, len, row, &s, &fi, headlen, &p);

	run_prog(frame, len, len, &r);
	check_verdict(&r, frame, len, row->stat);
	if (row->stat == ACCEL) {
		struct xrx_meta want;

		check_meta((const struct xrx_meta *)r.out, row, &s, &fi, headlen);
		/* BPF and userspace agree on every byte, the hash included. */
		xrx_meta_fill(&want, &p);
		assert_memory_equal(r.out, &want, sizeof(want));
	}
}

/*
 * A frame cut anywhere inside its headers (its IP length then promises
 * more than is there) is malformed, passed and counted as such.
 */
static void truncate_every_byte(void (*make)(struct frame_spec *s))
{
	static __u8 frame[FRAME_CAP];
	static struct run r;
	struct frame_spec s;
	struct frame_info fi;
	struct xrx_parsed p;
	int len, n;

	need_env();
	rules_base();
	make(&s);
	s.payload_len = 20;
	len = frame_build_info(&s, frame, sizeof(frame), &fi);
	assert_true(len > 0);
	for (n = FRAME_ETH_HLEN; n < (int)fi.payload_off + 1; n++) {
		run_prog(frame, n, n, &r);
		if (r.err || r.retval != XDP_PASS ||
		    r.stat[XRX_STAT_PASS_MALFORMED].packets != 1 ||
		    r.stat[XRX_STAT_RX].bytes != (__u64)n || r.meta_len)
			fail_msg("cut at %d of %d: err %d verdict %u malformed %llu",
				 n, len, r.err, r.retval,
				 (unsigned long long)r.stat[XRX_STAT_PASS_MALFORMED].packets);
		xrx_parse(frame, n, n, &p, NULL);
		if (p.result != XRX_PARSE_MALFORMED)
			fail_msg("cut at %d: xrx_parse result %u", n, p.result);
	}
}

static void test_trunc_tcp4(void **state)
{
	truncate_every_byte(m_tcp4_ipopt);
}

static void test_trunc_tcp6(void **state)
{
	truncate_every_byte(m_tcp6_3ext);
}

static void test_trunc_qinq(void **state)
{
	truncate_every_byte(m_qinq_udp4);
}

static void test_trunc_frag6(void **state)
{
	truncate_every_byte(m_tcp6_frag1);
}

/* ------------------------------------------------------------------ */
/* Rules and configuration                                            */

static enum xrx_stat run_simple(void (*make)(struct frame_spec *s),
				const char *daddr, __u16 dport)
{
	static __u8 frame[FRAME_CAP];
	static struct run r;
	struct frame_spec s;
	int len, k;

	make(&s);
	if (dport)
		s.dport = dport;
	if (daddr && strchr(daddr, ':'))
		assert_int_equal(inet_pton(AF_INET6, daddr, s.daddr), 1);
	else if (daddr)
		assert_int_equal(inet_pton(AF_INET, daddr, s.daddr + 12), 1);
	len = frame_build(&s, frame, sizeof(frame));
	assert_true(len > 0);
	run_prog(frame, len, len, &r);
	assert_int_equal(r.err, 0);
	for (k = XRX_STAT_REDIRECT; k < XRX_STAT_NO_META_ROOM; k++)
		if (r.stat[k].packets)
			break;
	if (k == XRX_STAT_PASS_NO_SOCKET || k == XRX_STAT_REDIRECT) {
		assert_int_equal(r.meta_len, sizeof(struct xrx_meta));
		assert_int_equal(r.retval, k == XRX_STAT_REDIRECT ?
					   XDP_REDIRECT : XDP_PASS);
		return ACCEL;
	}
	assert_int_equal(r.retval, XDP_PASS);
	assert_int_equal(r.meta_len, 0);
	return k;
}

#define expect_stat(got, want)                                               \
	do {                                                                  \
		enum xrx_stat g_ = (got), w_ = (want);                        \
		if (g_ != w_)                                                 \
			fail_msg("%s: verdict %s, want %s", #got,             \
				 g_ == ACCEL ? "accel" : stat_name(g_),       \
				 w_ == ACCEL ? "accel" : stat_name(w_));      \
	} while (0)

/* Every xrx_ports entry set to @v, behind the library's back. */
static void ports_fill(enum xrx_port_verdict v)
{
	static __u32 keys[XRX_PORTS_MAX];
	static struct xrx_port_val vals[XRX_PORTS_MAX];
	__u32 k, n = XRX_PORTS_MAX;

	for (k = 0; k < XRX_PORTS_MAX; k++) {
		keys[k] = k;
		vals[k] = (struct xrx_port_val){ v, v, v, v, v, v };
	}
	assert_int_equal(bpf_map_update_batch(env.rx.ports_fd, keys, vals, &n,
					      NULL), 0);
	assert_int_equal(n, XRX_PORTS_MAX);
}

/* xrx_ports recomputed from the trie, as every update leaves it. */
static void ports_sync(void)
{
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, env.rx.ports_fd,
					   NULL, 0, NULL, NULL, 0),
			 0);
}

/*
 * The verdict for a frame, asked both ways: with xrx_ports as the
 * library fills it (most frames decided there), and with every entry
 * XRX_PORT_LPM (the trie alone, the two lookups xrx_rx made before the
 * table). A wrong table entry fails the first, a wrong trie lookup the
 * second.
 */
#define expect_rule(make, daddr, dport, want)                                 \
	do {                                                                  \
		expect_stat(run_simple(make, daddr, dport), want);            \
		ports_fill(XRX_PORT_LPM);                                     \
		if (run_simple(make, daddr, dport) != (want))                 \
			fail_msg("trie only: %s", #make " " #daddr " " #dport); \
		ports_sync();                                                 \
	} while (0)

static void test_rule_port(void **state)
{
	need_env();
	rules_clear();
	rule_add(IPPROTO_TCP, 5001, NULL, 0, XRX_ACT_ACCEL);
	expect_rule(m_tcp4, NULL, 5001, ACCEL);
	expect_rule(m_tcp6, NULL, 5001, ACCEL);
	expect_rule(m_tcp4, NULL, 5002, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_udp4, NULL, 5001, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_icmp4, NULL, 0, XRX_STAT_PASS_NOT_L4);
	expect_rule(m_arp, NULL, 0, XRX_STAT_PASS_NOT_IP);
}

static void test_rule_wildcard_port(void **state)
{
	need_env();
	rules_clear();
	rule_add(IPPROTO_UDP, 0, NULL, 0, XRX_ACT_ACCEL);
	expect_rule(m_udp4, NULL, 7777, ACCEL);
	expect_rule(m_udp6, NULL, 1, ACCEL);
	expect_rule(m_tcp4, NULL, 7777, XRX_STAT_PASS_NO_RULE);
}

static void test_rule_prefix4(void **state)
{
	need_env();
	rules_clear();
	rule_add(IPPROTO_TCP, 5001, "198.18.0.0", 15, XRX_ACT_ACCEL);
	expect_rule(m_tcp4, "198.18.0.2", 0, ACCEL);
	expect_rule(m_tcp4, "198.19.255.1", 0, ACCEL);
	expect_rule(m_tcp4, "198.20.0.1", 0, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_tcp4, "198.18.0.2", 5002, XRX_STAT_PASS_NO_RULE);
	/* An IPv4 prefix never covers IPv6, whatever its bits. */
	expect_rule(m_tcp6, "::c612:2", 0, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_tcp6, NULL, 0, XRX_STAT_PASS_NO_RULE);
}

static void test_rule_prefix6(void **state)
{
	need_env();
	rules_clear();
	rule_add(IPPROTO_TCP, 0, "2001:db8::", 32, XRX_ACT_ACCEL);
	expect_rule(m_tcp6, "2001:db8:ffff::9", 443, ACCEL);
	expect_rule(m_tcp6, "2001:db9::2", 0, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_tcp4, NULL, 0, XRX_STAT_PASS_NO_RULE);
	expect_rule(m_qinq_tcp6, NULL, 0, ACCEL);
}

static void test_rule_exclusion(void **state)
{
	need_env();
	rules_clear();
	/* Accelerate all TCP except port 22 and except one host's 5001. */
	rule_add(IPPROTO_TCP, 0, NULL, 0, XRX_ACT_ACCEL);
	rule_add(IPPROTO_TCP, 22, NULL, 0, XRX_ACT_PASS);
	rule_add(IPPROTO_TCP, 5001, NULL, 0, XRX_ACT_ACCEL);
	rule_add(IPPROTO_TCP, 5001, "198.18.0.9", 32, XRX_ACT_PASS);
	expect_rule(m_tcp4, NULL, 80, ACCEL);
	expect_rule(m_tcp4, NULL, 22, XRX_STAT_PASS_EXCLUDED);
	expect_rule(m_tcp6, NULL, 22, XRX_STAT_PASS_EXCLUDED);
	expect_rule(m_tcp4, "198.18.0.2", 5001, ACCEL);
	expect_rule(m_tcp4, "198.18.0.9", 5001, XRX_STAT_PASS_EXCLUDED);
	/* A pass rule beats an accelerating default. */
	set_default(XRX_ACT_ACCEL);
	expect_rule(m_tcp4, NULL, 22, XRX_STAT_PASS_EXCLUDED);
}

static void test_default_accel(void **state)
{
	need_env();
	rules_clear();
	set_default(XRX_ACT_ACCEL);
	expect_rule(m_tcp4, NULL, 1234, ACCEL);
	expect_rule(m_udp6, NULL, 53, ACCEL);
	expect_rule(m_vlan_tcp4, NULL, 9, ACCEL);
	/* The default only covers TCP/UDP: the host keeps the rest. */
	expect_rule(m_icmp6, NULL, 0, XRX_STAT_PASS_NOT_L4);
	expect_rule(m_frag4_first, NULL, 0, XRX_STAT_PASS_FRAG);
	expect_rule(m_arp, NULL, 0, XRX_STAT_PASS_NOT_IP);
}

static void test_default_pass(void **state)
{
	need_env();
	rules_clear();
	expect_stat(run_simple(m_tcp4, NULL, 5001), XRX_STAT_PASS_NO_RULE);
	expect_stat(run_simple(m_udp6, NULL, 5001), XRX_STAT_PASS_NO_RULE);
}

/* ------------------------------------------------------------------ */
/* xrx_ports: the table against the trie                             */

/* xrx_ports' columns; 0 ends a list of entries. */
enum { C_TCP = 1, C_UDP, C_VXLAN_TCP, C_VXLAN_UDP };

/* What xrx_ports holds for @port in column @col. */
static enum xrx_port_verdict port_entry(__u32 port, int col)
{
	struct xrx_port_val v;

	assert_int_equal(bpf_map_lookup_elem(env.rx.ports_fd, &port, &v), 0);
	return ((enum xrx_port_verdict *)&v)[col - C_TCP];
}

#define expect_entry(port, col, want)                                         \
	do {                                                                  \
		enum xrx_port_verdict g_ = port_entry(port, col);             \
		if (g_ != (want))                                             \
			fail_msg("xrx_ports[%u] %s: %d, want %d (%s)",        \
				 (unsigned int)(port), #col, g_, (want), #want); \
	} while (0)

/* A rule of a shape: "[vxlan:]proto/port[@addr/plen]", or a raw prefix. */
struct shape_rule {
	__u8 scope, proto;
	__u16 port;
	const char *addr;	/* NULL: any address */
	int plen;
	__u32 action;
	__u32 raw_plen;		/* not 0: a key of this prefixlen, proto only */
};

struct shape_entry {
	__u16 port;
	int col;
	enum xrx_port_verdict want;
};

struct shape_probe {
	void (*make)(struct frame_spec *s);
	const char *daddr;
	__u16 dport;
	enum xrx_stat want;	/* verdict; ACCEL = accelerated */
};

#define SHAPE_MAX 8

/*
 * A rule shape: its rules and default, the xrx_ports entries they must
 * give (rules.h: a verdict where the address cannot matter, XRX_PORT_LPM
 * where it can, XRX_PORT_DEFAULT where no rule matches), and frames that
 * must get the same verdict from the table and from the trie alone
 * (expect_rule()).
 */
struct shape {
	const char *name;
	__u32 dflt;
	struct shape_rule rules[SHAPE_MAX];
	struct shape_entry entries[SHAPE_MAX];
	struct shape_probe probes[SHAPE_MAX];
};

#define OUT XRX_RULE_SCOPE_OUTER
#define INN XRX_RULE_SCOPE_INNER
#define TCP IPPROTO_TCP
#define UDP IPPROTO_UDP
#define R_ACCEL XRX_ACT_ACCEL
#define R_PASS XRX_ACT_PASS
#define RULE(sc, pr, port, addr, plen, act) { sc, pr, port, addr, plen, act, 0 }
#define RAW(plen, pr, act) { OUT, pr, 0, NULL, 0, act, plen }

static const struct shape shapes[] = {
	{ "xrx_ports: port only", XRX_ACT_ACCEL,
	  { RULE(OUT, TCP, 5001, NULL, 0, R_ACCEL), RULE(OUT, UDP, 53, NULL, 0, R_PASS) },
	  { { 5001, C_TCP, XRX_PORT_ACCEL }, { 5001, C_UDP, XRX_PORT_DEFAULT },
	    { 5001, C_VXLAN_TCP, XRX_PORT_DEFAULT }, { 53, C_UDP, XRX_PORT_PASS },
	    { 5002, C_TCP, XRX_PORT_DEFAULT }, { 0, C_TCP, XRX_PORT_DEFAULT } },
	  { { m_tcp4, NULL, 5001, ACCEL }, { m_udp6, NULL, 53, XRX_STAT_PASS_EXCLUDED },
	    { m_udp4, NULL, 5001, ACCEL } } },
	{ "xrx_ports: prefix and port", XRX_ACT_PASS,
	  { RULE(OUT, TCP, 5001, "198.18.0.0", 15, R_ACCEL), RULE(OUT, UDP, 0, NULL, 0, R_ACCEL),
	    RULE(OUT, UDP, 4000, "2001:db8::", 32, R_PASS) },
	  { { 5001, C_TCP, XRX_PORT_LPM }, { 5002, C_TCP, XRX_PORT_DEFAULT },
	    { 4000, C_UDP, XRX_PORT_LPM }, { 4001, C_UDP, XRX_PORT_ACCEL } },
	  { { m_tcp4, "198.18.0.2", 5001, ACCEL },
	    { m_tcp4, "198.20.0.1", 5001, XRX_STAT_PASS_NO_RULE },
	    { m_tcp6, NULL, 5001, XRX_STAT_PASS_NO_RULE },
	    /* In the prefix the port's rule; outside it, udp/any. */
	    { m_udp6, "2001:db8::7", 4000, XRX_STAT_PASS_EXCLUDED },
	    { m_udp6, "2001:db9::7", 4000, ACCEL }, { m_udp4, NULL, 4001, ACCEL } } },
	{ "xrx_ports: prefix and any port, a port's own rule first", XRX_ACT_PASS,
	  { RULE(OUT, TCP, 0, "198.18.0.0", 15, R_ACCEL), RULE(OUT, TCP, 22, NULL, 0, R_PASS) },
	  { { 80, C_TCP, XRX_PORT_LPM }, { 0, C_TCP, XRX_PORT_LPM },
	    { 22, C_TCP, XRX_PORT_PASS }, { 80, C_UDP, XRX_PORT_DEFAULT } },
	  { { m_tcp4, "198.18.0.2", 80, ACCEL },
	    { m_tcp4, "198.20.0.1", 80, XRX_STAT_PASS_NO_RULE },
	    { m_tcp4, "198.18.0.2", 22, XRX_STAT_PASS_EXCLUDED },
	    { m_tcp6, NULL, 80, XRX_STAT_PASS_NO_RULE },
	    { m_udp4, "198.18.0.2", 80, XRX_STAT_PASS_NO_RULE } } },
	{ "xrx_ports: exclusions over tcp/any", XRX_ACT_PASS,
	  { RULE(OUT, TCP, 0, NULL, 0, R_ACCEL), RULE(OUT, TCP, 22, NULL, 0, R_PASS),
	    RULE(OUT, TCP, 5001, NULL, 0, R_ACCEL),
	    RULE(OUT, TCP, 5001, "198.18.0.9", 32, R_PASS) },
	  { { 80, C_TCP, XRX_PORT_ACCEL }, { 0, C_TCP, XRX_PORT_ACCEL },
	    { 22, C_TCP, XRX_PORT_PASS }, { 5001, C_TCP, XRX_PORT_LPM } },
	  { { m_tcp4, "198.18.0.9", 5001, XRX_STAT_PASS_EXCLUDED },
	    { m_tcp4, "198.18.0.8", 5001, ACCEL },
	    { m_tcp6, NULL, 22, XRX_STAT_PASS_EXCLUDED }, { m_tcp6, NULL, 65535, ACCEL } } },
	{ "xrx_ports: inner scope apart from the outer", XRX_ACT_PASS,
	  { RULE(INN, TCP, 5201, NULL, 0, R_ACCEL), RULE(INN, TCP, 22, NULL, 0, R_PASS),
	    RULE(INN, UDP, 0, "2001:db8:1::", 48, R_ACCEL), RULE(OUT, UDP, 8472, NULL, 0, R_ACCEL) },
	  { { 5201, C_VXLAN_TCP, XRX_PORT_ACCEL }, { 5201, C_TCP, XRX_PORT_DEFAULT },
	    { 22, C_VXLAN_TCP, XRX_PORT_PASS }, { 53, C_VXLAN_UDP, XRX_PORT_LPM },
	    { 8472, C_UDP, XRX_PORT_ACCEL }, { 8472, C_VXLAN_UDP, XRX_PORT_LPM },
	    { 4789, C_UDP, XRX_PORT_DEFAULT } },
	  /* Frames in VXLAN: the VXLAN rows, which run both ways too. */
	  { { m_tcp4, NULL, 5201, XRX_STAT_PASS_NO_RULE }, { m_udp4, NULL, 8472, ACCEL } } },
	{ "xrx_ports: a prefix that ends in the proto bits", XRX_ACT_PASS,
	  { RAW(8, TCP, R_ACCEL), RULE(OUT, TCP, 22, NULL, 0, R_PASS) },
	  { { 80, C_TCP, XRX_PORT_LPM }, { 22, C_TCP, XRX_PORT_LPM },
	    { 80, C_UDP, XRX_PORT_DEFAULT } },
	  { { m_tcp4, NULL, 80, ACCEL }, { m_tcp4, NULL, 22, XRX_STAT_PASS_EXCLUDED },
	    { m_udp4, NULL, 80, XRX_STAT_PASS_NO_RULE } } },
};

static void test_shape(void **state)
{
	const struct shape *sh = *state;
	const struct shape_rule *ru;
	const struct shape_entry *en;
	const struct shape_probe *pr;

	need_env();
	rules_clear();
	for (ru = sh->rules; ru < sh->rules + SHAPE_MAX && ru->proto; ru++) {
		struct xrx_rule_val val = { .action = ru->action,
					    .id = env.nr_keys + 1 };
		struct xrx_rule_key key = { .prefixlen = ru->raw_plen,
					    .proto = ru->proto };

		if (!ru->raw_plen) {
			rule_add_scoped(ru->scope, ru->proto, ru->port, ru->addr,
					ru->plen, ru->action);
			continue;
		}
		assert_int_equal(xrx_rules__update(env.rx.rules_fd,
						   env.rx.ports_fd, NULL, 0,
						   &key, &val, 1), 0);
		env.keys[env.nr_keys++] = key;
	}
	set_default(sh->dflt);
	for (en = sh->entries; en < sh->entries + SHAPE_MAX && en->col; en++)
		expect_entry(en->port, en->col, en->want);
	for (pr = sh->probes; pr < sh->probes + SHAPE_MAX && pr->make; pr++)
		expect_rule(pr->make, pr->daddr, pr->dport, pr->want);
	/* Without the rules every entry goes back to the default. */
	rules_clear();
	for (en = sh->entries; en < sh->entries + SHAPE_MAX && en->col; en++)
		expect_entry(en->port, en->col, XRX_PORT_DEFAULT);
}

/* Taking exclusions away opens their ports to tcp/any. */
static void test_ports_update(void **state)
{
	need_env();
	rules_clear();
	rule_add(IPPROTO_TCP, 0, NULL, 0, XRX_ACT_ACCEL);
	rule_add(IPPROTO_TCP, 22, NULL, 0, XRX_ACT_PASS);
	rule_add(IPPROTO_TCP, 5001, "198.18.0.9", 32, XRX_ACT_PASS);
	expect_entry(22, C_TCP, XRX_PORT_PASS);
	expect_entry(5001, C_TCP, XRX_PORT_LPM);
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, env.rx.ports_fd,
					   &env.keys[1], 2, NULL, NULL, 0), 0);
	expect_entry(22, C_TCP, XRX_PORT_ACCEL);
	expect_entry(5001, C_TCP, XRX_PORT_ACCEL);
	expect_rule(m_tcp4, "198.18.0.9", 5001, ACCEL);
	expect_rule(m_tcp4, NULL, 22, ACCEL);
}

/*
 * xrx_ports is made mappable, and the library reads and writes it as
 * memory (what the lookups here read back is what the map holds); a
 * table made otherwise (another object's, through xdp-loader) is still
 * kept by the batch commands: the same verdicts in a plain array.
 */
static void test_ports_mappable(void **state)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	need_env();
	assert_int_equal(bpf_obj_get_info_by_fd(env.rx.ports_fd, &info, &len), 0);
	assert_true(info.map_flags & BPF_F_MMAPABLE);
}

static void test_ports_update_batch(void **state)
{
	struct xrx_rule_val val = { .action = XRX_ACT_PASS, .id = 99 };
	struct xrx_rule_key key = { .proto = IPPROTO_TCP,
				    .scope = XRX_RULE_SCOPE_OUTER,
				    .port = htons(22),
				    .prefixlen = XRX_RULE_PREFIX_BASE };
	struct xrx_port_val v;
	__u32 port;
	int fd;

	need_env();
	rules_clear();
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ports_plain", sizeof(__u32),
			    sizeof(struct xrx_port_val), XRX_PORTS_MAX, NULL);
	assert_true(fd >= 0);
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, fd, NULL, 0, &key,
					   &val, 1), 0);
	port = 22;
	assert_int_equal(bpf_map_lookup_elem(fd, &port, &v), 0);
	assert_int_equal(v.tcp, XRX_PORT_PASS);
	assert_int_equal(v.udp, XRX_PORT_DEFAULT);
	port = 23;
	assert_int_equal(bpf_map_lookup_elem(fd, &port, &v), 0);
	assert_int_equal(v.tcp, XRX_PORT_DEFAULT);
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, fd, &key, 1, NULL,
					   NULL, 0), 0);
	port = 22;
	assert_int_equal(bpf_map_lookup_elem(fd, &port, &v), 0);
	assert_int_equal(v.tcp, XRX_PORT_DEFAULT);
	close(fd);
}

/*
 * xrx_rx decides from xrx_ports without the trie wherever the table has
 * a verdict: entries written by hand over an empty trie.
 */
static void test_ports_decide(void **state)
{
	struct xrx_port_val v = { .tcp = XRX_PORT_ACCEL, .udp = XRX_PORT_PASS };
	__u32 port = 7000;

	need_env();
	rules_clear();
	ports_fill(XRX_PORT_DEFAULT);
	assert_int_equal(bpf_map_update_elem(env.rx.ports_fd, &port, &v, 0), 0);
	expect_stat(run_simple(m_tcp4, NULL, 7000), ACCEL);
	expect_stat(run_simple(m_udp6, NULL, 7000), XRX_STAT_PASS_EXCLUDED);
	expect_stat(run_simple(m_tcp4, NULL, 7001), XRX_STAT_PASS_NO_RULE);
	set_default(XRX_ACT_ACCEL);
	expect_stat(run_simple(m_tcp4, NULL, 7001), ACCEL);
	/* An empty table (XRX_PORT_LPM) asks the trie, which is empty. */
	ports_fill(XRX_PORT_LPM);
	expect_stat(run_simple(m_udp6, NULL, 7000), ACCEL);
	set_default(XRX_ACT_PASS);
	expect_stat(run_simple(m_tcp4, NULL, 7000), XRX_STAT_PASS_NO_RULE);
	ports_sync();
}

/*
 * The hash tells flows apart and is direction-sensitive; it is keyed with
 * xrx_cfg's hash_key: another key, another hash for the same flow, and
 * userspace's xrx_flow_hash() under that key gives the program's.
 */
static void test_hash(void **state)
{
	static const struct xrx_hash_key other = { { 1, 2 } };
	struct xrx_cfg cfg = { .default_action = XRX_ACT_ACCEL,
			       .hash_key = other };
	static __u8 frame[FRAME_CAP];
	static struct run r;
	struct xrx_parsed p;
	struct frame_spec s;
	__u32 h[4], zero = 0;
	int i, len;

	need_env();
	rules_clear();
	set_default(XRX_ACT_ACCEL);
	for (i = 0; i < 4; i++) {
		frame_spec_tcp4(&s);
		s.seq = 1000 + 100 * i;		/* same flow for i = 0, 1 */
		if (i == 2)
			s.sport = 40001;
		if (i == 3) {			/* reverse direction */
			s.sport = FRAME_DPORT;
			s.dport = FRAME_SPORT;
			s.saddr[12] = 198; s.saddr[13] = 18; s.saddr[15] = 2;
			s.daddr[12] = 198; s.daddr[13] = 18; s.daddr[15] = 1;
		}
		len = frame_build(&s, frame, sizeof(frame));
		run_prog(frame, len, len, &r);
		assert_int_equal(r.meta_len, sizeof(struct xrx_meta));
		h[i] = ((struct xrx_meta *)r.out)->hash;
	}
	assert_int_equal(h[0], h[1]);
	assert_int_not_equal(h[0], h[2]);
	assert_int_not_equal(h[0], h[3]);

	/* The last frame (i == 3) again, under another key. */
	xrx_parse(frame, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len,
		  &p, &rx_key);
	assert_int_equal(p.hash, h[3]);
	assert_int_equal(bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0), 0);
	run_prog(frame, len, len, &r);
	assert_int_equal(r.meta_len, sizeof(struct xrx_meta));
	assert_int_not_equal(((struct xrx_meta *)r.out)->hash, h[3]);
	assert_int_equal(((struct xrx_meta *)r.out)->hash,
			 xrx_flow_hash(&p, &other));
	set_default(XRX_ACT_ACCEL);
	run_prog(frame, len, len, &r);
	assert_int_equal(((struct xrx_meta *)r.out)->hash, h[3]);
}

/* ------------------------------------------------------------------ */
/* VXLAN and GENEVE: steering by the inner frame                      */

/*
 * The configuration the tunnel table runs under: VXLAN on UDP 4789 and
 * 8472, GENEVE on 6081 and 6082; inner rules vxlan:tcp/5201
 * (accelerate), vxlan:tcp/22 (pass), vxlan:udp/any@2001:db8:1::/48
 * (accelerate), and geneve:tcp/5202 (accelerate), geneve:tcp/22 (pass),
 * geneve:udp/any@2001:db8:1::/48 (accelerate); outer rules udp/8472 and
 * udp/6082 (accelerate); default pass.
 */
static void rules_vxlan(__u32 flags)
{
	struct xrx_cfg cfg = { .flags = flags, .vxlan_ports = { 4789, 8472 },
			       .geneve_ports = { 6081, 6082 },
			       .hash_key = rx_key };
	__u32 zero = 0;

	rules_clear();
	rule_add_scoped(XRX_RULE_SCOPE_GENEVE, IPPROTO_TCP, 5202, NULL, 0,
			XRX_ACT_ACCEL);
	rule_add_scoped(XRX_RULE_SCOPE_GENEVE, IPPROTO_TCP, 22, NULL, 0,
			XRX_ACT_PASS);
	rule_add_scoped(XRX_RULE_SCOPE_GENEVE, IPPROTO_UDP, 0, "2001:db8:1::",
			48, XRX_ACT_ACCEL);
	rule_add(IPPROTO_UDP, 6082, NULL, 0, XRX_ACT_ACCEL);
	rule_add_scoped(XRX_RULE_SCOPE_INNER, IPPROTO_TCP, 5201, NULL, 0,
			XRX_ACT_ACCEL);
	rule_add_scoped(XRX_RULE_SCOPE_INNER, IPPROTO_TCP, 22, NULL, 0,
			XRX_ACT_PASS);
	rule_add_scoped(XRX_RULE_SCOPE_INNER, IPPROTO_UDP, 0, "2001:db8:1::",
			48, XRX_ACT_ACCEL);
	rule_add(IPPROTO_UDP, 8472, NULL, 0, XRX_ACT_ACCEL);
	assert_int_equal(bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0), 0);
}

enum { VX_OUTER4 = 0, VX_OUTER6 = 1, VX_PLAIN = 2 };

struct vxlan_row {
	const char *name;
	void (*make)(struct frame_spec *s);	/* the inner frame */
	__u16 dport;		/* inner TCP/UDP port; 0: the builder's */
	int outer;		/* VX_OUTER4, VX_OUTER6; VX_PLAIN: no tunnel */
	__u16 udp_port;		/* outer UDP port; 0: 4789 */
	__u32 linear;		/* bytes in the linear area; 0: all */
	__u32 flags;		/* xrx_cfg flags */
	enum xrx_stat want;	/* verdict; ACCEL = accelerated */
	int vxlan;		/* counted in vxlan (geneve) */
	int inner_rule;		/* counted in vxlan_inner_rule
				 * (geneve_inner_rule) */
	int tnl;		/* TN_VXLAN, TN_GENEVE, TN_GENEVE_IP */
	__u8 opt_words;		/* GENEVE options */
	__u8 gflags;		/* GENEVE second byte */
};

/* GENEVE_IP: IPv4/IPv6 carried without the inner Ethernet header. */
enum { TN_VXLAN = 0, TN_GENEVE, TN_GENEVE_IP };

#define INNER XRX_CFG_F_INNER_RULES

static void m_tcp6_inner(struct frame_spec *s)
{
	frame_spec_tcp6(s);
	s->payload_len = 1000;
}

static void m_udp6_inner(struct frame_spec *s)
{
	static const __u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };

	frame_spec_udp6(s);
	memcpy(s->daddr, a, sizeof(a));		/* 2001:db8:1::2 */
}

/* Rows leave the GENEVE fields out where they are 0. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct vxlan_row vxlan_rows[] = {
	{ "vxlan inner tcp4/5201: inner rule", m_tcp4, 5201, VX_OUTER4, 0, 0,
	  INNER, ACCEL, 1, 1 },
	{ "vxlan over ipv6, inner tcp4/5201", m_tcp4, 5201, VX_OUTER6, 0, 0,
	  INNER, ACCEL, 1, 1 },
	{ "vxlan inner tcp6/5201", m_tcp6_inner, 5201, VX_OUTER4, 0, 0, INNER,
	  ACCEL, 1, 1 },
	{ "vxlan inner vlan tcp4/5201", m_vlan_tcp4, 5201, VX_OUTER4, 0, 0,
	  INNER, ACCEL, 1, 1 },
	{ "vxlan inner qinq tcp6/5201", m_qinq_tcp6, 5201, VX_OUTER6, 0, 0,
	  INNER, ACCEL, 1, 1 },
	{ "vxlan inner udp6 in the inner prefix", m_udp6_inner, 0, VX_OUTER4,
	  0, 0, INNER, ACCEL, 1, 1 },
	{ "vxlan inner udp6 outside the inner prefix", m_udp6, 0, VX_OUTER4,
	  0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0 },
	{ "vxlan on the second port, inner tcp4/5201", m_tcp4, 5201,
	  VX_OUTER4, 8472, 0, INNER, ACCEL, 1, 1 },
	{ "vxlan inner tcp4/80: no inner rule, no outer rule", m_tcp4, 80,
	  VX_OUTER4, 0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0 },
	{ "vxlan inner tcp4/80: the outer rule udp/8472", m_tcp4, 80,
	  VX_OUTER4, 8472, 0, INNER, ACCEL, 1, 0 },
	{ "vxlan inner tcp4/22: the inner pass rule beats the outer rule",
	  m_tcp4, 22, VX_OUTER4, 8472, 0, INNER, XRX_STAT_PASS_EXCLUDED, 1, 1 },
	{ "vxlan inner icmp4: outer rules", m_icmp4, 0, VX_OUTER4, 0, 0, INNER,
	  XRX_STAT_PASS_NO_RULE, 1, 0 },
	{ "vxlan inner tcp doff 4: outer rules", m_doff4, 5201, VX_OUTER4, 0,
	  0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0 },
	{ "vxlan inner arp: outer rule udp/8472", m_arp, 0, VX_OUTER4, 8472, 0,
	  INNER, ACCEL, 1, 0 },
	{ "udp to a port that is not vxlan, tcp4/5201 inside", m_tcp4, 5201,
	  VX_OUTER4, 4790, 0, INNER, XRX_STAT_PASS_NO_RULE, 0, 0 },
	{ "vxlan without inner rules in xrx_cfg: counted only", m_tcp4, 5201,
	  VX_OUTER4, 0, 0, 0, XRX_STAT_PASS_NO_RULE, 1, 0 },
	{ "plain tcp4/5201 is not matched by the inner rule", m_tcp4, 5201,
	  VX_PLAIN, 0, 0, INNER, XRX_STAT_PASS_NO_RULE, 0, 0 },
	{ "vxlan tcp4/5201, only ethernet linear", m_tcp4, 5201, VX_OUTER4, 0,
	  FRAME_ETH_HLEN, INNER, ACCEL, 1, 1 },
	{ "vxlan tcp4/5201, outer headers linear, inner in a fragment",
	  m_tcp4, 5201, VX_OUTER4, 0, 60, INNER, ACCEL, 1, 1 },
	{ "vxlan over ipv6 tcp6/5201, inner tcp header in a fragment",
	  m_tcp6_inner, 5201, VX_OUTER6, 0, 140, INNER, ACCEL, 1, 1 },
	{ "vxlan inner tcp4/5202: a geneve rule does not match in vxlan",
	  m_tcp4, 5202, VX_OUTER4, 0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0 },
	/* GENEVE: the same lookups in its own scope */
	{ "geneve inner tcp4/5202: inner rule", m_tcp4, 5202, VX_OUTER4, 0, 0,
	  INNER, ACCEL, 1, 1, TN_GENEVE },
	{ "geneve over ipv6, inner tcp6/5202", m_tcp6_inner, 5202, VX_OUTER6,
	  0, 0, INNER, ACCEL, 1, 1, TN_GENEVE },
	{ "geneve with 4 option words, inner tcp4/5202", m_tcp4, 5202,
	  VX_OUTER4, 0, 0, INNER, ACCEL, 1, 1, TN_GENEVE, 4 },
	{ "geneve inner vlan tcp4/5202", m_vlan_tcp4, 5202, VX_OUTER4, 0, 0,
	  INNER, ACCEL, 1, 1, TN_GENEVE },
	{ "geneve ipv4 without inner ethernet, tcp4/5202", m_tcp4, 5202,
	  VX_OUTER4, 0, 0, INNER, ACCEL, 1, 1, TN_GENEVE_IP, 2 },
	{ "geneve ipv6 without inner ethernet, udp6 in the inner prefix",
	  m_udp6_inner, 0, VX_OUTER6, 0, 0, INNER, ACCEL, 1, 1, TN_GENEVE_IP },
	{ "geneve inner udp6 outside the inner prefix", m_udp6, 0, VX_OUTER4,
	  0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0, TN_GENEVE },
	{ "geneve inner tcp4/5201: a vxlan rule does not match in geneve",
	  m_tcp4, 5201, VX_OUTER4, 0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0,
	  TN_GENEVE },
	{ "geneve inner tcp4/80: the outer rule udp/6082", m_tcp4, 80,
	  VX_OUTER4, 6082, 0, INNER, ACCEL, 1, 0, TN_GENEVE },
	{ "geneve inner tcp4/22: the inner pass rule beats the outer rule",
	  m_tcp4, 22, VX_OUTER4, 6082, 0, INNER, XRX_STAT_PASS_EXCLUDED, 1, 1,
	  TN_GENEVE },
	{ "geneve OAM, inner tcp4/5202: outer rules", m_tcp4, 5202, VX_OUTER4,
	  0, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0, TN_GENEVE, 0, 0x80 },
	{ "geneve inner tcp4/5202 on a vxlan port: read as vxlan", m_tcp4,
	  5202, VX_OUTER4, 4789, 0, INNER, XRX_STAT_PASS_NO_RULE, 1, 0,
	  TN_GENEVE },
	{ "geneve without inner rules in xrx_cfg: counted only", m_tcp4, 5202,
	  VX_OUTER4, 0, 0, 0, XRX_STAT_PASS_NO_RULE, 1, 0, TN_GENEVE },
	{ "geneve tcp4/5202, only ethernet linear", m_tcp4, 5202, VX_OUTER4,
	  0, FRAME_ETH_HLEN, INNER, ACCEL, 1, 1, TN_GENEVE },
	{ "geneve over ipv6 tcp6/5202, inner tcp header in a fragment",
	  m_tcp6_inner, 5202, VX_OUTER6, 0, 150, INNER, ACCEL, 1, 1,
	  TN_GENEVE, 2 },
};
#pragma GCC diagnostic pop

static void test_vxlan_row(void **state)
{
	const struct vxlan_row *row = *state;
	static __u8 frame[FRAME_CAP];
	static struct run r;
	struct frame_spec s;
	struct vxlan_outer o;
	struct xrx_parsed p;
	enum xrx_stat want;
	__u32 linear;
	int len, k, side;

	need_env();
	rules_vxlan(row->flags);
	row->make(&s);
	if (row->dport)
		s.dport = row->dport;
	if (row->outer == VX_PLAIN) {
		len = frame_build(&s, frame, sizeof(frame));
	} else {
		if (row->tnl == TN_VXLAN)
			vxlan_outer_default(&o, 1);
		else
			geneve_outer_default(&o, 1);
		o.no_inner_eth = row->tnl == TN_GENEVE_IP;
		o.opt_words = row->opt_words;
		o.opt = 0x01020304;
		o.gflags = row->gflags;
		o.v6 = row->outer == VX_OUTER6;
		if (row->udp_port)
			o.dport = row->udp_port;
		len = vxlan_frame_build(&s, &o, frame, sizeof(frame), NULL);
	}
	assert_true(len > 0);
	linear = row->linear ? row->linear : (__u32)len;
	if (linear < (__u32)len && !env.rx.small_linear) {
		print_message("# kernel refuses ctx_in.data_end < data_size_in\n");
		skip();
	}
	/* With xrx_ports as the library fills it, then with the trie alone. */
	for (side = 0; side < 2; side++) {
		if (side)
			ports_fill(XRX_PORT_LPM);
		run_prog(frame, len, linear, &r);
		if (r.err)
			fail_msg("BPF_PROG_TEST_RUN: %s", strerror(-r.err));
		want = verdict_stat(row->want);
		assert_int_equal(r.retval,
				 want == XRX_STAT_REDIRECT ? XDP_REDIRECT : XDP_PASS);
		for (k = 0; k < XRX_STAT_MAX; k++) {
			__u64 n = k == XRX_STAT_RX || k == (int)want || k == (int)r.path ||
				  (k == (row->tnl && row->udp_port != 4789 ?
					 XRX_STAT_GENEVE : XRX_STAT_VXLAN) &&
				   row->vxlan) ||
				  (k == (row->tnl ? XRX_STAT_GENEVE_INNER_RULE :
					 XRX_STAT_VXLAN_INNER_RULE) &&
				   row->inner_rule);

			if (r.stat[k].packets != n || r.stat[k].bytes != n * len)
				fail_msg("%s: counter %s: %llu packets, want %llu",
					 side ? "trie only" : "xrx_ports",
					 stat_name(k),
					 (unsigned long long)r.stat[k].packets,
					 (unsigned long long)n);
		}
		assert_int_equal(r.out_len, len + r.meta_len);
		assert_memory_equal(r.out + r.meta_len, frame, len);
		/* The metadata describes the outer headers, whoever decided. */
		if (row->want == ACCEL) {
			struct xrx_meta m;

			assert_int_equal(r.meta_len, sizeof(m));
			xrx_parse(frame, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW,
				  len, &p, &rx_key);
			xrx_meta_fill(&m, &p);
			assert_memory_equal(r.out, &m, sizeof(m));
		} else {
			assert_int_equal(r.meta_len, 0);
		}
	}
	ports_sync();
}

/* ------------------------------------------------------------------ */
/* Multi-buffer                                                       */

/*
 * The same frame with all of it in the linear area and with as little as
 * ETH_HLEN there (the rest in page fragments): same verdict, same
 * counters, same metadata, same bytes back.
 */
static void multibuf(void (*make)(struct frame_spec *s), __u32 payload,
		     enum xrx_stat want)
{
	static const __u32 linears[] = { 14, 15, 34, 54, 60, 66, 100, 255, 256,
					 257, 1500 };
	static __u8 frame[FRAME_CAP];
	static struct run ref, r;
	struct xrx_parsed hdr;
	struct frame_spec s;
	unsigned int i;
	int len;

	need_env();
	rules_base();
	make(&s);
	s.payload_len = payload;
	len = frame_build(&s, frame, sizeof(frame));
	assert_true(len > 0);

	xrx_parse(frame, len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW, len,
		  &hdr, &rx_key);
	/* Linear as much as the test-run page holds (all of it if it fits). */
	run_prog(frame, len, len, &ref);
	check_verdict(&ref, frame, len, want);
	if (!env.rx.small_linear)
		return;
	for (i = 0; i < sizeof(linears) / sizeof(linears[0]); i++) {
		if (linears[i] >= (__u32)len)
			break;
		run_prog(frame, len, linears[i], &r);
		if (r.err)
			fail_msg("linear %u of %d: %s", linears[i], len,
				 strerror(-r.err));
		check_verdict(&r, frame, len, want);
		if (memcmp(r.out, ref.out, ref.meta_len))
			fail_msg("linear %u of %d: metadata differs", linears[i],
				 len);
		/*
		 * Accelerated frames: copied to be parsed exactly when the
		 * linear area ends inside the headers, in place otherwise.
		 */
		if (want == ACCEL &&
		    r.stat[XRX_STAT_PARSE_COPY].packets !=
			    (linears[i] < hdr.headlen ? 1u : 0u))
			fail_msg("linear %u of %d, headers %u: parse_copy %llu",
				 linears[i], len, hdr.headlen,
				 (unsigned long long)
				 r.stat[XRX_STAT_PARSE_COPY].packets);
	}
	/* All of the window linear: parsed in place. */
	assert_int_equal(ref.stat[XRX_STAT_PARSE_LINEAR].packets, 1);
}

static void test_mb_tcp4_small(void **state)
{
	multibuf(m_tcp4, 1448, ACCEL);
}

static void test_mb_tcp4_jumbo(void **state)
{
	multibuf(m_tcp4, 8948, ACCEL);
}

static void test_mb_tcp6_ext_jumbo(void **state)
{
	multibuf(m_tcp6_3ext, 6000, ACCEL);
}

static void test_mb_qinq_udp4_jumbo(void **state)
{
	multibuf(m_qinq_udp4, 5000, ACCEL);
}

static void test_mb_icmp4_jumbo(void **state)
{
	multibuf(m_icmp4, 5000, XRX_STAT_PASS_NOT_L4);
}

static void test_mb_small_linear_supported(void **state)
{
	need_env();
	if (!env.rx.small_linear) {
		print_message("# kernel refuses ctx_in.data_end < data_size_in "
			      "(needs Linux 6.18+); only page-overflow frags tested\n");
		skip();
	}
}

/* ------------------------------------------------------------------ */

static int setup(void **state)
{
	return xrx_rx_env_open(&env.rx);
}

static int teardown(void **state)
{
	xrx_rx_env_close(&env.rx);
	return 0;
}

#define T(f) { #f, f, NULL, NULL, NULL }

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		T(test_trunc_tcp4),
		T(test_trunc_tcp6),
		T(test_trunc_qinq),
		T(test_trunc_frag6),
		T(test_rule_port),
		T(test_rule_wildcard_port),
		T(test_rule_prefix4),
		T(test_rule_prefix6),
		T(test_rule_exclusion),
		T(test_default_accel),
		T(test_default_pass),
		T(test_ports_update),
		T(test_ports_mappable),
		T(test_ports_update_batch),
		T(test_ports_decide),
		T(test_hash),
		T(test_mb_small_linear_supported),
		T(test_mb_tcp4_small),
		T(test_mb_tcp4_jumbo),
		T(test_mb_tcp6_ext_jumbo),
		T(test_mb_qinq_udp4_jumbo),
		T(test_mb_icmp4_jumbo),
	};
	enum { NR_ROWS = sizeof(rows) / sizeof(rows[0]),
	       NR_VXLAN = sizeof(vxlan_rows) / sizeof(vxlan_rows[0]),
	       NR_SHAPES = sizeof(shapes) / sizeof(shapes[0]),
	       NR_FIXED = sizeof(fixed) / sizeof(fixed[0]) };
	struct CMUnitTest tests[NR_ROWS + NR_VXLAN + NR_SHAPES + NR_FIXED];
	int i;

	for (i = 0; i < NR_ROWS; i++)
		tests[i] = (struct CMUnitTest){ .name = rows[i].name,
						.test_func = test_row,
						.initial_state = (void *)&rows[i] };
	for (i = 0; i < NR_VXLAN; i++)
		tests[NR_ROWS + i] = (struct CMUnitTest){
			.name = vxlan_rows[i].name,
			.test_func = test_vxlan_row,
			.initial_state = (void *)&vxlan_rows[i] };
	for (i = 0; i < NR_SHAPES; i++)
		tests[NR_ROWS + NR_VXLAN + i] = (struct CMUnitTest){
			.name = shapes[i].name,
			.test_func = test_shape,
			.initial_state = (void *)&shapes[i] };
	memcpy(tests + NR_ROWS + NR_VXLAN + NR_SHAPES, fixed, sizeof(fixed));
	return _cmocka_run_group_tests(XRX_RX_ENV_OBJ, tests,
				       NR_ROWS + NR_VXLAN + NR_SHAPES + NR_FIXED,
				       setup, teardown);
}
