// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Differential test of the one parser's two builds: xrx_rx (BPF, run with
 * BPF_PROG_TEST_RUN) against userspace xrx_parse() on the same frames,
 * random ones and mutations of well-formed frames from the frame builder
 * (bit flips, byte changes, truncations, IP length fields, extension
 * header chains, VLAN tags inserted), with a fixed seed.
 *
 * Per frame the two must agree on the verdict class (the program's
 * counter: redirect or pass_*, mapped from enum xrx_parse_result), and for
 * every frame the program accelerates, byte for byte on the xrx_meta it
 * writes in front of the frame (header length, offsets, flags, hash). The
 * hash is keyed: xrx_cfg holds a key drawn from the seed, and userspace
 * hashes with the same one.
 * With xrx_cfg's default set to accelerate, that is every frame userspace
 * calls XRX_PARSE_L4. The frame must come back unchanged.
 *
 * VXLAN frames (user/util/vxlan_frames.h: random inner frames, inner
 * VLAN tags, IPv4/IPv6 inside and outside; most mutated inside, some
 * outside or cut short) go through xrx_rx as above and through
 * tests/bpf/tnl_parse.bpf.c, the BPF builds of xrx_parse_vxlan() on a
 * packet window (in place) and on a bpf_xdp_load_bytes() copy (as xrx_rx
 * reads the inner frame), all of the frame in the linear area and only
 * part of it. Every field of the outer and the tunnel result must equal
 * userspace's, and the packet build must ask for the copy exactly when
 * the headers run past the linear area. xrx_rx itself runs them with
 * VXLAN on port 4789 and inner rules that pass every inner TCP/UDP frame
 * (inner_rules()): its verdict and its vxlan and vxlan_inner_rule
 * counters must be what userspace's tunnel parse predicts.
 *
 * Counters are checked per batch of frames (one map read for BATCH runs,
 * the expected deltas summed), and a batch that does not add up is rerun
 * frame by frame to name the frame.
 *
 *   XRX_DIFF_FRAMES  frames in all (default below; make fuzz: 1000000)
 *   XRX_DIFF_SEED    PRNG seed (default fixed); a failure prints both
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <xrx/meta.h>
#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>
#include <xrx/prog.h>
#include <xrx/rules.h>
#include <xrx/stats.h>

#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "bpf/xrx_rx_env.h"
#include "bpf/tnl_parse.h"
#include "tnl_parse.skel.h"

#ifndef DEFAULT_FRAMES
#define DEFAULT_FRAMES 1000000
#endif
#define DEFAULT_SEED 0x58525844u	/* "XRXD" */
#define FRAME_MAX 4096
#define OUT_CAP (FRAME_MAX + 256)
#define BATCH 256
#define MAX_REPORTS 5

enum { SHARE_RANDOM, SHARE_MUTATED, SHARE_MULTIBUF, SHARE_VXLAN, NR_SHARES };
/* Per mille of the frames each test runs (VXLAN on top of the others). */
static const unsigned int shares[NR_SHARES] = { 100, 750, 150, 200 };

static struct env {
	struct xrx_rx_env rx;
	struct tnl_parse *tnl;	/* tests/bpf/tnl_parse.bpf.c */
	int tnl_pkt_fd, tnl_copy_fd, tnl_out_fd;
	int inner_rules;	/* inner_rules() on: VXLAN share */
	const char *tnl_broken;
	unsigned long frames;
	__u32 seed;
	__u64 rng;
	struct xrx_hash_key key;	/* xrx_cfg's and tnl_parse's */
	/* Cumulative expected and last read counters. */
	__u64 want_pkts[XRX_STAT_MAX], want_bytes[XRX_STAT_MAX];
} env = { .rx.xsk_fd = -1 };

struct frame {
	__u8 buf[FRAME_MAX];
	__u32 len;
	__u32 linear;
	unsigned long index;
};

/* ------------------------------------------------------------------ */
/* Deterministic randomness (xorshift64*)                             */

static __u64 rnd(void)
{
	env.rng ^= env.rng >> 12;
	env.rng ^= env.rng << 25;
	env.rng ^= env.rng >> 27;
	return env.rng * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n), n > 0. */
