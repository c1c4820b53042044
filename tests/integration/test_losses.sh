#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxctl stats --losses IFACE, the loss ledger, on a run whose RX ring
# overflows on purpose: the pcap sink writes into a FIFO whose reader is
# stopped (SIGSTOP), so the worker blocks in its write while a burst
# arrives, and the socket's RX ring fills. Proves: the af_xdp
# socket's overflow rows (RX ring full, and rx_dropped: in copy mode the
# blocked worker gives no frames back, so the fill ring runs dry first)
# are non-zero and equal XDP_STATISTICS' counts in xrxctl stats; the rows and the remainder add up exactly to what the NIC
# received less what was written, in text, JSON and Prometheus alike;
# written is the frames in the records the file holds.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"

xrxd_send_testbed losses
FIFO=$WORK/fifo
mkfifo "$FIFO"
cat "$FIFO" >"$WORK/out.pcap" &
reader=$!
at_exit kill -KILL $reader
printf 'sink = pcap:%s\n' "$FIFO" >>"$WORK/xrx.conf"
xrxd_up || { check "xrxd up with a pcap sink into a FIFO" 1; done_testing; exit 1; }
check "xrxd up with a pcap sink into a FIFO" 0

out=$(xrxctl stats --losses 2>&1)
check "--losses without IFACE: exit 2" $([ $? = 2 ]; echo $?)

kill -STOP $reader
# 20000 frames at once: the pipe holds 64 KiB, the worker blocks in its
# write, the RX ring (2048) overflows.
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
	--segs 8 --trains 2500 >/dev/null 2>&1
check "20000 frames sent at once, the reader stopped" $?
kill -CONT $reader
stats_settled "$WORK/s.json"
settled() {
	xrxctl stats --losses $IF_DUT --json >"$WORK/l.json" 2>/dev/null &&
		[ "$(jpath "$WORK/l.json" written)" = "$(jget user.sink.segs_out)" ] &&
		[ "$(jget user.sink.segs_in)" = "$(jget user.sink.segs_out)" ]
}
wait_for 10 settled
xrxctl stats --losses $IF_DUT | sed 's/^/# /'
xrxctl stats --losses $IF_DUT --json >"$WORK/l.json"
check "--losses --json: exit 0" $?
xrxctl stats $IF_DUT --json >"$WORK/s.json"
$PY - "$WORK/l.json" "$WORK/s.json" <<'PYEOF'
import json, sys
l = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
rows = {r["layer"] + "." + r["name"]: r["frames"] for r in l["rows"]}
assert sum(rows.values()) + l["remainder"] == l["received"] - l["written"], l
live = s["user"]["live"]
over = rows["af_xdp.rx_ring_full"] + rows["af_xdp.rx_dropped"]
assert over > 0, rows
assert rows["af_xdp.rx_ring_full"] == live["xsk_rx_ring_full"], (rows, live)
assert rows["af_xdp.rx_dropped"] == live["xsk_rx_dropped"], (rows, live)
# what the socket refused, not written: the frames sent less those
# written and those the socket refused are at most the remainder's few
assert l["remainder"] >= 0, l
assert l["written"] == s["user"]["sink"]["segs_out"] > 0, l
PYEOF
check "rows + remainder == received - written, and the socket's overflow rows are XDP_STATISTICS' counts, non-zero" $?
xrxctl stats --losses $IF_DUT --prom >"$WORK/l.prom"
$PY - "$WORK/l.prom" "$WORK/l.json" <<'PYEOF'
import json, re, sys
l = json.load(open(sys.argv[2]))
v = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(xrx_ledger_\w+)\{([^}]*)\} (-?\d+)$', line)
    if m:
        r = re.search(r'layer="(\w*)",row="(\w+)"', m.group(2))
        v[r.group(1) + "." + r.group(2) if r else m.group(1)] = int(m.group(3))
rows = sum(int(x) for k, x in v.items() if not k.startswith("xrx_ledger_"))
assert rows == v["xrx_ledger_received_frames_total"] - v["xrx_ledger_written_frames_total"], v
assert v["af_xdp.rx_dropped"] == [r["frames"] for r in l["rows"] if r["name"] == "rx_dropped"][0], v
assert v[".remainder"] == l["remainder"], v
PYEOF
check "--prom: the same ledger, adding up" $?
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
recs=$($PY "$TOP/tests/tools/xrxpcap.py" count "$WORK/out.pcap" | awk '{print $1}')
diag "records in the file: $recs"
check "the file was written (records: $recs)" $([ "${recs:-0}" -gt 0 ]; echo $?)
done_testing
