#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's VXLAN GRO as the oracle: the receiving namespace has a
# VXLAN device on UDP 4789 over its veth (one per outer family), so
# udp4/6_gro_receive() finds the VXLAN socket and runs
# vxlan_gro_receive() -> eth_gro_receive() -> the inner
# inet/ipv6_gro_receive() -> tcp_gro_receive() on the veth's GRO.
# Every train of tests/tools/vxlan_trains.py (one per rule: VNI, outer
# TTL/TOS/DF/ID, outer UDP checksum zero/set/wrong, inner TCP and IP
# rules, size limit, a plain UDP datagram in between; inner TCPv4 and
# TCPv6; outer IPv4 and IPv6) goes over the veth, tcpdump records what
# GRO delivered, and build/xrx-replay --vxlan-port 4789 must deliver the
# same packets, per flow (outer flow + VNI + inner flow) and sequence
# number, every header field of both levels compared.
#
# Testbed as test_gro_oracle.sh: sender tso/gso/tx off, receiver gro on,
# threaded NAPI pinned to CPU 0 with SCHED_FIFO, sender SCHED_FIFO on CPU
# 0; frames to a MAC that is not the receiver's, so they are dropped
# after GRO. rx-udp-gro-forwarding stays off: inner UDP and plain UDP are
# not aggregated, as xrx-replay without --udp.
#
#   GRO_ORACLE_RUNS=N      kernel runs of every train (default 2)
#   GRO_ORACLE_RETRIES=N   extra runs of a train that did not match (3)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/oracle_lib.sh"

oracle_need "vxlan oracle"

WORK=$(mktemp -d /tmp/xrx-vxoracle.XXXXXX)
at_exit rm -rf "$WORK"
ok "VXLAN trains generated" $PY "$TOP/tests/tools/vxlan_trains.py" "$WORK/fixtures"

testbed_up mtu 2000 || { check "testbed" 1; done_testing; exit; }
VX=vx$$
if ! in_dut ip link add $VX type vxlan id 42 dstport 4789 local $IP4_DUT dev $IF_DUT 2>"$WORK/vxerr"; then
	skip "vxlan oracle" "no VXLAN device: $(head -1 "$WORK/vxerr") (kernel without CONFIG_VXLAN)"
	done_testing
	exit
fi
# The VXLAN socket, and with it the GRO hook, exists while the device is
# up; one device per outer family (udp4_gro_receive(), udp6_gro_receive()).
in_dut ip link set $VX up
in_dut ip link add ${VX}6 type vxlan id 42 dstport 4789 local $IP6_DUT dev $IF_DUT &&
	in_dut ip link set ${VX}6 up
check "VXLAN device over IPv6 up" $?
check "VXLAN device up on UDP 4789" \
	"$(in_dut ss -uln | grep -q ':4789 ' ; echo $?)"
oracle_receiver "vxlan oracle"

oracle_run 20 --vxlan-port 4789
done_testing
