// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Differential test, VXLAN: libxrx's tunnel GRO (the kernel's rules,
 * checked against Linux by test_vxlan_oracle.sh) against DPDK 22.11's
 * lib/gro/gro_vxlan_tcp4.c on VXLAN trains with inner TCP/IPv4.
 *
 * Where the two agree the aggregates must be the same: segment counts,
 * lengths and every byte except the four checksum fields (rte_gro
 * recomputes none; xrx leaves the IPv4 header checksums valid and the
 * pseudo-header sums in the outer UDP and inner TCP checksums, as
 * udp4_gro_complete() and tcp4_gro_complete() do). Where they differ each
 * case asserts the documented difference, so the test fails when either
 * side changes its rules:
 *
 *   gro_vxlan_tcp4                     the kernel (so xrx)
 *   outer TTL/TOS not compared         inet_gro_flush(): flush
 *   outer DF set: outer ID ignored     outer ID fixed or +1, DF or not
 *   outer UDP checksum ignored         zero vs non-zero: another flow
 *   only ACK: PSH not merged, the      PSH merges and ends the aggregate
 *   segment stays alone
 * and they agree on: contiguous merge, VNI and inner ACK change (another
 * flow in DPDK's key, a flush in the kernel: the same packets here),
 * outer DF change.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_gro.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <xrx/engine.h>

#include "util/frames.h"
#include "util/vxlan_frames.h"
#include "util/dpdk_env.h"

#define NSEGS 8
#define SLOT 2048
#define MAX_OUT (2 * NSEGS)
#define PAYLOAD 1000

/* Checksum fields: outer IPv4, outer UDP, inner IPv4, inner TCP. */
static const __u32 csum_at[] = { 24, 40, 74, 100 };

static struct rte_mempool *pool;

struct out {
	__u8 *data;
	__u32 len;
	__u32 segs;
};

struct result {
	struct out o[MAX_OUT];
	int n;
};

struct vcase {
	const char *name;
	/* Change segment @k's inner spec and outer headers. */
	void (*mod)(int k, struct frame_spec *in, struct vxlan_outer *o);
	int xrx[MAX_OUT];	/* segments per aggregate, by inner seq */
	int dpdk[MAX_OUT];	/* the same for rte_gro; {0}: as xrx */
};

struct train {
	__u8 region[NSEGS * SLOT];
	__u32 len[NSEGS];
};

static void build(struct train *t, const struct vcase *c)
{
	struct frame_spec in;
	struct vxlan_outer o;
	int k, len;

	for (k = 0; k < NSEGS; k++) {
		frame_spec_tcp4(&in);
		in.seq = 1000 + k * PAYLOAD;
		in.payload_len = PAYLOAD;
		in.ip_id = 100 + k;
		vxlan_outer_default(&o, 500 + k);
		if (c->mod)
			c->mod(k, &in, &o);
		len = vxlan_frame_build(&in, &o, t->region + k * SLOT, SLOT,
					NULL);
		assert_true(len > 0);
		t->len[k] = len;
	}
}

static __u32 inner_seq(const struct out *o)
{
	const __u8 *p = o->data + 50 + 14 + 20 + 4;

	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | p[2] << 8 | p[3];
}

static int out_cmp(const void *x, const void *y)
{
	__u32 a = inner_seq(x), b = inner_seq(y);

	return a < b ? -1 : a > b;
}

static void add(struct result *r, const __u8 *data, __u32 len, __u32 segs)
{
	struct out *o;

	assert_true(r->n < MAX_OUT);
	o = &r->o[r->n++];
	o->data = malloc(len);
	assert_non_null(o->data);
	memcpy(o->data, data, len);
	o->len = len;
	o->segs = segs;
}

static void result_free(struct result *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->o[i].data);
	r->n = 0;
}

/* ---- rte_gro ----------------------------------------------------------- */

