#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# examples/teecap, the library's tee (xrx_live_opts.tee): a TCP stream
# (tests/helpers/tcp_hash.c) through its TUN sink with the pcap tee on,
# then SIGUSR1 turns the tee off in place
# (xrx_live__reconfigure_opts() with no_tee) and a second stream follows.
#
# Proves: both streams complete with the receiver's hash equal to the
# sender's (the sink delivered throughout); the tee was given exactly the
# first stream's packets and wrote them all, and its file holds that
# stream whole and nothing of the second (xrx_live_stats.tee and the
# pcap read back with tests/tools/xrxpcap.py stream).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
need_built "$BUILD/tests/tcp_hash"
need_tun
TC=$BUILD/examples/teecap
# Not a skip: the example is part of the build.
[ -x "$TC" ] || { check "$TC built (make)" 1; done_testing; exit 1; }

PORT=5201
TUN=xt$$
BYTES=$((16 << 20))

testbed_up || { check "testbed" 1; done_testing; exit 1; }
dut_tun $TUN || { check "TUN $TUN in the DUT" 1; done_testing; exit 1; }

CAP=$WORK/cap.pcap
bg_dut "$TC" -i $IF_DUT -p $PORT -s tun:$TUN -w "$CAP" -t 120 \
	>"$WORK/tc.out" 2>"$WORK/tc.err"
pid=$!
at_exit "kill $pid"
if ! wait_for 20 grep -q "captured to" "$WORK/tc.err"; then
	sed 's/^/# /' "$WORK/tc.err"
	check "teecap up: sink tun:$TUN, tee pcap:$CAP" 1
	done_testing
	exit 1
fi
check "teecap up: sink tun:$TUN, tee pcap:$CAP" 0

tcp_stream "$WORK/s1" $IP4_DUT $PORT $BYTES
check "stream 1 through the TUN, captured: completed, hash intact" $?
kill -USR1 $pid
wait_for 10 grep -q "capture off" "$WORK/tc.err"
check "SIGUSR1: the tee off in place" $?
tcp_stream "$WORK/s2" $IP4_DUT $PORT $BYTES
check "stream 2 through the TUN, not captured: completed, hash intact" $?
kill -TERM $pid
wait $pid
check "teecap exits 0" $?
sed 's/^/# /' "$WORK/tc.out" "$WORK/tc.err"

cnt() { awk -v w="$1" -v k="$2" '$1 == w { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$WORK/tc.out"; }
"$PY" "$XRXPCAP" stream "$CAP" $PORT >"$WORK/stream" 2>&1
sed 's/^/# /' "$WORK/stream"
# Stream 2 took at least BYTES / 64 KiB packets, all the sink's alone;
# every packet of stream 1 but a few of the handshake and the close
# carries payload, and the file holds one flow, that one.
pkts=$(awk '{ for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' "$WORK/stream")
check "the tee wrote every packet it was given, no error or drop" \
	$([ "$(cnt tee pkts_in)" -gt 0 ] && [ "$(cnt tee pkts_out)" = "$(cnt tee pkts_in)" ] &&
	  [ "$(cnt tee errors)" = 0 ] && [ "$(cnt tee dropped)" = 0 ]; echo $?)
check "the sink got both streams, the tee the first only ($(cnt tee pkts_in) of $(cnt sink pkts_in))" \
	$([ "$(cnt sink pkts_out)" = "$(cnt sink pkts_in)" ] &&
	  [ $(( $(cnt sink pkts_in) - $(cnt tee pkts_in) )) -ge $(( BYTES >> 16 )) ] &&
	  [ "$(cnt tee pkts_in)" -ge "$pkts" ] && [ "$(cnt tee pkts_in)" -lt $(( pkts + 10 )) ]; echo $?)
check "the pcap holds stream 1 whole and nothing else" \
	$([ "$(wc -l <"$WORK/stream")" = 1 ] &&
	  grep -q " stream $BYTES hash $(tcp_field hash "$WORK/s1.send")\$" "$WORK/stream"; echo $?)
done_testing