static __u32 below(__u32 n)
{
	return (__u32)(rnd() % n);
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

/* ------------------------------------------------------------------ */
/* Frames                                                             */

static void ext_add(struct frame_spec *s, __u8 type, __u16 len)
{
	if (s->nr_ext >= FRAME_MAX_EXT)
		return;
	s->ext[s->nr_ext].type = type;
	s->ext[s->nr_ext].len = len;
	s->nr_ext++;
}

/* A well-formed frame of a random kind, as the builder lays it out. */
static void gen_spec(struct frame_spec *s);

static int gen_template(struct frame *f, struct frame_info *fi)
{
	struct frame_spec s;
	int len;

	gen_spec(&s);
	len = frame_build_info(&s, f->buf, FRAME_MAX, fi);
	if (len < 0) {		/* too big or inexpressible: a plain one */
		frame_spec_tcp4(&s);
		len = frame_build_info(&s, f->buf, FRAME_MAX, fi);
	}
	return len;
}

static void gen_spec(struct frame_spec *out)
{
	static const __u8 l4s[] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_TCP,
				    IPPROTO_UDP, IPPROTO_UDP, IPPROTO_ICMP,
				    IPPROTO_SCTP, 136 /* UDP-Lite */, 33, 2, 47,
				    IPPROTO_ICMPV6 };
	static const __u8 exts[] = { 0, 43, 60, 44 };
	static __u8 opts[40];
	struct frame_spec s;
	__u32 r = below(100), i, n;

	if (r < 40)
		frame_spec_tcp4(&s);
	else if (r < 70)
		frame_spec_tcp6(&s);
	else if (r < 80)
		frame_spec_udp4(&s);
	else if (r < 90)
		frame_spec_udp6(&s);
	else if (r < 95)
		frame_spec_icmp4(&s);
	else if (r < 98)
		frame_spec_icmp6(&s);
	else
		frame_spec_arp(&s);
	if (s.family && chance(15))
		s.l4 = l4s[below(sizeof(l4s))];

	if (chance(25)) {
		s.nr_vlans = 1 + (chance(40) ? 1 : 0) + (chance(10) ? 1 : 0);
		for (i = 0; i < (__u32)s.nr_vlans; i++) {
			s.vlan_tpid[i] = chance(50) ? 0x8100 : 0x88a8;
			s.vlan_tci[i] = below(4096);
		}
	}
	if (s.family == 4 && chance(15)) {
		for (i = 0; i < sizeof(opts); i++)
			opts[i] = 1;		/* NOP */
		s.ip_opts = opts;
		s.ip_opts_len = 1 + below(40);
	}
	if (s.l4 == IPPROTO_TCP && chance(30)) {
		s.tcp_opts = opts;
		s.tcp_opts_len = below(41);
		memset(opts, 1, sizeof(opts));
	}
	if (s.family == 6 && chance(35)) {
		n = 1 + below(chance(10) ? 12 : 4);
		for (i = 0; i < n; i++) {
			__u8 t = exts[below(chance(20) ? 4 : 3)];

			ext_add(&s, t, t == 44 ? 8 : 8 * (1 + below(chance(10) ? 20 : 4)));
		}
	}
	if (chance(10))
		s.frag_off = (chance(50) ? 0x2000 : 0) |
			     (chance(50) ? below(0x2000) : 0);
	s.payload_len = chance(70) ? below(200) : below(1500);
	if (chance(10))
		s.pad = below(40);
	if (chance(5))
		s.tot_len_delta = (int)below(41) - 20;
	if (chance(2))
		s.ihl_override = below(16);
	if (chance(2))
		s.doff_override = below(16);
	if (chance(2))
		s.version_override = below(16);
	s.seq = (__u32)rnd();
	s.sport = (__u16)rnd();
	s.dport = chance(50) ? 5001 : (__u16)rnd();
	*out = s;
}

/* Values parsers trip over: next-header and protocol numbers, extremes. */
static __u8 interesting(void)
{
	static const __u8 v[] = { 0, 1, 2, 4, 5, 6, 0x0f, 0x11, 0x2b, 0x2c,
				  0x3a, 0x3c, 0x40, 0x45, 0x46, 0x4f, 0x60,
				  0x7f, 0x80, 0x81, 0x86, 0x88, 0xa8, 0xdd,
				  0xf0, 0xff };

	return v[below(sizeof(v))];
}

/* A byte offset biased into the headers that start at @base. */
static __u32 header_pos(__u32 len, __u32 base)
{
	__u32 span;

	if (base >= len)
		base = 0;
	span = len - base < 128 ? len - base : 128;
	if (!len)
		return 0;
	return chance(85) ? base + below(span) : below(len);
}

/*
 * Mutate the frame whose Ethernet header starts at @base (0, or the
 * inner frame of a VXLAN frame); @fi's offsets count from the frame's
 * start, as vxlan_frame_build() reports them.
 */
static void mutate_at(struct frame *f, const struct frame_info *fi,
		      __u32 base)
{
	__u32 n = 1 + below(3), i, at, rest;

	for (i = 0; i < n && f->len; i++) {
		rest = f->len > base ? f->len - base : 0;
		switch (below(8)) {
		case 0:		/* bit flips */
		case 1:
			at = header_pos(f->len, base);
			f->buf[at] ^= 1u << below(8);
			break;
		case 2:		/* a byte set */
			f->buf[header_pos(f->len, base)] = interesting();
			break;
		case 3:		/* truncation, mostly inside the headers */
			f->len = chance(70) && rest ?
					 base + below(rest < 140 ? rest + 1 : 140) :
					 below(f->len + 1);
			break;
		case 4:		/* IP length field */
			if (fi->l3_off && fi->l3_off + 6 <= f->len) {
				__u8 *p = f->buf + fi->l3_off +
					  ((f->buf[fi->l3_off] >> 4) == 6 ? 4 : 2);
				__u32 v = (__u32)p[0] << 8 | p[1];

				v = chance(50) ? v + below(41) - 20 : (__u32)rnd();
				p[0] = v >> 8;
				p[1] = v;
			}
			break;
		case 5:		/* IPv6 next header / extension length */
			if (fi->l3_off && fi->l3_off + 48 <= f->len) {
				at = fi->l3_off + 40 + 8 * below(4);
				if (at + 2 <= f->len)
					f->buf[at + below(2)] = chance(50) ?
						interesting() : (__u8)rnd();
				else
					f->buf[fi->l3_off + 6] = interesting();
			}
			break;
		case 6:		/* a VLAN tag inserted after the MACs */
			if (rest >= 12 && f->len + 4 <= FRAME_MAX) {
				__u8 *e = f->buf + base;

				memmove(e + 16, e + 12, rest - 12);
				e[12] = chance(50) ? 0x81 : 0x88;
				e[13] = e[12] == 0x81 ? 0x00 : 0xa8;
				e[14] = (__u8)rnd();
				e[15] = (__u8)rnd();
				f->len += 4;
			}
			break;
		default:	/* EtherType */
			if (rest >= 14) {
				static const __u16 et[] = { 0x0800, 0x86dd, 0x8100,
							    0x88a8, 0x0806, 0x9100 };
				__u16 v = et[below(sizeof(et) / sizeof(et[0]))];

				f->buf[base + 12] = v >> 8;
				f->buf[base + 13] = v;
			}
			break;
		}
	}
}

