// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * VXLAN: the tunnel parser (include/xrx/parse_tunnel.h) and the engine's
 * tunnel rules (user/lib/gro/tunnel.c and the level-wise rules of receive.c),
 * one table row per side of a rule, as test_gro.c. A row builds a train
 * of frames (frame k: inner TCP segment k of a contiguous flow, outer IP
 * ID 500 + k, then the row's changes to some frames), runs it as one
 * batch, and checks the packets delivered, in order: which frames each
 * one aggregates, its bytes, GSO and checksum fields, its outer offsets,
 * the counters the rule moves, and that every frame was released exactly
 * once. Frames come from user/util/vxlan_frames.h (frames.h's inner
 * frames, outer headers written byte by byte), and every expected
 * aggregate is computed with the harness's own checksum code, not
 * libxrx's. The kernel oracle (tests/integration/test_vxlan_oracle.sh)
 * checks the same rules against Linux itself; these pin them down without
 * a kernel.
 */
#include "gro_harness.h"

#include <xrx/parse_tunnel.h>
#include "util/vxlan_frames.h"

/* Rows name only the fields they need; the rest are zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define VX_PORT VXLAN_FRAME_PORT
#define VX_HDRS VXLAN_FRAME_HDRS
#define S(x) XRX_ENGINE_STAT_##x

/* What a row changes in frames from .. to of its train. */
enum vx_field {
	VX_VNI = 1,		/* outer: VNI */
	VX_TTL,			/* outer: TTL / hop limit */
	VX_TOS,			/* outer: TOS / traffic class */
	VX_NO_DF,		/* outer: DF clear */
	VX_IPID,		/* outer: IP ID */
	VX_CSUM_ZERO,		/* outer: UDP checksum 0 */
	VX_BAD_CSUM,		/* outer: a wrong UDP checksum */
	VX_HW_VLAN,		/* a tag the NIC stripped (xrx_meta), TCI v */
	VX_IN_ID,		/* inner: IP ID */
	VX_IN_WINDOW,		/* inner: TCP window */
	VX_IN_BAD_L4,		/* inner: a wrong TCP checksum */
	VX_IN_UDP,		/* inner: a UDP datagram of 300 bytes */
	VX_IN_ARP,		/* inner: ARP */
};

struct vx_mod {
	int from, to;
	enum vx_field field;
	__u32 val;
};

struct vx_stat {
	int stat;
	__u64 n;
};

struct vx_case {
	const char *name;
	int nr;			/* frames */
	int ports;		/* VXLAN ports configured (4789, 8472) */
	bool v6;		/* inner TCPv6 */
	bool outer6;		/* outer IPv6 */
	bool trust;		/* csum = trust */
	__u32 payload;		/* inner segment payload; 0: 1000 */
	struct vx_mod mod[4];
	const char *outs;	/* "0-2 3-5": packets, in order */
	struct vx_stat stat[4];	/* counters and their exact values */
	int reason[3];		/* reasons of the first packets; 0: any */
};

static const struct vx_case cases[] = {
	/* Merges, with the kernel's fix-ups of both levels */
	{ "inner tcp4 over outer ipv4 merges (vxlan_gro_receive)", 6, 2,
	  .outs = "0-5",
	  .stat = { { S(VXLAN_FRAMES_IN), 6 }, { S(VXLAN_AGGS_OUT), 1 },
		    { S(AGGS_OUT), 1 } } },
	{ "inner tcp6 over outer ipv4 merges (vxlan_gro_receive)", 6, 2,
	  .v6 = true, .outs = "0-5",
	  .stat = { { S(VXLAN_FRAMES_IN), 6 }, { S(VXLAN_AGGS_OUT), 1 },
		    { S(AGGS_OUT), 1 } } },
	{ "outer checksum zero stays zero, both IDs fixed (udp_gro_complete)",
	  4, 1,
	  .mod = { { 0, 3, VX_CSUM_ZERO }, { 0, 3, VX_IPID, 9 },
		   { 0, 3, VX_IN_ID, 100 } },
	  .outs = "0-3" },
	{ "no VXLAN port configured: plain UDP (udp4_gro_receive)", 4, 0,
	  .outs = "0 1 2 3",
	  .stat = { { S(SINGLE_UDP_OFF), 4 }, { S(VXLAN_FRAMES_IN), 0 } } },

	/* Flow identity: another flow, no flush */
	{ "other VNI: another flow (vxlan_gro_prepare_receive)", 6, 1,
	  .mod = { { 3, 5, VX_VNI, 43 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "outer checksum zero and not: another flow (udp_gro_receive)", 6, 1,
	  .mod = { { 3, 5, VX_CSUM_ZERO } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_BATCH_END), 2 } } },
	{ "other stripped VLAN tag: another flow (gro_list_prepare)", 6, 1,
	  .mod = { { 0, 2, VX_HW_VLAN, 100 }, { 3, 5, VX_HW_VLAN, 200 } },
	  .outs = "0-2 3-5", .stat = { { S(FLUSH_BATCH_END), 2 } } },

	/* The outer IP header's flush rules (gro_receive_network_flush()) */
	{ "outer ttl differs flushes (inet_gro_flush)", 6, 1,
	  .mod = { { 3, 5, VX_TTL, 63 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_TTL), 1 } } },
	{ "outer tos differs flushes (inet_gro_flush)", 6, 1,
	  .mod = { { 3, 5, VX_TOS, 4 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_TOS), 1 } } },
	{ "outer df differs flushes (inet_gro_flush)", 6, 1,
	  .mod = { { 3, 5, VX_NO_DF } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_DF), 1 } } },
	/* ID 7 where 503 was due flushes; 7, 7, 7 is then a fixed-ID run
	 * (the outer header's own decision: the inner IDs increment). */
	{ "outer id jump flushes, then fixed on its own (inet_gro_flush)", 6, 1,
	  .mod = { { 3, 5, VX_IPID, 7 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_OUTER_IPID), 1 } } },
	/* One ID 7 between 502 and 504: 503 due, then 8 due: two flushes. */
	{ "one outer id out of line flushes twice (inet_gro_flush)", 6, 1,
	  .mod = { { 3, 3, VX_IPID, 7 } }, .outs = "0-2 3 4-5",
	  .stat = { { S(FLUSH_OUTER_IPID), 2 } } },
	{ "outer ipv6 hop limit differs flushes (ipv6_gro_flush)", 6, 1,
	  .outer6 = true, .mod = { { 4, 5, VX_TTL, 63 } }, .outs = "0-3 4-5",
	  .stat = { { S(FLUSH_OUTER_TTL), 1 } } },
	{ "the inner rules are the plain ones (tcp_gro_receive)", 6, 1,
	  .mod = { { 3, 5, VX_IN_WINDOW, 1 } }, .outs = "0-2 3-5",
	  .stat = { { S(FLUSH_WINDOW), 1 } } },

	/* Checksums (udp4_gro_receive(), tcp4_gro_receive()) */
	/* A bad outer checksum: alone, not merged, no flush; the next frame
	 * then misses it in the outer ID sequence and in the inner sequence
	 * numbers, and the gap is the reason named. */
	{ "bad outer checksum goes alone (udp4_gro_receive)", 6, 1,
	  .mod = { { 3, 3, VX_BAD_CSUM } }, .outs = "3 0-2 4-5",
	  .stat = { { S(CSUM_BAD), 1 }, { S(FLUSH_SEQ), 1 },
		    { S(FLUSH_OUTER_IPID), 0 } },
	  .reason = { S(CSUM_BAD) } },
	/* A bad inner TCP checksum under a good outer UDP checksum (the inner
	 * check then works from the outer sum), under a zero one, and a good
	 * one under a bad outer one: each frame alone. */
	{ "bad checksums at either level go alone (skb_gro_checksum_validate)",
	  8, 1,
	  .mod = { { 1, 2, VX_IN_BAD_L4 }, { 2, 2, VX_CSUM_ZERO },
		   { 5, 5, VX_CSUM_ZERO }, { 3, 3, VX_BAD_CSUM } },
	  .outs = "1 2 3 0 4 5 6-7",
	  .stat = { { S(CSUM_BAD), 3 }, { S(VXLAN_AGGS_OUT), 1 } },
	  .reason = { S(CSUM_BAD), S(CSUM_BAD), S(CSUM_BAD) } },
	/* ... and with csum = trust none is refused: the breaks are where
	 * the outer checksum's presence or the outer ID sequence changes. */
	{ "checksums trusted: nothing refused (CHECKSUM_UNNECESSARY)", 8, 1,
	  .trust = true,
	  .mod = { { 1, 2, VX_IN_BAD_L4 }, { 2, 2, VX_CSUM_ZERO },
		   { 5, 5, VX_CSUM_ZERO }, { 3, 3, VX_BAD_CSUM } },
	  .outs = "0-1 2 3-4 5 6-7",
	  .stat = { { S(CSUM_BAD), 0 }, { S(VXLAN_AGGS_OUT), 3 } } },

	/* What the inner frame may be (eth_gro_receive(), udp_gro_receive()) */
	{ "inner udp and arp go alone (no rx-udp-gro-forwarding)", 3, 1,
	  .mod = { { 0, 1, VX_IN_UDP }, { 2, 2, VX_IN_ARP } },
	  .outs = "0 1 2", .stat = { { S(SINGLE_VXLAN_INNER), 3 } } },

	/* skb_gro_receive(): 64 KiB for an encapsulated aggregate, counted
	 * from the outer IP header: 90 bytes of headers + n x 1448 stays
	 * below 65536 for n = 45. */
	{ "64 KiB: 45 segments of 1448 fit, 46th flushes (skb_gro_receive)",
	  50, 1, .payload = 1448, .outs = "0-44 45-49",
	  .stat = { { S(FLUSH_SIZE), 1 } } },
};

