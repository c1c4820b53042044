#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Capture beside delivery: xrxd with sink = tun:NAME and tee = pcap:PATH
# while 100 MiB of TCP (tests/helpers/tcp_hash.c) go from the source
# namespace to the DUT's stack through the TUN.
#
# Proves: the stream completes with the receiver's hash equal to the
# sender's (the TUN delivery is whole); the tee was given every packet the
# sink was, wrote every one (tee counters in xrxctl stats), and the pcap
# holds the whole stream (unless the tee counted drops: a machine too
# busy to run its writer thread; then those checks SKIP): put together
# again by sequence number
# (tests/tools/xrxpcap.py stream) its payload towards the port is at
# least the 100 MiB moved, it runs without a gap, it hashes to the
# sender's hash, and it came in aggregates; tshark reads every record;
# every frame is accounted for (unaccounted 0) and the counters reach
# Prometheus and the xrx_ustats map by name.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

PORT=5201
BYTES=$((100 << 20))
xrxd_tun_testbed tee-capture

# A tee must never wait for a reader: a FIFO is a config error, exit 2,
# before anything is touched.
mkfifo "$WORK/fifo"
printf 'interface = %s\nsink = tun:%s\ntee = pcap:%s\n' $IF_DUT $TUN "$WORK/fifo" >"$WORK/fifo.conf"
in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/fifo.conf" 2>"$WORK/fifo.err"
rc=$?
sed 's/^/# /' "$WORK/fifo.err"
check "tee = pcap: on a FIFO: exit 2, one line naming it" \
	$([ $rc = 2 ] && grep -q "tee = pcap:$WORK/fifo is a FIFO" "$WORK/fifo.err" &&
	  [ "$(wc -l <"$WORK/fifo.err")" = 1 ] && [ ! -e "$SF" ] && [ -z "$(prog_id)" ]; echo $?)

CAP=$WORK/cap.pcap
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
tee = pcap:$CAP
EOF
xrxd_up || { check "xrxd up with sink tun:$TUN and tee pcap:$CAP" 1; done_testing; exit 1; }
check "xrxd up with sink tun:$TUN and tee pcap:$CAP" \
	$(grep -q "sink tun:$TUN, tee pcap:$CAP" "$WORK/xrxd.err"; echo $?)

tcp_stream "$WORK/tcp" $IP4_DUT $PORT $BYTES
check "$((BYTES >> 20)) MiB through the TUN beside the tee: completed, hash intact" $?
sent_hash=$(tcp_field hash "$WORK/tcp.send")

stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
diag "engine pkts_out $(j user.engine.pkts_out) aggs_out $(j user.engine.aggs_out); sink in $(j user.sink.pkts_in) out $(j user.sink.pkts_out); tee in $(j user.tee.pkts_in) out $(j user.tee.pkts_out) errors $(j user.tee.errors) dropped $(j user.tee.dropped)"
check "every frame accounted for: unaccounted 0" $([ "$(j user.unaccounted)" = 0 ]; echo $?)
check "the sink delivered every packet" \
	$([ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.sink.errors)" = 0 ] && [ "$(j user.sink.dropped)" = 0 ]; echo $?)
# The tee writes from a thread of its own and drops, counted, what its
# hand-off cannot hold: on a machine too busy to run that thread for
# long enough the capture has gaps, by design (the sink never waits).
tee_dropped=$(j user.tee.dropped)
check "the tee was given every packet the sink was, and wrote each it did not count dropped ($tee_dropped)" \
	$([ "$(j user.tee.pkts_in)" = "$(j user.sink.pkts_in)" ] &&
	  [ $(( $(j user.tee.pkts_out) + tee_dropped )) = "$(j user.tee.pkts_in)" ] &&
	  [ "$(j user.tee.errors)" = 0 ]; echo $?)
check "the tee's counters in --prom and in the xrx_ustats map" \
	$(xrxctl stats $IF_DUT --prom | grep -q "^xrx_tee_pkts_out_total{interface=\"$IF_DUT\"} $(j user.tee.pkts_out)\$" &&
	  bpftool map dump pinned "$PIN/xrx_ustats" | grep -A3 '"tee"' | grep -q "\"pkts_in\": $(j user.tee.pkts_in)"; echo $?)
tee_out=$(j user.tee.pkts_out)

# The file is whole once xrxd has stopped (each batch end writes it too).
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?

"$PY" "$TOP/tests/tools/xrxpcap.py" stream "$CAP" $PORT >"$WORK/stream" 2>&1
sed 's/^/# /' "$WORK/stream"
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$WORK/stream"; }
check "the pcap holds one stream to port $PORT" $([ "$(wc -l <"$WORK/stream")" = 1 ]; echo $?)
if [ "$tee_dropped" = 0 ]; then
	check "its payload towards the port is at least the $BYTES bytes moved" \
		$([ "$(field payload)" -ge $BYTES ]; echo $?)
	check "put together it runs $BYTES bytes without a gap, and hashes to the sender's $sent_hash" \
		$([ "$(field stream)" = $BYTES ] && [ "$(field hash)" = "$sent_hash" ]; echo $?)
else
	skip "the whole stream in the capture" "the tee dropped $tee_dropped packets, counted: the machine did not run its writer often enough"
	skip "the stream's hash" "the tee dropped $tee_dropped packets"
fi
pkts=$(field packets) aggs=$(field aggregates)
check "in aggregates: $aggs of $pkts records carry more than one segment, $((BYTES / (pkts ? pkts : 1))) bytes per record" \
	$([ "$aggs" -gt 0 ] && [ $((BYTES / (pkts ? pkts : 1))) -gt 2896 ]; echo $?)
if command -v tshark >/dev/null; then
	# exit 0: no record cut short (tshark's own check)
	tshark -r "$CAP" -T fields -e frame.number >"$WORK/frames" 2>"$WORK/tshark.err"
	rc=$?
	grep -v 'Running as user' "$WORK/tshark.err" | sed 's/^/# /'
	n=$(wc -l <"$WORK/frames")
	check "tshark reads every record the tee wrote ($n of $tee_out)" \
		$([ $rc = 0 ] && [ "$n" = "$tee_out" ]; echo $?)
else
	skip "tshark reads the capture" "tshark missing (package tshark)"
fi
done_testing
