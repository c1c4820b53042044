#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# MTU 9000 over AF_XDP multi-buffer: a 9014-byte frame does not fit a
# 4 KiB UMEM frame, so the kernel hands it over in three chunks
# (XDP_USE_SG, XDP_PKT_CONTD). The chunks must reach the engine as one
# frame, jumbo segments must aggregate, every payload byte must arrive,
# and every chunk must be given back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
testbed_up || { check "testbed" 1; done_testing; exit 1; }
in_src ip link set dev $IF_SRC mtu 9000 && in_dut ip link set dev $IF_DUT mtu 9000
check "MTU 9000 on both ends" $?

rx_start -p 5001 -s pcap:$WORK/rx.pcap -T 20000 -t 40
check "live_rx opened $IF_DUT" $?
if ! grep -q 'multi-buffer' "$RX_ERR"; then
	skip "jumbo frames over AF_XDP" "this kernel refuses XDP_USE_SG on $IF_DUT"
	rx_stop
	done_testing
	exit 0
fi

send --flows 4 --segs 7 --mss 8960 -w $WORK/tx4.pcap &&
	send --src $IP6_SRC --dst $IP6_DUT --sport 41000 --flows 2 --segs 7 --mss 8940 -w $WORK/tx6.pcap
check "sent 28 IPv4 and 14 IPv6 jumbo segments" $?
sleep 0.3
rx_stop
check "live_rx stopped cleanly" $?
rx_meta_check
grep -q '^check ok' "$RX_OUT"
check "every chunk accounted for ($(grep '^check' "$RX_OUT"))" $?
diag "rx_descs $(rxstat live rx_descs) rx_frames $(rxstat live rx_frames) rx_chains $(rxstat live rx_chains) chain_drops $(rxstat live rx_chain_drops) released $(rxstat engine frames_released)"
[ "$(rxstat live rx_frames)" = 42 ] && [ "$(rxstat live rx_chains)" = 42 ] &&
	[ "$(rxstat live rx_descs)" = 126 ]
check "42 frames arrived as 126 chunks, three per frame" $?
[ "$(rxstat engine frames_released)" = 126 ] && [ "$(rxstat live rx_chain_drops)" = 0 ]
check "every chunk released once (126)" $?
[ "$(rxstat engine payload_bytes_copied)" = 0 ]
check "no payload byte copied" $?

$PY "$XRXPCAP" summary $WORK/rx.pcap >$WORK/summary
n4=$(grep -c 'IPv4 tcp .* len 62720' $WORK/summary)
n6=$(grep -c 'IPv6 tcp .* len 62580' $WORK/summary)
[ "$n4" = 4 ] && [ "$n6" = 2 ] && [ "$(wc -l <$WORK/summary)" = 6 ]
check "jumbo segments aggregate: one 7-segment packet per flow ($n4 + $n6 of 6)" $?
[ "$n4" = 4 ] || diag "$(head -10 $WORK/summary)"
$PY -c '
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
xrxpcap.write_pcap(w + "/tx.pcap", [f for n in ("tx4", "tx6") for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (w, n))])' \
	"$TOP/tests/tools" "$WORK"
out=$($PY "$XRXPCAP" check-payload $WORK/tx.pcap $WORK/rx.pcap 2>&1)
check "every payload byte arrived intact" $?
[ -n "$out" ] && diag "$out"
done_testing