/* Inner segment @k of a contiguous TCP flow, as row @c wants it. */
static void vx_inner(const struct vx_case *c, int k, struct frame_spec *s)
{
	__u32 payload = c->payload ? c->payload : 1000;

	if (c->v6)
		frame_spec_tcp6(s);
	else
		frame_spec_tcp4(s);
	if (c->payload)
		s->tcp_opts_len = 0;
	s->seq = 1000 + k * payload;
	s->payload_len = payload;
	s->ip_id = 100 + k;
}

static void vx_apply(const struct vx_mod *m, struct frame_spec *in,
		     struct vxlan_outer *o, struct xrx_meta *meta)
{
	switch (m->field) {
	case VX_VNI: o->vni = m->val; break;
	case VX_TTL: o->ttl = m->val; break;
	case VX_TOS: o->tos = m->val; break;
	case VX_NO_DF: o->no_df = 1; break;
	case VX_IPID: o->ipid = m->val; break;
	case VX_CSUM_ZERO: o->csum_zero = 1; break;
	case VX_BAD_CSUM: o->bad_csum = 1; break;
	case VX_IN_ID: in->ip_id = m->val; break;
	case VX_IN_WINDOW: in->window = m->val; break;
	case VX_IN_BAD_L4: in->bad_l4_csum = 1; break;
	case VX_IN_UDP:
		frame_spec_udp4(in);
		in->payload_len = 300;
		break;
	case VX_IN_ARP: frame_spec_arp(in); break;
	case VX_HW_VLAN:
		/* Only the tag is taken: an L3-only hash makes the engine
		 * parse the frame itself (xrx_seg_from_meta()). */
		meta->magic = XRX_META_MAGIC;
		meta->version = XRX_META_VERSION;
		meta->flags = XRX_META_F_HW_VLAN;
		meta->hash_type = XRX_HASH_HW_L3;
		meta->vlan_proto = 0x8100;
		meta->vlan_tci = m->val;
		break;
	}
}

