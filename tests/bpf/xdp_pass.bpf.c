// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Passes every frame, nothing else. The IPv6 BIG TCP kernel oracle
 * (tests/integration/test_gro_oracle_big6.sh) attaches it natively to the
 * receiving veth. Without a program, the skbs an AF_PACKET sender makes
 * have 2 bytes of headroom in front of the Ethernet header
 * (LL_RESERVED_SPACE 16 - ETH_HLEN), short of the 8 that
 * ipv6_gro_complete() moves the headers by for the jumbo option, and GRO
 * stops every IPv6 aggregate at 64 KiB (skb_gro_receive()'s
 * GRO_LEGACY_MAX_SIZE branch); with one, veth_xdp_rcv_skb() rebuilds each
 * skb with XDP_PACKET_HEADROOM (256) and aggregates grow to gro_max_size.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
