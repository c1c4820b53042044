#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# busy_poll = on through xrxd, on a veth with 2 RX queues: the interrupt
# deferral it needs (napi_defer_hard_irqs, gro_flush_timeout on every
# NAPI instance) is applied after xrx_rx is attached, recorded in the
# state file, shown by xrxctl status, and put back exactly on stop, across
# a reload, after SIGKILL by xrxctl restore and by the next start; traffic
# is delivered whole (bytes and frames, unaccounted 0); without NAPI
# instances (--apply-only on a veth without XDP or GRO) it is a warning,
# or exit 2 when required.
#
# The NAPI instances are read and set with tests/tools/napi.py (raw
# netdev netlink), not with xrx's code; they start at values of the
# test's own (7 and 12345), so that a restore to anything else shows.
# GRO is on on the DUT: veth then keeps its NAPIs when xrx_rx is
# detached (veth_disable_xdp()), so the restore after a stop is visible.
#
# Whether the workers really busy poll depends on the kernel: a copy-mode
# AF_XDP socket on veth has no NAPI id on Linux 6.13+ (xsk_bind() resolves
# it for zero-copy sockets only), and the workers then say so and poll
# normally. The kernel's TcpExt BusyPollRxPackets must agree with what
# they say: none polled when they gave up, frames polled when they did not.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work busy-poll
NAPI="$PY $TOP/tests/tools/napi.py"
XRXPCAP="$PY $TOP/tests/tools/xrxpcap.py"
MAC=$(dut_mac)

# "ID DEFER TIMEOUT" per NAPI instance of the DUT, and all of them alike.
napis() { in_dut $NAPI get $IF_DUT; }
all_napis() { [ -n "$(napis)" ] && ! napis | awk -v d="$1" -v t="$2" '$2 != d || $3 != t { bad = 1 } END { exit !bad }'; }
start() {
	nsenter --net=/run/netns/$NS_DUT "$XRXD" -v --state-dir "$STATE" \
		-c "$WORK/xrx.conf" 2>"$1" &
	pid=$!
	at_exit kill -KILL $pid
	wait_for 60 eval 'xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"' ||
		sed 's/^/# /' "$1"
}

in_dut ethtool -K $IF_DUT gro on >/dev/null
in_dut $NAPI set $IF_DUT 7 12345 2>"$WORK/err"
rc=$?
[ $rc = 3 ] && skip_all "this kernel has no per-NAPI settings: $(cat "$WORK/err")"
[ $rc = 0 ] || { sed 's/^/# /' "$WORK/err"; check "napi.py sets the test's values" 1; done_testing; exit 1; }
napis | sed 's/^/# before: /'
check "testbed: 2 NAPI instances at 7 / 12345 (GRO on)" \
	$([ "$(napis | wc -l)" = 2 ] && all_napis 7 12345; echo $?)
ids=$(napis | awk '{ print $1 }' | sort | tr '\n' ' ')

# --- no NAPI instance: --apply-only on a veth without XDP or GRO ---------
in_dut ethtool -K $IF_DUT gro off >/dev/null
printf 'interface = %s\nbusy_poll = on\n' $IF_DUT >"$WORK/apply.conf"
in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/apply.conf" --apply-only 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
check "no NAPI instance: a warning naming the setting and why, exit 0" \
	$([ $rc = 0 ] && grep -q "warning: $IF_DUT: offload.napi_defer_hard_irqs = 2 not applied: $IF_DUT has no NAPI instance now" "$WORK/err"; echo $?)
xrxctl restore $IF_DUT 2>/dev/null
printf '[offload]\ngro_flush_timeout = 200000!\n' >>"$WORK/apply.conf"
in_dut "$XRXD" --state-dir "$STATE" -c "$WORK/apply.conf" --apply-only 2>"$WORK/err"
rc=$?
check "no NAPI instance, required: exit 2, FILE:LINE, nothing changed, no state file" \
	$([ $rc = 2 ] && grep -q "offload.gro_flush_timeout = 200000! (.*apply.conf:4) cannot be applied: $IF_DUT has no NAPI instance now; nothing was changed" "$WORK/err" &&
	  [ ! -e "$SF" ]; echo $?)
# GRO on again makes new NAPI instances (veth_napi_enable()): set them too.
in_dut ethtool -K $IF_DUT gro on >/dev/null
in_dut $NAPI set $IF_DUT 7 12345
ids=$(napis | awk '{ print $1 }' | sort | tr '\n' ' ')

# --- start: applied after attach, on record, in status ---------------------
cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = udp/5201
sink = pcap:$WORK/rx.pcap,perqueue
busy_poll = on
busy_poll_us = 50
EOF
bp0=$(dut_busy_poll_rx)
start "$WORK/d1.err"
napis | sed 's/^/# running: /'
check "start: every NAPI instance at busy_poll's 2 / 200000" $(all_napis 2 200000; echo $?)
check "start: the log says what changed, was and now" \
	$(grep -q "offload.napi_defer_hard_irqs = 2 (was 7, now 2)" "$WORK/d1.err" &&
	  grep -q "offload.gro_flush_timeout = 200000 (was 12345, now 200000)" "$WORK/d1.err"; echo $?)
recorded=1
for id in $ids; do
	grep -qx "napi $id napi_defer_hard_irqs 7" "$SF" &&
		grep -qx "napi $id gro_flush_timeout 12345" "$SF" || recorded=0