struct vx_train {
	struct vxlan_outer o[H_FRAMES];
	struct xrx_meta meta[H_FRAMES];
};

static void vx_build(struct harness *h, const struct vx_case *c,
		     struct vx_train *t)
{
	struct frame_spec in;
	int k, i, len;

	for (k = 0; k < c->nr; k++) {
		vx_inner(c, k, &in);
		vxlan_outer_default(&t->o[k], 500 + k);
		t->o[k].v6 = c->outer6;
		memset(&t->meta[k], 0, sizeof(t->meta[k]));
		for (i = 0; i < 4 && c->mod[i].field; i++)
			if (k >= c->mod[i].from && k <= c->mod[i].to)
				vx_apply(&c->mod[i], &in, &t->o[k],
					 &t->meta[k]);
		len = vxlan_frame_build(&in, &t->o[k],
					h->region + (size_t)k * H_SLOT, H_SLOT,
					&h->info[k]);
		assert_true(len > 0);
		h->spec[k] = in;
		h->frames[k].addr = (__u64)k * H_SLOT;
		h->frames[k].len = len;
		h->frames[k].meta = t->meta[k].magic ? &t->meta[k] : NULL;
	}
	h->nr = c->nr;
}

/*
 * The aggregate of frames idx[0..n) as the kernel completes it: the
 * harness's h_expect() fixes the inner headers (it only knows the
 * offsets of frame_info); the outer IP length (and IPv4 header checksum)
 * or payload length, the UDP length and a non-zero UDP checksum (the
 * pseudo-header sum, as ~udp_v4_check() / ~udp_v6_check()) here.
 */
