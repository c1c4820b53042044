// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why a packet ended (include/xrx/explain.h): every reason counter of the
 * engine has words and a kernel function for every kind of packet, and
 * nothing else has; the functions named are real kernel (or xrx)
 * functions; trains through the engine get the explanation of their one
 * cause, for IPv6, UDP and the IPv4 header sum too; and the per-flow
 * summary charges each split of a flow to one reason.
 */
#include <stdbool.h>

#include <xrx/explain.h>
#include "unit/gro_harness.h"

/*
 * The functions an explanation may name: checked by hand against Linux
 * 6.18 (net/core/dev.c, net/core/gro.c, include/net/gro.h,
 * net/ipv4/af_inet.c, net/ipv4/tcp_offload.c, net/ipv4/udp_offload.c,
 * net/ipv6/ip6_offload.c, net/ipv6/tcpv6_offload.c,
 * net/ipv6/udp_offload.c, net/ethernet/eth.c,
 * drivers/net/vxlan/vxlan_core.c, drivers/net/geneve.c), and xrx's own for its own rules. A
 * misspelt name in the table fails here.
 */
static const char *const kernel_funcs[] = {
	"dev_gro_receive", "eth_gro_receive", "gro_flush_oldest",
	"inet_gro_flush", "inet_gro_receive", "ipv6_gro_flush",
	"ipv6_gro_receive", "napi_complete_done", "skb_gro_receive",
	"tcp4_gro_receive", "tcp6_gro_receive", "tcp_gro_receive",
	"udp4_gro_receive", "udp6_gro_receive", "udp_gro_receive",
	"udp_gro_receive_segment", "vxlan_gro_receive",
	"geneve_gro_receive",
	/* xrx's own */
	"max_segs", "xrx_engine__flush_all", "xrx_engine__flush_oldest",
};

static bool is_reason(const char *name)
{
	return !strncmp(name, "flush_", 6) || !strncmp(name, "complete_", 9) ||
	       !strncmp(name, "single_", 7) || !strcmp(name, "csum_bad");
}

static bool known_func(const char *f)
{
	size_t i;

	for (i = 0; i < sizeof(kernel_funcs) / sizeof(kernel_funcs[0]); i++)
		if (!strcmp(f, kernel_funcs[i]))
			return true;
	return false;
}

/* A frame as a delivered single: its bytes in head, nothing in frags. */
struct one {
	__u8 buf[256];
	struct xrx_pkt pkt;
};

static void one_build(struct one *o, void (*spec)(struct frame_spec *),
		      __u8 tcp_flags)
{
	struct frame_spec s;
	struct frame_info fi;
	int len;

	spec(&s);
	s.payload_len = 100;
	if (tcp_flags)
		s.tcp_flags = tcp_flags;
	len = frame_build_info(&s, o->buf, sizeof(o->buf), &fi);
	assert_true(len > 0);
	memset(&o->pkt, 0, sizeof(o->pkt));
	o->pkt.head = o->buf;
	o->pkt.head_len = len;
	o->pkt.len = len;
	o->pkt.l3_off = fi.l3_off;
	o->pkt.l4_off = fi.l4_off;
	o->pkt.l4_proto = s.l4;
	o->pkt.gso_segs = 1;
}

static void test_every_reason(void **state)
{
	static void (*const specs[])(struct frame_spec *) = {
		frame_spec_tcp4, frame_spec_tcp6, frame_spec_udp4,
		frame_spec_udp6, frame_spec_icmp4, frame_spec_arp,
	};
	static const __u8 flags[] = { 0, 0x02, 0x04, 0x08, 0x09, 0x20, 0x80 };
	struct xrx_why why;
	char text[XRX_EXPLAIN_MAX];
	struct one o;
	size_t k, f;
	int st, n;

	for (st = 0; st < XRX_ENGINE_STAT_MAX; st++) {
		const char *name = xrx_engine_stat__name(st);

		for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
			for (f = 0; f < sizeof(flags); f++) {
				one_build(&o, specs[k], k < 1 ? flags[f] : 0);
				o.pkt.reason = st;
				if (!is_reason(name)) {
					assert_int_equal(xrx_pkt__why(&o.pkt, &why),
							 -EINVAL);
					continue;
				}
				if (xrx_pkt__why(&o.pkt, &why))
					fail_msg("%s (packet %zu): no explanation",
						 name, k);
				assert_int_equal(why.stat, st);
				assert_true(why.kind != XRX_WHY_NONE);
				assert_true(why.what && why.what[0]);
				if (!why.func || !known_func(why.func))
					fail_msg("%s: function \"%s\" is not one of the kernel's (or xrx's) checked names",
						 name, why.func ? why.func : "");
				n = xrx_pkt__explain(&o.pkt, 65536, text,
						     sizeof(text));
				assert_true(n > 0 && n < (int)sizeof(text));
				assert_non_null(strstr(text, why.what));
			}
		}
	}
	(void)state;
}