static void dpdk_run(const struct train *t, struct result *r)
{
	static __u8 lin[RTE_MBUF_DEFAULT_BUF_SIZE * NSEGS];
	struct rte_gro_param param = {
		.gro_types = RTE_GRO_IPV4_VXLAN_TCP_IPV4,
		.max_flow_num = 64,
		.max_item_per_flow = 64,
	};
	struct rte_mbuf *pkts[NSEGS];
	const void *p;
	int k, n;

	for (k = 0; k < NSEGS; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		assert_non_null(m);
		p = rte_pktmbuf_append(m, t->len[k]);
		assert_non_null(p);
		memcpy((void *)p, t->region + k * SLOT, t->len[k]);
		dpdk_mbuf_vxlan_tcp4(m,
			(t->region[k * SLOT + 50 + 34 + 12] >> 4) * 4);
		pkts[k] = m;
	}
	n = rte_gro_reassemble_burst(pkts, NSEGS, &param);
	for (k = 0; k < n; k++) {
		assert_true(pkts[k]->pkt_len <= sizeof(lin));
		p = rte_pktmbuf_read(pkts[k], 0, pkts[k]->pkt_len, lin);
		assert_non_null(p);
		add(r, p, pkts[k]->pkt_len, pkts[k]->nb_segs);
		rte_pktmbuf_free(pkts[k]);
	}
	qsort(r->o, r->n, sizeof(r->o[0]), out_cmp);
}

/* ---- xrx ------------------------------------------------------------- */

static struct result *xrx_result;
static struct xrx_engine *xrx_e;

static void xrx_deliver(void *ctx, struct xrx_pkt *pkt)
{
	static __u8 lin[XRX_AGGREGATE_DEFAULT + XRX_HEAD_SIZE];
	__u32 i, off = pkt->head_len;

	assert_true(pkt->len <= sizeof(lin));
	memcpy(lin, pkt->head, pkt->head_len);
	for (i = 0; i < pkt->nr_frags; i++) {
		memcpy(lin + off, pkt->frags[i].data, pkt->frags[i].len);
		off += pkt->frags[i].len;
	}
	add(xrx_result, lin, off, pkt->gso_segs);
	xrx_pkt__release(xrx_e, pkt);
	(void)ctx;
}

static void xrx_run(struct train *t, struct result *r)
{
	struct xrx_engine_opts o = {
		.sz = sizeof(o),
		.region = t->region,
		.region_size = sizeof(t->region),
		.deliver = xrx_deliver,
		.nr_vxlan_ports = 1,
		.vxlan_ports = { VXLAN_FRAME_PORT },
	};
	struct xrx_frame f[NSEGS];
	int k;

	memset(f, 0, sizeof(f));
	for (k = 0; k < NSEGS; k++) {
		f[k].addr = (__u64)k * SLOT;
		f[k].len = t->len[k];
	}
	xrx_result = r;
	xrx_e = xrx_engine__new(&o);
	assert_non_null(xrx_e);
	assert_int_equal(xrx_engine__rx(xrx_e, f, NSEGS, 1), NSEGS);
	xrx_engine__free(xrx_e);
	qsort(r->o, r->n, sizeof(r->o[0]), out_cmp);
}

/* ---- cases ----------------------------------------------------------- */

static void assert_segs(const char *who, const struct result *r,
			const int *want)
{
	char got[128] = "", exp[128] = "";
	int i, n = 0, ok;

	while (n < MAX_OUT && want[n])
		n++;
	ok = r->n == n;
	for (i = 0; i < r->n; i++) {
		snprintf(got + strlen(got), sizeof(got) - strlen(got), " %u",
			 r->o[i].segs);
		if (i < n && (int)r->o[i].segs != want[i])
			ok = 0;
	}
	for (i = 0; i < n; i++)
		snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp), " %d",
			 want[i]);
	if (!ok)
		fail_msg("%s: aggregates of [%s ] segments, want [%s ]", who,
			 got, exp);
}

/* Same packets, byte for byte but for the checksum fields. */
static void assert_same(const struct result *x, const struct result *d)
{
	__u32 b, k;
	int j;

	assert_int_equal(x->n, d->n);
	for (j = 0; j < x->n; j++) {
		const struct out *a = &x->o[j], *o = &d->o[j];

		assert_int_equal(a->len, o->len);
		for (b = 0; b < a->len; b++) {
			for (k = 0; k < 4; k++)
				if (b == csum_at[k] || b == csum_at[k] + 1)
					break;
			if (k == 4 && a->data[b] != o->data[b])
				fail_msg("packet %d byte %u: xrx 0x%02x, rte_gro 0x%02x",
					 j, b, a->data[b], o->data[b]);
		}
	}
}