static __u8 *vx_expect(const struct harness *h, const struct vx_train *t,
		       const int *idx, int n, __u32 *len)
{
	const struct vxlan_outer *o = &t->o[idx[0]];
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
	if (uh[6] | uh[7]) {
		sum = h_sum16(ip + (o->v6 ? 8 : 12), o->v6 ? 32 : 8,
			      17 + *len - 14 - l3len);
		h_wr16(uh + 6, h_fold(sum));
	}
	return b;
}

/*
 * The gso_flags of an aggregate of frames idx[0..n), from the frames:
 * the tunnel and its checksum, and per IPv4 header whether the second
 * segment kept the first one's ID (the kernel's fixed-ID decision).
 */
static __u8 vx_gso_flags(const struct harness *h, const struct vx_train *t,
			 const int *idx)
{
	const struct vxlan_outer *o = &t->o[idx[0]], *o2 = &t->o[idx[1]];
	__u8 f = o->csum_zero ? XRX_GSO_F_UDP_TUNNEL :
				XRX_GSO_F_UDP_TUNNEL_CSUM;

	if (!o->v6 && o->ipid == o2->ipid)
		f |= XRX_GSO_F_FIXEDID;
	if (h->spec[idx[0]].family == 4 &&
	    h->spec[idx[0]].ip_id == h->spec[idx[1]].ip_id)
		f |= XRX_GSO_F_FIXEDID_INNER;
	return f;
}

static void vx_assert_out(const struct harness *h, const struct vx_case *c,
			  const struct vx_train *t, int k, const int *idx,
			  int n)
{
	const struct h_out *out = &h->out[k];
	const struct xrx_meta *m = h->frames[idx[0]].meta;
	__u32 o3 = 14, o4 = o3 + (c->outer6 ? 40 : 20), len;
	__u8 *want = vx_expect(h, t, idx, n, &len);
	char what[64];

	snprintf(what, sizeof(what), "packet %d (first frame %d, %d segs)", k,
		 idx[0], n);
	h_assert_bytes(out->bytes, out->len, want, len, what);
	free(want);
	assert_int_equal(out->pkt.gso_segs, n);
	assert_int_equal(out->pkt.vlan_tci, m ? m->vlan_tci : 0);
	if (!c->ports)
		assert_int_equal(out->pkt.outer_l3_off, 0);
	if (k < 3 && c->reason[k])
		assert_int_equal(out->pkt.reason, c->reason[k]);
	if (n == 1) {
		assert_int_equal(out->pkt.gso_type, XRX_GSO_NONE);
		return;
	}
	assert_int_equal(out->pkt.outer_l3_off, o3);
	assert_int_equal(out->pkt.outer_l4_off, o4);
	assert_int_equal(out->pkt.inner_mac_off, o4 + 16);
	assert_int_equal(out->pkt.l3_off, h->info[idx[0]].l3_off);
	assert_int_equal(out->pkt.gso_type,
			 c->v6 ? XRX_GSO_TCPV6 : XRX_GSO_TCPV4);
	assert_int_equal(out->pkt.gso_size, h->info[idx[0]].payload_len);
	assert_int_equal(out->pkt.gso_flags, vx_gso_flags(h, t, idx));
	assert_int_equal(out->pkt.csum, XRX_PKT_CSUM_PARTIAL);
	assert_int_equal(out->pkt.csum_start, h->info[idx[0]].l4_off);
}

