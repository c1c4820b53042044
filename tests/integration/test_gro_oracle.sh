#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's own GRO as the oracle: every crafted train of
# scripts/gen-fixtures.py goes over a veth into a receiver with GRO on
# (threaded NAPI pinned to CPU 0, sender SCHED_FIFO on CPU 0, so one poll
# sees the whole train), tcpdump records what GRO delivered, and
# build/xrx-replay must deliver the same packets: per flow, the same
# payload boundaries (aggregate sizes), payload bytes and header fields.
#
# Sender: tso/gso/tx off (veth hands skbs to the peer's GRO only without
# TSO). Receiver: gro on, rx-udp-gro-forwarding on (UDP GRO without a
# socket, the udp_gro_receive_segment() rules xrx's --udp follows).
# Frames go to a MAC that is not the receiver's, so they are dropped
# after GRO instead of being answered. The real capture in tests/fixtures
# is compared too, cut into trains of 64 frames.
#
#   GRO_ORACLE_RUNS=N      kernel runs of every train (default 2)
#   GRO_ORACLE_RETRIES=N   extra runs of a train that did not match (3)
#   GRO_ORACLE_ONLY="A B"  only these trains (and no real capture)
#   ORACLE_FIXTURES=DIR    the trains made beforehand (oracle_lib.sh)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/oracle_lib.sh"

oracle_need "gro oracle"

WORK=$(mktemp -d /tmp/xrx-oracle.XXXXXX)
at_exit rm -rf "$WORK"
# Only the trains compared, else all.
oracle_fixtures "fixtures generated" \
	$PY "$TOP/scripts/gen-fixtures.py" "$WORK/fixtures" ${GRO_ORACLE_ONLY:-}

testbed_up mtu 2000 || { check "testbed" 1; done_testing; exit; }
if ! in_dut ethtool -K $IF_DUT rx-udp-gro-forwarding on >/dev/null 2>&1; then
	diag "rx-udp-gro-forwarding not available: UDP trains will show no kernel UDP GRO"
fi
oracle_receiver "gro oracle"

min=20
[ -n "${GRO_ORACLE_ONLY:-}" ] && min=$(echo $GRO_ORACLE_ONLY | wc -w)
oracle_run $min ${GRO_ORACLE_ONLY:+--only $GRO_ORACLE_ONLY} \
	${GRO_ORACLE_ONLY:---capture "$TOP/tests/fixtures/iperf3-tcp4.pcap"}
done_testing