/* Run @nr frames of @spec, @tweak applied, as one batch; keep the packets. */
static struct harness *train(void (*spec)(struct frame_spec *), int nr,
			     void (*tweak)(struct frame_spec *, int),
			     struct xrx_engine_opts *o)
{
	struct harness *h = h_new(o);
	struct frame_spec s;
	__u32 seq = 1000;
	int i;

	h->keep = 1;
	for (i = 0; i < nr; i++) {
		spec(&s);
		s.payload_len = s.l4 == 17 ? 1000 : 1448;
		s.seq = seq;
		s.ip_id = 100 + i;
		if (tweak)
			tweak(&s, i);
		h_build(h, i, &s);
		seq = s.seq + s.payload_len;
	}
	h_rx(h, 0, nr, 1);
	return h;
}

static void assert_explained(struct harness *h, int k, const char *want)
{
	char text[XRX_EXPLAIN_MAX];

	assert_true(k < h->nr_kept);
	xrx_pkt__explain(h->kept[k], 65536, text, sizeof(text));
	if (strcmp(text, want))
		fail_msg("packet %d: \"%s\", want \"%s\"", k, text, want);
}

static void done(struct harness *h)
{
	int i;

	for (i = 0; i < h->nr_kept; i++)
		xrx_pkt__release(h->e, h->kept[i]);
	h_free(h);
}

static void t_hlim(struct frame_spec *s, int i) { if (i >= 3) s->hop_limit = 63; }
static void t_tclass(struct frame_spec *s, int i) { if (i >= 3) s->tclass = 4; }
static void t_bad_l4(struct frame_spec *s, int i) { s->bad_l4_csum = i == 2; }
static void t_bad_ip(struct frame_spec *s, int i) { s->bad_ip_csum = i == 2; }
static void t_psh_0(struct frame_spec *s, int i) { if (!i) s->tcp_flags |= 0x08; }
static void t_udp_short(struct frame_spec *s, int i) { if (i == 2) s->payload_len = 100; }

/* A train whose one cause is known, and what its first packet says. */
static const struct {
	void (*spec)(struct frame_spec *);
	int nr;
	void (*tweak)(struct frame_spec *, int);
	bool udp;
	const char *want;
} trains[] = {
	{ frame_spec_tcp6, 5, t_hlim, false,
	  "3 segs; flushed: hop limit changed (ipv6_gro_flush)" },
	{ frame_spec_tcp6, 5, t_tclass, false,
	  "3 segs; flushed: traffic class changed (ipv6_gro_flush)" },
	{ frame_spec_tcp6, 4, t_bad_l4, false,
	  "1 seg; not merged: bad L4 checksum (tcp6_gro_receive)" },
	{ frame_spec_tcp4, 4, t_bad_ip, false,
	  "1 seg; not merged: bad IPv4 header checksum (inet_gro_receive)" },
	{ frame_spec_udp4, 4, t_bad_l4, true,
	  "1 seg; not merged: bad L4 checksum (udp4_gro_receive)" },
	{ frame_spec_udp4, 4, t_bad_l4, false,
	  "1 seg; not merged: UDP GRO off (udp_gro_receive)" },
	{ frame_spec_udp6, 4, t_udp_short, true,
	  "3 segs; ended: datagram shorter (udp_gro_receive_segment)" },
	/* PSH with nothing held: it ends its own packet */
	{ frame_spec_tcp4, 3, t_psh_0, false,
	  "1 seg; ended: PSH set (tcp_gro_receive)" },
	{ frame_spec_tcp4, 50, NULL, false,
	  "45 segs; flushed: size limit 65536 (skb_gro_receive)" },
};