static void run_case(void **state)
{
	const struct vx_case *c = *state;
	struct xrx_engine_opts o = {
		.csum = c->trust ? XRX_CSUM_TRUST : XRX_CSUM_VERIFY,
		.nr_vxlan_ports = c->ports,
		.vxlan_ports = { VX_PORT, 8472 },
	};
	static int idx[H_FRAMES][H_FRAMES];
	static struct vx_train t;
	int cnt[H_FRAMES], n, k;
	struct harness *h = h_new(&o);

	vx_build(h, c, &t);
	h_rx(h, 0, c->nr, 1);
	n = h_parse_outs(c->outs, idx, cnt);
	if (h->nr_out != n)
		fail_msg("%d packets delivered, want %d", h->nr_out, n);
	for (k = 0; k < n; k++)
		vx_assert_out(h, c, &t, k, idx[k], cnt[k]);
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

/* The parser: outer headers, the VXLAN header, the inner frame. */
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
	in.nr_vlans = 1;
	in.vlan_tci[0] = 7;
	vxlan_outer_default(&o, 1);
	o.vni = 0xabcdef;
	n = vxlan_frame_build(&in, &o, h->region, H_SLOT, &h->info[0]);
	assert_true(n > 0);
	len = n;
	assert_int_equal(xrx_parse(h_frame(h, 0), len, len, &outer, &h_key),
			 XRX_PARSE_L4);
	assert_int_equal(outer.dport, VX_PORT);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 0), len, len, &outer, &t,
					 &h_key),
			 XRX_TNL_VXLAN);
	assert_int_equal(t.vni, 0xabcdef);
	assert_int_equal(t.outer_l3_off, 14);
	assert_int_equal(t.outer_l4_off, 34);
	assert_int_equal(t.vxlan_off, 42);
	assert_int_equal(t.inner_mac_off, VX_HDRS);
	assert_int_equal(t.inner.result, XRX_PARSE_L4);
	assert_int_equal(t.inner.nr_vlans, 1);
	assert_int_equal(t.inner.l3_off, VX_HDRS + 18);
	assert_int_equal(t.inner.l4_off, VX_HDRS + 38);
	assert_int_equal(t.inner.headlen, h->info[0].payload_off);
	assert_int_equal(t.inner.dport, FRAME_DPORT);
	assert_int_not_equal(t.inner.hash, outer.hash);

	/* A datagram to the VXLAN port too short for the VXLAN and inner
	 * Ethernet headers. */
	frame_spec_udp4(&in);
	in.dport = VX_PORT;
	in.payload_len = 12;
	h_build(h, 2, &in);
	len = h->frames[2].len;
	assert_int_equal(xrx_parse(h_frame(h, 2), len, len, &outer, &h_key),
			 XRX_PARSE_L4);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 2), len, len, &outer, &t,
					 &h_key),
			 XRX_TNL_SHORT);

	/* Plain TCP is no tunnel. */
	frame_spec_tcp4(&in);
	h_build(h, 1, &in);
	len = h->frames[1].len;
	xrx_parse(h_frame(h, 1), len, len, &outer, &h_key);
	assert_int_equal(xrx_parse_vxlan(h_frame(h, 1), len, len, &outer, &t,
					 &h_key),
			 XRX_TNL_NONE);
	h_free(h);
	(void)state;
}

/* vxlan_ports: at most XRX_VXLAN_PORTS_MAX, non-zero, each once. */
static void test_opts(void **state)
{
	struct xrx_engine_opts o = { 0 };
	static __u8 region[4096];
	struct xrx_engine *e;

	o.sz = sizeof(o);
	o.region = region;
	o.region_size = sizeof(region);
	o.nr_vxlan_ports = 1;
	o.vxlan_ports[0] = 0;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = 2;
	o.vxlan_ports[0] = 4789;
	o.vxlan_ports[1] = 4789;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = XRX_VXLAN_PORTS_MAX + 1;
	assert_null(xrx_engine__new(&o));
	o.nr_vxlan_ports = 2;
	o.vxlan_ports[1] = 8472;
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
	return h_run_group("vxlan rules", tests, n + 2);
}
