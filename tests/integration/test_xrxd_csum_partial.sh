#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Partial checksums: the sender's veth keeps TX checksum offload on (the
# default), so its TCP segments carry the pseudo-header sum in the
# checksum field and the kernel takes them from the veth as
# CHECKSUM_PARTIAL. xrxd with csum = verify and a TUN sink.
#
# Proves, with csum_partial = auto on a veth: TCP streams over IPv4 and
# IPv6 complete with their hashes intact; the segments are counted in
# csum_partial, none in csum_bad; xrxd logs one warning naming the fix
# (ethtool -K PEER tx off) and only one, however many follow; xrxctl
# status says ok and how many were taken unverified; stats, --prom and
# bpftool's view of xrx_ustats show the counter.
# With csum_partial = refuse (reloaded): a connection attempt gets no
# answer (its SYN goes to the stack unverified and is dropped there);
# the frames count in single_csum_partial, none in csum_bad; xrxd logs a
# DEGRADED error naming the fix without waiting for 100 frames; xrxctl
# status says DEGRADED, never ok, and stats gives the hint.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

PORT=5201
BYTES=$((8 << 20))
xrxd_tun_testbed csum-partial
# dut_tun turned it off; the case here is the default
in_src ethtool -K $IF_SRC tx on >/dev/null
check "the sender's veth has TX checksum offload on" \
	$(in_src ethtool -k $IF_SRC | grep -q 'tx-checksum-ip-generic: on'; echo $?)

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
csum = verify
EOF
xrxd_up || { check "xrxd up with sink tun:$TUN" 1; done_testing; exit 1; }

tcp_stream "$WORK/tcp" $IP4_DUT $PORT $BYTES
check "$((BYTES >> 20)) MiB with partial checksums through the TUN: completed, hash intact" $?

stats_settled "$WORK/stats.json"
j() { jpath "$WORK/stats.json" "$1"; }
diag "engine frames_in $(j user.engine.frames_in) csum_partial $(j user.engine.csum_partial) single_csum_partial $(j user.engine.single_csum_partial) csum_bad $(j user.engine.csum_bad) aggs_out $(j user.engine.aggs_out)"
check "counted in csum_partial, none in csum_bad, none refused" \
	$([ "$(j user.engine.csum_partial)" -gt 0 ] && [ "$(j user.engine.csum_bad)" = 0 ] &&
	  [ "$(j user.engine.single_csum_partial)" = 0 ]; echo $?)
check "the sink wrote every packet, none lost" \
	$([ "$(j user.sink.pkts_out)" = "$(j user.engine.pkts_out)" ] &&
	  [ "$(j user.sink.errors)" = 0 ]; echo $?)

warned() { grep -c "partial checksum.*ethtool -K PEER tx off" "$WORK/xrxd.err"; }
wait_for 10 test "$(warned)" -ge 1
grep "partial checksum" "$WORK/xrxd.err" | sed 's/^/# /'
check "xrxd warned, naming the fix (ethtool -K PEER tx off)" $([ "$(warned)" -ge 1 ]; echo $?)
tcp_stream "$WORK/tcp2" $IP6_DUT $PORT $BYTES
check "a second stream, over IPv6, completes too" $?
stats_settled "$WORK/stats.json"
check "and the warning stays one line" $([ "$(warned)" = 1 ]; echo $?)

xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed 's/^/# /' "$WORK/status"
check "status: ok, and how many partial checksums were taken unverified" \
	$(grep -q "^  state     ok" "$WORK/status" &&
	  grep -q "^  checksums $(j user.engine.csum_partial) segments with partial checksums" "$WORK/status"; echo $?)
xrxctl stats $IF_DUT >"$WORK/stats.txt" 2>&1
check "stats: a note on the partial checksums" \
	$(grep -q "note: [0-9]* segments with a partial checksum (csum_partial)" "$WORK/stats.txt"; echo $?)
check "--prom: xrx_engine_csum_partial_total" \
	$(xrxctl stats $IF_DUT --prom | grep -q "^xrx_engine_csum_partial_total{interface=\"$IF_DUT\"} [1-9]"; echo $?)
check "bpftool names it in xrx_ustats (the BTF comes from the same table)" \
	$(bpftool map dump pinned "$PIN/xrx_ustats" | grep -q '"csum_partial": [1-9]'; echo $?)

# --- refused ------------------------------------------------------------------
sed -i '$a csum_partial = refuse' "$WORK/xrx.conf"
xrxctl reload $IF_DUT >"$WORK/reload" 2>&1
check "reload with csum_partial = refuse" $?
# Nothing listens: a SYN that reached the stack would be answered by a
# RST at once. Dropped there, it gets no answer.
in_src timeout 4 bash -c "exec 3<>/dev/tcp/$IP4_DUT/$PORT" 2>/dev/null
rc=$?
check "a connection attempt gets no answer (timeout, not refused)" $([ $rc = 124 ]; echo $?)

refused() { jget user.engine.single_csum_partial; }
wait_for 10 test "$(refused)" -gt 0
degraded() { grep -c "DEGRADED: .*partial checksum.*ethtool -K PEER tx off" "$WORK/xrxd.err"; }
wait_for 10 test "$(degraded)" -ge 1
grep "DEGRADED" "$WORK/xrxd.err" | sed 's/^/# /'
check "its frames counted as refused partial checksums, none in csum_bad" \
	$([ "$(refused)" -gt 0 ] && [ "$(refused)" -lt 100 ] && [ "$(jget user.engine.csum_bad)" = 0 ]; echo $?)
check "xrxd logged DEGRADED with the fix, under 100 frames" $([ "$(degraded)" -ge 1 ]; echo $?)
wait_for 10 eval 'xrxctl status $IF_DUT 2>&1 | grep -q "state     DEGRADED: [0-9]* frames with partial checksums refused"'
xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed 's/^/# /' "$WORK/status"
check "status: DEGRADED with the count and the fix, not ok" \
	$(grep -q "^  state     DEGRADED: [0-9]* frames with partial checksums refused.*ethtool -K PEER tx off" "$WORK/status" &&
	  ! grep -q "state     ok" "$WORK/status"; echo $?)
xrxctl stats $IF_DUT >"$WORK/stats.txt" 2>&1
check "stats: the hint names the fix" \
	$(grep -q "hint: [0-9]* frames\? with a partial checksum refused.*ethtool -K PEER tx off" "$WORK/stats.txt"; echo $?)
check "degraded_reasons has csum_partial in --prom" \
	$(xrxctl stats $IF_DUT --prom | grep -q "^xrx_degraded{interface=\"$IF_DUT\"} 1"; echo $?)

kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
done_testing