static void mutate(struct frame *f, const struct frame_info *fi)
{
	mutate_at(f, fi, 0);
}

/*
 * Make the random bytes at @l3 look like an IP header often enough to get
 * past it: version, IHL, a length that fits, TCP/UDP or an extension.
 */
static void shape_ip(struct frame *f, __u32 l3, int v6)
{
	static const __u8 nh[] = { 6, 17, 0, 43, 60, 44, 1, 58 };
	__u32 hl = v6 ? 40 : 20, ip_len;
	__u8 *ip = f->buf + l3;

	if (l3 + hl > f->len) {
		if (l3 < f->len)
			ip[0] = (ip[0] & 0x0f) | (v6 ? 0x60 : 0x40);
		return;
	}
	ip[0] = v6 ? 0x60 | (ip[0] & 0x0f) :
		     0x40 | (chance(70) ? 5 : below(16));
	ip_len = f->len - l3 - (chance(20) ? below(f->len - l3 + 1) : 0);
	if (v6) {
		ip_len = ip_len >= 40 ? ip_len - 40 : 0;
		ip[4] = ip_len >> 8;
		ip[5] = ip_len;
		if (chance(80))
			ip[6] = nh[below(sizeof(nh))];
	} else {
		ip[2] = ip_len >> 8;
		ip[3] = ip_len;
		if (chance(80))
			ip[6] = ip[7] = 0;	/* not a fragment */
		if (chance(80))
			ip[9] = nh[below(2)];
	}
}

/* Random bytes, mostly shaped enough (EtherType, IP header) to get in. */
static void gen_random(struct frame *f)
{
	static const __u16 et[] = { 0x0800, 0x86dd, 0x8100, 0x88a8 };
	__u32 i, l3;

	f->len = chance(90) ? below(321) : below(FRAME_MAX + 1);
	for (i = 0; i < f->len; i++)
		f->buf[i] = (__u8)rnd();
	if (f->len < 14 || chance(20))
		return;
	l3 = 14;
	do {
		__u16 v = et[below(4)];

		f->buf[l3 - 2] = v >> 8;
		f->buf[l3 - 1] = v;
		if (v == 0x0800 || v == 0x86dd) {
			shape_ip(f, l3, v == 0x86dd);
			break;
		}
		l3 += 4;
	} while (l3 + 2 <= f->len && chance(80));
}

/*
 * A VXLAN frame: a random inner frame (gen_spec()) in random outer
 * headers (IPv4 or IPv6, any VNI and ports, UDP checksum or none), most
 * of them mutated: the inner frame mostly, the outer headers and the
 * VXLAN header at times.
 */
static void gen_vxlan(struct frame *f)
{
	struct frame_info fi, ofi = { .l3_off = FRAME_ETH_HLEN };
	struct frame_spec s;
	struct vxlan_outer o;
	int len;

	gen_spec(&s);
	vxlan_outer_default(&o, (__u16)rnd());
	o.v6 = chance(35);
	o.vni = below(1u << 24);
	o.sport = (__u16)rnd();
	o.ttl = (__u8)rnd();
	o.tos = (__u8)rnd();
	o.no_df = chance(20);
	o.csum_zero = chance(30);
	o.flowlabel = below(1u << 20);
	len = vxlan_frame_build(&s, &o, f->buf, FRAME_MAX, &fi);
	if (len < 0) {
		frame_spec_tcp4(&s);
		len = vxlan_frame_build(&s, &o, f->buf, FRAME_MAX, &fi);
	}
	f->len = len > 0 ? (__u32)len : 0;
	if (chance(4) && f->len >= vxlan_frame_hdrs(&o)) {
		/* A datagram that ends inside the VXLAN header or the inner
		 * Ethernet header, its outer IP length cut to match. */
		__u32 ip_len;

		f->len = vxlan_frame_hdrs(&o) - XRX_VXLAN_HLEN +
			 below(XRX_VXLAN_HLEN + FRAME_ETH_HLEN);
		ip_len = f->len - FRAME_ETH_HLEN - (o.v6 ? 40 : 0);
		f->buf[FRAME_ETH_HLEN + (o.v6 ? 4 : 2)] = ip_len >> 8;
		f->buf[FRAME_ETH_HLEN + (o.v6 ? 5 : 3)] = ip_len;
		return;
	}
	if (chance(85)) {
		if (chance(80))
			mutate_at(f, &fi, vxlan_frame_hdrs(&o));
		else
			mutate_at(f, &ofi, 0);
	}
}

