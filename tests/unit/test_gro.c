// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GRO engine against the kernel's rules, one table row per side of
 * every rule in the aggregation spec. A row builds a train of frames
 * (frame i = the row's base spec, seq and IP ID following the stream,
 * then the row's tweak), runs it as one batch, and checks the packets
 * delivered, in order: which frames each one aggregates, its bytes
 * (headers fixed up, payloads concatenated), its GSO info, the counter
 * the rule must move, and that every frame was released exactly once.
 *
 * Row names say the side of the rule and the kernel function it mirrors.
 */
#include "unit/gro_harness.h"

/* Rows name only the fields they need; the rest are zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct gro_case {
	const char *name;
	void (*base)(struct frame_spec *s);
	int nr;				/* frames */
	void (*tweak)(struct frame_spec *s, int i);
	__u64 stray;			/* frames outside the stream's seq/ID */
	const char *outs;		/* "0-2 3" or "1 0,2": packets, in order */
	int stat;			/* must be non-zero; 0 = none */
	int stat2;
	bool udp;
	bool trust;
	__u32 max_aggregate;
	bool fixedid;			/* aggregates carry XRX_GSO_F_FIXEDID */
};

#define TWEAK(fn, cond, ...)                                                   \
	static void fn(struct frame_spec *s, int i)                            \
	{                                                                      \
		(void)i;                                                       \
		if (cond) {                                                    \
			__VA_ARGS__;                                           \
		}                                                              \
	}

static const __u8 ts2[12] = { 1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 0 };

TWEAK(t_cwr_1, i == 1, s->tcp_flags |= 0x80)
TWEAK(t_cwr_0, i == 0, s->tcp_flags |= 0x80)
TWEAK(t_cwr_all, 1, s->tcp_flags |= 0x80)
TWEAK(t_ece_1, i == 1, s->tcp_flags |= 0x40)
TWEAK(t_noopts_1, i == 1, s->tcp_opts_len = 0)
TWEAK(t_win_1on, i >= 1, s->window = 9000)
TWEAK(t_ack_1on, i >= 1, s->ack = 2)
TWEAK(t_ts_1on, i >= 1, s->tcp_opts = ts2)
TWEAK(t_ttl_1on, i >= 1, s->ttl = 63)
TWEAK(t_tos_1on, i >= 1, s->tos = 4)
TWEAK(t_df_1on, i >= 1, s->frag_off = 0)
TWEAK(t_id_fixed, 1, s->ip_id = 7)
TWEAK(t_id_fixed_nodf, 1, s->ip_id = 7; s->frag_off = 0)
TWEAK(t_id_nodf, 1, s->frag_off = 0)
TWEAK(t_id_jump_2on, i >= 2, s->ip_id += 5)
/* segment 2 lost: what follows is a sequence and an IP ID further on */
TWEAK(t_loss_2on, i >= 2, s->ip_id += 1; if (i == 2) s->seq += 1448)
TWEAK(t_id_fixed_then_inc, 1, s->ip_id = i < 2 ? 7 : 8)
TWEAK(t_seq_gap_2, i == 2, s->seq += 1)
TWEAK(t_seq_retrans_2, i == 2, s->seq -= 1448)
TWEAK(t_mss_small_0, i == 0, s->payload_len = 1000)
TWEAK(t_short_1, i == 1, s->payload_len = 500)
TWEAK(t_ack_only_1, i == 1, s->payload_len = 0)
TWEAK(t_ack_only_0, i == 0, s->payload_len = 0)
TWEAK(t_psh_1, i == 1, s->tcp_flags |= 0x08)
TWEAK(t_fin_1, i == 1, s->tcp_flags |= 0x01)
TWEAK(t_psh_0, i == 0, s->tcp_flags |= 0x08)
TWEAK(t_syn_0, i == 0, s->tcp_flags = 0x02)
TWEAK(t_rst_1, i == 1, s->tcp_flags |= 0x04)
TWEAK(t_urg_1, i == 1, s->tcp_flags |= 0x20; s->urg_ptr = 1)
TWEAK(t_noopts, 1, s->tcp_opts_len = 0)
TWEAK(t_odd, 1, s->payload_len = 1447)
TWEAK(t_udp1472, 1, s->payload_len = 1472)
TWEAK(t_ipopts_1, i == 1, static const __u8 o[4] = { 1, 1, 1, 0 };
      s->ip_opts = o; s->ip_opts_len = 4)
