#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Two RX queues, two workers, two engines: a veth with two queues on
# each side. veth hands a frame to the peer's RX queue numbered like the
# transmit queue it was sent on, and an AF_PACKET sender's transmit queue
# is its CPU modulo the queues (packet_pick_tx_queue() records it as the
# skb's rx queue, which skb_tx_hash() then returns): 8 flows are sent
# from CPU 0 and 8 from CPU 1. Each worker writes its own pcap (rx.pcap.q0, .q1): both
# must carry traffic, no flow may appear on both queues, and together
# they must hold exactly one aggregate per flow and train with every
# payload byte.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
testbed_up numrxqueues 2 numtxqueues 2 || { check "testbed" 1; done_testing; exit 1; }

rx_start -Q 2 -c 0,1 -p 5001 -s pcap:$WORK/rx.pcap,perqueue -T 20000 -t 40
check "live_rx on queues 0 and 1, workers pinned to CPUs 0 and 1" $?

send_on() {
	local cpu=$1
	shift
	in_src taskset -c $cpu "$XRX_SEND" -i $IF_SRC --dmac "$(dut_mac)" "$@"
}
send_on 0 --sport 40000 --flows 8 --segs 20 --trains 2 --gap-us 50000 -w $WORK/tx0.pcap &
p0=$!
send_on 1 --sport 41000 --flows 8 --segs 20 --trains 2 --gap-us 50000 -w $WORK/tx1.pcap
r1=$?
wait $p0
[ $? = 0 ] && [ $r1 = 0 ]
check "sent 16 flows x 2 trains x 20 segments from CPUs 0 and 1" $?
sleep 0.3
rx_stop
check "live_rx stopped cleanly" $?
rx_meta_check
grep -q '^check ok' "$RX_OUT"
check "frame ownership invariant holds on both queues ($(grep '^check' "$RX_OUT"))" $?

q0=$(awk '$1 == "q0" { print $3 }' "$RX_OUT")
q1=$(awk '$1 == "q1" { print $3 }' "$RX_OUT")
diag "queue 0: ${q0:-0} frames, queue 1: ${q1:-0} frames"
[ "${q0:-0}" -gt 0 ] && [ "${q1:-0}" -gt 0 ] && [ $((q0 + q1)) = 640 ]
check "both queues received frames, 640 in all" $?

$PY -c '
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
q = [set(p["key"] for p in xrxpcap.packets("%s/rx.pcap.q%d" % (w, i))) for i in (0, 1)]
both = q[0] & q[1]
if both:
    print("flows on both queues:", sorted(both)); sys.exit(1)
xrxpcap.write_pcap(w + "/rx.pcap", [f for i in (0, 1) for f, _ in xrxpcap.read_pcap("%s/rx.pcap.q%d" % (w, i))])
xrxpcap.write_pcap(w + "/tx.pcap", [f for i in (0, 1) for f, _ in xrxpcap.read_pcap("%s/tx%d.pcap" % (w, i))])' \
	"$TOP/tests/tools" "$WORK"
check "each flow stayed on one queue (one engine per flow)" $?
n=$($PY "$XRXPCAP" summary $WORK/rx.pcap | grep -c 'len 28960')
[ "$n" = 32 ] && [ "$(rxstat engine pkts_out)" = 32 ]
check "one 20-segment aggregate per flow and train ($n of 32)" $?
out=$($PY "$XRXPCAP" check-payload $WORK/tx.pcap $WORK/rx.pcap 2>&1)
check "every flow's payload arrived byte for byte" $?
[ -n "$out" ] && diag "$out"

done_testing