static void gen(struct frame *f, int kind)
{
	struct frame_info fi;
	int len;

	if (kind == SHARE_RANDOM) {
		gen_random(f);
	} else if (kind == SHARE_VXLAN) {
		gen_vxlan(f);
	} else {
		len = gen_template(f, &fi);
		f->len = len > 0 ? (__u32)len : 0;
		if (chance(90))
			mutate(f, &fi);
	}
	f->linear = f->len;
	if ((kind == SHARE_MULTIBUF || (kind == SHARE_VXLAN && chance(50) &&
					env.rx.small_linear)) &&
	    f->len > FRAME_ETH_HLEN)
		f->linear = FRAME_ETH_HLEN + below(f->len - FRAME_ETH_HLEN);
}

/* ------------------------------------------------------------------ */
/* Both sides                                                         */

struct bpf_run {
	int err;
	__u32 retval;
	__u32 meta_len;
	__u32 out_len;
	__u8 out[OUT_CAP];
};

static void run_prog(const struct frame *f, struct bpf_run *r)
{
	struct xrx_rx_out o = { .out = r->out, .out_len = sizeof(r->out) };

	r->err = xrx_rx_env_run(&env.rx, f->buf, f->len, f->linear, &o);
	r->retval = o.retval;
	r->out_len = o.out_len;
	r->meta_len = o.meta_len;
}

/* The counter xrx_rx bumps for a frame userspace parses as @result. */
static enum xrx_stat stat_of(__u8 result)
{
	switch (result) {
	case XRX_PARSE_L4:
		return env.rx.xsk_fd >= 0 ? XRX_STAT_REDIRECT :
					 XRX_STAT_PASS_NO_SOCKET;
	case XRX_PARSE_NOT_IP:
		return XRX_STAT_PASS_NOT_IP;
	case XRX_PARSE_NOT_L4:
		return XRX_STAT_PASS_NOT_L4;
	case XRX_PARSE_FRAG:
		return XRX_STAT_PASS_FRAG;
	case XRX_PARSE_TOO_LONG:
		return XRX_STAT_PASS_TOO_LONG;
	default:
		return XRX_STAT_PASS_MALFORMED;
	}
}

static void hexdump(const __u8 *p, __u32 len)
{
	__u32 i, n = len < 160 ? len : 160;

	for (i = 0; i < n; i += 16) {
		__u32 j;

		print_message("#   %04x:", i);
		for (j = i; j < i + 16 && j < n; j++)
			print_message(" %02x", p[j]);
		print_message("\n");
	}
	if (n < len)
		print_message("#   ... %u bytes in all\n", len);
}

static void report(const struct frame *f, const struct xrx_parsed *p,
		   const char *what)
{
	print_message("# frame %lu (seed %#x, %u bytes, %u linear): %s; "
		      "userspace: result %u headlen %u l3 %u l4 %u flags %#x\n",
		      f->index, env.seed, f->len, f->linear, what, p->result,
		      p->headlen, p->l3_off, p->l4_off, p->flags);
	hexdump(f->buf, f->len);
}

/*
 * One frame through both. Return: 0 when they agree (counters are
 * checked per batch), 1 with the difference reported.
 */
/*
 * The VXLAN share runs xrx_rx with VXLAN on port 4789 and inner rules
 * vxlan:tcp/any and vxlan:udp/any that say pass, over the default
 * accelerate: a frame xrx_rx finds TCP/UDP inside VXLAN is passed, any
 * other is decided as without them.
 */
static void inner_rules(int on)
{
	struct xrx_cfg cfg = { .default_action = XRX_ACT_ACCEL,
			       .hash_key = env.key };
	struct xrx_rule_val val = { .action = XRX_ACT_PASS, .id = 1 };
	struct xrx_rule_key key = { .prefixlen = XRX_RULE_PREFIX_BASE,
				    .scope = XRX_RULE_SCOPE_INNER };
	static const __u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	struct xrx_rule_key keys[2];
	struct xrx_rule_val vals[2];
	__u32 zero = 0, i;

	if (on) {
		cfg.flags = XRX_CFG_F_INNER_RULES;
		cfg.vxlan_ports[0] = VXLAN_FRAME_PORT;
	}
	for (i = 0; i < sizeof(protos); i++) {
		keys[i] = key;
		keys[i].proto = protos[i];
		vals[i] = val;
	}
	/* Through the one writer of xrx_rules and xrx_ports, as xrxd. */
	assert_int_equal(xrx_rules__update(env.rx.rules_fd, env.rx.ports_fd,
					   on ? NULL : keys, on ? 0 : 2,
					   on ? keys : NULL, vals, on ? 2 : 0),
			 0);
	assert_int_equal(bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0), 0);
	env.inner_rules = on;
}

/*
 * With inner_rules() on: is @f a frame xrx_rx counts as VXLAN (the
 * return), and does an inner rule decide it (*@inner)?
 */