TWEAK(t_mf_1, i == 1, s->frag_off |= 0x2000)
TWEAK(t_frag6_1, i == 1, s->ext[0].type = 44; s->nr_ext = 1)
TWEAK(t_pad_1, i == 1, s->pad = 6)
TWEAK(t_pad_ack_1, i == 1, s->pad = 6; s->payload_len = 0)
TWEAK(t_long_1, i == 1, s->tot_len_delta = 100)
TWEAK(t_evil_1, i == 1, s->frag_off |= 0x8000)
TWEAK(t_bad_ip_1, i == 1, s->bad_ip_csum = 1)
TWEAK(t_bad_l4_1, i == 1, s->bad_l4_csum = 1)
TWEAK(t_vlan1, 1, s->nr_vlans = 1; s->vlan_tci[0] = 100)
TWEAK(t_vlan2, 1, s->nr_vlans = 2; s->vlan_tci[0] = 100;
      s->vlan_tpid[0] = 0x88a8; s->vlan_tci[1] = 200)
TWEAK(t_mss1637, 1, s->payload_len = 1637)
TWEAK(t_vlan1_mss1637, 1, s->nr_vlans = 1; s->vlan_tci[0] = 100;
      s->payload_len = 1637)
TWEAK(t_vlan_other_1, 1, s->nr_vlans = 1; s->vlan_tci[0] = i == 1 ? 200 : 100)
TWEAK(t_mac_1, i == 1, s->smac[0] = 0x02; s->smac[5] = 0x09)
TWEAK(t_port_1, i == 1, s->sport = 40001)
TWEAK(t_daddr_1, i == 1, s->daddr[15] = 3; s->daddr[10] = 0xff;
      s->daddr[11] = 0xff; s->daddr[12] = 198; s->daddr[13] = 18)
TWEAK(t_hbh, 1, s->ext[0].type = 0; s->ext[0].len = 8; s->nr_ext = 1)
TWEAK(t_hbh_dst_1, 1, s->ext[0].type = 0; s->ext[0].len = 8;
      s->nr_ext = i == 1 ? 2 : 1; s->ext[1].type = 60; s->ext[1].len = 8)
TWEAK(t_flowlabel_1, i == 1, s->flowlabel = 5)
TWEAK(t_tclass_1on, i >= 1, s->tclass = 4)
TWEAK(t_hlim_1on, i >= 1, s->hop_limit = 63)
TWEAK(t_udp_big_1, i == 1, s->payload_len = 1200)
TWEAK(t_udp100, 1, s->payload_len = 100)
TWEAK(t_udp0_1, i == 1, s->udp_csum_zero = 1)

#define S(x) XRX_ENGINE_STAT_##x

