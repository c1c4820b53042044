// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * GENEVE: the tunnel parser's GENEVE row (include/xrx/parse_tunnel.h) and
 * the engine's (user/lib/gro/tunnel.c) against the kernel's
 * geneve_gro_receive() (drivers/net/geneve.c): version 0 and no OAM bit,
 * or the frame goes alone; the header with its options compared byte for
 * byte (option length, option bytes, critical bit, VNI, protocol type),
 * a difference making another flow; protocol type 0x6558 (Ethernet)
 * leading into the inner frame. The rest (outer rules, inner rules,
 * completion) is common with VXLAN and test_gro_vxlan.c covers it; the
 * rows here check that GENEVE takes that path, with its own header
 * length, and the bytes and offsets it delivers. The kernel oracle
 * (tests/integration/test_geneve_oracle.sh) checks the same rules
 * against Linux itself.
 */
#include "gro_harness.h"

#include <xrx/parse_tunnel.h>
#include "util/vxlan_frames.h"

/* Rows name only the fields they need; the rest are zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define S(x) XRX_ENGINE_STAT_##x

enum gn_field {
	GN_VNI = 1,
	GN_OPT,			/* option words' value */
	GN_OPT_WORDS,		/* option length in words */
	GN_FLAGS,		/* second byte: 0x80 OAM, 0x40 critical */
	GN_VER,
	GN_PROTO,		/* protocol type */
	GN_IPID,		/* outer IP ID */
	GN_IN_ARP,		/* inner: ARP */
	GN_ETH,			/* the inner Ethernet header after all */
};

struct gn_mod {
	int from, to;
	enum gn_field field;
	__u32 val;
};

struct gn_stat {
	int stat;
	__u64 n;
};

struct gn_case {
	const char *name;
	int nr;
	bool no_port;		/* GENEVE port not configured */
	bool v6, outer6;
	bool ip;		/* IP without inner Ethernet (0x0800/0x86dd) */
	__u8 opt_words;		/* of every frame, option value 0x01020304 */
	struct gn_mod mod[4];
	const char *outs;
	struct gn_stat stat[4];
};