static int vxlan_note(const struct frame *f, const struct xrx_parsed *p,
		      int *inner)
{
	__u32 win = f->len < XRX_PARSE_WINDOW ? f->len : XRX_PARSE_WINDOW;
	struct xrx_tnl_parsed t;

	*inner = 0;
	if (!env.inner_rules || f->len < FRAME_ETH_HLEN ||
	    p->result != XRX_PARSE_L4 || p->l4_proto != IPPROTO_UDP ||
	    (p->flags & XRX_META_F_IPV6_EXT) || p->dport != VXLAN_FRAME_PORT)
		return 0;
	*inner = xrx_parse_vxlan(f->buf, win, f->len, p, &t, NULL) ==
			 XRX_TNL_VXLAN &&
		 t.inner.result == XRX_PARSE_L4;
	return 1;
}

static int diff_one(const struct frame *f, struct xrx_parsed *p,
		    enum xrx_stat *stat)
{
	static struct bpf_run r;
	struct xrx_meta want;
	__u32 win = f->len < XRX_PARSE_WINDOW ? f->len : XRX_PARSE_WINDOW;
	char why[160];

	int inner;

	xrx_parse(f->buf, win, f->len, p, &env.key);
	*stat = stat_of(p->result);
	vxlan_note(f, p, &inner);
	if (inner)
		*stat = XRX_STAT_PASS_EXCLUDED;
	if (f->len < FRAME_ETH_HLEN) {
		/* BPF_PROG_TEST_RUN takes no frame shorter than ETH_HLEN. */
		if (p->result != XRX_PARSE_MALFORMED) {
			report(f, p, "a runt frame is not malformed");
			return 1;
		}
		*stat = XRX_STAT_MAX;	/* nothing counted */
		return 0;
	}
	run_prog(f, &r);
	if (r.err) {
		snprintf(why, sizeof(why), "BPF_PROG_TEST_RUN: %s",
			 strerror(-r.err));
		report(f, p, why);
		return 1;
	}
	if (r.retval != (*stat == XRX_STAT_REDIRECT ? XDP_REDIRECT : XDP_PASS) ||
	    r.meta_len != (p->result == XRX_PARSE_L4 && !inner ? sizeof(want) : 0)) {
		snprintf(why, sizeof(why),
			 "xrx_rx verdict %u with %u bytes of metadata; userspace "
			 "class %s", r.retval, r.meta_len, xrx_stat_names[*stat]);
		report(f, p, why);
		return 1;
	}
	if (r.out_len != f->len + r.meta_len ||
	    memcmp(r.out + r.meta_len, f->buf, f->len)) {
		report(f, p, "the frame came back changed");
		return 1;
	}
	if (r.meta_len) {
		xrx_meta_fill(&want, p);
		if (memcmp(r.out, &want, sizeof(want))) {
			const struct xrx_meta *m = (const void *)r.out;

			snprintf(why, sizeof(why),
				 "xrx_meta differs: BPF headlen %u l3 %u l4 %u "
				 "flags %#x proto %u vlans %u hash %#x (user hash %#x)",
				 m->headlen, m->l3_off, m->l4_off, m->flags,
				 m->l4_proto, m->nr_vlans, m->hash, want.hash);
			report(f, p, why);
			return 1;
		}
	}
	return 0;
}

static void stats_reset(void)
{
	assert_int_equal(xrx_rx_env_stats_reset(&env.rx), 0);
	memset(env.want_pkts, 0, sizeof(env.want_pkts));
	memset(env.want_bytes, 0, sizeof(env.want_bytes));
}

/* A frame counts in RX, its verdict, and how its headers were read. */
static void count_want(enum xrx_stat stat, const struct frame *f,
		       const struct xrx_parsed *p)
{
	enum xrx_stat path;
	int inner;

	if (stat >= XRX_STAT_MAX)
		return;
	if (vxlan_note(f, p, &inner)) {
		env.want_pkts[XRX_STAT_VXLAN]++;
		env.want_bytes[XRX_STAT_VXLAN] += f->len;
		env.want_pkts[XRX_STAT_VXLAN_INNER_RULE] += inner;
		env.want_bytes[XRX_STAT_VXLAN_INNER_RULE] += inner ? f->len : 0;
	}
	path = xrx_rx_env_path(f->buf, f->len, f->linear);
	env.want_pkts[XRX_STAT_RX]++;
	env.want_bytes[XRX_STAT_RX] += f->len;
	env.want_pkts[stat]++;
	env.want_bytes[stat] += f->len;
	env.want_pkts[path]++;
	env.want_bytes[path] += f->len;
}

/* Return: the first counter that is not what the frames so far make it. */
static int stats_differ(void)
{
	struct xrx_counter got[XRX_STAT_MAX];
	int k;

	assert_int_equal(xrx_rx_env_stats_read(&env.rx, got), 0);
	for (k = 0; k < XRX_STAT_MAX; k++)
		if (got[k].packets != env.want_pkts[k] ||
		    got[k].bytes != env.want_bytes[k])
			return k;
	return -1;
}

/*
 * A batch whose counters did not add up: run its frames again one at a
 * time, the counters reset before each, and report the first frame
 * whose counters are wrong.
 */