static const struct gro_case cases[] = {
	/* The base case and flow identity */
	{ "tcp4 contiguous train merges (tcp_gro_receive)", frame_spec_tcp4,
	  4, NULL, 0, "0-3", S(SEGS_MERGED), S(FLUSH_BATCH_END) },
	{ "tcp6 contiguous train merges (tcp6_gro_receive)", frame_spec_tcp6,
	  4, NULL, 0, "0-3", S(SEGS_MERGED) },
	{ "other port: another flow (tcp_gro_lookup)", frame_spec_tcp4, 3,
	  t_port_1, 2, "0,2 1" },
	{ "other address: another flow (inet_gro_receive)", frame_spec_tcp4,
	  3, t_daddr_1, 2, "0,2 1" },
	{ "other MAC: another flow (gro_list_prepare)", frame_spec_tcp4, 3,
	  t_mac_1, 2, "0,2 1" },
	{ "one VLAN tag merges (vlan_gro_receive)", frame_spec_tcp4, 3,
	  t_vlan1, 0, "0-2" },
	{ "two VLAN tags merge (vlan_gro_receive)", frame_spec_tcp6, 3,
	  t_vlan2, 0, "0-2" },
	{ "other VLAN: another flow (vlan_gro_receive)", frame_spec_tcp4, 3,
	  t_vlan_other_1, 2, "0,2 1" },
	{ "ipv6 same ext headers merge (ipv6_gro_receive)", frame_spec_tcp6,
	  3, t_hbh, 0, "0-2" },
	{ "ipv6 other ext headers: another flow (ipv6_gro_receive)",
	  frame_spec_tcp6, 3, t_hbh_dst_1, 2, "0,2 1" },
	{ "ipv6 other flow label: another flow (ipv6_gro_receive)",
	  frame_spec_tcp6, 3, t_flowlabel_1, 2, "0,2 1" },

	/* tcp_gro_receive() merge conditions */
	{ "cwr flushes and goes alone (tcp_gro_receive, 6.18)",
	  frame_spec_tcp4, 4, t_cwr_1, 0, "0 1 2-3", S(FLUSH_CWR),
	  S(SINGLE_TCP_FLAGS) },
	{ "cwr in a new segment goes alone (tcp_gro_receive, 6.18)",
	  frame_spec_tcp4, 3, t_cwr_0, 0, "0 1-2", S(SINGLE_TCP_FLAGS) },
	{ "consecutive cwr segments each alone (tcp_gro_receive, 6.18)",
	  frame_spec_tcp4, 3, t_cwr_all, 0, "0 1 2", S(SINGLE_TCP_FLAGS) },
	{ "ece differs flushes (tcp_flag_word)", frame_spec_tcp4, 3, t_ece_1,
	  0, "0 1 2", S(FLUSH_FLAGS) },
	{ "doff differs flushes (tcp_flag_word)", frame_spec_tcp4, 3,
	  t_noopts_1, 0, "0 1 2", S(FLUSH_FLAGS) },
	{ "window differs flushes (tcp_flag_word)", frame_spec_tcp4, 3,
	  t_win_1on, 0, "0 1-2", S(FLUSH_WINDOW) },
	{ "ack_seq differs flushes (tcp_gro_receive)", frame_spec_tcp4, 3,
	  t_ack_1on, 0, "0 1-2", S(FLUSH_ACK) },
	{ "timestamp differs flushes (tcp_gro_receive options)",
	  frame_spec_tcp4, 3, t_ts_1on, 0, "0 1-2", S(FLUSH_OPTS) },
	{ "ttl differs flushes (inet_gro_flush)", frame_spec_tcp4, 3,
	  t_ttl_1on, 0, "0 1-2", S(FLUSH_TTL) },
	{ "tos differs flushes (inet_gro_flush)", frame_spec_tcp4, 3,
	  t_tos_1on, 0, "0 1-2", S(FLUSH_TOS) },
	{ "df differs flushes (inet_gro_flush)", frame_spec_tcp4, 3,
	  t_df_1on, 0, "0 1-2", S(FLUSH_DF) },
	{ "ipv6 traffic class differs flushes (ipv6_gro_flush)",
	  frame_spec_tcp6, 3, t_tclass_1on, 0, "0 1-2", S(FLUSH_TOS) },
	{ "ipv6 hop limit differs flushes (ipv6_gro_flush)", frame_spec_tcp6,
	  3, t_hlim_1on, 0, "0 1-2", S(FLUSH_TTL) },
	{ "ip id incrementing without DF merges (inet_gro_flush)",
	  frame_spec_tcp4, 4, t_id_nodf, 0, "0-3" },
	{ "ip id fixed merges, fixed-ID flag (inet_gro_flush)",
	  frame_spec_tcp4, 4, t_id_fixed, 0, "0-3", .fixedid = true },
	{ "ip id fixed without DF merges (inet_gro_flush, mainline)",
	  frame_spec_tcp4, 4, t_id_fixed_nodf, 0, "0-3", .fixedid = true },
	{ "ip id jump flushes (inet_gro_flush)", frame_spec_tcp4, 4,
	  t_id_jump_2on, 0, "0-1 2-3", S(FLUSH_IPID) },
	{ "ip id fixed then incrementing flushes (inet_gro_flush)",
	  frame_spec_tcp4, 3, t_id_fixed_then_inc, 0, "0-1 2", S(FLUSH_IPID),
	  .fixedid = true },
	{ "seq gap flushes (tcp_gro_receive)", frame_spec_tcp4, 4,
	  t_seq_gap_2, 0, "0-1 2-3", S(FLUSH_SEQ) },
	{ "seq retransmitted flushes (tcp_gro_receive)", frame_spec_tcp4, 4,
	  t_seq_retrans_2, 0, "0-1 2-3", S(FLUSH_SEQ) },
	{ "a lost segment flushes, named a seq gap, not its IP ID (tcp_gro_receive)",
	  frame_spec_tcp4, 4, t_loss_2on, 0, "0-1 2-3", S(FLUSH_SEQ) },
	{ "payload above mss flushes (tcp_gro_receive len - 1 >= mss)",
	  frame_spec_tcp4, 3, t_mss_small_0, 0, "0 1-2", S(FLUSH_MSS) },
	{ "payload below mss merges and completes (tcp_gro_receive)",
	  frame_spec_tcp4, 3, t_short_1, 0, "0-1 2", S(COMPLETE_SHORT) },
	{ "pure ack flushes and goes alone (tcp_gro_receive)",
	  frame_spec_tcp4, 3, t_ack_only_1, 0, "0 1 2", S(FLUSH_NO_PAYLOAD),
	  S(SINGLE_PURE_ACK) },
	{ "pure ack with no aggregate goes alone (tcp_gro_receive)",
	  frame_spec_tcp4, 2, t_ack_only_0, 0, "0 1", S(SINGLE_PURE_ACK) },
	{ "psh merges and completes (tcp_gro_receive)", frame_spec_tcp4, 3,
	  t_psh_1, 0, "0-1 2", S(COMPLETE_FLAGS) },
	{ "fin merges and completes (tcp_gro_receive)", frame_spec_tcp4, 3,
	  t_fin_1, 0, "0-1 2", S(COMPLETE_FLAGS) },
	{ "psh in a new segment goes alone (tcp_gro_receive)",
	  frame_spec_tcp4, 3, t_psh_0, 0, "0 1-2", S(SINGLE_TCP_FLAGS) },
	{ "syn goes alone (tcp_gro_receive)", frame_spec_tcp4, 3, t_syn_0, 0,
	  "0 1-2", S(SINGLE_TCP_FLAGS) },
	{ "rst flushes and goes alone (tcp_gro_receive)", frame_spec_tcp4, 3,
	  t_rst_1, 0, "0 1 2", S(FLUSH_FLAGS), S(SINGLE_TCP_FLAGS) },
	{ "urg flushes and goes alone (tcp_gro_receive)", frame_spec_tcp4, 3,
	  t_urg_1, 0, "0 1 2", S(FLUSH_FLAGS), S(SINGLE_TCP_FLAGS) },

	/* skb_gro_receive() size limit; BIG TCP */
	{ "64 KiB: 45 segments of 1448 fit, 46th flushes (skb_gro_receive)",
	  frame_spec_tcp4, 46, t_noopts, 0, "0-44 45", S(FLUSH_SIZE) },
	{ "64 KiB: 45 segments with timestamps too (skb_gro_receive)",
	  frame_spec_tcp4, 46, NULL, 0, "0-44 45", S(FLUSH_SIZE) },
	{ "BIG TCP ipv4 524280: 362 segments (skb_gro_receive)",
	  frame_spec_tcp4, 363, t_noopts, 0, "0-361 362", S(FLUSH_SIZE),
	  .max_aggregate = 524280 },
	{ "BIG TCP ipv6 524280: 362 segments (skb_gro_receive)",
	  frame_spec_tcp6, 363, t_noopts, 0, "0-361 362", S(FLUSH_SIZE),
	  .max_aggregate = 524280 },
	/* 52 + 40 * 1637 = 65532: the 40th segment fits, unless a VLAN
	 * tag's 4 bytes count too, as they do in p->len. */
	{ "64 KiB edge: 40 x 1637 fit (skb_gro_receive p->len)",
	  frame_spec_tcp4, 41, t_mss1637, 0, "0-39 40", S(FLUSH_SIZE) },
	{ "64 KiB edge: a VLAN tag counts in p->len (skb_gro_receive)",
	  frame_spec_tcp4, 41, t_vlan1_mss1637, 0, "0-38 39-40",
	  S(FLUSH_SIZE) },
	{ "udp stays below 64 KiB under BIG TCP (skb_gro_receive)",
	  frame_spec_udp4, 50, t_udp1472, 0, "0-43 44-49", S(FLUSH_SIZE),
	  .udp = true, .max_aggregate = 524280 },

	/* Never aggregated */
	{ "ipv4 options alone, held kept (inet_gro_receive 0x45)",
	  frame_spec_tcp4, 3, t_ipopts_1, 2, "1 0,2", S(SINGLE_IP_OPTS) },
	{ "ipv4 fragment alone, held kept (inet_gro_receive)",
	  frame_spec_tcp4, 3, t_mf_1, 2, "1 0,2", S(SINGLE_FRAG) },
	{ "ipv6 fragment header alone, held kept (ipv6_gro_receive)",
	  frame_spec_tcp6, 3, t_frag6_1, 2, "1 0,2", S(SINGLE_FRAG) },
	{ "padding flushes and goes alone (inet_gro_receive tot_len)",
	  frame_spec_tcp4, 3, t_pad_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_LEN) },
	{ "ipv6 padding flushes and goes alone (ipv6_gro_receive)",
	  frame_spec_tcp6, 3, t_pad_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_LEN) },
	{ "ip length past the frame flushes, alone (skb_gro_receive)",
	  frame_spec_tcp4, 3, t_long_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_LEN) },
	{ "ipv6 length past the frame flushes, alone (skb_gro_receive)",
	  frame_spec_tcp6, 3, t_long_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_LEN) },
	{ "padded pure ack flushes and goes alone (inet_gro_receive)",
	  frame_spec_tcp4, 3, t_pad_ack_1, 0, "0 1 2", S(SINGLE_PURE_ACK) },
	{ "reserved frag bit flushes, alone (inet_gro_receive ~IP_DF)",
	  frame_spec_tcp4, 3, t_evil_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_IP_FLAGS) },
	{ "bad ipv4 header csum alone, held kept (ip_fast_csum)",
	  frame_spec_tcp4, 3, t_bad_ip_1, 2, "1 0,2", S(CSUM_BAD) },
	{ "bad tcp csum alone, held kept (skb_gro_checksum_validate)",
	  frame_spec_tcp4, 3, t_bad_l4_1, 2, "1 0,2", S(CSUM_BAD) },
	{ "odd-length segments verify and merge (skb_gro_checksum_validate)",
	  frame_spec_tcp6, 3, t_odd, 0, "0-2", S(SEGS_MERGED) },
	{ "bad tcp csum trusted merges (CHECKSUM_UNNECESSARY)",
	  frame_spec_tcp4, 3, t_bad_l4_1, 0, "0-2", .trust = true },

	/* udp_gro_receive_segment() */
	{ "udp4 equal datagrams merge (udp_gro_receive_segment)",
	  frame_spec_udp4, 4, NULL, 0, "0-3", S(SEGS_MERGED), .udp = true },
	{ "udp6 equal datagrams merge (udp_gro_receive_segment)",
	  frame_spec_udp6, 4, NULL, 0, "0-3", S(SEGS_MERGED), .udp = true },
	{ "udp shorter merges and completes (udp_gro_receive_segment)",
	  frame_spec_udp4, 3, t_short_1, 0, "0-1 2", S(COMPLETE_SHORT),
	  .udp = true },
	{ "udp larger flushes (udp_gro_receive_segment)", frame_spec_udp4, 3,
	  t_udp_big_1, 0, "0 1-2", S(FLUSH_UDP_LEN), .udp = true },
	{ "udp 64 segments complete (UDP_GRO_CNT_MAX)", frame_spec_udp4, 66,
	  t_udp100, 0, "0-63 64-65", S(COMPLETE_SEGS), .udp = true },
	{ "udp checksum zero alone, held kept (udp_gro_receive_segment)",
	  frame_spec_udp4, 3, t_udp0_1, 2, "1 0,2", S(SINGLE_UDP_NO_CSUM),
	  .udp = true },
	{ "udp padding alone, held kept (udp_gro_receive_segment ulen)",
	  frame_spec_udp4, 3, t_pad_1, 2, "1 0,2", S(SINGLE_UDP_LEN),
	  .udp = true },
	{ "udp ip length past the frame flushes, alone (udp_gro_receive_segment)",
	  frame_spec_udp4, 3, t_long_1, 0, "0 1 2", S(FLUSH_IP_HDR),
	  S(SINGLE_LEN), .udp = true },
	{ "udp bad csum alone, held kept (udp4_gro_receive)",
	  frame_spec_udp4, 3, t_bad_l4_1, 2, "1 0,2", S(CSUM_BAD),
	  .udp = true },
	{ "udp ttl differs flushes (gro_receive_network_flush)",
	  frame_spec_udp4, 3, t_ttl_1on, 0, "0 1-2", S(FLUSH_TTL), .udp = true },
	{ "udp gro off: datagrams alone (udp_gro_receive)", frame_spec_udp4,
	  2, NULL, 0, "0 1", S(SINGLE_UDP_OFF) },

	/* Not TCP/UDP */
	{ "icmp alone (inet_gro_receive: no offload)", frame_spec_icmp4, 2,
	  NULL, 3, "0 1", S(SINGLE_NOT_TCP_UDP) },
	{ "arp alone (dev_gro_receive: no offload)", frame_spec_arp, 1, NULL,
	  1, "0", S(SINGLE_NOT_TCP_UDP) },
};