static const struct gn_case cases[] = {
	{ "inner tcp4 over outer ipv4 merges (geneve_gro_receive)", 6,
	  .outs = "0-5",
	  .stat = { { S(GENEVE_FRAMES_IN), 6 }, { S(GENEVE_AGGS_OUT), 1 },
		    { S(VXLAN_FRAMES_IN), 0 }, { S(AGGS_OUT), 1 } } },
	{ "inner tcp6 over outer ipv6 merges (geneve_gro_receive)", 6,
	  .v6 = true, .outer6 = true, .outs = "0-5",
	  .stat = { { S(GENEVE_AGGS_OUT), 1 } } },
	{ "equal options merge (memcmp of the header)", 6, .opt_words = 3,
	  .outs = "0-5", .stat = { { S(GENEVE_AGGS_OUT), 1 } } },
	{ "other option bytes: another flow (memcmp of the header)", 6,
	  .opt_words = 2, .mod = { { 3, 5, GN_OPT, 0x01020305 } },
	  .outs = "0-2 3-5", .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "other option length: another flow (opt_len)", 6, .opt_words = 1,
	  .mod = { { 3, 5, GN_OPT_WORDS, 2 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "options and none: another flow (opt_len)", 6,
	  .mod = { { 3, 5, GN_OPT_WORDS, 4 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "critical bit differs: another flow (memcmp of the header)", 6,
	  .opt_words = 1, .mod = { { 3, 5, GN_FLAGS, 0x40 } },
	  .outs = "0-2 3-5", .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "critical bit on all: merges (GRO does not judge it)", 6,
	  .opt_words = 1, .mod = { { 0, 5, GN_FLAGS, 0x40 } }, .outs = "0-5",
	  .stat = { { S(GENEVE_AGGS_OUT), 1 } } },
	{ "other VNI: another flow (memcmp of the header)", 6,
	  .mod = { { 3, 5, GN_VNI, 43 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	/* Alone, the held aggregate untouched; 4 then misses 3 in the
	 * sequence numbers (and the outer IDs), so it flushes. */
	{ "OAM goes alone (geneve_gro_receive: gh->oam)", 6,
	  .mod = { { 3, 3, GN_FLAGS, 0x80 } }, .outs = "3 0-2 4-5",
	  .stat = { { S(SINGLE_GENEVE_OAM), 1 }, { S(FLUSH_SEQ), 1 } } },
	{ "OAM on all: each alone", 3, .mod = { { 0, 2, GN_FLAGS, 0x80 } },
	  .outs = "0 1 2", .stat = { { S(SINGLE_GENEVE_OAM), 3 } } },
	{ "version 1 goes alone (geneve_gro_receive: GENEVE_VER)", 4,
	  .mod = { { 0, 3, GN_VER, 1 } }, .outs = "0 1 2 3",
	  .stat = { { S(SINGLE_GENEVE_OAM), 4 } } },
	/* geneve_gro_receive(): gro_find_receive_by_type(proto_type) is
	 * inet_gro_receive() or ipv6_gro_receive() */
	{ "ipv4 without inner Ethernet merges (inet_gro_receive)", 6,
	  .ip = true, .outs = "0-5",
	  .stat = { { S(GENEVE_FRAMES_IN), 6 }, { S(GENEVE_AGGS_OUT), 1 },
		    { S(SINGLE_GENEVE_PROTO), 0 } } },
	{ "ipv6 without inner Ethernet merges (ipv6_gro_receive)", 6,
	  .v6 = true, .ip = true, .outs = "0-5",
	  .stat = { { S(GENEVE_AGGS_OUT), 1 } } },
	{ "ipv6 in outer ipv6, with options, merges", 6, .v6 = true,
	  .outer6 = true, .ip = true, .opt_words = 2, .outs = "0-5",
	  .stat = { { S(GENEVE_AGGS_OUT), 1 } } },
	{ "ipv4 then Ethernet: another flow (protocol type differs)", 6,
	  .ip = true, .mod = { { 3, 5, GN_ETH } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "ipv4 without inner Ethernet: outer id jump flushes", 6, .ip = true,
	  .mod = { { 3, 5, GN_IPID, 7 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_IPID), 1 } } },
	{ "protocol type not Ethernet goes alone", 4,
	  .mod = { { 0, 3, GN_PROTO, 0x88b5 } }, .outs = "0 1 2 3",
	  .stat = { { S(SINGLE_GENEVE_PROTO), 4 } } },
	/* xrx's limit, not the kernel's: the headers must lie within the
	 * parse window (docs/geneve.md) */
	{ "options past the 256-byte window go alone", 3, .opt_words = 50,
	  .outs = "0 1 2", .stat = { { S(SINGLE_GENEVE_SHORT), 3 } } },
	{ "inner arp goes alone (eth_gro_receive)", 3,
	  .mod = { { 0, 2, GN_IN_ARP } }, .outs = "0 1 2",
	  .stat = { { S(SINGLE_GENEVE_INNER), 3 } } },
	{ "outer id jump flushes, as for any tunnel (inet_gro_flush)", 6,
	  .mod = { { 3, 5, GN_IPID, 7 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_IPID), 1 } } },
	{ "no GENEVE port configured: plain UDP", 4, .no_port = true,
	  .outs = "0 1 2 3",
	  .stat = { { S(SINGLE_UDP_OFF), 4 }, { S(GENEVE_FRAMES_IN), 0 } } },
};

struct gn_train {
	struct vxlan_outer o[H_FRAMES];
};

static void gn_build(struct harness *h, const struct gn_case *c,
		     struct gn_train *t)
{
	struct frame_spec in;
	struct vxlan_outer *o;
	const struct gn_mod *m;
	int k, i, len;

	for (k = 0; k < c->nr; k++) {
		if (c->v6)
			frame_spec_tcp6(&in);
		else
			frame_spec_tcp4(&in);
		in.seq = 1000 + k * 1000;
		in.payload_len = 1000;
		in.ip_id = 100 + k;
		o = &t->o[k];
		geneve_outer_default(o, 500 + k);
		o->v6 = c->outer6;
		o->opt_words = c->opt_words;
		o->opt = 0x01020304;
		o->no_inner_eth = c->ip;
		for (i = 0; i < 4 && c->mod[i].field; i++) {
			m = &c->mod[i];
			if (k < m->from || k > m->to)
				continue;
			switch (m->field) {
			case GN_VNI: o->vni = m->val; break;
			case GN_OPT: o->opt = m->val; break;
			case GN_OPT_WORDS: o->opt_words = m->val; break;
			case GN_FLAGS: o->gflags = m->val; break;
			case GN_VER: o->gver = m->val; break;
			case GN_PROTO: o->gproto = m->val; break;
			case GN_IPID: o->ipid = m->val; break;
			case GN_IN_ARP: frame_spec_arp(&in); break;
			case GN_ETH: o->no_inner_eth = 0; break;
			}
		}
		len = vxlan_frame_build(&in, o, h->region + (size_t)k * H_SLOT,
					H_SLOT, &h->info[k]);
		assert_true(len > 0);
		h->spec[k] = in;
		h->frames[k].addr = (__u64)k * H_SLOT;
		h->frames[k].len = len;
	}
	h->nr = c->nr;
}

/* The aggregate as the kernel completes it (test_gro_vxlan.c's
 * vx_expect(): outer lengths, IPv4 header checksum, UDP length and the
 * pseudo-header sum in a non-zero UDP checksum). */
static __u8 *gn_expect(const struct harness *h, const struct vxlan_outer *o,
		       const int *idx, int n, __u32 *len)
{
	__u32 l3len = o->v6 ? 40 : 20, sum;
	__u8 *b = h_expect(h, idx, n, len), *ip, *uh;

	if (n == 1)
		return b;
	ip = b + 14;
	uh = ip + l3len;
	if (o->v6) {
		h_wr16(ip + 4, *len - 14 - 40);
	} else {
		h_wr16(ip + 2, *len - 14);
		h_wr16(ip + 10, 0);
		h_wr16(ip + 10, (__u16)~h_fold(h_sum16(ip, 20, 0)));
	}
	h_wr16(uh + 4, *len - 14 - l3len);
	sum = h_sum16(ip + (o->v6 ? 8 : 12), o->v6 ? 32 : 8,
		      17 + *len - 14 - l3len);
	h_wr16(uh + 6, h_fold(sum));
	return b;
}

static void gn_assert_out(const struct harness *h, const struct gn_train *t,
			  int k, const int *idx, int n)
{
	const struct h_out *out = &h->out[k];
	const struct vxlan_outer *o = &t->o[idx[0]];
	__u32 o4 = 14 + (o->v6 ? 40 : 20), len;
	__u8 *want = gn_expect(h, o, idx, n, &len);
	char what[64];

	snprintf(what, sizeof(what), "packet %d (first frame %d, %d segs)", k,
		 idx[0], n);
	h_assert_bytes(out->bytes, out->len, want, len, what);
	free(want);
	assert_int_equal(out->pkt.gso_segs, n);
	if (n == 1) {
		assert_int_equal(out->pkt.gso_type, XRX_GSO_NONE);
		return;
	}
	assert_int_equal(out->pkt.outer_l3_off, 14);
	assert_int_equal(out->pkt.outer_l4_off, o4);
	assert_int_equal(out->pkt.inner_mac_off,
			 o4 + 8 + vxlan_frame_tnl_len(o));
	assert_int_equal(out->pkt.l3_off, h->info[idx[0]].l3_off);
	assert_int_equal(out->pkt.l4_off, h->info[idx[0]].l4_off);
	assert_int_equal(out->pkt.gso_size, h->info[idx[0]].payload_len);
	assert_true(out->pkt.gso_flags & XRX_GSO_F_UDP_TUNNEL_CSUM);
	assert_int_equal(out->pkt.csum, XRX_PKT_CSUM_PARTIAL);
	assert_int_equal(out->pkt.csum_start, h->info[idx[0]].l4_off);
}

static void run_case(void **state)
{
	const struct gn_case *c = *state;
	/* VXLAN configured too: each port leads to its own kind */
	struct xrx_engine_opts o = {
		.nr_vxlan_ports = 1,
		.vxlan_ports = { VXLAN_FRAME_PORT },
		.nr_geneve_ports = c->no_port ? 0 : 1,
		.geneve_ports = { GENEVE_FRAME_PORT },
	};
	static int idx[H_FRAMES][H_FRAMES];
	static struct gn_train t;
	int cnt[H_FRAMES], n, k;
	struct harness *h = h_new(&o);

	gn_build(h, c, &t);
	h_rx(h, 0, c->nr, 1);
	n = h_parse_outs(c->outs, idx, cnt);
	if (h->nr_out != n)
		fail_msg("%d packets delivered, want %d", h->nr_out, n);
	for (k = 0; k < n; k++)
		gn_assert_out(h, &t, k, idx[k], cnt[k]);
	for (k = 0; k < 4 && c->stat[k].stat; k++)
		if (h->stats[c->stat[k].stat] != c->stat[k].n)
			fail_msg("counter %s is %llu, want %llu",
				 xrx_engine_stat__name(c->stat[k].stat),
				 (unsigned long long)h->stats[c->stat[k].stat],
				 (unsigned long long)c->stat[k].n);
	h_assert_reasons_add_up(h);
	h_assert_released_once(h);
	h_free(h);
}

/* The parser's GENEVE row: header length with options, and its verdicts. */
static void test_parse(void **state)
{
	struct xrx_engine_opts eo = { 0 };
	struct harness *h = h_new(&eo);
	struct frame_spec in;
	struct vxlan_outer o;
	struct xrx_parsed outer;
	struct xrx_tnl_parsed t;
	__u32 len;
	int n;

	frame_spec_tcp4(&in);
	geneve_outer_default(&o, 1);
	o.vni = 0xabcdef;
	o.opt_words = 5;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, &h->info[0]);
	assert_true(n > 0);
	len = n;
	assert_int_equal(xrx_parse(h_frame(h, 0), len, len, &outer, &h_key),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), len, len, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.vni, 0xabcdef);
	assert_int_equal(t.vxlan_off, 42);
	assert_int_equal(t.inner_mac_off, 42 + 8 + 20);
	assert_int_equal(t.inner.result, XRX_PARSE_L4);
	assert_int_equal(t.inner.l3_off, 42 + 28 + 14);
	assert_int_equal(t.inner.dport, FRAME_DPORT);
	/* Read as VXLAN, the same frame has its inner frame 20 bytes off. */
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 0), len, len, &outer, &t,
					 &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.inner_mac_off, 50);
	/* Options running past the bytes present: short. */
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), 42 + 8 + 20 + 13, len,
				       &outer, XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_SHORT);
	/* OAM, version, protocol type */
	o.gflags = XRX_GENEVE_F_OAM;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_ALONE);
	o.gflags = XRX_GENEVE_F_CRIT;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_VXLAN);
	o.gver = 2;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_ALONE);
	o.gver = 0;
	o.gproto = 0x88b5;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_NOT_ETH);
	/* IPv4 and IPv6 without an inner Ethernet header: the inner frame
	 * starts at its IP header, inner_mac_off says so too */
	o.gproto = 0;
	o.gflags = 0;
	o.no_inner_eth = 1;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, &h->info[0]);
	assert_int_equal(xrx_parse(h_frame(h, 0), n, n, &outer, &h_key),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.inner_mac_off, 42 + 28);
	assert_int_equal(t.inner.result, XRX_PARSE_L4);
	assert_int_equal(t.inner.l3_off, 42 + 28);
	assert_int_equal(t.inner.l3_off, h->info[0].l3_off);
	assert_int_equal(t.inner.l4_off, 42 + 28 + 20);
	assert_int_equal(t.inner.dport, FRAME_DPORT);
	assert_true(t.inner.flags & XRX_META_F_IPV4);
	assert_int_equal(t.inner.headlen, h->info[0].payload_off);
	frame_spec_tcp6(&in);
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse(h_frame(h, 0), n, n, &outer, &h_key),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.inner.result, XRX_PARSE_L4);
	assert_true(t.inner.flags & XRX_META_F_IPV6);
	assert_int_equal(t.inner.l4_off, 42 + 28 + 40);
	/* the protocol type says IPv4, the header is IPv6: malformed */
	o.gproto = 0x0800;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, NULL);
	assert_int_equal(xrx_parse_tnl(h_frame(h, 0), n, n, &outer,
				       XRX_TNL_K_GENEVE, &t, &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.inner.result, XRX_PARSE_MALFORMED);
	h_free(h);
	(void)state;
}

