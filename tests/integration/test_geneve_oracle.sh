#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's GENEVE GRO as the oracle, as test_vxlan_oracle.sh does for
# VXLAN: the receiving namespace has a GENEVE device in external
# (collect_md) mode, whose UDP sockets on 6081 (IPv4 and IPv6) carry
# geneve_gro_receive(), so udp4/6_gro_receive() runs it on the veth's
# GRO. Every train of tests/tools/geneve_trains.py (options equal, other
# bytes, other length, none; critical bit; OAM; version; protocol types;
# VNI; outer and inner rules; outer IPv4 and IPv6) goes over the veth,
# tcpdump records what GRO delivered, and build/xrx-replay
# --geneve-port 6081 must deliver the same packets, every header field
# of both levels compared. A train where xrx differs knowingly says so
# (geneve_trains.py DOCUMENTED).
#
# Needs the geneve module: kernels without it (this project's 6.18 test
# host) SKIP, and the QEMU guests of the kernel matrix run it
# (tests/kernels/modules.sh).
#
#   GRO_ORACLE_RUNS=N      kernel runs of every train (default 2)
#   GRO_ORACLE_RETRIES=N   extra runs of a train that did not match (3)
#   ORACLE_FIXTURES=DIR    the trains made beforehand (oracle_lib.sh)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/oracle_lib.sh"

oracle_need "geneve oracle"

WORK=$(mktemp -d /tmp/xrx-gnoracle.XXXXXX)
at_exit rm -rf "$WORK"
oracle_fixtures "GENEVE trains generated" \
	$PY "$TOP/tests/tools/geneve_trains.py" "$WORK/fixtures"

testbed_up mtu 2000 || { check "testbed" 1; done_testing; exit; }
GN=gn$$
if ! in_dut ip link add $GN type geneve external dstport 6081 2>"$WORK/gnerr"; then
	skip "geneve oracle" "no GENEVE device: $(head -1 "$WORK/gnerr") (kernel without the geneve module)"
	done_testing
	exit
fi
# The sockets, and with them the GRO hook, exist while the device is up.
in_dut ip link set $GN up
check "GENEVE device up on UDP 6081" \
	"$(in_dut ss -uln | grep -q ':6081 ' ; echo $?)"
oracle_receiver "geneve oracle"

oracle_run 25 --geneve-port 6081
done_testing
