#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Lossless capture live (docs/lossless.md): AF_XDP on a veth into the
# pcap sink with its lossless option, then xrx-replay --split, against
# xrx-send --write's record of what was sent: every frame comes back byte
# for byte, flow by flow in the order sent -- TCP/IPv4, TCP/IPv6 and UDP
# trains that merge, and reordered and duplicated segments the kernel's
# rules would not merge, which must come back intact too. Times are not
# compared: the capture has the receive side's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
need_built "$BUILD/xrx-replay"
testbed_up || { check "testbed" 1; done_testing; exit 1; }

# 240 + 40 + 20 + 2 x 2 x 30 (and the duplicates xrx-send adds)
rx_start -p 5001 -u -s pcap:$WORK/rx.pcapng,lossless -T 20000 -t 60
check "live_rx with the lossless pcap sink" $?
send --flows 4 --segs 20 --trains 3 --gap-us 20000 -w $WORK/tx4.pcap &&
	send --src $IP6_SRC --dst $IP6_DUT --sport 41000 --flows 2 --segs 20 \
		--mss 1428 -w $WORK/tx6.pcap &&
	send --udp --sport 42000 --flows 2 --segs 10 --mss 1000 -w $WORK/txu.pcap &&
	send --sport 43000 --flows 2 --segs 30 --trains 2 --reorder 15 --dup 10 \
		--gap-us 20000 -w $WORK/txr.pcap
check "sent TCP/IPv4, TCP/IPv6, UDP, and reordered and duplicated TCP" $?
sent=0
for f in tx4 tx6 txu txr; do
	sent=$((sent + $($PY "$XRXPCAP" count $WORK/$f.pcap | cut -d' ' -f1)))
done
# every frame sent has been redirected to the socket (bounded), then stop
redirected() { in_dut ethtool -S $IF_DUT | awk '/xdp_redirect/ { s += $2 } END { print s + 0 }'; }
all_redirected() { [ "$(redirected)" -ge $sent ]; }
wait_for 20 all_redirected
rc=$?; check "xrx_rx redirected all $sent frames ($(redirected))" $rc
rx_stop
check "live_rx stopped cleanly" $?
[ "$(rxstat live rx_frames)" = $sent ] && [ "$(rxstat sink errors)" = 0 ] &&
	[ "$(rxstat sink dropped)" = 0 ]
rc=$?; check "all $sent frames sent reached the engine ($(rxstat live rx_frames)), every packet written" $rc
[ "$(rxstat engine aggs_out)" -gt 20 ] && [ "$(rxstat engine single_tcp_flags)$(rxstat engine flush_seq)" != 00 ]
rc=$?; check "aggregates ($(rxstat engine aggs_out)) and frames that did not merge (flush_seq $(rxstat engine flush_seq))" $rc

"$BUILD/xrx-replay" --split $WORK/rx.pcapng $WORK/split.pcap 2>$WORK/split.err
check "xrx-replay --split reads the live capture" $?
$PY - "$TOP/tests/tools" "$WORK" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
frames = []
for n in ("tx4", "tx6", "txu", "txr"):
    frames += [f for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (w, n))]
xrxpcap.write_pcap(w + "/tx.pcap", frames)
PYEOF
out=$($PY "$TOP/tests/tools/frame_cmp.py" --no-time $WORK/tx.pcap $WORK/split.pcap)
check "every frame sent comes back byte for byte, in order per flow: $out" $?
if command -v tshark >/dev/null; then
	n=$(tshark -r $WORK/rx.pcapng 2>/dev/null | wc -l)
	bad=$(tshark -r $WORK/rx.pcapng -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
	[ "$n" = "$(rxstat engine pkts_out)" ] && [ "$bad" = 0 ]
	check "tshark reads the $n packets of the lossless capture, nothing malformed" $?
else
	skip "tshark reads the lossless capture" "tshark not installed"
fi
done_testing