/* A port carries one kind: in both lists is refused. */
static void test_opts(void **state)
{
	struct xrx_engine_opts o = { 0 };
	static __u8 region[4096];
	struct xrx_engine *e;

	o.sz = sizeof(o);
	o.region = region;
	o.region_size = sizeof(region);
	o.nr_vxlan_ports = 1;
	o.vxlan_ports[0] = 6081;
	o.nr_geneve_ports = 1;
	o.geneve_ports[0] = 6081;
	assert_null(xrx_engine__new(&o));
	o.nr_geneve_ports = XRX_GENEVE_PORTS_MAX + 1;
	o.vxlan_ports[0] = 4789;
	assert_null(xrx_engine__new(&o));
	o.nr_geneve_ports = 1;
	e = xrx_engine__new(&o);
	assert_non_null(e);
	xrx_engine__free(e);
	(void)state;
}

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]), i;
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 2];

	memset(tests, 0, sizeof(tests));
	for (i = 0; i < n; i++) {
		tests[i].name = cases[i].name;
		tests[i].test_func = run_case;
		tests[i].initial_state = (void *)&cases[i];
	}
	tests[n].name = "test_parse";
	tests[n].test_func = test_parse;
	tests[n + 1].name = "test_opts";
	tests[n + 1].test_func = test_opts;
	return h_run_group("geneve rules", tests, n + 2);
}