static void run_case(void **state)
{
	const struct vcase *c = *state;
	static struct train t;
	struct result x = { .n = 0 }, d = { .n = 0 };

	build(&t, c);
	xrx_run(&t, &x);
	dpdk_run(&t, &d);
	assert_segs("xrx", &x, c->xrx);
	if (c->dpdk[0]) {
		assert_segs("rte_gro", &d, c->dpdk);
	} else {
		assert_segs("rte_gro", &d, c->xrx);
		assert_same(&x, &d);
	}
	result_free(&x);
	result_free(&d);
}

static void mod_ttl(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		o->ttl = 63;
	(void)in;
}

static void mod_tos(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		o->tos = 0x10;
	(void)in;
}

static void mod_id_random_df(int k, struct frame_spec *in,
			     struct vxlan_outer *o)
{
	o->ipid = (__u16)(k * 7919 + 3);
	(void)in;
}

static void mod_id_jump_nodf(int k, struct frame_spec *in,
			     struct vxlan_outer *o)
{
	o->no_df = 1;
	if (k >= 4)
		o->ipid += 100;
	(void)in;
}

static void mod_csum_zero(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		o->csum_zero = 1;
	(void)in;
}

static void mod_psh(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k == 3)
		in->tcp_flags |= 0x08;
	(void)o;
}

static void mod_vni(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		o->vni = 43;
	(void)in;
}

static void mod_ack(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		in->ack += 1000;
	(void)o;
}

static void mod_df(int k, struct frame_spec *in, struct vxlan_outer *o)
{
	if (k >= 4)
		o->no_df = 1;
	(void)in;
}

static void mod_csum_zero_all(int k, struct frame_spec *in,
			      struct vxlan_outer *o)
{
	o->csum_zero = 1;
	(void)k;
	(void)in;
}

static const struct vcase cases[] = {
	{ "contiguous", NULL, { 8 }, { 0 } },
	{ "outer_csum_zero", mod_csum_zero_all, { 8 }, { 0 } },
	{ "vni_change", mod_vni, { 4, 4 }, { 0 } },
	{ "inner_ack_change", mod_ack, { 4, 4 }, { 0 } },
	{ "outer_df_change", mod_df, { 4, 4 }, { 0 } },
	{ "outer_id_jump_no_df", mod_id_jump_nodf, { 4, 4 }, { 0 } },
	/* The documented differences. */
	{ "outer_ttl_change", mod_ttl, { 4, 4 }, { 8 } },
	{ "outer_tos_change", mod_tos, { 4, 4 }, { 8 } },
	{ "outer_id_random_df", mod_id_random_df,
	  { 1, 1, 1, 1, 1, 1, 1, 1 }, { 8 } },
	{ "outer_csum_zero_vs_set", mod_csum_zero, { 4, 4 }, { 8 } },
	{ "inner_psh", mod_psh, { 4, 4 }, { 3, 1, 4 } },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static int group_setup(void **state)
{
	pool = rte_pktmbuf_pool_create("xrx_gro_vxlan", 255, 0, 0,
				       RTE_PKTMBUF_HEADROOM + SLOT,
				       SOCKET_ID_ANY);
	if (!pool) {
		print_message("# rte_pktmbuf_pool_create: %s\n",
			      rte_strerror(rte_errno));
		return -1;
	}
	(void)state;
	return 0;
}

static int group_teardown(void **state)
{
	rte_mempool_free(pool);
	(void)state;
	return 0;
}

int main(void)
{
	struct CMUnitTest tests[NR_CASES];
	unsigned int i;
	int rc;

	for (i = 0; i < NR_CASES; i++)
		tests[i] = (struct CMUnitTest){
			.name = cases[i].name,
			.test_func = run_case,
			.initial_state = (void *)&cases[i],
		};
	rc = dpdk_env_init(128, -1);
	if (rc) {
		printf("1..1\nok 1 # SKIP DPDK EAL did not start (%s); "
		       "rte_gro cannot run in this process\n", strerror(-rc));
		return 0;
	}
	rc = _cmocka_run_group_tests("gro_dpdk_vxlan", tests, NR_CASES,
				     group_setup, group_teardown);
	dpdk_env_fini();
	return rc;
}