done
check "start: the state file records each instance's originals ($ids)" $([ $recorded = 1 ]; echo $?)
xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed -n 's/^\(.*napi .*\)/# \1/p' "$WORK/status"
id1=${ids%% *}
check "xrxctl status: original vs now per instance" \
	$(grep -qE "napi $id1 napi_defer_hard_irqs +7 +2$" "$WORK/status" &&
	  grep -qE "napi $id1 gro_flush_timeout +12345 +200000$" "$WORK/status"; echo $?)

# --- traffic: delivered whole, busy polling as the kernel allows -----------
in_src "$BUILD/xrx-send" -i $IF_SRC --dmac "$MAC" --udp --dport 5201 \
	--segs 20 --trains 50 --rate 20000 -w "$WORK/sent.pcap" >/dev/null 2>&1
rc=$?
read -r sent sent_bytes < <($XRXPCAP count "$WORK/sent.pcap")
# One file per queue (PATH.q0, PATH.q1).
captured() {
	local f n b p=0 t=0
	for f in "$WORK"/rx.pcap.q*; do
		read -r n b < <($XRXPCAP count "$f" 2>/dev/null) || continue
		p=$((p + n))
		t=$((t + b))
	done
	echo "$p $t"
}
stats_settled "$WORK/stats.json"
wait_for 10 eval '[ "$(captured)" = "$sent $sent_bytes" ]'
got=$(captured)
check "busy_poll = on: all $sent datagrams ($sent_bytes bytes) in the pcap sink (got $got), unaccounted 0" \
	$([ $rc = 0 ] && [ "$sent" = 1000 ] && [ "$got" = "$sent $sent_bytes" ] &&
	  [ "$(jpath "$WORK/stats.json" user.unaccounted)" = 0 ]; echo $?)
bp1=$(dut_busy_poll_rx)
polls=$(jpath "$WORK/stats.json" user.live.busy_polls)
diag "BusyPollRxPackets +$((bp1 - bp0)); the workers' busy polls $polls"
if grep -q "busy polling has no NAPI to poll" "$WORK/d1.err"; then
	check "no NAPI id on the sockets (copy mode, Linux 6.13+): the workers said so, the kernel busy-polled nothing" \
		$([ $((bp1 - bp0)) = 0 ] && [ "$polls" -gt 0 ]; echo $?)
	# Fallen back, a worker is the plain loop again, interrupt
	# moderation (coalesce, on by default) included.
	naps=$(jpath "$WORK/stats.json" user.live.naps)
	check "fallen back, the workers nap after a short batch again (naps $naps)" \
		$([ "${naps:-0}" -gt 0 ]; echo $?)
else
	check "the sockets have a NAPI: the kernel busy-polled frames for the workers" \
		$([ $((bp1 - bp0)) -gt 0 ]; echo $?)
fi

# --- reload: the sockets reopen, the record and the settings stay ----------
cp "$SF" "$WORK/sf.before"
sed -i 's/^busy_poll_us = 50/busy_poll_us = 100/' "$WORK/xrx.conf"
restarts0=$(jget user.worker_restarts)
kill -HUP $pid
wait_for 10 eval '[ "$(jget user.reloads)" = 1 ]'
check "reload of busy_poll_us: the sockets reopened (worker restarts $restarts0 -> $(jget user.worker_restarts))" \
	$([ "$(jget user.reloads)" = 1 ] && [ "$(jget user.worker_restarts)" -gt "$restarts0" ] &&
	  grep -q "the queue count or the busy-poll settings changed; reopening" "$WORK/d1.err"; echo $?)
ok "reload: the state file is unchanged" same "$WORK/sf.before" "$SF"
check "reload: the NAPI instances keep busy_poll's settings" $(all_napis 2 200000; echo $?)

# --- stop: restored exactly --------------------------------------------------
kill -TERM $pid
wait $pid
rc=$?
napis | sed 's/^/# after stop: /'
check "SIGTERM: exit 0, every NAPI instance back at 7 / 12345, state file removed" \
	$([ $rc = 0 ] && all_napis 7 12345 && [ ! -e "$SF" ]; echo $?)

# --- SIGKILL: xrxctl restore puts them back ----------------------------------
start "$WORK/d2.err"
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL: the settings stay changed and on record" \
	$(all_napis 2 200000 && grep -q "^napi $id1 napi_defer_hard_irqs 7$" "$SF"; echo $?)
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
check "xrxctl restore: exit 0, every NAPI instance back at 7 / 12345, state file removed" \
	$([ $rc = 0 ] && all_napis 7 12345 && [ ! -e "$SF" ]; echo $?)

# --- SIGKILL: the next start restores first, records the true originals -----
start "$WORK/d3.err"
kill -KILL $pid
wait $pid 2>/dev/null
start "$WORK/d4.err"
check "restart after SIGKILL: restored first, then applied again" \
	$(grep -q "restored the settings a previous xrxd left changed" "$WORK/d4.err" &&
	  all_napis 2 200000; echo $?)
check "restart after SIGKILL: the record holds the true originals (7 / 12345)" \
	$(grep -q "^napi $id1 napi_defer_hard_irqs 7$" "$SF" &&
	  grep -q "^napi $id1 gro_flush_timeout 12345$" "$SF"; echo $?)
kill -TERM $pid
wait $pid
check "and its stop: every NAPI instance back at 7 / 12345" \
	$(all_napis 7 12345 && [ ! -e "$SF" ]; echo $?)

done_testing