static void pinpoint(const struct frame *batch, __u32 n)
{
	struct xrx_parsed p;
	enum xrx_stat stat;
	__u32 i;
	int k;

	for (i = 0; i < n; i++) {
		stats_reset();
		if (diff_one(&batch[i], &p, &stat))
			return;
		count_want(stat, &batch[i], &p);
		k = stats_differ();
		if (k >= 0) {
			char why[96];

			snprintf(why, sizeof(why),
				 "counter %s moved otherwise than one %s frame",
				 xrx_stat_names[k],
				 stat < XRX_STAT_MAX ? xrx_stat_names[stat] : "uncounted");
			report(&batch[i], &p, why);
			return;
		}
	}
	print_message("# the batch's counters agree when its frames run one by one\n");
}

/* ------------------------------------------------------------------ */
/* VXLAN: the tunnel parser's BPF build (tnl_parse.bpf.c)             */

/* Tallies of the VXLAN share, so that a generator that stopped reaching
 * a case shows. */
static struct tnl_tally {
	unsigned long tnl[XRX_TNL_SHORT + 1];
	unsigned long inner[XRX_PARSE_TOO_LONG + 1];
	unsigned long path[TNL_PATH_COPY + 1];
	unsigned long vlan, v6_outer, v6_inner;
} tally;

/* What userspace computes for a frame, and the path the program takes. */
static void tnl_want(const __u8 *buf, __u32 len, __u32 linear,
		     struct tnl_out *w)
{
	__u32 win = len < XRX_PARSE_WINDOW ? len : XRX_PARSE_WINDOW;
	struct xrx_parsed o;
	struct xrx_tnl_parsed t;
	int tnl;

	memset(w, 0, sizeof(*w));
	/* tnl_parse.bpf.c hashes nothing (it says why) */
	xrx_parse(buf, win, len, &w->outer, NULL);
	w->tnl = xrx_parse_vxlan(buf, win, len, &w->outer, &w->t, NULL);
	/* In place, unless the linear area is shorter than the window and
	 * the outer headers, the VXLAN header or the inner headers run
	 * past it (as tnl_parse.bpf.c and xrx_rx decide). */
	w->path = TNL_PATH_LINEAR;
	if (linear >= win)
		return;
	if (xrx_parse(buf, linear, len, &o, NULL) == XRX_PARSE_TOO_LONG) {
		w->path = TNL_PATH_COPY;
		return;
	}
	tnl = xrx_parse_vxlan(buf, linear, len, &o, &t, NULL);
	if (tnl == XRX_TNL_SHORT ||
	    (tnl == XRX_TNL_VXLAN && t.inner.result == XRX_PARSE_TOO_LONG))
		w->path = TNL_PATH_COPY;
}

static void parsed_print(const char *who, const struct xrx_parsed *p)
{
	print_message("#   %s: result %u headlen %u l3 %u l4 %u flags %#x "
		      "proto %u vlans %u ports %u>%u hash %#x\n", who,
		      p->result, p->headlen, p->l3_off, p->l4_off, p->flags,
		      p->l4_proto, p->nr_vlans, p->sport, p->dport, p->hash);
}

static void tnl_print(const char *who, const struct tnl_out *o)
{
	char name[48];

	print_message("# %s: tnl %d path %u vni %#x outer l3 %u l4 %u vxlan %u "
		      "inner mac %u\n", who, o->tnl, o->path, o->t.vni,
		      o->t.outer_l3_off, o->t.outer_l4_off, o->t.vxlan_off,
		      o->t.inner_mac_off);
	snprintf(name, sizeof(name), "%s outer", who);
	parsed_print(name, &o->outer);
	snprintf(name, sizeof(name), "%s inner", who);
	parsed_print(name, &o->t.inner);
}

/* One run of @prog_fd on @f with @linear bytes linear; its tnl_out. */
static int tnl_run(int prog_fd, const struct frame *f, __u32 linear,
		   struct tnl_out *got)
{
	static __u8 out[OUT_CAP];
	struct xdp_md ctx_in = { .data_end = linear };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = f->buf,
		    .data_size_in = f->len,
		    .data_out = out,
		    .data_size_out = sizeof(out),
		    .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in),
		    .repeat = 1);
	__u32 zero = 0;

	memset(got, 0xa5, sizeof(*got));
	if (bpf_map_update_elem(env.tnl_out_fd, &zero, got, 0) ||
	    bpf_prog_test_run_opts(prog_fd, &opts) ||
	    bpf_map_lookup_elem(env.tnl_out_fd, &zero, got)) {
		print_message("# frame %lu (%u linear): tnl_parse: %s\n",
			      f->index, linear, strerror(errno));
		return 1;
	}
	if (opts.retval != XDP_PASS) {
		print_message("# frame %lu (%u linear): tnl_parse returned %u\n",
			      f->index, linear, opts.retval);
		return 1;
	}
	return 0;
}

static int tnl_report(const struct frame *f, __u32 linear, const char *what,
		      const struct tnl_out *got, const struct tnl_out *want)
{
	print_message("# frame %lu (seed %#x, %u bytes, %u linear): %s\n",
		      f->index, env.seed, f->len, linear, what);
	tnl_print("BPF ", got);
	tnl_print("user", want);
	hexdump(f->buf, f->len);
	return 1;
}

