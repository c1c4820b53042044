#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd under valgrind (memcheck, --leak-check=full): start, a few seconds
# of TCP trains through two AF_XDP workers into a pcap sink and a pcap
# tee, a SIGHUP that swaps the sink for null and the tee for another,
# SIGTERM. No memory error and no leak of any kind;
# the only suppressions (xrxd.supp) are libbpf's reads of buffers the
# kernel filled through bpf(2) commands valgrind does not model.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"
command -v valgrind >/dev/null || skip_all "valgrind not installed (scripts/deps.sh installs it)"
built_with_asan && skip_all "this build uses ASan (SANITIZE=1), which valgrind cannot run; make test runs it on the plain build"

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work valgrind
MAC=$(dut_mac)
in_src ethtool -K $IF_SRC tx off >/dev/null
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
sink = pcap:$WORK/rx.pcap
tee = pcap:$WORK/tee.pcap
flush_timeout_us = 2000
[offload]
gro = on
EOF

nsenter --net=/run/netns/$NS_DUT valgrind --error-exitcode=99 \
	--leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
	--suppressions="$TOP/tests/integration/xrxd.supp" \
	--log-file="$WORK/vg.log" \
	"$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
# Under valgrind the start takes seconds, not milliseconds.
wait_for 60 eval 'xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"queues\":2"'
check "xrxd started under valgrind" $(kill -0 $pid; echo $?)

in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
	--segs 16 --trains 1000 -r 20000 >/dev/null 2>&1
sleep 1.5
fin0=$(jget user.engine.frames_in)
sed -e 's/sink = .*/sink = null/' -e "s|tee = .*|tee = pcap:$WORK/tee2.pcap|" \
	-i "$WORK/xrx.conf"
kill -HUP $pid
wait_for 30 grep -q "reloaded" "$WORK/xrxd.err"
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
	--segs 16 --trains 500 -r 20000 >/dev/null 2>&1
sleep 1.5
fin=$(jget user.engine.frames_in)
# Under valgrind the workers are slow: the sockets drop (and count) what
# they cannot take, so the check is that frames flowed on both sides of
# the reload and that every one is accounted for.
diag "engine frames_in $fin0 before the reload, $fin after; tee pkts_in $(jget user.tee.pkts_in); swaps in place $(jget user.live_swaps); socket drops $(jget user.live.xsk_rx_dropped) + $(jget user.live.xsk_rx_ring_full); unaccounted $(jget user.unaccounted)"
check "traffic went through the workers and the tee, before and after the reload, every frame accounted for" \
	$([ "$fin0" -gt 0 ] && [ "$fin" -gt "$fin0" ] && [ "$(jget user.live_swaps)" -ge 1 ] &&
	  [ "$(jget user.tee.pkts_in)" -gt 0 ] &&
	  [ "$(jget user.unaccounted)" = 0 ]; echo $?)

kill -TERM $pid
timeout 60 tail --pid=$pid -f /dev/null
wait $pid
rc=$?
grep -E "ERROR SUMMARY|definitely|indirectly|possibly|still reachable|All heap" "$WORK/vg.log" |
	sed 's/^==[0-9]*== */# /'
check "valgrind: exit 0 (no memory error, no leak)" $([ $rc = 0 ]; echo $?)
check "valgrind: ERROR SUMMARY 0 errors, every heap block freed" \
	$(grep -q "ERROR SUMMARY: 0 errors" "$WORK/vg.log" &&
	  grep -q "All heap blocks were freed -- no leaks are possible" "$WORK/vg.log"; echo $?)
if [ $rc != 0 ]; then
	grep -A14 -E "^==[0-9]*== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes)" \
		"$WORK/vg.log" | head -60 | sed 's/^/# /'
fi
snapshot "$WORK/now"
ok "NIC identical to before, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

done_testing