static void build_train(struct harness *h, const struct gro_case *c)
{
	struct frame_spec s;
	__u32 seq = 1000;
	__u16 id = 100;
	int i;

	for (i = 0; i < c->nr; i++) {
		c->base(&s);
		if (s.l4 == 6 || s.l4 == 17)
			s.payload_len = s.l4 == 17 ? 1000 : 1448;
		s.seq = seq;
		s.ip_id = id;
		if (c->tweak)
			c->tweak(&s, i);
		h_build(h, i, &s);
		if (i >= 64 || !(c->stray >> i & 1)) {
			seq = s.seq + s.payload_len;
			id++;
		}
	}
}

static void run_case(void **state)
{
	const struct gro_case *c = *state;
	struct xrx_engine_opts o = { .udp = c->udp,
				     .csum = c->trust ? XRX_CSUM_TRUST :
							XRX_CSUM_VERIFY,
				     .max_aggregate = c->max_aggregate };
	static int idx[H_FRAMES][H_FRAMES];
	int cnt[H_FRAMES], n, k;
	struct harness *h = h_new(&o);

	build_train(h, c);
	h_rx(h, 0, c->nr, 1);
	n = h_parse_outs(c->outs, idx, cnt);
	if (h->nr_out != n)
		fail_msg("%d packets delivered, want %d", h->nr_out, n);
	for (k = 0; k < n; k++) {
		h_assert_out(h, k, idx[k], cnt[k]);
		if (cnt[k] > 1 && !c->udp)
			assert_int_equal(!!(h->out[k].pkt.gso_flags &
					    XRX_GSO_F_FIXEDID),
					 c->fixedid);
	}
	if (c->stat && !h->stats[c->stat])
		fail_msg("counter %s is 0", xrx_engine_stat__name(c->stat));
	if (c->stat2 && !h->stats[c->stat2])
		fail_msg("counter %s is 0", xrx_engine_stat__name(c->stat2));
	h_assert_reasons_add_up(h);
	assert_int_equal(xrx_engine__held(h->e), 0);
	h_assert_released_once(h);
	h_free(h);
}

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]), i;
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0])];

	for (i = 0; i < n; i++) {
		memset(&tests[i], 0, sizeof(tests[i]));
		tests[i].name = cases[i].name;
		tests[i].test_func = run_case;
		tests[i].initial_state = (void *)&cases[i];
	}
	return h_run_group("gro rules", tests, n);
}