/*
 * One VXLAN frame with @linear bytes in the linear area through the
 * packet-window build (tnl_parse_pkt) and, when @copy, the copy build
 * (tnl_parse_copy). Return: 0 when every field agrees with userspace and
 * the packet build fell back exactly when predicted, 1 reported.
 */
static int tnl_diff_one(const struct frame *f, __u32 linear, int copy)
{
	struct tnl_out want, got;
	__u32 path;

	tnl_want(f->buf, f->len, linear, &want);
	path = want.path;
	if (tnl_run(env.tnl_pkt_fd, f, linear, &got))
		return 1;
	if (path == TNL_PATH_COPY) {
		if (got.path != TNL_PATH_NONE)
			return tnl_report(f, linear, "the packet-window build did "
					  "not ask for the copy", &got, &want);
	} else if (memcmp(&got, &want, sizeof(got))) {
		return tnl_report(f, linear, "the packet-window build differs",
				  &got, &want);
	}
	tally.path[path]++;
	if (copy) {
		want.path = TNL_PATH_COPY;
		if (tnl_run(env.tnl_copy_fd, f, linear, &got))
			return 1;
		if (memcmp(&got, &want, sizeof(got)))
			return tnl_report(f, linear, "the copy build differs",
					  &got, &want);
	}
	tally.tnl[want.tnl]++;
	if (want.tnl == XRX_TNL_VXLAN) {
		tally.inner[want.t.inner.result <= XRX_PARSE_TOO_LONG ?
				    want.t.inner.result : XRX_PARSE_MALFORMED]++;
		tally.vlan += want.t.inner.nr_vlans > 0;
		tally.v6_outer += !!(want.outer.flags & XRX_META_F_IPV6);
		tally.v6_inner += !!(want.t.inner.flags & XRX_META_F_IPV6);
	}
	return 0;
}

/* Both ways the programs can get the frame: all of it in the linear
 * area, and (multi-buffer) only part of it. */
static int tnl_diff(const struct frame *f)
{
	if (f->len < FRAME_ETH_HLEN)
		return 0;
	if (tnl_diff_one(f, f->len, 1))
		return 1;
	if (f->linear != f->len)
		return tnl_diff_one(f, f->linear, 1);
	if (env.rx.small_linear && f->len > FRAME_ETH_HLEN)
		return tnl_diff_one(f, FRAME_ETH_HLEN +
				    below(f->len - FRAME_ETH_HLEN), 0);
	return 0;
}

static void tnl_check_tally(unsigned long n)
{
	static const char *const tnl_names[] = { "not VXLAN", "VXLAN", "short" };
	unsigned int c;

	print_message("# VXLAN parser: %lu VXLAN, %lu short, %lu not; inner:",
		      tally.tnl[XRX_TNL_VXLAN], tally.tnl[XRX_TNL_SHORT],
		      tally.tnl[XRX_TNL_NONE]);
	for (c = 0; c <= XRX_PARSE_TOO_LONG; c++)
		print_message(" %s %lu", xrx_stat_names[stat_of(c)], tally.inner[c]);
	print_message("; VLAN-tagged %lu, outer IPv6 %lu, inner IPv6 %lu; "
		      "in place %lu, copied %lu\n", tally.vlan, tally.v6_outer,
		      tally.v6_inner, tally.path[TNL_PATH_LINEAR],
		      tally.path[TNL_PATH_COPY]);
	if (n < 10000)
		return;
	for (c = 0; c <= XRX_TNL_SHORT; c++)
		if (!tally.tnl[c])
			fail_msg("no %s frame among %lu", tnl_names[c], n);
	for (c = 0; c <= XRX_PARSE_TOO_LONG; c++)
		if (!tally.inner[c])
			fail_msg("no inner frame of class %s among %lu",
				 xrx_stat_names[stat_of(c)], n);
	if (!tally.vlan || !tally.v6_outer || !tally.v6_inner)
		fail_msg("no inner VLAN tag, outer IPv6 or inner IPv6 among %lu", n);
	if (!tally.path[TNL_PATH_LINEAR] ||
	    (env.rx.small_linear && !tally.path[TNL_PATH_COPY]))
		fail_msg("the packet-window build never parsed a frame whole, or never fell back to the copy");
}

