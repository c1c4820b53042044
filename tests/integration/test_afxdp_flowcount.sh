#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# examples/flowcount on a veth: two flows of known size must be counted
# exactly (segments and wire bytes), a third port without a rule not at
# all.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
FC=$BUILD/examples/flowcount
need_built "$FC"
testbed_up || { check "testbed" 1; done_testing; exit 1; }

# Counting until SIGTERM (bounded by -t 60), from the line that says it
# counts: nothing here depends on how fast the machine is.
bg_dut "$FC" -i $IF_DUT -p 5001 -t 60 >$WORK/fc.out 2>$WORK/fc.err
pid=$!
at_exit "kill $pid"
wait_for 20 grep -q "counting on" $WORK/fc.err
send --flows 2 --segs 30 --mss 1000
send --udp --sport 42000 --flows 1 --segs 10 --mss 500
send --dport 5002 --flows 1 --segs 5 --mss 100
# Once xrx_rx has redirected the 70 frames of port 5001 they are on the
# sockets' rings, and stopping drains the rings through the engines.
redirected() { in_dut ethtool -S $IF_DUT | awk '$1 == "rx_queue_0_xdp_redirect:" { print $2 }'; }
wait_for 20 eval '[ "$(redirected)" -ge 70 ]'
diag "xrx_rx redirected $(redirected) frames"
kill -TERM $pid
wait $pid
check "flowcount ran and exited" $?
diag "$(cat $WORK/fc.out)"
# Wire bytes of a segment: 14 + 20 + 20 + payload (TCP), 14 + 20 + 8 (UDP).
grep -qE '^tcp +198\.18\.0\.1 +40000 +198\.18\.0\.2 +5001 +[0-9]+ +30 +31620$' $WORK/fc.out &&
	grep -qE '^tcp +198\.18\.0\.1 +40001 +198\.18\.0\.2 +5001 +[0-9]+ +30 +31620$' $WORK/fc.out
check "both TCP flows: 30 segments, 31620 bytes" $?
grep -qE '^udp +198\.18\.0\.1 +42000 +198\.18\.0\.2 +5001 +[0-9]+ +10 +5420$' $WORK/fc.out
check "the UDP flow: 10 datagrams, 5420 bytes" $?
! grep -q ' 5002 ' $WORK/fc.out
check "port 5002 (no rule) not counted" $?
done_testing
