// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test-only XDP programs: the BPF builds of the VXLAN parser
 * (include/xrx/parse_tunnel.h) on both kinds of window. tnl_parse_pkt
 * parses the outer headers and the inner frame in place, from the linear
 * area (every read checked against data_end); tnl_parse_copy parses them
 * from a bpf_xdp_load_bytes() copy of the window, which is how xrx_rx
 * reads the inner frame. Two programs rather than one with both paths:
 * the verifier's work on four inlined copies of the parser came to 790k
 * of its 1M instructions. Every outer UDP frame is tried as VXLAN,
 * whatever its port (the port is the caller's choice; the parser does
 * not look at it).
 *
 * The whole result (struct tnl_out) goes into the one entry of tnl_out,
 * which test_parse_diff.c compares field by field with userspace
 * xrx_parse() and xrx_parse_vxlan() on the same bytes. Neither side
 * hashes: the hash is a function of the fields compared and the key
 * (SipHash in BPF is held to userspace through xrx_rx's metadata), and
 * hashing in the parse took the packet build past the verifier's 1M
 * instructions. Return: XDP_PASS.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include <xrx/parse.h>
#include <xrx/parse_tunnel.h>

#include "bpf/tnl_parse.h"

struct tnl_scratch {
	__u8 buf[XRX_TNL_SCRATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tnl_out);
} tnl_out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tnl_scratch);
} tnl_scratch SEC(".maps");

/*
 * The two parses in place, each a BPF subprogram of its own: inlined into
 * one, the verifier's walk of the program came near its 1M-instruction
 * limit, crossing it or not as small changes to the parser happened to
 * prune; apart, each return point merges what the parse's paths left.
 */
static __noinline int outer_pkt(struct xdp_md *ctx, __u32 len, __u32 wire,
				struct xrx_parsed *r)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	return xrx_parse_pkt(data, data_end, len, wire, r);
}

static __noinline int vxlan_pkt(struct xdp_md *ctx, __u32 len, __u32 wire,
				const struct xrx_parsed *outer,
				struct xrx_tnl_parsed *t)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	return xrx_parse_vxlan_pkt(data, data_end, len, wire, outer, t);
}

/*
 * In place: the outer headers, the VXLAN header and the inner frame read
 * from the linear area. When any of them runs past it (the window is
 * shorter than min(wire, XRX_PARSE_WINDOW) and the parse says
 * XRX_PARSE_TOO_LONG or XRX_TNL_SHORT), the path is TNL_PATH_NONE: the
 * frame needs the copy, which tnl_parse_copy parses.
 */
SEC("xdp.frags")
int tnl_parse_pkt(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 wire, win, len, zero = 0;
	struct tnl_out *o;
	__u64 linear;

	o = bpf_map_lookup_elem(&tnl_out, &zero);
	if (!o)
		return XDP_ABORTED;
	wire = bpf_xdp_get_buff_len(ctx);
	win = wire < XRX_PARSE_WINDOW ? wire : XRX_PARSE_WINDOW;
	linear = data_end - data;
	o->path = TNL_PATH_NONE;
	if (linear < XRX_ETH_HLEN)
		return XDP_PASS;
	len = linear < win ? linear : win;
	if (outer_pkt(ctx, len, wire, &o->outer) ==
		    XRX_PARSE_TOO_LONG && len < win)
		return XDP_PASS;
	o->tnl = vxlan_pkt(ctx, len, wire, &o->outer, &o->t);
	if (len < win && (o->tnl == XRX_TNL_SHORT ||
			  (o->tnl == XRX_TNL_VXLAN &&
			   o->t.inner.result == XRX_PARSE_TOO_LONG)))
		return XDP_PASS;
	o->path = TNL_PATH_LINEAR;
	return XDP_PASS;
}

/* From a copy of the window made with bpf_xdp_load_bytes(), as xrx_rx's
 * parse_copy() and parse_vxlan_copy() read it. */
SEC("xdp.frags")
int tnl_parse_copy(struct xdp_md *ctx)
{
	struct tnl_scratch *s;
	struct tnl_out *o;
	__u32 wire, len, zero = 0;

	o = bpf_map_lookup_elem(&tnl_out, &zero);
	s = bpf_map_lookup_elem(&tnl_scratch, &zero);
	if (!o || !s)
		return XDP_ABORTED;
	wire = bpf_xdp_get_buff_len(ctx);
	if (wire >= XRX_PARSE_WINDOW)
		len = XRX_PARSE_WINDOW;
	else
		len = wire & (XRX_PARSE_WINDOW - 1);
	if (len < XRX_ETH_HLEN || bpf_xdp_load_bytes(ctx, 0, s->buf, len))
		return XDP_ABORTED;
	xrx_parse_copy(s->buf, len, wire, &o->outer);
	o->tnl = xrx_parse_vxlan_copy(s->buf, len, wire, &o->outer, &o->t);
	o->path = TNL_PATH_COPY;
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
