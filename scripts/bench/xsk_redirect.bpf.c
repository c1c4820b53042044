// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor xrx_rx is measured against: what any AF_XDP receiver must at
 * least run per frame, a redirect into the queue's XSKMAP slot.
 * Benchmark only; not a product program.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} bench_xsks SEC(".maps");

SEC("xdp.frags")
int xsk_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&bench_xsks, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