static void run_share(int kind)
{
	static struct frame batch[BATCH];
	unsigned long n, i, classes[XRX_PARSE_TOO_LONG + 1] = { 0 };
	unsigned long bad = 0, inner_seen[2] = { 0 };
	struct xrx_parsed p;
	enum xrx_stat stat;
	__u32 nb = 0, c;
	int in;
	struct timespec t0, t1;

	if (env.rx.broken)
		fail_msg("%s", env.rx.broken);
	if (env.rx.skip)
		skip();
	if (kind == SHARE_MULTIBUF && !env.rx.small_linear) {
		print_message("# kernel refuses ctx_in.data_end < data_size_in: no multi-buffer frames\n");
		skip();
	}
	inner_rules(kind == SHARE_VXLAN);
	if (kind == SHARE_VXLAN) {
		if (env.tnl_broken)
			fail_msg("%s", env.tnl_broken);
		if (!env.rx.small_linear)
			print_message("# kernel refuses ctx_in.data_end < data_size_in: VXLAN frames parsed in place only\n");
		memset(&tally, 0, sizeof(tally));
	}
	n = env.frames / 1000 * shares[kind] +
	    (kind == SHARE_MUTATED ? env.frames % 1000 : 0);
	env.rng = ((__u64)env.seed << 32 | (__u32)kind) * 0x9e3779b97f4a7c15ull | 1;
	stats_reset();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		struct frame *f = &batch[nb];

		gen(f, kind);
		f->index = i;
		if (diff_one(f, &p, &stat) ||
		    (kind == SHARE_VXLAN && tnl_diff(f))) {
			if (++bad >= MAX_REPORTS)
				break;
			/* Counters of a frame already reported: start over. */
			stats_reset();
			nb = 0;
			continue;
		}
		nb++;
		classes[p.result <= XRX_PARSE_TOO_LONG ? p.result : XRX_PARSE_MALFORMED]++;
		if (vxlan_note(f, &p, &in))
			inner_seen[in]++;
		count_want(stat, f, &p);
		if (nb == BATCH || i + 1 == n) {
			if (stats_differ() >= 0) {
				pinpoint(batch, nb);
				bad++;
				break;
			}
			nb = 0;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# %lu frames in %.1f s:", i,
		      (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (c = 0; c <= XRX_PARSE_TOO_LONG; c++)
		print_message(" %s %lu", xrx_stat_names[stat_of(c)], classes[c]);
	print_message("\n");
	if (kind == SHARE_VXLAN) {
		print_message("# xrx_rx with inner rules: %lu VXLAN frames, %lu "
			      "decided by an inner rule\n",
			      inner_seen[0] + inner_seen[1], inner_seen[1]);
		if (n >= 10000 && (!inner_seen[0] || !inner_seen[1]))
			fail_msg("no VXLAN frame with, or none without, an inner "
				 "rule's verdict among %lu", n);
		tnl_check_tally(n);
	}
	if (bad)
		fail_msg("xrx_rx and xrx_parse() disagree (seed %#x; XRX_DIFF_SEED "
			 "and XRX_DIFF_FRAMES reproduce the run)", env.seed);
	/* A generator that stopped reaching a class would make this pass
	 * for nothing. */
	if (n >= 10000)
		for (c = 0; c <= XRX_PARSE_TOO_LONG; c++)
			if (!classes[c] && !(c == XRX_PARSE_TOO_LONG &&
					     (kind == SHARE_RANDOM ||
					      kind == SHARE_VXLAN)))
				fail_msg("no frame of class %s among %lu",
					 xrx_stat_names[stat_of(c)], n);
}

static void test_random(void **state)
{
	run_share(SHARE_RANDOM);
}

static void test_mutated(void **state)
{
	run_share(SHARE_MUTATED);
}

static void test_multibuf(void **state)
{
	run_share(SHARE_MULTIBUF);
}

static void test_vxlan(void **state)
{
	run_share(SHARE_VXLAN);
}

/* ------------------------------------------------------------------ */

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return def;
	n = strtoul(v, &end, 0);
	if (*end) {
		fprintf(stderr, "%s=%s is not a number; using %lu\n", name, v, def);
		return def;
	}
	return n;
}

static int setup(void **state)
{
	struct xrx_cfg cfg = { .default_action = XRX_ACT_ACCEL };
	__u32 zero = 0;

	env.frames = env_ulong("XRX_DIFF_FRAMES", DEFAULT_FRAMES);
	env.seed = (__u32)env_ulong("XRX_DIFF_SEED", DEFAULT_SEED);
	/* A key of its own per seed, as random as the frames. */
	env.rng = (__u64)env.seed * 0x9e3779b97f4a7c15ull | 1;
	env.key.k[0] = rnd();
	env.key.k[1] = rnd();
	cfg.hash_key = env.key;
	xrx_rx_env_open(&env.rx);
	if (env.rx.skip || env.rx.broken)
		return 0;
	/* Accelerate every TCP/UDP frame, so each L4 frame gets xrx_meta. */
	if (bpf_map_update_elem(env.rx.cfg_fd, &zero, &cfg, 0))
		env.rx.broken = "cannot set xrx_cfg";
	env.tnl = tnl_parse__open_and_load();
	if (!env.tnl) {
		fprintf(stderr, "loading tnl_parse: %s\n", strerror(errno));
		env.tnl_broken = "tnl_parse (the VXLAN parser's BPF build) does not load: the verifier refused it (see the log above)";
		return 0;
	}
	env.tnl_pkt_fd = bpf_program__fd(env.tnl->progs.tnl_parse_pkt);
	env.tnl_copy_fd = bpf_program__fd(env.tnl->progs.tnl_parse_copy);
	env.tnl_out_fd = bpf_map__fd(env.tnl->maps.tnl_out);
	return 0;
}

static int teardown(void **state)
{
	tnl_parse__destroy(env.tnl);
	env.tnl = NULL;
	xrx_rx_env_close(&env.rx);
	return 0;
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_mutated),
		cmocka_unit_test(test_multibuf),
		cmocka_unit_test(test_vxlan),
	};

	return cmocka_run_group_tests_name("parse_diff " XRX_RX_ENV_OBJ, tests,
					   setup, teardown);
}
