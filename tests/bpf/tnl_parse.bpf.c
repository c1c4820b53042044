// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test-only XDP program: the BPF build of the VXLAN parser
 * (include/xrx/parse_tunnel.h), read the way xrx_rx reads a frame. The
 * outer headers and the inner frame are parsed in place when the linear
 * area holds them, and otherwise from a bpf_xdp_load_bytes() copy of the
 * window, in a subprogram of its own as in xrx_rx. Every outer TCP/UDP
 * frame is tried as VXLAN, whatever its port (the port is the caller's
 * choice; the parser does not look at it).
 *
 * The whole result (struct tnl_out) goes into the one entry of tnl_out,
 * which test_parse_diff.c compares field by field with userspace
 * xrx_parse() and xrx_parse_vxlan() on the same bytes. Returns XDP_PASS.
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

/* Outer and inner parse from a copy of the window. */
static __noinline int parse_copy(struct xdp_md *ctx, __u32 wire,
				 struct tnl_out *o)
{
	struct tnl_scratch *s;
	__u32 len, zero = 0;

	s = bpf_map_lookup_elem(&tnl_scratch, &zero);
	if (!s)
		return -1;
	if (wire >= XRX_PARSE_WINDOW)
		len = XRX_PARSE_WINDOW;
	else
		len = wire & (XRX_PARSE_WINDOW - 1);
	if (len < XRX_ETH_HLEN || bpf_xdp_load_bytes(ctx, 0, s->buf, len))
		return -1;
	xrx_parse(s->buf, len, wire, &o->outer);
	o->tnl = xrx_parse_vxlan(s->buf, len, wire, &o->outer, &o->t);
	return 0;
}

SEC("xdp.frags")
int tnl_parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 wire, win, len, zero = 0;
	struct tnl_out *o;
	__u64 linear;
	int res;

	o = bpf_map_lookup_elem(&tnl_out, &zero);
	if (!o)
		return XDP_ABORTED;
	wire = bpf_xdp_get_buff_len(ctx);
	win = wire < XRX_PARSE_WINDOW ? wire : XRX_PARSE_WINDOW;
	linear = data_end - data;
	o->path = TNL_PATH_NONE;
	if (linear >= XRX_ETH_HLEN) {
		len = linear < win ? linear : win;
		res = xrx_parse_pkt(data, data_end, len, wire, &o->outer);
		if (res != XRX_PARSE_TOO_LONG || len >= win) {
			o->tnl = xrx_parse_vxlan_pkt(data, data_end, len, wire,
						     &o->outer, &o->t);
			/* The inner headers run into a fragment, or the
			 * VXLAN header does (too short for the packet
			 * window but maybe not for the frame): copy. */
			if ((o->tnl == XRX_TNL_VXLAN &&
			     o->t.inner.result == XRX_PARSE_TOO_LONG &&
			     len < win) ||
			    (o->tnl == XRX_TNL_SHORT && len < win))
				res = -1;
			else
				o->path = TNL_PATH_LINEAR;
		} else {
			res = -1;
		}
	} else {
		res = -1;
	}
	if (res < 0) {
		if (parse_copy(ctx, wire, o))
			return XDP_ABORTED;
		o->path = TNL_PATH_COPY;
	}
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