static void test_trains(void **state)
{
	struct harness *h;
	size_t i;

	for (i = 0; i < sizeof(trains) / sizeof(trains[0]); i++) {
		struct xrx_engine_opts o = { .udp = trains[i].udp };

		h = train(trains[i].spec, trains[i].nr, trains[i].tweak, &o);
		assert_explained(h, 0, trains[i].want);
		if (i == 0)	/* the rest of the train: the batch ended */
			assert_explained(h, 1, "2 segs; flushed: batch end (napi_complete_done)");
		done(h);
	}
	(void)state;
}

/* The summary of @h's packets, as JSON, in a string to free(). */
static char *summary(struct harness *h)
{
	struct xrx_explain *x = xrx_explain__new(65536);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	assert_non_null(x);
	for (i = 0; i < h->nr_kept; i++)
		assert_int_equal(xrx_explain__add(x, h->kept[i]), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(xrx_explain__print(x, f, true), 0);
	fclose(f);
	xrx_explain__free(x);
	return buf;
}

static void t_win(struct frame_spec *s, int i) { if (i >= 2 && i < 4) s->window = 9000; }
static void t_syn(struct frame_spec *s, int i) { if (i == 2) s->tcp_flags = 0x12; }

static void assert_has(const char *json, const char *want)
{
	if (!strstr(json, want))
		fail_msg("summary lacks %s:\n%s", want, json);
}

static void test_summary_cost(void **state)
{
	struct xrx_engine_opts o = { 0 };
	struct harness *h;
	char *j;

	/* 0-1 | 2-3 | 4-5: two window flushes, each cost one split; the
	 * batch end ended the last packet: nothing came after it */
	h = train(frame_spec_tcp4, 6, t_win, &o);
	j = summary(h);
	assert_has(j, "\"segs_in\": 6, \"pkts_out\": 3");
	assert_has(j, "\"reason\": \"flush_window\", \"kind\": \"flushed\", \"text\": \"flushed: window changed (tcp_gro_receive)\", \"func\": \"tcp_gro_receive\", \"packets\": 2, \"cost\": 2}");
	assert_has(j, "\"reason\": \"flush_batch_end\", \"kind\": \"flushed\", \"text\": \"flushed: batch end (napi_complete_done)\", \"func\": \"napi_complete_done\", \"packets\": 1, \"cost\": 0}");
	free(j);
	done(h);
	/* 0-1 | SYN | 3-4: both splits are the SYN's; the flag flush it
	 * caused costs nothing of its own */
	h = train(frame_spec_tcp4, 5, t_syn, &o);
	j = summary(h);
	assert_has(j, "\"reason\": \"single_tcp_flags\", \"kind\": \"not merged\", \"text\": \"not merged: SYN set (tcp_gro_receive)\", \"func\": \"tcp_gro_receive\", \"packets\": 1, \"cost\": 2}");
	assert_has(j, "\"reason\": \"flush_flags\", \"kind\": \"flushed\", \"text\": \"flushed: TCP flags or header length changed (tcp_gro_receive)\", \"func\": \"tcp_gro_receive\", \"packets\": 1, \"cost\": 0}");
	free(j);
	done(h);
	/* 45 | 5: the size limit costs nothing */
	h = train(frame_spec_tcp4, 50, NULL, &o);
	j = summary(h);
	assert_has(j, "\"text\": \"flushed: size limit 65536 (skb_gro_receive)\", \"func\": \"skb_gro_receive\", \"packets\": 1, \"cost\": 0}");
	assert_has(j, "\"cost\": 0, \"reasons\"");
	free(j);
	done(h);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_reason),
		cmocka_unit_test(test_trains),
		cmocka_unit_test(test_summary_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
